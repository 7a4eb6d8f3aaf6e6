"""tnp with NumPy, inside tf.function, under GradientTape (checked against finite differences),
through ``tensorflow.experimental.numpy`` under the runner, and the NumPy behaviour's switches."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensortrace as tf
import tensortrace.experimental.numpy as tnp

from ._fixture import numpy_behavior

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_module_names():
    assert tf.experimental.numpy is tnp
    import tensortrace.experimental.numpy.random as tnp_random  # noqa: PLC0415 - the import form
    assert tnp_random is tnp.random
    assert tnp.ndarray is tf.Tensor
    assert "numpy" in dir(tf.experimental)


def test_loaded_on_first_use():
    code = ("import sys, tensortrace as tf; assert 'tensortrace.tnp' not in sys.modules; "
            "tf.constant(1.0) + 1; assert 'tensortrace.tnp' not in sys.modules; "
            "tf.experimental.numpy.ones(2); assert 'tensortrace.tnp' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_every_tf_name_is_there():
    """dir(tnp) is TF 2.21's tf.experimental.numpy (its names, from tf_api_names.txt)."""
    path = os.path.join(ROOT, "tensortrace", "tf_api_names.txt")
    with open(path, encoding="utf-8") as f:
        names = [line.strip() for line in f if line.startswith("experimental.numpy.")]
    top = {n.split(".")[2] for n in names} - {""}
    assert len(top) == 229
    assert top == {n for n in dir(tnp) if not n.startswith("_")}
    random = {n.split(".")[3] for n in names if n.startswith("experimental.numpy.random.")
              and n.count(".") == 3} - {""}
    assert random == {n for n in dir(tnp.random) if not n.startswith("_")} and len(random) == 8
    for name in top - {"random", "ndarray", "newaxis", "e", "pi", "inf"}:
        assert callable(getattr(tnp, name)), name


