"""Dataset transformations: zip, map, filter, batch, unbatch, shuffle, repeat, take, skip ..."""

import itertools
import os

import numpy as np

from .. import dtypes as D
from .. import errors
from ..ops import random as _random
from ..shapes import as_shape
from ..tensor import Tensor, TensorSpec
from . import structure
from .dataset import Dataset, DatasetSpec, int_arg, int_value, value_of
from .functions import TracedFunction, check_predicate
from .ops import INFINITE, UNKNOWN


class _Unary(Dataset):
    """A dataset reading one input dataset."""

    def __init__(self, input_dataset, element_spec=None):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a `tf.data.Dataset`, got {type(input_dataset)}.")
        self._input = input_dataset
        self._inputs = (input_dataset,)
        super().__init__(input_dataset.element_spec if element_spec is None else element_spec)

    def _cardinality(self, env=None):
        return self._input._cardinality(env)

    def _iterate(self, env):
        return self._input._iterate(env)


class _OptionsDataset(_Unary):
    """``with_options``: the input's elements; carries the options."""

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._own_options = options


class _ZipDataset(Dataset):
    """Elements of several datasets side by side; stops with the shortest."""

    def __init__(self, datasets):
        if isinstance(datasets, list):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                            "structures of `tf.data.Dataset` objects. Python `list` is not "
                            "supported and you should use `tuple` instead.")
        children = structure.flatten(datasets)
        for d in children:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) "
                                f"structures of `tf.data.Dataset` objects but encountered "
                                f"object of type {type(d)}.")
        self._inputs = tuple(children)
        super().__init__(structure.pack(datasets, [d.element_spec for d in children]))

    def _iterate(self, env):
        gens = [d._iterate(env) for d in self._inputs]
        if len(gens) == 2:
            a, b = gens
            for x in a:
                y = next(b, None)
                if y is None:
                    return
                yield x + y
            return
        while True:
            flat = ()
            for g in gens:
                part = next(g, None)
                if part is None:
                    return
                flat += part
            yield flat

    def _cardinality(self, env=None):
        result = INFINITE
        for d in self._inputs:
            n = d._cardinality(env)
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE and (result == INFINITE or n < result):
                result = n
        return result


class _ConcatenateDataset(Dataset):
    """One dataset's elements, then another's."""

    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"Invalid `dataset`. `dataset` is expected to be a "
                            f"`tf.data.Dataset` but got {type(second)}.")
        a, b = first.element_spec, second.element_spec
        if not structure.same_structure(a, b) or any(
                x.dtype != y.dtype for x, y in zip(structure.flatten(a), structure.flatten(b))):
            raise TypeError(f"Incompatible dataset elements:\n  "
                            f"{structure.structure_text(a)} vs.   "
                            f"{structure.structure_text(b)}")
        self._inputs = (first, second)
        super().__init__(structure.relaxed(a, b))

    def _iterate(self, env):
        yield from self._inputs[0]._iterate(env)
        yield from self._inputs[1]._iterate(env)

    def _cardinality(self, env=None):
        a, b = (d._cardinality(env) for d in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b


class _DirectedInterleaveDataset(Dataset):
    """``choose_from_datasets``: element i comes from ``datasets[choice_i]``; an exhausted
    choice ends the dataset (``stop_on_empty``) or is skipped."""

    def __init__(self, datasets, choice_dataset, stop_on_empty):
        datasets = _check_datasets(datasets)
        if choice_dataset is not None:
            if not isinstance(choice_dataset, Dataset):
                raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a "
                                f"`tf.data.Dataset` but is {type(choice_dataset)}.")
            spec = choice_dataset.element_spec
            if not isinstance(spec, TensorSpec) or spec.dtype != D.int64 or spec.shape.rank != 0:
                raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must "
                                f"be scalar `tf.int64` tensors but are {spec!r}.")
        self._datasets = datasets
        self._stop = bool(stop_on_empty)
        self._inputs = ((choice_dataset,) if choice_dataset is not None else ()) + datasets
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            spec = structure.relaxed(spec, d.element_spec)
        super().__init__(spec)

    def _choices(self, env, live):
        for c in self._inputs[0]._iterate(env):
            yield int(c[0])

    def _iterate(self, env):
        n = len(self._datasets)
        gens = [d._iterate(env) for d in self._datasets]
        live = [True] * n
        for i in self._choices(env, live):
            if not 0 <= i < n:
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {i} >= {n}")
            element = next(gens[i], None) if live[i] else None
            if element is None:
                live[i] = False
                if self._stop or not any(live):
                    return
                continue
            yield element

    def _cardinality(self, env=None):
        if any(d._cardinality(env) == INFINITE for d in self._datasets):
            return INFINITE
        return UNKNOWN


