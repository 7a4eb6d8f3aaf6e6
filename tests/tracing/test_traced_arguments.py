"""What TF 2.21 recorded (``tests/fixtures/tf/make_kguide.py``), run here on the same code:
concrete-function signatures of ``*args``/``**kwargs`` functions (TF's monomorphic type:
``args_0 (POSITIONAL_ONLY)``), variable arguments that are the caller's variables inside the
trace, tf.Module list/dict attributes wrapped as TF's AutoTrackable wraps them (and traced as
the plain structures), and the ``_XlaMustCompile`` attr of a jit_compile call in a GraphDef."""

import importlib.util
import json
import pathlib
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor.compiled import compile_graph
from tensortrace.graph import function_def

HERE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tf"
EXPECTED = json.loads((HERE / "kguide" / "expected.json").read_text())


@pytest.fixture(scope="module")
def cases():
    """The recording script's functions, with ``tensorflow`` meaning tensortrace."""
    saved = sys.modules.get("tensorflow")
    sys.modules["tensorflow"] = tf
    try:
        spec = importlib.util.spec_from_file_location("make_kguide", HERE / "make_kguide.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["tensorflow"]
        else:
            sys.modules["tensorflow"] = saved
    return module


def _json(value):
    """``value`` as the recording holds it (tuples as lists)."""
    return json.loads(json.dumps(value))


def test_signatures_unbundle_var_positional_and_var_keyword(cases):
    # the second case is what Keras' model.export traces: fn(*args, **kwargs) with an
    # input_signature, printed as TF prints its endpoint (args_0 (POSITIONAL_ONLY): ...)
    assert _json(cases.signatures()) == EXPECTED["signatures"]


def test_variable_arguments_are_the_callers_variables(cases):
    assert _json(cases.variable_arguments()) == EXPECTED["variable_arguments"]


def test_module_structures_are_wrapped_and_trace_as_plain_ones(cases):
    assert _json(cases.module_attributes()) == EXPECTED["module_attributes"]


def test_module_structure_wrappers_behave_as_lists_and_dicts():
    m = tf.Module()
    m.layers = [tf.Variable(1.0)]
    m.layers.append(tf.Variable(2.0))
    m.table = {"w": tf.Variable(3.0)}
    assert [float(v.numpy()) for v in m.trainable_variables] == [1.0, 2.0, 3.0]
    assert m.layers == list(m.layers) and isinstance(m.table, dict)
    f = tf.function(lambda x: x[0] + x[1])
    assert float(f(m.layers).numpy()) == 3.0
    assert float(f([tf.Variable(5.0), tf.Variable(6.0)]).numpy()) == 11.0
    assert f.experimental_get_tracing_count() == 1  # a ListWrapper keys as the list it holds


def test_jit_call_writes_tfs_attr_name_and_reads_it_back(cases):
    expected = EXPECTED["jit_call_attrs"]
    got = cases.jit_call_attrs()
    assert [(c["op"], c["XlaMustCompile"]) for c in got] == \
        [(c["op"], c["XlaMustCompile"]) for c in expected]
    assert all(not any(k.startswith("_tt_") for k in c["private"]) for c in got)

    @tf.function(jit_compile=True)
    def inner(x):
        return x * 2.

    @tf.function
    def outer(x):
        return inner(x) + 1.

    cf = outer.get_concrete_function(tf.TensorSpec([2], tf.float32))
    graph_def = cf.graph.as_graph_def()
    (call,) = [n for n in graph_def.node if n.op.endswith("PartitionedCall")]
    assert call.attr["_XlaMustCompile"].b is True
    graph = function_def.graph_def_to_graph(graph_def)  # the call, read back and inlined
    graph.inputs = [graph.get_tensor_by_name("x:0")]
    graph.outputs = [graph.get_tensor_by_name(t.name) for t in cf.graph.outputs]
    out = compile_graph(graph, "outer")(np.array([1.0, 2.0], np.float32))
    assert np.asarray(out[0]).tolist() == [3.0, 5.0]
