"""Everyday tensor utilities: ``tf.is_tensor``, ``tf.get_static_value``, ``tf.device``,
``tf.get_logger``, ``tf.ensure_shape`` (EnsureShape), ``tf.timestamp`` (Timestamp) and
``tf.bitcast`` (Bitcast)."""

import contextlib
import time

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ..._logging import logger
from ...config import _runtime_started
from ...context import bind
from ...convert import convert_to_tensor
from ...messages import enum_name, shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape, as_shape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from .._base import check_dtypes, kernel_out_type


def _node_input_name(t):
    """How a graph-time error names an op input: its op's name (with ``:i`` past output 0)."""
    op = getattr(t, "op", None)
    if op is None or isinstance(t, EagerTensor):
        return "input"
    return op.name if not t.value_index else t.name


# --- tf.is_tensor / tf.get_static_value ---------------------------------------------------------
def is_variable(x):
    """True for variables (anything a tensor can be read from, as TF's resource variables)."""
    return hasattr(type(x), "_as_graph_or_eager_tensor")


@tf_export("is_tensor")
def is_tensor(x):
    """True for tensors (eager or symbolic), variables and TF's native composites (SparseTensor,
    RaggedTensor, IndexedSlices); False for NumPy arrays and Python values. Other classes say
    so with TF's ``is_tensor_like`` (those deriving from ``tf.__internal__.types.Tensor``)."""
    return isinstance(x, Tensor) or is_variable(x) or getattr(x, "is_tensor_like", False) or \
        getattr(x, "_native_tensor", False)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The value of ``tensor`` when known without running anything, else None (TF's
    ``tensor_util.constant_value``).

    Non-tensors come back unchanged; eager tensors as NumPy values; variables and composites as
    None. A symbolic tensor is evaluated through TF's fixed list of ops only (constants, shape
    queries of known shapes, Range, Cast, ConcatV2, Pack, Unpack, Split, Fill, Equal,
    NotEqual, StopGradient, Identity): arithmetic on constants gives None, as in TF. With
    ``partial``, a Pack of some unknown elements gives an object array with None there.
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if not is_tensor(tensor):
        return tensor
    if is_variable(tensor) or not isinstance(tensor, Tensor) or \
            getattr(tensor, "op", None) is None:  # a composite: none (as TF)
        return None
    return _constant_value(tensor, partial)


# TF captures an eager tensor of at most this many elements into a function as a Const op.
_CAPTURED_CONST_LIMIT = 128
_PASS_THROUGH = frozenset(("StopGradient", "Identity", "CheckNumericsV2", "DebugIdentityV2"))


def _captured_constant(t):
    """The value of a captured eager tensor that TF would hold as a Const op (small, not a
    resource or variant), else None."""
    for value, ph in getattr(t.graph, "captures", ()):
        if ph is t:
            if isinstance(value, EagerTensor) and value.dtype not in (D.resource, D.variant) \
                    and np.size(value._value) <= _CAPTURED_CONST_LIMIT:
                return np.array(value.numpy())
            return None
    return None


