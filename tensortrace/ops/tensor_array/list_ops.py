"""TF's TensorList ops: pure functions from ``variant`` list tensors to new lists or tensors,
each one ``@define_op`` record whose kernel works on ``list_value.TensorList``."""

import numpy as np

from ... import dtypes as D
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import define_op, never_static
from ...tensor import TensorSpec
from .._base import check_fixed
from .list_value import (MIN_HANDOVERS, VARIANT, TensorList, dtype_error, fill_shape, known, merge,
                         reroot, rows, set_item, zeros_or_fail)

_new = object.__new__


def _returns_list(op_name, position, name):
    """The infer rule of an op that returns a list and takes the int32 input ``name``."""

    def infer(*inputs, **attrs):
        check_fixed(op_name, (inputs[position],), (name,), D.int32)
        return VARIANT

    return infer


@define_op("TensorListReserve", static=never_static)
class TensorListReserve:
    """A list of ``num_elements`` unwritten elements."""

    infer = _returns_list("TensorListReserve", 0, "num_elements")

    def kernel(num_elements, element_shape, element_dtype):
        n = int(num_elements)
        if n < 0:
            raise invalid_argument("The num_elements to reserve must be a non negative number, "
                                   f"but got {n}")
        return TensorList([None] * n, element_dtype._np, element_shape)


@define_op("TensorListFromTensor", static=never_static)
class TensorListFromTensor:
    """The rows of a tensor as a list."""

    def infer(tensor, element_shape):
        if tensor.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for "
                             "'{{node TensorListFromTensor}}' with input shapes: [].")
        return VARIANT

    def kernel(tensor, element_shape):
        arr = np.asarray(tensor)
        if arr.ndim == 0:
            raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
        return TensorList(rows(arr), arr.dtype, merge(element_shape, arr.shape[1:]))


@define_op("TensorListSetItem", static=never_static)
class TensorListSetItem:
    """A copy of the list with element ``index`` replaced (grown first when resizable)."""

    infer = _returns_list("TensorListSetItem", 1, "index")

    def kernel(lst, index, item, resize_if_index_out_of_bounds=False):
        dtype, shape = lst.element_dtype, lst.element_shape
        if item.dtype is not dtype and item.dtype != dtype and \
                not (dtype is None and type(item) is TensorList):  # a list of lists
            raise dtype_error(item.dtype, dtype)
        item_shape = item.shape  # arrays and NumPy scalars both have one
        if shape is not None and item_shape != shape and merge(shape, item_shape) is None:
            raise invalid_argument(
                "Tried to set a tensor with incompatible shape at a list index. Item element "
                f"shape: {shape_text(np.shape(item))} list shape: {shape_text(shape)}")
        store = lst._data
        if type(store) is tuple:
            store = reroot(lst)
        i, n = int(index), len(store)
        new = _new(TensorList)
        new.element_dtype, new.element_shape = dtype, shape
        depth = lst._depth + 1
        if 0 <= i < n and type(store) is list and depth <= n + MIN_HANDOVERS:  # a loop's write
            lst._data = (new, i, store[i])
            store[i] = item
            new._data, new._depth = store, depth
            return new
        if not 0 <= i < n and not (resize_if_index_out_of_bounds and i >= n):
            raise invalid_argument(f"Trying to modify element {i} in a list with {n} elements.")
        return set_item(lst, store, i, item, new)


@define_op("TensorListGetItem", static=never_static)
class TensorListGetItem:
    """Element ``index`` (zeros of the element shape if it was never written)."""

    def infer(input_handle, index, element_dtype, element_shape):
        check_fixed("TensorListGetItem", (index,), ("index",), D.int32)
        return TensorSpec(element_shape, element_dtype)

    def kernel(lst, index, element_dtype, element_shape):
        items = lst._data
        if type(items) is tuple:
            items = reroot(lst)
        if index >= 0:
            try:
                item = items[index]
            except IndexError:
                pass
            else:
                if item is not None:
                    return item
                return zeros_or_fail(lst, element_shape, "Trying to read an uninitialized "
                                     "tensor but element_shape is not fully defined: {} and no "
                                     "list element is set.")
        raise invalid_argument(f"Trying to access element {int(index)} in a list with "
                               f"{len(items)} elements.")


