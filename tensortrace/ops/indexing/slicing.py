"""Indexing ops: slicing and ``tensor[...]``, gather/scatter, boolean masks, sorting and top-k,
unique, segment reductions, searchsorted, roll and einsum."""

import collections
import numbers

import numpy as np

from ... import dtypes as D
from ... import errors
from ..._export import tf_export
from ...context import bind, state
from ...convert import constant, convert_to_tensor
from ...errors import invalid_argument
from ...registry import NON_DIFFERENTIABLE, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from ...graph.ir import STATIC_LIMIT
from .._base import ALL, BOOL, COMPLEX, FLOAT, NUMERIC, REAL, broadcast_shape, check_dtypes
from ...messages import c_name
from ..array import shape as tf_shape
from ..array import stack, transpose
from ..math import cast, where
from .._args import shape_values

_wrap = EagerTensor._wrap
INDEX = (D.int16, D.int32, D.int64)
INDEX32 = (D.int32, D.int64)
_TOPK_TYPES = tuple(d for d in (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64,
                                D.bfloat16, D.uint16, D.float16, D.uint32, D.uint64) if d)
_EINSUM_TYPES = FLOAT + (D.int32, D.int64) + COMPLEX


# --- shared helpers ------------------------------------------------------------------------------
def _result(out):
    """NumPy gives scalars for 0-d numeric picks and bare bytes for strings; TF values are arrays
    or NumPy scalars, with 0-d strings as 0-d object arrays."""
    if type(out) is np.ndarray:
        return out[()] if out.ndim == 0 and out.dtype != object else out
    if isinstance(out, np.generic):
        return out
    return np.array(out, dtype=object)


def _np_name(np_dtype):
    return c_name(D.from_numpy(np_dtype))


def _dims(shape):
    """A shape as TF's messages print it: ``[2,3]``, ``[?,3]``, ``?`` for unknown rank."""
    if isinstance(shape, TensorShape):
        if shape.rank is None:
            return "?"
        shape = ["?" if d is None else d for d in shape.dims]
    return "[" + ",".join(str(d) for d in shape) + "]"


def _position(index):
    return ",".join(str(int(i)) for i in index)


def _graph_error(message, op, inputs):
    """TF's graph-time shape errors: a ValueError naming the node and its input shapes."""
    shapes = ", ".join(_dims(t.shape) for t in inputs)
    return ValueError(f"{message} for '{{{{node {op}}}}} = {op}[]' with input shapes: {shapes}.")


def _graph_dtype(param, t, allowed):
    if t.dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {t.dtype.name} not in "
                        f"list of allowed values: {', '.join(d.name for d in allowed)}")


def _attr_check(op, attr, allowed, first, count=1):
    """Eager check: inputs ``first .. first+count-1`` share one dtype from ``allowed``."""
    allowed_np = frozenset(d._np for d in allowed)
    text = ", ".join(c_name(d) for d in allowed)

    def check(arrays):
        dt = arrays[first].dtype
        if dt not in allowed_np:
            raise invalid_argument(f"Value for attr '{attr}' of {_np_name(dt)} is not in the list "
                                   f"of allowed values: {text}", op)
        for i in range(first + 1, first + count):
            if arrays[i].dtype != dt:
                raise invalid_argument(
                    f"cannot compute {op} as input #{i}(zero-based) was expected to be a "
                    f"{_np_name(dt)} tensor but is a {_np_name(arrays[i].dtype)} tensor", op)

    return check


def _same_check(op, first, other):
    def check(arrays):
        if arrays[other].dtype != arrays[first].dtype:
            raise invalid_argument(
                f"cannot compute {op} as input #{other}(zero-based) was expected to be a "
                f"{_np_name(arrays[first].dtype)} tensor but is a "
                f"{_np_name(arrays[other].dtype)} tensor", op)

    return check


def _kernel_check(op, allowed, position=0):
    """Eager check that a kernel exists for the dtype (TF raises NotFoundError otherwise)."""
    allowed_np = frozenset(d._np for d in allowed)

    def check(arrays):
        dt = arrays[position].dtype
        if dt not in allowed_np:
            raise errors.NotFoundError(
                None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}"
                f"[T=DT_{_np_name(dt).upper()}] [Op:{op}]")

    return check


def _checks(*fns):
    def check(arrays):
        for fn in fns:
            fn(arrays)

    return check


def _static_int(value, name):
    """An integer attr from a Python int or a tensor whose value is known at trace time."""
    if type(value) is int:
        return value
    v = static_value(value) if isinstance(value, Tensor) else value
    if v is None:
        raise ValueError(f"`{name}` must be a constant known when the function is traced, got "
                         f"{value}.")
    arr = np.asarray(v)
    if arr.ndim != 0 or arr.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be an integer, got {value!r}")
    return int(arr)


def _static_ints(value, name):
    """An int or a tuple of ints (``axis=[0, 1]``), known at trace time."""
    v = static_value(value) if isinstance(value, Tensor) else value
    if v is None:
        raise ValueError(f"`{name}` must be a constant known when the function is traced.")
    arr = np.asarray(v)
    if arr.dtype.kind not in "iu" or arr.ndim > 1:
        raise TypeError(f"`{name}` must be an integer or a list of integers, got {value!r}")
    return int(arr) if arr.ndim == 0 else tuple(int(a) for a in arr)


def _same_dtype_operands(*values):
    """Convert inputs that share one dtype attr as TF does: Python values take the dtype of the
    first tensor among them, else of the first value."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    if like is None:
        like = convert_to_tensor(values[0])
        return (like,) + tuple(convert_to_tensor(v, like.dtype) for v in values[1:])
    return tuple(v if isinstance(v, Tensor) else convert_to_tensor(v, like.dtype) for v in values)


def _to_tensor_like(value, like):
    """``value`` as a tensor of ``like``'s dtype when it is a Python value (updates, shapes)."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, dtype_hint=like.dtype)


def _shape_tensor(x):
    """``tf.shape(x)``, as a constant when the shape is fully known."""
    if x.shape.is_fully_defined():
        return constant(np.array(x.shape.dims, np.int32).reshape(-1))
    return tf_shape(x)


# --- StridedSlice ------------------------------------------------------------------------------
_REAL, _NEW, _ELLIPSIS = "real", "new", "ellipsis"
_UNKNOWN = object()  # a begin/end value known only at run time


def _layout(rank, n, ellipsis_mask, new_axis_mask):
    """The kind of each of the ``n`` sparse spec entries, and how many dims the ellipsis spans."""
    if ellipsis_mask & (ellipsis_mask - 1):
        raise invalid_argument("Multiple ellipses in slice spec not allowed")
    kinds = [_ELLIPSIS if ellipsis_mask & (1 << i) else _NEW if new_axis_mask & (1 << i) else _REAL
             for i in range(n)]
    real = kinds.count(_REAL)
    if rank == 0 and real:
        raise invalid_argument("Attempting to slice scalar input.")
    if real > rank:
        raise invalid_argument(f"Index out of range using input dim {rank}; input has only "
                               f"{rank} dims")
    return kinds, rank - real


def _shrink_index(b, size, dim):
    fwd = b + size if b < 0 else b
    if not 0 <= fwd < size:
        raise invalid_argument(f"slice index {fwd} of dimension {dim} out of bounds.")
    return fwd


