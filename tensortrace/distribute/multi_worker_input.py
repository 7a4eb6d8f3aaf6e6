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
from .. import dtypes as D
from ..convert import constant, convert_to_tensor
from ..data.dataset import Dataset
from ..data.ops import INFINITE
from ..data.iterator import _relaxed_invariants
from ..data.mapping import _FlatMapDataset
from ..data.optional import Optional
from ..data.readers import CsvDatasetV2
from ..data.sources import TextLineDatasetV2
from ..data.tfrecord import TFRecordDatasetV2
from ..ops.array.creation import zeros
from ..ops.array.shapes import shape as _shape
from ..ops.control_flow.conditionals import cond
from ..ops.control_flow.loops import while_loop
from ..ops.core import init_scope
from ..ops.math.casting import cast
from ..ops.math.compare import logical_and
from ..tensor import Tensor
from .mirrored import _hint_sharded, _replaced, _split, _unbatched_spec
from .strategy import DistributedDataset, DistributedIterator, InputContext, ReduceOp
from .values import PerReplica, PerReplicaSpec

_READERS = (TextLineDatasetV2, TFRecordDatasetV2, CsvDatasetV2)
_POLICIES = {None: "AUTO", -1: "OFF", 0: "AUTO", 1: "FILE", 2: "DATA", 3: "HINT"}


def distribute_dataset(strategy, dataset, options):
    """This worker's share of ``dataset`` (a DistributedDataset of PerReplica elements)."""
    if not isinstance(dataset, Dataset):
        raise ValueError(f"`dataset` must be a tf.data.Dataset, got {type(dataset).__name__}")
    shared = _worker_share(strategy, dataset)
    shared._strategy = strategy
    return shared


