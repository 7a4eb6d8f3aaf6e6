"""``tf.RaggedTensor`` and ``tf.RaggedTensorSpec``: rows of varying length stored as flat values
plus row splits (one splits vector per ragged dimension).

    rt = RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 3])   # <tf.RaggedTensor [[1, 2], [3]]>
"""

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from .. import errors
from ..composite import CompositeTensor, TypeSpec, type_spec_from_value
from ..convert import convert_to_tensor
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..ops.math.arithmetic import floordiv, multiply
from ..ops.indexing.scatter import tensor_scatter_nd_update
from ..ops.indexing.segment import unsorted_segment_sum
from ..ops.array.sequences import sequence_mask, reverse
from ..ops.array.broadcasting import broadcast_to
from ..ops.array.padding import pad
from ..ops.indexing.slicing import slice_ as tf_slice
from ..ops.reduce import cumprod, reduce_all, reduce_prod, reduce_sum
from ..ops.math.compare import equal
from ..ops.math.select import where
from ..sparse.sparse_tensor import SparseTensor
from . import _util as U
from ._util import cast, concat, gather, reshape, stack, subtract, tensor, tf_range, tf_shape


@tf_export("RaggedTensor")
class RaggedTensor(CompositeTensor):
    """A tensor with one or more ragged dimensions (TF's ``tf.RaggedTensor``)."""

    _native_tensor = True  # TF's internal.NativeObject: tf.is_tensor is True for it

    __slots__ = ("_values", "_row_splits", "_uniform_row_length", "_nrows_hint")

    def __init__(self, values, row_splits, uniform_row_length=None, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length
        self._nrows_hint = None

    # --- factories ----------------------------------------------------------------------------
    @classmethod
    def _make(cls, values, splits, uniform=None, what="from_row_splits", validate=True):
        if isinstance(values, RaggedTensor):
            if values.row_splits.dtype != splits.dtype:
                raise ValueError("dtype mismatch: the row_splits of values must have the same "
                                 "dtype as row_splits")
        elif not isinstance(values, Tensor):
            values = convert_to_tensor(values, name="values")
        if values.shape.rank == 0:
            raise ValueError("values must have rank at least 1")
        if validate:
            n = values.shape[0] if not isinstance(values, RaggedTensor) else U.static(
                values.nrows())
            U.check_splits(splits, None if n is None else int(n), what)
        return cls(values, splits, uniform, internal=True)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``."""
        splits = U.index_tensor(row_splits, None, "row_splits")
        if splits.shape.rank is not None and splits.shape.rank != 1:
            raise ValueError(f"Shape {tuple(splits.shape.as_list())} must have rank 1")
        return cls._make(values, splits, validate=validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths."""
        lengths = U.index_tensor(row_lengths, None, "row_lengths")
        if validate:
            U.check_nonnegative(lengths, "from_row_lengths")
        zero = convert_to_tensor([0], dtype=lengths.dtype)
        return cls._make(values, concat([zero, U.cumsum(lengths)], 0), validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at ``row_starts`` (each row ends where the next starts)."""
        starts = U.index_tensor(row_starts, None, "row_starts")
        values = _as_values(values)
        n = U.nvals(values, starts.dtype)
        splits = concat([starts, reshape(n, [1])], 0)
        if validate:
            s = U.static(starts)
            if s is not None and s.size and s[0] != 0:
                raise U.invalid("from_row_starts", f"\nCondition x == y did not hold.\nFirst "
                                f"1 elements of x:\n[{s[0]}]\nFirst 1 elements of y:\n[0]")
        return cls._make(values, splits, what="from_row_starts", validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at ``row_limits`` (each row starts where the previous ends)."""
        limits = U.index_tensor(row_limits, None, "row_limits")
        zero = convert_to_tensor([0], dtype=limits.dtype)
        return cls._make(values, concat([zero, limits], 0), what="from_row_limits",
                         validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Rows from the row index of each value (sorted ascending)."""
        rowids = U.index_tensor(value_rowids, None, "value_rowids")
        values = _as_values(values)
        ids = U.static(rowids)
        if validate and ids is not None:
            diffs = np.diff(ids)
            if (diffs < 0).any() or (ids.size and ids[0] < 0):
                U.check_nonnegative(convert_to_tensor(diffs), "from_value_rowids")
        if nrows is None and ids is not None:
            nrows = int(ids[-1]) + 1 if ids.size else 0
        if nrows is None:
            last = concat([convert_to_tensor([-1], rowids.dtype), rowids], 0)[-1]
            nrows = last + 1
        else:
            n_static = U.static(tensor(nrows, rowids.dtype))
            if validate and ids is not None and ids.size and n_static is not None \
                    and int(n_static) < int(ids[-1]) + 1:
                raise ValueError(f"Expected nrows >= value_rowids[-1] + 1; got "
                                 f"nrows={int(n_static)}, value_rowids[-1]={int(ids[-1])}")
            nrows = tensor(nrows, rowids.dtype)
        ones = U.fill(tf_shape(rowids, out_type=rowids.dtype), convert_to_tensor(
            1, rowids.dtype))
        lengths = unsorted_segment_sum(ones, rowids, nrows)
        zero = convert_to_tensor([0], dtype=rowids.dtype)
        return cls._make(values, concat([zero, U.cumsum(lengths)], 0), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows of one length: ``values`` reshaped to ``[nrows, uniform_row_length, ...]``."""
        dtype = values.row_splits.dtype if isinstance(values, RaggedTensor) else None
        length = U.index_tensor(uniform_row_length, dtype, "uniform_row_length")
        values = _as_values(values)
        n = U.nvals(values, length.dtype)
        if nrows is None:
            ls, ns = U.static(length), U.static(n)
            if ls is not None and ns is not None:
                nrows = convert_to_tensor(ns // ls if ls else 0, length.dtype)
            else:
                nrows = floordiv(n, U.maximum(length, 1))
        else:
            nrows = tensor(nrows, length.dtype)
        if validate:
            ls, ns, rs = U.static(length), U.static(n), U.static(nrows)
            if None not in (ls, ns, rs) and ls * rs != ns:
                raise ValueError(f"uniform_row_length={ls} times nrows={rs} must equal "
                                 f"nvals={ns}")
        splits = multiply(tf_range(convert_to_tensor(0, length.dtype), nrows + 1,
                                   dtype=length.dtype), length)
        rt = cls(values, splits, length, internal=True)
        rt._nrows_hint = U.static(nrows)
        return rt

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """Ragged dimensions from outermost to innermost splits."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        if isinstance(nested_row_lengths, Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        if isinstance(nested_value_rowids, Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(ids):
            raise ValueError("Argument `nested_nrows` must have the same length as argument "
                             "`nested_value_rowids`. len(nested_nrows) = "
                             f"{len(nrows)} vs. len(nested_values_rowids) = {len(ids)}.")
        result = flat_values
        for rowids, n in reversed(list(zip(ids, nrows))):
            result = cls.from_value_rowids(result, rowids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=D.int64):
        """A ragged tensor from a dense one: all of each row, its first ``lengths[i]`` items,
        or the row without its trailing ``padding``."""
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if not isinstance(ragged_rank, int) or ragged_rank <= 0:
            raise ValueError(f"Argument `ragged_rank` must be an int greater than 0. Received "
                             f"ragged_rank={ragged_rank}.")
        dense = U.tensor(tensor, name="tensor")
        if dense.shape.rank is not None and dense.shape.rank <= ragged_rank:
            raise ValueError(f"Argument `ragged_rank` must be less than the rank of argument "
                             f"`tensor`. Received ragged_rank={ragged_rank} and "
                             f"tensor.shape={dense.shape}.")
        dtype = D.as_dtype(row_splits_dtype)
        if ragged_rank > 1:  # the outer dimensions first: a uniform-split ragged of rank 1
            # merge the outer dimensions, split the innermost ragged one, then put the outer
            # ones back as uniform partitions
            shape = tf_shape(dense, out_type=dtype)
            k = ragged_rank - 1
            merged = reshape(dense, concat([reshape(reduce_prod(shape[:k + 1]), [1]),
                                            shape[k + 1:]], 0))
            result = cls.from_tensor(merged, lengths, padding, 1, row_splits_dtype=dtype)
            for axis in range(k, 0, -1):
                result = cls.from_uniform_row_length(result, shape[axis], validate=False)
            return result
        shape = tf_shape(dense, out_type=dtype)
        nrows, ncols = shape[0], shape[1]
        if lengths is not None:
            lengths = U.index_tensor(lengths, dtype, "lengths")
            mask = sequence_mask(lengths, ncols)
            return cls.from_row_lengths(U.boolean_mask(dense, mask), lengths, validate=False)
        if padding is not None:
            padding = convert_to_tensor(padding, dense.dtype, name="padding")
            is_pad = equal(dense, padding)
            for _ in range(dense.shape.rank - 2 - padding.shape.rank):
                is_pad = reduce_all(is_pad, axis=-1)
            trailing = reduce_sum(cumprod(cast(reverse(is_pad, [1]), dtype), axis=1), axis=1)
            lengths = subtract(ncols, trailing)
            mask = sequence_mask(lengths, ncols)
            return cls.from_row_lengths(U.boolean_mask(dense, mask), lengths, validate=False)
        values = reshape(dense, concat([reshape(nrows * ncols, [1]), shape[2:]], 0))
        return cls.from_uniform_row_length(values, ncols, nrows, validate=False)

    # --- the components -----------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts and ends.")
    dtype = property(lambda self: self._values.dtype)

    @property
    def flat_values(self):
        """The innermost values: a dense tensor."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    uniform_row_length = property(lambda self: self._uniform_row_length,
                                  doc="The length of every row, when they are uniform; else None.")

    @property
    def shape(self):
        """The static shape: ``[nrows, (row length or None), ...]``."""
        n = self._nrows_hint
        if n is None:
            dim = self._row_splits.shape[0] if self._row_splits.shape.rank else None
            n = None if dim is None else dim - 1
        url = None if self._uniform_row_length is None else U.static(self._uniform_row_length)
        inner = self._values.shape
        rest = inner[1:] if inner.rank is not None else TensorShape(None)
        return TensorShape([n, None if url is None else int(url)]).concatenate(rest)

    def get_shape(self):
        return self.shape

    def nrows(self, out_type=None, name=None):
        """The number of rows, a scalar tensor."""
        dtype = self._row_splits.dtype if out_type is None else D.as_dtype(out_type)
        n = self.shape[0]
        if n is not None:
            return convert_to_tensor(n, dtype)
        n = subtract(tf_shape(self._row_splits, out_type=self._row_splits.dtype)[0], 1)
        return n if n.dtype == dtype else cast(n, dtype)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The length of each row (of the rows of dimension ``axis``)."""
        if axis == 0:
            return self.nrows()
        if axis == 1 or axis == -self.shape.rank + 1:
            return subtract(self._row_splits[1:], self._row_splits[:-1])
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise ValueError(f"axis={axis} is not a ragged axis of a ragged tensor of ragged "
                         f"rank 1")

    def nested_row_lengths(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt._values
        return tuple(out)

    def value_rowids(self, name=None):
        """The row index of each value."""
        return U.rowids_of(self._row_splits)

    def nested_value_rowids(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    # --- rebuilding ----------------------------------------------------------------------------
    def with_values(self, new_values):
        """The same row partition around ``new_values`` (as many rows as ``values``)."""
        new_values = _as_values(new_values)
        if isinstance(new_values, RaggedTensor) and \
                new_values.row_splits.dtype != self._row_splits.dtype:
            raise ValueError("self and new_values have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to "
                             "compatible dtypes.")
        rt = RaggedTensor(new_values, self._row_splits, self._uniform_row_length, internal=True)
        rt._nrows_hint = self._nrows_hint
        return rt

    def with_flat_values(self, new_values):
        """The same nested row partitions around new flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        dtype = D.as_dtype(dtype)
        if dtype not in (D.int32, D.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64. Received "
                             f"{dtype}.")
        if dtype == self._row_splits.dtype:
            return self
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        url = None if self._uniform_row_length is None else cast(self._uniform_row_length,
                                                                 dtype)
        rt = RaggedTensor(values, cast(self._row_splits, dtype), url, internal=True)
        rt._nrows_hint = self._nrows_hint
        return rt

    def merge_dims(self, outer_axis, inner_axis):
        """Dimensions ``outer_axis..inner_axis`` merged into one."""
        rank = self.shape.rank
        outer = outer_axis + rank if outer_axis < 0 else outer_axis
        inner = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer < rank or not 0 <= inner < rank:
            raise ValueError(f"Tried to merge dims {outer_axis} through {inner_axis} of a "
                             f"tensor of rank {rank}")
        if outer > inner:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                             f"inner_axis ({inner_axis})")
        if outer == inner:
            return self
        if outer == 0:  # the rows dissolve: what remains is the values, merged further
            values = self
            for _ in range(min(inner, self.ragged_rank)):
                values = values._values
            if inner > self.ragged_rank:
                values = _merge_dense(values, 0, inner - self.ragged_rank)
            return values
        if outer > 1:
            return self.with_values(self._values.merge_dims(outer - 1, inner - 1)
                                    if isinstance(self._values, RaggedTensor)
                                    else _merge_dense(self._values, outer - 1, inner - 1))
        # dims 1..inner merge into the rows' one: the row splits compose through each level
        splits, values = self._row_splits, self._values
        for level in range(inner - outer):
            if isinstance(values, RaggedTensor):
                splits, values = gather(values.row_splits, splits), values.values
            else:
                rest = inner - outer - level
                width = reduce_prod(tf_shape(values, out_type=splits.dtype)[1:rest + 1])
                splits, values = splits * width, _merge_dense(values, 0, rest)
                break
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding this ragged tensor."""
        dtype = self._row_splits.dtype if out_type is None else D.as_dtype(out_type)
        lengths = subtract(self._row_splits[1:], self._row_splits[:-1])
        longest = U.reduce_max(concat([convert_to_tensor([0], lengths.dtype), lengths], 0))
        dims = [self.nrows(out_type=dtype), cast(longest, dtype)]
        if isinstance(self._values, RaggedTensor):
            inner = self._values.bounding_shape(out_type=dtype)[1:]
            shape = concat([stack(dims), inner], 0)
        else:
            shape = concat([stack(dims), tf_shape(self._values, out_type=dtype)[1:]], 0)
        return shape if axis is None else gather(shape, axis)

    # --- conversions ---------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: each row padded with ``default_value`` to the bounding shape (or
        padded/truncated to ``shape``)."""
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.to_tensor(default_value)
        dtype = values.dtype
        if default_value is None:
            default = convert_to_tensor(b"" if dtype == D.string else 0, dtype)
        else:
            default = convert_to_tensor(default_value, dtype, name="default_value")
        splits = self._row_splits
        rowids = U.rowids_of(splits)
        cols = subtract(tf_range(convert_to_tensor(0, splits.dtype), splits[-1],
                                 dtype=splits.dtype), gather(splits, rowids))
        inner = tf_shape(values, out_type=splits.dtype)[1:]
        bound = stack([self.nrows(), U.reduce_max(concat(
            [convert_to_tensor([0], splits.dtype), splits[1:] - splits[:-1]], 0))])
        full = concat([bound, inner], 0)
        dense = broadcast_to(default, full) if default.shape.rank else U.fill(full, default)
        dense = tensor_scatter_nd_update(dense, stack([rowids, cols], 1), values)
        return dense if shape is None else _fit_shape(dense, shape, default)

    def to_sparse(self, name=None):
        """A SparseTensor of the values: one index per value (ragged and inner dimensions)."""
        dtype = D.int64
        levels = [cast(s, dtype) for s in self.nested_row_splits]
        flat = self.flat_values
        element = tf_range(convert_to_tensor(0, dtype), levels[-1][-1], dtype=dtype)
        columns = []
        for splits in reversed(levels):  # from the innermost partition outwards
            rowids = gather(U.rowids_of(splits), element)
            columns.append(subtract(element, gather(splits, rowids)))
            element = rowids
        columns.append(element)
        prefix = stack(columns[::-1], 1)
        shape = cast(self.bounding_shape(), dtype)
        if flat.shape.rank == 1:
            return SparseTensor(prefix, flat, shape)
        inner = cast(where(U.fill(tf_shape(flat), True)), dtype)  # every inner position
        indices = concat([gather(prefix, inner[:, 0]), inner[:, 1:]], 1)
        return SparseTensor(indices, reshape(flat, [-1]), shape)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=D.int64):
        """The rows of a 2-D SparseTensor whose indices are "ragged right" (each row's columns
        are 0, 1, ... in order)."""
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be a SparseTensor, got {st_input!r}")
        if st_input.indices.shape[1] is not None and st_input.indices.shape[1] != 2:
            raise ValueError("rank(st_input) must be 2.")
        dtype = D.as_dtype(row_splits_dtype)
        indices = U.static(st_input.indices)
        if indices is not None and len(indices):
            rows, cols = indices[:, 0], indices[:, 1]
            expected = np.arange(len(rows)) - np.searchsorted(rows, rows, side="left")
            if (np.diff(rows) < 0).any() or (cols != expected).any():
                raise errors.InvalidArgumentError(
                    None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                    "Summarized data: b'SparseTensor is not right-ragged'\nb'SparseTensor."
                    "indices ='\n" + ", ".join(str(int(v)) for v in indices.ravel()[:3]))
        rowids = cast(st_input.indices[:, 0], dtype)
        nrows = cast(st_input.dense_shape[0], dtype)
        return cls.from_value_rowids(st_input.values, rowids, nrows, validate=False)

    def to_list(self):
        """The rows as nested Python lists."""
        return _tolist(self._eager_value("to_list"))

    def numpy(self):
        """The value as NumPy: ragged dimensions as object arrays of rows, as TF gives it."""
        values = self._values.numpy()
        splits = self._row_splits.numpy()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        # as TF builds it: rows of one length combine into one array (of row arrays, for a
        # ragged inner dimension), rows of several lengths are an object array of rows
        variable = any(len(r) != len(rows[0]) for r in rows)
        try:
            return np.array(rows, dtype=object if variable else None)
        except ValueError:  # rows NumPy cannot combine: one object per row
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out

    def _eager_value(self, what):
        if not self._is_eager():
            raise ValueError(f"RaggedTensor.{what}() is only supported in eager mode.")
        return self

    def _is_eager(self):
        return all(isinstance(t, EagerTensor) for t in (self.flat_values,)
                   + self.nested_row_splits)

    def consumers(self):
        return []

    def __repr__(self):
        if self._is_eager():
            with np.printoptions(formatter={"all": _formatter}):
                text = _formatter(self.numpy())
            return f"<tf.RaggedTensor {text}>"
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    # --- the composite protocol ---------------------------------------------------------------
    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank,
                                self._row_splits.dtype, flat_values_spec=None)


