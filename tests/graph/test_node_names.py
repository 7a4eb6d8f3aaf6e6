"""Graph node names as TF 2.21 gives them: operator and API scopes, ``name=``, ``tf.name_scope``,
TF's case-insensitive unique names, variable reads, constants made for inputs, modules.

The cases are traced on both sides from ``tests/fixtures/tf/make_node_names.py``; the names
TF gave are in ``tests/fixtures/tf/node_names/names.json``.
"""

import importlib.util
import json
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph import naming
from tensortrace.saving.save import save_json

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "make_node_names", os.path.join(_HERE, "..", "fixtures", "tf", "make_node_names.py"))
_make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_make)
cases, node_list = _make.cases, _make.node_list


def _data_nodes(nodes):
    """The nodes without TF's automatic control dependencies (a NoOp after stateful ops, read
    by the outputs' Identity ops), which tensortrace does not add: its ops run in order."""
    return [[n, op, [i for i in inputs if not i.startswith("^")]]
            for n, op, inputs in nodes if op != "NoOp"]


with open(os.path.join(_HERE, "..", "fixtures", "tf", "node_names", "names.json")) as _f:
    TF_NAMES = {k: _data_nodes(v) for k, v in json.load(_f)["cases"].items()}

CASES = {name: (fn, specs) for name, fn, specs in cases(tf)}

# Cases whose graphs are TF's node for node: names, op types and inputs all equal.
EXACT = ["operators", "reflected", "int_operators", "bool_operators", "strings", "api_unary",
         "api_binary", "names", "uniquify", "scopes", "constants", "module"]

# Cases where our graph differs from TF's in structure, not names; each lists TF's nodes that
# are not ours (name: why). Every other TF node must be ours, with the same type and inputs.
DIFFERENT = {
    "api_reduce": {"Const": "our Sum holds all axes as an attr; its exported Const is named "
                            "Sum/reduction_indices (TF makes the axes outside the op's scope)",
                   "Sum": "its input is that Const"},
    "api_array": {"Shape": "TF folds tf.shape of a known shape to a Const",
                  "zeros_like": "TF folds it to a Const (ours: ZerosLike, same name)",
                  "ones_like": "TF folds it to a Const (ours: OnesLike, same name)"},
    "control": {"Const": "as api_reduce", "Sum": "as api_reduce",
                "cond/Identity": "TF's cond passes each output through an Identity",
                "Identity": "reads cond/Identity"},
    "variables": {"Identity": "TF's read_value ends with an Identity; ours reads only",
                  "add": "reads that Identity",
                  "Identity_1": "the output: ours is Identity, which TF's read_value took"},
    "variable_operators": {"Const": "as api_reduce", "Sum": "as api_reduce"},
}


def _ours(name):
    fn, specs = CASES[name]
    return _data_nodes(node_list(
        tf.function(fn).get_concrete_function(*specs).graph.as_graph_def()))


@pytest.mark.parametrize("name", EXACT)
def test_graphs_are_named_node_for_node_as_tf_names_them(name):
    assert _ours(name) == TF_NAMES[name]


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_graphs_differing_in_structure_still_have_tfs_names(name):
    ours = {n: (op, inputs) for n, op, inputs in _ours(name)}
    expected = [(n, op, inputs) for n, op, inputs in TF_NAMES[name] if n not in DIFFERENT[name]]
    assert [(n, *ours.get(n, (None, None))) for n, _, _ in expected] == expected


def test_the_function_guides_example():
    @tf.function
    def double_strings(a):
        return a + a

    graph = double_strings.get_concrete_function(tf.constant("a")).graph
    assert [f"{n.input} -> {n.name}" for n in graph.as_graph_def().node] == [
        "[] -> a", "['a', 'a'] -> add", "['add'] -> Identity"]


def test_names_are_final_when_the_call_returns():
    seen = []

    @tf.function
    def f(x):
        y = tf.reshape(x, [2, 2])
        seen.append(str(y))
        z = x + 1.0
        seen.append(str(z))
        return y, z

    f.get_concrete_function(tf.TensorSpec([4]))
    assert seen == ['Tensor("Reshape:0", shape=(2, 2), dtype=float32)',
                    'Tensor("add:0", shape=(4,), dtype=float32)']


def test_unique_names_are_tfs_case_insensitive_ones():
    names = {}
    got = [naming.unique_name(names, n) for n in
           ["add", "Add", "add_1", "ADD", "foo", "foo", "Foo", "add_1"]]
    assert got == ["add", "Add_1", "add_1_1", "ADD_2", "foo", "foo_1", "Foo_2", "add_1_2"]


def test_name_scope_eagerly_and_in_graphs():
    # TF 2.21: eager scopes nest without numbering; graph scopes are unique; "" is the top level
    with tf.name_scope("outer") as s1:
        with tf.name_scope("inner") as s2:
            current = tf.get_current_name_scope()
        with tf.name_scope("outer") as s3:
            v = tf.Variable(1.0, name="v")
    assert (s1, s2, current, s3, v.name) == ("outer/", "outer/inner/", "outer/inner",
                                             "outer/outer/", "outer/outer/v:0")
    seen = []

    @tf.function
    def f(x):
        with tf.name_scope("a") as s:
            seen.append((s, tf.get_current_name_scope()))
            with tf.name_scope("a") as s:
                seen.append(s)
        with tf.name_scope("a") as s:
            seen.append(s)
            with tf.name_scope("") as s:
                seen.append((s, (x * 2.0).name))
            with tf.name_scope("b/") as s:
                seen.append((s, (x * 2.0).name))
        return x

    f.get_concrete_function(tf.TensorSpec([]))
    assert seen == [("a/", "a"), "a/a/", "a_1/", ("", "mul:0"), ("b/", "b/mul:0")]