class _SampleDataset(_DirectedInterleaveDataset):  # TF's repr name is the parent's
    """``sample_from_datasets``: choices drawn at random with ``weights`` (renormalised over
    the datasets not yet exhausted)."""

    def __init__(self, datasets, weights, seed, stop_on_empty):
        super().__init__(datasets, None, stop_on_empty)
        n = len(self._datasets)
        if weights is None:
            weights = [1.0 / n] * n
        w = np.asarray(value_of(weights, None) if isinstance(weights, Tensor) else weights,
                       np.float64).reshape(-1)
        if w.size != n:
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {list(w.shape)}.")
        self._weights = w
        self._seeds = _random.get_seed(None if seed is None else int(seed))

    def _choices(self, env, live):
        rng = (np.random.default_rng() if self._seeds[0] is None
               else np.random.default_rng([self._seeds[0], self._seeds[1]]))
        while True:
            w = np.where(live, self._weights, 0.0)
            total = w.sum()
            if total <= 0:
                return
            yield int(rng.choice(len(w), p=w / total))


_SampleDataset.__name__ = _SampleDataset.__qualname__ = "_DirectedInterleaveDataset"


def _check_datasets(datasets):
    datasets = tuple(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. `datasets` must be a list of "
                            f"`tf.data.Dataset` objects but encountered {type(d)}.")
    first = datasets[0].element_spec
    for d in datasets[1:]:
        b = d.element_spec
        if not structure.same_structure(first, b) or any(
                x.dtype != y.dtype for x, y in zip(structure.flatten(first),
                                                   structure.flatten(b))):
            text = structure.structure_text
            lines = "\n".join(f"Dataset {i} element_spec={text(x.element_spec)}."
                              for i, x in enumerate(datasets))
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element "
                            f"specs.\n {lines}")
    return datasets