def strided_index(shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """The NumPy basic index equal to a StridedSlice spec (lists of ints) on ``shape``.

    Python slices clamp exactly as TF canonicalizes begin/end, so non-shrink entries map to
    ``slice`` objects directly; shrink entries are bounds-checked as TF does.

    Raises:
        InvalidArgumentError: with TF's messages (without the ``[Op:...]`` tag).
    """
    kinds, span = _layout(len(shape), len(begin), ellipsis_mask, new_axis_mask)
    index, dim = [], 0
    for i, kind in enumerate(kinds):
        if kind is _ELLIPSIS:
            index.append(Ellipsis)
            dim += span
        elif kind is _NEW:
            index.append(None)
        else:
            bit, step = 1 << i, strides[i]
            if step == 0:
                raise invalid_argument(f"strides[{dim}] must be non-zero")
            if shrink_axis_mask & bit:
                if step < 0:
                    raise invalid_argument("only stride 1 allowed on non-range indexing.")
                index.append(_shrink_index(begin[i], shape[dim], dim))
            else:
                index.append(slice(None if begin_mask & bit else begin[i],
                                   None if end_mask & bit else end[i], step))
            dim += 1
    return tuple(index)


def _strided_slice_infer(x, begin, end, strides, **masks):
    check_dtypes("StridedSlice", (begin, end, strides), INDEX, ("begin", "end", "strides"))
    b_shape = begin.shape
    if b_shape.rank not in (None, 1):
        raise _graph_error(f"Shape must be rank 1 but is rank {b_shape.rank}", "StridedSlice",
                           (x, begin, end, strides))
    step_v = static_value(strides)
    n = b_shape.dims[0] if b_shape.rank == 1 else None
    if x.shape.rank is None or step_v is None or n is None:
        return TensorSpec(None, x.dtype)
    try:
        dims = _strided_dims(x.shape.dims, n, static_value(begin), static_value(end),
                             step_v.tolist(), **masks)
    except errors.InvalidArgumentError as e:
        raise _graph_error(e.message, "StridedSlice", (x, begin, end, strides)) from None
    return TensorSpec(dims, x.dtype)


def _strided_dims(shape, n, begin_v, end_v, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """Output dims of a StridedSlice whose begin/end values may be unknown (None)."""
    kinds, span = _layout(len(shape), n, ellipsis_mask, new_axis_mask)
    begin_v = None if begin_v is None else begin_v.tolist()
    end_v = None if end_v is None else end_v.tolist()
    out, dim = [], 0
    for i, kind in enumerate(kinds):
        if kind is _ELLIPSIS:
            out += shape[dim:dim + span]
            dim += span
            continue
        if kind is _NEW:
            out.append(1)
            continue
        bit, step, size = 1 << i, strides[i], shape[dim]
        if step == 0:
            raise invalid_argument(f"strides[{dim}] must be non-zero")
        if shrink_axis_mask & bit:
            if step < 0:
                raise invalid_argument("only stride 1 allowed on non-range indexing.")
            if begin_v is not None and end_v is not None and size is not None:
                _shrink_index(begin_v[i], size, dim)  # TF checks only when both are known
        else:
            b = None if begin_mask & bit else (_UNKNOWN if begin_v is None else begin_v[i])
            e = None if end_mask & bit else (_UNKNOWN if end_v is None else end_v[i])
            if size is None or b is _UNKNOWN or e is _UNKNOWN:
                out.append(None)
            else:
                out.append(len(range(*slice(b, e, step).indices(size))))
        dim += 1
    return out + shape[dim:]


def _strided_slice_kernel(x, begin, end, strides, **masks):
    if masks["shrink_axis_mask"] == 1 and begin.shape == (1,) and not (
            masks["begin_mask"] | masks["end_mask"] | masks["ellipsis_mask"]
            | masks["new_axis_mask"]) and x.ndim and strides[0] > 0:
        b, n = int(begin[0]), x.shape[0]  # x[i]: the loop body's read, worth a fast path
        if -n <= b < n:
            return _result(x[b])
    if not (begin.ndim == 1 and begin.shape == end.shape == strides.shape):
        raise invalid_argument(
            f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{_dims(begin.shape)}, {_dims(end.shape)}, and {_dims(strides.shape)} instead.")
    index = strided_index(np.shape(x), begin.tolist(), end.tolist(), strides.tolist(), **masks)
    return _result(x[index])


STRIDED_SLICE = register(OpDef(
    "StridedSlice", _strided_slice_infer, _strided_slice_kernel,
    check=_attr_check("StridedSlice", "Index", INDEX, 1, 3)))


def _strided_slice_static(x, begin, end, strides, **masks):
    """The trace-time value: folded when the input is known, and also when it is a partially
    known shape whose sliced entries are known (``tf.shape(x)[1]`` with x's dim 1 static), so
    that shape maths built on it folds as in TF's shape inference."""
    from ..array import known_values

    spec = [static_value(t) for t in (begin, end, strides)]
    if any(v is None for v in spec):
        return None
    value = static_value(x)
    try:
        if value is not None:
            if value.size > STATIC_LIMIT:
                return None
            with np.errstate(all="ignore"):
                return _strided_slice_kernel(value, *spec, **masks)
        if x.dtype not in INDEX32:
            return None
        base = known_values(x)
        if base is None:
            return None
        picked = base[strided_index(base.shape, *(v.tolist() for v in spec), **masks)]
        flat = np.asarray(picked, dtype=object).reshape(-1)
        if any(v is None for v in flat):
            return None
        return np.array(np.asarray(picked, dtype=object).tolist(), dtype=x.dtype._np)
    except Exception:  # noqa: BLE001 - the op raises when it runs, with the runtime's error
        return None


STRIDED_SLICE.static = _strided_slice_static


@tf_export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice``: NumPy-style slicing with begin/end/strides tensors and bit masks."""
    x = convert_to_tensor(input_)
    if strides is None:
        begin = begin if isinstance(begin, Tensor) else _same_dtype_operands(begin)[0]
        n = begin.shape.dims[0] if begin.shape.rank == 1 else None
        if n is None:
            raise ValueError("strided_slice needs `strides` when `begin` has an unknown length.")
        strides = constant(np.ones(n, begin.dtype._np))
    begin, end, strides = _same_dtype_operands(begin, end, strides)
    return bind(STRIDED_SLICE, x, begin, end, strides, begin_mask=int(begin_mask),
                end_mask=int(end_mask), ellipsis_mask=int(ellipsis_mask),
                new_axis_mask=int(new_axis_mask), shrink_axis_mask=int(shrink_axis_mask))


# --- Slice -------------------------------------------------------------------------------------
@define_op("Slice")
class Slice:
    """``x[begin : begin + size]`` per dimension; size -1 means "to the end"."""

    check = _attr_check("Slice", "Index", INDEX32, 1, 2)

    def infer(x, begin, size):
        check_dtypes("Slice", (begin, size), INDEX32, ("begin", "size"))
        from ..array import known_values, shape_values

        begin_v, rank = known_values(begin), x.shape.rank
        size_v = shape_values(size)  # partly known sizes ([tf.shape(x)[0], 2]) keep their dims
        if size_v is None:
            return TensorSpec(None if rank is None else [None] * rank, x.dtype)
        dims = []
        for i, s in enumerate(size_v):
            d = x.shape.dims[i] if rank is not None and i < rank else None
            if s is None:
                dims.append(None)
            elif s != -1:
                dims.append(s)
            elif begin_v is None or begin_v[i] is None or d is None:
                dims.append(None)
            elif begin_v[i] > d:
                raise _graph_error(f"Negative dimension size caused by subtracting {begin_v[i]} "
                                   f"from {d}", "Slice", (x, begin, size))
            else:
                dims.append(d - int(begin_v[i]))
        return TensorSpec(dims, x.dtype)

    def kernel(x, begin, size):
        shape = np.shape(x)
        if begin.shape != (len(shape),) or size.shape != (len(shape),):
            raise invalid_argument(
                f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but "
                f"got shapes {_dims(begin.shape)} and {_dims(size.shape)} instead.")
        index = []
        for i, (b, s, d) in enumerate(zip(begin.tolist(), size.tolist(), shape)):
            if not 0 <= b <= d:
                raise invalid_argument(f"Expected begin[{i}] in [0, {d}], but got {b}")
            s = d - b if s == -1 else s
            if not 0 <= s <= d - b:
                raise invalid_argument(f"Expected size[{i}] in [0, {d - b}], but got {s}")
            index.append(slice(b, b + s))
        return _result(x[tuple(index)])


@tf_export("slice")
def slice_(input_, begin, size, name=None):
    """``tf.slice``: the block of ``input_`` starting at ``begin`` of extent ``size``."""
    begin, size = _same_dtype_operands(begin, size)
    return bind(Slice, convert_to_tensor(input_), begin, size)


# --- Tensor.__getitem__ ------------------------------------------------------------------------
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_INDEX_SET = frozenset(INDEX)


def _check_index(idx):
    """TF's rule for one index: an integer, or a scalar int16/32/64 tensor or array."""
    if isinstance(idx, numbers.Integral):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and D.as_dtype(dtype) in _INDEX_SET
    except TypeError:
        ok = False
    if ok:
        dims = idx.shape
        ok = (dims.rank if isinstance(dims, TensorShape) else len(dims)) in (0, None)
    if not ok:
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _parse_spec(spec):
    """TF's ``_slice_helper``: the sparse begin/end/strides lists and masks of a ``[]`` spec."""
    if not isinstance(spec, (list, tuple)):
        spec = (spec,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, s in enumerate(spec):
        bit = 1 << i
        if isinstance(s, slice):
            for v in (s.start, s.stop, s.step):
                if v is not None:
                    _check_index(v)
            if s.start is None:
                begin_mask |= bit
            if s.stop is None:
                end_mask |= bit
            begin.append(0 if s.start is None else s.start)
            end.append(0 if s.stop is None else s.stop)
            strides.append(1 if s.step is None else s.step)
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            if s is None:
                new_axis_mask |= bit
            else:
                ellipsis_mask |= bit
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1 if isinstance(s, numbers.Integral) else s)  # ignored when shrinking
            strides.append(1)
            shrink_axis_mask |= bit
    masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    return begin, end, strides, masks


def _known_int(v):
    """The Python int value of an index entry, or None when it is only known at run time."""
    if isinstance(v, Tensor):
        v = static_value(v)
        return None if v is None else int(v)
    return int(v)


def _index_dtype(entries, known):
    """The dtype TF gives packed begin/end/strides: int64 if any part is, int16 if every tensor
    part is, else int32."""
    tensor_dtypes = {v.dtype for v in entries if isinstance(v, Tensor)}
    big = any(k is not None and not -2**31 <= k < 2**31 for k in known)
    if D.int64 in tensor_dtypes or big:
        return D.int64
    if tensor_dtypes == {D.int16}:
        return D.int16
    return D.int32


def _index_vector(entries, dtype):
    """A 1-D index tensor: a constant when every entry is known, else a Pack of the scalars."""
    known = [_known_int(v) for v in entries]
    if None not in known:
        return constant(np.array(known, dtype=dtype._np).reshape(len(known)))
    parts = []
    for v, k in zip(entries, known):
        if k is not None:
            parts.append(constant(dtype._np.type(k)))
        elif v.dtype != dtype:
            parts.append(cast(v, dtype))
        else:
            parts.append(v)
    return stack(parts)


def getitem(tensor, slice_spec):
    """``tensor[slice_spec]`` with TF's semantics (a StridedSlice, or a boolean mask)."""
    if state.graph is None and not state.tapes and type(tensor) is EagerTensor:
        value = tensor._value  # the hot path: index the array directly when NumPy agrees
        shape = value.shape
        if type(slice_spec) is int:
            if shape and -shape[0] <= slice_spec < shape[0]:
                return _wrap(_result(value[slice_spec]))
        else:
            index = _plain_index(slice_spec, shape)
            if index is not None:
                return _wrap(_result(value[index]))
    try:
        return _slice_helper(tensor, slice_spec)
    except errors.InvalidArgumentError as e:
        raise type(e)(None, None, f"{e.message} name: strided_slice/") from None


_NONE = type(None)


def _plain_index(spec, shape):
    """``spec`` itself when it holds only in-range ints, int slices, ``None`` and one ellipsis:
    NumPy then means what TF means. None when the general path must decide (or raise)."""
    if type(spec) is not tuple:
        spec = (spec,)
    real, ellipsis = 0, False
    for s in spec:
        t = type(s)
        if t is int:
            real += 1
        elif t is slice:
            if (type(s.start) not in (int, _NONE) or type(s.stop) not in (int, _NONE)
                    or type(s.step) not in (int, _NONE) or s.step == 0):
                return None
            real += 1
        elif s is Ellipsis:
            if ellipsis:
                return None
            ellipsis = True
        elif s is not None:
            return None
    rank = len(shape)
    if real > rank or (real and not rank):
        return None
    dim = 0
    for s in spec:
        if type(s) is int:
            if not -shape[dim] <= s < shape[dim]:
                return None
            dim += 1
        elif s is Ellipsis:
            dim += rank - real
        elif s is not None:
            dim += 1
    return spec


def _is_mask(spec):
    return (isinstance(spec, bool) or (isinstance(spec, Tensor) and spec.dtype == D.bool)
            or (isinstance(spec, np.ndarray) and spec.dtype == bool))


def _slice_helper(tensor, slice_spec):
    if _is_mask(slice_spec):
        return boolean_mask(tensor, slice_spec)
    begin, end, strides, masks = _parse_spec(slice_spec)
    entries = begin + end + strides
    if state.graph is None:
        known = [_known_int(v) for v in entries]
        n = len(begin)
        if not state.tapes:
            try:
                index = strided_index(tensor._value.shape, known[:n], known[n:2 * n],
                                      known[2 * n:], **masks)
            except errors.InvalidArgumentError as e:
                raise type(e)(None, None, f"{e.message} [Op:StridedSlice]") from None
            return _wrap(_result(tensor._value[index]))
        dtype = _index_dtype(entries, known)
    else:
        dtype = _index_dtype(entries, [v for v in entries if not isinstance(v, Tensor)])
    return bind(STRIDED_SLICE, tensor, _index_vector(begin, dtype), _index_vector(end, dtype),
                _index_vector(strides, dtype), **masks)


Tensor._override_operator("__getitem__", getitem)


# --- GatherV2 ----------------------------------------------------------------------------------
def _check_bounds(indices, size, what="indices"):
    """Raise TF's gather error for the first index outside [0, size)."""
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = (indices < 0) | (indices >= size)
        pos = np.unravel_index(int(np.argmax(bad)), indices.shape)
        at = f"{what}[{_position(pos)}]" if indices.ndim else what
        raise invalid_argument(f"{at} = {indices[pos]} is not in [0, {size})")


def _batched_take(params, indices, axis, batch_dims):
    """Gather along ``axis`` separately for each index of the leading ``batch_dims`` dims."""
    bshape = params.shape[:batch_dims]
    nb = int(np.prod(bshape, dtype=np.int64))
    p = np.moveaxis(params.reshape((nb,) + params.shape[batch_dims:]), axis - batch_dims + 1, 1)
    ishape = indices.shape[batch_dims:]
    flat = indices.reshape(nb, int(np.prod(ishape, dtype=np.int64)))
    g = p[np.arange(nb)[:, None], flat]  # (B, I, mid..., rest...)
    mid, rest = params.shape[batch_dims:axis], params.shape[axis + 1:]
    g = g.reshape(bshape + ishape + mid + rest)
    b, i, m = len(bshape), len(ishape), len(mid)
    perm = [*range(b), *range(b + i, b + i + m), *range(b, b + i), *range(b + i + m, g.ndim)]
    return g.transpose(perm)


def _gather_axes(rank, indices_rank, axis, batch_dims):
    """Normalized (axis, batch_dims), raising TF's messages for out-of-range values."""
    if batch_dims:
        if not -indices_rank <= batch_dims <= indices_rank:
            raise invalid_argument(f"Expected batch_dims in the range [{-indices_rank}, "
                                   f"{indices_rank}], but got {batch_dims}")
        batch_dims += indices_rank if batch_dims < 0 else 0
        if batch_dims >= rank:
            raise invalid_argument(f"Shape must be at least rank {batch_dims + 1} but is rank "
                                   f"{rank}")
    ax = axis + rank if axis < 0 else axis
    if not 0 <= ax < rank:
        raise invalid_argument(f"Shape must be at least rank {abs(axis) + (axis >= 0)} but is "
                               f"rank {rank}")
    if batch_dims > ax:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis "
                               f"({ax}).")
    return ax, batch_dims


@define_op("GatherV2")
class GatherV2:
    """Slices of ``params`` along ``axis`` at ``indices`` (per batch with ``batch_dims``)."""

    check = _attr_check("GatherV2", "Tindices", INDEX, 1)

    def infer(params, indices, axis, batch_dims):
        _graph_dtype("indices", indices, INDEX)
        p, i = params.shape, indices.shape
        if p.rank is None or i.rank is None:
            return TensorSpec(None, params.dtype)
        try:
            ax, bd = _gather_axes(p.rank, i.rank, axis, batch_dims)
        except errors.InvalidArgumentError as e:
            raise _graph_error(e.message, "GatherV2", (params, indices)) from None
        lead = [a if a is not None else b for a, b in zip(p.dims[:bd], i.dims[:bd])]
        return TensorSpec(lead + p.dims[bd:ax] + i.dims[bd:] + p.dims[ax + 1:], params.dtype)

    def kernel(params, indices, axis, batch_dims):
        if np.ndim(params) == 0:
            raise invalid_argument("params must be at least 1 dimensional")
        ax, bd = _gather_axes(params.ndim, np.ndim(indices), axis, batch_dims)
        for d in range(bd):
            if params.shape[d] != indices.shape[d]:
                raise invalid_argument(f"params.shape[{d}]: {params.shape[d]} should be equal "
                                       f"to indices.shape[{d}]: {indices.shape[d]}")
        indices = np.asarray(indices)
        _check_bounds(indices, params.shape[ax])
        if bd:
            return _batched_take(params, indices, ax, bd)
        return _result(np.take(params, indices, axis=ax))


@tf_export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather``: ``params`` slices along ``axis`` picked by ``indices``.

    Raises:
        InvalidArgumentError: eagerly, for an index outside ``[0, params.shape[axis])``.
    """
    batch_dims = _static_int(batch_dims, "batch_dims")
    axis = batch_dims if axis is None else _static_int(axis, "axis")
    return bind(GatherV2, convert_to_tensor(params), convert_to_tensor(indices), axis=axis,
                batch_dims=batch_dims)


# --- GatherNd ----------------------------------------------------------------------------------
def _nd_bounds(indices, limits, message, batch_dims=0):
    """Raise ``message(position, coords)`` for the first index row outside ``limits``; with
    ``batch_dims``, the coordinates start with the row's batch position (TF prepends it)."""
    bad = ((indices < 0) | (indices >= np.asarray(limits, dtype=np.int64))).any(-1)
    if bad.any():
        pos = np.unravel_index(int(np.argmax(bad)), bad.shape)
        at = f"indices[{_position(pos)}]" if bad.ndim else "indices"
        coords = ", ".join(str(int(c)) for c in tuple(pos[:batch_dims]) + tuple(indices[pos]))
        raise invalid_argument(message(at, coords))


@define_op("GatherNd")
class GatherNd:
    """Slices of ``params`` at the coordinates in the innermost dimension of ``indices``.

    ``batch_dims`` (an attr here; TF composes it from other ops) gathers per batch entry.
    """

    check = _attr_check("GatherNd", "Tindices", INDEX, 1)

    def infer(params, indices, batch_dims):
        _graph_dtype("indices", indices, INDEX)
        i = indices.shape
        if i.rank is None or i.dims[-1] is None or params.shape.rank is None:
            return TensorSpec(None, params.dtype)
        depth = i.dims[-1]
        if depth > params.shape.rank - batch_dims:
            raise _graph_error(f"index innermost dimension length must be <= params rank; saw: "
                               f"{depth} vs. {params.shape.rank - batch_dims}", "GatherNd",
                               (params, indices))
        return TensorSpec(i.dims[:-1] + params.shape.dims[batch_dims + depth:], params.dtype)

    def kernel(params, indices, batch_dims):
        if np.ndim(params) == 0:
            raise invalid_argument("params must be at least a vector")
        if np.ndim(indices) == 0:
            raise invalid_argument("indices must be at least a vector")
        depth, bd = indices.shape[-1], batch_dims
        if depth > params.ndim - bd:
            raise invalid_argument(f"index innermost dimension length must be <= params rank; "
                                   f"saw: {depth} vs. {params.ndim - bd}")
        if params.shape[:bd] != indices.shape[:bd]:
            raise invalid_argument(f"batch dimensions of params {_dims(params.shape[:bd])} and "
                                   f"indices {_dims(indices.shape[:bd])} must match")
        _nd_bounds(indices, params.shape[bd:bd + depth], lambda at, coords: (
            f"{at} = [{coords}] does not index into param shape {_dims(params.shape)}, node "
            f"name: GatherNd"), bd)
        out_shape = indices.shape[:-1] + params.shape[bd + depth:]
        if depth == 0:  # every index row picks the whole (batch entry of) params
            lifted = params.shape[:bd] + (1,) * (indices.ndim - 1 - bd) + params.shape[bd:]
            return np.broadcast_to(params.reshape(lifted), out_shape)
        nb = int(np.prod(params.shape[:bd], dtype=np.int64))
        p = params.reshape((nb,) + params.shape[bd:])
        rows = indices.reshape(nb, int(np.prod(indices.shape[bd:-1], dtype=np.int64)), depth)
        picked = p[(np.arange(nb)[:, None],) + tuple(rows[..., j] for j in range(depth))]
        return _result(picked.reshape(out_shape))


@tf_export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """``tf.gather_nd``: slices of ``params`` at N-d coordinates."""
    return bind(GatherNd, convert_to_tensor(params), convert_to_tensor(indices),
                batch_dims=_static_int(batch_dims, "batch_dims"))


# --- ScatterNd and TensorScatter* ----------------------------------------------------------------
def _apply_scatter(out, indices, updates, ufunc):
    """Apply ``updates`` at ``indices`` to ``out`` (a fresh array) in place; ``ufunc`` None
    assigns (the last of duplicate indices wins)."""
    depth = indices.shape[-1]
    _nd_bounds(indices, out.shape[:depth], lambda at, coords: (
        f"{at} = [{coords}] does not index into shape {_dims(out.shape)}"))
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if not n or not out.size:
        return out
    flat = indices.reshape(n, depth)
    rows = np.ravel_multi_index(tuple(flat.T), out.shape[:depth]) if depth else np.zeros(n, int)
    inner = int(np.prod(out.shape[depth:], dtype=np.int64))
    target, upd = out.reshape(-1, inner), updates.reshape(n, inner)
    if ufunc is None:
        target[rows] = upd
    else:
        ufunc.at(target, rows, upd)
    return out


@define_op("ScatterNd")
class ScatterNd:
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates add)."""

    check = _attr_check("ScatterNd", "Tindices", INDEX, 0, 1)

    def infer(indices, updates, shape):
        _graph_dtype("indices", indices, INDEX)
        shape_v = static_value(shape)
        if shape_v is not None:
            return TensorSpec(shape_v.tolist(), updates.dtype)
        n = shape.shape.dims[0] if shape.shape.rank == 1 else None
        return TensorSpec(None if n is None else [None] * n, updates.dtype)

    def kernel(indices, updates, shape):
        if shape.dtype != indices.dtype:
            raise invalid_argument(
                f"cannot compute ScatterNd as input #2(zero-based) was expected to be a "
                f"{_np_name(indices.dtype)} tensor but is a {_np_name(shape.dtype)} tensor")
        shape = tuple(shape.tolist())
        updates = np.asarray(updates)
        if indices.ndim == 0:
            raise invalid_argument("Indices shape must have rank at least one. Found:[]")
        outer = indices.ndim - 1
        depth = indices.shape[-1]
        if indices.shape[:-1] != updates.shape[:outer]:
            raise invalid_argument(
                f"Dimensions [0,{outer}) of indices[shape={_dims(indices.shape)}] must match "
                f"dimensions [0,{outer}) of updates[shape={_dims(updates.shape)}]")
        if updates.shape[outer:] != shape[depth:]:
            raise invalid_argument(
                f"Dimensions [{depth},{len(shape)}) of input[shape={_dims(shape)}] must match "
                f"dimensions [{outer},{updates.ndim}) of updates[shape={_dims(updates.shape)}]")
        if updates.dtype == object:
            out = np.full(shape, b"", dtype=object)
        else:
            out = np.zeros(shape, updates.dtype)
        return _result(_apply_scatter(out, indices, updates, np.add))


@tf_export("scatter_nd")
def scatter_nd(indices, updates, shape, name=None):
    """``tf.scatter_nd``: scatter ``updates`` into a new zero tensor of ``shape``."""
    indices, shape = _same_dtype_operands(indices, shape)
    return bind(ScatterNd, indices, convert_to_tensor(updates), shape)


def _tensor_scatter_check(tensor, indices, updates):
    """TF's shape checks for TensorScatter*: outer dims match, inner dims match the output."""
    if updates.ndim == 0 and indices.ndim:
        raise invalid_argument(f"Updates shape must have rank at least one. Found:"
                               f"{_dims(updates.shape)}")
    outer = indices.ndim - 1
    depth = indices.shape[-1]
    if indices.shape[:-1] != updates.shape[:outer]:
        raise invalid_argument(f"Outer dimensions of indices and update must match. Indices "
                               f"shape: {_dims(indices.shape)}, updates shape:"
                               f"{_dims(updates.shape)}")
    inner = tensor.ndim - depth
    if inner < 0:
        raise invalid_argument(f"Inner dimensions of output shape must match inner dimensions of "
                               f"updates shape. Output: {_dims(tensor.shape)} updates: "
                               f"{_dims(updates.shape)}")
    if updates.shape[outer:] != tensor.shape[depth:]:
        raise invalid_argument(f"The inner {inner} dimensions of output.shape="
                               f"{_dims(tensor.shape)} must match the inner {inner} dimensions "
                               f"of updates.shape={_dims(updates.shape)}")


def _tensor_scatter(name, ufunc, allowed):
    def infer(tensor, indices, updates):
        _graph_dtype("indices", indices, INDEX32)
        check_dtypes(name, (tensor, updates), None, ("tensor", "updates"))
        return TensorSpec(tensor.shape, tensor.dtype)

    def kernel(tensor, indices, updates):
        tensor, updates = np.asarray(tensor), np.asarray(updates)
        _tensor_scatter_check(tensor, indices, updates)
        return _result(_apply_scatter(tensor.copy(), indices, updates, ufunc))

    check = _checks(_attr_check(name, "Tindices", INDEX32, 1), _same_check(name, 0, 2),
                    _kernel_check(name, allowed))
    return register(OpDef(name, infer, kernel, check=check))


_SCATTERS = {
    "tensor_scatter_nd_update": ("TensorScatterUpdate", None, ALL),
    "tensor_scatter_nd_add": ("TensorScatterAdd", np.add, NUMERIC),
    "tensor_scatter_nd_sub": ("TensorScatterSub", np.subtract, NUMERIC),
    "tensor_scatter_nd_max": ("TensorScatterMax", np.maximum, REAL),
    "tensor_scatter_nd_min": ("TensorScatterMin", np.minimum, REAL),
}
TENSOR_SCATTER = {public: _tensor_scatter(op, ufunc, allowed)
                  for public, (op, ufunc, allowed) in _SCATTERS.items()}


def _tensor_scatter_fn(public):
    opdef = TENSOR_SCATTER[public]

    def fn(tensor, indices, updates, name=None):
        tensor = convert_to_tensor(tensor)
        return bind(opdef, tensor, convert_to_tensor(indices), _to_tensor_like(updates, tensor))

    fn.__name__ = public
    fn.__doc__ = f"``tf.{public}``: a copy of ``tensor`` with ``updates`` applied at ``indices``."
    return tf_export(public)(fn)


tensor_scatter_nd_update = _tensor_scatter_fn("tensor_scatter_nd_update")
tensor_scatter_nd_add = _tensor_scatter_fn("tensor_scatter_nd_add")
tensor_scatter_nd_sub = _tensor_scatter_fn("tensor_scatter_nd_sub")
tensor_scatter_nd_max = _tensor_scatter_fn("tensor_scatter_nd_max")
tensor_scatter_nd_min = _tensor_scatter_fn("tensor_scatter_nd_min")


# --- boolean_mask ------------------------------------------------------------------------------
@tf_export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """``tf.boolean_mask``: the entries of ``tensor`` where ``mask`` (over dims from ``axis``) is
    true; the leading masked dims collapse into one of dynamic size.

    Raises:
        ValueError: for a scalar mask, a mask of unknown rank, or incompatible shapes.
    """
    tensor, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    k = mask.shape.rank
    if k is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions "
                         "are None.  E.g. shape=[None] is ok, but shape=None is not")
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else _static_int(axis, "axis")
    rank = tensor.shape.rank
    if rank is not None:
        tensor.shape[axis:axis + k].assert_is_compatible_with(mask.shape)
    coords = where(mask)
    if axis == 0:
        return gather_nd(tensor, coords)
    if k == 1:
        return gather(tensor, coords[:, 0], axis=axis)
    if rank is None:
        raise ValueError("boolean_mask with a multi-dimensional mask and axis > 0 needs a tensor "
                         "of known rank.")
    front = list(range(axis, axis + k)) + list(range(axis)) + list(range(axis + k, rank))
    picked = gather_nd(transpose(tensor, front), coords)
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, picked.shape.rank))
    return transpose(picked, back)


