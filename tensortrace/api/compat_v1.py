"""The few ``tf.compat.v1`` names TF 2 code still calls (Keras' shape inference makes
placeholders in a scratch graph; ``clear_session`` resets the default graph)."""

from .. import dtypes, shapes
from .._export import tf_export
from ..context import state
from ..tensor import TensorSpec


@tf_export("compat.v1.placeholder")
def placeholder(dtype, shape=None, name=None):
    """A graph input of ``dtype`` and ``shape`` in the graph being built.

    Raises:
        RuntimeError: when executing eagerly, as TF.
    """
    graph = state.graph
    if graph is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    spec = TensorSpec(shapes.TensorShape(shape), dtypes.as_dtype(dtype))
    return graph.placeholder(spec, name or "Placeholder")


@tf_export("compat.v1.reset_default_graph")
def reset_default_graph():
    """Clear the default graph: eagerly there is none to clear (TF 2's state lives in objects).

    Raises:
        AssertionError: inside a graph, as TF.
    """
    if state.graph is not None:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you "
                             "need a cleared graph, exit the nesting and create a new graph.")
