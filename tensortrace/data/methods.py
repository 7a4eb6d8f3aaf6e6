"""The methods of ``tf.data.Dataset`` that make datasets (its sources and transformations), in
TF's order. The datasets they make subclass Dataset, so Dataset's own module cannot name them:
the methods join the class here, when the ``data`` package loads."""

from .. import dtypes as D
from .batching import (_BatchDataset, _DenseToRaggedDataset, _PaddedBatchDataset,
                       _RebatchDataset, _UnbatchDataset)
from .combining import _ConcatenateDataset, _DirectedInterleaveDataset, _SampleDataset, _ZipDataset
from . import persist
from .dataset import Dataset
from .mapping import (_FilterDataset, _FlatMapDataset, _InterleaveDataset, _MapDataset,
                      _ScanDataset, _TakeWhileDataset)
from .selection import (CacheDataset, _OptionsDataset, _PrefetchDataset, _RepeatDataset,
                        _ShardDataset, _ShuffleDataset, _SkipDataset, _TakeDataset, _UniqueDataset)
from .sources import _FlatMapDataset as _GeneratorDataset
from .sources import _RangeDataset, _TensorDataset, _TensorSliceDataset
from .sources import _ScanDataset as _CounterDataset
from .windows import _WindowDataset, _WindowFlatMapDataset, has_dataset_elements


def _joins_dataset(methods):
    """Class decorator: the functions defined in the body of ``methods`` become Dataset's."""
    for name, member in vars(methods).items():
        if not name.startswith("__"):
            getattr(member, "__func__", member).__qualname__ = f"Dataset.{name}"
            setattr(Dataset, name, member)
    return methods


@_joins_dataset
class _DatasetMethods:
    # --- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """The slices of ``tensors`` (a tensor or a tuple/dict of them) along the first axis."""
        return _TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of the single element ``tensors``."""
        return _TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=D.int64, name=None):
        """``range(stop)``, ``range(start, stop[, step])`` as a dataset of ``output_type``."""
        return _RangeDataset(args, output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """The elements a Python generator yields; ``generator(*args)`` is called anew for
        each iteration (so inside a function, each time the graph runs)."""
        return _GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side (a tuple or dict of datasets)."""
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return _ZipDataset(datasets)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element i from ``datasets[c_i]``, the c_i read from ``choice_dataset`` (int64)."""
        return _DirectedInterleaveDataset(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements from ``datasets`` picked at random with ``weights`` (uniform by default)."""
        return _SampleDataset(datasets, weights, seed, stop_on_empty_dataset)

    # --- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """``map_func`` applied to each element (a tuple element is passed as arguments)."""
        return _MapDataset(self, map_func, parallel=num_parallel_calls is not None)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (a scalar bool tensor) holds."""
        return _FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Consecutive elements stacked into batches of ``batch_size``."""
        return _BatchDataset(self, batch_size, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=D.int64,
                     name=None):
        """Batches whose elements of varying shape stack as the rows of RaggedTensors."""
        return _BatchDataset(_DenseToRaggedDataset(self, D.as_dtype(row_splits_dtype)),
                             batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches whose components are padded to ``padded_shapes`` (default: the longest)."""
        return _PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                   drop_remainder)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """``unbatch().batch(n)`` in one pass; a vector ``batch_size`` is cycled through."""
        return _RebatchDataset(self, batch_size, drop_remainder)

    def unbatch(self, name=None):
        """Split each element into its rows."""
        return _UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's algorithm)."""
        return _ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements ``count`` times (forever if None or -1)."""
        return _RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (all if -1)."""
        return _TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none if -1)."""
        return _SkipDataset(self, count)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` is false."""
        return _TakeWhileDataset(self, predicate)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by ``dataset``'s."""
        return _ConcatenateDataset(self, dataset)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element."""
        if has_dataset_elements(self):
            return _WindowFlatMapDataset(self, map_func)
        return _FlatMapDataset(self, map_func)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements starting every ``shift`` (default ``size``) elements,
        each a dataset (a structure of them for structured elements); use with flat_map."""
        return _WindowDataset(self, size, shift, stride, drop_remainder)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """The elements of the datasets ``map_func`` returns, ``block_length`` at a time from
        ``cycle_length`` of them in turn (parallel calls change nothing here)."""
        return _InterleaveDataset(self, map_func, -1 if cycle_length is None else cycle_length,
                                  1 if block_length is None else block_length)

    def scan(self, initial_state, scan_func, name=None):
        """Outputs of ``scan_func(state, element) -> (new_state, output)`` carried along."""
        return _ScanDataset(self, initial_state, scan_func)

    def unique(self, name=None):
        """The elements (scalar ints or strings) at their first occurrence."""
        return _UniqueDataset(self)

    @staticmethod
    def counter(start=0, step=1, dtype=D.int64, name=None):
        """``start, start + step, ...`` forever."""
        return _CounterDataset(start, step, dtype)

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        return _ZipDataset((_RangeDataset((start, (1 << 63) - 1), D.int64), self))

    def prefetch(self, buffer_size, name=None):
        """The same elements (prefetching is a no-op here)."""
        return _PrefetchDataset(self)

    def cache(self, filename="", name=None):
        """The same elements, kept in memory after the first complete iteration."""
        return CacheDataset(self)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        return _ShardDataset(self, num_shards, index)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Write the elements under the directory ``path`` (tensortrace's own format: see
        ``persist.py``); ``shard_func(element)`` picks each element's shard."""
        persist.save(self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        """The dataset ``save`` wrote under ``path``."""
        return persist.load(path, element_spec, compression, reader_func)

    def with_options(self, options, name=None):
        """This dataset with ``options`` merged into its options (they change nothing here)."""
        return _OptionsDataset(self, options)
