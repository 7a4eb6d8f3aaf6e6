"""Source datasets: slices of tensors, one tensor, a range, a counter, a Python generator and the
lines of text files."""

import itertools

import numpy as np

from .. import dtypes as D
from .. import errors
from ..composite import CompositeTensor, NoneTensorSpec, flat_components
from ..convert import convert_to_tensor
from ..ops.io import _op_error
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from . import structure
from .dataset import Dataset, filenames_arg, int_arg, int_value, value_of
from .ops import INFINITE, UNKNOWN


class _TensorSliceDataset(Dataset):
    """The rows of each component, zipped."""

    def __init__(self, tensors):
        tensors = structure.normalize(tensors)
        self._groups = structure.composite_groups(structure.spec_of(tensors))
        if self._groups is not None:
            return self._init_composite(tensors)
        flat = structure.flatten(tensors)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        rows = TensorShape(None)
        for t in flat:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if t.shape.rank is not None:
                first = TensorShape(t.shape.dims[:1])
                if not rows.is_compatible_with(first):
                    raise ValueError(f"Dimensions {rows.dims[0]} and {first.dims[0]} are not "
                                     "compatible")
                rows = rows.merge_with(first)
        self._rows = None if rows.rank is None else rows.dims[0]
        self._tensors = flat
        spec = structure.map_structure(
            lambda t: NoneTensorSpec() if t is None else
            TensorSpec(t.shape[1:] if t.shape.rank is not None else None, t.dtype), tensors)
        super().__init__(spec)

    def _init_composite(self, tensors):
        """Slices of elements with composite leaves: a RaggedTensor's rows (through its spec,
        which gives the rows' spec)."""
        self._leaves = structure.leaves(tensors)
        rows = set()
        for leaf in self._leaves:
            if leaf.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if not getattr(leaf, "_is_eager", lambda: isinstance(leaf, EagerTensor))():
                raise TypeError("Dataset.from_tensor_slices of a RaggedTensor needs eager "
                                "values")
            if leaf.shape[0] is not None:
                rows.add(leaf.shape[0])
        if len(rows) > 1:
            a, b = sorted(rows)[:2]
            raise ValueError(f"Dimensions {a} and {b} are not compatible")
        self._rows = rows.pop() if rows else None
        super().__init__(structure.unbatched(structure.spec_of(tensors)))

    def _iterate_composite(self):
        rows = []
        for leaf in self._leaves:
            if isinstance(leaf, CompositeTensor):
                rows.append(leaf._type_spec._unbatch_values(leaf))
            else:
                a = leaf._value
                rows.append([structure.row(a, i) for i in range(len(a))])
        for i in range(len(rows[0])):
            out = []
            for r in rows:
                out.extend(structure.composite_arrays(r[i])
                           if isinstance(r[i], (Tensor, CompositeTensor)) else [r[i]])
            yield tuple(out)

    def _iterate(self, env):
        if self._groups is not None:
            yield from self._iterate_composite()
            return
        arrays = [np.asarray(value_of(t, env)) for t in self._tensors]
        n = len(arrays[0])
        if any(len(a) != n for a in arrays):
            raise errors.invalid_argument("All components must have the same size in the 0th "
                                          "dimension")
        if len(arrays) == 1:
            (a,) = arrays
            for i in range(n):
                yield (structure.row(a, i),)
            return
        row = structure.row
        for i in range(n):
            yield tuple(row(a, i) for a in arrays)

    def _cardinality(self, env=None):
        if self._rows is not None:
            return self._rows
        if self._groups is not None:
            return len(self._leaves[0]._value)
        return len(np.asarray(value_of(self._tensors[0], env)))


class _TensorDataset(Dataset):
    """One element."""

    def __init__(self, tensors):
        tensors = structure.normalize(tensors)
        self._tensors = structure.flatten(tensors)
        super().__init__(structure.spec_of(tensors))

    def _iterate(self, env):
        yield tuple(value_of(t, env) for t in self._tensors)

    def _cardinality(self, env=None):
        return 1


