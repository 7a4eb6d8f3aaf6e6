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
from ...shapes import TensorShape, as_shape
from ...tensor import EagerTensor, Tensor, static_value
from .._args import int_arg, shown
from ..array.creation import zeros as _zeros
from ..array.joining import concat as _concat
from ..array.joining import split as _split
from ..array.joining import stack as _stack
from ..array.joining import unstack as _unstack
from .list_ops import (CONCAT, FROM_TENSOR, GATHER, GET_ITEM, LENGTH, RESERVE, SCATTER, SET_ITEM,
                       SPLIT, STACK)
from ...shapes import shape_attr


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
        size = int_arg(_index_value(size), "size")
        if size < 0:
            raise invalid_argument(f"Size should be >= 0, got {size}", "TensorArrayV3")
        self._tensor_array = [None] * size

    element_shape = property(lambda self: self._element_shape)

    def identity(self):
        return self

    def read(self, index, name=None):
        index = int_arg(_index_value(index), "index")
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
        index = int_arg(_index_value(index), "index")
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
        value = _index_value(indices)
        try:
            indices = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        except (ValueError, TypeError):  # ragged, or nested too deep for NumPy
            indices = None
        if indices is None or indices.dtype.kind not in "iu" or indices.ndim != 1:
            raise TypeError(f"`indices` must be a vector of ints, got {shown(value)}")
        return _stack([self._maybe_zero(i) for i in indices.tolist()])

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
                        element_shape=shape_attr(element_shape), element_dtype=self._dtype)
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
                    element_shape=shape_attr(self.element_shape))

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
                    element_shape=shape_attr(self.element_shape),
                    num_elements=self._static_size())

    def gather(self, indices, name=None):
        return bind(GATHER, self._flow, _index(indices, "indices"), element_dtype=self._dtype,
                    element_shape=shape_attr(self.element_shape))

    def concat(self, name=None):
        shape = shape_attr(self.element_shape)
        shape = None if not shape else (None,) + shape[1:]
        return bind(CONCAT, self._flow, element_dtype=self._dtype, element_shape=shape)[0]

    def unstack(self, value, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        self._check_element_shape(value.shape[1:])
        return self._with_flow(bind(FROM_TENSOR, value,
                                    element_shape=shape_attr(value.shape[1:])))

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
                                    element_shape=shape_attr(self.element_shape)))

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
