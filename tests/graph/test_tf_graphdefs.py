"""GraphDefs TF 2.21 wrote (tests/fixtures/tf/make_graphdefs.py) imported and run on tensortrace,
giving TF's outputs: an MLP training step, a conv net, tf.while_loop, tf.cond, a tf.function
calling another, a variable read and update."""

import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import _protos, errors
from tensortrace.executor.compiled import compile_graph
from tensortrace.graph import function_def

HERE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "tf", "graphdefs")


def _load(name):
    with open(os.path.join(HERE, name + ".pb"), "rb") as f:
        gd = _protos.parse(_protos.graph_pb2.GraphDef, f.read(), "GraphDef")
    data = np.load(os.path.join(HERE, name + ".npz"))
    return gd, data


def _run(name, bind=None):
    gd, data = _load(name)
    graph = function_def.graph_def_to_graph(gd, name)
    graph.inputs = [graph.get_tensor_by_name(n) for n in data["input_names"]]
    graph.outputs = [graph.get_tensor_by_name(n) for n in data["output_names"]]
    feeds = [data[f"in{i}"] for i in range(sum(k[2:].isdigit() for k in data if k[:2] == "in"))]
    if bind is not None:
        feeds += bind
    outs = compile_graph(graph, name)(*feeds)
    wants = [data[f"out{i}"] for i in range(len(graph.outputs))]
    return graph, outs, wants


@pytest.mark.parametrize("name", ["mlp_step", "conv", "while_loop", "cond", "cond_false",
                                  "nested_call", "tensor_array", "switch_case"])
def test_tf_graphdef_runs_with_tfs_outputs(name):
    _, outs, wants = _run(name)
    assert len(outs) == len(wants)
    for got, want in zip(outs, wants):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_control_flow_becomes_our_records():
    graph, _, _ = _run("while_loop")
    (loop,) = [op for op in graph.get_operations() if op.type == "StatelessWhile"]
    # TF's loop variables: loop_counter, maximum_iterations, i, acc, the captured n and scale
    assert [t.name for t in loop.inputs] == ["while/loop_counter:0", "while/maximum_iterations:0",
                                             "Const:0", "x:0", "n:0", "mul:0"]
    assert loop.attrs["cond"].outputs[0].dtype == tf.bool and not loop.attrs["body"].captures
    graph, _, _ = _run("cond")
    (branch,) = [op for op in graph.get_operations() if op.type == "StatelessIf"]
    then = branch.attrs["then_branch"]
    assert [v for v, _ in then.captures] == list(branch.inputs[1:]) and not then.inputs


def test_function_calls_are_inlined():
    graph, _, _ = _run("nested_call")
    types = [op.type for op in graph.get_operations()]
    assert "PartitionedCall" not in types and "Tanh" in types and "ConcatV2" in types
    assert any(op.name.startswith("PartitionedCall/") for op in graph.get_operations())


def test_resource_inputs_bind_to_variables():
    v = tf.Variable([1.0, 2.0, 3.0])
    _, outs, wants = _run("variable_step", bind=[v.handle._value])
    np.testing.assert_allclose(np.asarray(outs[0]), wants[0])
    np.testing.assert_allclose(v.numpy(), [1.5, 3.0, 2.0])  # assign_add ran once


def test_unknown_op_type_is_tfs_not_found_error():
    gd, _ = _load("conv")
    gd.node[-1].op = "FancyOp"
    with pytest.raises(errors.NotFoundError,
                       match=r"Op type not registered 'FancyOp' in binary running on .+ Make "
                             r"sure the Op and Kernel are registered"):
        function_def.graph_def_to_graph(gd)


def _saved_library():
    with open(os.path.join(HERE, "saved_library.pb"), "rb") as f:
        library = _protos.parse(_protos.function_pb2.FunctionDefLibrary, f.read(), "library")
    return library, np.load(os.path.join(HERE, "saved_library.npz"))


def test_saved_model_functions_with_stripped_defaults_and_resource_arguments():
    library, data = _saved_library()
    by_name = {f.signature.name: f for f in library.function}
    fdef = by_name[str(data["function"])]
    # TF saved the Sum without keep_dims (its default): the default comes back on import
    assert any(n.op == "Sum" and "keep_dims" not in n.attr for n in fdef.node_def)
    graph = function_def.function_def_to_graph(fdef, library)
    assert [t.dtype for t in graph.inputs] == [tf.float32, tf.resource, tf.resource]
    assert [t.shape for t in graph.inputs] == [tf.TensorShape([None, 3]), tf.TensorShape([]),
                                               tf.TensorShape([])]  # arg_attr, _input_shapes
    w, b = tf.Variable(data["w"]), tf.Variable(data["b"])
    out = compile_graph(graph, "call")(data["in0"], w.handle._value, b.handle._value)
    np.testing.assert_allclose(np.asarray(out[0]), data["out0"], rtol=1e-6)
    # the serving wrapper reaches it through StatefulPartitionedCall, inlined
    (wrapper,) = [f for f in library.function if "signature_wrapper" in f.signature.name]
    graph = function_def.function_def_to_graph(wrapper, library)
    assert "StatefulPartitionedCall" not in {op.type for op in graph.get_operations()}
    handles = {t.op.name: t for t in graph.inputs if t.dtype == tf.resource}
    feeds = [data["in0"] if t.dtype == tf.float32 else None for t in graph.inputs]
    # the wrapper's resource arguments are the variables in the order they were captured
    order = [w, b] if len(handles) == 2 else []
    feeds = [f if f is not None else order.pop(0).handle._value for f in feeds]
    out = compile_graph(graph, "wrapper")(*feeds)
    np.testing.assert_allclose(np.asarray(out[0]), data["out0"], rtol=1e-6)


def test_var_handle_nodes_become_resource_inputs_a_loader_binds():
    with open(os.path.join(HERE, "var_handle.pb"), "rb") as f:
        gd = _protos.parse(_protos.graph_pb2.GraphDef, f.read(), "GraphDef")
    data = np.load(os.path.join(HERE, "var_handle.npz"))
    graph = function_def.graph_def_to_graph(gd)
    assert graph.variable_handles == {"v": {"shared_name": "v", "container": "",
                                            "dtype": tf.float32, "shape": tf.TensorShape([2])}}
    assert [t.op.name for t in graph.inputs] == ["x", "v"]  # placeholders, then the handles
    assert graph.get_operation_by_name("v").type == "Placeholder"
    graph.outputs = [graph.get_tensor_by_name("y:0")]
    v = tf.Variable(data["v"])
    out = compile_graph(graph, "y")(data["in0"], v.handle._value)
    np.testing.assert_allclose(np.asarray(out[0]), data["out0"])