def _constant_value(t, partial):
    """TF's ``_ConstantValue``: the ops it evaluates, one by one (None for any other)."""
    op = t.op
    kind, inputs, attrs = op.type, op.inputs, op.attrs
    if kind == "Const":
        return np.array(attrs["value"], dtype=t.dtype.as_numpy_dtype)
    if kind == "Placeholder":
        return _captured_constant(t)
    if kind in ("Shape", "Size", "Rank"):
        shape = inputs[0].shape
        if kind == "Rank":
            return None if shape.rank is None else np.array(shape.rank, dtype=np.int32)
        if not shape.is_fully_defined():
            return None
        if kind == "Size":
            return np.prod(shape.as_list(), dtype=np.int32)
        return np.array(shape.as_list(), dtype=t.dtype.as_numpy_dtype)
    if kind in _PASS_THROUGH:
        return _constant_value(inputs[0], partial)
    if kind == "Pack":
        if not inputs or attrs.get("axis") != 0:
            return None
        values = [_constant_value(x, partial) for x in inputs]
        if not partial and any(v is None for v in values):
            return None
        try:
            return np.array(values)
        except ValueError:  # with partial, some elements are None
            return np.array(values, dtype=object)
    if kind == "Unpack":
        if attrs.get("axis") != 0:
            return None
        value = _constant_value(inputs[0], partial)
        return None if value is None else value[t.value_index]
    if kind == "Split":
        value = _constant_value(inputs[0], partial)
        if value is None:
            return None
        return np.split(value, attrs["num_split"], attrs["axis"])[t.value_index]
    if kind == "Fill":
        value = _constant_value(inputs[1], False)
        if value is None or not t.shape.is_fully_defined():
            return None
        return np.full(t.shape.as_list(), value, dtype=value.dtype)
    if kind not in ("Range", "Cast", "ConcatV2", "Equal", "NotEqual"):
        return None
    values = [_constant_value(x, False) for x in inputs]
    if any(v is None for v in values):
        return None
    if kind == "Range":
        return np.arange(*values, dtype=t.dtype.as_numpy_dtype)
    if kind == "Cast":
        return values[0].astype(attrs["DstT"].as_numpy_dtype)
    if kind == "ConcatV2":
        return np.concatenate(values, axis=attrs["axis"])
    return (np.equal if kind == "Equal" else np.not_equal)(*values)


# --- device, get_logger ---------------------------------------------------------------------------
@tf_export("device")
def device(device_name):
    """A context manager placing ops on ``device_name``: everything runs on the CPU here, so it
    only checks its argument."""
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions.")  # noqa: TRY004 (TF's type)
    _runtime_started[0] = True  # TF's context starts here: logical devices are fixed
    return contextlib.nullcontext()


@tf_export("get_logger")
def get_logger():
    """The logger tensortrace writes its warnings to (Python's ``logging``)."""
    return logger


# --- EnsureShape ---------------------------------------------------------------------------------
def _ensure_shape_error(x, dims):
    have = x.shape.dims
    node = (f" for '{{{{node EnsureShape}}}} = EnsureShape[T=DT_{enum_name(x.dtype)}, "
            f"shape={shape_text(dims)}]({_node_input_name(x)})' with input shapes: "
            f"{shape_text(have)}.")
    if len(have) != len(dims):
        return ValueError(f"Shape must be rank {len(dims)} but is rank {len(have)}{node}")
    i = next(i for i, (a, b) in enumerate(zip(dims, have)) if a is not None and b is not None
             and a != b)
    return ValueError(f"Dimension {i} in both shapes must be equal, but are {dims[i]} and "
                      f"{have[i]}. Shapes are {shape_text(dims)} and {shape_text(have)}.{node}")


@define_op("EnsureShape")
class EnsureShape:
    """The input, after checking its shape is compatible with ``shape`` (merged statically)."""

    def infer(input, shape):
        if not input.shape.is_compatible_with(TensorShape(shape)):
            raise _ensure_shape_error(input, shape)
        return TensorSpec(input.shape.merge_with(TensorShape(shape)), input.dtype)

    def kernel(input, shape):
        if shape is not None and (len(shape) != np.ndim(input) or any(
                d is not None and d != n for d, n in zip(shape, np.shape(input)))):
            raise errors.invalid_argument(
                f"Shape of tensor input {shape_text(np.shape(input))} is not compatible with "
                f"expected shape {shape_text(shape)}.")
        return input


