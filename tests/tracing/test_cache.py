"""The polymorphic cache: TF's keying rules, relaxed matching, reduce_retracing, the bound, and
retrace diagnostics."""

import collections
import functools
import gc
import logging
import weakref

import numpy as np
import pytest

import tensortrace as tf


def counting(fn=None, **kwargs):
    calls = []

    def deco(f):
        @functools.wraps(f)
        def wrapped(*args, **kw):
            calls.append(1)
            return f(*args, **kw)

        out = tf.function(wrapped, **kwargs)
        out.calls = calls
        return out

    return deco(fn) if fn else deco


def test_tensors_keyed_by_dtype_and_shape_python_values_by_value():
    @counting
    def f(x, n=1):
        return x * n

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    f(tf.constant([1.0]))
    f(tf.constant(1))
    f(tf.constant(1.0), 2)
    f(tf.constant(1.0), n=2)
    f(tf.constant(1.0), 3)
    assert f.experimental_get_tracing_count() == 5
    assert len(f.calls) == 5  # the Python body never runs on a cache hit


def test_containers_are_keyed_structurally():
    @counting
    def f(pair):
        return pair[0] + pair[1]

    f((tf.constant(1), tf.constant(2)))
    f((tf.constant(3), tf.constant(4)))
    f([tf.constant(3), tf.constant(4)])
    f({"a": tf.constant(1)}["a"] and (tf.constant(1), tf.constant(2.0)) or None) \
        if False else None
    Point = collections.namedtuple("Point", "x y")
    assert f(Point(tf.constant(1), tf.constant(2))).numpy() == 3
    assert f.experimental_get_tracing_count() == 3


def test_objects_keyed_by_identity_and_held_weakly():
    class Model:
        def __init__(self, scale):
            self.scale = scale

    @counting
    def f(model, x):
        return x * model.scale

    a, b = Model(2.0), Model(3.0)
    assert f(a, tf.constant(1.0)).numpy() == 2.0
    assert f(b, tf.constant(1.0)).numpy() == 3.0
    assert f(a, tf.constant(5.0)).numpy() == 10.0
    assert f.experimental_get_tracing_count() == 2
    keys_before, traces_before = len(f._keys), len(f.experimental_get_concrete_functions())
    b_ref = weakref.ref(b)
    del b
    assert b_ref() is None  # held weakly: it dies at once, with no gc.collect()
    # its finalizer only queued the key; the cache forgets it (and its trace) at the next call
    assert len(f._cache.dead) == 1 and len(f._keys) == keys_before
    assert f(a, tf.constant(1.0)).numpy() == 2.0
    assert not f._cache.dead and len(f._keys) == keys_before - 1
    assert len(f.experimental_get_concrete_functions()) == traces_before - 1
    gc.collect()
    assert len(f._keys) == keys_before - 1


def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @tf.function
        def __call__(self, x):
            return x * self.k

    s1, s2 = Scaler(2.0), Scaler(3.0)
    assert s1(tf.constant(1.0)).numpy() == 2.0
    assert s2(tf.constant(1.0)).numpy() == 3.0
    assert Scaler.__call__.__name__ == "__call__"


def test_most_specific_compatible_trace_is_reused():
    @counting
    def f(x):
        return x + 1

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    assert f(tf.constant([1.0, 2.0, 3.0])).shape == (3,)
    assert f.experimental_get_tracing_count() == 1
    assert cf.structured_input_signature == (
        (tf.TensorSpec(shape=(None,), dtype=tf.float32, name="x"),), {})


def test_reduce_retracing_generalizes_shapes():
    @counting(reduce_retracing=True)
    def f(x):
        return x + 1

    sigs = [f.get_concrete_function(tf.zeros([i])).structured_input_signature for i in (1, 2, 3)]
    assert [s[0][0].shape.as_list() for s in sigs] == [[1], [None], [None]]
    assert f.experimental_get_tracing_count() == 2


def test_cache_is_bounded_and_observable():
    f = tf.function(lambda x: x + 1, max_traces=3)
    for n in range(6):
        f(tf.zeros([n]))
    info = f.cache_info()
    assert (info.traces, info.size, info.evictions, info.max_traces) == (6, 3, 3, 3)
    f(tf.zeros([5]))
    assert f.cache_info().hits == 1
    f(tf.zeros([0]))  # evicted: traces again
    assert f.cache_info().traces == 7


def test_retrace_warning_names_the_argument_and_the_fix(caplog):
    @tf.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING, logger="tensortrace"):
        for i in range(5):
            f(float(i))
    warning = caplog.records[-1].getMessage()
    assert "5 out of the last 5 calls" in warning
    assert "argument `x` changed from Literal[3.0] to Literal[4.0]" in warning
    assert "pass it as a tensor" in warning
    assert "argument `x`" in f.explain_retracing()


def test_explain_retracing_for_shapes():
    f = tf.function(lambda x: x)
    f(tf.zeros([2]))
    assert f.explain_retracing() is None
    f(tf.zeros([3]))
    text = f.explain_retracing()
    assert "TensorSpec(shape=(2,)" in text and "TensorSpec(shape=(3,)" in text
    assert "reduce_retracing=True" in text


