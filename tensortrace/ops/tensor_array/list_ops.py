"""``tf.TensorArray``: a Python list of tensors when eager, and inside graphs a functional value —
a ``variant`` TensorList tensor transformed by pure TensorList ops — so it can be a loop variable.

    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x)          # eager: writes in place; graph: a new TensorArray, new flow
    ta.stack()
"""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind, state
from ...convert import convert_to_tensor
from ...errors import InvalidArgumentError, OutOfRangeError, invalid_argument
from ...registry import NON_DIFFERENTIABLE, define_op, never_static
from ...shapes import TensorShape, as_shape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from ...messages import c_name
from ..array import concat as _concat
from ..array import split as _split
from ..array import stack as _stack
from ..array import unstack as _unstack
from ..array import zeros as _zeros


# --- the run-time value -------------------------------------------------------------------------
class TensorList:
    """The value of a ``variant`` list tensor: observably immutable, so graphs stay functional.

    It is a persistent array (Baker's "diff arrays"): the newest version owns a Python list, and
    a write hands that list to the new version, leaving the old version a one-element diff
    against it. Writes in a loop cost O(1), yet every version keeps reading its own contents
    (reading an old version replays the diffs back onto the list). A live old version keeps the
    versions after it alive, so after as many hand-overs as the list is long a write copies
    instead: memory stays O(length), writes O(1) amortized. ``items`` is that list (None marks
    an element never written) or, for a list made from one tensor, the tensor.
    """

    __slots__ = ("_data", "_depth", "element_dtype", "element_shape")
    dtype = D.variant  # EagerTensor reads ``.dtype`` and ``.shape`` off its value
    shape = ()
    ndim = 0
    size = 1

    def __init__(self, items, element_dtype, element_shape):
        self._data = items  # the items, or a diff (newer version, index, value)
        self._depth = 0  # hand-overs of the list since it was last copied
        self.element_dtype = element_dtype  # a NumPy dtype
        self.element_shape = element_shape  # tuple of int/None, or None for an unknown rank

    @property
    def items(self):
        data = self._data
        return data if type(data) is not tuple else _reroot(self)

    def __repr__(self):
        return (f"<TensorList of {len(self.items)} {D.from_numpy(self.element_dtype).name} "
                f"elements>")


# A diff is (newer, index, value): this version is ``newer`` with element ``index`` = value;
# index -1: ``newer`` cut to ``value`` elements; index -2: ``newer`` extended by list ``value``.
def _reroot(lst):
    """Make ``lst`` own the shared list again, turning the versions after it into diffs."""
    path, node = [], lst
    while type(node._data) is tuple:
        path.append(node)
        node = node._data[0]
    store = node._data
    for older in reversed(path):
        newer, index, value = older._data
        if index >= 0:
            newer._data = (older, index, store[index])
            store[index] = value
        elif index == -1:
            newer._data = (older, -2, store[value:])
            del store[value:]
        else:
            newer._data = (older, -1, len(store))
            store.extend(value)
        older._data = store
    return store


def _set(lst, store, i, item, new):
    """Make ``new`` the version of ``lst`` (whose items are ``store``) with element ``i``
    (possibly past the end) set to ``item``."""
    n = len(store)
    new._depth = lst._depth + 1
    if type(store) is list and new._depth <= n + _MIN_HANDOVERS:
        if i < n:
            lst._data = (new, i, store[i])
        else:
            lst._data = (new, -1, n)
            store.extend([None] * (i + 1 - n))
    else:  # a tensor's rows, or a long chain of versions: the new one gets a list of its own
        store = list(store) + [None] * max(0, i + 1 - n)
        new._depth = 0
    store[i] = item
    new._data = store
    return new


_new = object.__new__
_MIN_HANDOVERS = 32


# --- a loop's private accumulator (see control_flow._accumulate_in_place) ---------------------
def private_items(lst):
    """A fresh Python list of ``lst``'s items, for a compiled loop to write in place."""
    return list(lst.items)


def from_items(items, like):
    """The TensorList holding ``items``, with ``like``'s element dtype and shape."""
    return TensorList(items, like.element_dtype, like.element_shape)


def set_item_error(index, size):
    raise invalid_argument(f"Trying to modify element {int(index)} in a list with {size} "
                           "elements.")


_VARIANT = TensorSpec((), D.variant)


