"""The run-time value of a ``variant`` TensorList tensor (a persistent list), the private list a
compiled loop accumulates into, and the shape and dtype helpers the list ops share."""

import numpy as np

from ... import dtypes as D
from ...errors import invalid_argument
from ...messages import c_name, shape_text
from ...tensor import TensorSpec


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
        return data if type(data) is not tuple else reroot(self)

    def __repr__(self):
        return (f"<TensorList of {len(self.items)} {D.from_numpy(self.element_dtype).name} "
                f"elements>")


# A diff is (newer, index, value): this version is ``newer`` with element ``index`` = value;
# index -1: ``newer`` cut to ``value`` elements; index -2: ``newer`` extended by list ``value``.
def reroot(lst):
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


#: Hand-overs allowed beyond the list's length before a write copies the list.
MIN_HANDOVERS = 32


def set_item(lst, store, i, item, new):
    """Make ``new`` the version of ``lst`` (whose items are ``store``) with element ``i``
    (possibly past the end) set to ``item``."""
    n = len(store)
    new._depth = lst._depth + 1
    if type(store) is list and new._depth <= n + MIN_HANDOVERS:
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


# --- a loop's private accumulator (see control_flow.codegen._accumulate_in_place) --------------
def private_items(lst):
    """A fresh Python list of ``lst``'s items, for a compiled loop to write in place."""
    return list(lst.items)


def from_items(items, like):
    """The TensorList holding ``items``, with ``like``'s element dtype and shape."""
    return TensorList(items, like.element_dtype, like.element_shape)


def set_item_error(index, size):
    raise invalid_argument(f"Trying to modify element {int(index)} in a list with {size} "
                           "elements.")


# --- shapes and dtypes of list elements ---------------------------------------------------------
VARIANT = TensorSpec((), D.variant)


def merge(a, b):
    """Merge two attr shapes; None when they conflict."""
    if a is None or b is None:
        return b if a is None else a
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        return None
    return tuple(x if x is not None else y for x, y in zip(a, b))


def known(dims):
    return dims is not None and None not in dims


def fill_shape(lst, attr_shape):
    """The shape of an element never written: the op's, the list's and the written ones'."""
    shape = merge(attr_shape, lst.element_shape)
    for item in lst.items:
        if known(shape):
            break
        if item is not None:
            shape = merge(shape, np.shape(item))
    return shape


def zeros_or_fail(lst, attr_shape, message):
    """Zeros standing for an unwritten element; ``message`` (formatted with the shape) when its
    shape is not known."""
    shape = fill_shape(lst, attr_shape)
    if not known(shape):
        raise invalid_argument(message.format(shape_text(merge(attr_shape, lst.element_shape))))
    return np.zeros(shape, lst.element_dtype)


def rows(arr):
    """The elements of a tensor's rows; 0-d object rows stay arrays (never bare bytes)."""
    return [arr[i, ...] for i in range(len(arr))] if arr.dtype == object else arr


def dtype_error(item_dtype, list_dtype):
    return invalid_argument(f"Invalid data types; op elements {c_name(D.from_numpy(item_dtype))} "
                            f"but list elements {c_name(D.from_numpy(list_dtype))}")
