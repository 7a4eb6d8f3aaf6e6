"""``tf.IndexedSlices``: rows ``values`` of a dense tensor at first-dimension ``indices`` (the
gradient of a gather), and its conversion to a dense tensor (TF's unsorted segment sum)."""

import warnings

import numpy as np

from ... import dtypes as D
from ..._export import export_value
from ...composite import CompositeTensor, TypeSpec
from ...context import state
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from ..indexing.segment import unsorted_segment_sum

#: TF warns when a traced conversion makes a dense tensor of at least this many elements.
_LARGE_SPARSE_NUM_ELEMENTS = 100000000


class IndexedSlices(CompositeTensor):
    """A sparse representation of a set of tensor slices at given indices.

    ``dense[indices[i], ...] = values[i, ...]`` (repeated indices add up when densified).
    """

    _native_tensor = True  # TF's internal.NativeObject: tf.is_tensor is True for it

    def __init__(self, values, indices, dense_shape=None):
        self._values, self._indices, self._dense_shape = values, indices, dense_shape

    @property
    def values(self):
        """A `Tensor` containing the values of the slices."""
        return self._values

    @property
    def indices(self):
        """A 1-D `Tensor` containing the indices of the slices."""
        return self._indices

    @property
    def dense_shape(self):
        """A 1-D `Tensor` containing the shape of the corresponding dense tensor."""
        return self._dense_shape

    @property
    def shape(self):
        """The dense tensor's static shape (unknown without ``dense_shape``)."""
        if self._dense_shape is None:
            return TensorShape(None)
        known = static_value(self._dense_shape) if isinstance(self._dense_shape, Tensor) \
            else np.asarray(self._dense_shape)
        if known is not None:
            return TensorShape([None if d < 0 else int(d) for d in np.reshape(known, [-1])])
        n = self._dense_shape.shape.rank and self._dense_shape.shape.dims[0]
        return TensorShape(None if n is None else [None] * n)

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def consumers(self):
        return self._consumers()

    def __str__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def _with_values(self, values):
        """The same slices holding ``values`` (what tf.cast uses, as TF)."""
        return IndexedSlices(values, self._indices, self._dense_shape)

    @property
    def _type_spec(self):
        values_shape = self._values.shape
        indices_shape = self._indices.shape.merge_with(values_shape[:1])
        dense = TensorShape([None]).concatenate(values_shape[1:])
        shape_dtype = None
        if self._dense_shape is not None:
            shape_dtype = self._dense_shape.dtype
            dense = dense.merge_with(self.shape)
        return IndexedSlicesSpec(dense, self.dtype, self._indices.dtype, shape_dtype,
                                 indices_shape)

    def _as_graph_or_eager_tensor(self, dtype=None):
        """TF's conversion to a dense tensor: the rows summed into ``dense_shape``."""
        if dtype is not None and D.as_dtype(dtype) != self.dtype:
            raise ValueError(f"Incompatible tensor conversion requested to `dtype` "
                             f"{D.as_dtype(dtype).name} for IndexedSlices ({self}) with dtype "
                             f"{self.dtype.name}")
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices for argument "
                             f"`value` without dense_shape: {self!s}")
        if state.graph is not None:
            known = static_value(self._dense_shape)
            if known is not None:
                n = int(np.prod(known))
                if n >= _LARGE_SPARSE_NUM_ELEMENTS:
                    warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {n} "
                                  "elements. This may consume a large amount of memory.",
                                  stacklevel=3)
        return unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])


class IndexedSlicesSpec(TypeSpec):
    """The type of an IndexedSlices: dense shape, dtype, index dtypes, indices' shape."""

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype",
                 "_indices_shape")

    def __init__(self, shape=None, dtype=D.float32, indices_dtype=D.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = TensorShape(shape)
        self._values_dtype = D.as_dtype(dtype)
        self._indices_dtype = D.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            D.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape(indices_shape).with_rank(1)

    @property
    def dtype(self):
        return self._values_dtype

    @property
    def shape(self):
        return self._shape

    @property
    def value_type(self):
        return IndexedSlices

    def _serialize(self):
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    @property
    def _component_specs(self):
        values = TensorSpec(self._indices_shape[:1].concatenate(self._shape[1:]),
                            self._values_dtype)
        specs = [values, TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.ndims], self._dense_shape_dtype))
        return tuple(specs)

    def _to_components(self, value):
        if value.dense_shape is None:
            return [value.values, value.indices]
        return [value.values, value.indices, value.dense_shape]

    def _from_components(self, components):
        return IndexedSlices(*components)

    def _grad_components(self, value):
        return [value.values]

    def _from_grad_components(self, value, grads):
        return None if grads[0] is None else \
            IndexedSlices(grads[0], value.indices, value.dense_shape)


def is_indexed_slices(x):
    return isinstance(x, IndexedSlices)


export_value(IndexedSlices, "IndexedSlices")
export_value(IndexedSlicesSpec, "IndexedSlicesSpec")
