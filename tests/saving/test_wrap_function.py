"""``tf.compat.v1.wrap_function`` and ``WrappedFunction.prune``: TF 2's way to run a frozen
GraphDef (a GraphDef TF 2.21 froze: tests/fixtures/tf/make_wrap_function.py), TF's errors for
names the graph lacks; eager ``tf.graph_util.import_graph_def`` imports into a global graph,
names kept and made unique, as TF's."""

import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "tf",
                       "wrap_function")
DATA = np.load(os.path.join(FIXTURE, "frozen.npz"))


def _graph_def():
    with open(os.path.join(FIXTURE, "frozen.pb"), "rb") as f:
        return _protos.parse(_protos.graph_pb2.GraphDef, f.read(), "GraphDef")


@pytest.fixture(scope="module")
def wrapped():
    gd = _graph_def()
    return tf.compat.v1.wrap_function(lambda: tf.graph_util.import_graph_def(gd, name=""), [])


def test_frozen_graph_def_runs_as_tf_runs_it(wrapped):
    assert type(wrapped).__name__ == "WrappedFunction"
    assert wrapped() is None  # the import returns nothing
    run = wrapped.prune("x:0", "Identity:0")
    assert [t.name for t in run.inputs] == ["x:0"] and run.outputs[0].dtype == tf.float32
    out = run(tf.constant(DATA["x"]))
    np.testing.assert_allclose(out.numpy(), DATA["out"], rtol=1e-6, atol=1e-6)
    hidden = wrapped.prune(["x:0"], ["Relu:0"])(tf.constant(DATA["x"]))
    assert isinstance(hidden, list) and len(hidden) == 1
    np.testing.assert_allclose(hidden[0].numpy(), DATA["hidden"], rtol=1e-6, atol=1e-6)
    both = wrapped.prune(wrapped.graph.get_tensor_by_name("x:0"),
                         {"probs": "Identity:0", "relu": "Relu:0"})(tf.constant(DATA["x"]))
    np.testing.assert_allclose(both["probs"].numpy(), DATA["out"], rtol=1e-6, atol=1e-6)
    # an intermediate tensor can be fed: the ops before it are cut off
    tail = wrapped.prune("Relu:0", "Identity:0")
    assert "MatMul" not in {op.name for op in tail.graph.get_operations()}
    np.testing.assert_allclose(tail(tf.constant(DATA["hidden"])).numpy(), DATA["out"],
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("feeds,fetches,error,text", [
    ("nope:0", "Identity:0", KeyError, ("The name 'nope:0' refers to a Tensor which does not "
                                        "exist. The operation, 'nope', does not exist in the "
                                        "graph.")),
    ("x:0", "Identity:3", KeyError, ("The name 'Identity:3' refers to a Tensor which does not "
                                     "exist. The operation, 'Identity', exists but only has 1 "
                                     "outputs.")),
    ("x:0", "nope", KeyError, "The name 'nope' refers to an Operation not in the graph."),
    ("x", "Identity:0", ValueError, "All members of argument `feeds` must be tensors."),
])
def test_prune_errors(wrapped, feeds, fetches, error, text):
    with pytest.raises(error) as info:
        wrapped.prune(feeds, fetches)
    assert text in str(info.value)


def test_wrap_function_with_a_signature():
    w = tf.compat.v1.wrap_function(lambda x, y: x * y + 1.0,
                                   [tf.TensorSpec([], tf.float32), tf.TensorSpec([2], tf.float32)])
    np.testing.assert_allclose(w(tf.constant(2.0), tf.constant([1.0, 3.0])).numpy(), [3.0, 7.0])
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.compat.v1.wrap_function(lambda x: x, [3])


def test_eager_import_graph_def_uses_a_global_graph():
    gd = _graph_def()
    assert tf.graph_util.import_graph_def(gd, name="") is None
    y, relu = tf.graph_util.import_graph_def(gd, return_elements=["Identity:0", "Relu"])
    # TF 2.21: the global graph keeps the GraphDef's names, made unique (no "import/" scope)
    assert y.name.startswith("Identity_") and relu.name.startswith("Relu_")
    assert y.shape.as_list() == [None, 2]
    with pytest.raises(NotImplementedError, match="_as_tf_output not supported when eager "
                                                  "execution is enabled."):
        tf.graph_util.import_graph_def(gd, input_map={"x:0": tf.constant(DATA["x"])})
