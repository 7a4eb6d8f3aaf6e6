"""The gradient of tf.linalg.svd (TF's _SvdGrad) against central finite differences, on
matrices with distinct singular values, through losses that do not depend on the singular
vectors' signs; and TF's errors where it defines no gradient."""

import numpy as np
import pytest

import tensortrace as tf

from .gradcheck import GradCase, check, rand


def _signless(full_matrices=False):
    """s, and each singular vector times its first entry (the sign cancels)."""
    def fn(x):
        s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
        return s, u * u[..., :1, :], v * v[..., :1, :]
    return fn


CASES = [
    GradCase(_signless(), (rand(3, 3),), order=1, dynamic=False, id="square"),
    GradCase(_signless(), (rand(4, 3),), order=1, dynamic=False, id="tall"),
    GradCase(_signless(), (rand(2, 4),), order=1, dynamic=False, id="wide"),
    GradCase(_signless(), (rand(2, 3, 2),), order=1, dynamic=False, id="batched"),
    GradCase(_signless(True), (rand(4, 3),), order=1, dynamic=False, id="full_tall"),
    GradCase(_signless(True), (rand(2, 3),), order=1, dynamic=False, id="full_wide"),
    GradCase(lambda x: tf.linalg.svd(x, compute_uv=False), (rand(3, 4),), order=1,
             dynamic=False, id="values_only"),
    GradCase(lambda x: tf.linalg.svd(x)[0], (rand(3, 2),), order=1, dynamic=False,
             id="values_of_full_svd"),
]


@pytest.mark.parametrize("case,mode", [(c, m) for c in CASES for m in ("eager", "graph")],
                         ids=lambda p: str(p))
def test_first_order(case, mode):
    check(case, mode, order=1)


def test_full_matrices_far_from_square_has_no_gradient():
    x = tf.Variable(rand(5, 2))
    with tf.GradientTape() as tape:
        s, u, v = tf.linalg.svd(x, full_matrices=True)
        loss = tf.reduce_sum(u * u[:1])
    with pytest.raises(NotImplementedError, match=r"svd gradient is not implemented for "
                                                  r"abs\(m - n\) > 1 when full_matrices is "
                                                  r"True\. Received: m=2 and n=5"):
        tape.gradient(loss, x)


def test_values_pinned_against_tensorflow():
    # TF 2.21: gradient of sum(s * [1, 2, 3]) for this matrix (float64)
    x = tf.Variable(np.array([[1., 2., 3.], [4., 5., 6.5], [7., 8.5, 9.], [1., 0., 2.]]))
    with tf.GradientTape() as tape:
        s, _, _ = tf.linalg.svd(x)
        loss = tf.reduce_sum(s * tf.constant([1., 2., 3.], tf.float64))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [
        [-1.96833, 0.71504, 1.07679], [-0.41183, 0.18172, 0.91647],
        [1.18491, 0.63699, -0.15607], [1.21983, -1.82492, 0.87175]], atol=1e-5)
