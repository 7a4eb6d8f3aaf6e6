"""Every differentiable op's gradient against central finite differences (float64), eagerly and
inside tf.function with static and with unknown dims, to first and (for smooth ops) second
order; plus the registry walk that every op has a rule or is marked NON_DIFFERENTIABLE."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry
from tensortrace.context import bind

from .gradcheck import GradCase, check, distinct, op_types, rand

I32 = np.int32
P = dict(low=0.3, high=2.0)  # a positive domain
U = dict(low=-0.8, high=0.8)  # inside (-1, 1)


def C(fn, *args, **kw):
    return GradCase(fn, args, **kw)


def _complex(a, b):
    return tf.complex(a, b)


def _re(fn):
    """A real function of two real inputs through a complex op: real and imag parts of fn(z)."""
    return lambda a, b: tf.stack([tf.math.real(fn(_complex(a, b))),
                                  tf.math.imag(fn(_complex(a, b)))])


CASES = [
    # --- elementwise, one input ---------------------------------------------------------------
    C(tf.negative, rand(2, 3), id="neg"),
    C(tf.abs, distinct(2, 3), order=1, id="abs"),
    C(tf.square, rand(2, 3), id="square"),
    C(tf.sqrt, rand(2, 3, **P), id="sqrt"),
    C(tf.math.rsqrt, rand(2, 3, **P), id="rsqrt"),
    C(tf.math.reciprocal, rand(2, 3, **P), id="reciprocal"),
    C(tf.exp, rand(2, 3), id="exp"),
    C(tf.math.expm1, rand(2, 3), id="expm1"),
    C(tf.math.log, rand(2, 3, **P), id="log"),
    C(tf.math.log1p, rand(2, 3, **P), id="log1p"),
    C(tf.sin, rand(2, 3), id="sin"),
    C(tf.cos, rand(2, 3), id="cos"),
    C(tf.tan, rand(2, 3, **U), id="tan"),
    C(tf.asin, rand(2, 3, **U), id="asin"),
    C(tf.acos, rand(2, 3, **U), id="acos"),
    C(tf.atan, rand(2, 3), id="atan"),
    C(tf.sinh, rand(2, 3), id="sinh"),
    C(tf.cosh, rand(2, 3), id="cosh"),
    C(tf.tanh, rand(2, 3), id="tanh"),
    C(tf.asinh, rand(2, 3), id="asinh"),
    C(tf.acosh, rand(2, 3, low=1.2, high=3.0), id="acosh"),
    C(tf.atanh, rand(2, 3, **U), id="atanh"),
    C(tf.sigmoid, rand(2, 3), id="sigmoid"),
    C(tf.math.erf, rand(2, 3), id="erf"),
    C(tf.math.erfc, rand(2, 3), id="erfc"),
    C(tf.math.softplus, rand(2, 3), id="softplus"),
    C(tf.math.softsign, distinct(2, 3), order=1, id="softsign"),
    C(lambda x: tf.sign(x) * x, distinct(4), order=1, id="sign"),
    C(lambda x: tf.math.imag(tf.cast(x, tf.complex128) * tf.cast(x, tf.complex128)
                             * tf.constant(1 + 2j)), rand(3), id="cast"),
    C(lambda x: tf.math.log_sigmoid(x), rand(3), id="log_sigmoid"),
    # --- complex parts, through real inputs ---------------------------------------------------
    C(_re(lambda z: z), rand(3), rand(3), id="complex"),
    C(_re(lambda z: z * z), rand(3), rand(3), id="mul_complex"),
    C(_re(tf.exp), rand(3), rand(3), id="exp_complex"),
    C(_re(tf.math.conj), rand(3), rand(3), id="conj"),
    C(_re(lambda z: tf.math.conj(z) * z / (z + 3)), rand(3), rand(3), id="div_complex"),
    C(lambda a, b: tf.abs(_complex(a, b)), rand(3, **P), rand(3, **P), id="complex_abs"),
    C(lambda a, b: tf.math.angle(_complex(a, b)), rand(3, **P), rand(3), id="angle"),
    C(_re(lambda z: tf.sqrt(z)), rand(3, **P), rand(3), id="sqrt_complex"),
    C(_re(lambda z: tf.transpose(z, conjugate=True)), rand(2, 3), rand(2, 3),
      id="conjugate_transpose"),
    # --- elementwise, two inputs (with broadcasting) ------------------------------------------
    C(tf.add, rand(3, 1), rand(4), id="add"),
    C(tf.subtract, rand(2, 3), rand(3), id="sub"),
    C(tf.multiply, rand(3, 1), rand(1, 4), id="mul"),
    C(tf.divide, rand(2, 3), rand(2, 1, **P), id="realdiv"),
    C(tf.math.divide_no_nan, rand(2, 3), rand(3, **P), id="div_no_nan"),
    C(tf.math.multiply_no_nan, rand(2, 3), rand(3, **P), id="mul_no_nan"),
    C(tf.math.floormod, rand(2, 3, low=0.1, high=5.0), rand(3, low=1.1, high=1.9), order=1,
      id="floormod"),
    C(tf.pow, rand(2, 3, **P), rand(3), id="pow"),
    C(tf.maximum, distinct(2, 3), distinct(3), order=1, id="maximum"),
    C(tf.minimum, distinct(2, 3), distinct(3), order=1, id="minimum"),
    C(tf.math.squared_difference, rand(2, 3), rand(3), id="squared_difference"),
    C(tf.math.xlogy, rand(2, 3), rand(3, **P), id="xlogy"),
    C(tf.math.xdivy, rand(2, 3), rand(3, **P), id="xdivy"),
    C(tf.math.xlog1py, rand(2, 3), rand(3, **P), id="xlog1py"),
    C(tf.math.atan2, rand(2, 3), rand(3, **P), id="atan2"),
    C(lambda a, b: tf.add_n([a, b, a]), rand(2, 3), rand(2, 3), id="add_n"),
    C(lambda a, b: tf.where(np.array([[True], [False]]), a, b), rand(2, 3), rand(3),
      id="select"),
    C(lambda x: tf.clip_by_value(x, -0.5, 0.5), distinct(2, 3), order=1, id="clip_by_value"),
    C(lambda x, lo, hi: tf.clip_by_value(x, lo, hi), distinct(2, 3), np.array(-0.3),
      np.array(0.4), order=1, id="clip_by_value_bounds"),
    C(lambda x, lo, hi: bind(registry.get("ClipByValue"), x, lo, hi), distinct(2, 3),
      np.array(-0.3), rand(2, 3, low=0.1, high=1.0), order=1, id="clip_op"),
    # --- reductions and scans -----------------------------------------------------------------
    C(tf.reduce_sum, rand(2, 3), id="sum_all"),
    C(lambda x: tf.reduce_sum(x, 1, keepdims=True), rand(2, 3), id="sum_keepdims"),
    C(lambda x: tf.reduce_sum(x, [0, 2]), rand(2, 3, 2), id="sum_axes"),
    C(lambda x: tf.reduce_mean(x, -1), rand(2, 3), id="mean"),
    C(lambda x: tf.reduce_mean(x, 0, keepdims=True), rand(2, 3), id="mean_keepdims"),
    C(lambda x: tf.reduce_max(x, 1), distinct(2, 3), order=1, id="max"),
    C(lambda x: tf.reduce_min(x), distinct(2, 3), order=1, id="min"),
    C(lambda x: tf.reduce_prod(x, 1), rand(2, 3), id="prod"),
    C(lambda x: tf.reduce_prod(x, [0, 2], keepdims=True), rand(2, 2, 3), id="prod_axes"),
    C(tf.math.reduce_euclidean_norm, rand(2, 3), id="euclidean_norm"),
    C(lambda x: tf.math.reduce_euclidean_norm(x, 0), rand(2, 3), id="euclidean_norm_axis"),
    C(lambda x: tf.math.cumsum(x, 1), rand(2, 3), id="cumsum"),
    C(lambda x: tf.math.cumsum(x, 0, exclusive=True, reverse=True), rand(3, 2),
      id="cumsum_exclusive_reverse"),
    C(lambda x: tf.math.cumprod(x, 1), rand(2, 3), id="cumprod"),
    C(lambda x: tf.math.cumprod(x, 0, exclusive=True, reverse=True), rand(3, 2),
      id="cumprod_exclusive_reverse"),
    C(lambda x: tf.reduce_logsumexp(x, 1), rand(2, 3), id="logsumexp"),
    C(lambda x: tf.math.cumulative_logsumexp(x, 1), rand(2, 3), id="cumulative_logsumexp"),
    C(lambda x: tf.reverse_sequence(x, [1, 3, 2], seq_axis=1, batch_axis=0), rand(3, 4),
      id="reverse_sequence"),
    C(lambda x: tf.math.cumulative_logsumexp(x, 0, reverse=True), rand(3, 2),
      id="cumulative_logsumexp_reverse"),
    C(tf.math.lgamma, rand(2, 3, low=0.5, high=3.0), order=1, id="lgamma"),
    C(tf.math.digamma, rand(2, 3, low=0.5, high=3.0), id="digamma"),
    C(lambda x: tf.math.polygamma(tf.constant(1.0, tf.float64), x), rand(3, low=0.5, high=3.0),
      order=1, id="polygamma"),
    C(lambda q: tf.math.zeta(tf.constant(3.0, tf.float64), q), rand(3, low=1.0, high=3.0),
      order=1, id="zeta"),
    C(lambda x: tf.math.nextafter(x, tf.constant(0.0, tf.float64)), rand(3), order=1,
      id="nextafter"),
    C(lambda x: tf.math.reduce_std(x, 0), rand(3, 2), id="reduce_std"),
    # --- shapes and arrays --------------------------------------------------------------------
    C(lambda x: tf.reshape(x, [3, 2]), rand(2, 3), id="reshape"),
    C(lambda x: tf.reshape(x, [-1]), rand(2, 3), id="reshape_flat"),
    C(lambda x: tf.transpose(x, [1, 2, 0]), rand(2, 3, 2), id="transpose"),
    C(lambda x: tf.expand_dims(x, 1), rand(2, 3), id="expand_dims"),
    C(lambda x: tf.squeeze(x, [1]), rand(2, 1, 3), id="squeeze"),
    C(lambda x: tf.squeeze(x), rand(2, 1, 3), dynamic=False, id="squeeze_all"),
    C(lambda a, b: tf.concat([a, b, a], 1), rand(2, 3), rand(2, 1), id="concat"),
    C(lambda a, b: tf.stack([a, b], 1), rand(2, 3), rand(2, 3), id="stack"),
    C(lambda x: tf.unstack(x, axis=1)[1] * 2 + tf.unstack(x, axis=1)[0], rand(2, 3),
      dynamic=False, id="unstack"),
    C(lambda x: tf.split(x, 3, 1)[2] - tf.split(x, 3, 1)[0], rand(2, 3), dynamic=False,
      id="split"),
    C(lambda x: tf.split(x, [1, 3], 1)[1], rand(2, 4), dynamic=False, id="split_sizes"),
    C(lambda x: tf.tile(x, [2, 3]), rand(2, 2), id="tile"),
    C(lambda x: tf.pad(x, [[1, 0], [2, 1]]), rand(2, 3), id="pad"),
    C(lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0), rand(2, 3), id="pad_v2"),
    C(lambda x: tf.pad(x, [[1, 2], [2, 1]], "REFLECT"), rand(4, 3), id="mirror_pad_reflect"),
    C(lambda x: tf.pad(x, [[2, 1], [0, 3]], "SYMMETRIC"), rand(2, 3), id="mirror_pad_symmetric"),
    C(lambda v: tf.fill([2, 3], v), rand(), id="fill"),
    C(tf.identity, rand(2, 3), id="identity"),
    C(lambda x: tf.raw_ops.PlaceholderWithDefault(input=x * 1.0, shape=[None, 3]), rand(2, 3),
      id="placeholder_with_default"),
    C(lambda x: tf.broadcast_to(x, [2, 3, 4]), rand(3, 1), id="broadcast_to"),
    C(lambda x: tf.reverse(x, [0, 1]), rand(2, 3), id="reverse"),
    C(lambda a, b: tf.linspace(a, b, 4), rand(2), rand(2), id="linspace"),
    C(lambda a, b: tf.linspace(a, b, 3, axis=-1), rand(2, 1), rand(3), id="linspace_axis"),
    # --- indexing -----------------------------------------------------------------------------
    C(lambda x: x[1, ::-2], rand(3, 5), id="strided_slice"),
    C(lambda x: x[..., None, 1:3], rand(2, 4), id="strided_slice_newaxis"),
    C(lambda x: tf.slice(x, [1, 0], [1, 2]), rand(2, 3), id="slice"),
    C(lambda x: tf.gather(x, np.array([2, 0, 2], I32)), rand(3, 2), id="gather"),
    C(lambda x: tf.gather(x, np.array([[1, 0], [1, 1]], I32), axis=1), rand(2, 3, 2),
      id="gather_axis"),
    C(lambda x: tf.gather(x, np.array([[1, 0, 1], [2, 2, 0]], I32), axis=1, batch_dims=1),
      rand(2, 3, 2), id="gather_batch_dims"),
    C(lambda x: tf.gather_nd(x, np.array([[1, 0], [0, 2], [1, 0]], I32)), rand(2, 3),
      id="gather_nd"),
    C(lambda x: tf.gather_nd(x, np.array([[[1], [0]], [[2], [2]]], I32), batch_dims=1),
      rand(2, 3, 2), id="gather_nd_batch_dims"),
    C(lambda u: tf.scatter_nd(np.array([[1], [0], [1]], I32), u, [3, 2]), rand(3, 2),
      id="scatter_nd"),
    C(lambda t, u: tf.tensor_scatter_nd_update(t, np.array([[0], [2]], I32), u), rand(3, 2),
      rand(2, 2), id="tensor_scatter_update"),
    C(lambda t, u: tf.tensor_scatter_nd_add(t, np.array([[0], [0]], I32), u), rand(3, 2),
      rand(2, 2), id="tensor_scatter_add"),
    C(lambda t, u: tf.tensor_scatter_nd_sub(t, np.array([[1], [0]], I32), u), rand(3, 2),
      rand(2, 2), id="tensor_scatter_sub"),
    C(lambda t, u: tf.tensor_scatter_nd_max(t, np.array([[1], [0]], I32), u), distinct(3, 2),
      distinct(2, 2), order=1, id="tensor_scatter_max"),
    C(lambda t, u: tf.tensor_scatter_nd_min(t, np.array([[1], [0]], I32), u), distinct(3, 2),
      distinct(2, 2), order=1, id="tensor_scatter_min"),
    C(lambda x: tf.math.top_k(x, 2).values, distinct(2, 4), order=1, id="top_k"),
    C(lambda x: tf.sort(x, axis=0), distinct(3, 2), order=1, id="sort"),
    C(lambda x: tf.roll(x, 1, 0), rand(3, 2), id="roll"),
    C(lambda a, b: tf.einsum("ij,jk->ik", a, b), rand(2, 3), rand(3, 2), id="einsum_matmul"),
    C(lambda a, b: tf.einsum("bij,bjk->bik", a, b), rand(2, 2, 3), rand(2, 3, 2),
      id="einsum_batch"),
    C(lambda a, b: tf.einsum("ij,k->ik", a, b), rand(2, 3), rand(2), id="einsum_summed_label"),
    C(lambda a, b: tf.einsum("...ij,jk->...ik", a, b), rand(2, 2, 3), rand(3, 2),
      id="einsum_ellipsis"),
    C(lambda x: tf.math.segment_sum(x, np.array([0, 0, 2], I32)), rand(3, 2), id="segment_sum"),
    C(lambda x: tf.math.segment_mean(x, np.array([0, 0, 1], I32)), rand(3, 2),
      id="segment_mean"),
    C(lambda x: tf.math.segment_max(x, np.array([0, 0, 1], I32)), distinct(3, 2), order=1,
      id="segment_max"),
    C(lambda x: tf.math.segment_min(x, np.array([0, 1, 1], I32)), distinct(3, 2), order=1,
      id="segment_min"),
    C(lambda x: tf.math.segment_prod(x, np.array([0, 0, 1], I32)), rand(3, 2), id="segment_prod"),
    C(lambda x: tf.math.unsorted_segment_sum(x, np.array([1, -1, 1], I32), 3), rand(3, 2),
      id="unsorted_segment_sum"),
    C(lambda x: tf.math.unsorted_segment_max(x, np.array([1, 0, 1], I32), 2), distinct(3, 2),
      order=1, id="unsorted_segment_max"),
    C(lambda x: tf.math.unsorted_segment_min(x, np.array([1, 0, -1], I32), 2), distinct(3, 2),
      order=1, id="unsorted_segment_min"),
    C(lambda x: tf.math.unsorted_segment_prod(x, np.array([1, 0, 1], I32), 2), rand(3, 2),
      id="unsorted_segment_prod"),
    C(lambda x: tf.boolean_mask(x, np.array([True, False, True])), rand(3, 2), id="boolean_mask"),
    # tf.py_function: the gradient of its Python body (differentiable once, as TF documents)
    C(lambda x, y: tf.py_function(lambda a, b: tf.sin(a) * b, [x, y], tf.float64),
      rand(3, 2), rand(3, 2), order=1, id="py_function"),
]


# TF defines these gradients as None (Floor, Round ...: "no gradient", not an error)
NONE_GRADS = [
    C(tf.floor, rand(3), id="floor"),
    C(tf.math.ceil, rand(3), id="ceil"),
    C(tf.round, rand(3), id="round"),
    C(tf.math.rint, rand(3), id="rint"),
    C(tf.math.floordiv, rand(3), rand(3, **P), id="floordiv"),
    C(tf.truncatediv, rand(3), rand(3, **P), id="truncatediv"),
    C(lambda x: tf.cast(tf.cast(x, tf.int32), tf.float64), rand(3), id="cast_int"),
    C(lambda x: tf.range(x, 3.0, 1.0), rand(), id="range"),
    C(lambda x: tf.one_hot([0, 1], 2, on_value=x), rand(), id="one_hot"),
    C(lambda x: tf.zeros_like(x) + tf.ones_like(x), rand(2), id="zeros_ones_like"),
    C(lambda x: tf.stop_gradient(x), rand(2), id="stop_gradient"),
]


@pytest.mark.parametrize("case", NONE_GRADS, ids=str)
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_gradient_is_none(case, mode):
    from .gradcheck import first_order

    analytic, _ = first_order(case, mode)
    assert all(g is None for g in analytic)


def test_pad_v2_constant_gets_no_gradient():
    x, c = tf.constant([1.0, 2.0]), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch([x, c])
        y = tf.pad(x, [[1, 1]], constant_values=c)
    gx, gc = tape.gradient(y, [x, c])
    assert gx.numpy().tolist() == [1.0, 1.0] and gc is None


def _modes():
    for case in CASES:
        yield pytest.param(case, "eager", id=f"{case}-eager")
        yield pytest.param(case, "graph", id=f"{case}-graph")
        if case.dynamic:
            yield pytest.param(case, "dynamic", id=f"{case}-dynamic")


@pytest.mark.parametrize("case,mode", list(_modes()))
def test_first_order(case, mode):
    check(case, mode, order=1)


@pytest.mark.parametrize("case,mode", [(c, m) for c, m in
                                       [(p.values[0], p.values[1]) for p in _modes()]
                                       if c.order == 2 and m != "graph"],
                         ids=lambda v: str(v) if isinstance(v, GradCase) else v)
def test_second_order(case, mode):
    check(case, mode, order=2)


# --- coverage -------------------------------------------------------------------------------------
def _rules():
    return {name for name, op in registry.all_ops().items()
            if callable(op.grad) and op.grad is not registry.NON_DIFFERENTIABLE}


# ops covered elsewhere: variable reads (test_tape), the gradient-only ops (test_grad_ops), dropout
# (random: test_nn_grads), ops whose rule raises as TF's missing gradient does, and the string Add
COVERED_ELSEWHERE = {"ReadVariableOp", "SumToShape", "StridedSliceGrad", "TruncateMod",
                     "Unique", "UniqueWithCounts", "Add", "Dropout",
                     # jit_compile calls: tests/xla/test_jit_call.py, finite differences
                     "PartitionedCall", "StatefulPartitionedCall",
                     # tests/utility/test_ops.py checks these two against finite differences;
                     # the other two raise LookupError, as in TF
                     "EnsureShape", "CheckNumerics", "Bitcast", "DenseBincount",
                     # float32 only (no float64 for finite differences): its gradients, to
                     # second order, are TF's values in tests/core/test_kerascore_tf.py
                     "FusedBatchNormV3",
                     # random samples: tests/ops/test_keras_ops.py checks the alpha gradient
                     # against TF's recorded values and RandomGammaGrad against finite
                     # differences of the gamma CDF (no finite differences through a sampler)
                     "StatelessRandomGammaV2", "StatelessRandomGammaV3", "RandomGamma",
                     # rules raising TF's LookupError (no gradient in TF, or CSR gradients not
                     # built yet): tests/ops/test_keras_ops.py checks the float ones raise
                     "RandomGammaGrad", "UniqueV2", "UniqueWithCountsV2", "Bucketize",
                     "SparseCross", "SparseCrossV2", "SparseTensorToCSRSparseMatrix",
                     "CSRSparseMatrixToSparseTensor", "SparseMatrixSparseMatMul",
                     # tests/ops/test_image.py checks the first five against finite differences;
                     # TF gives the others no gradient (their rules raise LookupError)
                     "ResizeBilinear", "ResizeBicubic", "ResizeNearestNeighbor",
                     "ExtractImagePatches", "RGBToHSV", "AdjustContrastv2", "AdjustHue",
                     "AdjustSaturation", "ResizeNearestNeighborGrad",
                     # tests/ops/test_image_resize.py / test_image_boxes.py: TF's gradient values
                     # and finite differences; TF gives the others no gradient (LookupError)
                     "ScaleAndTranslate", "CropAndResize", "ResizeArea", "ScaleAndTranslateGrad",
                     "CropAndResizeGradImage", "CropAndResizeGradBoxes", "NonMaxSuppressionV3",
                     "NonMaxSuppressionV4", "NonMaxSuppressionV5", "DrawBoundingBoxesV2",
                     "StatelessSampleDistortedBoundingBox", "DecodePng", "DecodeJpeg",
                     "DecodeAndCropJpeg", "DecodeGif", "DecodeBmp", "DecodeImage",
                     "ExtractJpegShape", "EncodeJpeg", "EncodeJpegVariableQuality",
                     "ImageProjectiveTransformV3", "ImageProjectiveTransformV2",
                     "CombinedNonMaxSuppression",
                     # tests/sparse/test_gradients.py: finite differences, or TF's raising rule
                     "SparseReorder", "SparseAdd", "SparseTensorDenseAdd", "SparseReduceSum",
                     "SparseSlice", "SparseTensorDenseMatMul", "SparseDenseCwiseMul",
                     "SparseDenseCwiseDiv", "SparseDenseCwiseAdd", "SparseSoftmax",
                     "SparseSparseMaximum", "SparseSparseMinimum", "SparseFillEmptyRows",
                     "SparseToDense", "SparseReduceMax", "SparseReduceMaxSparse",
                     "SparseReduceSumSparse", "SparseReshape", "SparseSplit",
                     *(f"SparseSegment{k}{s}" for k in ("Sum", "Mean", "SqrtN")
                                        for s in ("", "WithNumSegments")),
                     # tests/ops/test_signal.py: finite differences
                     *(f"{k}FFT{r}" for k in ("", "I", "R", "IR") for r in ("", "2D", "3D")),
                     "Erfinv", "Ndtri", "BesselI0e", "BesselI1e", "Lu", "Eig",
                     # tests/ops/test_kerasnp_edges.py: finite differences and TF's records
                     "BesselI0", "BesselI1"}


def test_every_op_with_a_rule_is_checked_against_finite_differences():
    from .test_control_flow_grads import CASES as CF_CASES
    from .test_nn_grads import CASES as NN_CASES

    seen = set().union(*(op_types(c) for c in CASES + NONE_GRADS + NN_CASES + CF_CASES))
    assert _rules() - seen - COVERED_ELSEWHERE == set()


def test_every_registered_op_has_a_rule_or_is_non_differentiable():
    missing = sorted(name for name, op in registry.all_ops().items() if op.grad is None)
    assert missing == []