def _tolist(rt):
    values = rt._values
    inner = _tolist(values) if isinstance(values, RaggedTensor) else _py(values.numpy())
    splits = rt._row_splits.numpy()
    return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]


def _py(array):
    return array.tolist()


def _formatter(x):
    """TF's element formatting: arrays comma-separated, empty ones as lists."""
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _as_values(values):
    if isinstance(values, (RaggedTensor, Tensor)):
        return values
    return convert_to_tensor(values, name="values")


def _fit_shape(dense, shape, default):
    """``dense`` padded with ``default`` and truncated to ``shape`` (None dims stay)."""
    shape = as_shape(shape)
    current = tf_shape(dense)
    begin, size, paddings = [], [], []
    for i, dim in enumerate(shape.dims if shape.rank is not None else []):
        if dim is None:
            size.append(-1)
            paddings.append([0, 0])
        else:
            size.append(dim)
            paddings.append(stack([0, U.maximum(dim - current[i], 0)]))
        begin.append(0)
    if shape.rank is None:
        return dense
    padded = pad(dense, stack(paddings), constant_values=default)
    return tf_slice(padded, begin, size)


def _merge_dense(t, outer, inner):
    shape = tf_shape(t)
    merged = reduce_prod(shape[outer:inner + 1])
    return reshape(t, concat([shape[:outer], reshape(merged, [1]), shape[inner + 1:]], 0))


