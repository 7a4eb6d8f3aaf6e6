"""The op edges Keras' numpy functions (TF backend) reach, against TF 2.21's records
(tests/fixtures/tf/make_kerasnp.py): gather by a ragged index along axis > 0, bfloat16 einsum,
stack and meshgrid of NumPy arrays, Reshape of a scalar shape, bessel_i0/i1 with their
gradients, band_part under jit_compile with a tensor bound, map_fn over a SparseTensor."""

import pathlib

import numpy as np
import pytest

import tensortrace as tf

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "kerasnp"
REC = np.load(HERE / "kerasnp.npz")
ERRORS = (HERE / "errors.txt").read_text().splitlines()
X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


@pytest.mark.parametrize("axis", [1, -1, 2])
def test_gather_ragged_indices_along_inner_axis(axis):
    out = tf.gather(X, tf.ragged.constant([[2], [0, 3, 1]]), axis=axis)
    assert isinstance(out, tf.RaggedTensor)
    shape = [-1 if d is None else d for d in out.shape.as_list()]
    assert shape == REC[f"gather_axis{axis}_shape"].tolist()
    np.testing.assert_array_equal(out.to_tensor().numpy(), REC[f"gather_axis{axis}_padded"])


def test_gather_ragged_indices_axis1_traced():
    fn = tf.function(lambda x, i: tf.gather(x, i, axis=1).to_tensor())
    out = fn(tf.constant(X), tf.ragged.constant([[2], [0, 3, 1]]))
    np.testing.assert_array_equal(out.numpy(), REC["gather_axis1_padded"])


def test_einsum_bfloat16():
    b = tf.cast(tf.reshape(tf.range(24.) / 7., [2, 3, 4]), tf.bfloat16)
    out = tf.einsum("ijk,ljk->il", b, b)
    assert out.dtype == tf.bfloat16
    np.testing.assert_allclose(tf.cast(out, tf.float32).numpy(), REC["einsum_bf16"], rtol=1e-2)


def test_stack_and_meshgrid_of_numpy_arrays():
    np.testing.assert_array_equal(tf.stack(np.arange(6.).reshape(2, 3)).numpy(),
                                  REC["stack_np"])
    with pytest.raises(ValueError, match=ERRORS[1]):
        tf.stack(np.arange(6.).reshape(2, 3), axis=1)
    grids = tf.meshgrid(np.ones([1, 2]), np.arange(3.))
    for i, g in enumerate(grids):
        np.testing.assert_array_equal(g.numpy(), REC[f"meshgrid_{i}"])


def test_reshape_scalar_shape():
    np.testing.assert_array_equal(tf.reshape(X, -1).numpy(), REC["reshape_scalar"])
    np.testing.assert_array_equal(tf.reshape(X, np.int64(-1)).numpy(), REC["reshape_scalar"])
    with pytest.raises(ValueError, match=r"Shape must be rank 1 but is rank 0 for "
                                         r"'\{\{node Reshape\}\}"):
        tf.function(lambda x: tf.reshape(x, -1))(tf.constant(X))
    assert ERRORS[0].startswith("ValueError: Shape must be rank 1 but is rank 0")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"sizes input must be 1-D"):
        tf.reshape(X, [[60]])


def test_bessel_i0_i1_and_gradients():
    x = tf.constant([-3., -1., 0., 0.5, 2., 10.])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        i0, i1 = tf.math.bessel_i0(x), tf.math.bessel_i1(x)
    np.testing.assert_allclose(i0.numpy(), REC["i0"], rtol=1e-6)
    np.testing.assert_allclose(i1.numpy(), REC["i1"], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(i0, x).numpy(), REC["i0_grad"], rtol=1e-6)
    # TF's rule imputes 1 at 0 for I1' (its limit is 1/2): the record has 1
    np.testing.assert_allclose(tape.gradient(i1, x).numpy(), REC["i1_grad"], rtol=1e-6)
    np.testing.assert_allclose(tf.math.bessel_i0(tf.constant([1.5], tf.float64)).numpy(),
                               np.i0([1.5]), rtol=1e-13)


@pytest.mark.parametrize("fn", ["bessel_i0", "bessel_i1"])
def test_bessel_gradients_finite_differences(fn):
    op = getattr(tf.math, fn)
    x = tf.constant([-3., -0.7, 0.4, 2.5, 6.], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = op(x)
    h = 1e-6
    numeric = (op(x + h).numpy() - op(x - h).numpy()) / (2 * h)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), numeric, rtol=1e-7)


def test_band_part_jit_compile_with_tensor_bounds():
    pytest.importorskip("jax")

    @tf.function(jit_compile=True)
    def band(x, k):
        return tf.linalg.band_part(x, -1, k), tf.linalg.band_part(x, k + 1, 0)

    lower, upper = band(tf.constant(X), tf.constant(0))
    np.testing.assert_array_equal(lower.numpy(), REC["band_lower"])
    np.testing.assert_array_equal(upper.numpy(), REC["band_upper"])


def test_map_fn_sparse_beside_dense():
    sp = tf.sparse.from_dense(np.array([[[1., 0], [0, 2]], [[0, 3], [4, 0]]], np.float32))
    dense = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    out = tf.map_fn(lambda e: tf.sparse.sparse_dense_matmul(e[0], e[1]), elems=(sp, dense),
                    fn_output_signature=tf.float32)
    np.testing.assert_array_equal(out.numpy(), REC["map_fn_sparse"])
