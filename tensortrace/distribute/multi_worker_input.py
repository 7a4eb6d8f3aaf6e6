"""The input of a MultiWorkerMirroredStrategy: each worker's share of a dataset, as TF's
auto-sharding gives it, and the input pipeline a function makes per worker.

A distributed dataset's global batches are cut into one batch per replica (``ceil(batch /
replicas)`` rows each, the last ones what remains), and the ``auto_shard_policy`` option says
which of them a worker reads (TF 2.21's rules, pinned in the tests):

* ``FILE``: each worker reads every ``num_workers``-th file of the dataset's file reader (or of
  the file names an ``interleave``/``flat_map`` opens), and all the batches cut from them;
* ``DATA``: each worker reads the whole dataset and keeps its replica's part of each batch;
* ``AUTO``: ``FILE`` when the dataset reads files, else ``DATA``;
* ``OFF``: each worker reads every batch cut from the whole dataset;
* ``HINT``: each ``shard(tf.data.experimental.SHARD_HINT, ...)`` in the dataset becomes
  ``shard(num_workers, worker_index)``, and each worker reads every batch cut from what that
  gives it (no hint: the whole dataset, as ``OFF``).

``FILE``, ``OFF`` and ``HINT`` cut batches as TF's rebatching does: into batches of the
replicas' size (``ceil(first batch / replicas)``) within each batch, so a short last batch gives
fewer;
``DATA`` cuts every batch into one part per replica."""

import copy

from .. import context, errors, nest
from ..convert import convert_to_tensor
from ..data.dataset import Dataset
from ..data.mapping import _FlatMapDataset
from ..data.optional import Optional
from ..data.readers import CsvDatasetV2
from ..ops.control_flow.conditionals import cond
from ..data.sources import TextLineDatasetV2
from ..data.tfrecord import TFRecordDatasetV2
from .mirrored import _hint_sharded, _replaced, _split, _unbatched_spec
from .strategy import DistributedDataset, DistributedIterator, InputContext
from .values import PerReplica, PerReplicaSpec

_READERS = (TextLineDatasetV2, TFRecordDatasetV2, CsvDatasetV2)
_POLICIES = {None: "AUTO", -1: "OFF", 0: "AUTO", 1: "FILE", 2: "DATA", 3: "HINT"}


def distribute_dataset(strategy, dataset, options):
    """This worker's share of ``dataset`` (a DistributedDataset of PerReplica elements)."""
    if not isinstance(dataset, Dataset):
        raise ValueError(f"`dataset` must be a tf.data.Dataset, got {type(dataset).__name__}")
    n, w = strategy._cluster.num_workers, strategy._cluster.task_id
    policy = getattr(dataset.options().experimental_distribute, "auto_shard_policy", None)
    policy = _POLICIES.get(None if policy is None else int(policy), "AUTO")
    if policy == "HINT":
        return _WorkerDataset(_hint_sharded(dataset, n, w), n, None)
    if n == 1 or policy == "OFF":
        return _WorkerDataset(dataset, n, None)
    files = _file_sharded(dataset, n, w)
    if policy == "FILE" and files is None:
        return _WorkerDataset(None, n, None, error=errors.NotFoundError(
            None, None, f"Found an unshardable source dataset: {_source(dataset)!r} reads no "
            "files (AutoShardPolicy.FILE)"))
    if files is not None and policy in ("FILE", "AUTO"):
        return files if isinstance(files, _WorkerDataset) else _WorkerDataset(files, n, None)
    return _WorkerDataset(dataset, n, w)


def datasets_from_function(strategy, dataset_fn, options):
    """``dataset_fn(InputContext)``'s dataset for this worker: its elements are the replica's
    batches."""
    n, w = strategy._cluster.num_workers, strategy._cluster.task_id
    dataset = dataset_fn(InputContext(n, w, n))
    if not isinstance(dataset, Dataset):
        raise ValueError(f"`dataset_fn` must return a tf.data.Dataset, got "
                         f"{type(dataset).__name__}")
    return _WorkerDataset(dataset, 1, None)


# --- FILE sharding -----------------------------------------------------------------------------
def _file_sharded(dataset, n, w):
    """``dataset`` reading every ``n``-th file from the ``w``-th; None when it reads none; a
    failing _WorkerDataset when it has fewer files than workers (TF's error)."""
    path = _path_to_files(dataset)
    if path is None:
        return None
    node = path[-1]
    if isinstance(node, _READERS):
        names = node._tensors[0]
        count = int(names.shape.num_elements())
        sharded = copy.copy(node)
        sharded._tensors = [_reshape_vector(names)[w::n]] + list(node._tensors[1:])
    else:  # an interleave/flat_map opening the file names its input gives
        count = node._input._cardinality()
        sharded = _replaced(node, node._input, node._input.shard(n, w))
    if 0 <= count < n:
        return _WorkerDataset(None, n, None, error=errors.InvalidArgumentError(
            None, None, f"Could not apply FILE based sharding: the dataset only has {count} "
            f"file(s), which is not enough for the required {n} shards/workers. If you are "
            "using datasets with distribution strategy, consider setting the auto sharding "
            "policy to either DATA or OFF using the `experimental_distribute.auto_shard_policy` "
            "option of `tf.data.Options()`. Or, split your input files into a larger number of "
            "small files such that number of files is greater than number of shards/workers."))
    for parent in reversed(path[:-1]):
        child = path[path.index(parent) + 1]
        sharded = _replaced(parent, child, sharded)
    return sharded


