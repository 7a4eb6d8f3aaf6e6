"""tf.graph_util.import_graph_def inside a tf.function, as TF 2.21: a GraphDef TF wrote (the
fixtures of make_graphdefs.py) imported under a name scope with input_map and return_elements
gives TF's outputs; TF's errors for names the GraphDef lacks (texts TF 2.21 printed)."""

import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "tf",
                    "graphdefs")


def _load(name):
    gd = _protos.graph_pb2.GraphDef()
    with open(os.path.join(HERE, f"{name}.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    return gd, np.load(os.path.join(HERE, f"{name}.npz"))


def test_import_with_input_map_and_return_elements():
    gd, data = _load("mlp_step")
    outputs = [str(n) for n in data["output_names"]]
    seen = {}

    @tf.function
    def f(x, y, lr):
        found = tf.graph_util.import_graph_def(
            gd, input_map={"x:0": x, "y": y, "lr:0": lr}, return_elements=outputs + [
                "Identity", "x:0"], name="imp")
        seen["op"], seen["x"] = found[-2], found[-1]
        return found[:-2]

    got = f(*[tf.constant(data[f"in{i}"]) for i in range(3)])
    for i, t in enumerate(got):
        np.testing.assert_allclose(t.numpy(), data[f"out{i}"], rtol=1e-5, atol=1e-6)
    assert seen["op"].name == "imp/Identity" and seen["op"].type == "Identity"
    assert seen["x"].name == "x:0"  # a mapped input is the tensor it was mapped to


def test_import_without_return_elements_and_default_scope():
    gd, data = _load("mlp_step")

    @tf.function
    def f(x, y, lr):
        assert tf.graph_util.import_graph_def(gd, input_map={"x:0": x, "y:0": y,
                                                             "lr:0": lr}) is None
        (a,) = tf.import_graph_def(gd, input_map={"x:0": x, "y:0": y, "lr:0": lr},
                                   return_elements=["Identity:0"])
        (b,) = tf.import_graph_def(gd, input_map={"x:0": x, "y:0": y, "lr:0": lr},
                                   return_elements=["Identity:0"], name="")
        assert a.name == "import_1/Identity:0" and b.name.startswith("Identity")
        return a

    np.testing.assert_allclose(f(*[tf.constant(data[f"in{i}"]) for i in range(3)]).numpy(),
                               data["out0"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs,error,text", [
    ({"return_elements": ["nope"]}, ValueError, "Requested return node 'nope' not found in "
     "graph def"),
    ({"return_elements": ["nope:0"]}, ValueError, "Requested return tensor 'nope:0' not found "
     "in graph def"),
    ({"return_elements": ["Identity:5"]}, ValueError, "Invalid return output 5 of node "
     "'Identity', which has 1 output(s)"),
    ({"extra": True}, ValueError, "Attempted to map inputs that were not found in graph_def: "
     "[nope:0]"),
])
def test_tf_errors(kwargs, error, text):
    gd, data = _load("mlp_step")

    @tf.function
    def f(x, y, lr):
        m = {"x:0": x, "y:0": y, "lr:0": lr}
        if kwargs.get("extra"):
            m["nope:0"] = x
        return tf.graph_util.import_graph_def(gd, input_map=m, return_elements=kwargs.get(
            "return_elements", ["Identity:0"]))

    with pytest.raises(error) as info:
        f(*[tf.constant(data[f"in{i}"]) for i in range(3)])
    assert text in str(info.value)


def test_not_a_graph_def():
    with pytest.raises(TypeError, match="^Argument `graph_def` must be a GraphDef proto.$"):
        tf.graph_util.import_graph_def(b"xx")