@tf_export("ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x``, checked at run time to have a shape compatible with ``shape``; while tracing the
    result's static shape is the merge of both.

    Raises:
        ValueError: while tracing, if the static shapes are incompatible.
        InvalidArgumentError: at run time, if the actual shape is incompatible.
    """
    if isinstance(shape, Tensor):
        shape = static_value(shape).tolist()
    try:
        shape = as_shape(shape)
    except (TypeError, ValueError):
        raise TypeError(f"Failed to convert '{shape!r}' to a shape: '{shape!r}'could not be "
                        "converted to a dimension. A shape should either be single dimension "
                        "(e.g. 10), or an iterable of dimensions (e.g. [1, 10, None]).") from None
    dims = None if shape.dims is None else tuple(shape.dims)
    return bind(EnsureShape, convert_to_tensor(x), shape=dims)


# --- Timestamp -----------------------------------------------------------------------------------
@define_op("Timestamp", stateful=True)
class Timestamp:
    """Seconds since the epoch, as float64, read when the op runs."""

    def infer():
        return TensorSpec((), D.float64)

    def kernel():
        return np.float64(time.time())


@tf_export("timestamp")
def timestamp(name=None):
    """The current time in seconds (float64); inside functions, read each time it runs."""
    return bind(Timestamp)


# --- Bitcast -------------------------------------------------------------------------------------
_BITCAST = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int64, D.int32,
                             D.uint8, D.uint16, D.uint32, D.uint64, D.int8, D.int16, D.complex64,
                             D.complex128) if d is not None)


class _BitcastMismatch(Exception):
    """The last dim (args[0]) is not the item size ratio (args[1]) of a larger target dtype."""


def _bitcast_shape(shape, src, dst):
    """The output dims (a tuple; None for an unknown rank)."""
    a, b = src._np.itemsize, dst._np.itemsize
    if a == b or shape is None:
        return shape
    if a > b:
        return shape + (a // b,)
    last = shape[-1] if shape else None
    if (not shape) or (last is not None and last != b // a):
        raise _BitcastMismatch(last, b // a)
    return shape[:-1]


@define_op("Bitcast")
class Bitcast:
    """The bytes of ``input`` reinterpreted as ``type``; the last dim grows or shrinks by the
    ratio of the item sizes."""

    check = DtypeCheck("Bitcast", _BITCAST, 1)

    def infer(input, type):
        check_dtypes("Bitcast", (input,), _BITCAST, names=("input",))
        dims = None if input.shape.dims is None else tuple(input.shape.dims)
        try:
            return TensorSpec(TensorShape(_bitcast_shape(dims, input.dtype, type)), type)
        except _BitcastMismatch as e:
            raise ValueError(
                f"Cannot bitcast from {input.dtype.as_datatype_enum} to "
                f"{type.as_datatype_enum} due to shape. {e.args[0]} does not match {e.args[1]} "
                f"for '{{{{node Bitcast}}}} = Bitcast[T=DT_{enum_name(input.dtype)}, "
                f"type=DT_{enum_name(type)}]({_node_input_name(input)})' with input shapes: "
                f"{shape_text(dims)}.") from None

    def kernel(input, type):
        kernel_out_type(type, _BITCAST, "type")
        arr = np.asarray(input)
        src = D.from_numpy(arr.dtype)
        try:
            dims = _bitcast_shape(arr.shape, src, type)
        except _BitcastMismatch:
            raise errors.invalid_argument(f"Cannot bitcast from {src.as_datatype_enum} to "
                                          f"{type.as_datatype_enum}") from None
        if not arr.flags.c_contiguous:
            arr = arr.copy()
        if arr.itemsize > type._np.itemsize:
            arr = arr.reshape(arr.shape + (1,))
        out = arr.view(type._np).reshape(dims)
        return out[()] if out.ndim == 0 else out


@tf_export("bitcast")
def bitcast(input, type, name=None):
    """The bytes of ``input`` reinterpreted as dtype ``type`` (no copy of values, no rounding).

    A smaller ``type`` adds a last dimension; a larger one consumes a last dimension that must
    equal the size ratio.
    """
    return bind(Bitcast, convert_to_tensor(input), type=D.as_dtype(type))
