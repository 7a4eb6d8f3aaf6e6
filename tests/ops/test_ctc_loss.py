"""tf.nn.ctc_loss through TF's CTCLoss op: dense (padded, with lengths) and sparse labels, any
blank index, batch- or time-major logits; losses and gradients recorded from TF 2.21."""

import numpy as np
import pytest

import tensortrace as tf

LOGITS = (np.arange(24).reshape((2, 4, 3)).astype("float32") - 12) / 100


def _loss_and_grad(labels, **kwargs):
    x = tf.constant(LOGITS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss(labels=labels, logits=x, logits_time_major=False, **kwargs)
    return loss.numpy(), tape.gradient(loss, x).numpy()


def test_dense_labels_blank_first():
    loss, grad = _loss_and_grad(np.array([[1, 2, 1, 0], [1, 2, 0, 2]]), label_length=[3, 2],
                                logit_length=[4, 3], blank_index=0)
    np.testing.assert_allclose(loss, [2.4429311752319336, 1.6804667711257935], rtol=1e-5)
    np.testing.assert_allclose(grad[0], [
        [0.18796631693840027, -0.5246384143829346, 0.33667218685150146],
        [0.18796628713607788, 0.04781600832939148, -0.23578232526779175],
        [0.1879662573337555, 0.04781600832939148, -0.2357822060585022],
        [0.18796630203723907, -0.5246384143829346, 0.33667218685150146]], atol=1e-5)
    np.testing.assert_allclose(grad[1], [  # frames past logit_length get no gradient
        [0.13120846450328827, -0.467880517244339, 0.33667218685150146],
        [0.1312083899974823, -0.06627020239830017, -0.06493821740150452],
        [0.1312084197998047, 0.3333222568035126, -0.4645306468009949], [0.0, 0.0, 0.0]],
        atol=1e-5)


def test_dense_labels_other_blank_and_repeats():
    loss, grad = _loss_and_grad(np.array([[0, 1], [1, 1]]), label_length=[2, 2],
                                logit_length=[4, 4], blank_index=2)
    np.testing.assert_allclose(loss, [1.6884574890136719, 2.769132137298584], rtol=1e-5)
    np.testing.assert_allclose(grad[1], [
        [0.3300056457519531, -0.46587857604026794, 0.1358729898929596],
        [0.3300056457519531, -0.06627810001373291, -0.26372742652893066],
        [0.3300056457519531, -0.06627815961837769, -0.2637273669242859],
        [0.3300056457519531, -0.46587857604026794, 0.135872945189476]], atol=1e-5)


def test_sparse_labels_time_major():
    x = (np.arange(40).reshape(5, 2, 4).astype(np.float32) % 7) / 5
    labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 0, 2], [2, 2])
    loss = tf.nn.ctc_loss(labels=labels, logits=x, label_length=None, logit_length=[5, 3],
                          blank_index=-1)
    np.testing.assert_allclose(loss.numpy(), [3.6705434322357178, 3.3300094604492188], rtol=1e-5)
    loss = tf.nn.ctc_loss(labels=labels, logits=x, label_length=None, logit_length=[5, 3],
                          blank_index=1)
    np.testing.assert_allclose(loss.numpy(), [5.111710548400879, 2.71978497505188], rtol=1e-5)
    with pytest.raises(ValueError, match="Argument `blank_index` must be provided when `labels` "
                                         "is a `SparseTensor`."):
        tf.nn.ctc_loss(labels=labels, logits=x, label_length=None, logit_length=[5, 3])
    traced = tf.function(lambda v: tf.nn.ctc_loss(labels=labels, logits=v, label_length=None,
                                                  logit_length=[5, 3], blank_index=1))
    np.testing.assert_allclose(traced(tf.constant(x)).numpy(), loss.numpy(), rtol=1e-6)


def test_dense_label_equal_to_the_blank():
    """A dense label equal to the blank (Keras' padding inside a label length) stays the blank
    class: TF 2.21's losses."""
    x = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss(labels=np.array([[1, 2, 1, 0], [1, 2, 0, 2]]), logits=x,
                          label_length=[3, 3], logit_length=[4, 4], blank_index=0,
                          logits_time_major=False)
    np.testing.assert_allclose(loss.numpy(), [2.4429311752319336, 2.454359531402588], rtol=1e-5)
