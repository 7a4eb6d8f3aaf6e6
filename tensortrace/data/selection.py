"""Transformations choosing which elements come, how often and in what order: ``shuffle``,
``repeat``, ``take``, ``skip``, ``shard``, ``unique``; and the pass-throughs ``prefetch``,
``cache`` and ``with_options``."""

import itertools

import numpy as np

from .. import errors
from ..ops.random.seeds import get_seed
from ..tensor import Tensor, TensorSpec
from .dataset import UnaryDataset, int_arg, int_value, tensors_of, value_of
from .ops import INFINITE, UNKNOWN, draw_seed


class _ShuffleDataset(UnaryDataset):
    """TF's shuffle: a buffer refilled from the input, emitting a random entry each step."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = int_arg(buffer_size, "buffer_size")
        if isinstance(self._buffer, int) and self._buffer <= 0 and self._buffer != UNKNOWN:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than zero "
                                              "or UNKNOWN_CARDINALITY [Op:ShuffleDatasetV3]")
        self._tensors = tensors_of(self._buffer)
        seed = value_of(seed, None) if isinstance(seed, Tensor) else seed
        self._seeds = get_seed(None if seed is None else int(seed))
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)
        self._epoch = itertools.count()
        super().__init__(input_dataset)

    def _seed(self):
        if self._seeds[0] is None:
            return [int(w) for w in np.random.SeedSequence().generate_state(4)]
        epoch = next(self._epoch) if self._reshuffle else 0
        return [self._seeds[0], self._seeds[1], epoch]

    def _rng(self, env):
        return np.random.default_rng(draw_seed(env, self, self._seed))

    def _iterate(self, env):
        size = int_value(self._buffer, env)
        if size <= 0 and size != UNKNOWN:
            raise errors.invalid_argument("buffer_size must be greater than zero or "
                                          "UNKNOWN_CARDINALITY")
        size = None if size == UNKNOWN else size  # the whole input
        rng = self._rng(env)
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


class _Counted(UnaryDataset):
    """A dataset of its input and a ``count`` (an int, or a tensor read when it runs)."""

    def __init__(self, input_dataset, count):
        self._count = int_arg(count, "count")
        self._tensors = tensors_of(self._count)
        super().__init__(input_dataset)

    def _counts(self, env):
        """The input's cardinality and the count."""
        return self._input._cardinality(env), int_value(self._count, env)


class _RepeatDataset(_Counted):
    """The input ``count`` times, or forever (stopping if the input is empty)."""

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset, -1 if count is None else count)

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
        n, count = self._counts(env)
        if count < 0:
            return 0 if n == 0 else INFINITE
        if n < 0:
            return 0 if count == 0 else n
        return n * count


class _TakeDataset(_Counted):
    """The first ``count`` elements (all if negative)."""

    def _iterate(self, env):
        count = int_value(self._count, env)
        source = self._input._iterate(env)
        return source if count < 0 else itertools.islice(source, count)

    def _cardinality(self, env=None):
        n, count = self._counts(env)
        if n == UNKNOWN:
            return UNKNOWN
        if count < 0:
            return n
        return count if n == INFINITE else min(n, count)


class _SkipDataset(_Counted):
    """All but the first ``count`` elements (none if negative)."""

    def _iterate(self, env):
        count = int_value(self._count, env)
        source = self._input._iterate(env)
        if count < 0:
            for _ in source:
                pass
            return iter(())
        return itertools.islice(source, count, None)

    def _cardinality(self, env=None):
        n, count = self._counts(env)
        if n < 0:
            return n
        return 0 if count < 0 else max(0, n - count)


SHARD_HINT = -1  # shard(SHARD_HINT, ...): the workers' count and index, under HINT sharding
_HINT_OUTSIDE = (
    "`tf.data.Dataset.shard(SHARD_HINT, ...)` can only be used in "
    "`tf.distribute.Strategy.experimental_distribute_dataset()` with "
    "`tf.data.experimental.AutoShardPolicy.HINT` policy, or tf.data service with "
    "`tf.data.experimental.service.ShardingPolicy.HINT` processing mode. [Op:MakeIterator] "
    "name: ")


class _ShardDataset(UnaryDataset):
    """Every ``num_shards``-th element from ``index``."""

    def __init__(self, input_dataset, num_shards, index):
        self._shards = int_arg(num_shards, "num_shards")
        self._index = int_arg(index, "index")
        if isinstance(self._shards, int) and self._shards <= 0 and self._shards != SHARD_HINT:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater "
                                              "than zero (currently num_shards = "
                                              f"{self._shards}). [Op:ShardDataset]")
        if isinstance(self._index, int) and isinstance(self._shards, int) and \
                self._shards != SHARD_HINT and not 0 <= self._index < self._shards:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {self._shards - 1} (currently "
                f"index = {self._index}). [Op:ShardDataset]")
        self._tensors = [t for t in (self._shards, self._index) if isinstance(t, Tensor)]
        super().__init__(input_dataset)

    def _iterate(self, env):
        shards, index = int_value(self._shards, env), int_value(self._index, env)
        if shards == SHARD_HINT:  # a distributed dataset's HINT policy replaces the node
            raise errors.FailedPreconditionError(None, None, _HINT_OUTSIDE)
        return itertools.islice(self._input._iterate(env), index, None, shards)

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        if n < 0:
            return n
        shards, index = int_value(self._shards, env), int_value(self._index, env)
        return n // shards + (1 if index < n % shards else 0)


class _UniqueDataset(UnaryDataset):
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


class _PrefetchDataset(UnaryDataset):
    """The input unchanged (nothing runs ahead here)."""


class CacheDataset(UnaryDataset):
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


class _OptionsDataset(UnaryDataset):
    """``with_options``: the input's elements; carries the options."""

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._own_options = options
