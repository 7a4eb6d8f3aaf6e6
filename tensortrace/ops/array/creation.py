"""Tensors made from a shape and a value: fill, zeros, ones, zeros_like, ones_like, and the
composites eye (identity matrices) and meshgrid (coordinate grids)."""

import math as _pymath

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...graph.naming import default_name
from ...composite import CompositeTensor, fallback, fallback_call
from ...context import bind, executing_eagerly
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from ...messages import check_size
from .._args import (arg_error, const, holds_tensor, int_arg, int_input,
                     scalar_array, shape_values, static_ints)
from .._base import INDEX, bounded_static, check_index, dtypes_named, graph_error, unary
from .broadcasting import broadcast_to
from .joining import concat, stack
from .ranges import one_hot
from .ranges import range as tf_range
from .reshaping import reshape
from .shapes import shape, size


@bounded_static
@define_op("Fill")
class Fill:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""

    def infer(dims, value):
        check_index("Fill", dims, "dims")
        if value.shape.rank not in (None, 0) and value.shape != TensorShape([1]):
            raise graph_error("Fill", f"Shape must be rank 0 but is rank {value.shape.rank}",
                              dims.shape, value.shape)
        vals = shape_values(dims)
        if vals is not None and any(v is not None and v < 0 for v in vals):
            raise graph_error("Fill", "Fill dimensions must be >= 0", dims.shape, value.shape)
        return TensorSpec(TensorShape(vals), value.dtype)

    def kernel(dims, value):
        if np.ndim(value) != 0:
            if np.shape(value) != (1,):  # TF still takes a one-element vector (legacy)
                raise invalid_argument(f"value must represent a scalar, got shape "
                                       f"{shape_text(np.shape(value))}")
            value = value[0] if value.dtype != object else value.reshape(())
        if np.ndim(dims) != 1:
            raise invalid_argument(f"dims must be a vector, got shape "
                                   f"{shape_text(np.shape(dims))}")
        shape = dims.tolist()
        for d in shape:
            if d < 0:
                raise invalid_argument(f"Dimension {d} must be >= 0")
        check_size(shape, value.dtype)
        return np.full(shape, value, dtype=value.dtype)

    check = DtypeCheck("Fill", INDEX, 1, attr="index_type")


@tf_export("fill")
def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    if isinstance(dims, CompositeTensor):  # a DynamicRaggedShape: a ragged result
        return fallback_call(fill, (dims, value), {})
    return bind(Fill, int_input(dims, hint=D.int32), convert_to_tensor(value))


@define_op("ZerosLike")
class ZerosLike:
    """Zeros (empty strings, False) shaped and typed like ``x``."""

    def infer(x):
        return TensorSpec(x.shape, x.dtype)

    def kernel(x):
        if x.dtype == object:
            return np.full(np.shape(x), b"", dtype=object)
        return np.zeros_like(x)


@tf_export("zeros_like")
def zeros_like(input, dtype=None, name=None, layout=None):
    """Zeros with the shape of ``input`` (and its dtype unless ``dtype`` is given)."""
    try:
        return _like(ZerosLike, zeros, input, dtype)
    except (TypeError, ValueError):  # a composite (ragged) keeps its row partition
        return fallback(zeros_like, (input,), {"dtype": dtype})


ONES_LIKE = unary("OnesLike", np.ones_like, dtypes_named(  # ones (True) like x
    "bfloat16 float16 float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64 "
    "complex64 complex128 bool"))


@tf_export("ones_like")
def ones_like(input, dtype=None, name=None, layout=None):
    """Ones with the shape of ``input`` (and its dtype unless ``dtype`` is given)."""
    try:
        return _like(ONES_LIKE, ones, input, dtype)
    except (TypeError, ValueError):  # a composite (ragged) keeps its row partition
        return fallback(ones_like, (input,), {"dtype": dtype})


def _filled(shape, dtype, value):
    """zeros/ones: a constant when the shape is known (and small, while tracing), else Fill."""
    dtype = D.as_dtype(dtype)
    value = scalar_array(value, dtype)  # TF refuses ones of strings: "Cannot convert 1 ..."
    if not isinstance(shape, Tensor):
        try:
            dims = TensorShape(shape).dims
        except (TypeError, ValueError):
            dims = None
        if dims is not None and None not in dims:
            if executing_eagerly() or _pymath.prod(dims) < 1000:
                check_size(dims, dtype, "Fill")
                return const(np.full(dims, value, dtype=dtype._np))
            shape = dims
    dims = int_input(shape, D.int32)
    if dims.shape.rank == 0:
        dims = reshape(dims, [-1])
    return bind(Fill, dims, const(value))


