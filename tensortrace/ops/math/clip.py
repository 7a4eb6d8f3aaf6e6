"""Clamping (``ClipByValue``, ``tf.clip_by_value``, ``tf.saturate_cast``) and ``AddN``, the sum of
a list of same-shaped tensors."""

import builtins

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import merge_error_text, shape_text
from ...numerics import quiet
from ...registry import DtypeCheck, define_op
from ...tensor import Tensor, TensorSpec
from .._base import check_dtypes, dtypes_named
from .arithmetic import maximum, minimum
from .casting import cast
from .complex_numbers import real
from .operands import as_tensor

_ADD_N = dtypes_named("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 uint16 "
                      "complex128 float16 uint32 uint64")  # also ClipByValue's
_CLIP_KERNELS = dtypes_named("float32 float64 int32 uint8 int16 int8 complex64 int64 bfloat16 "
                             "uint16 complex128 float16")


# --- clamping ------------------------------------------------------------------------------------
@define_op("ClipByValue")
class ClipByValue:
    """``t`` clamped to [clip_value_min, clip_value_max]; each bound is a scalar or ``t``'s
    shape."""

    def infer(t, clip_value_min, clip_value_max):
        check_dtypes("ClipByValue", (t, clip_value_min, clip_value_max), _ADD_N,
                     ("t", "clip_value_min", "clip_value_max"))
        return TensorSpec(t.shape, t.dtype)

    @quiet
    def kernel(t, clip_value_min, clip_value_max):
        shape = np.shape(t)
        if any(np.ndim(v) and np.shape(v) != shape for v in (clip_value_min, clip_value_max)):
            raise invalid_argument(
                "clip_value_min and clip_value_max must be either of the same shape as input, or "
                f"a scalar. input shape: {shape_text(shape)}clip_value_min shape: "
                f"{shape_text(np.shape(clip_value_min))}clip_value_max shape: "
                f"{shape_text(np.shape(clip_value_max))}")
        return np.maximum(np.minimum(t, clip_value_max), clip_value_min)

    check = DtypeCheck("ClipByValue", _ADD_N, 3, kernels=_CLIP_KERNELS)


@tf_export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp ``t`` to [clip_value_min, clip_value_max] (Minimum, then Maximum); the bounds may
    broadcast against ``t`` but not grow it.

    Raises:
        ValueError: if broadcasting the bounds would change ``t``'s shape.
    """
    values = as_tensor(t)
    t_min = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(t_min.shape)
    t_max = maximum(t_min, clip_value_min)
    values.shape.assert_is_compatible_with(t_max.shape)
    return t_max


def _limits(in_dtype, out_dtype):
    """TF's clamp bounds for ``saturate_cast``: the narrower range, nudged inside ``out_dtype``
    where the bound itself is not representable in ``in_dtype``."""
    for d in (in_dtype, out_dtype):
        if not (d.is_integer or d.is_floating):
            raise TypeError(f"Cannot find minimum value of {d} with type {d}.")
    np_dtype = in_dtype.as_numpy_dtype
    try:
        promoted = np.promote_types(np_dtype, out_dtype.as_numpy_dtype)
    except TypeError:  # bfloat16
        promoted = float
    with np.errstate(all="ignore"):
        low = np_dtype(np.maximum(in_dtype.min, out_dtype.min))
        if np.array([low, out_dtype.min], dtype=promoted)[0] < out_dtype.min:
            low = np.nextafter(low, np_dtype(0), dtype=np_dtype)
        high = np_dtype(np.minimum(float(in_dtype.max), float(out_dtype.max)))
        pair = np.array([high, out_dtype.max], dtype=promoted)
        if pair[0] > pair[1]:
            high = np.nextafter(high, np_dtype(0), dtype=np_dtype)
    return low, high


@tf_export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Cast with clamping to ``dtype``'s range first (ClipByValue, then Cast)."""
    value = as_tensor(value)
    dtype = D.as_dtype(dtype)
    in_dtype = value.dtype
    if in_dtype.is_complex:
        if dtype.is_complex:
            real_in, real_out = in_dtype.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                low = convert_to_tensor(builtins.complex(real_out.min, real_out.min), in_dtype)
                high = convert_to_tensor(builtins.complex(real_out.max, real_out.max), in_dtype)
                value = bind(ClipByValue, value, low, high)
            return cast(value, dtype)
        value = real(value)
        in_dtype = in_dtype.real_dtype
    low, high = _limits(in_dtype, dtype.real_dtype)
    value = bind(ClipByValue, value, convert_to_tensor(low, in_dtype),
                 convert_to_tensor(high, in_dtype))
    return cast(value, dtype)


# --- AddN ----------------------------------------------------------------------------------------
@define_op("AddN")
class AddN:
    """The elementwise sum of its inputs, which share one shape and dtype."""

    def infer(*xs):
        dtypes = [x.dtype for x in xs]
        if any(d != dtypes[0] for d in dtypes):
            raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                            f"[{', '.join(d.name for d in dtypes)}] that don't all match.")
        check_dtypes("AddN", xs[:1], _ADD_N, ("inputs",))
        shape = xs[0].shape
        for x in xs[1:]:
            if not shape.is_compatible_with(x.shape):
                raise ValueError(merge_error_text(shape, x.shape))
            shape = shape.merge_with(x.shape)
        return TensorSpec(shape, dtypes[0])

    @quiet
    def kernel(*xs):
        first = np.shape(xs[0])
        for i, a in enumerate(xs[1:], 1):
            if np.shape(a) != first:
                raise invalid_argument(
                    "Inputs to operation AddN of type AddN must have the same size and shape.  "
                    f"Input 0: {shape_text(first)} != input {i}: {shape_text(np.shape(a))}")
        out = np.add(xs[0], xs[1])
        for a in xs[2:]:
            out = np.add(out, a)
        return out

    check = DtypeCheck("AddN", _ADD_N, None)


@tf_export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting).

    Raises:
        ValueError: if ``inputs`` is empty or not a list of tensors.
    """
    if isinstance(inputs, Tensor):
        inputs = list(inputs)
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with "
                         "the same dtype and shape.")
    inputs = [as_tensor(x) for x in inputs]
    if len(inputs) == 1:
        return inputs[0]
    return bind(AddN, *inputs)
