"""The few ``tf.compat.v1`` names TF 2 code still calls (Keras' shape inference makes
placeholders, dense and sparse, in a scratch graph; ``clear_session`` resets the default graph;
``wrap_function`` runs TF 1 graph code, such as a frozen GraphDef, as a function)."""

import numpy as np

from .. import dtypes, nest, shapes
from .._export import tf_export
from ..context import bind, record, state
from ..convert import convert_to_tensor
from ..graph import ir
from ..ops._args import shape_values
from ..ops.array.passthrough import PlaceholderWithDefault
from ..sparse.sparse_tensor import SparseTensor
from ..tensor import Tensor, TensorSpec
from ..tracing.concrete import ConcreteFunction
from ..tracing.signature import Binder
from ..tracing.trace import FuncGraph, trace


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


@tf_export("compat.v1.placeholder_with_default")
def placeholder_with_default(input, shape, name=None):
    """``input`` where the output is not fed, with the static ``shape`` (possibly partial):
    eagerly ``input`` itself.

    Raises:
        ValueError: while tracing, when ``input``'s shape is incompatible with ``shape``.
    """
    x = convert_to_tensor(input)
    attrs = {"dtype": x.dtype, "shape": shapes.TensorShape(shape)}
    graph = state.graph
    if graph is None:
        return bind(PlaceholderWithDefault, x, **attrs)
    if getattr(x, "graph", None) is not graph:
        x = graph.capture(x)
    spec = PlaceholderWithDefault.infer(x, **attrs)
    # named as TF's generated op names it (not after an enclosing call: sparse_placeholder's
    # "<name>/shape")
    out = graph.add_op("PlaceholderWithDefault", [x], attrs, (spec,),
                       name=name or "PlaceholderWithDefault").outputs[0]
    if state.tapes:  # as graph.apply records an op
        record(PlaceholderWithDefault, [x], attrs, out)
    return out


@tf_export("raw_ops.PlaceholderWithDefault")
def raw_placeholder_with_default(*, input, shape, name=None):
    """TF's raw op: keyword arguments only."""
    return placeholder_with_default(input, shape, name)