class _WindowDataset(_Unary):
    """Windows of ``size`` elements (every ``stride``-th) starting every ``shift`` elements;
    each element is a structure of datasets, one per component. Iterated eagerly or read by
    ``flat_map``."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size = int_arg(size, "size")
        self._shift = self._size if shift is None else int_arg(shift, "shift")
        self._stride = int_arg(stride, "stride")
        for value, what in ((self._size, "size"), (self._shift, "shift"),
                            (self._stride, "stride")):
            _positive(value, f"Window {what} must be greater than zero.", "WindowDataset")
        self._drop = bool(drop_remainder)
        self._tensors = [t for t in (self._size, self._shift, self._stride)
                         if isinstance(t, Tensor)]
        self._components = input_dataset.element_spec
        flat = [DatasetSpec(sp) for sp in structure.flatten(self._components)]
        super().__init__(input_dataset, structure.pack(self._components, flat))

    def _iterate(self, env):
        """Yields one tuple per window: for each component, the list of its values."""
        size, shift, stride = (int_value(v, env) for v in (self._size, self._shift,
                                                             self._stride))
        source = self._input._iterate(env)
        buf, base, start, done = [], 0, 0, False
        while True:
            last = start + (size - 1) * stride
            while not done and base + len(buf) <= last:
                element = next(source, None)
                if element is None:
                    done = True
                else:
                    buf.append(element)
            picked = [buf[i - base] for i in range(start, last + 1, stride)
                      if i - base < len(buf)]
            if not picked or (self._drop and len(picked) < size):
                return
            yield tuple(list(column) for column in zip(*picked))
            start += shift
            drop = min(start - base, len(buf))
            del buf[:drop]
            base += drop

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        if n < 0:
            return n
        size, shift, stride = (int_value(v, env) for v in (self._size, self._shift,
                                                             self._stride))
        if self._drop:
            return max(0, (n - (size - 1) * stride - 1) // shift + 1)
        return -(-n // shift)

    def __iter__(self):
        from ..context import state
        from .sources import _TensorSliceDataset  # noqa: F401  (the eager window datasets)

        if state.graph is not None:
            raise TypeError("Iterating over a dataset of datasets inside a tf.function is not "
                            "supported; use flat_map.")
        flat_specs = structure.flatten(self._components)
        for window in self._iterate({}):
            yield structure.pack(self._components, [
                _WindowElement(spec, column) for spec, column in zip(flat_specs, window)])


def has_dataset_elements(dataset):
    return any(isinstance(sp, DatasetSpec) for sp in structure.flatten(dataset.element_spec))


class _WindowElement(Dataset):
    """One component of one window: its values given (eagerly) or read from ``env`` (by the
    dataset ``flat_map``'s function built on it)."""

    def __init__(self, spec, values=None):
        self._values = values
        super().__init__(spec)

    def _iterate(self, env):
        values = self._values if self._values is not None else env[id(self)]
        for v in values:
            yield (v,)

    def _cardinality(self, env=None):
        return len(self._values) if self._values is not None else UNKNOWN


_WindowElement.__name__ = _WindowElement.__qualname__ = "_VariantDataset"


class _WindowFlatMapDataset(Dataset):
    """``flat_map`` over ``window``: ``map_func`` runs once on placeholder datasets; each
    window's values are fed to them through ``env``."""

    def __init__(self, windows, map_func):
        specs = windows.element_spec
        flat = [_WindowElement(sp.element_spec) for sp in structure.flatten(specs)]
        arg = structure.pack(specs, flat)
        ds = map_func(*arg) if isinstance(arg, tuple) and not hasattr(arg, "_fields") \
            else map_func(arg)
        if not isinstance(ds, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. "
                            f"Got {type(ds)!r}.")
        self._placeholders, self._inner = flat, ds
        self._inputs = (windows, ds)
        super().__init__(ds.element_spec)

    def _iterate(self, env):
        for window in self._inputs[0]._iterate(env):
            fed = dict(env or {})
            fed.update((id(p), column) for p, column in zip(self._placeholders, window))
            yield from self._inner._iterate(fed)

    def _cardinality(self, env=None):
        return UNKNOWN


_WindowFlatMapDataset.__name__ = _WindowFlatMapDataset.__qualname__ = "_FlatMapDataset"


class _MapDataset(_Unary):
    """``map_func`` traced once, run compiled on each element."""

    def __init__(self, input_dataset, map_func, parallel=False):
        self._fn = TracedFunction(map_func, input_dataset.element_spec, "map")
        self._tensors = self._fn.symbolic_inputs()
        super().__init__(input_dataset, self._fn.output_spec)
        if parallel:
            self.__class__ = _ParallelMapDataset

    def _iterate(self, env):
        run = self._fn.bind(env)
        for element in self._input._iterate(env):
            yield tuple(run(element))


class _ParallelMapDataset(_MapDataset):
    """``map`` with ``num_parallel_calls`` (run sequentially: the results are the same)."""


class _FilterDataset(_Unary):
    """The elements for which a traced predicate is true."""

    def __init__(self, input_dataset, predicate):
        self._fn = TracedFunction(predicate, input_dataset.element_spec, "filter")
        check_predicate(self._fn)
        self._tensors = self._fn.symbolic_inputs()
        super().__init__(input_dataset)

    def _iterate(self, env):
        run = self._fn.bind(env)
        for element in self._input._iterate(env):
            if run(element)[0]:
                yield element

    def _cardinality(self, env=None):
        return UNKNOWN


class _TakeWhileDataset(_FilterDataset):
    """The elements before the first for which a traced predicate is false."""

    def _iterate(self, env):
        run = self._fn.bind(env)
        for element in self._input._iterate(env):
            if not run(element)[0]:
                return
            yield element


class _ScanDataset(_Unary):
    """``scan_func`` traced on (state, element); the state's shape is relaxed until stable."""

    def __init__(self, input_dataset, initial_state, scan_func):
        init = structure.normalize(initial_state)
        self._init = structure.flatten(init)
        state_spec = structure.spec_of(init)
        while True:
            fn = TracedFunction(scan_func, (state_spec, input_dataset.element_spec), "scan")
            out = fn.output_spec
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError("Invalid `scan_func`. `scan_func` should return a pair "
                                "consisting of new state and the output value but its return "
                                f"type is {structure.structure_text(out)}.")
            new_state, output = out
            if not structure.same_structure(state_spec, new_state) or \
                    structure.dtypes_of(state_spec) != structure.dtypes_of(new_state):
                raise TypeError("Invalid `scan_func`. The element types for the new state must "
                                f"match the initial state. Expected {_types(state_spec)}, got "
                                f"{_types(new_state)}.")
            relaxed = structure.relaxed(state_spec, new_state)
            if relaxed == state_spec:
                break
            state_spec = relaxed  # retraced, as TF does when the state's shape changes
        self._fn = fn
        self._state_size = len(self._init)
        self._tensors = self._init + fn.symbolic_inputs()
        super().__init__(input_dataset, output)

    def _iterate(self, env):
        run = self._fn.bind(env)
        n = self._state_size
        carried = tuple(value_of(t, env) for t in self._init)
        for element in self._input._iterate(env):
            out = run(carried + element)
            carried = tuple(out[:n])
            yield tuple(out[n:])


def _types(spec):
    """Dtypes as TF prints them in scan errors: ``<dtype: 'int32'>`` or a structure of them."""
    types = structure.map_structure(lambda s: s.dtype, spec)
    return str(types)


class _UniqueDataset(_Unary):
    """Each distinct scalar element once, in order of first occurrence."""

    def __init__(self, input_dataset):
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            raise TypeError("`tf.data.Dataset.unique` does not support datasets with elements "
                            "that are not single tensors.")
        if spec.dtype.name not in ("int32", "int64", "string"):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {spec.dtype} -- "
                            "only `tf.int32`, `tf.int64`, and `tf.string` are supported.")
        super().__init__(input_dataset)

    def _iterate(self, env):
        seen = set()
        for element in self._input._iterate(env):
            key = np.asarray(element[0]).item()
            if key not in seen:
                seen.add(key)
                yield element

    def _cardinality(self, env=None):
        return UNKNOWN


