"""The gradient ops of convolutions and pooling (Conv2DBackpropInput, MaxPoolGrad ...) against
NumPy references: each is the transpose of its forward op's Jacobian, built here column by
column from the loop references of test_nn; and traced with unknown batch and spatial sizes."""

import re

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tensortrace.context import bind

from .optable import Case, rand, run_case
from .test_nn import ref_conv, ref_pool

F64 = np.float64


def jacobian_t(fn, x, dy, h=1.0):
    """J(x)^T dy for ``fn`` (NumPy), one column per input element: exact for a linear ``fn``
    (h=1), and for a max pooling of distinct values with a small ``h``."""
    base = fn(x)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = x.copy()
        e[i] += h
        out[i] = np.sum((fn(e) - base) / h * dy)
    return out


def _grad(fn, x, dy):
    """``tape.gradient(fn(x), x, dy)`` for a tensor x."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x, output_gradients=dy)


def _grad_grad(fn, x, dy, v):
    """The gradient of <fn'(x)^T dy, v> with respect to dy: MaxPoolGrad's own gradient."""
    with tf.GradientTape() as outer:
        outer.watch(dy)
        g = _grad(fn, x, dy)
    return outer.gradient(g, dy, output_gradients=v)


def _conv(s=(1, 1), p="VALID", d=(1, 1)):
    return lambda x, w: ref_conv(x, w, list(s), p, list(d))


def _depthwise(s, p):
    def fn(x, w):
        c, m = w.shape[-2:]
        return np.concatenate([ref_conv(x[..., i:i + 1], w[..., i:i + 1, :], list(s), p,
                                        [1, 1]) for i in range(c)], -1)
    return fn


X = rand(2, 5, 4, 3, dtype=F64)
W = rand(3, 2, 3, 4, dtype=F64)
DY_SAME2 = rand(2, 3, 2, 4, dtype=F64)   # conv of X by W, stride 2, SAME
X3 = rand(1, 3, 4, 3, 2, dtype=F64)
W3 = rand(2, 2, 2, 2, 3, dtype=F64)
DY3 = rand(1, 2, 3, 2, 3, dtype=F64)     # conv3d VALID
WD = rand(2, 2, 3, 2, dtype=F64)
DYD = rand(2, 5, 4, 6, dtype=F64)        # depthwise SAME
XP = rand(2, 5, 5, 2, dtype=F64)
DYP = rand(2, 3, 3, 2, dtype=F64)        # pooling 3x3 / 2, SAME
VP = rand(2, 5, 5, 2, dtype=F64)
XP3 = rand(1, 4, 4, 4, 1, dtype=F64)
DYP3 = rand(1, 2, 2, 2, 1, dtype=F64)


def _distinct(shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return rng.permutation(np.linspace(-2, 2, n)).reshape(shape)


XP = _distinct(XP.shape, 1)
XP3 = _distinct(XP3.shape, 2)
MAX2 = lambda x: ref_pool(x, [3, 3], [2, 2], "SAME", False)  # noqa: E731
MAX3 = lambda x: ref_pool(x, [2, 2, 2], [2, 2, 2], "VALID", False)  # noqa: E731

CASES = [
    Case(lambda dy, w: tf.nn.conv2d_transpose(dy, w, [2, 5, 4, 3], 2, "SAME"), (DY_SAME2, W),
         ref=lambda dy, w: jacobian_t(lambda x: _conv((2, 2), "SAME")(x, w), X, dy),
         id="Conv2DBackpropInput"),
    Case(lambda x, w, dy: _grad(lambda w: tf.nn.conv2d(x, w, 2, "SAME"), w, dy),
         (X, W, DY_SAME2), ref=lambda x, w, dy: jacobian_t(
             lambda w: _conv((2, 2), "SAME")(x, w), w, dy), id="Conv2DBackpropFilter"),
    Case(lambda dy, w: tf.nn.conv3d_transpose(dy, w, [1, 3, 4, 3, 2], [1, 1, 1, 1, 1],
                                              "VALID"), (DY3, W3),
         ref=lambda dy, w: jacobian_t(lambda x: ref_conv(x, w, [1] * 3, "VALID", [1] * 3),
                                      X3, dy), id="Conv3DBackpropInputV2"),
    Case(lambda x, w, dy: _grad(lambda w: tf.nn.conv3d(x, w, [1] * 5, "VALID"), w, dy),
         (X3, W3, DY3), ref=lambda x, w, dy: jacobian_t(
             lambda w: ref_conv(x, w, [1] * 3, "VALID", [1] * 3), w, dy),
         id="Conv3DBackpropFilterV2"),
    Case(lambda x, w, dy: _grad(lambda x: tf.nn.depthwise_conv2d(x, w, [1] * 4, "SAME"), x,
                                dy), (X[:1], WD, DYD[:1]),
         ref=lambda x, w, dy: jacobian_t(lambda x: _depthwise((1, 1), "SAME")(x, w), x, dy),
         id="DepthwiseConv2dNativeBackpropInput"),
    Case(lambda x, w, dy: _grad(lambda w: tf.nn.depthwise_conv2d(x, w, [1] * 4, "SAME"), w,
                                dy), (X, WD, DYD),
         ref=lambda x, w, dy: jacobian_t(lambda w: _depthwise((1, 1), "SAME")(x, w), w, dy),
         id="DepthwiseConv2dNativeBackpropFilter"),
    Case(lambda x, dy: _grad(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), x, dy), (XP, DYP),
         ref=lambda x, dy: jacobian_t(MAX2, x, dy, 1e-4), id="MaxPoolGrad"),
    Case(lambda x, dy, v: _grad_grad(lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), x, dy, v),
         (XP, DYP, VP), ref=lambda x, dy, v: (MAX2(x + 1e-4 * v) - MAX2(x)) / 1e-4,
         id="MaxPoolGradGrad"),
    Case(lambda x, dy: _grad(lambda x: tf.nn.max_pool3d(x, 2, 2, "VALID"), x, dy), (XP3, DYP3),
         ref=lambda x, dy: jacobian_t(MAX3, x, dy, 1e-4), id="MaxPool3DGrad"),
    Case(lambda x, dy, v: _grad_grad(lambda x: tf.nn.max_pool3d(x, 2, 2, "VALID"), x, dy, v),
         (XP3, DYP3, XP3[::-1].copy()),
         ref=lambda x, dy, v: (MAX3(x + 1e-4 * v) - MAX3(x)) / 1e-4, id="MaxPool3DGradGrad"),
    Case(lambda x, dy: _grad(lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), x, dy), (XP, DYP),
         ref=lambda x, dy: jacobian_t(lambda x: ref_pool(x, [3, 3], [2, 2], "SAME", True), x,
                                      dy), id="AvgPoolGrad"),
    Case(lambda x, dy: _grad(lambda x: tf.nn.avg_pool3d(x, 2, 2, "VALID"), x, dy), (XP3, DYP3),
         ref=lambda x, dy: jacobian_t(lambda x: ref_pool(x, [2] * 3, [2] * 3, "VALID", True),
                                      x, dy), id="AvgPool3DGrad"),
]


def fused_batch_norm(x, scale, offset, mean, variance, **attrs):
    """TF's FusedBatchNormV3 (tf.raw_ops in TF; only graphs TF wrote name it here)."""
    return bind(registry.get("FusedBatchNormV3"), x, scale, offset, mean, variance, **attrs)