def test_name_scope_refuses_what_tf_refuses():
    with pytest.raises(ValueError, match="^name for name_scope must be a string.$"):
        tf.name_scope(3)
    errors = []

    @tf.function
    def f(x):
        for name in ("-a", "a b"):
            try:
                with tf.name_scope(name):
                    pass
            except ValueError as e:
                errors.append(str(e))
        with tf.name_scope("s"):
            try:
                with tf.name_scope("a b"):
                    pass
            except ValueError as e:
                errors.append(str(e))
        return x

    f.get_concrete_function(tf.TensorSpec([]))
    root = r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$"
    assert errors == [
        f"'-a' is not a valid root scope name. A root scope name has to match the following "
        f"pattern: {root}",
        f"'a b' is not a valid root scope name. A root scope name has to match the following "
        f"pattern: {root}",
        r"'a b' is not a valid scope name. A scope name has to match the following pattern: "
        r"^[A-Za-z0-9_.\\/>-]*$"]
    # a refused scope leaves no scope behind, eagerly or in the graph
    assert tf.get_current_name_scope() == "" and tf.Variable(1.0, name="v").name == "v:0"


def test_named_graphs_still_run_compiled_and_interpreted():
    # locals named after Python builtins (TF's ``range``, ``pow``; ``sum``, ``len`` given as
    # names) must not hide them: generated code calls range() and len()
    @tf.function
    def f(x, y):
        a = tf.add(x, y, name="sum")
        b = tf.multiply(a, 2.0, name="len")
        c = b ** y + tf.cast(tf.range(2), tf.float32)
        return tf.reduce_max(c, name="max") + abs(x)[0]

    x, y = np.array([1.0, 2.0], np.float32), np.array([2.0, 0.5], np.float32)
    want = np.max(((x + y) * 2.0) ** y + np.arange(2)) + abs(x)[0]
    np.testing.assert_allclose(f(tf.constant(x), tf.constant(y)).numpy(), want, rtol=1e-6)
    graph = f.get_concrete_function(tf.constant(x), tf.constant(y)).graph
    assert {"sum", "len", "pow", "range", "max"} <= {op.name for op in graph.get_operations()}
    code = f.get_concrete_function(tf.constant(x), tf.constant(y)).code
    assert "v_sum = " in code and "v_len = " in code


def test_scoped_names_survive_graph_def_and_saved_model_round_trips(tmp_path):
    class Model(tf.Module):
        def __init__(self):
            super().__init__(name="model")
            self.w = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([2])])
        def __call__(self, x):
            with tf.name_scope("layer"):
                y = tf.nn.relu(x * self.w + 1.0, name="act")
            return tf.reduce_sum(y, name="total")

    model = Model()
    names = [n.name for n in model.__call__.get_concrete_function().graph.as_graph_def().node]
    assert {"layer/mul", "layer/add", "layer/add/y", "layer/act", "total"} <= set(names)
    x = tf.constant([1.0, -3.0])
    for save in (tf.saved_model.save, save_json):  # TF's format and ours
        path = str(tmp_path / save.__name__)
        save(model, path)
        loaded = tf.saved_model.load(path)
        assert float(loaded(x)) == float(model(x)) == 2.0


def test_inference_fn_is_tfs_atomic_function():
    @tf.function
    def double_strings(a):
        return a + a

    atomic = double_strings.get_concrete_function(tf.constant("a")).inference_fn
    assert repr(atomic(tf.constant("a"))) == "<tf.Tensor: shape=(), dtype=string, numpy=b'aa'>"
    assert type(atomic).__name__ == "AtomicFunction" and atomic.name.startswith(b"__inference")
    assert str(atomic.function_type) == ("(a: TensorSpec(shape=(), dtype=tf.string, name=None)) "
                                         "-> TensorSpec(shape=(), dtype=tf.string, name=None)")
    c = tf.constant(3.0)

    @tf.function
    def g(x):
        return {"s": x * c}

    cf = g.get_concrete_function(tf.TensorSpec([]))
    with pytest.raises(ValueError, match="^The FunctionType defines captured inputs. Use "
                                         "call_with_captures instead.$"):
        cf.inference_fn(tf.constant(2.0))
    out = cf.inference_fn.call_with_captures((tf.constant(2.0),), {}, cf.captured_inputs)
    assert float(out["s"]) == 6.0


def test_eager_calls_ignore_names():
    x = tf.constant([1.0, 2.0])
    assert tf.add(x, x, name="foo").numpy().tolist() == [2.0, 4.0]
    with tf.name_scope("s"):
        assert (x * 2.0).numpy().tolist() == [2.0, 4.0]


def test_lists_packed_for_an_input_are_named_after_it():
    @tf.function
    def f(x, n):
        return tf.reshape(x, [n, -1]), tf.fill([n, 2], 1.0)

    graph = f.get_concrete_function(tf.TensorSpec([None]), tf.TensorSpec([], tf.int32)).graph
    # TF 2.21's nodes for this function
    assert [(n.name, n.op, list(n.input)) for n in graph.as_graph_def().node] == [
        ("x", "Placeholder", []), ("n", "Placeholder", []),
        ("Reshape/shape/1", "Const", []), ("Reshape/shape", "Pack", ["n", "Reshape/shape/1"]),
        ("Reshape", "Reshape", ["x", "Reshape/shape"]),
        ("Fill/dims/1", "Const", []), ("Fill/dims", "Pack", ["n", "Fill/dims/1"]),
        ("Fill/value", "Const", []), ("Fill", "Fill", ["Fill/dims", "Fill/value"]),
        ("Identity", "Identity", ["Reshape"]), ("Identity_1", "Identity", ["Fill"])]