def _dims(shape):
    """A TensorShape as an attr: a tuple of int/None, or None for an unknown rank."""
    shape = as_shape(shape)
    return None if shape.rank is None else tuple(shape.dims)


def _shape_text(dims):
    """TF's PartialTensorShape text: ``<unknown>``, ``[?,2]``."""
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _merge(a, b):
    """Merge two attr shapes; None when they conflict."""
    if a is None or b is None:
        return b if a is None else a
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        return None
    return tuple(x if x is not None else y for x, y in zip(a, b))


def _known(dims):
    return dims is not None and None not in dims


def _fill_shape(lst, attr_shape):
    """The shape of an element never written: the op's, the list's and the written ones'."""
    shape = _merge(attr_shape, lst.element_shape)
    for item in lst.items:
        if _known(shape):
            break
        if item is not None:
            shape = _merge(shape, np.shape(item))
    return shape


def _zeros_or_fail(lst, attr_shape, message):
    shape = _fill_shape(lst, attr_shape)
    if not _known(shape):
        raise invalid_argument(message.format(_shape_text(_merge(attr_shape, lst.element_shape))))
    return np.zeros(shape, lst.element_dtype)


def _rows(arr):
    """The elements of a tensor's rows; 0-d object rows stay arrays (never bare bytes)."""
    return [arr[i, ...] for i in range(len(arr))] if arr.dtype == object else arr


def _dtype_error(item_dtype, list_dtype):
    return invalid_argument(f"Invalid data types; op elements {c_name(D.from_numpy(item_dtype))} "
                            f"but list elements {c_name(D.from_numpy(list_dtype))}")


def _check_index(index, op_name, name="index"):
    if index.dtype != D.int32:
        raise TypeError(f"Input '{name}' of '{op_name}' Op has type {index.dtype.name} that does "
                        "not match expected type of int32.")


def _list_op(opdef):
    opdef.static = never_static
    return opdef


# --- TensorList ops -----------------------------------------------------------------------------
@_list_op
@define_op("TensorListReserve")
class TensorListReserve:
    """A list of ``num_elements`` unwritten elements."""

    def infer(num_elements, element_shape, element_dtype):
        _check_index(num_elements, "TensorListReserve", "num_elements")
        return _VARIANT

    def kernel(num_elements, element_shape, element_dtype):
        n = int(num_elements)
        if n < 0:
            raise invalid_argument("The num_elements to reserve must be a non negative number, "
                                   f"but got {n}")
        return TensorList([None] * n, element_dtype._np, element_shape)

    grad = NON_DIFFERENTIABLE


@_list_op
@define_op("TensorListFromTensor")
class TensorListFromTensor:
    """The rows of a tensor as a list."""

    def infer(tensor, element_shape):
        if tensor.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for "
                             "'{{node TensorListFromTensor}}' with input shapes: [].")
        return _VARIANT

    def kernel(tensor, element_shape):
        arr = np.asarray(tensor)
        if arr.ndim == 0:
            raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
        return TensorList(_rows(arr), arr.dtype, _merge(element_shape, arr.shape[1:]))

    def grad(op, dlist):
        tensor = op.inputs[0]
        stacked = _stack_list(dlist, tensor.dtype, _dims(_rest(tensor.shape)))
        return _leading(stacked, tensor)


@_list_op
@define_op("TensorListSetItem")
class TensorListSetItem:
    """A copy of the list with element ``index`` replaced (grown first when resizable)."""

    def infer(input_handle, index, item, resize_if_index_out_of_bounds=False):
        _check_index(index, "TensorListSetItem")
        return _VARIANT

    def kernel(lst, index, item, resize_if_index_out_of_bounds=False):
        dtype, shape = lst.element_dtype, lst.element_shape
        if item.dtype is not dtype and item.dtype != dtype and \
                not (dtype is None and type(item) is TensorList):  # a list of lists
            raise _dtype_error(item.dtype, dtype)
        item_shape = item.shape  # arrays and NumPy scalars both have one
        if shape is not None and item_shape != shape and _merge(shape, item_shape) is None:
            raise invalid_argument(
                "Tried to set a tensor with incompatible shape at a list index. Item element "
                f"shape: {_shape_text(np.shape(item))} list shape: {_shape_text(shape)}")
        store = lst._data
        if type(store) is tuple:
            store = _reroot(lst)
        i, n = int(index), len(store)
        new = _new(TensorList)
        new.element_dtype, new.element_shape = dtype, shape
        depth = lst._depth + 1
        if 0 <= i < n and type(store) is list and depth <= n + _MIN_HANDOVERS:  # a loop's write
            lst._data = (new, i, store[i])
            store[i] = item
            new._data, new._depth = store, depth
            return new
        if not 0 <= i < n and not (resize_if_index_out_of_bounds and i >= n):
            raise invalid_argument(f"Trying to modify element {i} in a list with {n} elements.")
        return _set(lst, store, i, item, new)

    def grad(op, dlist):
        _, index, item = op.inputs
        attrs = op.attrs
        list_grad = bind(SET_ITEM, dlist, index, _zeros_like(item), **attrs)
        if 2 in op.skip_input_indices:
            return list_grad, None, None
        return list_grad, None, bind(GET_ITEM, dlist, index, element_dtype=item.dtype,
                                     element_shape=_dims(item.shape))