@tf_export("zeros")
def zeros(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with zeros (False, empty strings)."""
    dtype = D.as_dtype(dtype)
    if isinstance(shape, CompositeTensor):  # a DynamicRaggedShape: a ragged result
        return fallback_call(zeros, (shape,), {"dtype": dtype})
    return _filled(shape, dtype, "" if dtype is D.string else False if dtype is D.bool else 0)


@tf_export("ones")
def ones(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with ones (True)."""
    dtype = D.as_dtype(dtype)
    if isinstance(shape, CompositeTensor):  # a DynamicRaggedShape: a ragged result
        return fallback_call(ones, (shape,), {"dtype": dtype})
    return _filled(shape, dtype, True if dtype is D.bool else 1)


def _like(op, make, input, dtype):
    x = convert_to_tensor(input)
    if dtype is not None and D.as_dtype(dtype) != x.dtype:
        return make(x.shape.dims if x.shape.is_fully_defined() else shape(x), dtype)
    return bind(op, x)


@tf_export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=D.float32, name=None):
    """An identity matrix (or a batch of them) of ``num_rows`` x ``num_columns``."""
    dtype = D.as_dtype(dtype)
    cols = num_rows if num_columns is None else num_columns
    if isinstance(num_rows, float) or isinstance(cols, float):
        raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. "
                        f"Received: num_rows={num_rows}, num_columns={cols}")
    on = scalar_array(True if dtype is D.bool else 1, dtype)
    r, c = _maybe_int(num_rows), _maybe_int(cols)
    batch = [] if batch_shape is None else _maybe_ints(batch_shape)
    if r is not None and c is not None and batch is not None:
        for d in [r, c] + batch:
            if d < 0:
                raise arg_error("Fill", f"Dimension {d} must be >= 0")
        check_size(batch + [r, c], dtype, "Fill")
        matrix = np.eye(r, c, dtype=dtype._np)
        return const(np.broadcast_to(matrix, batch + [r, c]).copy() if batch else matrix)
    rows = convert_to_tensor(num_rows, D.int32)
    matrix = one_hot(tf_range(rows), convert_to_tensor(cols, D.int32), on_value=const(on),
                     off_value=const(np.zeros((), dtype._np)), dtype=dtype)
    if batch_shape is None:
        return matrix
    return broadcast_to(matrix, concat([int_input(batch_shape, D.int32), shape(matrix)], 0))


def _maybe_int(value):
    v = value if type(value) is int else static_value(value) if isinstance(value, Tensor) else \
        np.asarray(value)
    return None if v is None else int_arg(v, "num_rows")


def _maybe_ints(value):
    if isinstance(value, (list, tuple)) and holds_tensor(value):
        return None
    v = static_value(value) if isinstance(value, Tensor) else static_ints(value, "batch_shape")
    return None if v is None else [int(d) for d in np.reshape(v, -1)]


@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D ``args``: ``indexing`` "xy" (Cartesian, default) or "ij"."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    for key in kwargs:
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    ndim = len(args)
    if not ndim:
        return []
    ones_shape = (1,) * ndim
    outputs = [reshape(stack(x), ones_shape[:i] + (-1,) + ones_shape[i + 1:])
               for i, x in enumerate(args)]
    sizes = [size(x) for x in args]
    dtype = convert_to_tensor(args[0]).dtype
    if indexing == "xy" and ndim > 1:  # TF's way: swap the first two axes
        outputs[0] = reshape(outputs[0], (1, -1) + (1,) * (ndim - 2))
        outputs[1] = reshape(outputs[1], (-1, 1) + (1,) * (ndim - 2))
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grid = ones(sizes, dtype)
    return [x * grid for x in outputs]


# TF's node names (its wrappers' scopes, not the op types)
for _scope, _fn in (("zeros_like", zeros_like), ("ones_like", ones_like), ("zeros", zeros),
                    ("ones", ones), ("eye", eye)):
    default_name(_scope, _fn)
