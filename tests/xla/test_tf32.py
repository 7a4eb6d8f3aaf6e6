"""TF's TensorFloat-32 switch: on by default; off, XLA-lowered matmuls, einsums and
convolutions ask for full float32 precision (what keeps GPU results equal to NumPy's)."""

import jax
import numpy as np
import pytest

import tensortrace as tf
from tensortrace.xla.lowerings import nn


@pytest.fixture
def tf32_off():
    tf.config.experimental.enable_tensor_float_32_execution(False)
    yield
    tf.config.experimental.enable_tensor_float_32_execution(True)


def _jaxpr(fn, *args):
    return str(jax.make_jaxpr(fn)(*args))


def test_switch_reads_back_as_tf():
    assert tf.config.experimental.tensor_float_32_execution_enabled() is True
    tf.config.experimental.enable_tensor_float_32_execution(0)
    try:
        assert tf.config.experimental.tensor_float_32_execution_enabled() is False
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(1)
    assert tf.config.experimental.tensor_float_32_execution_enabled() is True


def test_default_lowering_leaves_precision_to_the_backend():
    a = np.ones((2, 3), np.float32)
    assert "HIGHEST" not in _jaxpr(lambda x, y: nn._matmul(None, x, y), a, a.T)


def test_disabled_lowers_products_and_convolutions_at_highest_precision(tf32_off):
    a = np.ones((2, 3), np.float32)
    assert "HIGHEST" in _jaxpr(lambda x, y: nn._matmul(None, x, y), a, a.T)
    assert "HIGHEST" in _jaxpr(lambda x, y: nn._batch_matmul(None, x, y), a[None], a.T[None])
    assert "HIGHEST" in _jaxpr(lambda x, y: nn._einsum(None, x, y, equation="ij,jk->ik"),
                               a, a.T)
    x, w = np.ones((1, 4, 4, 2), np.float32), np.ones((2, 2, 2, 3), np.float32)
    assert "HIGHEST" in _jaxpr(
        lambda x, w: nn._conv(None, x, w, strides=[1, 1, 1, 1], padding="VALID"), x, w)


def test_jit_matmul_with_tf32_off_equals_numpy(tf32_off):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(64, 32)).astype(np.float32), rng.normal(size=(32, 16)).astype(
        np.float32)
    got = tf.function(tf.matmul, jit_compile=True)(tf.constant(a), tf.constant(b)).numpy()
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)