@tf_export("compat.v1.sparse_placeholder")
def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of graph inputs, as TF builds it: ``values`` a [None] placeholder of
    ``dtype``, ``indices`` a [None, rank] int64 placeholder and ``dense_shape`` an int64
    PlaceholderWithDefault of ``shape`` (-1 for unknown dims; a placeholder when ``shape`` is
    None); the SparseTensor's static shape is ``shape``. Named ``<name>/values``,
    ``<name>/indices``, ``<name>/shape`` (and ``<name>/shape_default``) when named.

    Raises:
        RuntimeError: when executing eagerly, as TF.
    """
    graph = state.graph
    if graph is None:
        raise RuntimeError("`sparse_placeholder` is not compatible with eager execution.")
    part = (lambda suffix: f"{name}/{suffix}") if name is not None else (lambda suffix: None)
    if shape is None:
        dense_shape = placeholder(dtypes.int64, [None], part("shape"))
        rank, static = None, shapes.TensorShape(None)
    elif isinstance(shape, Tensor):
        known = shape_values(shape)  # TF's constant_value_as_shape
        rank = shape.shape[0]
        static = shapes.TensorShape(None if known is None else
                                    [None if d is None or d < 0 else d for d in known])
        dense_shape = placeholder_with_default(shape, shape.shape, part("shape"))
    else:
        dims = [shapes.dimension_value(d) for d in shape]
        rank, static = len(dims), shapes.TensorShape([None if d == -1 else d for d in dims])
        default = graph.constant(np.array([-1 if d is None else d for d in dims], np.int64),
                                 part("shape_default") or "Const")
        dense_shape = placeholder_with_default(default, default.shape, part("shape"))
    result = SparseTensor(values=placeholder(dtype, [None], part("values")),
                          indices=placeholder(dtypes.int64, [None, rank], part("indices")),
                          dense_shape=dense_shape)
    result.set_shape(static)  # the placeholder's value is unknown: the shape TF gives it
    return result


@tf_export("compat.v1.reset_default_graph")
def reset_default_graph():
    """Clear the default graph: eagerly there is none to clear (TF 2's state lives in objects).

    Raises:
        AssertionError: inside a graph, as TF.
    """
    if state.graph is not None:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you "
                             "need a cleared graph, exit the nesting and create a new graph.")


class WrappedFunction(ConcreteFunction):
    """``tf.compat.v1.wrap_function``'s result: a concrete function over a graph built once by
    calling a TF 1-style function (no autograph), whose ``prune`` cuts sub-functions out of it
    (feeds in, fetches out)."""

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """A WrappedFunction computing ``fetches`` (tensors, operations or their names, nested)
        from ``feeds`` (tensors or names, flat): the ops between them, copied.

        Raises:
            KeyError: for a name the graph lacks (TF's message).
            ValueError: when a fetch needs a placeholder that no feed gives.
        """
        graph = self.graph
        feeds = [_element(graph, f, tensor=True) for f in nest.flatten(feeds)]
        fetches = nest.map_structure(lambda f: _element(graph, f, tensor=None), fetches)
        pruned = _pruned_graph(graph, feeds, nest.flatten(fetches), name or "pruned")
        pruned.structured_outputs = nest.map_structure(
            lambda f: pruned.copied.get(id(f)) if isinstance(f, Tensor) else None, fetches)
        pruned.outputs = [t for t in nest.flatten(pruned.structured_outputs) if t is not None]
        specs = [TensorSpec(t.shape, t.dtype) for t in feeds]
        return WrappedFunction(pruned, Binder(_positional), (tuple(specs),), pruned.name)


def _positional(*args):
    """The calling convention of wrapped and pruned functions: tensors, positionally."""


def _element(graph, value, tensor):
    """A graph tensor or operation for a fetch or feed given by name (TF's KeyErrors)."""
    if tensor and isinstance(value, ir.Operation):
        raise ValueError(f"All members of argument `feeds` must be tensors. Got {value!r} with "
                         f"type {type(value)}.")
    if isinstance(value, (Tensor, ir.Operation)):
        if getattr(value, "graph", None) is not graph:
            raise ValueError(f"Can only prune function whose feeds and fetches are from this "
                             f"graph ({graph.name}). Input {value} is from a different graph.")
        return value
    if not isinstance(value, str):
        raise TypeError(f"Feeds and fetches must be tensors, operations or their names, got "
                        f"{value!r}")
    ops = {op.name: op for op in graph.get_operations()}
    op_name, sep, index = value.partition(":")
    if not sep:
        if tensor:
            raise ValueError(f"All members of argument `feeds` must be tensors. Got {value!r} "
                             "with type <class 'str'> naming an Operation.")
        if op_name not in ops:
            raise KeyError(f"The name {value!r} refers to an Operation not in the graph.")
        return ops[op_name]
    if op_name not in ops:
        raise KeyError(f"The name {value!r} refers to a Tensor which does not exist. The "
                       f"operation, {op_name!r}, does not exist in the graph.")
    outputs = ops[op_name].outputs
    if not index.isdigit() or int(index) >= len(outputs):
        raise KeyError(f"The name {value!r} refers to a Tensor which does not exist. The "
                       f"operation, {op_name!r}, exists but only has {len(outputs)} outputs.")
    return outputs[int(index)]


def _pruned_graph(graph, feeds, fetches, name):
    """A new function graph of the ops ``fetches`` need, ``feeds`` its placeholders; its
    ``copied`` maps id(old tensor) -> new tensor."""
    fed = {id(t) for t in feeds}
    needed, stack = set(), [f if isinstance(f, ir.Operation) else f.op for f in fetches
                            if f is not None]
    while stack:
        op = stack.pop()
        if id(op) in needed or (op.outputs and all(id(t) in fed for t in op.outputs)):
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs if id(t) not in fed)
        stack.extend(op.control_inputs)
    captured = {id(ph): value for value, ph in graph.captures}
    new = FuncGraph(name)
    copied = new.copied = {}
    with new.as_default():
        for t in feeds:
            copied[id(t)] = new.placeholder(TensorSpec(t.shape, t.dtype), t.op.name)
        new.inputs = [copied[id(t)] for t in feeds]
        for op in graph.get_operations():
            if id(op) not in needed:
                continue
            if op.type == "Placeholder":
                value = captured.get(id(op.outputs[0]))
                if value is None:
                    raise ValueError(f"The fetches need the placeholder {op.outputs[0].name!r}, "
                                     "which no feed gives.")
                copied[id(op.outputs[0])] = new.capture(value)
                continue
            made = new.add_op(op.type, [copied[id(t)] for t in op.inputs], dict(op.attrs),
                              [t.spec for t in op.outputs], name=op.name)
            made.multi = op.multi
            made.control_inputs = tuple(copied[id(c)] for c in op.control_inputs
                                        if id(c) in copied)
            copied[id(op)] = made
            for old, t in zip(op.outputs, made.outputs):
                copied.setdefault(id(old), t)
    return new


@tf_export("compat.v1.wrap_function")
def wrap_function(fn, signature, name=None):
    """``fn`` called once on placeholders of ``signature`` (TensorSpecs) into a graph, as a
    callable WrappedFunction (TF 2's way to run TF 1 graph code, e.g. importing a GraphDef).

    Raises:
        TypeError: when ``signature`` is not a list of TensorSpecs.
    """
    signature = [] if signature is None else list(signature)
    for spec in nest.flatten(signature):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"signature must be a list of tf.TensorSpec, got {spec!r}")
    fn_name = name or getattr(fn, "__name__", "wrapped_function")
    binder = Binder(_positional)
    specs = (tuple(signature),)

    def call(*args):
        return fn(*args)

    graph = trace(call, binder, specs, fn_name, autograph=False)
    return WrappedFunction(graph, binder, specs, fn_name)
