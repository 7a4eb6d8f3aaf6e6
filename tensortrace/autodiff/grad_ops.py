"""Ops that gradients need and the op families do not provide: StopGradient, Complex (for the
gradients of Real/Imag/Angle/ComplexAbs), StridedSliceGrad, and SumToShape (the undoing of
broadcasting when static shapes cannot decide it)."""

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..ops._base import broadcast_shape, check_dtypes, unbroadcast_axes
from ..registry import DtypeCheck
from ..ops.array import check_index, shape_values
from ..ops.indexing import strided_index
from ..registry import NON_DIFFERENTIABLE, define_op
from ..shapes import TensorShape
from ..tensor import TensorSpec


# --- StopGradient -------------------------------------------------------------------------------
@define_op("StopGradient", expr="{0}")
class StopGradient:
    """The input, unchanged; tapes see no path through it."""

    def infer(input):
        return TensorSpec(input.shape, input.dtype)

    def kernel(input):
        return input

    grad = NON_DIFFERENTIABLE


@tf_export("stop_gradient")
def stop_gradient(input, name=None):
    """``input``, treated as a constant by gradients."""
    return bind(StopGradient, convert_to_tensor(input))


# --- Complex ------------------------------------------------------------------------------------
_COMPLEX_OF = {D.float32: D.complex64, D.float64: D.complex128}


@define_op("Complex")
class Complex:
    """``real + 1j * imag`` elementwise, with broadcasting."""

    def infer(real, imag, Tout):
        check_dtypes("Complex", (real, imag), (D.float32, D.float64), ("real", "imag"))
        return TensorSpec(broadcast_shape(real.shape, imag.shape, "Complex"), Tout)

    def kernel(real, imag, Tout):
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), Tout._np)
        out.real = real
        out.imag = imag
        return out[()] if out.ndim == 0 else out

    check = DtypeCheck("Complex", (D.float32, D.float64), same=2)

    def grad(op, dz):
        from ..ops.math import imag, real
        from .grad_util import unbroadcast

        x, y = op.inputs
        return unbroadcast(real(dz), x, y), unbroadcast(imag(dz), y, x)


@tf_export("dtypes.complex", "complex")
def complex(real, imag, name=None):
    """The complex tensor ``real + 1j * imag`` (float32 -> complex64, float64 -> complex128).

    Raises:
        TypeError: unless both parts are float32 or both are float64.
    """
    real, imag = convert_to_tensor(real), convert_to_tensor(imag)
    tout = _COMPLEX_OF.get(real.dtype)
    if tout is None or imag.dtype != real.dtype:
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{real.dtype.name} {imag.dtype.name}. They must be consistent, and one "
                        f"of [tf.float32, tf.float64]")
    return bind(Complex, real, imag, Tout=tout)


# --- SumToShape ---------------------------------------------------------------------------------
@define_op("SumToShape")
class SumToShape:
    """``x`` summed over the axes along which ``shape`` was broadcast to give x's shape.

    TF spells this BroadcastGradientArgs + Sum(reduction_indices) + Reshape; our Sum takes its
    axes as an attr, so the three are one op here. Gradients emit it only when static shapes
    cannot tell which axes were broadcast.
    """

    def infer(x, shape):
        check_index("SumToShape", shape, "shape")
        return TensorSpec(TensorShape(shape_values(shape)), x.dtype)

    def kernel(x, shape):
        target = tuple(shape.tolist())
        if np.shape(x) == target:
            return x
        axes = unbroadcast_axes(np.shape(x), target)
        return np.add.reduce(x, axis=axes, dtype=x.dtype).reshape(target)

    def grad(op, dy):
        from ..ops.array import broadcast_to, shape

        return broadcast_to(dy, shape(op.inputs[0])), None


def sum_to_shape(x, shape):
    """``x`` summed back to ``shape`` (a 1-D int tensor), undoing broadcasting."""
    return bind(SumToShape, x, shape)


# --- StridedSliceGrad ---------------------------------------------------------------------------
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


@define_op("StridedSliceGrad")
class StridedSliceGrad:
    """Zeros of ``shape`` with ``dy`` written where StridedSlice(begin, end, strides) read."""

    def infer(shape, begin, end, strides, dy, **masks):
        return TensorSpec(TensorShape(shape_values(shape)), dy.dtype)

    def kernel(shape, begin, end, strides, dy, **masks):
        shape = tuple(shape.tolist())
        out = np.zeros(shape, dy.dtype)
        index = strided_index(shape, begin.tolist(), end.tolist(), strides.tolist(), **masks)
        view = out[index]
        view_shape = np.shape(view)
        out[index] = np.reshape(dy, view_shape)
        return out

    def grad(op, ddx):
        from ..ops.indexing import strided_slice

        _, begin, end, strides, _ = op.inputs
        masks = {k: op.attrs[k] for k in _MASKS}
        return None, None, None, None, strided_slice(ddx, begin, end, strides, **masks)


def strided_slice_grad(shape, begin, end, strides, dy, **masks):
    return bind(StridedSliceGrad, shape, begin, end, strides, dy, **masks)
