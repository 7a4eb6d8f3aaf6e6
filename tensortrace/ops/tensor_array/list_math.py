"""Arithmetic on list tensors, as TF registers it for the TensorList variant (its ``AddN`` and
``ZerosLike``): lists add element by element, unwritten elements counting as zeros. Gradients of
list values are lists, and the backward pass sums and zero-fills them with these."""

from ... import dtypes as D
from ...context import bind, state
from ...shapes import TensorShape
from ..array.creation import zeros, zeros_like
from .list_ops import FROM_TENSOR, GET_ITEM, LENGTH, RESERVE, SET_ITEM, STACK
from ...shapes import shape_attr
from .list_value import TensorList, known


def row_shape(shape):
    """An element's shape: ``shape`` without its first dim (unknown for an unknown rank)."""
    return TensorShape(None) if shape.rank is None else TensorShape(shape.dims[1:])


def static_zeros_like(x):
    """Zeros like ``x``: a constant when its shape is static (so x itself is not needed)."""
    if state.graph is not None and x.shape.is_fully_defined() and x.dtype != D.variant:
        return zeros(x.shape.as_list(), x.dtype)
    return zeros_like(x)


def stack_list(lst, element_dtype, element_shape, num_elements=-1):
    return bind(STACK, lst, element_dtype=element_dtype, element_shape=element_shape,
                num_elements=num_elements)


def _is_empty_list(t):
    """True if ``t`` is known to be a list with no element written (a zero gradient)."""
    value = getattr(t, "_value", None)
    if isinstance(value, TensorList):
        return all(x is None for x in value.items)
    op = getattr(t, "op", None)
    return op is not None and op.type == "TensorListReserve"


def single_item(t):
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
    """A zero list like ``lst``: as many unwritten elements, or (when the element shape is not
    static, so unwritten elements could not be read) written zeros."""
    if known(element_shape):
        return bind(RESERVE, bind(LENGTH, lst), element_shape=element_shape,
                    element_dtype=dtype)
    filled = static_zeros_like(stack_list(lst, dtype, element_shape))
    return bind(FROM_TENSOR, filled, element_shape=element_shape)


def add_lists(lists):
    """The sum of lists, element by element (unwritten elements are zeros). A list holding one
    item (a read's gradient) is added in place, so a loop that reads a list costs O(1) per
    read."""
    written = [g for g in lists if not _is_empty_list(g)]
    if not written:
        return lists[0]
    total = written[0]
    for g in written[1:]:
        total = _add_two(total, g)
    return total


def _add_two(a, b):
    for x, y in ((a, b), (b, a)):
        hit = single_item(y)
        if hit is not None:
            index, item = hit
            old = bind(GET_ITEM, x, index, element_dtype=item.dtype,
                       element_shape=shape_attr(item.shape))
            return bind(SET_ITEM, x, index, old + item)
    dtype = element_dtype(a) or element_dtype(b)
    total = stack_list(a, dtype, None) + stack_list(b, dtype, None)
    return bind(FROM_TENSOR, total, element_shape=shape_attr(row_shape(total.shape)))
