"""``tf.experimental.DynamicRaggedShape`` (the shape ``tf.shape`` gives a RaggedTensor: a row
partition per ragged dimension, then the inner shape of the flat values) and
``tf.experimental.RowPartition`` (one partition: the row splits, and the uniform row length
when the rows are uniform)."""

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..composite import CompositeTensor, TypeSpec
from ..convert import convert_to_tensor
from ..ops.math.casting import cast
from ..shapes import TensorShape
from ..tensor import Tensor, TensorSpec
from . import _util as U
from .ragged_tensor import RaggedTensor


@tf_export("experimental.RowPartition")
class RowPartition:
    """How a sequence of values is partitioned into rows: the row splits (and the uniform row
    length of uniform rows)."""

    def __init__(self, row_splits, uniform_row_length=None, internal=False):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the "
                             "factory methods instead (e.g., RowPartition.from_row_lengths())")
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits = U.index_tensor(row_splits, dtype, "row_splits")
        if validate:
            U.check_splits(splits, None, "from_row_splits")
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = U.index_tensor(row_lengths, dtype, "row_lengths")
        if validate:
            U.check_nonnegative(lengths, "from_row_lengths")
        splits = U.concat([convert_to_tensor([0], lengths.dtype), U.cumsum(lengths)], 0)
        return cls(splits, internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None,
                          dtype_hint=None):
        ids = U.index_tensor(value_rowids, dtype, "value_rowids")
        rt = RaggedTensor.from_value_rowids(U.fill(U.tf_shape(ids), 0), ids, nrows,
                                            validate=validate)
        return cls(rt.row_splits, internal=True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate=True, dtype=None, dtype_hint=None):
        length = U.index_tensor(uniform_row_length, dtype, "uniform_row_length")
        if nrows is None:
            nrows = U.convert_to_tensor(nvals, length.dtype) // U.maximum(length, 1)
        rt = RaggedTensor.from_uniform_row_length(
            U.fill(U.reshape(U.tensor(nrows, length.dtype) * length, [1]), 0), length, nrows,
            validate=validate)
        return cls(rt.row_splits, length, internal=True)

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        return U.subtract(self._row_splits[1:], self._row_splits[:-1])

    def row_starts(self):
        return self._row_splits[:-1]

    def row_limits(self):
        return self._row_splits[1:]

    def value_rowids(self):
        return U.rowids_of(self._row_splits)

    def nrows(self):
        return U.subtract(U.tf_shape(self._row_splits, out_type=self.dtype)[0], 1)

    def nvals(self):
        return self._row_splits[-1]

    def uniform_row_length(self):
        return self._uniform_row_length

    def is_uniform(self):
        return self._uniform_row_length is not None

    dtype = property(lambda self: self._row_splits.dtype)

    def __repr__(self):
        splits = U.static(self._row_splits)
        return f"tf.RowPartition(row_splits={splits if splits is not None else '?'})"