def _filled_items(lst, element_shape, items):
    """``items`` with unwritten elements as zeros, checked to share one shape."""
    if any(x is None for x in items):
        if all(x is None for x in lst.items):
            zero = zeros_or_fail(lst, element_shape, "Tried to stack list which only contains "
                                 "uninitialized tensors and has a non-fully-defined "
                                 "element_shape: {}")
        else:
            zero = zeros_or_fail(lst, element_shape, "Trying to read an uninitialized tensor "
                                 "but element_shape is not fully defined: {}.")
        items = [zero if x is None else x for x in items]
    first = np.shape(items[0])
    for x in items[1:]:
        if np.shape(x) != first:
            raise invalid_argument(f"PartialTensorShape: Incompatible shapes during merge: "
                                   f"{shape_text(first)} vs. {shape_text(np.shape(x))}")
    return items


@define_op("TensorListStack", static=never_static)
class TensorListStack:
    """All elements stacked into one tensor, along a new first axis."""

    def infer(input_handle, element_dtype, element_shape, num_elements=-1):
        if element_shape is None:
            return TensorSpec(None, element_dtype)
        return TensorSpec((num_elements if num_elements >= 0 else None,) + element_shape,
                          element_dtype)

    def kernel(lst, element_dtype, element_shape, num_elements=-1):
        items = lst.items
        n = len(items)
        if num_elements >= 0 and n != num_elements:
            raise invalid_argument(f"Operation expected a list with {num_elements} elements but "
                                   f"got a list with {n} elements.")
        if type(items) is np.ndarray:
            return items
        if n == 0:
            shape = fill_shape(lst, element_shape)
            if not known(shape):
                raise invalid_argument("Tried to stack elements of an empty list with "
                                       f"non-fully-defined element_shape: {shape_text(shape)}")
            return np.zeros((0,) + shape, lst.element_dtype)
        if lst.element_dtype != object:  # fast path: every element written, one shape
            try:
                out = np.stack(items)
            except (ValueError, TypeError):
                out = None
            if out is not None and out.dtype == lst.element_dtype:
                return out
        return np.stack(_filled_items(lst, element_shape, items))


@define_op("TensorListGather", static=never_static)
class TensorListGather:
    """The elements at ``indices``, stacked."""

    def infer(input_handle, indices, element_dtype, element_shape):
        check_fixed("TensorListGather", (indices,), ("indices",), D.int32)
        if element_shape is None or indices.shape.rank is None:
            return TensorSpec(None, element_dtype)
        return TensorSpec(tuple(indices.shape.dims) + element_shape, element_dtype)

    def kernel(lst, indices, element_dtype, element_shape):
        idx = np.asarray(indices)
        items = lst.items
        n = len(items)
        flat = idx.reshape(-1)
        for i in flat:
            if not 0 <= i < n:
                raise invalid_argument(f"Index {int(i)} out o range; list only has {n} "
                                       "elements.")
        if type(items) is np.ndarray:
            return items[idx]
        picked = [items[i] for i in flat]
        if not picked:
            shape = fill_shape(lst, element_shape)
            if not known(shape):
                raise invalid_argument("Tried to gather 0 elements from a list with "
                                       "non-fully-defined element_shape: "
                                       f"{shape_text(shape)}")
            return np.zeros(idx.shape + shape, lst.element_dtype)
        out = np.stack(_filled_items(lst, element_shape, picked))
        return out.reshape(idx.shape + out.shape[1:])


