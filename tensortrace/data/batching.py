"""``batch``, ``padded_batch`` and ``unbatch``: elements stacked along a new first axis (padded
to a common shape), and split back into rows."""

import itertools

import numpy as np

from .. import dtypes as D
from .. import errors
from ..convert import convert_to_tensor
from ..composite import composite_class, spec_class
from ..messages import shape_text
from ..shapes import as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from . import structure
from .dataset import UnaryDataset, int_arg, int_value, positive, tensors_of, value_of
from .mapping import _MapDataset
from .ops import UNKNOWN


class _BatchDataset(UnaryDataset):
    """Consecutive elements stacked along a new first axis."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._size = int_arg(batch_size, "batch_size")
        positive(self._size, "Batch size must be greater than zero.", "BatchDatasetV2")
        self._drop = bool(drop_remainder)
        self._tensors = tensors_of(self._size)
        known = self._size if self._drop and isinstance(self._size, int) else None
        self._groups = structure.composite_groups(input_dataset.element_spec)
        super().__init__(input_dataset, self._batched_spec(input_dataset.element_spec, known))

    def _batched_spec(self, spec, size):
        return structure.batched(spec, size)

    def _iterate(self, env):
        size = int_value(self._size, env)
        if size <= 0:
            raise errors.invalid_argument("Batch size must be greater than zero.")
        for chunk in _chunks(self._input._iterate(env), size):
            if len(chunk) < size and self._drop:
                return
            yield self._stack(chunk)

    def _stack(self, chunk):
        if self._groups is not None:
            return _stack_composites(self._groups, chunk)
        # TF fuses map + batch (MapAndBatchDataset) when the map's output ranks are known; its
        # check compares element counts first
        fused = isinstance(self._input, _MapDataset)
        ranks = [sp.shape.rank for sp in structure.flatten(self._input.element_spec)]
        return tuple(_stack_component(i, [e[i] for e in chunk], fused and ranks[i] is not None)
                     for i in range(len(chunk[0])))

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        if n < 0:
            return n
        size = int_value(self._size, env)
        return n // size if self._drop else -(-n // size)


def _chunks(gen, size):
    while True:
        chunk = list(itertools.islice(gen, size))
        if not chunk:
            return
        yield chunk
        if len(chunk) < size:
            return


def _stack_composites(groups, chunk):
    """A batch of elements with composite leaves: those batch through their spec (ragged rows
    stack into a RaggedTensor), the others stack as arrays."""
    elements = [structure.split_groups(groups, e) for e in chunk]
    out = []
    for i, (leaf, _) in enumerate(groups):
        values = [e[i] for e in elements]
        if structure.is_composite_spec(leaf):
            out.extend(structure.composite_arrays(leaf._batch_values(values)))
        else:
            out.append(_stack_component(i, values))
    return tuple(out)


def _stack_component(i, values, fused=False):
    first = np.shape(values[0])
    for j, v in enumerate(values[1:], 1):
        if fused and np.size(v) != np.size(values[0]):
            raise errors.invalid_argument(
                f"Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {shape_text(np.shape(v))}, [batch]: {shape_text(first)}")
        if np.shape(v) != first:
            raise errors.invalid_argument(
                f"Cannot batch tensors with different shapes in component {i}. First element had "
                f"shape {shape_text(first)} and element {j} had shape {shape_text(np.shape(v))}.")
    return np.stack(values)


class _PaddedBatchDataset(_BatchDataset):
    """Batches whose components are padded (to ``padded_shapes`` or the longest element)."""

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        flat = structure.flatten(spec)
        if padded_shapes is None:
            for i, s in enumerate(flat):
                if s.shape.rank is None:
                    raise ValueError(f"You must provide `padded_shapes` argument because "
                                     f"component {i} has unknown rank.")
            shapes = [s.shape for s in flat]
        else:
            shapes = [_padded_shape(p) for p in _up_to(spec, padded_shapes, "padded_shapes")]
        for s, p in zip(flat, shapes):
            if not _can_pad(p, s.shape):
                raise ValueError(f"The padded shape {p} is not compatible with the shape "
                                 f"{s.shape} of the corresponding input component.")
        self._shapes = shapes
        if padding_values is None:
            self._pads = [structure.zeros_value(s.dtype) for s in flat]
        else:
            pads = _up_to(spec, padding_values, "padding_values")
            self._pads = [_pad_value(v, s.dtype) for v, s in zip(pads, flat)]
        self._padded_spec = structure.pack(spec, [TensorSpec(p, s.dtype)
                                                  for p, s in zip(shapes, flat)])
        super().__init__(input_dataset, batch_size, drop_remainder)

    def _batched_spec(self, spec, size):
        return structure.batched(self._padded_spec, size)

    def _stack(self, chunk):
        return tuple(self._pad(i, [e[i] for e in chunk]) for i in range(len(chunk[0])))

    def _pad(self, i, values):
        shapes = [np.shape(v) for v in values]
        target = []
        for d, dim in enumerate(self._shapes[i].dims):
            longest = max(s[d] for s in shapes)
            if dim is not None and longest > dim:
                raise errors.invalid_argument("Attempted to pad to a smaller size than the "
                                              "input element.")
            target.append(longest if dim is None else dim)
        pad = self._pads[i]
        out = np.full([len(values)] + target, pad, dtype=np.asarray(pad).dtype)
        for j, v in enumerate(values):
            out[(j,) + tuple(slice(0, n) for n in shapes[j])] = v
        return out


def _can_pad(padded, shape):
    """TF's check that ``shape`` can be padded to ``padded``."""
    if padded.rank is None or shape.rank is None:
        return True
    return padded.rank == shape.rank and all(
        p is None or d is None or p >= d for p, d in zip(padded.dims, shape.dims))