@_list_op
@define_op("TensorListGetItem")
class TensorListGetItem:
    """Element ``index`` (zeros of the element shape if it was never written)."""

    def infer(input_handle, index, element_dtype, element_shape):
        _check_index(index, "TensorListGetItem")
        return TensorSpec(element_shape, element_dtype)

    def kernel(lst, index, element_dtype, element_shape):
        items = lst._data
        if type(items) is tuple:
            items = _reroot(lst)
        if index >= 0:
            try:
                item = items[index]
            except IndexError:
                pass
            else:
                if item is not None:
                    return item
                return _zeros_or_fail(lst, element_shape, "Trying to read an uninitialized "
                                      "tensor but element_shape is not fully defined: {} and no "
                                      "list element is set.")
        raise invalid_argument(f"Trying to access element {int(index)} in a list with "
                               f"{len(items)} elements.")

    def grad(op, ditem):
        lst, index = op.inputs
        return _one_item(lst, index, ditem), None


def _stacked(lst, element_shape, num_elements):
    """All elements stacked along a new first axis (TensorListStack's kernel)."""
    items = lst.items
    n = len(items)
    if num_elements >= 0 and n != num_elements:
        raise invalid_argument(f"Operation expected a list with {num_elements} elements but got "
                               f"a list with {n} elements.")
    if type(items) is np.ndarray:
        return items
    if n == 0:
        shape = _fill_shape(lst, element_shape)
        if not _known(shape):
            raise invalid_argument("Tried to stack elements of an empty list with "
                                   f"non-fully-defined element_shape: {_shape_text(shape)}")
        return np.zeros((0,) + shape, lst.element_dtype)
    if lst.element_dtype != object:  # fast path: every element written, one shape
        try:
            out = np.stack(items)
        except (ValueError, TypeError):
            out = None
        if out is not None and out.dtype == lst.element_dtype:
            return out
    return np.stack(_filled_items(lst, element_shape, items))


def _filled_items(lst, element_shape, items):
    """``items`` with unwritten elements as zeros, checked to share one shape."""
    if any(x is None for x in items):
        if all(x is None for x in lst.items):
            zero = _zeros_or_fail(lst, element_shape, "Tried to stack list which only contains "
                                  "uninitialized tensors and has a non-fully-defined "
                                  "element_shape: {}")
        else:
            zero = _zeros_or_fail(lst, element_shape, "Trying to read an uninitialized tensor "
                                  "but element_shape is not fully defined: {}.")
        items = [zero if x is None else x for x in items]
    first = np.shape(items[0])
    for x in items[1:]:
        if np.shape(x) != first:
            raise invalid_argument(f"PartialTensorShape: Incompatible shapes during merge: "
                                   f"{_shape_text(first)} vs. {_shape_text(np.shape(x))}")
    return items


def _stack_infer(input_handle, element_dtype, element_shape, num_elements=-1):
    if element_shape is None:
        return TensorSpec(None, element_dtype)
    return TensorSpec((num_elements if num_elements >= 0 else None,) + element_shape,
                      element_dtype)


@_list_op
@define_op("TensorListStack")
class TensorListStack:
    """All elements stacked into one tensor."""

    infer = staticmethod(_stack_infer)

    def kernel(lst, element_dtype, element_shape, num_elements=-1):
        return _stacked(lst, element_shape, num_elements)

    def grad(op, dtensor):
        return bind(FROM_TENSOR, dtensor, element_shape=_dims(_rest(dtensor.shape)))