class _RangeDataset(Dataset):
    """``range(start, stop, step)`` as scalars of ``output_type``."""

    def __init__(self, args, output_type):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 "
                             f"but was {len(args)}.")
        names = ("stop",) if len(args) == 1 else ("start", "stop", "step")
        values = [int_arg(a, n) for a, n in zip(args, names)]
        if len(values) == 1:
            values = [0] + values
        if len(values) == 2:
            values.append(1)
        if isinstance(values[2], int) and values[2] == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer. "
                                              "[Op:RangeDataset]")
        self._args = values
        self._tensors = [v for v in values if isinstance(v, Tensor)]
        self._dtype = D.as_dtype(output_type)
        super().__init__(TensorSpec((), self._dtype))

    def _bounds(self, env):
        return [int_value(a, env) for a in self._args]

    def _iterate(self, env):
        start, stop, step = self._bounds(env)
        if step == 0:
            raise errors.invalid_argument("step must be a non-zero integer.")
        make = self._dtype._np.type
        for v in range(start, stop, step):
            yield (make(v),)

    def _cardinality(self, env=None):
        start, stop, step = self._bounds(env)
        return len(range(start, stop, step)) if step else 0


class _ScanDataset(_RangeDataset):
    """``Dataset.counter``: ``start, start + step, ...`` without end (TF builds it with scan,
    hence the name it prints)."""

    def __init__(self, start, step, dtype):
        super().__init__((start, 0, step), dtype)

    def _iterate(self, env):
        start, _, step = self._bounds(env)
        make = self._dtype._np.type
        for v in itertools.count(start, step):
            yield (make(v),)

    def _cardinality(self, env=None):
        return INFINITE


class _FlatMapDataset(Dataset):
    """The elements a Python generator yields, converted and checked against the spec."""

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None:
                raise TypeError("The `output_types` argument can not be used together with "
                                "the `output_signature` argument.")
            if output_shapes is not None:
                raise TypeError("The `output_shapes` argument can not be used together with "
                                "the `output_signature` argument.")
            for spec in structure.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"`output_signature` must contain objects that are "
                                    f"subclass of `tf.TypeSpec` but found {type(spec)} which "
                                    "is not.")
            spec = output_signature
            self._expected = structure.structure_text(spec)  # TF names the specs
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either "
                                "the `output_signature` argument or the `output_types` "
                                "argument.")
            spec = _spec_from_types(output_types, output_shapes)
            self._expected = _types_text(structure.map_structure(lambda s: s.dtype, spec))
        self._generator = generator
        self._args = [convert_to_tensor(a) for a in (args or ())]
        self._tensors = list(self._args)
        super().__init__(spec)
        self._flat_specs = structure.flatten(spec)

    def _iterate(self, env):
        args = [np.asarray(value_of(a, env)) for a in self._args]
        args = [a[()] if a.ndim == 0 else a for a in args]  # NumPy scalars, bytes for strings
        # TF runs the generator in a PyFunc: what it raises reaches the reader as that op's
        # error (a ValueError or TypeError as InvalidArgumentError), its text and traceback kept
        try:
            values = iter(self._generator(*args))
        except Exception as e:
            raise _op_error(e) from e
        while True:
            try:
                value = next(values)
            except StopIteration:
                return
            except Exception as e:
                raise _op_error(e) from e
            yield self._convert(value)

    def _convert(self, value):
        leaves = _flatten_up_to(self._element_spec, value)
        if leaves is None:  # TF names output_types here (or the signature), the specs below
            raise self._mismatch(self._expected, value)
        flat = []
        for spec, leaf in zip(structure.leaves(self._element_spec), leaves):
            if not structure.is_composite_spec(spec):
                flat.append(leaf)
            elif not isinstance(leaf, CompositeTensor) and type(spec).__name__ == \
                    "SparseTensorSpec":  # TF's normalize_element fails: not a SparseTensor
                raise self._mismatch(structure.structure_text(self._element_spec), value)
            elif not isinstance(leaf, CompositeTensor) or \
                    type(leaf._type_spec) is not type(spec) or \
                    getattr(spec, "dtype", None) != getattr(leaf._type_spec, "dtype", None):
                given = structure.spec_of(structure.normalize(value))
                raise _generator_error(
                    f"`generator` yielded an element of {structure.structure_text(given)} "
                    f"where an element of {structure.structure_text(self._element_spec)} was "
                    f"expected.")
            else:
                flat.extend(flat_components(leaf))
        out = []
        for spec, leaf in zip(self._flat_specs, flat):
            arr = _converted(leaf, spec.dtype)
            if arr is None:
                raise self._mismatch(structure.structure_text(self._element_spec), value)
            if spec.shape.rank is not None and not spec.shape.is_compatible_with(
                    TensorShape(np.shape(arr))):
                raise _generator_error(f"`generator` yielded an element of shape "
                                       f"{TensorShape(np.shape(arr))} where an element of shape "
                                       f"{spec.shape} was expected.")
            out.append(arr)
        return tuple(out)

    def _mismatch(self, expected, value):
        return _generator_error(f"`generator` yielded an element that did not match the "
                                f"expected structure. The expected structure was "
                                f"{expected}, but the yielded element was {value}.")

    def _cardinality(self, env=None):
        return UNKNOWN


