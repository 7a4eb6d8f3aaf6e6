"""Neural-network ops: kernels against NumPy references, infer against kernels, TF's errors and
values (the literal values below were produced by TensorFlow 2.21)."""

import itertools
import math

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tensortrace.graph.ir import Graph
from tensortrace.ops.nn._kernels import Blas, winograd_ok

from .optable import Case, op_types, rand, run_case

V = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 7.0], np.float32)
F23, F234 = rand(2, 3), rand(2, 3, 4)


def _arange(*shape, dtype=np.float32):
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape)


# --- NumPy references ---------------------------------------------------------------------------
def ref_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return (e / e.sum(axis, keepdims=True)).astype(x.dtype)


def ref_log_softmax(x, axis=-1):
    s = x - x.max(axis, keepdims=True)
    return (s - np.log(np.exp(s).sum(axis, keepdims=True))).astype(x.dtype)


def ref_gelu(x, approximate=False):
    if approximate:
        y = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    else:
        y = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.ravel().tolist()])
    return y.reshape(x.shape).astype(x.dtype)


def ref_selu(x):
    a, s = 1.6732632423543772, 1.0507009873554805
    return (s * np.where(x > 0, x, a * (np.exp(x) - 1))).astype(x.dtype)


def ref_sigmoid_xent(logits, labels):
    return (np.maximum(logits, 0) - logits * labels
            + np.log1p(np.exp(-np.abs(logits)))).astype(logits.dtype)


def ref_softmax_xent(labels, logits, axis=-1):
    return (-np.sum(labels * np.log(ref_softmax(logits.astype(np.float64), axis)), axis)
            ).astype(logits.dtype)


def ref_sparse_xent(labels, logits):
    lp = np.log(ref_softmax(logits.astype(np.float64)))
    return (-np.take_along_axis(lp, labels[..., None], -1)[..., 0]).astype(logits.dtype)


def ref_moments(x, axes, keepdims=False):
    axes = tuple(axes)
    mean = x.astype(np.float64).mean(axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axes, keepdims=True)
    if not keepdims:
        mean, var = mean.squeeze(axes), var.squeeze(axes)
    return mean.astype(x.dtype), var.astype(x.dtype)


def ref_batch_norm(x, mean, var, offset, scale, eps):
    y = (x - mean) / np.sqrt(var + eps)
    y = y * scale if scale is not None else y
    return (y + offset if offset is not None else y).astype(x.dtype)


def _same_pads(size, k, s, d):
    eff = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def _pads(x_sp, k, s, d, padding):
    if padding == "VALID":
        return [(0, 0)] * len(k)
    if padding == "SAME":
        return [_same_pads(*a) for a in zip(x_sp, k, s, d)]
    return [tuple(p) for p in padding]


def ref_conv(x, w, strides, padding, dilations, groups=1):
    """Channels-last N-d convolution by explicit loops over output positions."""
    k = w.shape[:-2]
    n = len(k)
    pads = _pads(x.shape[1:-1], k, strides, dilations, padding)
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)])
    eff = [(kk - 1) * d + 1 for kk, d in zip(k, dilations)]
    out_sp = [(xp.shape[i + 1] - eff[i]) // strides[i] + 1 for i in range(n)]
    cin, o = w.shape[-2], w.shape[-1]
    og = o // groups
    out = np.zeros((x.shape[0], *out_sp, o))
    for pos in itertools.product(*(range(v) for v in out_sp)):
        idx = tuple(slice(p * s, p * s + e, d)
                    for p, s, e, d in zip(pos, strides, eff, dilations))
        patch = xp[(slice(None),) + idx]
        for g in range(groups):
            out[(slice(None),) + pos + (slice(g * og, (g + 1) * og),)] = np.tensordot(
                patch[..., g * cin:(g + 1) * cin], w[..., g * og:(g + 1) * og], n + 1)
    return out.astype(x.dtype)


def ref_pool(x, k, s, padding, average):
    pads = _pads(x.shape[1:-1], k, s, [1] * len(k), padding)
    fill = np.nan if average else -np.inf
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)], constant_values=fill)
    out_sp = [(xp.shape[i + 1] - k[i]) // s[i] + 1 for i in range(len(k))]
    out = np.zeros((x.shape[0], *out_sp, x.shape[-1]))
    for pos in itertools.product(*(range(v) for v in out_sp)):
        idx = tuple(slice(p * ss, p * ss + kk) for p, ss, kk in zip(pos, s, k))
        win = xp[(slice(None),) + idx].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None),) + pos] = np.nanmean(win, 1) if average else np.nanmax(win, 1)
    return out.astype(x.dtype)