#: stacks values as the rows of a RaggedTensor (set by ragged_ops, which holds the stacking)
batch_values = None


class RaggedTensorSpec(TypeSpec):
    """The spec of a RaggedTensor: shape, dtype, ragged rank, row-splits dtype."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=D.float32, ragged_rank=None,
                 row_splits_dtype=D.int64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = D.as_dtype(dtype)
        self._row_splits_dtype = D.as_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)
    value_type = property(lambda self: RaggedTensor)

    @classmethod
    def from_value(cls, value):
        if not isinstance(value, RaggedTensor):
            raise TypeError(f"Expected a RaggedTensor, got {value!r}")
        return value._type_spec

    def _serialize(self):
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    @classmethod
    def _deserialize(cls, fields):
        return cls(*fields)

    @property
    def _component_specs(self):
        if self._ragged_rank == 0:
            return [TensorSpec(self._shape, self._dtype)]
        rank = self._shape.rank
        flat_shape = TensorShape([None]).concatenate(
            self._shape[self._ragged_rank + 1:]) if rank is not None else TensorShape(None)
        n = self._shape[0]
        outer = TensorShape([None if n is None else n + 1])
        specs = [TensorSpec(flat_shape, self._dtype), TensorSpec(outer, self._row_splits_dtype)]
        specs += [TensorSpec([None], self._row_splits_dtype)] * (self._ragged_rank - 1)
        return specs

    def _to_components(self, value):
        if isinstance(value, RaggedTensor):
            return [value.flat_values] + list(value.nested_row_splits)
        return [value]

    def _from_components(self, components):
        flat, splits = components[0], components[1:]
        if not splits:
            return flat
        result = flat
        for i, s in reversed(list(enumerate(splits))):
            result = RaggedTensor(result, s, None, internal=True)
        uniform = self._shape[1] if self._shape.rank and self._shape.rank > 1 else None
        if uniform is not None and self._ragged_rank >= 1:
            result._uniform_row_length = convert_to_tensor(uniform, self._row_splits_dtype)
        if self._shape.rank is not None and self._shape[0] is not None:
            result._nrows_hint = self._shape[0]
        return result

    # --- batching (tf.data): a batch of values is one more ragged dimension -------------------
    def _batch(self, batch_size):
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return RaggedTensorSpec(self._shape[1:], self._dtype, max(self._ragged_rank - 1, 0),
                                self._row_splits_dtype)

    def _batch_values(self, values):
        """Eager values of this spec stacked as the rows of one RaggedTensor."""
        return batch_values(values, self._row_splits_dtype)

    def _unbatch_values(self, value):
        """The rows of an eager value of this spec (of the unbatched spec's type)."""
        n = int(U.static(value.nrows()) if isinstance(value, RaggedTensor) else len(value._value))
        return [value[i] for i in range(n)]

    # the gradient flows through the flat values only (splits are integers)
    def _grad_components(self, value):
        return [value.flat_values]

    def _from_grad_components(self, value, grads):
        return None if grads[0] is None else value.with_flat_values(grads[0])

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")


tf_export("RaggedTensorSpec")(RaggedTensorSpec)
# exported here, where TF's conversion (for Python values) is loaded with it
tf_export("type_spec_from_value")(type_spec_from_value)
