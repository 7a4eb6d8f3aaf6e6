"""tf.saved_model.save traces functions again, as TF 2.21 does: its traces are keyed by the save
options' variable policy, so a save re-traces every function once per input signature (what
TF 2.21 printed for each case is pinned here)."""

import pytest

import tensortrace as tf


class M(tf.Module):
    @tf.function
    def __call__(self, x):
        print("Tracing with", x)
        return x * 2.0


class S(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(self, x):
        print("Tracing f with", x)
        return x + 1.0


class Lazy(tf.Module):
    def __init__(self):
        self.v = None

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def __call__(self, x):
        print("Tracing L with", x)
        if self.v is None:
            self.v = tf.Variable(3.0)
        return self.v * x


def lines(capsys):
    return capsys.readouterr().out.splitlines()


SCALAR = 'Tracing with Tensor("x:0", shape=(), dtype=float32)'
VECTOR = 'Tracing with Tensor("x:0", shape=(2,), dtype=float32)'
UNKNOWN = 'Tracing with Tensor("x:0", dtype=float32)'
F_TRACE = 'Tracing f with Tensor("x:0", shape=(None,), dtype=float32)'


def test_no_signatures_traces_each_signature_again(tmp_path, capsys):
    m = M()
    m(tf.constant(0.0))
    m(tf.constant([1.0, 2.0]))
    assert lines(capsys) == [SCALAR, VECTOR]
    tf.saved_model.save(m, str(tmp_path / "a"))
    assert lines(capsys) == [SCALAR, VECTOR]
    assert m.__call__.experimental_get_tracing_count() == 4
    m(tf.constant(0.0))  # the eager context's trace: no new trace
    tf.saved_model.save(m, str(tmp_path / "b"))  # the same policy: the save traces are found
    assert lines(capsys) == []
    assert m.__call__.experimental_get_tracing_count() == 4
    options = tf.saved_model.SaveOptions(experimental_variable_policy="save_variable_devices")
    tf.saved_model.save(m, str(tmp_path / "c"), options=options)  # another policy: again
    assert lines(capsys) == [SCALAR, VECTOR]
    loaded = tf.saved_model.load(str(tmp_path / "a"))
    assert float(loaded(tf.constant(4.0))) == 8.0


@pytest.mark.parametrize("dict_form", [False, True])
def test_concrete_signature_traces_the_function_again(tmp_path, capsys, dict_form):
    m = M()
    call = m.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    also = m.__call__.get_concrete_function(tf.TensorSpec([2], tf.float32))  # admitted: no trace
    signatures = {"a": call, "b": also} if dict_form else call
    tf.saved_model.save(m, str(tmp_path), signatures=signatures)
    assert lines(capsys) == [UNKNOWN, UNKNOWN]
    assert m.__call__.experimental_get_tracing_count() == 2
    loaded = tf.saved_model.load(str(tmp_path))
    key = "a" if dict_form else "serving_default"
    assert float(loaded.signatures[key](x=tf.constant(2.5))["output_0"]) == 5.0


def test_input_signature_function(tmp_path, capsys):
    tf.saved_model.save(S(), str(tmp_path / "a"))  # traced once, in the save context
    assert lines(capsys) == [F_TRACE]
    s = S()
    s.f(tf.constant([1.0]))
    tf.saved_model.save(s, str(tmp_path / "b"))
    assert lines(capsys) == [F_TRACE, F_TRACE]
    assert s.f.experimental_get_tracing_count() == 2
    s = S()
    tf.saved_model.save(s, str(tmp_path / "c"), signatures=s.f)  # the signature's trace is saved
    assert lines(capsys) == [F_TRACE]
    s = S()
    tf.saved_model.save(s, str(tmp_path / "d"), signatures=s.f.get_concrete_function())
    assert lines(capsys) == [F_TRACE, F_TRACE]
    loaded = tf.saved_model.load(str(tmp_path / "d"))
    assert loaded.f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]


def test_variables_created_by_a_function_traced_first_by_the_save(tmp_path, capsys):
    m = Lazy()
    tf.saved_model.save(m, str(tmp_path))  # creates and initializes the variable, as TF
    assert lines(capsys) == ['Tracing L with Tensor("x:0", shape=(), dtype=float32)'] * 2
    assert float(m.v.numpy()) == 3.0
    loaded = tf.saved_model.load(str(tmp_path))
    assert float(loaded(tf.constant(2.0))) == 6.0
    assert list(loaded.signatures) == ["serving_default"]
    assert float(m(tf.constant(2.0))) == 6.0  # the original still runs, creating nothing
    assert lines(capsys) == ['Tracing L with Tensor("x:0", shape=(), dtype=float32)']


def test_nested_function_traces_again_inside_the_save_trace(tmp_path, capsys):
    @tf.function
    def inner(x):
        print("inner trace", x)
        return x + 1

    class N(tf.Module):
        @tf.function
        def f(self, x):
            print("outer trace", x)
            return inner(x)

    n = N()
    n.f(tf.constant(1.0))
    tf.saved_model.save(n, str(tmp_path))
    assert lines(capsys) == ['outer trace Tensor("x:0", shape=(), dtype=float32)',
                             'inner trace Tensor("x:0", shape=(), dtype=float32)'] * 2


def test_invalid_variable_policy():
    with pytest.raises(ValueError, match="Received invalid VariablePolicy value: bad."):
        tf.saved_model.SaveOptions(experimental_variable_policy="bad")