def ref_fused(x, scale, offset, mean, variance, epsilon=1e-4, is_training=True,
              exponential_avg_factor=1.0):
    x64 = x.astype(F64)
    if is_training:
        bm, bv = x64.mean((0, 1, 2)), x64.var((0, 1, 2))
        n = x.size // x.shape[-1]
        unbiased = bv * n / (n - 1)
        f = exponential_avg_factor
        rm, rv = (1 - f) * mean + f * bm, (1 - f) * variance + f * unbiased
    else:
        bm, bv, rm, rv = mean, variance, mean, variance
    y = (x64 - bm) / np.sqrt(bv + epsilon) * scale + offset
    f32 = np.float32
    return (y.astype(f32), rm.astype(f32), rv.astype(f32), bm.astype(f32), bv.astype(f32),
            f32(0))


BN = (rand(3, 4, 2, 3), rand(3, low=0.5), rand(3), rand(3), rand(3, low=0.5, high=2.0))
CASES += [
    Case(fused_batch_norm, BN, {"epsilon": 1e-3}, ref=lambda *a, **k: ref_fused(*a, **k),
         rtol=1e-5, atol=1e-5, id="FusedBatchNormV3"),
    Case(fused_batch_norm, BN, {"epsilon": 1e-3, "exponential_avg_factor": 0.5},
         ref=lambda *a, **k: ref_fused(*a, **k), rtol=1e-5, atol=1e-5,
         id="FusedBatchNormV3-running"),
    Case(fused_batch_norm, BN, {"is_training": False},
         ref=lambda *a, **k: ref_fused(*a, **k), rtol=1e-5, atol=1e-5,
         id="FusedBatchNormV3-inference"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_grad_op_table(case):
    run_case(case)


# --- unknown batch (and spatial) sizes ---------------------------------------------------------
def _net(x, w1, w2):
    """A small CNN touching every gradient op a Keras CNN needs."""
    y = tf.nn.relu(tf.nn.conv2d(x, w1, 1, "SAME"))
    y = tf.nn.max_pool2d(y, 2, 2, "SAME")
    y = tf.nn.depthwise_conv2d(y, w2, [1, 1, 1, 1], "VALID")
    return tf.reduce_sum(tf.nn.avg_pool2d(y, 2, 1, "SAME") ** 2)


@pytest.mark.parametrize("spec", [[None, 6, 5, 2], [None, None, None, 2]])
def test_cnn_gradients_traced_with_unknown_batch_match_eager(spec):
    rng = np.random.default_rng(5)
    w1 = tf.constant(rng.uniform(-1, 1, (3, 3, 2, 3)))
    w2 = tf.constant(rng.uniform(-1, 1, (2, 2, 3, 2)))

    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch([x, w1, w2])
            loss = _net(x, w1, w2)
        return tape.gradient(loss, [x, w1, w2])

    f = tf.function(grads, input_signature=[tf.TensorSpec(spec, tf.float64)])
    graph_ops = {op.type for op in f.get_concrete_function().graph.get_operations()}
    assert {"Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad",
            "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"} \
        <= graph_ops
    for batch in (3, 1, 4):
        x = tf.constant(rng.uniform(-1, 1, (batch, 6, 5, 2)))
        for got, want in zip(f(x), grads(x)):
            assert got.shape == want.shape
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_gradient_shapes_stay_partial_in_the_graph():
    w = tf.ones([3, 3, 2, 4])

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 8, 2])])
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.max_pool2d(tf.nn.conv2d(x, w, 2, "SAME"), 2, 2, "SAME")
        return tape.gradient(y, x), tf.nn.conv2d_transpose(
            y, tf.ones([2, 2, 5, 4]), tf.stack([tf.shape(x)[0], 8, 8, 5]), 4, "SAME")

    grad, up = f.get_concrete_function().outputs
    assert grad.shape.as_list() == [None, 8, 8, 2]
    assert up.shape.as_list() == [None, 8, 8, 5]
    out = f(tf.ones([3, 8, 8, 2]))
    assert out[0].shape == (3, 8, 8, 2) and out[1].shape == (3, 8, 8, 5)