def conv2d_ref(x, w, strides=1, padding="VALID", dilations=1, **kw):
    s = [strides] * 2 if np.ndim(strides) == 0 else list(strides)[-3:-1] if len(
        strides) == 4 else list(strides)
    d = [dilations] * 2 if np.ndim(dilations) == 0 else list(dilations)
    pads = padding if isinstance(padding, str) else padding[1:3]
    return ref_conv(x, w, s, pads, d, groups=x.shape[-1] // w.shape[-2])


X = rand(2, 7, 6, 3)
W = rand(3, 2, 3, 4)
CASES = [
    # activations
    Case(tf.nn.relu, (V,), ref=lambda x: np.maximum(x, 0), id="relu"),
    Case(tf.nn.relu, (rand(2, 3, dtype=np.int8),), ref=lambda x: np.maximum(x, 0).astype(x.dtype),
         id="relu-int8"),
    Case(tf.nn.relu6, (V * 2,), ref=lambda x: np.clip(x, 0, 6), id="relu6"),
    Case(tf.nn.relu6, (np.array([253, 255, 0, 7], np.uint8),),
         ref=lambda x: np.minimum(x, 6).astype(np.uint8), id="relu6-uint8"),
    Case(tf.nn.leaky_relu, (V,), ref=lambda x: np.where(x > 0, x, np.float32(0.2) * x),
         id="leaky_relu"),
    Case(tf.nn.leaky_relu, (rand(5, dtype=np.int32),), {"alpha": 0.5},
         ref=lambda x, alpha: np.where(x > 0, x, 0.5 * x).astype(np.float32),
         id="leaky_relu-int-becomes-float32"),
    Case(tf.nn.elu, (V.astype(np.float64),), ref=lambda x: np.where(x > 0, x, np.expm1(x)),
         id="elu"),
    Case(tf.nn.selu, (V,), ref=ref_selu, id="selu"),
    Case(tf.nn.gelu, (rand(3, 4, low=-6, high=6),), ref=ref_gelu, id="gelu"),
    Case(tf.nn.gelu, (rand(3, 4, dtype=np.float64, low=-6, high=6),), ref=ref_gelu, atol=1e-12,
         rtol=1e-12, id="gelu-f64"),
    Case(tf.nn.gelu, (V,), {"approximate": True}, ref=ref_gelu, id="gelu-tanh"),
    Case(tf.nn.silu, (V,), ref=lambda x: x / (1 + np.exp(-x)), id="silu"),
    Case(tf.nn.swish, (V.astype(np.float64),), {"beta": 2.0},
         ref=lambda x, beta: x / (1 + np.exp(-beta * x)), id="swish-beta"),
    # softmax family
    Case(tf.nn.softmax, (F234,), ref=ref_softmax, id="softmax"),
    Case(tf.math.softmax, (F234,), {"axis": 1}, ref=ref_softmax, id="softmax-axis"),
    Case(tf.nn.softmax, (np.zeros((0, 3), np.float64),), ref=ref_softmax, id="softmax-empty"),
    Case(tf.nn.log_softmax, (F234,), {"axis": 0}, ref=ref_log_softmax, rtol=1e-5,
         id="log_softmax"),
    Case(tf.math.log_softmax, (np.array([1000.0, 0.0], np.float32),), ref=ref_log_softmax,
         id="log_softmax-large"),
    Case(lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         (rand(3, 4, low=0, high=1), rand(3, 4, low=-5, high=5)),
         ref=lambda z, x: ref_sigmoid_xent(x, z), id="sigmoid_xent"),
    Case(lambda z, x, **kw: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x, **kw),
         (ref_softmax(rand(2, 3, 4)), rand(2, 3, 4)), ref=ref_softmax_xent, rtol=1e-5,
         id="softmax_xent"),
    Case(lambda z, x, **kw: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x, **kw),
         (ref_softmax(rand(2, 3, 4), 1), rand(2, 3, 4)), {"axis": 1}, ref=ref_softmax_xent,
         rtol=1e-5, id="softmax_xent-axis"),
    Case(lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
         (ref_softmax(rand(1, 3)), rand(4, 3)), ref=ref_softmax_xent, rtol=1e-5,
         id="softmax_xent-broadcast"),
    Case(lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x),
         (np.array([[1, 0, 2], [3, 3, 0]], np.int32), rand(2, 3, 4)), ref=ref_sparse_xent,
         rtol=1e-5, id="sparse_xent"),
    Case(lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x),
         (np.array([1, 0], np.int64), rand(2, 5, dtype=np.float64)), ref=ref_sparse_xent,
         id="sparse_xent-int64"),
    # losses, bias_add
    Case(tf.nn.l2_loss, (F234,), ref=lambda x: np.float32(np.sum(x * x) / 2), rtol=1e-5,
         id="l2_loss"),
    Case(tf.nn.l2_loss, (np.zeros(0, np.float64),), ref=lambda x: np.float64(0),
         id="l2_loss-empty"),
    Case(tf.nn.bias_add, (F234, rand(4)), ref=lambda x, b: x + b, id="bias_add"),
    Case(tf.nn.bias_add, (rand(2, 3, 2, 2, dtype=np.int32), rand(3, dtype=np.int32)),
         {"data_format": "NCHW"}, ref=lambda x, b, **k: x + b[:, None, None],
         id="bias_add-nchw"),
    # moments, batch_normalization
    Case(tf.nn.moments, (F234, [0, 2]), ref=ref_moments, rtol=1e-5, id="moments"),
    Case(tf.nn.moments, (F234, [-1]), {"keepdims": True}, ref=ref_moments, rtol=1e-5,
         id="moments-keepdims"),
    Case(tf.nn.moments, (F23, []), ref=ref_moments, id="moments-no-axes"),
    Case(lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
         (F234, rand(4), rand(4, low=0.5, high=2), rand(4), rand(4)),
         ref=lambda x, m, v, o, s: ref_batch_norm(x, m, v, o, s, 1e-3), rtol=1e-5,
         id="batch_norm"),
    Case(lambda x, m, v: tf.nn.batch_normalization(x, m, v, None, None, 1e-3),
         (rand(3, 2, dtype=np.float64), rand(2, dtype=np.float64),
          rand(2, dtype=np.float64, low=0.5, high=2)),
         ref=lambda x, m, v: ref_batch_norm(x, m, v, None, None, 1e-3),
         id="batch_norm-no-offset-scale"),
    # convolution
    Case(tf.nn.conv2d, (X, W, 1, "VALID"), ref=conv2d_ref, rtol=1e-5, atol=1e-5,
         id="conv2d-valid"),
    Case(tf.nn.conv2d, (X, W, 2, "SAME"), ref=conv2d_ref, rtol=1e-5, atol=1e-5,
         id="conv2d-same-stride2"),
    Case(tf.nn.conv2d, (X, W, [1, 2], "SAME"), {"dilations": [2, 1]}, ref=conv2d_ref,
         rtol=1e-5, atol=1e-5, id="conv2d-dilated"),
    Case(tf.nn.conv2d, (X, W, [1, 1, 1, 1], [[0, 0], [2, 1], [0, 3], [0, 0]]),
         ref=conv2d_ref, rtol=1e-5, atol=1e-5, id="conv2d-explicit"),
    Case(tf.nn.conv2d, (rand(1, 5, 5, 4), rand(3, 3, 2, 6), 1, "SAME"), ref=conv2d_ref,
         rtol=1e-5, atol=1e-5, id="conv2d-grouped"),
    Case(tf.nn.conv2d, (rand(2, 4, 4, 3), rand(1, 1, 3, 5), 1, "VALID"), ref=conv2d_ref,
         rtol=1e-5, atol=1e-5, id="conv2d-1x1"),
    Case(tf.nn.conv2d, (rand(1, 5, 5, 2, dtype=np.int32), rand(2, 2, 2, 3, dtype=np.int32),
                        1, "VALID"), ref=conv2d_ref, id="conv2d-int32"),
    Case(tf.nn.conv2d, (rand(1, 5, 5, 2, dtype=np.float16), rand(2, 2, 2, 3, dtype=np.float16),
                        1, "SAME"), ref=conv2d_ref, rtol=2e-3, atol=2e-2, id="conv2d-f16"),
    Case(tf.nn.conv2d, (rand(0, 5, 5, 3), W, 1, "VALID"), ref=conv2d_ref, id="conv2d-empty"),
    Case(tf.nn.conv1d, (rand(2, 9, 3), rand(3, 3, 4), 2, "SAME"),
         ref=lambda x, w, s, p: ref_conv(x, w, [s], p, [1]), rtol=1e-5, atol=1e-5,
         id="conv1d"),
    Case(tf.nn.conv1d, (rand(1, 9, 2), rand(2, 2, 3), 1, "VALID"), {"dilations": 3},
         ref=lambda x, w, s, p, dilations: ref_conv(x, w, [s], p, [3]), rtol=1e-5, atol=1e-5,
         id="conv1d-dilated"),
    Case(tf.nn.convolution, (rand(1, 4, 5, 3, 2), rand(2, 2, 2, 2, 3)), {"padding": "SAME"},
         ref=lambda x, w, padding: ref_conv(x, w, [1] * 3, padding, [1] * 3), rtol=1e-5,
         atol=1e-5, id="convolution-3d"),
    Case(tf.nn.conv3d, (rand(1, 4, 5, 3, 2), rand(2, 2, 2, 2, 3), [1, 2, 1, 1, 1], "SAME"),
         ref=lambda x, w, s, p: ref_conv(x, w, [2, 1, 1], p, [1] * 3), rtol=1e-5, atol=1e-5,
         id="conv3d"),
    Case(tf.nn.convolution, (X, W), {"strides": 2},
         ref=lambda x, w, strides: ref_conv(x, w, [2, 2], "VALID", [1, 1]), rtol=1e-5,
         atol=1e-5, id="convolution-2d"),
    Case(tf.nn.depthwise_conv2d, (rand(2, 5, 6, 3), rand(3, 2, 3, 2), [1, 2, 1, 1], "SAME"),
         ref=lambda x, w, s, p: ref_conv(x, w.reshape(3, 2, 1, 6), [2, 1], p, [1, 1], 3),
         rtol=1e-5, atol=1e-5, id="depthwise"),
    Case(tf.nn.depthwise_conv2d, (rand(1, 6, 6, 2), rand(2, 2, 2, 1), [1, 1, 1, 1], "VALID"),
         {"dilations": [2, 2]},
         ref=lambda x, w, s, p, **k: ref_conv(x, w.reshape(2, 2, 1, 2), [1, 1], p, [2, 2], 2),
         rtol=1e-5, atol=1e-5, id="depthwise-dilated"),
    # pooling
    Case(tf.nn.max_pool2d, (X, 2, 2, "VALID"),
         ref=lambda x, k, s, p: ref_pool(x, [k, k], [s, s], p, False), id="max_pool2d"),
    Case(tf.nn.max_pool2d, (X, [3, 2], [2, 1], "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, k, s, p, False), id="max_pool2d-same"),
    Case(tf.nn.max_pool2d, (rand(1, 4, 4, 2, dtype=np.int64), 2, 1, "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, [k, k], [s, s], p, False), id="max_pool2d-int64"),
    Case(tf.nn.max_pool, (X, [1, 2, 3, 1], [1, 1, 2, 1], [[0, 0], [1, 1], [0, 2], [0, 0]]),
         ref=lambda x, k, s, p: ref_pool(x, k[1:3], s[1:3], p[1:3], False),
         id="max_pool-explicit"),
    Case(tf.nn.avg_pool2d, (X, 2, 2, "VALID"),
         ref=lambda x, k, s, p: ref_pool(x, [k, k], [s, s], p, True), rtol=1e-5,
         id="avg_pool2d"),
    Case(tf.nn.avg_pool2d, (X, 3, [2, 1], "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, [k, k], s, p, True), rtol=1e-5,
         id="avg_pool2d-same"),
    Case(tf.nn.avg_pool, (rand(1, 5, 5, 2, dtype=np.float16), 2, 2, "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, [k, k], [s, s], p, True), rtol=1e-3,
         id="avg_pool-f16"),
    Case(tf.nn.max_pool1d, (rand(2, 9, 3), 3, 2, "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, [k], [s], p, False), id="max_pool1d"),
    Case(tf.nn.avg_pool, (rand(2, 9, 3), [2], [1], "VALID"),
         ref=lambda x, k, s, p: ref_pool(x, k, s, p, True), rtol=1e-5, id="avg_pool-1d"),
    Case(tf.nn.max_pool3d, (rand(1, 4, 5, 3, 2), 2, 2, "SAME"),
         ref=lambda x, k, s, p: ref_pool(x, [k] * 3, [s] * 3, p, False), id="max_pool3d"),
    Case(tf.nn.avg_pool3d, (rand(1, 4, 5, 3, 2), [2, 1, 3], 1, "VALID"),
         ref=lambda x, k, s, p: ref_pool(x, k, [s] * 3, p, True), rtol=1e-5, id="avg_pool3d"),
]


def _dropout_check(out, x, *rest):
    got = out.numpy()
    kept = x / np.float32(0.75) if x.dtype == np.float32 else x / (1 - x.dtype.type(0.25))
    assert np.all((got == 0) | np.isclose(got, kept))


CASES.append(Case(lambda x: tf.nn.dropout(x, rate=0.25, seed=3), (rand(50, 4) + 3,),
                  check=_dropout_check, id="dropout"))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


CASES.append(Case(  # TF 2.21's losses (tests/ops/test_ctc_loss.py has the gradients)
    lambda x: tf.nn.ctc_loss(labels=np.array([[0, 1], [1, 1]]), logits=x, label_length=[2, 2],
                             logit_length=[4, 4], blank_index=2, logits_time_major=False),
    ((np.arange(24).reshape((2, 4, 3)).astype("float32") - 12) / 100,),
    ref=lambda x: np.array([1.6884574890136719, 2.769132137298584], np.float32), rtol=1e-5,
    id="CTCLoss"))
CASES.append(Case(  # TF 2.21's decodings: tests/ops/test_keras_ops.py has more against TF
    lambda x: tf.nn.ctc_greedy_decoder(x, [2, 1])[1],
    (np.array([[[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]], [[0.1, 0.9, 0.0], [0.3, 0.3, 0.4]]],
              np.float32),),
    ref=lambda x: np.float32([[-1.8], [-0.8]]), id="CTCGreedyDecoder"))
CASES.append(Case(
    lambda x: tf.nn.ctc_beam_search_decoder(x, [2, 1], beam_width=2)[1],
    (np.array([[[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]], [[0.1, 0.9, 0.0], [0.3, 0.3, 0.4]]],
              np.float32),), rtol=1e-5,
    check=lambda out, x: out.shape == (2, 1), id="CTCBeamSearchDecoder"))


def test_every_nn_op_is_in_the_table():
    mine = {name for name, op in registry.all_ops().items()
            if op.infer.__module__.startswith("tensortrace.ops.nn.")}
    from .test_nn_grad_ops import CASES as GRAD_CASES  # it imports this module
    covered = set().union(*(op_types(c) for c in CASES + GRAD_CASES))
    assert mine - covered == set()


def _graph(fn, *specs):
    g = Graph()
    with g.as_default():
        out = fn(*[g.placeholder(tf.TensorSpec(*s), "x") for s in specs])
    return g, out


def _allclose(t, expected, rtol=1e-6):
    np.testing.assert_allclose(t.numpy(), expected, rtol=rtol)


# --- activations ---------------------------------------------------------------------------------
def test_activation_values_match_tf():
    v = tf.constant(V)
    _allclose(tf.nn.gelu(v), [-0.004049695562571287, -0.15865525603294373, 0.0,
                              0.3457312285900116, 1.9544997215270996, 7.0], 1e-6)
    # 1 + tanh(..) cancels near -1: float32 results differ from TF's by ~1 ulp of tanh there
    np.testing.assert_allclose(tf.nn.gelu(v, approximate=True).numpy(),
                               [-0.0036374330520629883, -0.15880799293518066, 0.0,
                                0.3457140028476715, 1.9545977115631104, 7.0], rtol=1e-6,
                               atol=2e-7)
    _allclose(tf.nn.selu(v), [-1.6705687046051025, -1.1113307476043701, 0.0,
                              0.5253505110740662, 2.1014020442962646, 7.354907035827637])
    _allclose(tf.nn.leaky_relu(v, alpha=2.0), [-6.0, -2.0, 0.0, 0.5, 2.0, 7.0])
    # alpha is a float32 attr in TF, even for float64 features
    out = tf.nn.leaky_relu(tf.constant(V.astype(np.float64)))
    assert out.numpy()[0] == -0.6000000089406967
    out = tf.nn.relu(tf.constant(np.array([-3, 2], np.int64).astype(np.uint8)))
    assert out.numpy().tolist() == [253, 2]


def test_activation_dtype_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Value for attr 'T' of int32 is not in the list of allowed values: "
                             r"half, .*float, double\n\t; NodeDef: \{\{node Elu\}\}; Op<name=Elu; "
                             r"signature=features:T -> activations:T; attr=T:type,allowed=\[DT_HALF, "
                             r".*DT_FLOAT, DT_DOUBLE\]> \[Op:Elu\] name: $"):
        tf.nn.elu(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.nn.relu(tf.constant([True]))
    with pytest.raises(ValueError, match="`features.dtype` must be a floating point tensor"):
        tf.nn.gelu(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Value passed to parameter 'features' has DataType int32"):
        _graph(tf.nn.selu, ([3], tf.int32))
    assert tf.nn.swish is tf.nn.silu and tf.math.softmax is tf.nn.softmax


def test_softmax_edges():
    _allclose(tf.nn.softmax(tf.constant([1000.0, 0.0])), [1.0, 0.0])
    assert np.isnan(tf.nn.softmax(tf.constant([-np.inf, -np.inf])).numpy()).all()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"`dim` must be in the range \[-2, 2\) where 2 is the number of "
                             r"dimensions in the input. Received: dim=2"):
        tf.nn.softmax(tf.constant(np.ones((2, 3), np.float32)), axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        tf.nn.softmax(tf.constant(1.0))
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        _graph(tf.nn.softmax, ([],))
    g, out = _graph(lambda x: tf.nn.softmax(x, axis=0), ([None, 3],))
    assert out.shape.as_list() == [None, 3] and g.get_operations()[-1].type == "Softmax"


# --- cross-entropies -----------------------------------------------------------------------------
def test_cross_entropy_values_match_tf():
    labels = tf.constant([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    logits = tf.constant([[2.0, -1.0], [0.0, 3.0], [100.0, -100.0]])
    _allclose(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
              [[2.1269280910491943, 1.3132617473602295], [0.6931471824645996,
                                                          3.0485873222351074], [50.0, 50.0]])
    _allclose(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0, 1], logits=logits),
              [3.0485873222351074, 3.0485873222351074, 200.0])
    _allclose(tf.nn.softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=[1.0, 2.0]),
              0.31326165795326233)
    # labels are cast to the logits' dtype; 0 * log(0) is nan, as in TF
    out = tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(np.ones((2, 3))),
                                                  logits=tf.constant(np.ones((2, 3), np.float32)))
    assert out.dtype == tf.float32
    out = tf.nn.softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=[-np.inf, 2.0])
    assert np.isnan(out.numpy())
    half = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant(np.ones((2, 3), np.float16)), logits=tf.constant(np.ones((2, 3),
                                                                                    np.float16)))
    assert half.dtype == tf.float16 and half.numpy().tolist() == [3.294921875, 3.294921875]


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, "
                                         r"received \(\(3,\) vs \(2,\)\)."):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1.0, 1.0]),
                                                logits=tf.constant([1.0, 1.0, 1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="was expected to be a float tensor but is a int32 tensor"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=[1, 0], logits=[2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"logits and labels must be broadcastable: logits_size=\[2,4\] "
                             r"labels_size=\[2,3\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=np.ones((2, 3), np.float32),
                                                logits=np.ones((2, 4), np.float32))
    logits = tf.constant(np.ones((3, 2), np.float32))
    # TF reports the smallest label when one is negative, else the largest
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Received a label value of -1 which is outside the valid range of "
                             r"\[0, 2\).  Label values: 5 0 -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5, 0, -1], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 7"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5, 0, 7], logits=logits)
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - "
                                         r"1`"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1, 0, 1]], logits=logits)
    with pytest.raises(ValueError, match="`labels.shape` must equal `logits.shape` except for"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0], logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'Tlabels' of float"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1.0, 0.0, 1.0], logits=logits)
    _, out = _graph(lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=z, logits=x), ([None], tf.int32), ([3, 2],))
    assert out.shape.as_list() == [3]