@_list_op
@define_op("TensorListGather")
class TensorListGather:
    """The elements at ``indices``, stacked."""

    def infer(input_handle, indices, element_dtype, element_shape):
        _check_index(indices, "TensorListGather", "indices")
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
            shape = _fill_shape(lst, element_shape)
            if not _known(shape):
                raise invalid_argument("Tried to gather 0 elements from a list with "
                                       "non-fully-defined element_shape: "
                                       f"{_shape_text(shape)}")
            return np.zeros(idx.shape + shape, lst.element_dtype)
        out = np.stack(_filled_items(lst, element_shape, picked))
        return out.reshape(idx.shape + out.shape[1:])

    def grad(op, dtensor):
        lst, indices = op.inputs
        rank = indices.shape.rank
        shape = None if rank is None or dtensor.shape.rank is None else \
            tuple(dtensor.shape.dims[rank:])
        empty = bind(RESERVE, bind(LENGTH, lst), element_shape=shape,
                     element_dtype=dtensor.dtype)
        return bind(SCATTER, empty, dtensor, indices), None


@_list_op
@define_op("TensorListScatterIntoExistingList")
class TensorListScatterIntoExistingList:
    """A copy of the list with the rows of ``tensor`` written at ``indices`` (growing it)."""

    def infer(input_handle, tensor, indices):
        _check_index(indices, "TensorListScatterIntoExistingList", "indices")
        return _VARIANT

    def kernel(lst, tensor, indices):
        arr, idx = np.asarray(tensor), np.asarray(indices).reshape(-1)
        if arr.ndim == 0 or len(arr) != len(idx):
            raise invalid_argument("Invalid number of rows in input tensor. Expected: "
                                   f"{len(idx)} Actual: {arr.shape[0] if arr.ndim else 0}")
        if arr.dtype != lst.element_dtype:
            raise _dtype_error(arr.dtype, lst.element_dtype)
        if len(idx) and idx.min() < 0:
            raise invalid_argument("Indices in TensorListScatter must all be non-negative.")
        new = list(lst.items)
        top = int(idx.max()) + 1 if len(idx) else 0
        new += [None] * (top - len(new))
        rows = _rows(arr)
        for j, i in enumerate(idx):
            new[i] = rows[j]
        return TensorList(new, lst.element_dtype, lst.element_shape)

    def grad(op, dlist):
        _, tensor, indices = op.inputs
        list_grad = bind(SCATTER, dlist, _zeros_like(tensor), indices)
        if 1 in op.skip_input_indices:
            return list_grad, None, None
        return list_grad, bind(GATHER, dlist, indices, element_dtype=tensor.dtype,
                               element_shape=_dims(_rest(tensor.shape))), None


@_list_op
@define_op("TensorListConcatV2")
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
            if not _known(rest):
                raise invalid_argument("All except the first dimension must be fully defined "
                                       "when concating an empty tensor list. element_shape: "
                                       f"{_shape_text(element_shape)}")
            return np.zeros((0,) + rest, lst.element_dtype), np.zeros((0,), np.int64)
        if any(x is None for x in items):
            items = _filled_items(lst, element_shape, items)
        try:
            out = np.concatenate(items)
        except ValueError:
            shapes = [np.shape(x) for x in items]
            raise invalid_argument(f"Incompatible shapes in TensorListConcat: "
                                   f"{' vs. '.join(map(_shape_text, shapes))}") from None
        return out, np.array([len(x) for x in items], np.int64)

    def grad(op, dtensor, dlengths):
        shape = op.attrs["element_shape"]
        return bind(SPLIT, dtensor, op.outputs[1],
                    element_shape=None if shape is None else (None,) + tuple(shape[1:]))