# --- TopKV2, sort and argsort ------------------------------------------------------------------
TopKV2Result = collections.namedtuple("TopKV2", ["values", "indices"])


def _descending_order(x):
    """Indices sorting the last axis in descending order, ties by lower index, NaN first."""
    n = x.shape[-1]
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order


@define_op("TopKV2")
class TopKV2:
    """The ``k`` largest entries of the last axis and their indices (ties: lower index first)."""

    check = _checks(_attr_check("TopKV2", "T", _TOPK_TYPES, 0),
                    _attr_check("TopKV2", "Tk", INDEX, 1))

    def infer(x, k, sorted, index_type):
        check_dtypes("TopKV2", (x,), _TOPK_TYPES, ("input",))
        _graph_dtype("k", k, INDEX)
        rank = x.shape.rank
        if rank == 0:
            raise _graph_error("Shape must be at least rank 1 but is rank 0", "TopKV2", (x, k))
        k_v = static_value(k)
        k_v = None if k_v is None else int(k_v)
        if rank is None:
            return TensorSpec(None, x.dtype), TensorSpec(None, index_type)
        last = x.shape.dims[-1]
        if k_v is not None and last is not None and last < k_v:
            raise _graph_error(f"input must have last dimension >= k = {k_v} but is {last}",
                               "TopKV2", (x, k))
        shape = x.shape.dims[:-1] + [k_v]
        return TensorSpec(shape, x.dtype), TensorSpec(shape, index_type)

    def kernel(x, k, sorted, index_type):
        if np.ndim(x) == 0:
            raise invalid_argument("input must be >= 1-D, got shape []")
        if np.ndim(k):
            raise invalid_argument(f"k must be scalar, got shape {_dims(np.shape(k))}")
        k = int(k)
        if k < 0:
            raise invalid_argument(f"Need k >= 0, got {k}")
        if x.shape[-1] < k:
            raise invalid_argument(f"input must have at least k columns. Had {x.shape[-1]}, "
                                   f"needed {k}")
        order = _descending_order(x)[..., :k]
        return np.take_along_axis(x, order, -1), order.astype(index_type._np)


