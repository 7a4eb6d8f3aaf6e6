"""Transformations running a traced user function on each element: ``map``, ``filter``,
``take_while``, ``scan``, ``flat_map`` and ``interleave``."""

import os

from .. import errors
from . import structure
from .dataset import Dataset, UnaryDataset, int_arg, int_value, positive, tensors_of, value_of
from .functions import TracedFunction, check_predicate
from .ops import UNKNOWN


class _MapDataset(UnaryDataset):
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


class _FilterDataset(UnaryDataset):
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


class _ScanDataset(UnaryDataset):
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


class _FlatMapDataset(UnaryDataset):
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
            positive(self._cycle_length, "cycle_length must be greater than zero.",
                      "InterleaveDataset")
        positive(self._block_length, "block_length must be greater than zero.",
                  "InterleaveDataset")
        self._tensors = list(self._tensors) + tensors_of(self._cycle_length, self._block_length)

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