def test_transposed_convolution_with_a_run_time_output_shape():
    rng = np.random.default_rng(2)
    w = rng.uniform(-1, 1, (3, 3, 2, 4))
    dy = rng.uniform(-1, 1, (2, 3, 3, 4))

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 4], tf.float64)])
    def up(v):
        n, h, wd = tf.shape(v)[0], tf.shape(v)[1], tf.shape(v)[2]
        return tf.nn.conv2d_transpose(v, w, tf.stack([n, 2 * h, 2 * wd, 2]), 2, "SAME")

    assert up.get_concrete_function().outputs[0].shape.as_list() == [None, None, None, 2]
    want = jacobian_t(lambda x: ref_conv(x, w, [2, 2], "SAME", [1, 1]),
                      np.zeros((2, 6, 6, 2)), dy)
    np.testing.assert_allclose(up(tf.constant(dy)).numpy(), want, rtol=1e-10, atol=1e-12)
    one_d = tf.function(lambda v: tf.nn.conv1d_transpose(
        v, w[0], tf.stack([tf.shape(v)[0], 6, 2]), 2, "SAME"),
        input_signature=[tf.TensorSpec([None, 3, 4], tf.float64)])
    want1 = jacobian_t(lambda x: ref_conv(x, w[0], [2], "SAME", [1]), np.zeros((2, 6, 2)),
                       dy[:, 0])
    np.testing.assert_allclose(one_d(tf.constant(dy[:, 0])).numpy(), want1, rtol=1e-10)