@tf_export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=D.int32, name=None):
    """``tf.math.top_k``: ``TopKV2(values, indices)`` of the ``k`` largest entries of the last
    axis. The order of ``sorted=False`` results is unspecified in TF; here they are sorted."""
    x = convert_to_tensor(input)
    k = k if isinstance(k, Tensor) else convert_to_tensor(k, D.int32)
    values, indices = bind(TopKV2, x, k, sorted=bool(sorted), index_type=D.as_dtype(index_type))
    return TopKV2Result(values, indices)


def _last_dim_size(values, axis):
    """``tf.shape(values)[axis]`` (a constant when that dim is known), with TF's errors."""
    dims = values.shape.dims
    if dims is not None and -len(dims) <= axis < len(dims) and dims[axis] is not None:
        return constant(np.int32(dims[axis]))
    return _shape_tensor(values)[axis]


def _descending_sort(values, axis, return_argsort):
    k = _last_dim_size(values, axis)
    rank = values.shape.rank
    perm = None
    if axis != -1 and (rank is None or axis + 1 != rank):
        if rank is None:
            raise ValueError("Sorting along an axis other than the last needs a known rank.")
        axis += rank if axis < 0 else 0
        perm = list(range(axis)) + [rank - 1] + list(range(axis + 1, rank - 1)) + [axis]
        values = transpose(values, perm)
    sorted_values, indices = bind(TopKV2, values, k, sorted=True, index_type=D.int32)
    out = indices if return_argsort else sorted_values
    return out if perm is None else transpose(out, perm)