def test_numpy_reads_tensors():
    t = tnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(t), [[1.0, 2.0], [3.0, 4.0]])
    assert np.sum(t) == 10.0 and np.asarray(t).dtype == np.float64
    np.testing.assert_allclose(np.exp(t), np.exp([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(np.matmul(t, t), [[7.0, 10.0], [15.0, 22.0]])


def test_tnp_takes_numpy_arrays_and_lists():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    r = tnp.sum(a, axis=0)
    assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
    np.testing.assert_array_equal(r, a.sum(axis=0))
    assert tnp.add(np.int16(1), [1, 2]).dtype == tf.int16  # the list's Python ints are weak (TF)
    assert tnp.dot(a, np.ones(3)).dtype == tf.float64
    np.testing.assert_allclose(tnp.dot(a, np.ones(3)), a @ np.ones(3))


def test_tnp_in_tf_function():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        y = tnp.reshape(x, (3, 2))
        return tnp.sum(tnp.square(y), axis=1) + tnp.mean(x), tnp.argmax(y, axis=0)

    x = tnp.arange(6.0)
    s, i = f(x)
    ref = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(s, (ref ** 2).sum(axis=1) + 2.5)
    np.testing.assert_array_equal(i, [2, 2])
    f(tnp.arange(6.0) + 1)
    assert len(traces) == 1 and s.dtype == tf.float64 and i.dtype == tf.int64


def _finite_difference(fn, x, eps=1e-6):
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (float(fn(up)) - float(fn(down))) / (2 * eps)
    return grad


LOSSES = {
    "sum of squares": lambda x: tnp.sum(tnp.multiply(tnp.square(x),
                                                     tnp.reshape(tnp.arange(1, 7), (2, 3)))),
    "mean and std": lambda x: tnp.mean(x) * tnp.std(x),
    "matmul and tanh": lambda x: tnp.sum(tnp.tanh(tnp.matmul(x, tnp.transpose(x)))),
    "take and where": lambda x: tnp.sum(tnp.where(x > 0, x, -x) * tnp.take(x, [1, 0, 0], axis=1)),
    "logaddexp and log1p": lambda x: tnp.sum(tnp.logaddexp(x, 2 * x) + tnp.log1p(tnp.abs(x))),
    "einsum and var": lambda x: tnp.einsum("ij,ij->", x, x) + tnp.var(x),
    "prod and cumsum": lambda x: tnp.prod(tnp.cumsum(x, axis=1)[:, -1]),
    "take_along_axis": lambda x: tnp.sum(tnp.take_along_axis(x, tnp.asarray([[2, 0], [1, 1]]),
                                                             axis=1) ** 2),
    "hypot and sinc": lambda x: tnp.sum(tnp.hypot(x, 1.0) + tnp.sinc(x)),
    "diff and tril": lambda x: tnp.sum(tnp.diff(x, axis=1) ** 2) + tnp.sum(
        tnp.tril(tnp.outer(x[0], x[1]))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_match_finite_differences(name):
    fn = LOSSES[name]
    x0 = np.array([[0.3, -1.2, 0.7], [1.5, 0.4, -0.6]])
    x = tf.Variable(x0)
    with tf.GradientTape() as tape:
        loss = fn(x)
    grad = tape.gradient(loss, x)
    np.testing.assert_allclose(grad, _finite_difference(lambda v: fn(tnp.asarray(v)), x0),
                               rtol=1e-5, atol=1e-6)


def test_gradient_inside_tf_function():
    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(tnp.sin(x) * tnp.exp2(x))
        return tape.gradient(y, x)

    x0 = np.array([0.1, 0.5, -0.3])
    expected = np.cos(x0) * 2 ** x0 + np.sin(x0) * 2 ** x0 * np.log(2)
    np.testing.assert_allclose(grad(tnp.asarray(x0)), expected, rtol=1e-12)


def test_tape_in_function_watches_captured_eager_tensors():
    """The guide's pattern: a traced function differentiates w.r.t. outer eager tensors it
    watches (TF gives [3., 4.])."""
    w = tnp.asarray([1.0, 2.0])

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tnp.sum(w * x)
        return tape.gradient(y, w)

    np.testing.assert_array_equal(f(tnp.asarray([3.0, 4.0])), [3.0, 4.0])


def test_behavior_switches_and_errors():
    t = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(AttributeError, match="experimental_enable_numpy_behavior"):
        t.T
    with pytest.raises(tf.errors.InvalidArgumentError):
        t + tf.constant(1.5)
    with numpy_behavior("legacy-0"):
        assert (t + tf.constant(1.5)).dtype == tf.float64
        np.testing.assert_array_equal(t.T, [[1, 3], [2, 4]])
        v = tf.Variable([1, 2])
        assert (v + 1.5).dtype == tf.float64  # variables' operators forward to the tensor's
        # TF keeps its own slicing for variables: [1, 0] is the index (1, 0), TF gives 3
        assert tf.Variable([[1, 2], [3, 4]])[[1, 0]].numpy() == 3
        np.testing.assert_array_equal(t[[1, 0]], [[3, 4], [1, 2]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        t + tf.constant(1.5)  # off again: TF's own rules
    with pytest.raises(AttributeError):
        t.reshape
    with pytest.raises(ValueError, match="promotion mode bad does not exist"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="bad")
    with pytest.raises(ValueError, match="promotion mode bad does not exist"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="bad")
    with pytest.raises(AttributeError):  # nothing half-done by a refused mode
        t.T
    with numpy_behavior("all-0"):  # TF's new promotion (tests/tnp/test_promotion.py)
        assert repr(tf.constant(1)) == "<tf.Tensor: shape=(), dtype=int32, numpy=1, weak=True>"
        assert (t + 1.5).dtype == tf.float64  # int32 + weak float32: TF's float64
    with pytest.raises(AttributeError):  # off again
        t.T
    with numpy_behavior("off-0"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
        assert t.T.shape == (2, 2)
        with pytest.raises(tf.errors.InvalidArgumentError):
            t + tf.constant(1.5)  # "off": NumPy methods without NumPy promotion


def test_promotion_and_indexing_in_tf_function():
    with numpy_behavior("legacy-0"):
        @tf.function
        def f(x, i):
            return x[i] * 1.5, x.reshape(-1)[tf.constant([True, False, True, False])]

        a, b = f(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 0]))
        np.testing.assert_array_equal(a, [[4.5, 6.0], [1.5, 3.0]])
        assert a.dtype == tf.float64
        np.testing.assert_array_equal(b, [1, 3])


def test_numpy_indexing_gradient():
    with numpy_behavior("legacy-0"):
        x = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        with tf.GradientTape() as tape:
            picked = tf.convert_to_tensor(x)[[1, 0, 1], [2, 0, 2]]  # a tensor: NumPy indexing
            y = tf.reduce_sum(picked * tf.constant([1.0, 2.0, 3.0]))
        np.testing.assert_array_equal(tape.gradient(y, x), [[2, 0, 0], [0, 0, 4]])


SCRIPT = """
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
tnp.experimental_enable_numpy_behavior()
x = tnp.ones([2, 3])
print(x, tnp.random.randn(2).dtype, tf.experimental.numpy is tnp)
print((tf.constant(1) + 1.5).dtype, x.T.shape, tnp.float32)
from tensorflow.experimental.numpy import random as r
print(r.uniform(size=(2,)).dtype)
try:
    tnp.no_such
except AttributeError as e:
    print("AttributeError", e)
"""

# What TF 2.21 prints for SCRIPT.
TF_PRINTS = """tf.Tensor(
[[1. 1. 1.]
 [1. 1. 1.]], shape=(2, 3), dtype=float64) <dtype: 'float64'> True
<dtype: 'float64'> (3, 2) <class 'numpy.float32'>
<dtype: 'float64'>
AttributeError module 'tensorflow.experimental.numpy' has no attribute 'no_such'
"""


def test_runner_imports_tensorflow_experimental_numpy(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(SCRIPT))
    done = subprocess.run([sys.executable, "-m", "tensortrace", str(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == TF_PRINTS


def test_random():
    """tnp.random: TF's dtypes and shapes (float64, int64 Poisson), seeds that repeat, bounds."""
    tnp.random.seed(3)
    a = tnp.random.randn(2, 3)
    tnp.random.seed(3)
    assert np.array_equal(a, tnp.random.randn(2, 3)) and a.dtype == tf.float64
    assert tnp.random.standard_normal(4).shape == (4,)
    u = tnp.random.uniform(2.0, [3.0, 5.0])
    assert u.shape == (2,) and u.dtype == tf.float64
    assert np.all((u.numpy() >= 2.0) & (u.numpy() < [3.0, 5.0]))
    r = tnp.random.randint(3, 7, size=100)
    assert r.dtype == tf.int64 and set(r.numpy()) <= {3, 4, 5, 6}
    assert tnp.random.randint(5, dtype=np.int32).dtype == tf.int32
    assert tnp.random.poisson(2.0, size=(3,)).dtype == tf.int64
    assert tnp.random.rand(2).shape == (2,) and tnp.random.random((1, 2)).shape == (1, 2)
    with pytest.raises(ValueError, match="Only those convertible to"):
        tnp.random.randint(5, dtype=np.float32)
    with pytest.raises(ValueError, match="Only integers are supported"):
        tnp.random.seed(None)