def _converted(leaf, dtype):
    """``leaf`` as a NumPy value of ``dtype`` (TF's conversion rules), or None if it cannot."""
    if type(leaf) is np.ndarray and leaf.dtype == dtype._np:
        return leaf
    if isinstance(leaf, EagerTensor) and leaf.dtype == dtype:  # a composite's component
        return leaf._value
    try:
        t = convert_to_tensor(leaf, dtype=dtype)
    except (TypeError, ValueError):
        return None
    return t._value if isinstance(t, EagerTensor) else None


def _generator_error(message):
    return errors.InvalidArgumentError(None, None, f"TypeError: {message}")


def _flatten_up_to(spec, value):
    """The leaves of ``value`` matching the structure ``spec`` (tf.data's rules), or None."""
    if isinstance(spec, TensorSpec) or structure.is_composite_spec(spec):
        return [value]
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            return None
        out = []
        for k in structure._sorted_keys(spec):
            sub = _flatten_up_to(spec[k], value[k])
            if sub is None:
                return None
            out.extend(sub)
        return out
    if not isinstance(value, tuple) or len(value) != len(spec):
        return None
    out = []
    for s, v in zip(spec, value):
        sub = _flatten_up_to(s, v)
        if sub is None:
            return None
        out.extend(sub)
    return out


def _is_dtype_leaf(x):
    return not isinstance(x, (tuple, dict))


def _spec_from_types(output_types, output_shapes):
    """The element spec of ``from_generator``'s legacy ``output_types``/``output_shapes``."""
    if _is_dtype_leaf(output_types):
        shape = None if output_shapes is None else as_shape(output_shapes)
        return TensorSpec(shape, D.as_dtype(output_types))
    if isinstance(output_types, dict):
        return {k: _spec_from_types(v, None if output_shapes is None else output_shapes[k])
                for k, v in output_types.items()}
    shapes = [None] * len(output_types) if output_shapes is None else list(output_shapes)
    if len(shapes) != len(output_types):
        raise ValueError("The two structures don't have the same number of elements. "
                         f"First structure: {output_types}, second structure: {output_shapes}.")
    made = [_spec_from_types(t, s) for t, s in zip(output_types, shapes)]
    return type(output_types)(*made) if hasattr(output_types, "_fields") else tuple(made)


def _types_text(output_types):
    if isinstance(output_types, dict):
        return "{" + ", ".join(f"{k!r}: {_types_text(v)}" for k, v in output_types.items()) + "}"
    if isinstance(output_types, tuple):
        inner = ", ".join(_types_text(t) for t in output_types)
        return f"({inner},)" if len(output_types) == 1 else f"({inner})"
    return repr(D.as_dtype(output_types))


class TextLineDatasetV2(Dataset):
    """``tf.data.TextLineDataset``: the lines of text files (without their ``\\n`` or
    ``\\r\\n``), file after file, as scalar strings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        if compression_type not in (None, ""):
            raise NotImplementedError("TextLineDataset: compressed files are not supported.")
        names = filenames_arg(filenames)
        self._tensors = [names]
        super().__init__(TensorSpec((), D.string))

    def _iterate(self, env):
        for name in np.asarray(value_of(self._tensors[0], env), dtype=object).reshape(-1):
            path = name.decode() if isinstance(name, bytes) else str(name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                raise errors.NotFoundError(None, None,
                                           f"{path}; No such file or directory") from None
            lines = data.split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()  # a final newline ends the last line; it does not start one
            for line in lines:
                yield (np.array(line[:-1] if line.endswith(b"\r") else line, dtype=object),)

    def _cardinality(self, env=None):
        return UNKNOWN