def _sort_or_argsort(values, axis, direction, return_argsort):
    """TF's sort: a descending top-k over the whole axis; ascending sorts negated values."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    axis_v = static_value(axis) if isinstance(axis, Tensor) else np.asarray(axis)
    if axis_v is None or np.ndim(axis_v) != 0:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    axis = int(axis_v)
    values = convert_to_tensor(values)
    if direction == "DESCENDING":
        return _descending_sort(values, axis, return_argsort)
    dtype = values.dtype
    if dtype.is_unsigned:
        out = _descending_sort(dtype.max - values, axis, return_argsort)
        return out if return_argsort else dtype.max - out
    if dtype.is_integer:
        out = _descending_sort(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort`` along ``axis`` (a constant). NaN sorts first, as in TF."""
    return _sort_or_argsort(values, axis, direction, False)


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 indices that sort ``values`` along ``axis``; always stable."""
    return _sort_or_argsort(values, axis, direction, True)


# --- Unique ------------------------------------------------------------------------------------
UniqueResult = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCountsResult = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
_UNIQUE_TYPES = REAL + BOOL + (D.string,)


def _unique(x):
    """Unique values in order of first occurrence, the index of each entry, and counts."""
    kw = {} if x.dtype == object else {"equal_nan": False}
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, **kw)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return x[first[order]], rank[inverse.reshape(-1)], counts[order]


def _unique_infer(x, out_idx):
    if x.shape.rank not in (None, 1):
        raise _graph_error(f"Shape must be rank 1 but is rank {x.shape.rank}", "Unique", (x,))
    return TensorSpec([None], x.dtype), TensorSpec(x.shape if x.shape.rank else [None], out_idx)


def _unique_kernel(x, out_idx):
    if np.ndim(x) != 1:
        raise invalid_argument("unique expects a 1D vector.")
    y, idx, _ = _unique(x)
    return y, idx.astype(out_idx._np)


def _unique_counts_infer(x, out_idx):
    y, idx = _unique_infer(x, out_idx)
    return y, idx, TensorSpec([None], out_idx)


def _unique_counts_kernel(x, out_idx):
    if np.ndim(x) != 1:
        raise invalid_argument("unique expects a 1D vector.")
    y, idx, counts = _unique(x)
    return y, idx.astype(out_idx._np), counts.astype(out_idx._np)


UNIQUE = register(OpDef("Unique", _unique_infer, _unique_kernel, grad=NON_DIFFERENTIABLE,
                        check=_kernel_check("Unique", _UNIQUE_TYPES)))
UNIQUE_WITH_COUNTS = register(OpDef(
    "UniqueWithCounts", _unique_counts_infer, _unique_counts_kernel, grad=NON_DIFFERENTIABLE,
    check=_kernel_check("UniqueWithCounts", _UNIQUE_TYPES)))


def _out_idx(out_idx, op):
    out_idx = D.as_dtype(out_idx)
    if out_idx not in INDEX32:
        raise invalid_argument(f"Value for attr 'out_idx' of {c_name(out_idx)} is not in the list "
                               f"of allowed values: int32, int64", op)
    return out_idx


@tf_export("unique")
def unique(x, out_idx=D.int32, name=None):
    """``tf.unique``: ``Unique(y, idx)``, ``y`` in order of first occurrence, ``x == y[idx]``."""
    y, idx = bind(UNIQUE, convert_to_tensor(x), out_idx=_out_idx(out_idx, "Unique"))
    return UniqueResult(y, idx)


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=D.int32, name=None):
    """``tf.unique_with_counts``: ``UniqueWithCounts(y, idx, count)``."""
    y, idx, count = bind(UNIQUE_WITH_COUNTS, convert_to_tensor(x),
                         out_idx=_out_idx(out_idx, "UniqueWithCounts"))
    return UniqueWithCountsResult(y, idx, count)


# --- segment reductions ------------------------------------------------------------------------
# kind -> (ufunc, value of an empty segment in the unsorted ops, allowed dtypes)
_REDUCERS = {
    "Sum": (np.add, lambda dt: 0, NUMERIC),
    "Prod": (np.multiply, lambda dt: 1, NUMERIC),
    "Max": (np.maximum, lambda dt: D.from_numpy(dt).min, REAL),
    "Min": (np.minimum, lambda dt: D.from_numpy(dt).max, REAL),
}


def _segment_reduce(data, ids, rows, kind):
    """Reduce the rows of ``data`` (flattened to match ``ids``) into ``rows`` segments."""
    ufunc, empty, _ = _REDUCERS[kind]
    flat_ids = ids.reshape(-1)
    flat = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
    keep = flat_ids >= 0
    if not keep.all():
        flat_ids, flat = flat_ids[keep], flat[keep]
    out = np.full((rows,) + data.shape[ids.ndim:], empty(data.dtype), dtype=data.dtype)
    ufunc.at(out, flat_ids, flat)
    return out


def _unsorted_segment(kind):
    name = f"UnsortedSegment{kind}"

    def infer(data, segment_ids, num_segments):
        _graph_dtype("segment_ids", segment_ids, INDEX)
        n = static_value(num_segments)
        if data.shape.rank is None or segment_ids.shape.rank is None:
            return TensorSpec(None, data.dtype)
        rest = data.shape.dims[segment_ids.shape.rank:]
        return TensorSpec([None if n is None else int(n)] + rest, data.dtype)

    def kernel(data, segment_ids, num_segments):
        n = int(num_segments)
        if n < 0:
            raise invalid_argument(f"Input num_segments == {n} must not be negative.")
        if np.shape(data)[:np.ndim(segment_ids)] != np.shape(segment_ids):
            raise invalid_argument(f"data.shape = {_dims(np.shape(data))} does not start with "
                                   f"segment_ids.shape = {_dims(np.shape(segment_ids))}")
        ids = np.asarray(segment_ids)
        if ids.size and ids.max() >= n:
            pos = np.unravel_index(int(np.argmax(ids >= n)), ids.shape)
            raise invalid_argument(f"segment_ids[{_position(pos)}] = {ids[pos]} is out of range "
                                   f"[0, {n})")
        return _segment_reduce(np.asarray(data), ids, n, kind)

    allowed = _REDUCERS[kind][2]
    check = _checks(_attr_check(name, "T", allowed, 0), _attr_check(name, "Tindices", INDEX, 1),
                    _attr_check(name, "Tnumsegments", INDEX32, 2))
    return register(OpDef(name, infer, kernel, check=check))


def _sorted_segment_runs(ids):
    """Validate sorted segment ids as TF's SegmentReduction does; returns the output rows."""
    if ids.ndim != 1:
        raise invalid_argument("segment_ids should be a vector.")
    if not ids.size:
        return 0
    rows = int(ids[-1]) + 1
    if ids[-1] < 0:
        raise invalid_argument("segment ids must be >= 0")
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    run_ids = ids[starts]
    decreasing = np.r_[run_ids[1:] < run_ids[:-1], False]
    outside = (run_ids < 0) | (run_ids >= rows)
    bad = decreasing | outside
    if bad.any():
        r = int(np.argmax(bad))
        if decreasing[r]:
            raise invalid_argument("segment ids are not increasing")
        raise invalid_argument(f"Segment id {run_ids[r]} out of range [0, {rows}), possibly "
                               f"because 'segment_ids' input is not sorted.")
    return rows