# --- l2_loss, bias_add, moments, batch_normalization, dropout ------------------------------------
def test_l2_loss_and_bias_add_match_tf():
    assert tf.nn.l2_loss(tf.constant(V)).numpy() == 31.625
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int32"):
        tf.nn.l2_loss(tf.constant([1, 2]))
    assert tf.nn.bias_add(tf.constant(_arange(1, 2, 3)), [1.0, 2.0], data_format="NCW"
                          ).numpy().tolist() == [[[1.0, 2.0, 3.0], [5.0, 6.0, 7.0]]]
    assert tf.nn.bias_add(tf.constant(_arange(1, 2)), [1, 2]).dtype == tf.float32
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Must provide as many biases as the last dimension of the input "
                             r"tensor: \[2\] vs. \[2,3\]"):
        tf.nn.bias_add(tf.constant(_arange(2, 3)), tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Biases must be 1D: \[1,3\]"):
        tf.nn.bias_add(tf.constant(_arange(2, 3)), tf.constant(_arange(1, 3)))
    with pytest.raises(ValueError, match="`data_format` must be of the form `N...C` or `NC...`"):
        tf.nn.bias_add(tf.constant(_arange(2, 3)), tf.constant([1.0, 2.0, 3.0]), "XYZ")
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        _graph(tf.nn.bias_add, ([None, 3],), ([4],))


def test_moments_match_tf():
    mean, var = tf.nn.moments(tf.constant([1, 2, 4]), axes=[0])
    assert (mean.dtype, mean.numpy(), var.numpy()) == (tf.int32, 2, 1)  # integer division
    mean, var = tf.nn.moments(tf.constant(np.array([1.0, 2.0, 4.0], np.float16)), axes=[0])
    assert (mean.dtype, mean.numpy(), var.numpy()) == (tf.float16, 2.333984375, 1.5556640625)
    mean, var = tf.nn.moments(tf.constant(np.zeros((0, 3), np.float32)), axes=[0])
    assert np.isnan(mean.numpy()).all() and np.isnan(var.numpy()).all()
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension \(2 for input with 2 dimension\(s\)"):
        tf.nn.moments(tf.constant(_arange(2, 3)), axes=[2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Axes contains duplicate"):
        tf.nn.moments(tf.constant(_arange(2, 3)), axes=[0, 0])
    _, (mean, var) = _graph(lambda x: tf.nn.moments(x, axes=[0, 2], keepdims=True),
                            ([None, 3, 4],))
    assert mean.shape.as_list() == var.shape.as_list() == [1, 3, 1]


def test_batch_normalization_matches_tf():
    out = tf.nn.batch_normalization(tf.constant(_arange(3, 2)), tf.constant([1.0, 2.0]),
                                    tf.constant([4.0, 9.0]), tf.constant([0.5, 0.0]),
                                    tf.constant([2.0, 3.0]), 1e-3)
    _allclose(out, [[-0.4998750686645508, -0.9999444484710693],
                    [1.4998750686645508, 0.9999444484710693],
                    [3.4996252059936523, 2.999833583831787]])
    # parameters in another float dtype are cast to x's dtype
    out = tf.nn.batch_normalization(tf.constant(np.ones((3, 2))), tf.constant([1.0, 2.0]),
                                    tf.constant([4.0, 9.0]), None, None, 1e-3)
    assert out.dtype == tf.float64
    out = tf.nn.batch_normalization(tf.constant(_arange(3, 2)), 1.0, 4.0, 0.0, 2.0, 0.0)
    assert out.numpy().tolist() == [[-1.0, 0.0], [1.0, 2.0], [3.0, 4.0]]


def test_dropout_rules():
    x = tf.constant(np.ones(1000, np.float32))
    out = tf.nn.dropout(x, rate=0.3, seed=1).numpy()
    assert set(np.unique(out).tolist()) == {0.0, np.float32(1.4285714626312256)}
    assert 200 < (out == 0).sum() < 400
    half = tf.nn.dropout(tf.constant(np.ones(100, np.float16)), rate=0.3).numpy()
    assert set(np.unique(half).tolist()) <= {0.0, 1.4287109375}
    assert tf.nn.dropout(x, rate=0.0) is x
    masked = tf.nn.dropout(tf.constant(np.ones((6, 5), np.float32)), 0.5,
                           noise_shape=[None, 1]).numpy()
    assert all(len(set(row)) == 1 for row in masked.tolist())  # one draw per row
    assert tf.nn.dropout(x, rate=tf.constant(0.5)).shape == (1000,)
    with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the "
                                         r"range \[0, 1\). Received: rate=1"):
        tf.nn.dropout(x, rate=1)
    with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor"):
        tf.nn.dropout(tf.constant([1, 2]), rate=0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be broadcastable"):
        tf.nn.dropout(tf.constant(np.ones((3, 4), np.float32)), 0.5, noise_shape=[2, 1])
    # tf.random's seed rules: set_seed replays the same masks, successive calls differ
    draw = lambda: tf.nn.dropout(x, rate=0.5, seed=1).numpy()
    tf.random.set_seed(5)
    first, second = draw(), draw()
    tf.random.set_seed(5)
    assert (draw() == first).all() and not (first == second).all()
    g, out = _graph(lambda t: tf.nn.dropout(t, 0.5), ([None, 2],))
    assert out.shape.as_list() == [None, 2]
    assert g.get_operations()[-1].opdef.stateful


# --- convolution and pooling ---------------------------------------------------------------------
def test_conv2d_values_match_tf():
    ones = tf.constant(np.ones((3, 3, 2, 1), np.float32))
    x = tf.constant(_arange(1, 5, 5, 2))
    same = tf.nn.conv2d(x, ones, 1, "SAME").numpy()[0, :, :, 0]
    assert same[0].tolist() == [52, 90, 114, 138, 100]
    assert same[4].tolist() == [292, 450, 474, 498, 340]
    k2 = tf.constant(np.ones((2, 2, 1, 1), np.float32))
    x4 = tf.constant(_arange(1, 4, 4, 1))
    assert tf.nn.conv2d(x4, k2, 2, "SAME").numpy().ravel().tolist() == [10, 18, 42, 50]
    assert tf.nn.conv2d(x4, k2, 3, "SAME").numpy().ravel().tolist() == [10, 10, 25, 15]
    explicit = tf.nn.conv2d(x, ones, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]).numpy()
    assert explicit.shape == (1, 4, 5, 1)
    assert explicit[0, 0, :, 0].tolist() == [90, 114, 138, 100, 54]
    dil = tf.nn.conv2d(tf.constant(_arange(1, 7, 7, 1)), tf.constant(np.ones((3, 3, 1, 1),
                                                                            np.float32)),
                       1, "VALID", dilations=2).numpy().ravel().tolist()
    assert dil == [144, 153, 162, 207, 216, 225, 270, 279, 288]


def test_conv1d_convolution_depthwise_values_match_tf():
    out = tf.nn.conv1d(tf.constant(_arange(2, 5, 2)), tf.constant(np.ones((3, 2, 3), np.float32)),
                       2, "SAME").numpy()
    assert out[:, :, 0].tolist() == [[6, 27, 30], [46, 87, 70]]
    with pytest.raises(tf.errors.UnimplementedError, match="only supports the NHWC tensor format "
                       "on the CPU. The op was given the format: NCHW"):  # TF's CPU kernel
        tf.nn.conv1d(tf.constant(_arange(1, 1, 5)), tf.constant(np.ones((3, 1, 1), np.float32)),
                     1, "VALID", data_format="NCW")
    out = tf.nn.convolution(tf.constant(_arange(1, 3, 3, 3, 1)),
                            tf.constant(np.ones((2, 2, 2, 1, 1), np.float32)))
    assert out.numpy().ravel().tolist() == [52, 60, 76, 84, 124, 132, 148, 156]
    out = tf.nn.depthwise_conv2d(tf.constant(_arange(1, 3, 3, 2)), tf.constant(_arange(2, 2, 2, 1)),
                                 [1, 2, 2, 1], "SAME")
    assert out.numpy().tolist() == [[[[76, 108], [40, 60]], [[28, 58], [0, 17]]]]
    out = tf.nn.depthwise_conv2d(tf.constant(_arange(1, 3, 3, 1)),
                                 tf.constant(np.ones((2, 2, 1, 1), np.float32)), [1, 1, 1, 1],
                                 [[0, 0], [1, 1], [1, 1], [0, 0]])
    assert out.numpy()[0, :, :, 0].tolist() == [[0, 1, 3, 2], [3, 8, 12, 7], [9, 20, 24, 13],
                                                [6, 13, 15, 8]]


@pytest.mark.parametrize("shape, filters, stride, padding, winograd", [
    ((2, 41, 40, 64), 64, 1, "VALID", True),   # Winograd F(2x2, 3x3), odd output height
    ((1, 56, 57, 64), 64, 1, "SAME", True),    # Winograd, odd output width
    ((2, 80, 80, 32), 32, 2, "VALID", False),  # blocked im2col GEMMs on the worker pool
    ((16, 13, 13, 64), 64, 1, "VALID", False),  # small images: im2col GEMMs, not Winograd
])
def test_large_conv2d_paths_match_reference(shape, filters, stride, padding, winograd):
    x, w = rand(*shape), rand(3, 3, shape[-1], filters)
    pads = [(1, 1)] * 2 if padding == "SAME" else [(0, 0)] * 2
    out = [(n + 2 * pads[0][0] - 3) // stride + 1 for n in shape[1:3]]
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    assert bool(winograd_ok(xp, w, out, [stride] * 2, [1, 1])) == (winograd and Blas.load())
    threads = Blas.get() if Blas.load() else None
    out = tf.nn.conv2d(x, w, stride, padding).numpy()
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), [stride] * 2, padding, [1, 1])
    assert out.shape == ref.shape and out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-6 * np.abs(ref).max())
    if threads is not None:
        assert Blas.get() == threads  # BLAS's own thread count is restored


def test_large_conv2d_keeps_infinities_of_the_direct_sum():
    x, w = rand(1, 56, 57, 64), rand(3, 3, 64, 64)
    x[0, 10, 10, 3] = np.inf
    out = tf.nn.conv2d(x, w, 1, "SAME").numpy()
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), [1, 1], "SAME", [1, 1])
    assert np.isinf(out).sum() == np.isinf(ref).sum() > 0
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-3, equal_nan=True)