def test_backprop_size_mismatch_is_tf_error():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Conv2DCustomBackpropInput: Size of out_backprop doesn't match "
                             r"computed: actual = 5, computed = 6 spatial_dim: 1 input: 12 "
                             r"filter: 3 output: 5 stride: 2 dilation: 1"):
        tf.nn.conv2d_transpose(tf.ones([2, 5, 5, 3]), tf.ones([3, 3, 4, 3]), [2, 12, 12, 4], 2)


def test_gradient_ops_save_in_tf_format_and_load(tmp_path):
    """The gradient ops carry TF's signatures into saved graphs (a transposed convolution is
    one: Conv2DBackpropInput)."""
    class Net(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.linspace(-1, 1, 72, dtype=np.float32).reshape(3, 3, 2, 4))

        @tf.function(input_signature=[tf.TensorSpec([None, 4, 4, 4])])
        def __call__(self, x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                up = tf.nn.conv2d_transpose(x, self.w, tf.stack([tf.shape(x)[0], 8, 8, 2]), 2,
                                            "SAME")
                y = tf.nn.max_pool2d(up, 2, 2, "SAME")
            return y, tape.gradient(y, x)

    net = Net()
    tf.saved_model.save(net, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    x = tf.constant(np.linspace(-1, 1, 96, dtype=np.float32).reshape(3, 4, 4, 2).repeat(2, -1))
    for got, want in zip(loaded(x), net(x)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


_X4, _X5 = tf.ones([2, 4, 6, 6]), tf.ones([1, 2, 4, 4, 4])
_P4 = dict(ksize=[1, 1, 2, 2], strides=[1, 1, 2, 2], padding="SAME", data_format="NCHW")
_P5 = dict(ksize=[1, 1, 2, 2, 2], strides=[1, 1, 2, 2, 2], padding="SAME", data_format="NCDHW")
_C4 = dict(strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW")
_C5 = dict(strides=[1] * 5, padding="SAME", data_format="NCDHW")
_U, _I = tf.errors.UnimplementedError, tf.errors.InvalidArgumentError
CHANNELS_FIRST = [  # (op, inputs, attrs, TF 2.21's CPU error): graphs build, running fails
    ("Conv2D", (_X4, tf.ones([3, 3, 4, 5])), _C4, _U, "The Conv2D op currently only supports "
     "the NHWC tensor format on the CPU. The op was given the format: NCHW"),
    ("Conv3D", (_X5, tf.ones([2, 2, 2, 2, 3])), _C5, _I,
     "CPU implementation of Conv3D currently only supports the NHWC tensor format."),
    ("DepthwiseConv2dNative", (_X4, tf.ones([3, 3, 4, 2])), _C4, _U,
     "Depthwise convolution on CPU is only supported for NHWC format"),
    ("MaxPool", (_X4,), _P4, _I, "Default MaxPoolingOp only supports NHWC on device type CPU"),
    ("AvgPool", (_X4,), _P4, _I, "Default AvgPoolingOp only supports NHWC on device type CPU"),
    ("MaxPool3D", (_X5,), _P5, _I, "Default Pooling3DOp only supports NDHWC on device type CPU"),
    ("AvgPool3D", (_X5,), _P5, _I, "Default Pooling3DOp only supports NDHWC on device type CPU"),
    ("Conv2DBackpropInput", ([2, 4, 6, 6], tf.ones([3, 3, 4, 5]), tf.ones([2, 5, 6, 6])), _C4,
     _I, "Conv2DCustomBackpropInputOp only supports NHWC."),
    ("Conv2DBackpropFilter", (_X4, [3, 3, 4, 5], tf.ones([2, 5, 6, 6])), _C4, _I,
     "Conv2DCustomBackpropFilterOp only supports NHWC."),
    ("Conv3DBackpropInputV2", ([1, 2, 4, 4, 4], tf.ones([2, 2, 2, 2, 3]),
                               tf.ones([1, 3, 4, 4, 4])), _C5, _I,
     "Conv3DBackpropInputOpV2 only supports NDHWC on the CPU."),
    ("Conv3DBackpropFilterV2", (_X5, [2, 2, 2, 2, 3], tf.ones([1, 3, 4, 4, 4])), _C5, _I,
     "Conv3DBackpropFilterOpV2 only supports NDHWC on the CPU."),
    ("DepthwiseConv2dNativeBackpropInput", ([2, 4, 6, 6], tf.ones([3, 3, 4, 2]),
                                            tf.ones([2, 8, 6, 6])), _C4, _U,
     "Depthwise convolution on CPU is only supported for NHWC format"),
    ("DepthwiseConv2dNativeBackpropFilter", (_X4, [3, 3, 4, 2], tf.ones([2, 8, 6, 6])), _C4, _U,
     "Depthwise convolution on CPU is only supported for NHWC format"),
    ("MaxPoolGrad", (_X4, tf.ones([2, 4, 3, 3]), tf.ones([2, 4, 3, 3])), _P4, _I,
     "Default MaxPoolingGradOp only supports NHWC on device type CPU"),
    ("MaxPoolGradGrad", (_X4, tf.ones([2, 4, 3, 3]), _X4), _P4, _I,
     "Default MaxPoolingGradGradOp only supports NHWC on device type CPU"),
    ("AvgPoolGrad", ([2, 4, 6, 6], tf.ones([2, 4, 3, 3])), _P4, _I,
     "Default AvgPoolingGradOp only supports NHWC on device type CPU"),
    ("MaxPool3DGrad", (_X5, tf.ones([1, 2, 2, 2, 2]), tf.ones([1, 2, 2, 2, 2])), _P5, _I,
     "Default MaxPooling3dGradOp only supports NDHWC on device type CPU"),
    ("MaxPool3DGradGrad", (_X5, tf.ones([1, 2, 2, 2, 2]), _X5), _P5, _I,
     "Default MaxPooling3dGradGradOp only supportsNDHWC on CPU device type"),
    ("AvgPool3DGrad", ([1, 2, 4, 4, 4], tf.ones([1, 2, 2, 2, 2])), _P5, _I,
     "Default AvgPooling3dGradOp only supports NDHWC on device type CPU"),
]


@pytest.mark.parametrize("op,inputs,attrs,error,message", CHANNELS_FIRST,
                         ids=[c[0] for c in CHANNELS_FIRST])
def test_channels_first_fails_as_on_tf_cpu(op, inputs, attrs, error, message):
    inputs = [tf.constant(x) if isinstance(x, list) else x for x in inputs]
    with pytest.raises(error) as info:
        bind(registry.get(op), *inputs, **attrs)
    assert str(info.value) == (  # TF 2.21's eager kernel error: its one-op function first
        f"{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} "
        f"{message} [Op:{op}] name: ")  # and the name tail of TF's generated op wrapper
    f = tf.function(lambda *xs: bind(registry.get(op), *xs, **attrs))
    concrete = f.get_concrete_function(*[tf.TensorSpec(x.shape, x.dtype) for x in inputs])
    assert concrete.outputs  # the graph builds
    with pytest.raises(error, match=re.escape(message)):
        f(*inputs)