def _sorted_segment(kind):
    name = f"Segment{kind}"

    def infer(data, segment_ids):
        _graph_dtype("segment_ids", segment_ids, INDEX)
        if data.shape.rank is None:
            return TensorSpec(None, data.dtype)
        return TensorSpec([None] + data.shape.dims[1:], data.dtype)

    def kernel(data, segment_ids):
        ids = np.asarray(segment_ids)
        data = np.asarray(data)
        if ids.ndim == 1 and (data.ndim == 0 or ids.shape[0] != data.shape[0]):
            raise invalid_argument("segment_ids should be the same size as dimension 0 of input.")
        rows = _sorted_segment_runs(ids)
        counts = np.bincount(ids, minlength=rows).reshape((rows,) + (1,) * (data.ndim - 1))
        if kind == "Mean":
            total = _segment_reduce(data, ids, rows, "Sum")
            with np.errstate(all="ignore"):
                mean = total / np.maximum(counts, 1)
            return (np.trunc(mean) if data.dtype.kind in "iu" else mean).astype(data.dtype)
        out = _segment_reduce(data, ids, rows, kind)
        if kind in ("Max", "Min"):
            out[np.broadcast_to(counts == 0, out.shape)] = 0  # TF leaves empty segments at 0
        return out

    allowed = NUMERIC if kind == "Mean" else _REDUCERS[kind][2]
    check = _checks(_attr_check(name, "T", allowed, 0), _attr_check(name, "Tindices", INDEX, 1))
    return register(OpDef(name, infer, kernel, check=check))


UNSORTED_SEGMENT = {kind: _unsorted_segment(kind) for kind in _REDUCERS}
SEGMENT = {kind: _sorted_segment(kind) for kind in (*_REDUCERS, "Mean")}


def _unsorted_segment_fn(kind):
    opdef = UNSORTED_SEGMENT[kind]

    def fn(data, segment_ids, num_segments, name=None):
        return bind(opdef, convert_to_tensor(data), convert_to_tensor(segment_ids),
                    convert_to_tensor(num_segments))

    fn.__name__ = f"unsorted_segment_{kind.lower()}"
    fn.__doc__ = (f"``tf.math.{fn.__name__}``: the {kind.lower()} of ``data`` rows per segment id; "
                  f"negative ids are dropped.")
    return tf_export(f"math.{fn.__name__}")(fn)


def _segment_fn(kind):
    opdef = SEGMENT[kind]

    def fn(data, segment_ids, name=None):
        return bind(opdef, convert_to_tensor(data), convert_to_tensor(segment_ids))

    fn.__name__ = f"segment_{kind.lower()}"
    fn.__doc__ = (f"``tf.math.{fn.__name__}``: the {kind.lower()} of ``data`` rows per sorted "
                  f"segment id (empty segments give 0).")
    return tf_export(f"math.{fn.__name__}")(fn)


unsorted_segment_sum = _unsorted_segment_fn("Sum")
unsorted_segment_prod = _unsorted_segment_fn("Prod")
unsorted_segment_max = _unsorted_segment_fn("Max")
unsorted_segment_min = _unsorted_segment_fn("Min")
segment_sum = _segment_fn("Sum")
segment_prod = _segment_fn("Prod")
segment_max = _segment_fn("Max")
segment_min = _segment_fn("Min")
segment_mean = _segment_fn("Mean")


# --- LowerBound / UpperBound (searchsorted) -----------------------------------------------------
_SEARCH_BLOCK = 1 << 20  # compare all pairs at once below this many comparisons


def _bound_kernel(side):
    def kernel(sorted_inputs, values, out_type):
        seq, vals = np.asarray(sorted_inputs), np.asarray(values)
        rows = int(np.prod(seq.shape[:-1], dtype=np.int64))  # TF flattens the leading dims
        if rows != int(np.prod(vals.shape[:-1], dtype=np.int64)):
            raise invalid_argument("Leading dim_size of both tensors must match.")
        seq, flat = seq.reshape(rows, seq.shape[-1]), vals.reshape(rows, vals.shape[-1])
        if rows == 1:
            out = np.searchsorted(seq[0], flat[0], side)
        elif seq.size * flat.shape[-1] <= _SEARCH_BLOCK:
            less = np.less if side == "left" else np.less_equal
            out = less(seq[:, None, :], flat[:, :, None]).sum(-1)
        else:  # one vectorised search per row: rows are few when they are long
            out = np.stack([np.searchsorted(s, v, side) for s, v in zip(seq, flat)])
        return out.reshape(vals.shape).astype(out_type._np)

    return kernel


def _bound_op(name, side):
    def infer(sorted_inputs, values, out_type):
        check_dtypes(name, (sorted_inputs, values), None, ("sorted_inputs", "values"))
        return TensorSpec(values.shape, out_type)

    check = _checks(_same_check(name, 0, 1), _kernel_check(name, REAL))
    return register(OpDef(name, infer, _bound_kernel(side), grad=NON_DIFFERENTIABLE, check=check))


LOWER_BOUND = _bound_op("LowerBound", "left")
UPPER_BOUND = _bound_op("UpperBound", "right")


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=D.int32, name=None):
    """``tf.searchsorted``: insertion points of ``values`` in each innermost sorted row."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = "
                         f"'{side}'.")
    seq, values = _same_dtype_operands(sorted_sequence, values)
    for t in (seq, values):
        if t.shape.rank == 0:
            _shape_tensor(t)[-1]  # TF reads shape(x)[-1]: the same error for a scalar
    return bind(LOWER_BOUND if side == "left" else UPPER_BOUND, seq, values,
                out_type=D.as_dtype(out_type))


# --- Roll --------------------------------------------------------------------------------------
@define_op("Roll")
class Roll:
    """Elements shifted along ``axis`` (an attr here) by ``shift`` with wrap-around."""

    check = _attr_check("Roll", "Tshift", INDEX32, 1)

    def infer(x, shift, axis):
        _graph_dtype("shift", shift, INDEX32)
        return TensorSpec(x.shape, x.dtype)

    def kernel(x, shift, axis):
        if np.ndim(x) == 0:
            raise invalid_argument("input must be 1-D or higher")
        shifts = np.reshape(shift, -1).tolist()
        axes = list(axis) if isinstance(axis, tuple) else [axis]
        if np.ndim(shift) != (1 if isinstance(axis, tuple) else 0) or len(shifts) != len(axes):
            raise invalid_argument("shift and axis must have the same size")
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise invalid_argument(f"axis {a + x.ndim if a < 0 else a} is out of range")
        return np.roll(x, shifts, axes)


@tf_export("roll")
def roll(input, shift, axis, name=None):
    """``tf.roll``: rotate ``input`` by ``shift`` along ``axis`` (ints or lists of ints)."""
    return bind(Roll, convert_to_tensor(input), convert_to_tensor(shift),
                axis=_static_ints(axis, "axis"))


# --- Einsum ------------------------------------------------------------------------------------
def _resolve_equation(equation, n_inputs):
    """Explicit form of an einsum equation (``"ij,jk"`` -> ``"ij,jk->ik"``), validated as TF."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != n_inputs:
        raise ValueError(f'Got {n_inputs} inputs for equation "{equation}", expecting '
                         f"{len(specs)}")
    labels = "".join(s.replace("...", "") for s in specs)
    if not arrow:
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        rhs = ("..." if "..." in lhs else "") + "".join(once)
    for c in rhs.replace("...", ""):
        if c not in labels:
            raise ValueError(f"Output subscripts contain the label {c} not present in the input "
                             f"subscripts.")
    return f"{lhs}->{rhs}", specs, rhs


def _labelled_dims(spec, dims):
    """(label, dim) pairs of one operand and its ellipsis dims (None when there is none)."""
    if "..." not in spec:
        return list(zip(spec, dims)), None
    pre, post = spec.split("...")
    n_ell = len(dims) - len(pre) - len(post)
    pairs = list(zip(pre, dims[:len(pre)])) + list(zip(post, dims[len(dims) - len(post):]))
    return pairs, dims[len(pre):len(pre) + n_ell]