@tf_export("experimental.DynamicRaggedShape")
class DynamicRaggedShape(CompositeTensor):
    """The shape of a (ragged) tensor: row partitions for the ragged dimensions, then the
    inner shape of the flat values."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True,
                 static_inner_shape=None):
        parts = [p if isinstance(p, RowPartition) else RowPartition(p, internal=True)
                 for p in row_partitions]
        if dtype is None:
            dtype = parts[0].dtype if parts else (
                inner_shape.dtype if isinstance(inner_shape, Tensor) else D.int64)
        self._dtype = D.as_dtype(dtype)
        self._partitions = tuple(p if p.dtype == self._dtype else RowPartition(
            cast(p.row_splits(), self._dtype),
            cast(p.uniform_row_length(), self._dtype) if p.is_uniform() else None,
            internal=True) for p in parts)
        self._inner_shape = U.tensor(inner_shape, self._dtype) if not isinstance(
            inner_shape, Tensor) else (inner_shape if inner_shape.dtype == self._dtype
                                       else cast(inner_shape, self._dtype))

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of ``t`` (a RaggedTensor or a tensor)."""
        dtype = D.int32 if dtype is None else D.as_dtype(dtype)
        if isinstance(t, RaggedTensor):
            parts, level = [], t
            while isinstance(level, RaggedTensor):
                url = level.uniform_row_length
                parts.append(RowPartition(cast(level.row_splits, dtype), None if url is None
                                          else cast(url, dtype), internal=True))
                level = level.values
            return cls(parts, U.tf_shape(t.flat_values, out_type=dtype), dtype)
        return cls([], U.tf_shape(U.tensor(t), out_type=dtype), dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=D.int64):
        """A shape from its lengths: ints for uniform dimensions, tuples of row lengths for
        ragged ones (the first dimension is an int)."""
        lengths = list(lengths)
        if not lengths or not isinstance(lengths[0], int):
            raise ValueError("First element of lengths must be an int")
        last_ragged = max([i for i, v in enumerate(lengths) if not isinstance(v, int)],
                          default=0)
        parts, nvals = [], lengths[0]
        for i in range(1, last_ragged + 1):
            v = lengths[i]
            if isinstance(v, int):
                parts.append(RowPartition.from_uniform_row_length(v, nrows=nvals, dtype=dtype))
                nvals *= v
            else:
                if len(v) != nvals:
                    raise ValueError(f"Lengths {v} do not match the {nvals} rows before them")
                parts.append(RowPartition.from_row_lengths(list(v), dtype=dtype))
                nvals = int(sum(v))
        return cls(parts, [nvals] + lengths[last_ragged + 1:], dtype)

    dtype = property(lambda self: self._dtype)
    inner_shape = property(lambda self: self._inner_shape)
    num_row_partitions = property(lambda self: len(self._partitions))
    row_partitions = property(lambda self: self._partitions)

    @property
    def rank(self):
        inner = self._inner_shape.shape[0]
        return None if inner is None else inner + len(self._partitions)

    def static_lengths(self, ragged_lengths=True):
        """The lengths as Python values: ints for uniform dimensions, tuples of row lengths for
        ragged ones (None where unknown)."""
        inner = U.static(self._inner_shape)
        if not self._partitions:
            return [int(v) for v in inner] if inner is not None else None
        first = U.static(self._partitions[0].row_splits())
        out = [None if first is None else len(first) - 1]
        for p in self._partitions:
            url = U.static(p.uniform_row_length()) if p.is_uniform() else None
            if url is not None:
                out.append(int(url))
                continue
            s = U.static(p.row_splits())
            out.append(None if s is None or not ragged_lengths else tuple(
                int(v) for v in np.diff(s)))
        rest = [None] * (self._inner_shape.shape[0] - 1) if inner is None else [
            int(v) for v in inner[1:]]
        return out + rest

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._slice(index)
        rank = self.rank
        if not isinstance(index, int):
            raise TypeError(f"DynamicRaggedShape indices must be integers, not {index!r}")
        if rank is not None and not -rank <= index < rank:
            raise IndexError(f"Index {index} out of range")
        if index < 0:
            index += rank
        p = len(self._partitions)
        if index == 0:
            return self._partitions[0].nrows() if p else self._inner_shape[0]
        if index <= p:
            part = self._partitions[index - 1]
            if not part.is_uniform():
                raise ValueError(f"Index {index} is not uniform")
            return part.uniform_row_length()
        return self._inner_shape[index - p]

    def _slice(self, key):
        """The shape of the first dimensions (``shape[:k]``)."""
        if key.start not in (None, 0) or key.step not in (None, 1):
            raise ValueError("DynamicRaggedShape slices must be of the form [:k]")
        rank = self.rank
        stop = rank if key.stop is None else (key.stop + rank if key.stop < 0 else key.stop)
        stop = min(stop, rank)
        p = len(self._partitions)
        if stop == 0:
            return DynamicRaggedShape([], U.zeros([0], self._dtype), self._dtype)
        if stop <= p:
            nvals = self[0] if stop == 1 else self._partitions[stop - 2].nvals()
            return DynamicRaggedShape(self._partitions[:stop - 1], U.reshape(nvals, [1]),
                                      self._dtype)
        return DynamicRaggedShape(self._partitions, self._inner_shape[:stop - p], self._dtype)

    def _with_values(self, flat):
        """A (ragged) tensor of this shape with the flat values ``flat`` (reshaped)."""
        values = U.reshape(flat, self._inner_shape)
        for part in reversed(self._partitions):
            if part.is_uniform():
                values = RaggedTensor.from_uniform_row_length(values, part.uniform_row_length(),
                                                              validate=False)
            else:
                values = RaggedTensor.from_row_splits(values, part.row_splits(), validate=False)
        return values

    def __repr__(self):
        lengths = self.static_lengths()
        text = ", ".join(str(v) for v in lengths) if lengths is not None else "?"
        return (f"<DynamicRaggedShape lengths=[{text}] "
                f"num_row_partitions={self.num_row_partitions}>")

    __str__ = __repr__

    @property
    def _type_spec(self):
        return DynamicRaggedShapeSpec(len(self._partitions), self._inner_shape.shape[0],
                                      self._dtype)


class DynamicRaggedShapeSpec(TypeSpec):
    """The spec of a DynamicRaggedShape: its number of row partitions, inner rank, dtype."""

    __slots__ = ("_partitions", "_inner_rank", "_dtype")

    def __init__(self, num_row_partitions, inner_rank, dtype):
        self._partitions, self._inner_rank = num_row_partitions, inner_rank
        self._dtype = D.as_dtype(dtype)

    value_type = property(lambda self: DynamicRaggedShape)

    def _serialize(self):
        return (self._partitions, self._inner_rank, self._dtype)

    @property
    def _component_specs(self):
        return [TensorSpec([None], self._dtype)] * self._partitions + [
            TensorSpec(TensorShape([self._inner_rank]), self._dtype)]

    def _to_components(self, value):
        return [p.row_splits() for p in value.row_partitions] + [value.inner_shape]

    def _from_components(self, components):
        return DynamicRaggedShape(components[:-1], components[-1], self._dtype)