class _FlatMapDataset(_Unary):
    """The elements of the dataset ``map_func`` returns for each element (traced once)."""

    def __init__(self, input_dataset, map_func):
        made = []

        def traced(*args):
            ds = map_func(*args)
            if not isinstance(ds, Dataset):
                raise TypeError(f"The `map_func` argument must return a `Dataset` object. "
                                f"Got {type(ds)!r}.")
            made.append(ds)
            return ds._symbolic_inputs()

        self._fn = TracedFunction(traced, input_dataset.element_spec, "flat_map")
        self._inner = made[0]
        self._tensors = self._fn.symbolic_inputs()
        super().__init__(input_dataset, self._inner.element_spec)

    def _iterate(self, env):
        run = self._fn.bind(env)
        inner = self._inner
        feeds = inner._symbolic_inputs()
        for element in self._input._iterate(env):
            values = run(element)
            yield from inner._iterate(dict(zip(map(id, feeds), values)))

    def _cardinality(self, env=None):
        return UNKNOWN


class _InterleaveDataset(_FlatMapDataset):
    """``interleave``: ``block_length`` elements at a time from each of ``cycle_length`` open
    inner datasets in turn; an exhausted slot takes the next input element (TF's order)."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        super().__init__(input_dataset, map_func)
        self._cycle_length = int_arg(cycle_length, "cycle_length")
        self._block_length = int_arg(block_length, "block_length")
        if not isinstance(self._cycle_length, int) or self._cycle_length != -1:
            _positive(self._cycle_length, "cycle_length must be greater than zero.",
                      "InterleaveDataset")
        _positive(self._block_length, "block_length must be greater than zero.",
                  "InterleaveDataset")
        self._tensors = list(self._tensors) + [
            t for t in (self._cycle_length, self._block_length) if isinstance(t, Tensor)]

    def _iterate(self, env):
        run = self._fn.bind(env)
        inner = self._inner
        feeds = inner._symbolic_inputs()
        cycle = int(int_value(self._cycle_length, env))
        if cycle == -1:  # AUTOTUNE: TF uses the number of schedulable CPU cores
            cycle = os.cpu_count() or 1
        block = int(int_value(self._block_length, env))
        if cycle <= 0 or block <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"{'cycle_length' if cycle <= 0 else 'block_length'} must be "
                "greater than zero.")
        inputs = self._input._iterate(env)
        slots = [None] * cycle
        index = taken = num_open = 0
        end_of_input = False
        while not end_of_input or num_open:
            if slots[index] is not None:
                element = next(slots[index], _END)
                if element is not _END:
                    yield element
                    taken += 1
                    if taken == block:
                        index, taken = (index + 1) % cycle, 0
                    continue
                slots[index] = None
                num_open -= 1
                index, taken = (index + 1) % cycle, 0
            elif not end_of_input:
                element = next(inputs, _END)
                if element is _END:
                    end_of_input = True
                    continue
                values = run(element)
                slots[index] = iter(inner._iterate(dict(zip(map(id, feeds), values))))
                num_open += 1
            else:
                index, taken = (index + 1) % cycle, 0


_END = object()


def _positive(value, message, op):
    if isinstance(value, int) and value <= 0:
        raise errors.InvalidArgumentError(None, None, f"{message} [Op:{op}]")


class _BatchDataset(_Unary):
    """Consecutive elements stacked along a new first axis."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._size = int_arg(batch_size, "batch_size")
        _positive(self._size, "Batch size must be greater than zero.", "BatchDatasetV2")
        self._drop = bool(drop_remainder)
        self._tensors = [self._size] if isinstance(self._size, Tensor) else []
        known = self._size if self._drop and isinstance(self._size, int) else None
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