@_list_op
@define_op("TensorListSplit")
class TensorListSplit:
    """A list of the consecutive pieces of ``tensor`` of the given ``lengths``."""

    def infer(tensor, lengths, element_shape):
        return _VARIANT

    def kernel(tensor, lengths, element_shape):
        arr, sizes = np.asarray(tensor), np.asarray(lengths).reshape(-1)
        if arr.ndim == 0:
            raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
        if sizes.sum() != arr.shape[0]:
            raise invalid_argument(f"Expected sum of lengths to be equal to values.shape[0], but "
                                   f"sum of lengths is {sizes.sum()} and value's shape is: "
                                   f"{_shape_text(arr.shape)}")
        pieces = np.split(arr, np.cumsum(sizes)[:-1])
        return TensorList(pieces, arr.dtype, _merge(element_shape, (None,) + arr.shape[1:]))

    def grad(op, dlist):
        tensor = op.inputs[0]
        rest = _rest(tensor.shape)
        shape = None if rest.rank is None else (None,) + tuple(rest.dims)
        joined = bind(CONCAT, dlist, element_dtype=tensor.dtype, element_shape=shape)[0]
        return _leading(joined, tensor), None


@define_op("TensorListLength")
class TensorListLength:
    """The number of elements."""

    def infer(input_handle):
        return TensorSpec((), D.int32)

    def kernel(lst):
        return np.int32(len(lst.items))

    grad = NON_DIFFERENTIABLE


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


# --- gradients: TF's list_ops rules; a list's gradient is a list (unwritten elements are zeros)
def _rest(shape):
    """An element's shape: ``shape`` without its first dim (unknown for an unknown rank)."""
    return TensorShape(None) if shape.rank is None else TensorShape(shape.dims[1:])


def _zeros_like(x):
    """Zeros like ``x``: a constant when its shape is static (so x itself is not needed)."""
    from ..array import zeros_like

    if state.graph is not None and x.shape.is_fully_defined() and x.dtype != D.variant:
        return _zeros(x.shape.as_list(), x.dtype)
    return zeros_like(x)


def _leading(rows, tensor):
    """The first rows of ``rows``, as many as ``tensor`` has: a list's gradient may be longer
    than the list (written past its end by a dynamic-size TensorArray; TF resizes it back)."""
    n = tensor.shape.dims[0] if tensor.shape.rank else None
    if n is not None and rows.shape.rank and rows.shape.dims[0] == n:
        return rows
    if n is None:
        from ..array import shape

        n = shape(tensor)[0]
    return rows[:n]


def _one_item(lst, index, item):
    """The gradient list of a read: ``item`` at ``index`` in a list as long as ``lst``."""
    empty = bind(RESERVE, bind(LENGTH, lst), element_shape=_dims(item.shape),
                 element_dtype=item.dtype)
    return bind(SET_ITEM, empty, index, item)


def _stack_list(lst, element_dtype, element_shape, num_elements=-1):
    return bind(STACK, lst, element_dtype=element_dtype, element_shape=element_shape,
                num_elements=num_elements)


def _is_empty_list(t):
    """True if ``t`` is known to be a list with no element written (a zero gradient)."""
    value = getattr(t, "_value", None)
    if isinstance(value, TensorList):
        return all(x is None for x in value.items)
    op = getattr(t, "op", None)
    return op is not None and op.type == "TensorListReserve"


def _single_item(t):
    """(index, item) when ``t`` is one item written into an empty list (a read's gradient)."""
    op = getattr(t, "op", None)
    if op is not None and op.type == "TensorListSetItem" and _is_empty_list(op.inputs[0]):
        return op.inputs[1], op.inputs[2]
    return None


def element_dtype(t, depth=32):
    """The element dtype of the list tensor ``t``, found from the ops around it (None if not)."""
    value = getattr(t, "_value", None)
    if isinstance(value, TensorList):
        return None if value.element_dtype is None else D.from_numpy(value.element_dtype)
    for _ in range(depth):
        op = getattr(t, "op", None)
        if op is None:
            return None
        kind = op.type
        if kind == "TensorListReserve":
            return op.attrs["element_dtype"]
        if kind in ("TensorListFromTensor", "TensorListSplit"):
            return op.inputs[0].dtype
        if kind == "TensorListSetItem":
            return op.inputs[2].dtype
        if kind == "TensorListScatterIntoExistingList":
            return op.inputs[1].dtype
        found = _dtype_from_consumers(t)
        if found is not None:
            return found
        t = _list_source(t, op)
        if t is None:
            return None
    return None


def _dtype_from_consumers(t):
    graph = getattr(t, "graph", None)
    for op in graph.get_operations() if graph is not None else ():
        if op.inputs and op.inputs[0] is t:
            if "element_dtype" in op.attrs:
                return op.attrs["element_dtype"]
            if op.type == "TensorListSetItem":
                return op.inputs[2].dtype
            if op.type == "TensorListScatterIntoExistingList":
                return op.inputs[1].dtype
    return None