@define_op("TensorListScatterIntoExistingList", static=never_static)
class TensorListScatterIntoExistingList:
    """A copy of the list with the rows of ``tensor`` written at ``indices`` (growing it)."""

    infer = _returns_list("TensorListScatterIntoExistingList", 2, "indices")

    def kernel(lst, tensor, indices):
        arr, idx = np.asarray(tensor), np.asarray(indices).reshape(-1)
        if arr.ndim == 0 or len(arr) != len(idx):
            raise invalid_argument("Invalid number of rows in input tensor. Expected: "
                                   f"{len(idx)} Actual: {arr.shape[0] if arr.ndim else 0}")
        if arr.dtype != lst.element_dtype:
            raise dtype_error(arr.dtype, lst.element_dtype)
        if len(idx) and idx.min() < 0:
            raise invalid_argument("Indices in TensorListScatter must all be non-negative.")
        new = list(lst.items)
        top = int(idx.max()) + 1 if len(idx) else 0
        new += [None] * (top - len(new))
        elements = rows(arr)
        for j, i in enumerate(idx):
            new[i] = elements[j]
        return TensorList(new, lst.element_dtype, lst.element_shape)


@define_op("TensorListConcatV2", static=never_static)
class TensorListConcatV2:
    """All elements joined along their first axis, and each element's length."""

    def infer(input_handle, element_dtype, element_shape):
        lengths = TensorSpec((None,), D.int64)
        if element_shape is None:
            return TensorSpec(None, element_dtype), lengths
        return TensorSpec((None,) + element_shape[1:], element_dtype), lengths

    def kernel(lst, element_dtype, element_shape):
        items = list(lst.items)
        for i, x in enumerate(items):
            if x is not None and np.ndim(x) == 0:
                raise invalid_argument(f"Concat saw a scalar shape at index {i} but requires at "
                                       "least vectors.")
        if not items:
            rest = None if element_shape is None else element_shape[1:]
            if not known(rest):
                raise invalid_argument("All except the first dimension must be fully defined "
                                       "when concating an empty tensor list. element_shape: "
                                       f"{shape_text(element_shape)}")
            return np.zeros((0,) + rest, lst.element_dtype), np.zeros((0,), np.int64)
        if any(x is None for x in items):
            items = _filled_items(lst, element_shape, items)
        try:
            out = np.concatenate(items)
        except ValueError:
            shapes = [np.shape(x) for x in items]
            raise invalid_argument(f"Incompatible shapes in TensorListConcat: "
                                   f"{' vs. '.join(map(shape_text, shapes))}") from None
        return out, np.array([len(x) for x in items], np.int64)


@define_op("TensorListSplit", static=never_static)
class TensorListSplit:
    """A list of the consecutive pieces of ``tensor`` of the given ``lengths``."""

    def infer(tensor, lengths, element_shape):
        return VARIANT

    def kernel(tensor, lengths, element_shape):
        arr, sizes = np.asarray(tensor), np.asarray(lengths).reshape(-1)
        if arr.ndim == 0:
            raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
        if sizes.sum() != arr.shape[0]:
            raise invalid_argument(f"Expected sum of lengths to be equal to values.shape[0], but "
                                   f"sum of lengths is {sizes.sum()} and value's shape is: "
                                   f"{shape_text(arr.shape)}")
        pieces = np.split(arr, np.cumsum(sizes)[:-1])
        return TensorList(pieces, arr.dtype, merge(element_shape, (None,) + arr.shape[1:]))


@define_op("TensorListLength")
class TensorListLength:
    """The number of elements."""

    def infer(input_handle):
        return TensorSpec((), D.int32)

    def kernel(lst):
        return np.int32(len(lst.items))


RESERVE = TensorListReserve
FROM_TENSOR = TensorListFromTensor
SET_ITEM = TensorListSetItem
GET_ITEM = TensorListGetItem
STACK = TensorListStack
GATHER = TensorListGather
SCATTER = TensorListScatterIntoExistingList
CONCAT = TensorListConcatV2
SPLIT = TensorListSplit
LENGTH = TensorListLength
