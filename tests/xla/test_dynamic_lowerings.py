"""Under jit_compile=True: GatherNd, ScatterNd, UpperBound/LowerBound and LinSpace lower to
XLA, and Where's data-dependent length is a bounded dynamic dimension that GatherNd, searches,
scatters and reductions carry to a static result (Keras' histogram). Values are TF 2.21's with
XLA, printed by it for the same calls."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'


def _histogram(x, bins=5):
    """Keras' TensorFlow histogram (keras.ops.histogram)."""
    min_val, max_val = tf.reduce_min(x), tf.reduce_max(x)
    x = tf.boolean_mask(x, (x >= min_val) & (x <= max_val))
    edges = tf.cast(tf.linspace(min_val, max_val, bins + 1), x.dtype)
    indices = tf.searchsorted(edges[1:-1], x, side="right")
    counts = tf.scatter_nd(tf.expand_dims(indices, -1), tf.ones_like(indices, dtype=x.dtype),
                           shape=(bins,))
    return counts, edges


def test_histogram_compiles():
    x = np.random.RandomState(0).randn(8).astype(np.float32)
    counts, edges = tf.function(_histogram, jit_compile=True)(x)
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 2, 1, 3])
    # TF 2.21 with XLA: -0.9772779 -0.33364362 0.30999064 0.9536249 1.5972592 2.2408931
    np.testing.assert_allclose(edges.numpy(), [-0.9772779, -0.33364362, 0.30999064, 0.9536249,
                                               1.5972592, 2.2408931], rtol=2e-7)
    plain, _ = tf.function(_histogram)(x)
    np.testing.assert_array_equal(plain.numpy(), counts.numpy())


def test_reductions_of_a_boolean_mask():
    y = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    kept = y[y > 0]
    for fn, want in ((tf.reduce_sum, kept.sum()), (tf.reduce_max, kept.max()),
                     (tf.reduce_min, kept.min()), (tf.reduce_mean, kept.mean()),
                     (tf.reduce_prod, kept.prod())):
        got = tf.function(lambda a, fn=fn: fn(tf.boolean_mask(a, a > 0)), jit_compile=True)(y)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)  # TF: sum 6.015712
    rows = tf.function(lambda a: tf.reduce_sum(tf.boolean_mask(a, a[:, 0] > -1), axis=0),
                       jit_compile=True)(y)
    np.testing.assert_allclose(rows.numpy(), y[y[:, 0] > -1].sum(0), rtol=1e-6)
    ints = tf.function(lambda a: tf.reduce_mean(tf.boolean_mask(tf.cast(a * 10, tf.int32),
                                                                a > 0)), jit_compile=True)(y)
    assert int(ints) == 11  # TF's integer mean truncates: 66 // 5 (as without XLA)


def test_gather_nd_scatter_nd_and_searches():
    y = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    gathered = tf.function(lambda a: tf.gather_nd(a, [[0, 1], [2, 3], [5, 0]]),
                           jit_compile=True)(y)
    # TF 2.21 with XLA clamps the out-of-range [5, 0] to [2, 0]
    np.testing.assert_array_equal(gathered.numpy(), [y[0, 1], y[2, 3], y[2, 0]])
    scattered = tf.function(lambda i, u: tf.scatter_nd(i, u, [4]), jit_compile=True)(
        tf.constant([[1], [3], [1]]), tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(scattered.numpy(), [0, 4, 0, 2])
    found = tf.function(lambda a: tf.searchsorted([[0., 1., 2.], [0.5, 1.5, 2.5]], a[:2, :3]),
                        jit_compile=True)(y)
    np.testing.assert_array_equal(found.numpy(), [[2, 0, 0], [1, 0, 2]])  # TF 2.21's


def test_a_data_dependent_shape_as_a_result_is_refused():
    # TF's XLA returns the masked values (dynamic shapes); JAX has none: a clear error
    y = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="first dimension depends on the data"):
        tf.function(lambda a: tf.boolean_mask(a, a > 0), jit_compile=True)(y)
