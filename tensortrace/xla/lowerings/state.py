"""Lowerings of variable reads and writes (on the ``Cell`` a variable is while a graph lowers:
the graph's writes are returned and written back after the call) and of TensorLists (one
array of all elements, ``ListValue``)."""

import numpy as np
from jax import numpy as jnp

from ...errors import FailedPreconditionError, InvalidArgumentError
from ..compiler import lowering, static


# --- variables ----------------------------------------------------------------------------------
@lowering("ReadVariableOp")
def _read(op, cell, dtype, shape):
    if cell.value is None:
        raise FailedPreconditionError(
            None, None, f"Could not find variable {op.inputs[0].op.name}. The variable was "
            "created inside a tf.function whose first call has not run yet, so it is still "
            "uninitialized.")
    return cell.value


def _assign(update):
    def lower(op, cell, value):
        if cell.value is None:
            raise FailedPreconditionError(
                None, None, f"Could not find variable {op.inputs[0].op.name}.")
        cell.value = jnp.asarray(update(cell.value, value)).astype(cell.value.dtype)
        cell.written = True
        return ()
    return lower


lowering("AssignVariableOp")(_assign(lambda old, new: new))
lowering("AssignAddVariableOp")(_assign(lambda old, delta: old + delta))
lowering("AssignSubVariableOp")(_assign(lambda old, delta: old - delta))


@lowering("InitializeVariableOnce")
def _initialize_once(op, cell, value):
    if cell.value is None:
        cell.value, cell.written = jnp.asarray(value), True
    return ()


@lowering("VarIsInitializedOp")
def _is_initialized(op, cell):
    return np.bool_(cell.value is not None)


@lowering("NoOp", "Assert")
def _nothing(op, *inputs, **attrs):
    return ()  # XLA compiles Assert to nothing, as TF's XLA does


# --- TensorLists --------------------------------------------------------------------------------
class ListValue:
    """A TensorList while a graph lowers: ``array`` holds all ``n`` elements; None until the
    element shape is known (a reserved list before its first write)."""

    __slots__ = ("array", "n", "dtype")

    def __init__(self, array, n, dtype):
        self.array, self.n, self.dtype = array, n, dtype

    def filled(self, element_shape, op):
        if self.array is not None:
            return self.array
        if element_shape is None or any(d is None or d < 0 for d in element_shape):
            raise InvalidArgumentError(None, None, (
                f"XLA compilation of node {{{{node {op.name}}}}} ({op.type}): the TensorList's "
                "element shape must be known at compile time"))
        return jnp.zeros((self.n,) + tuple(element_shape), self.dtype)


def _known(shape):
    return shape is not None and all(d is not None and d >= 0 for d in shape)


@lowering("TensorListReserve")
def _reserve(op, num_elements, element_shape, element_dtype):
    n, dtype = int(static(num_elements, op, 0)), element_dtype._np
    if _known(element_shape):
        return ListValue(jnp.zeros((n,) + tuple(element_shape), dtype), n, dtype)
    return ListValue(None, n, dtype)


@lowering("TensorListFromTensor")
def _from_tensor(op, tensor, element_shape):
    return ListValue(jnp.asarray(tensor), tensor.shape[0], tensor.dtype)


@lowering("TensorListSetItem")
def _set_item(op, lst, index, item, resize_if_index_out_of_bounds=False):
    array = lst.array
    if array is None:
        array = jnp.zeros((lst.n,) + tuple(np.shape(item)), lst.dtype)
    return ListValue(array.at[index].set(item), lst.n, lst.dtype)


@lowering("TensorListGetItem")
def _get_item(op, lst, index, element_dtype, element_shape):
    return lst.filled(element_shape, op)[index]


@lowering("TensorListStack")
def _stack(op, lst, element_dtype, element_shape, num_elements=-1):
    return lst.filled(element_shape, op)


@lowering("TensorListGather")
def _gather(op, lst, indices, element_dtype, element_shape):
    return jnp.take(lst.filled(element_shape, op), indices, axis=0)


@lowering("TensorListLength")
def _length(op, lst):
    return np.int32(lst.n)