def test_conv_errors():
    x = tf.constant(_arange(1, 5, 5, 2))
    k = tf.constant(np.ones((3, 3, 2, 1), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input depth must be evenly divisible by filter depth: 3 vs 2"):
        tf.nn.conv2d(tf.constant(_arange(1, 3, 3, 3)), k, 1, "VALID")
    with pytest.raises(tf.errors.UnimplementedError, match="strides in the batch and depth"):
        tf.nn.conv2d(x, k, [2, 2, 1, 1], "VALID")
    with pytest.raises(ValueError, match=r"strides should be of length 1, 2 or 4. Received: "
                                         r"strides=\[1, 2, 1\] of length 3"):
        tf.nn.conv2d(x, k, [1, 2, 1], "VALID")
    with pytest.raises(ValueError, match="When padding is a list, it must be of size 4"):
        tf.nn.conv2d(x, k, 1, [[1, 0], [1, 0]])
    with pytest.raises(ValueError, match="'EXPLICIT' is not a valid value for `padding`"):
        tf.nn.conv2d(x, k, 1, "EXPLICIT")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'padding' of \"same\" is not in the list"):
        tf.nn.conv2d(x, k, 1, "same")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int64"):
        tf.nn.conv2d(tf.constant(np.ones((1, 3, 3, 1), np.int64)),
                     tf.constant(np.ones((2, 2, 1, 1), np.int64)), 1, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Computed output size would be"):
        tf.nn.conv2d(tf.constant(_arange(1, 2, 2, 2)), k, 1, "VALID")
    with pytest.raises(ValueError, match="`strides > 1` not supported in conjunction with "
                                         "`dilation_rate > 1`"):
        tf.nn.convolution(x, k, strides=2, dilations=2, padding="SAME")
    with pytest.raises(ValueError, match=r"Depth of input \(3\) is not a multiple of input "
                                         r"depth of filter \(2\)"):
        _graph(lambda a, b: tf.nn.conv2d(a, b, 1, "VALID"), ([None, 7, 6, 3],),
               ([3, 3, 2, 4],))
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 "
                                         "from 2"):
        _graph(lambda a, b: tf.nn.conv2d(a, b, 1, "VALID"), ([None, 2, 6, 2],),
               ([3, 3, 2, 4],))
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides field must specify 4"):
        tf.nn.depthwise_conv2d(x, tf.constant(np.ones((2, 2, 2, 3), np.float32)), [1, 1],
                               "VALID")


def test_conv_infer_keeps_unknown_dims():
    _, out = _graph(lambda a, b: tf.nn.conv2d(a, b, 2, "SAME"), ([None, 7, None, 2],),
                    ([3, 3, 2, 4],))
    assert out.shape.as_list() == [None, 4, None, 4]
    _, out = _graph(lambda a, b: tf.nn.conv2d(a, b, 1, "VALID"), (None,), ([3, 3, 2, 4],))
    assert out.shape.as_list() == [None, None, None, 4]
    g, out = _graph(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME"),
                    ([None, 7, 6, 2],), ([3, 3, 2, 4],))
    assert out.shape.as_list() == [None, 7, 6, 8]
    assert g.get_operations()[-1].type == "DepthwiseConv2dNative"


def test_pool_values_match_tf():
    out = tf.nn.max_pool2d(-tf.constant(_arange(1, 5, 5, 1)), 2, 2, "SAME")
    assert out.numpy()[0, :, :, 0].tolist() == [[0, -2, -4], [-10, -12, -14], [-20, -22, -24]]
    out = tf.nn.max_pool2d(tf.constant(_arange(1, 3, 3, 1)), 2, 1,
                           [[0, 0], [1, 1], [1, 1], [0, 0]])
    assert out.numpy()[0, :, :, 0].tolist() == [[0, 1, 2, 2], [3, 4, 5, 5], [6, 7, 8, 8],
                                                [6, 7, 8, 8]]
    nan = tf.constant(np.array([np.nan, 1.0, 2.0, 3.0], np.float32).reshape(1, 2, 2, 1))
    assert tf.nn.max_pool2d(nan, 2, 2, "VALID").numpy().ravel().tolist() == [3.0]
    out = tf.nn.avg_pool2d(tf.constant(_arange(1, 5, 5, 1)), 2, 2, "SAME")
    assert out.numpy()[0, :, :, 0].tolist() == [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]]
    out = tf.nn.avg_pool2d(tf.constant(_arange(1, 3, 3, 1)), 3, 1, "SAME")
    assert out.numpy()[0, :, :, 0].tolist() == [[2, 2.5, 3], [3.5, 4, 4.5], [5, 5.5, 6]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Default MaxPoolingOp only supports NHWC on device type CPU"):
        tf.nn.max_pool2d(tf.constant(_arange(1, 1, 4, 4)), 2, 2, "VALID", data_format="NCHW")


def test_pool_errors():
    x = tf.constant(_arange(1, 3, 3, 2))
    with pytest.raises(tf.errors.UnimplementedError, match="not yet supported on the batch"):
        tf.nn.max_pool2d(x, [2, 2, 2, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of bool"):
        tf.nn.max_pool2d(tf.constant(np.ones((1, 2, 2, 1), bool)), 2, 2, "VALID")
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'T' of int64"):
        tf.nn.avg_pool2d(tf.constant(np.ones((1, 2, 2, 1), np.int64)), 2, 2, "VALID")
    with pytest.raises(TypeError, match="Expected string for argument 'padding'"):
        tf.nn.avg_pool2d(x, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Computed output size would be"):
        tf.nn.max_pool2d(tf.constant(_arange(1, 2, 2, 1)), 3, 1, "VALID")
    _, out = _graph(lambda a: tf.nn.max_pool2d(a, 2, 2, "SAME"), ([None, 5, 4, 3],))
    assert out.shape.as_list() == [None, 3, 2, 3]
    _, out = _graph(lambda a: tf.nn.avg_pool2d(a, 3, 2, "VALID"), ([None, 5, 4, 3],))
    assert out.shape.as_list() == [None, 2, 1, 3]


def test_erfc_is_accurate():
    from tensortrace.ops.math.special import _erfc as erfc

    xs = np.linspace(-6, 26, 4001)
    ref = np.array([math.erfc(v) for v in xs])
    np.testing.assert_allclose(erfc(xs), ref, rtol=1e-12, atol=0)
    x32 = xs.astype(np.float32)
    ref32 = np.array([math.erfc(v) for v in x32.tolist()], np.float32)
    np.testing.assert_allclose(erfc(x32), ref32, rtol=1e-6, atol=1e-37)


def test_convolution_3d_channels_first_strides_under_jit_compile():
    # tf.nn.convolution puts NCDHW strides on the spatial axes; XLA (jit_compile) runs the
    # channels-first layout that TF's CPU kernels refuse
    rng = np.random.RandomState(0)
    x = rng.rand(1, 4, 12, 12, 12).astype(np.float32)
    w = rng.rand(4, 4, 4, 4, 8).astype(np.float32)
    first = tf.function(jit_compile=True)(
        lambda v: tf.nn.convolution(v, w, strides=(4, 4, 2), padding="VALID",
                                    data_format="NCDHW"))(x)
    last = tf.nn.convolution(np.transpose(x, (0, 2, 3, 4, 1)), w, strides=(4, 4, 2),
                             padding="VALID")
    assert first.shape == (1, 8, 3, 3, 5)
    np.testing.assert_allclose(first.numpy(), np.transpose(last.numpy(), (0, 4, 1, 2, 3)),
                               rtol=1e-5)


def test_relu6_keeps_bfloat16():
    x = tf.cast(tf.constant([-1.0, 2.5, 9.0]), tf.bfloat16)
    got = tf.nn.relu6(x)
    assert got.dtype == tf.bfloat16 and got.numpy().astype(np.float32).tolist() == [0, 2.5, 6]
