"""``tf.experimental.DynamicRaggedShape``: the shape ``tf.shape`` gives a RaggedTensor (its row
lengths per ragged dimension, the uniform dimensions as sizes)."""

from .. import dtypes as D
from .._export import tf_export
from ..ops.math.casting import cast
from ..tensor import Tensor
from . import _util as U
from .ragged_tensor import RaggedTensor


@tf_export("experimental.DynamicRaggedShape")
class DynamicRaggedShape:
    """The shape of a (ragged) tensor: row partitions for the ragged dimensions, then the
    inner shape of the flat values."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True,
                 static_inner_shape=None):
        self._partitions = tuple(row_partitions)  # the row splits of each partition
        self._inner_shape = inner_shape
        self._dtype = D.as_dtype(dtype) if dtype is not None else (
            inner_shape.dtype if isinstance(inner_shape, Tensor) else D.int64)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of ``t`` (a RaggedTensor or a tensor)."""
        dtype = D.int32 if dtype is None else D.as_dtype(dtype)
        if isinstance(t, RaggedTensor):
            splits = [s if s.dtype == dtype else cast(s, dtype) for s in t.nested_row_splits]
            return cls._make(splits, U.tf_shape(t.flat_values, out_type=dtype), dtype, t)
        return cls([], U.tf_shape(U.tensor(t), out_type=dtype), dtype)

    @classmethod
    def _make(cls, splits, inner, dtype, rt):
        shape = cls(splits, inner, dtype)
        shape._uniform = []  # uniform row lengths of the ragged partitions (or None)
        level = rt
        while isinstance(level, RaggedTensor):
            url = level.uniform_row_length
            shape._uniform.append(None if url is None else U.static(url))
            level = level.values
        return shape

    dtype = property(lambda self: self._dtype)
    inner_shape = property(lambda self: self._inner_shape)
    num_row_partitions = property(lambda self: len(self._partitions))

    @property
    def rank(self):
        inner = self._inner_shape.shape[0]
        return None if inner is None else inner + len(self._partitions)

    def _is_uniform(self, i):
        uniform = getattr(self, "_uniform", [None] * len(self._partitions))
        return uniform[i - 1] is not None

    def static_lengths(self, ragged_lengths=True):
        """The lengths as Python values: ints for uniform dims, tuples of row lengths for
        ragged ones (when known)."""
        out = []
        if self._partitions:
            first = U.static(self._partitions[0])
            out.append(None if first is None else len(first) - 1)
            for i, splits in enumerate(self._partitions):
                if self._is_uniform(i + 1):
                    out.append(int(getattr(self, "_uniform")[i]))
                    continue
                s = U.static(splits)
                out.append(None if s is None or not ragged_lengths else tuple(
                    int(v) for v in s[1:] - s[:-1]))
            inner = U.static(self._inner_shape)
            out.extend([None] * (len(self._inner_shape.shape) - 1) if inner is None
                       else [int(v) for v in inner[1:]])
        else:
            inner = U.static(self._inner_shape)
            out.extend([int(v) for v in inner] if inner is not None else [])
        return out

    def __getitem__(self, index):
        rank = self.rank
        if isinstance(index, int) and rank is not None and not -rank <= index < rank:
            raise IndexError(f"Index {index} out of range")
        if isinstance(index, int) and index < 0:
            index += rank
        if not isinstance(index, int):
            raise TypeError(f"DynamicRaggedShape indices must be integers, not {index!r}")
        p = len(self._partitions)
        if index == 0:
            if p:
                return U.subtract(U.tf_shape(self._partitions[0], out_type=self._dtype)[0], 1)
            return self._inner_shape[0]
        if index <= p:
            if not self._is_uniform(index):
                raise ValueError(f"Index {index} is not uniform")
            return U.convert_to_tensor(self._uniform[index - 1], self._dtype)
        return self._inner_shape[index - p]

    def __repr__(self):
        lengths = ", ".join(str(v) for v in self.static_lengths())
        return (f"<DynamicRaggedShape lengths=[{lengths}] "
                f"num_row_partitions={self.num_row_partitions}>")

    __str__ = __repr__