def _up_to(spec, value, name):
    """``value``'s leaves matching the structure of ``spec`` (a leaf may be a list)."""
    if isinstance(spec, TensorSpec):
        return [value]
    if isinstance(spec, dict):
        return [x for k in structure._sorted_keys(spec) for x in _up_to(spec[k], value[k], name)]
    if not isinstance(value, tuple) or len(value) != len(spec):
        raise ValueError(f"The two structures don't have the same nested structure. "
                         f"`{name}` {value} does not match the element structure.")
    return [x for s, v in zip(spec, value) for x in _up_to(s, v, name)]


def _padded_shape(p):
    if isinstance(p, Tensor):
        p = p.numpy() if hasattr(p, "numpy") else p
    if isinstance(p, np.ndarray):
        p = p.tolist()
    if isinstance(p, (list, tuple)):
        p = [None if d is None or d == -1 else int(d) for d in p]
    return as_shape(p)


def _pad_value(v, dtype):
    t = convert_to_tensor(v, dtype=dtype)
    if t.shape.rank != 0:
        raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, "
                         f"but got {v}.")
    return np.asarray(t._value)


class _UnbatchDataset(UnaryDataset):
    """Each element split into its rows."""

    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        rows = {s.shape[0] for s in structure.flatten(spec)
                if s.shape.rank and s.shape[0] is not None}
        if len(rows) > 1:
            a, b = sorted(rows)[:2]
            raise ValueError("`unbatch()` is only supported for datasets of elements whose "
                             "components have a matching leading dimension. Encountered both "
                             f"{a} and {b}.")
        self._groups = structure.composite_groups(spec)
        super().__init__(input_dataset, structure.unbatched(spec))

    def _iterate(self, env):
        if self._groups is not None:
            yield from _unbatch_composites(self._groups, self._input._iterate(env))
            return
        row = structure.row
        for element in self._input._iterate(env):
            arrays = [np.asarray(c) for c in element]
            n = len(arrays[0])
            for j, a in enumerate(arrays[1:], 1):
                if len(a) != n:
                    raise errors.invalid_argument(
                        f"Input element must have the same batch size in each component. "
                        f"Component 0 had size {n} but component {j} had size {len(a)}.")
            for i in range(n):
                yield tuple(row(a, i) for a in arrays)

    def _cardinality(self, env=None):
        return UNKNOWN


def _unbatch_composites(groups, elements):
    """The rows of elements with composite leaves (a RaggedTensor's rows through its spec)."""
    for element in elements:
        leaves = structure.split_groups(groups, element)
        rows = [leaf._unbatch_values(v) if structure.is_composite_spec(leaf)
                else [structure.row(np.asarray(v), i) for i in range(len(np.asarray(v)))]
                for (leaf, _), v in zip(groups, leaves)]
        sizes = {len(r) for r in rows}
        if len(sizes) > 1:
            raise errors.invalid_argument("Input element must have the same batch size in each "
                                          "component.")
        for i in range(sizes.pop() if sizes else 0):
            out = []
            for r in rows:
                v = r[i]
                out.extend(structure.composite_arrays(v) if not isinstance(v, np.ndarray)
                           and not np.isscalar(v) else [v])
            yield tuple(out)