def _list_source(t, op):
    """The tensor ``t`` was passed on from: a loop's input, a branch's output, an outer value."""
    kind = op.type
    if kind in ("TensorListSetItem", "TensorListScatterIntoExistingList", "Identity"):
        return op.inputs[0]
    if kind in ("While", "StatelessWhile"):
        return op.inputs[t.value_index + bool(op.attrs.get("has_maximum_iterations"))]
    if kind in ("If", "StatelessIf"):
        return op.attrs["then_branch"].outputs[t.value_index]
    if kind in ("Case", "StatelessCase"):
        return op.attrs["branches"][0].outputs[t.value_index]
    if kind == "Placeholder":
        for value, ph in t.graph.captures:
            if ph is t:
                return value
    return None


def zero_list_like(lst, dtype, element_shape):
    """A zero gradient for the list ``lst``: as many unwritten elements, or (when the element
    shape is not static, so unwritten elements could not be read) written zeros."""
    if _known(element_shape):
        return bind(RESERVE, bind(LENGTH, lst), element_shape=element_shape,
                    element_dtype=dtype)
    zeros = _zeros_like(_stack_list(lst, dtype, element_shape))
    return bind(FROM_TENSOR, zeros, element_shape=element_shape)


def add_lists(lists):
    """The sum of list gradients, element by element (unwritten elements are zeros). A read's
    gradient adds in place, so a loop that reads a list costs O(1) per read."""
    written = [g for g in lists if not _is_empty_list(g)]
    if not written:
        return lists[0]
    total = written[0]
    for g in written[1:]:
        total = _add_two(total, g)
    return total


def _add_two(a, b):
    for x, y in ((a, b), (b, a)):
        hit = _single_item(y)
        if hit is not None:
            index, item = hit
            old = bind(GET_ITEM, x, index, element_dtype=item.dtype,
                       element_shape=_dims(item.shape))
            return bind(SET_ITEM, x, index, old + item)
    dtype = element_dtype(a) or element_dtype(b)
    total = _stack_list(a, dtype, None) + _stack_list(b, dtype, None)
    return bind(FROM_TENSOR, total, element_shape=_dims(_rest(total.shape)))


# --- TensorArray --------------------------------------------------------------------------------
@tf_export("TensorArray")
class TensorArray:
    """``tf.TensorArray``: a list of tensors of one dtype, written and read by index.

    Eagerly it is a Python list and ``write`` changes it in place (returning it). While a
    function is traced it is a value: ``write``/``unstack``/``scatter`` return a new TensorArray
    (always use the result: ``ta = ta.write(i, x)``), which lets it be a ``tf.while_loop``
    variable.
    """

    def __new__(cls, dtype=None, size=None, dynamic_size=None, clear_after_read=None,
                tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                element_shape=None, colocate_with_first_write_call=True, name=None):
        impl = cls
        if cls is TensorArray:
            eager = state.graph is None and (flow is None or flow.dtype != D.variant)
            impl = _EagerTensorArray if eager else _GraphTensorArray
        return object.__new__(impl)

    dtype = property(lambda self: self._dtype)
    dynamic_size = property(lambda self: self._dynamic_size)
    flow = property(lambda self: self._flow, doc="The value standing for this array's state.")
    handle = property(lambda self: None)

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is not supported; gradients of TensorArray "
                                  "ops are computed through the ops themselves.")

    def __repr__(self):
        return f"<tensortrace.TensorArray dtype={self._dtype.name} at 0x{id(self):X}>"


def _index_value(index):
    return index.numpy() if isinstance(index, EagerTensor) else index