def _stack_component(i, values, fused=False):
    first = np.shape(values[0])
    for j, v in enumerate(values[1:], 1):
        if fused and np.size(v) != np.size(values[0]):
            raise errors.invalid_argument(
                f"Cannot add tensor to the batch: number of elements does not match. Shapes "
                f"are: [tensor]: {_dims_text(np.shape(v))}, [batch]: {_dims_text(first)}")
        if np.shape(v) != first:
            raise errors.invalid_argument(
                f"Cannot batch tensors with different shapes in component {i}. First element had "
                f"shape {_dims_text(first)} and element {j} had shape {_dims_text(np.shape(v))}.")
    return np.stack(values)


def _dims_text(shape):
    return "[" + ",".join(map(str, shape)) + "]"


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
    from ..convert import convert_to_tensor

    t = convert_to_tensor(v, dtype=dtype)
    if t.shape.rank != 0:
        raise ValueError(f"Invalid `padding_values`. `padding_values` values should be scalars, "
                         f"but got {v}.")
    return np.asarray(t._value)


class _UnbatchDataset(_Unary):
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
        super().__init__(input_dataset, structure.unbatched(spec))

    def _iterate(self, env):
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


class _ShuffleDataset(_Unary):
    """TF's shuffle: a buffer refilled from the input, emitting a random entry each step."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = int_arg(buffer_size, "buffer_size")
        if isinstance(self._buffer, int) and self._buffer <= 0 and self._buffer != UNKNOWN:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero "
                                              "or UNKNOWN_CARDINALITY [Op:ShuffleDatasetV3]")
        self._tensors = [self._buffer] if isinstance(self._buffer, Tensor) else []
        seed = value_of(seed, None) if isinstance(seed, Tensor) else seed
        self._seeds = _random.get_seed(None if seed is None else int(seed))
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)
        self._epoch = itertools.count()
        super().__init__(input_dataset)

    def _rng(self):
        epoch = next(self._epoch) if self._reshuffle else 0
        if self._seeds[0] is None:
            return np.random.default_rng()
        return np.random.default_rng([self._seeds[0], self._seeds[1], epoch])

    def _iterate(self, env):
        size = int_value(self._buffer, env)
        if size <= 0 and size != UNKNOWN:
            raise errors.invalid_argument("buffer_size must be greater than zero or "
                                          "UNKNOWN_CARDINALITY")
        size = None if size == UNKNOWN else size  # the whole input
        rng = self._rng()
        source = self._input._iterate(env)
        buf = list(itertools.islice(source, size))
        draws = iter(())
        while buf:
            n = len(buf)
            i = next(draws, None)
            if i is None or i >= n:
                draws = iter(rng.integers(0, n, 64).tolist())  # TF draws uniformly in [0, n)
                i = next(draws)
            out = buf[i]
            nxt = next(source, None)
            if nxt is None:
                buf[i] = buf[-1]
                buf.pop()
            else:
                buf[i] = nxt
            yield out


class _RepeatDataset(_Unary):
    """The input ``count`` times, or forever (stopping if the input is empty)."""

    def __init__(self, input_dataset, count):
        self._count = -1 if count is None else int_arg(count, "count")
        self._tensors = [self._count] if isinstance(self._count, Tensor) else []
        super().__init__(input_dataset)

    def _iterate(self, env):
        count = int_value(self._count, env)
        epochs = itertools.count() if count < 0 else range(count)
        for _ in epochs:
            empty = True
            for element in self._input._iterate(env):
                empty = False
                yield element
            if empty:
                return

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        count = int_value(self._count, env)
        if count < 0:
            return 0 if n == 0 else INFINITE
        if n < 0:
            return 0 if count == 0 else n
        return n * count


class _TakeDataset(_Unary):
    """The first ``count`` elements (all if negative)."""

    def __init__(self, input_dataset, count):
        self._count = int_arg(count, "count")
        self._tensors = [self._count] if isinstance(self._count, Tensor) else []
        super().__init__(input_dataset)

    def _iterate(self, env):
        count = int_value(self._count, env)
        source = self._input._iterate(env)
        return source if count < 0 else itertools.islice(source, count)

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        count = int_value(self._count, env)
        if n == UNKNOWN:
            return UNKNOWN
        if count < 0:
            return n
        return count if n == INFINITE else min(n, count)


class _SkipDataset(_Unary):
    """All but the first ``count`` elements (none if negative)."""

    def __init__(self, input_dataset, count):
        self._count = int_arg(count, "count")
        self._tensors = [self._count] if isinstance(self._count, Tensor) else []
        super().__init__(input_dataset)

    def _iterate(self, env):
        count = int_value(self._count, env)
        source = self._input._iterate(env)
        if count < 0:
            for _ in source:
                pass
            return iter(())
        return itertools.islice(source, count, None)

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        count = int_value(self._count, env)
        if n < 0:
            return n
        return 0 if count < 0 else max(0, n - count)


class _ShardDataset(_Unary):
    """Every ``num_shards``-th element from ``index``."""

    def __init__(self, input_dataset, num_shards, index):
        self._shards = int_arg(num_shards, "num_shards")
        self._index = int_arg(index, "index")
        if isinstance(self._shards, int) and self._shards <= 0:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater "
                                              "than zero (currently num_shards = "
                                              f"{self._shards}). [Op:ShardDataset]")
        if isinstance(self._index, int) and isinstance(self._shards, int) and \
                not 0 <= self._index < self._shards:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {self._shards - 1} (currently "
                f"index = {self._index}). [Op:ShardDataset]")
        self._tensors = [t for t in (self._shards, self._index) if isinstance(t, Tensor)]
        super().__init__(input_dataset)

    def _iterate(self, env):
        shards, index = int_value(self._shards, env), int_value(self._index, env)
        return itertools.islice(self._input._iterate(env), index, None, shards)

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        if n < 0:
            return n
        shards, index = int_value(self._shards, env), int_value(self._index, env)
        return n // shards + (1 if index < n % shards else 0)


class _PrefetchDataset(_Unary):
    """The input unchanged (nothing runs ahead here)."""


class CacheDataset(_Unary):
    """The input, replayed from memory once one iteration has completed."""

    def __init__(self, input_dataset):
        self._cache = None
        super().__init__(input_dataset)

    def _iterate(self, env):
        if self._cache is not None:
            yield from self._cache
            return
        seen = []
        for element in self._input._iterate(env):
            seen.append(element)
            yield element
        if not self._symbolic_inputs():  # a dataset fed from a graph may differ per run
            self._cache = seen

