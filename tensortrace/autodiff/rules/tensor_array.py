"""Gradients of the TensorList ops, TF's list_ops rules: a list's gradient is a list (unwritten
elements are zeros), a tensor's is the list's elements read back as a tensor."""

from ...context import bind
from ...ops.array.shapes import shape
from ...ops.tensor_array.list_math import row_shape, stack_list, static_zeros_like
from ...ops.tensor_array.list_ops import (CONCAT, FROM_TENSOR, GATHER, GET_ITEM, LENGTH, RESERVE,
                                          SCATTER, SET_ITEM, SPLIT)
from ...shapes import shape_attr
from ..grad_util import not_differentiable, register_gradients, skip


def _leading(rows, tensor):
    """The first rows of ``rows``, as many as ``tensor`` has: a list's gradient may be longer
    than the list (written past its end by a dynamic-size TensorArray; TF resizes it back)."""
    n = tensor.shape.dims[0] if tensor.shape.rank else None
    if n is not None and rows.shape.rank and rows.shape.dims[0] == n:
        return rows
    if n is None:
        n = shape(tensor)[0]
    return rows[:n]


def _one_item(lst, index, item):
    """The gradient list of a read: ``item`` at ``index`` in a list as long as ``lst``."""
    empty = bind(RESERVE, bind(LENGTH, lst), element_shape=shape_attr(item.shape),
                 element_dtype=item.dtype)
    return bind(SET_ITEM, empty, index, item)


def _from_tensor(op, dy):
    tensor = op.inputs[0]
    stacked = stack_list(dy, tensor.dtype, shape_attr(row_shape(tensor.shape)))
    return _leading(stacked, tensor)


def _set_item(op, dy):
    _, index, item = op.inputs
    list_grad = bind(SET_ITEM, dy, index, static_zeros_like(item), **op.attrs)
    if skip(op, 2):
        return list_grad, None, None
    return list_grad, None, bind(GET_ITEM, dy, index, element_dtype=item.dtype,
                                 element_shape=shape_attr(item.shape))


def _stack(op, dy):
    return bind(FROM_TENSOR, dy, element_shape=shape_attr(row_shape(dy.shape)))


def _gather(op, dy):
    lst, indices = op.inputs
    rank = indices.shape.rank
    element_shape = None if rank is None or dy.shape.rank is None else \
        tuple(dy.shape.dims[rank:])
    empty = bind(RESERVE, bind(LENGTH, lst), element_shape=element_shape, element_dtype=dy.dtype)
    return bind(SCATTER, empty, dy, indices), None


def _scatter(op, dy):
    _, tensor, indices = op.inputs
    list_grad = bind(SCATTER, dy, static_zeros_like(tensor), indices)
    if skip(op, 1):
        return list_grad, None, None
    return list_grad, bind(GATHER, dy, indices, element_dtype=tensor.dtype,
                           element_shape=shape_attr(row_shape(tensor.shape))), None


def _concat(op, *dys):
    element_shape = op.attrs["element_shape"]
    return bind(SPLIT, dys[0], op.outputs[1], element_shape=None if element_shape is None
                else (None,) + tuple(element_shape[1:]))


def _split(op, dy):
    tensor = op.inputs[0]
    rest = row_shape(tensor.shape)
    element_shape = None if rest.rank is None else (None,) + tuple(rest.dims)
    joined = bind(CONCAT, dy, element_dtype=tensor.dtype, element_shape=element_shape)[0]
    return _leading(joined, tensor), None


register_gradients({
    "TensorListFromTensor":              _from_tensor,
    "TensorListSetItem":                 _set_item,
    "TensorListGetItem":                 lambda op, dy: (_one_item(*op.inputs, dy), None),
    "TensorListStack":                   _stack,
    "TensorListGather":                  _gather,
    "TensorListScatterIntoExistingList": _scatter,
    "TensorListConcatV2":                _concat,
    "TensorListSplit":                   _split,
})

not_differentiable("TensorListReserve", "TensorListLength")
