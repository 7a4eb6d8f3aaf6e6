"""``tf.SparseTensor`` (indices, values, dense_shape) and ``tf.SparseTensorSpec``, with the
operators TF defines on it (``*`` and ``/`` by a dense tensor broadcast to it)."""

import numpy as np

from .. import dtypes as D
from .._export import export_value
from ..composite import CompositeTensor, TypeSpec
from ..context import bind
from ..convert import convert_to_tensor
from ..ops._args import shape_values
from ..ops.indexing.gathering import boolean_mask
from ..ops.math.casting import cast
from ..ops.math.compare import equal
from ..ops.sparse import arithmetic
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec


def _int64(value, what):
    if isinstance(value, Tensor):
        if value.dtype != D.int64:
            raise ValueError(f"Tensor conversion requested dtype int64 for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    return convert_to_tensor(value, D.int64)


class SparseTensor(CompositeTensor):
    """A sparse tensor: ``values[i]`` at ``indices[i]`` of a dense tensor of shape
    ``dense_shape``, zero elsewhere.

        st = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20],
                                    dense_shape=[3, 10])
    """

    _native_tensor = True  # TF's internal.NativeObject: tf.is_tensor is True for it

    def __init__(self, indices, values, dense_shape):
        indices = _int64(indices, "indices")
        values = convert_to_tensor(values)
        dense_shape = _int64(dense_shape, "dense_shape")
        known = shape_values(dense_shape)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._dense_shape_default = TensorShape(
            None if known is None else [None if d is None or d < 0 else int(d) for d in known])
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        _compatible(indices_shape.dims[0], values_shape.dims[0])
        _compatible(indices_shape.dims[1], dense_shape_shape.dims[0])

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor from one (returned as is) or from any (indices, values,
        dense_shape) value."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                   dense_shape=sparse_tensor_value.dense_shape)

    @property
    def indices(self):
        """The [N, rank] int64 tensor of the non-zero entries' indices."""
        return self._indices

    @property
    def values(self):
        """The [N] tensor of the non-zero entries' values."""
        return self._values

    @property
    def dense_shape(self):
        """The [rank] int64 tensor of the dense shape."""
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        """The dense shape as a TensorShape (what is known of it)."""
        return self._dense_shape_default

    def get_shape(self):
        return self._dense_shape_default

    def set_shape(self, shape):
        """Refine the static dense shape (ValueError when incompatible)."""
        shape = as_shape(shape)
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    @property
    def op(self):
        return self._values.op

    @property
    def graph(self):
        return self._indices.graph

    def consumers(self):
        return self._consumers()

    def _is_eager(self):
        return all(isinstance(t, EagerTensor) for t in
                   (self._indices, self._values, self._dense_shape))

    def with_values(self, new_values):
        """The same indices and dense shape with ``new_values`` (of the same length)."""
        new_values = convert_to_tensor(new_values)
        new_values.shape.with_rank(1)
        _compatible(self._values.shape.dims[0], new_values.shape.dims[0])
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._dense_shape_default = self._dense_shape_default
        return out

    _with_values = with_values  # what tf.cast uses (it casts a SparseTensor's values)

    def __str__(self):
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    __repr__ = __str__

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def _binary(self, op, other):
        other = convert_to_tensor(other, dtype=self.dtype)
        values = bind(op, self._indices, self._values, self._dense_shape, other)
        return SparseTensor(self._indices, values, self._dense_shape)

    def __mul__(self, other):
        return self._binary(arithmetic.SparseDenseCwiseMul, other)

    def __truediv__(self, other):
        """TF's true division: integer values (and the divisor) go to float first."""
        other = convert_to_tensor(other, dtype=self.dtype)
        if not (self.dtype.is_floating or self.dtype.is_complex):
            wide = D.float32 if self.dtype in (D.int8, D.uint8, D.int16, D.uint16) else \
                D.float64
            st = SparseTensor(self._indices, cast(self._values, wide), self._dense_shape)
            return st._binary(arithmetic.SparseDenseCwiseDiv, cast(other, wide))
        return self._binary(arithmetic.SparseDenseCwiseDiv, other)

    def __div__(self, other):
        return self._binary(arithmetic.SparseDenseCwiseDiv, other)


def _compatible(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions {a} and {b} are not compatible")


class SparseTensorSpec(TypeSpec):
    """The type of a SparseTensor: its dense shape (possibly partial) and dtype; its components
    are the indices, values and dense shape."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=D.float32):
        self._shape = as_shape(shape)
        self._dtype = D.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def value_type(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value._type_spec
        return cls(TensorShape(np.asarray(value.dense_shape).tolist()),
                   D.as_dtype(np.asarray(value.values).dtype))

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return (TensorSpec([None, rank], D.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], D.int64))

    def _to_components(self, value):
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components):
        indices, values, dense_shape = components
        out = SparseTensor(indices, values, dense_shape)
        if self._shape.rank is not None:
            out._dense_shape_default = out._dense_shape_default.merge_with(self._shape)
        return out

    def _grad_components(self, value):
        return [value.values]  # indices and shape are integers: no gradient

    # --- tf.data: batching (TF's: entries stacked under a new first index, the dense shape
    # the largest of the elements') -------------------------------------------------------
    def _batch(self, batch_size):
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self._shape[1:] if self._shape.rank is not None else None,
                                self._dtype)

    def _batch_values(self, values):
        """Eager SparseTensors of one rank as one SparseTensor with a new first dimension."""
        parts = [[np.asarray(v.indices), np.asarray(v.values), np.asarray(v.dense_shape)]
                 for v in values]
        rank = parts[0][2].size
        indices = [np.concatenate([np.full((len(i), 1), k, np.int64), i], 1)
                   for k, (i, _, _) in enumerate(parts)]
        shape = np.max([p[2] for p in parts], axis=0) if parts else np.zeros(rank, np.int64)
        return SparseTensor(np.concatenate(indices).reshape(-1, rank + 1),
                            np.concatenate([p[1] for p in parts]).astype(self._dtype._np),
                            np.concatenate([[len(parts)], shape]).astype(np.int64))

    def _unbatch_values(self, value):
        """The rows of an eager SparseTensor along its first dimension."""
        indices, values = np.asarray(value.indices), np.asarray(value.values)
        shape = np.asarray(value.dense_shape)
        if shape.size == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        rows = []
        for i in range(int(shape[0])):
            keep = indices[:, 0] == i
            rows.append(SparseTensor(indices[keep][:, 1:], values[keep], shape[1:]))
        return rows

    def _unbatch_row(self, value, i):
        """Row ``i`` (a scalar int tensor) of ``value`` along its first dimension, with ops
        (map_fn reads a traced SparseTensor so): the entries whose first index is ``i``."""
        keep = equal(value.indices[:, 0], cast(i, D.int64))
        row = SparseTensor(boolean_mask(value.indices, keep)[:, 1:],
                           boolean_mask(value.values, keep), value.dense_shape[1:])
        row.set_shape(self._shape[1:])
        return row

    def _from_grad_components(self, value, grads):
        return None if grads[0] is None else \
            SparseTensor(value.indices, grads[0], value.dense_shape)


export_value(SparseTensor, "SparseTensor", "sparse.SparseTensor")
export_value(SparseTensorSpec, "SparseTensorSpec")