def _worker_share(strategy, dataset):
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
    return _WorkerDataset(dataset, 1, None, strategy=strategy)


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
    worker keeps (None: every part in turn). ``strategy`` counts the workers with a batch left,
    so that all stop together (None: this worker alone)."""

    def __init__(self, dataset, parts, keep, error=None, strategy=None):
        self._dataset, self._parts, self._keep, self._error = dataset, parts, keep, error
        self._strategy = strategy
        self._local = None

    def _batches(self):
        """The dataset of this worker's batches, one per step (made on first use: TF's
        rebatching reads the size of the first batch)."""
        if self._local is None:
            if self._parts == 1:
                self._local = self._dataset
            elif self._keep is not None:
                self._local = _mapped(self._dataset, lambda e: _part(e, self._parts, self._keep))
            else:
                self._local = _rebatched(self._dataset, self._parts)
        return self._local

    def __iter__(self):
        if self._error is not None:
            raise self._error
        return _WorkerIterator(self, iter(self._batches()))

    def _for_loop(self, body, loop_vars, extra_test=None):
        """``for x in dist_dataset`` inside a trace: a graph loop on ``get_next_as_optional``,
        ending when no worker has a batch left (TF's ``DistributedDataset.reduce``)."""
        return iter(self)._for_loop(body, loop_vars, extra_test)

    @property
    def element_spec(self):
        def spec(s):
            return PerReplicaSpec(_unbatched_spec(s) if self._parts > 1 else s)

        return nest.map_structure(spec, self._dataset.element_spec)

    def __repr__(self):
        return f"<tensortrace.distribute.DistributedDataset object at {hex(id(self))}>"


def _mapped(dataset, fn):
    """``dataset.map`` of ``fn(element)`` whatever the element's structure (a tuple element is
    passed to map's function as separate arguments)."""
    if type(dataset.element_spec) is tuple:
        return dataset.map(lambda *element: tuple(fn(element)))
    return dataset.map(fn)


def _part(element, parts, keep):
    flat = nest.flatten(element)
    return nest.pack_sequence_as(element, [_split(v, parts)[keep] for v in flat])


def _rebatched(dataset, parts):
    """TF's rebatching: each batch cut into batches of the replicas' size (``ceil(first batch /
    parts)`` rows), within each batch, so a short batch gives fewer."""
    rows = _first_rows(dataset)
    size = 1 if rows is None else max(1, -(-rows // parts))
    single = type(dataset.element_spec) is not tuple

    def pieces(*element):
        element = element[0] if single else element
        rows = cast(_shape(nest.flatten(element)[0])[0], D.int64)
        starts = Dataset.range(0, rows, size)
        return starts.map(lambda start: nest.map_structure(
            lambda v: v[start:start + size], element))

    return dataset.flat_map(pieces)


def _first_rows(dataset):
    """The rows of the dataset's first batch (its static batch size, else read eagerly, also
    inside a trace); None for an empty dataset."""
    spec = nest.flatten(dataset.element_spec)[0]
    if spec.shape.rank == 0:
        raise IndexError("list index out of range")  # TF's rebatching reads a batch dimension
    if spec.shape.rank is not None and spec.shape[0] is not None:
        return int(spec.shape[0])
    with init_scope():
        first = next(iter(dataset), None)
    return None if first is None else _rows(nest.flatten(first)[0])


class _WorkerIterator(DistributedIterator):
    """An iterator over a worker's distributed dataset, eagerly or inside a trace. Each step
    counts the workers with a batch left (an all-reduce when there are several, as TF's): while
    one has, every worker goes on, those without a batch taking an empty one. Over an infinite
    dataset no step counts (TF's: there is no last partial batch to wait for)."""

    def __init__(self, dataset, source):
        self._dataset, self._source = dataset, source
        self._infinite = dataset._dataset._static_cardinality() == INFINITE

    def __iter__(self):
        return self

    def __next__(self):
        if context.state.graph is not None:
            return self.get_next()
        try:
            return self.get_next()
        except errors.OutOfRangeError:
            raise StopIteration from None

    def get_next(self):
        """The next PerReplica batch; OutOfRangeError when no worker has one left."""
        if context.state.graph is None:
            batch = self._eager_next()
            if batch is None:
                raise errors.OutOfRangeError(None, None, "End of sequence")
            return _per_replica(batch)
        if self._infinite:
            return _per_replica(self._source.get_next())
        optional = self._source.get_next_as_optional()
        count = self._workers_with_values(optional.has_value())
        return _per_replica(cond(count > 0, lambda: self._value_or_dummy(optional),
                                 self._source.get_next))

    def get_next_as_optional(self):
        """The next element (PerReplica values) as a ``tf.experimental.Optional``: empty when
        no worker has a batch left, else this worker's batch or an empty one."""
        spec = self.element_spec
        if context.state.graph is None:
            batch = self._eager_next()
            return Optional.empty(spec) if batch is None else \
                Optional.from_value(_per_replica(batch))
        if self._infinite:
            return Optional.from_value(_per_replica(self._source.get_next()))
        optional = self._source.get_next_as_optional()
        count = self._workers_with_values(optional.has_value())
        return cond(count > 0, lambda: Optional.from_value(_per_replica(
            self._value_or_dummy(optional))), lambda: Optional.empty(spec))

    def _eager_next(self):
        """This worker's next batch, an empty one while another worker has a batch left, or
        None when none has."""
        try:
            batch = next(self._source)
        except StopIteration:
            batch = None
        if self._infinite:
            return batch
        if not int(self._workers_with_values(batch is not None)):
            return None
        return _dummy(self._source.element_spec) if batch is None else batch

    def _workers_with_values(self, has):
        """How many workers have a batch this step (this worker's ``has``, summed over all)."""
        strategy = self._dataset._strategy
        alone = strategy is None or not strategy.extended._in_multi_worker_mode()
        if isinstance(has, bool):  # eagerly
            if alone:
                return int(has)
            has = convert_to_tensor(int(has), D.int64)
        else:
            has = cast(has, D.int64)
            if alone:
                return has
        return strategy.reduce(ReduceOp.SUM, PerReplica((has,)), axis=None)

    def _value_or_dummy(self, optional):
        return cond(optional.has_value(), optional.get_value,
                    lambda: _dummy(optional.element_spec))

    def _for_loop(self, body, loop_vars, extra_test=None):
        """A graph loop over the remaining steps: ``body(element, *loop_vars)``."""
        loop_vars = tuple(loop_vars)

        def test(optional, *values):
            has = optional.has_value()
            if extra_test is None:
                return has
            more = extra_test(*values)
            if not isinstance(more, Tensor):
                return has if more else constant(False)
            return logical_and(has, more)

        def step(optional, *values):
            new = tuple(body(optional.get_value(), *values))
            return (self.get_next_as_optional(),) + new

        first = self.get_next_as_optional()
        for keep_rank in (None, True, False):  # relaxed as the dataset's own loops are
            invariants = None if keep_rank is None else \
                (None,) + tuple(_relaxed_invariants(loop_vars, keep_rank))
            try:
                out = while_loop(test, step, (first,) + loop_vars, shape_invariants=invariants)
                break
            except ValueError as e:
                if "enters the loop with shape" not in str(e) or keep_rank is False:
                    raise
        return tuple(out[1:])

    @property
    def element_spec(self):
        return self._dataset.element_spec


def _dummy(spec):
    """TF's stand-in batch for a worker with none left: zeros with the batch dimension (and
    every unknown one) 0."""
    def zero(s):
        dims = [0 if d is None else d for d in s.shape.as_list()] if s.shape.rank else []
        if dims and s.shape.is_fully_defined():
            dims[0] = 0
        return zeros(dims, s.dtype)

    return nest.map_structure(zero, spec)


def _per_replica(batch):
    return nest.map_structure(lambda t: PerReplica((t,)), batch)