def _path_to_files(dataset):
    """The datasets from ``dataset`` down to its file reader (or the flat_map opening files),
    or None when it reads no files (or its file names are not known eagerly)."""
    if isinstance(dataset, _READERS):
        names = dataset._tensors[0]
        return [dataset] if getattr(names, "_value", None) is not None else None
    if isinstance(dataset, _FlatMapDataset) and isinstance(dataset._inner, _READERS):
        return [dataset]
    for child in dataset._inputs:
        below = _path_to_files(child)
        if below is not None:
            return [dataset] + below
    return None


def _source(dataset):
    """The first dataset ``dataset`` reads from (its source)."""
    while dataset._inputs:
        dataset = dataset._inputs[0]
    return dataset


def _reshape_vector(names):
    return names if names.shape.rank == 1 else names[None] if names.shape.rank == 0 else names


def _rows(value):
    t = convert_to_tensor(value)
    if t.shape.rank == 0:
        raise IndexError("list index out of range")  # TF's rebatching reads a batch dimension
    return int(t.shape[0]) if t.shape[0] is not None else int(t.numpy().shape[0])


# --- iteration ---------------------------------------------------------------------------------
class _WorkerDataset(DistributedDataset):
    """A worker's distributed dataset: each element is a PerReplica of its replica's batch.
    ``parts``: the replicas each global batch is cut for (1: whole); ``keep``: the part this
    worker keeps (None: every part in turn)."""

    def __init__(self, dataset, parts, keep, error=None):
        self._dataset, self._parts, self._keep, self._error = dataset, parts, keep, error

    def __iter__(self):
        if self._error is not None:
            raise self._error
        return _WorkerIterator(self, iter(self._dataset))

    def _one_to_one(self):
        """Whether each element of the dataset gives one batch here (whole, or a part)."""
        return self._parts == 1 or self._keep is not None

    def _batch_of(self, element):
        """The batch one element gives (when ``_one_to_one``)."""
        if self._parts == 1:
            return element
        flat = nest.flatten(element)
        parts = [_split(v, self._parts) for v in flat]
        return nest.pack_sequence_as(element, [p[self._keep] for p in parts])

    def _batches(self, source):
        size = None
        for element in source:
            if self._one_to_one():
                yield self._batch_of(element)
                continue
            # every part: TF's rebatch to the replicas' batch size (from the first batch),
            # within each batch (a short last batch gives fewer parts)
            flat = nest.flatten(element)
            rows = _rows(flat[0])
            size = size or max(1, -(-rows // self._parts))
            for start in range(0, rows, size):
                yield nest.pack_sequence_as(element, [v[start:start + size] for v in flat])

    @property
    def element_spec(self):
        def spec(s):
            return PerReplicaSpec(_unbatched_spec(s) if self._parts > 1 else s)

        return nest.map_structure(spec, self._dataset.element_spec)

    def __repr__(self):
        return f"<tensortrace.distribute.DistributedDataset object at {hex(id(self))}>"


class _WorkerIterator(DistributedIterator):
    """An iterator over a worker's distributed dataset: eagerly, or inside a trace (from an
    iterator made outside it)."""

    def __init__(self, dataset, source):
        self._dataset, self._source = dataset, source
        self._batches = dataset._batches(source)

    def __iter__(self):
        return self

    def __next__(self):
        return _per_replica(next(self._batches))

    def get_next(self):
        return next(self)

    def get_next_as_optional(self):
        """The next element (PerReplica values) as a ``tf.experimental.Optional``, empty at the
        end; inside a trace, decided when the function runs (TF's DistributedIterator)."""
        spec = self.element_spec
        if context.state.graph is None:
            try:
                return Optional.from_value(next(self))
            except StopIteration:
                return Optional.empty(spec)
        if not self._dataset._one_to_one():
            raise NotImplementedError(
                "get_next_as_optional inside a tf.function needs one batch per element of the "
                "dataset (AUTO/DATA sharding, or one worker); with FILE, OFF or HINT sharding, "
                "call it eagerly")
        source = self._source.get_next_as_optional()

        def value():
            return Optional.from_value(_per_replica(self._dataset._batch_of(
                source.get_value())))

        return cond(source.has_value(), value, lambda: Optional.empty(spec))

    @property
    def element_spec(self):
        return self._dataset.element_spec


def _per_replica(batch):
    return nest.map_structure(lambda t: PerReplica((t,)), batch)