class _EagerTensorArray(TensorArray):
    """The eager TensorArray: a Python list of EagerTensors (None where never written)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is "
                             "enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is "
                             "enabled.")
        self._dtype = D.as_dtype(dtype)
        self._flow = EagerTensor._wrap(np.int32(0))
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape)
        self._dynamic_size = dynamic_size or False
        self._clear_after_read = True if clear_after_read is None else clear_after_read
        self._previously_read = []
        self._tensor_array = [None] * int(_index_value(size))

    element_shape = property(lambda self: self._element_shape)

    def identity(self):
        return self

    def read(self, index, name=None):
        index = _index_value(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {index}) "
                                  "is not allowed.")
        if index >= len(self._tensor_array):
            raise OutOfRangeError(None, None, f"Tried to read from index {index} but array size "
                                  f"is: {len(self._tensor_array)} ")
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read:
                raise InvalidArgumentError(
                    None, None, f"Could not read index {index} twice because it was cleared "
                    "after a previous read (perhaps try setting clear_after_read = false?)")
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read.append(index)
        return tensor

    def _write(self, index, value):
        index = _index_value(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is "
                                  "not allowed.")
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(None, None, f"Tried to write to index {index} but array is "
                                      f"not resizeable and size is: {size} ")
            self._tensor_array.extend([None] * (index - size + 1))
        if not isinstance(value, EagerTensor):
            value = convert_to_tensor(value, dtype_hint=self._dtype)
        if self._dtype != value.dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} but "
                                       f"Op is trying to write dtype {value.dtype.name} ")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected "
                             f"({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value

    def write(self, index, value, name=None):
        self._write(index, value)
        return self

    def _maybe_zero(self, index):
        value = self._tensor_array[index]
        if value is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape "
                                 f"{self._element_shape} to a Tensor.")
            value = self._tensor_array[index] = _zeros(self._element_shape.dims, self._dtype)
        return value

    def stack(self, name=None):
        for i in range(len(self._tensor_array)):
            self._maybe_zero(i)
        if not self._tensor_array:
            shape = self._element_shape.dims if self._element_shape.is_fully_defined() else []
            return EagerTensor._wrap(np.zeros([0] + shape, self._dtype._np))
        return _stack(self._tensor_array)

    def gather(self, indices, name=None):
        indices = _index_value(indices)
        return _stack([self._maybe_zero(i) for i in np.asarray(indices).tolist()])

    def concat(self, name=None):
        values = [self._maybe_zero(i) for i in range(len(self._tensor_array))]
        for i, v in enumerate(values):
            if v.shape.rank == 0:
                raise InvalidArgumentError(None, None, f"Concat saw a scalar shape at index {i} "
                                           "but requires at least vectors.")
        if not values:
            raise InvalidArgumentError(None, None, "Cannot concat an empty TensorArray: "
                                       "ConcatV2 needs at least one input [Op:ConcatV2]")
        return _concat(values, 0)

    def unstack(self, value, name=None):
        tensors = _unstack(convert_to_tensor(value))
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of "
                             f"static size {len(self._tensor_array)} ")
        self._tensor_array = tensors
        return self

    def scatter(self, indices, value, name=None):
        indices = _index_value(indices)
        for index, v in zip(np.asarray(indices).tolist(), _unstack(convert_to_tensor(value))):
            self._write(index, v)
        return self

    def split(self, value, lengths, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = np.asarray(_index_value(convert_to_tensor(lengths)))
        if lengths.ndim != 1:
            raise InvalidArgumentError(None, None, "Expected lengths to be a vector, received "
                                       f"shape: {list(lengths.shape)} ")
        if value.shape.rank == 0:
            raise InvalidArgumentError(None, None, "Expected value to be at least a vector, but "
                                       "received shape: [] ")
        if lengths.sum() != value.shape[0]:
            raise InvalidArgumentError(
                None, None, "Expected sum of lengths to be equal to values.shape[0], but sum of "
                f"lengths is {lengths.sum()} and value's shape is: {value.shape.as_list()} ")
        if not self._dynamic_size and len(lengths) != len(self._tensor_array):
            raise InvalidArgumentError(
                None, None, "TensorArray's size is not equal to the size of lengths "
                f"({len(self._tensor_array)} vs. {len(lengths)}), and the TensorArray is not "
                "marked as dynamically resizeable.")
        self._tensor_array = list(_split(value, lengths.tolist()))
        return self

    def size(self, name=None):
        return EagerTensor._wrap(np.int32(len(self._tensor_array)))

    def close(self, name=None):
        del self._tensor_array[:]


class _GraphTensorArray(TensorArray):
    """The traced TensorArray: a ``flow`` tensor holding a TensorList; ops return new arrays.

    Arrays derived from one another share their element shape (one list), so a shape learned
    from a write inside a loop body is known to the array after the loop, as in TF.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if flow is not None and (not isinstance(flow, Tensor) or flow.dtype != D.variant):
            raise TypeError(f"Expected `flow` to be a variant tensor, but received "
                            f"`{getattr(flow, 'dtype', type(flow))}` instead.")
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not "
                             "provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `flow` and `size` arguments at the same time.")
        if flow is not None and element_shape is not None:
            raise ValueError("Cannot provide both `flow` and `element_shape` argumentsat the "
                             "same time.")
        self._dtype = D.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._size = size
        self._element_shape = [as_shape(element_shape)]
        self._infer_shape = infer_shape
        if flow is None:
            flow = bind(RESERVE, convert_to_tensor(size, dtype=D.int32),
                        element_shape=_dims(element_shape), element_dtype=self._dtype)
        self._flow = flow

    element_shape = property(lambda self: self._element_shape[0])

    def _with_flow(self, flow):
        """The array whose state is ``flow``, sharing this one's properties."""
        new = object.__new__(_GraphTensorArray)
        new.__dict__.update(self.__dict__)
        new._flow = flow
        return new

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _value(self, value):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        self._check_element_shape(value.shape)
        return value

    def identity(self):
        return self._with_flow(self._flow)

    def read(self, index, name=None):
        return bind(GET_ITEM, self._flow, _index(index), element_dtype=self._dtype,
                    element_shape=_dims(self.element_shape))

    def write(self, index, value, name=None):
        value = self._value(value)
        attrs = {"resize_if_index_out_of_bounds": True} if self._dynamic_size else {}
        return self._with_flow(bind(SET_ITEM, self._flow, _index(index), value, **attrs))

    def _static_size(self):
        if self._dynamic_size or self._size is None:
            return -1
        size = static_value(convert_to_tensor(self._size))
        return -1 if size is None else int(size)

    def stack(self, name=None):
        return bind(STACK, self._flow, element_dtype=self._dtype,
                    element_shape=_dims(self.element_shape), num_elements=self._static_size())

    def gather(self, indices, name=None):
        return bind(GATHER, self._flow, _index(indices, "indices"), element_dtype=self._dtype,
                    element_shape=_dims(self.element_shape))

    def concat(self, name=None):
        shape = _dims(self.element_shape)
        shape = None if not shape else (None,) + shape[1:]
        return bind(CONCAT, self._flow, element_dtype=self._dtype, element_shape=shape)[0]

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        self._check_element_shape(value.shape[1:])
        return self._with_flow(bind(FROM_TENSOR, value, element_shape=_dims(value.shape[1:])))

    def scatter(self, indices, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        self._check_element_shape(value.shape[1:])
        return self._with_flow(bind(SCATTER, self._flow, value, _index(indices, "indices")))

    def split(self, value, lengths, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = convert_to_tensor(lengths, dtype_hint=D.int64)
        sizes = static_value(lengths)
        if value.shape.rank is not None and sizes is not None and sizes.ndim == 1 and \
                len(sizes) and sizes.max() == sizes.min():
            self._check_element_shape(TensorShape([int(sizes[0])]).concatenate(value.shape[1:]))
        return self._with_flow(bind(SPLIT, value, lengths,
                                    element_shape=_dims(self.element_shape)))

    def size(self, name=None):
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=D.int32)
        return bind(LENGTH, self._flow)

    def close(self, name=None):
        return None


def _index(index, name="index"):
    """An index argument as an int32 tensor (TF's list ops take int32 only)."""
    if isinstance(index, Tensor):
        return index
    return convert_to_tensor(index, dtype=D.int32)


def flow_of(ta):
    """The flow tensor standing for ``ta`` in control flow (a traced TensorArray only)."""
    if not isinstance(ta, _GraphTensorArray):
        raise _eager_in_graph()
    return ta.flow


def from_flow(template, flow):
    """The TensorArray like ``template`` whose state is the variant tensor ``flow`` (control flow
    rebuilds loop variables and branch outputs with this)."""
    if not isinstance(template, _GraphTensorArray):
        raise _eager_in_graph()
    return template._with_flow(flow)


def _eager_in_graph():
    return NotImplementedError(
        "Attempting to build a graph-mode TF2-style TensorArray from either an eager-mode "
        "TensorArray or a TF1-style TensorArray.  This is not currently supported.  You may "
        "be attempting to capture a TensorArray inside a tf.function or tf.data map "
        "function. Instead, construct a new TensorArray inside the function.")
