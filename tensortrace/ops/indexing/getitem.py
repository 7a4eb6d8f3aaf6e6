"""``tensor[...]``: TF's slice-spec rules (ints, slices, ``...``, ``tf.newaxis``, scalar int
tensors, boolean masks) turned into a StridedSlice, with an eager fast path that indexes the
array directly where NumPy means what TF means."""

import numbers

import numpy as np

from ... import dtypes as D
from ... import errors
from ...messages import kernel_error_text
from ...context import bind, state
from ...convert import constant
from ...graph.naming import default_name
from ...shapes import TensorShape
from ...tensor import EagerTensor, Tensor, static_value
from ..array.joining import stack
from ..math.casting import cast
from .._args import shown
from ._util import INDEX16, result
from .gathering import boolean_mask
from .slicing import StridedSlice, strided_index

_wrap = EagerTensor._wrap
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_INDEX_SET = frozenset(INDEX16)


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
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {shown(idx)}")


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
        if any(not -2**63 <= k < 2**63 for k in known):
            raise ValueError(f"Slice bounds {known} are out of the int64 range")
        if any(not -2**31 <= k < 2**31 for k in known):
            dtype = D.int64  # TF's index vectors widen as its conversion of the list does
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
                return _wrap(result(value[slice_spec]))
        else:
            index = _plain_index(slice_spec, shape)
            if index is not None:
                return _wrap(result(value[index]))
    return _slice_helper(tensor, slice_spec)


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
                raise type(e)(None, None, kernel_error_text(  # TF's operator keeps its scope
                    e.message, "StridedSlice", tail=" name: strided_slice/")) from None
            return _wrap(result(tensor._value[index]))
        dtype = _index_dtype(entries, known)
    else:
        dtype = _index_dtype(entries, [v for v in entries if not isinstance(v, Tensor)])
    return bind(StridedSlice, tensor, _index_vector(begin, dtype), _index_vector(end, dtype),
                _index_vector(strides, dtype), **masks)


# TF's node names: _slice_helper's scope, its packed begin/end/strides named stack, stack_1 ...
default_name(("strided_slice", True, "stack"), getitem)
Tensor._override_operator("__getitem__", getitem)