class _DenseToRaggedDataset(UnaryDataset):
    """Elements whose tensors of partly unknown shape become ragged (ragged rank: the last
    unknown dimension), so that ``batch`` stacks them as rows of a RaggedTensor (TF's
    ``ragged_batch``); other components are left as they are."""

    def __init__(self, input_dataset, row_splits_dtype):
        self._splits_dtype = row_splits_dtype
        # the ragged package loads only when a dataset is made ragged
        self._ragged = composite_class("ragged")
        spec_type = spec_class("ragged", "RaggedTensorSpec")

        def to_ragged(spec):
            if (type(spec) is not TensorSpec or spec.shape.rank is None
                    or spec.shape.is_fully_defined()):
                return spec
            rank = max(i for i, d in enumerate(spec.shape.as_list()) if d is None)
            return spec_type(spec.shape, spec.dtype, rank, row_splits_dtype)

        spec = structure.map_structure(to_ragged, input_dataset.element_spec)
        self._from = structure.leaves(input_dataset.element_spec)
        self._to = structure.leaves(spec)
        super().__init__(input_dataset, spec)

    def _iterate(self, env):
        for element in self._input._iterate(env):
            out, i = [], 0
            for old, new in zip(self._from, self._to):
                n = len(old._flat_tensor_specs) if structure.is_composite_spec(old) else 1
                part = element[i:i + n]
                i += n
                if old is not new and new.ragged_rank > 0:
                    value = self._ragged.from_tensor(EagerTensor._wrap(part[0]),
                                                     ragged_rank=new.ragged_rank,
                                                     row_splits_dtype=self._splits_dtype)
                    out.extend(structure.composite_arrays(value))
                else:
                    out.extend(part)
            yield tuple(out)


class _RebatchDataset(UnaryDataset):
    """The rows of the input's batches regrouped into batches of ``batch_sizes`` (cycled through
    when a vector): ``unbatch().batch(n)`` in one pass, as TF's RebatchDatasetV2."""

    def __init__(self, input_dataset, batch_sizes, drop_remainder):
        sizes = convert_to_tensor(batch_sizes, dtype=D.int64)
        if sizes.shape.rank is not None and sizes.shape.rank > 1:
            raise ValueError(f"Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or "
                             f"a vector. Received `batch_sizes` of rank {sizes.shape.rank}.")
        self._sizes = sizes
        self._drop = bool(drop_remainder)
        self._tensors = tensors_of(sizes)
        spec = input_dataset.element_spec
        size = self._static_size(spec)  # TF's checks of the input's batch dims come first
        self._rows = _UnbatchDataset(input_dataset)
        super().__init__(input_dataset, structure.batched(structure.unbatched(spec), size))

    def _static_size(self, spec):
        """TF's static batch dimension: the one size, if every batch is sure to have it."""
        if not isinstance(self._sizes, EagerTensor):
            return None
        sizes = np.unique(np.ravel(self._sizes._value))
        if len(sizes) != 1:
            return None
        size = int(sizes[0])
        if self._drop:
            return size
        dims = []
        for s in structure.flatten(spec):
            if s.shape.rank == 0:
                raise ValueError("Invalid `batch_sizes`. Expected dataset with rank of >= 1 but "
                                 "found a dataset with scalar elements. Fix the issue by adding "
                                 "the `batch` transformation to the dataset.")
            if s.shape.rank is not None and s.shape[0] is not None:
                dims.append(s.shape[0])
        if not dims:
            return None
        if len(set(dims)) > 1:
            raise ValueError(f"Invalid `input_dataset.` The batch dimension of component 0 is "
                             f"{dims[0]}, while the batch dimension of component i is "
                             f"{np.asarray(dims)}.")
        return size if size and dims[0] % size == 0 else None

    def _iterate(self, env):
        sizes = [int(n) for n in np.ravel(value_of(self._sizes, env))]
        if not sizes:
            raise errors.invalid_argument("batch_sizes must contain at least one element.")
        if any(n < 0 for n in sizes):
            raise errors.invalid_argument("batch_sizes must be non-negative.")
        rows = self._rows._iterate(env)
        for size in itertools.cycle(sizes):
            chunk = list(itertools.islice(rows, size))
            if len(chunk) < size and (self._drop or not chunk):
                return
            yield self._stack(chunk) if chunk else self._empty()
            if len(chunk) < size:
                return

    def _stack(self, chunk):
        if self._rows._groups is not None:
            return _stack_composites(self._rows._groups, chunk)
        return tuple(_stack_component(i, [e[i] for e in chunk]) for i in range(len(chunk[0])))

    def _empty(self):
        """A batch of no rows (a batch size of 0 in ``batch_sizes``)."""
        return tuple(np.zeros((0,) + tuple(d or 0 for d in s.shape), s.dtype._np)
                     for s in structure.flatten(self._rows.element_spec))

    def _cardinality(self, env=None):
        return UNKNOWN