def test_keyword_arguments_and_defaults_bind_like_python():
    @counting
    def f(a, b=2, *, c=3):
        return a * b * c

    assert f(tf.constant(1)).numpy() == 6
    assert f(tf.constant(1), 2).numpy() == 6
    assert f(a=tf.constant(1), b=2, c=3).numpy() == 6
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError):
        f()


def test_wrapped_function_metadata():
    def my_fn(x):
        """Doc."""
        return x

    f = tf.function(my_fn)
    assert f.__name__ == "my_fn" and f.__doc__ == "Doc." and f.python_function is my_fn
    assert tf.function(jit_compile=True)(my_fn)(tf.constant(1)).numpy() == 1
    assert tf.function(lambda x: x * 2)(tf.constant(2)).numpy() == 4


def test_nested_structures_in_and_out():
    @tf.function
    def f(d):
        return {"sum": d["a"] + d["b"], "pair": (d["a"], 7)}

    out = f({"a": tf.constant(1), "b": tf.constant(2)})
    assert out["sum"].numpy() == 3
    assert out["pair"][0].numpy() == 1 and out["pair"][1] == 7


def test_closures_capture_tensors_by_value_and_variables_by_reference():
    c = tf.constant(2.0)
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        return x * c + v

    assert f(tf.constant(1.0)).numpy() == 3.0
    v.assign(10.0)
    assert f(tf.constant(1.0)).numpy() == 12.0
    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert len(cf.captured_inputs) == 2
    assert "Captures:" in f.pretty_printed_concrete_signatures()


def test_symbolic_tensor_as_bool_raises():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        f(tf.constant(1.0))


def test_runtime_error_names_op_and_user_line():
    @tf.function
    def f(x, i):
        return tf.gather(x, i)

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0]), tf.constant([3]))
    message = str(info.value)
    assert "GatherV2" in message and "test_cache.py" in message
    assert "indices[0] = 3 is not in [0, 1)" in message


def test_generated_code_is_viewable():
    @tf.function
    def f(x):
        return x * x + 2.0

    code = f.get_concrete_function(tf.TensorSpec([], tf.float32)).code
    assert code.startswith("def __inference_f_")
    assert "(x * x)" in code


def test_interpreter_and_codegen_agree_bit_for_bit():
    from tensortrace.executor import compiled

    def program(x, y):
        a = tf.tanh(x * 1.7 + y) - x / 3.0
        b = tf.reduce_sum(a * a, axis=1)
        return tf.matmul(a, tf.transpose(a)) + b, tf.exp(-a)

    rng = np.random.default_rng(1)
    x = tf.constant(rng.normal(size=(4, 3)).astype(np.float32))
    y = tf.constant(rng.normal(size=(3,)).astype(np.float32))
    results = []
    for executor in ("codegen", "interpreter"):
        compiled.default_executor = executor
        try:
            results.append([t.numpy() for t in tf.function(program)(x, y)])
        finally:
            compiled.default_executor = "codegen"
    eager = [t.numpy() for t in program(x, y)]
    for a, b, e in zip(*results, eager):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_input_signature_with_varargs_and_defaults():
    f = tf.function(lambda *ts: ts[0] + ts[1], input_signature=[tf.TensorSpec([], tf.float32)] * 2)
    assert f(tf.constant(1.0), 2.0).numpy() == 3.0
    assert len(f.input_signature) == 2

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def g(x, training=False):
        return x * 2.0 if not training else x

    assert g(tf.constant([1.0])).numpy().tolist() == [2.0]
    with pytest.raises(TypeError):
        g(tf.constant([1.0]), True)
    assert g.experimental_get_tracing_count() == 1


def test_numpy_arrays_are_passed_as_tensors():
    f = tf.function(lambda x: x * 2)
    assert f(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert f(np.array([3.0], np.float32)).numpy().tolist() == [6.0]
    assert f.experimental_get_tracing_count() == 1
    assert f(np.array([1, 2])).dtype == tf.int64


def test_concrete_function_outputs_and_literal_arguments():
    @tf.function
    def f(x, n):
        return x * n

    cf = f.get_concrete_function(tf.TensorSpec([None]), 3)
    assert [t.name for t in cf.outputs] == ["Identity:0"]
    assert cf(tf.ones([2])).numpy().tolist() == [3.0, 3.0]  # the traced literal may be omitted
    assert cf(tf.ones([2]), n=3).numpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="Can not cast 4 to Literal\\[3\\]"):
        cf(tf.ones([2]), 4)


def test_input_signature_on_methods_and_python_lists():
    class Doubler(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None])])
        def __call__(self, x):
            return x * 2.0

    d = Doubler()
    assert d(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert d([2.0, 3.0]).numpy().tolist() == [4.0, 6.0]
    assert d([2.0, 3.0]).numpy().tolist() == [4.0, 6.0]  # a cache hit with a Python list
    assert d.__call__.experimental_get_tracing_count() == 1