def _einsum_infer(*inputs, equation):
    check_dtypes("Einsum", inputs, None, [f"inputs_{i}" for i in range(len(inputs))])
    dtype = inputs[0].dtype
    _, specs, rhs = _resolve_equation(equation, len(inputs))
    sizes, ellipsis = {}, TensorShape([])
    for spec, t in zip(specs, inputs):
        if t.shape.rank is None:
            if "..." in spec:
                ellipsis = TensorShape(None)
            continue
        pairs, ell = _labelled_dims(spec, t.shape.dims)
        if ell is not None:
            ellipsis = broadcast_shape(ellipsis, TensorShape(ell), "Einsum")
        for label, d in pairs:
            known = sizes.get(label)
            if known is not None and d is not None and known != d:
                raise _graph_error(f"Dimensions must be equal, but are {known} and {d}",
                                   "Einsum", inputs)
            if known is None:
                sizes[label] = d
    if "..." in rhs and ellipsis.rank is None:
        return TensorSpec(None, dtype)
    pre, _, post = rhs.partition("...")
    dims = ([sizes.get(c) for c in pre] + (ellipsis.dims if "..." in rhs else [])
            + [sizes.get(c) for c in post])
    return TensorSpec(dims, dtype)


def _einsum_kernel(*arrays, equation):
    _, specs, _ = _resolve_equation(equation, len(arrays))
    sizes = {}
    for i, (spec, a) in enumerate(zip(specs, arrays)):
        shape = np.shape(a)
        n_labels = len(spec.replace("...", ""))
        if len(shape) != n_labels and ("..." not in spec or len(shape) < n_labels):
            raise invalid_argument(f"Expected input {i} to have rank {n_labels} but got: "
                                   f"{len(shape)}")
        pairs, _ = _labelled_dims(spec, list(shape))
        positions = _label_axes(spec, len(shape))
        for (label, d), axis in zip(pairs, positions):
            expected = sizes.setdefault(label, d)
            if expected != d:
                raise invalid_argument(f"Expected dimension {expected} at axis {axis} of the "
                                       f"input shaped {_dims(shape)} but got dimension {d}")
    # planning costs ~10us; it pays off (BLAS contractions) beyond tiny operands
    plan = len(arrays) > 2 or sum(np.size(a) for a in arrays) > 256
    out = np.einsum(equation, *arrays, optimize="greedy" if plan else False)
    return _result(np.asarray(out).astype(arrays[0].dtype, copy=False))


def _label_axes(spec, rank):
    """The axis of each labelled dim of an operand, in ``_labelled_dims`` order."""
    if "..." not in spec:
        return list(range(len(spec)))
    pre, post = spec.split("...")
    return list(range(len(pre))) + list(range(rank - len(post), rank))


def _einsum_check(arrays):
    for i in range(1, len(arrays)):
        _same_check("Einsum", 0, i)(arrays)
    _kernel_check("Einsum", _EINSUM_TYPES)(arrays)


EINSUM = register(OpDef("Einsum", _einsum_infer, _einsum_kernel, check=_einsum_check))


@tf_export("einsum", "linalg.einsum")
def einsum(equation, *inputs, **kwargs):
    """``tf.einsum``: the tensor contraction written as an equation (``"ij,jk->ik"``)."""
    unknown = sorted(set(kwargs) - {"name", "optimize"})
    if unknown:
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(unknown)}. Valid "
                        f"arguments: name, optimize, greedy.")
    tensors = [convert_to_tensor(x) for x in inputs]
    resolved, _, _ = _resolve_equation(equation, len(tensors))
    return bind(EINSUM, *tensors, equation=resolved)


# --- gradients -----------------------------------------------------------------------------------
# Written with public ops (see math.py's gradients); they follow TF's array_grad.py and
# math_grad.py, except that gather's gradient is a dense tensor (TF's is IndexedSlices).
def _grad_util():
    from ...autodiff import grad_util

    return grad_util


def _public(name):
    from ..array import public

    return public(name)


def _known_rank(t, what):
    if t.shape.rank is None:
        raise NotImplementedError(f"the gradient of {what} needs inputs of known rank")
    return t.shape.rank


def _permuted(x, perm):
    return x if perm == sorted(perm) else transpose(x, perm)


def _dims_of(t, axes):
    """The sizes of ``t`` along ``axes``: a list of ints when static, else an int32 tensor."""
    dims = _grad_util().static_dims(t)
    if dims is not None:
        return [dims[a] for a in axes]
    return gather(tf_shape(t), list(axes)) if axes else constant(np.zeros(0, np.int32))


def _gather_grad(op, dy):
    """A dense scatter-add of dy into params' shape: move the gathered dims first, sum the rows
    per index (per batch entry with ``batch_dims``), move the axis back."""
    params, indices = op.inputs
    pr, ir = _known_rank(params, "gather"), _known_rank(indices, "gather")
    a, b = op.attrs["axis"] % pr, op.attrs["batch_dims"]
    b += ir if b < 0 else 0
    m, j = a - b, ir - b
    rank = dy.shape.rank if dy.shape.rank is not None else pr - 1 + ir - b
    perm = [*range(b), *range(b + m, b + m + j), *range(b, b + m), *range(b + m + j, rank)]
    moved = _permuted(dy, perm)
    d = _dims_of(params, [a])
    d = d[0] if isinstance(d, list) else d[0]
    segment_sum = _public("math.unsorted_segment_sum")
    if not b:
        summed = segment_sum(moved, indices, d)
    else:
        batch = _dims_of(params, range(b))
        nb = int(np.prod(batch)) if isinstance(batch, list) else _public("reduce_prod")(batch)
        lead = batch if isinstance(batch, list) else tf_shape(indices)[:b]
        offsets = _public("reshape")(_public("range")(nb) * d,
                                     _public("concat")([lead, [1] * j], 0))
        ids = indices + cast(offsets, indices.dtype)
        summed = segment_sum(moved, ids, nb * d)
        order = [*range(b), a, *range(b, a), *range(a + 1, pr)]
        summed = _public("reshape")(summed, _dims_of(params, order))
    back = [*range(b), *range(b + 1, b + 1 + m), b, *range(b + 1 + m, pr)]
    return _permuted(summed, back), None


def _full_nd_indices(indices, b):
    """``indices`` with the coordinates of their batch entry prepended (GatherNd batch_dims)."""
    rank = _known_rank(indices, "gather_nd")
    outer = tf_shape(indices)[:-1]
    coords = []
    for k in range(b):
        n = tf_shape(indices)[k]
        grid = _public("reshape")(_public("range")(n), [1] * k + [-1] + [1] * (rank - 2 - k))
        coords.append(_public("broadcast_to")(cast(grid, indices.dtype), outer))
    return _public("concat")([stack(coords, axis=-1), indices], -1)


def _gather_nd_grad(op, dy):
    params, indices = op.inputs
    b = op.attrs["batch_dims"]
    if b:
        indices = _full_nd_indices(indices, b)
    shape = _grad_util().shape_of(params)
    shape = convert_to_tensor(shape, indices.dtype) if isinstance(shape, list) else \
        cast(shape, indices.dtype)
    return scatter_nd(indices, dy, shape), None


def _slice_grad(op, dy):
    """dy padded back to the input's shape."""
    x, begin, _ = op.inputs
    xd, yd, b = _grad_util().static_dims(x), _grad_util().static_dims(op.outputs[0]), \
        static_value(begin)
    if xd is not None and yd is not None and b is not None:
        b = b.tolist()
        paddings = [[bi, n - bi - k] for bi, n, k in zip(b, xd, yd)]
    else:
        after = tf_shape(x, begin.dtype) - tf_shape(op.outputs[0], begin.dtype) - begin
        paddings = stack([begin, after], axis=1)
    return _public("pad")(dy, paddings), None, None


def _strided_slice_grad(op, dy):
    x, begin, end, strides = op.inputs
    dims = _grad_util().static_dims(x)
    shape = constant(np.array(dims, begin.dtype._np)) if dims is not None else \
        tf_shape(x, begin.dtype)
    return (strided_slice_grad(shape, begin, end, strides, dy, **op.attrs),
            None, None, None)


def _scatter_nd_grad(op, dy):
    return None, gather_nd(dy, op.inputs[0]), None


def _tensor_scatter_update_grad(op, dy):
    _, indices, updates = op.inputs
    from ..array import zeros_like

    return (tensor_scatter_nd_update(dy, indices, zeros_like(updates)), None,
            gather_nd(dy, indices))


def _tensor_scatter_extreme_grad(op, dy):
    """Ties between the tensor and its updates share the gradient, as in TF."""
    x, indices, y = op.inputs
    out = op.outputs[0]
    x_hits = cast(_public("math.equal")(x, out), dy.dtype)
    y_hits = cast(_public("math.equal")(y, gather_nd(out, indices)), dy.dtype)
    shape = tf_shape(x, indices.dtype)
    hits = x_hits + scatter_nd(indices, y_hits, shape)
    return dy * x_hits / hits, None, gather_nd(dy / hits, indices) * y_hits


def _top_k_grad(op, dy, _):
    """dy scattered to the positions the indices name in each row."""
    x, indices = op.inputs[0], op.outputs[1]
    reshape, size = _public("reshape"), _public("size")
    n = tf_shape(x)[-1] if x.shape.rank is None or x.shape[-1] is None else x.shape[-1]
    k = tf_shape(indices)[-1] if indices.shape.rank is None or indices.shape[-1] is None \
        else indices.shape[-1]
    rows = reshape(indices, stack([-1, k]) if not isinstance(k, int) else [-1, k])
    starts = _public("range")(0, tf_shape(rows)[0] * n, n)
    flat = reshape(rows + cast(_public("expand_dims")(starts, -1), rows.dtype), [-1])
    dims = _grad_util().static_dims(x)
    total = [int(np.prod(dims))] if dims is not None else _public("expand_dims")(size(x), 0)
    total = convert_to_tensor(total, flat.dtype) if isinstance(total, list) else \
        cast(total, flat.dtype)
    dense = scatter_nd(_public("expand_dims")(flat, -1), reshape(dy, [-1]), total)
    return reshape(dense, _grad_util().shape_of(x)), None


