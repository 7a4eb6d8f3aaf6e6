"""Datasets of several datasets: ``zip``, ``concatenate``, ``choose_from_datasets`` and
``sample_from_datasets``."""

import numpy as np

from .. import dtypes as D
from .. import errors
from ..ops.random.seeds import get_seed
from ..tensor import Tensor, TensorSpec
from . import structure
from .dataset import Dataset, value_of
from .ops import INFINITE, UNKNOWN, draw_seed


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
        self._seeds = get_seed(None if seed is None else int(seed))

    def _choices(self, env, live):
        rng = np.random.default_rng(draw_seed(env, self, lambda: (
            [int(w) for w in np.random.SeedSequence().generate_state(4)]
            if self._seeds[0] is None else [self._seeds[0], self._seeds[1]])))
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
