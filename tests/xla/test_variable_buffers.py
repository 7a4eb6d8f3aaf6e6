"""Variables that jit_compile functions write keep their values as XLA arrays between calls (the
NumPy value is a read-only view of one), those only read are copied aligned once, every eager
write in between is seen, and large feeds reach XLA without its slow copy; the values stay
those of the NumPy executor."""

import threading

import numpy as np
import pytest

import tensortrace as tf

jax = pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'

from tensortrace.xla import compiler  # noqa: E402 - only with the extra


def xla_array_of(array):
    """The XLA array ``array`` is a view of, or None."""
    base = array.base
    return base.obj if isinstance(base, memoryview) and isinstance(base.obj, jax.Array) \
        else None


def unaligned(shape, dtype=np.float32, seed=0):
    """A C-contiguous array whose data is not 64-byte aligned (XLA would copy it)."""
    values = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    raw = np.empty(values.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data % 64) + values.itemsize
    out = raw[start:start + values.nbytes].view(dtype).reshape(shape)
    out[...] = values
    assert out.ctypes.data % 64
    return out


def test_written_and_read_variables_stay_xla_arrays_between_calls():
    w = tf.Variable(unaligned((256, 160)))
    scale = tf.Variable(np.zeros((256, 160), np.float32))  # read only
    # a value XLA would copy (the variable's own copy of an array is aligned only by chance)
    scale._array = unaligned((256, 160), seed=1)

    @tf.function(jit_compile=True)
    def step():
        w.assign_add(scale * 0.5)
        return tf.reduce_sum(w)

    expected_w = w.numpy() + scale.numpy() * 0.5
    step()
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=1e-6)
    read_value, written_view = scale._array, w._array
    assert xla_array_of(written_view) is not None  # the call's output itself
    assert read_value.ctypes.data % 64 == 0  # an aligned copy, which XLA reads in place
    assert not read_value.flags.writeable and not written_view.flags.writeable
    step()
    assert scale._array is read_value  # copied once, not per call
    # the second call was fed the first call's output itself, and left a new one
    assert w._array is not written_view
    np.testing.assert_allclose(w.numpy(), expected_w + scale.numpy() * 0.5, rtol=1e-6)


def test_eager_writes_between_jit_calls_are_seen():
    v = tf.Variable(np.arange(8, dtype=np.float32))
    table = tf.Variable(np.ones((4, 3), np.float32))

    @tf.function(jit_compile=True)
    def step():
        v.assign(v * 2.0)
        return v + tf.reduce_sum(table)

    expected = np.arange(8, dtype=np.float32)
    for write in (lambda: v.assign_add(np.ones(8, np.float32)),
                  lambda: v.assign_sub(np.full(8, 0.5, np.float32)),
                  lambda: v.scatter_nd_update([[1], [3]], [10.0, 20.0]),
                  lambda: v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([2]))),
                  lambda: table.assign(np.full((4, 3), 2.0, np.float32))):
        out = step()  # leaves v and table as views of XLA arrays
        expected = expected * 2.0
        np.testing.assert_allclose(out.numpy(), expected + table.numpy().sum())
        write()  # an eager write replaces the view; the view itself is never written
        expected = v.numpy()
    out = step()
    np.testing.assert_allclose(out.numpy(), expected * 2.0 + 24.0)


def test_values_read_before_a_jit_call_keep_their_values():
    v = tf.Variable(unaligned((256, 160)))

    @tf.function(jit_compile=True)
    def step():
        v.assign_add(tf.ones_like(v))

    before = v.value()  # an eager tensor holding the variable's array
    kept = before.numpy()
    step()
    held = v.value()  # now a view of the call's output
    held_values = held.numpy()
    step()
    step()
    np.testing.assert_array_equal(before.numpy(), kept)
    np.testing.assert_array_equal(held.numpy(), held_values)
    np.testing.assert_allclose(v.numpy(), kept + 3.0)


def test_restored_checkpoint_is_seen_by_the_next_call(tmp_path):
    v = tf.Variable(np.zeros((16, 16), np.float32))

    @tf.function(jit_compile=True)
    def step():
        v.assign_add(tf.ones_like(v))
        return tf.reduce_sum(v)

    step()
    checkpoint = tf.train.Checkpoint(v=v)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    step()
    checkpoint.restore(path)
    np.testing.assert_allclose(v.numpy(), 1.0)
    assert float(step()) == 2.0 * 256


def test_wide_variable_read_in_x64_mode_keeps_its_dtype():
    v = tf.Variable(np.arange(20000, dtype=np.float64) / 7.0)
    n = tf.Variable(np.arange(20000, dtype=np.int64) * (1 << 40))

    @tf.function(jit_compile=True)
    def read():
        return v * 1.0, n + 1

    f, i = read()
    assert f.dtype == tf.float64 and i.dtype == tf.int64
    np.testing.assert_array_equal(f.numpy(), np.arange(20000) / 7.0)
    np.testing.assert_array_equal(i.numpy(),
                                  np.arange(20000, dtype=np.int64) * (1 << 40) + 1)
    assert v._array.dtype == np.float64 and n._array.dtype == np.int64


def test_large_unaligned_inputs_and_captures_give_the_numpy_values():
    x = unaligned((64, 784))
    captured = tf.constant(unaligned((784, 64), seed=2))

    def f(x):
        return tf.matmul(x, captured) + 1.0

    expected = tf.function(f)(tf.constant(x)).numpy()
    jitted = tf.function(f, jit_compile=True)
    for _ in range(2):  # the second call reuses the kept aligned copies
        np.testing.assert_allclose(jitted(tf.constant(x)).numpy(), expected, rtol=1e-5, atol=1e-4)
    other = unaligned((64, 784), seed=3)
    np.testing.assert_allclose(jitted(tf.constant(other)).numpy(),
                               tf.function(f)(tf.constant(other)).numpy(), rtol=1e-5, atol=1e-4)


def test_feed_conversion():
    big = unaligned((256, 256))
    copy = compiler._xla_value(big)
    assert copy is not big and copy.ctypes.data % 64 == 0 and copy.flags.c_contiguous
    np.testing.assert_array_equal(copy, big)
    strided = np.zeros((512, 512), np.float32)[:, ::2]
    assert compiler._xla_value(strided).flags.c_contiguous
    for small in (unaligned((4,)), unaligned((64, 256))):  # XLA's own copy is cheap up to here
        assert compiler._xla_value(small) is small
    xla = jax.numpy.ones((256, 256))
    assert compiler._xla_value(np.asarray(xla)) is xla
    words = np.array([b"a"] * 20000, object)
    assert compiler._xla_value(words) is words


def test_threads_updating_a_large_variable_lose_nothing():
    v = tf.Variable(np.zeros((64, 64), np.float32))

    @tf.function(jit_compile=True)
    def inc():
        v.assign_add(tf.ones_like(v))

    def eager_inc():
        v.assign_add(np.ones((64, 64), np.float32))

    inc()
    threads = [threading.Thread(target=lambda f=f: [f() for _ in range(50)])
               for f in (inc, inc, eager_inc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(v.numpy(), 1 + 3 * 50)