def _roll_grad(op, dy):
    return roll(dy, -op.inputs[1], op.attrs["axis"]), None


def _segment_sum_grad(op, dy):
    return gather(dy, op.inputs[1]), None


def _segment_mean_grad(op, dy):
    data, ids = op.inputs
    rank = _known_rank(data, "segment_mean")
    ones_shape = _public("concat")([tf_shape(ids), [1] * (rank - 1)], 0)
    counts = segment_sum(_public("ones")(ones_shape, dy.dtype), ids)
    return gather(_public("math.divide")(dy, counts), ids), None


def _segment_extreme_grad(op, dy):
    data, ids = op.inputs
    from ..array import zeros_like

    selected = _public("math.equal")(data, gather(op.outputs[0], ids))
    count = segment_sum(cast(selected, dy.dtype), ids)
    return where(selected, gather(_public("math.divide")(dy, count), ids), zeros_like(data)), \
        None


def _segment_prod_grad(op, dy):
    """Segments with no zero divide their product by each element; with one zero only the
    zero gets the product of the others; with two or more every gradient is 0 (TF's rule)."""
    data, ids = op.inputs
    from ..array import ones_like, zeros_like

    is_zero = _public("math.equal")(data, 0)
    zeros_per = segment_sum(cast(is_zero, D.int32), ids)
    dy = where(_public("math.greater")(zeros_per, 1), zeros_like(dy), dy)
    safe = where(is_zero, ones_like(data), data)
    nonzero_prod = segment_prod(safe, ids)
    partial = where(is_zero, gather(nonzero_prod, ids), gather(op.outputs[0], ids) / safe)
    return gather(dy, ids) * partial, None


def _gather_drop_negatives(params, ids, clipped=None, positive=None):
    """gather(params, ids) with zeros where ids are negative (the unsorted segment rules)."""
    from ..array import zeros_like

    if clipped is None:
        clipped = _public("math.maximum")(ids, zeros_like(ids))
    gathered = gather(params, clipped)
    if positive is None:
        positive = _public("math.greater_equal")(ids, 0)
        extra = gathered.shape.rank - ids.shape.rank if gathered.shape.rank is not None and \
            ids.shape.rank is not None else None
        if extra is None:
            raise NotImplementedError("unsorted segment gradients need inputs of known rank")
        positive = _public("reshape")(positive, _public("concat")(
            [tf_shape(positive), [1] * extra], 0))
        positive = _public("math.logical_and")(
            positive, _public("ones_like")(gathered, dtype=D.bool))
    return where(positive, gathered, zeros_like(gathered)), clipped, positive


def _unsorted_segment_sum_grad(op, dy):
    return _gather_drop_negatives(dy, op.inputs[1])[0], None, None


def _unsorted_segment_extreme_grad(op, dy):
    data, ids, n = op.inputs
    from ..array import zeros_like

    gathered, clipped, positive = _gather_drop_negatives(op.outputs[0], ids)
    selected = _public("math.logical_and")(_public("math.equal")(data, gathered), positive)
    count = unsorted_segment_sum(cast(selected, dy.dtype), ids, n)
    spread, _, _ = _gather_drop_negatives(_public("math.divide")(dy, count), None, clipped,
                                          positive)
    return where(selected, spread, zeros_like(spread)), None, None


def _unsorted_segment_prod_grad(op, dy):
    data, ids, n = op.inputs
    from ..array import ones_like, zeros_like

    is_zero = _public("math.equal")(data, 0)
    zeros_per = unsorted_segment_sum(cast(is_zero, D.int32), ids, n)
    dy = where(_public("math.greater")(zeros_per, 1), zeros_like(dy), dy)
    safe = where(is_zero, ones_like(data), data)
    nonzero_prod = unsorted_segment_prod(safe, ids, n)
    clipped = _public("math.maximum")(ids, zeros_like(ids))
    partial = where(is_zero, gather(nonzero_prod, clipped), gather(op.outputs[0], clipped) / data)
    spread = _gather_drop_negatives(dy, ids, clipped)[0]
    return spread * partial, None, None


def _einsum_grad(op, dy):
    """Each operand's gradient is an einsum of dy with the other operands; labels summed away
    within one operand only are broadcast back, and broadcast ellipsis dims summed."""
    equation = op.attrs["equation"]
    lhs, rhs = equation.split("->")
    specs = lhs.split(",")
    grads = []
    conj = _public("math.conj")
    skip = getattr(op, "skip_input_indices", ())
    for i, (spec, x) in enumerate(zip(specs, op.inputs)):
        if i in skip:
            grads.append(None)
            continue
        plain = spec.replace("...", "")
        if len(set(plain)) != len(plain):
            raise NotImplementedError(f"the gradient of einsum {equation!r}: repeated labels "
                                      "within one operand")
        others = [s for k, s in enumerate(specs) if k != i]
        other_labels = set(rhs.replace("...", "")).union(*[s.replace("...", "") for s in others])
        kept = "".join(c for c in plain if c in other_labels)
        ell = "..." in spec and ("..." in rhs or any("..." in s for s in others))
        if "..." in spec and not ell:
            raise NotImplementedError(f"the gradient of einsum {equation!r}: an ellipsis summed "
                                      "away")
        pre, _, post = spec.partition("...") if "..." in spec else (spec, "", "")
        out_spec = ("".join(c for c in pre if c in kept) + ("..." if "..." in spec else "")
                    + "".join(c for c in post if c in kept))
        terms = [rhs] + others
        summed_ell = "..." not in spec and any("..." in t for t in terms)
        g = einsum(f"{','.join(terms)}->{'...' if summed_ell else ''}{out_spec}", dy,
                   *[conj(o) for k, o in enumerate(op.inputs) if k != i])
        if summed_ell:  # x had no ellipsis: the broadcast dims it met are summed away
            n_ell = _known_rank(g, "einsum") - len(out_spec)
            g = _public("reduce_sum")(g, list(range(n_ell))) if n_ell else g
        if len(kept) != len(plain):  # labels only x had: their sum's gradient is a broadcast
            g = _broadcast_missing(g, x, spec, out_spec)
        if "..." in spec:
            g = _grad_util().unbroadcast(g, x)
        grads.append(g)
    return grads


def _broadcast_missing(g, x, spec, out_spec):
    """g (laid out as ``out_spec``) with x's missing labels restored as size-1 dims, then
    broadcast to x's shape."""
    rank = _known_rank(x, "einsum")
    pre, _, post = spec.partition("...")
    n_ell = rank - len(spec.replace("...", "")) if "..." in spec else 0
    labels = list(pre) + ["."] * n_ell + list(post)
    present = set(out_spec.replace("...", ""))
    shape = _grad_util().shape_of(x)
    target = [1 if (c != "." and c not in present) else (shape[k] if isinstance(shape, list)
                                                        else -1)
              for k, c in enumerate(labels)]
    if not isinstance(shape, list) and target.count(-1) > 1:
        ones = constant(np.array([c != "." and c not in present for c in labels]))
        target = where(ones, np.int32(1), shape)
    g = _public("reshape")(g, target)
    return _public("broadcast_to")(g, shape)


GatherV2.grad = _gather_grad
GatherNd.grad = _gather_nd_grad
Slice.grad = _slice_grad
STRIDED_SLICE.grad = _strided_slice_grad
ScatterNd.grad = _scatter_nd_grad
TENSOR_SCATTER["tensor_scatter_nd_update"].grad = _tensor_scatter_update_grad
TENSOR_SCATTER["tensor_scatter_nd_add"].grad = \
    lambda op, dy: (dy, None, gather_nd(dy, op.inputs[1]))
TENSOR_SCATTER["tensor_scatter_nd_sub"].grad = \
    lambda op, dy: (dy, None, -gather_nd(dy, op.inputs[1]))
TENSOR_SCATTER["tensor_scatter_nd_max"].grad = _tensor_scatter_extreme_grad
TENSOR_SCATTER["tensor_scatter_nd_min"].grad = _tensor_scatter_extreme_grad
TopKV2.grad = _top_k_grad
Roll.grad = _roll_grad
EINSUM.grad = _einsum_grad
SEGMENT["Sum"].grad = _segment_sum_grad
SEGMENT["Mean"].grad = _segment_mean_grad
SEGMENT["Max"].grad = SEGMENT["Min"].grad = _segment_extreme_grad
SEGMENT["Prod"].grad = _segment_prod_grad
UNSORTED_SEGMENT["Sum"].grad = _unsorted_segment_sum_grad
UNSORTED_SEGMENT["Max"].grad = UNSORTED_SEGMENT["Min"].grad = _unsorted_segment_extreme_grad
UNSORTED_SEGMENT["Prod"].grad = _unsorted_segment_prod_grad


def _no_gradient(name):
    def grad(op, *dys):
        raise LookupError(f"gradient registry has no entry for: {name}")

    return grad


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
        _, begin, end, strides, _ = op.inputs
        masks = {k: op.attrs[k] for k in _MASKS}
        return None, None, None, None, strided_slice(ddx, begin, end, strides, **masks)


def strided_slice_grad(shape, begin, end, strides, dy, **masks):
    return bind(StridedSliceGrad, shape, begin, end, strides, dy, **masks)


UNIQUE.grad = _no_gradient("Unique")  # TF registers none: differentiating through it raises
UNIQUE_WITH_COUNTS.grad = _no_gradient("UniqueWithCounts")
