"""The graph ops of tf.data: a dataset, an iterator and an optional element are run-time values
of ``variant``/``resource`` tensors, so a traced loop fetches its data when the graph runs.

    ds = bind(PYTHON_DATASET, *symbolic_feeds, dataset=python_dataset)   # variant
    it = bind(MAKE_ITERATOR, ds)                                         # resource
    x = bind(GET_NEXT, it, output_types=(tf.int32,), output_shapes=((),))
"""

from .. import dtypes as D
from .. import errors
from ..autodiff.grad_util import not_differentiable
from ..registry import define_op, never_static
from ..shapes import TensorShape
from ..tensor import EagerTensor, TensorSpec

INFINITE = -1
UNKNOWN = -2


# --- run-time values ----------------------------------------------------------------------------
class _Value:
    """A scalar non-numeric value (EagerTensor reads ``.dtype`` and ``.shape`` off it)."""

    __slots__ = ()
    shape = ()
    ndim = 0
    size = 1


class DatasetValue(_Value):
    """A dataset with the values of the symbolic tensors it was built from (``env``)."""

    __slots__ = ("dataset", "env")
    dtype = D.variant

    def __init__(self, dataset, env):
        self.dataset = dataset
        self.env = env

    def __repr__(self):
        return f"<DatasetValue of {self.dataset!r}>"


class RngLog:
    """The random seeds of one iteration (shuffle buffers, sampling). Each dataset draws its
    first seed fresh (``make()``) and derives the later ones (a shuffle under ``repeat``
    reshuffles each epoch) from it; the first seeds, in the order drawn, are what a checkpoint
    saves, so a restored iterator makes the same choices, after the saved position too."""

    __slots__ = ("seeds", "_pos", "_owners")

    def __init__(self, seeds=()):
        self.seeds, self._pos, self._owners = [list(s) for s in seeds], 0, {}

    def draw(self, owner, make):
        """The seed of ``owner``'s next iteration (a list of ints)."""
        known = self._owners.get(id(owner))
        if known is not None:
            known[1] += 1
            return known[0] + [known[1]]
        if self._pos < len(self.seeds):
            seed = self.seeds[self._pos]
        else:
            seed = list(make())
            self.seeds.append(seed)
        self._pos += 1
        self._owners[id(owner)] = [seed, 0, owner]  # owner kept: its id stays its own
        return seed


RNG_LOG = "rng_log"  # the env key of an iteration's RngLog (other keys are tensor ids)


def draw_seed(env, owner, make):
    """A random seed (a list of ints) for one iteration of dataset ``owner``: ``make()`` or
    one derived from it, logged in the iterator's ``env`` (see RngLog)."""
    log = env.get(RNG_LOG) if isinstance(env, dict) else None
    return make() if log is None else log.draw(owner, make)


class IteratorState(_Value):
    """A position in a dataset: a Python generator of flat component tuples, the number of
    elements it gave and the seeds it drew (what a checkpoint saves)."""

    __slots__ = ("_gen", "_source", "count", "rng")
    dtype = D.resource

    def __init__(self, source):
        self._source = source  # a DatasetValue, iterated lazily (on the first read)
        self._gen = None
        self.count = 0
        self.rng = RngLog()

    @property
    def dataset(self):
        return self._source.dataset

    def next(self):
        """The next flat element, or None at the end."""
        gen = self._gen
        if gen is None:
            env = dict(self._source.env)
            env[RNG_LOG] = self.rng
            gen = self._gen = self._source.dataset._iterate(env)
        out = next(gen, None)
        if out is not None:
            self.count += 1
        return out

    def restore(self, count, seeds):
        """Go back to the position after ``count`` elements of an iteration that drew
        ``seeds``: replayed from the start (a state is a position, not a snapshot)."""
        self._gen, self.count, self.rng = None, 0, RngLog(seeds)
        while self.count < count and self.next() is not None:
            pass

    def __repr__(self):
        return "<IteratorState>"


class OptionalValue(_Value):
    """An element that may be missing (``components`` None)."""

    __slots__ = ("components",)
    dtype = D.variant

    def __init__(self, components):
        self.components = components


class Handle(EagerTensor):
    """The eager tensor of a dataset, iterator or optional value."""

    __slots__ = ()

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def shape(self):
        return TensorShape(())

    def numpy(self):
        raise ValueError(f"Cannot convert a {self.dtype.name} tensor to a NumPy value.")

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype={self.dtype.name}, value={self._value!r}>"


def handle(value):
    return Handle._wrap(value)


# --- ops ----------------------------------------------------------------------------------------
_VARIANT = TensorSpec((), D.variant)
_RESOURCE = TensorSpec((), D.resource)


def _component_specs(output_types, output_shapes):
    specs = tuple(TensorSpec(s, d) for d, s in zip(output_types, output_shapes))
    return specs[0] if len(specs) == 1 else specs


def _components(values):
    return values[0] if len(values) == 1 else tuple(values)


def _end_of_sequence():
    return errors.OutOfRangeError(None, None, "End of sequence")


@define_op("PythonDataset", static=never_static)
class PythonDataset:
    """The dataset ``dataset`` (an attr) reading its symbolic tensors from the inputs."""

    def infer(*feeds, dataset):
        return _VARIANT

    def kernel(*feeds, dataset):
        ids = [id(t) for t in dataset._symbolic_inputs()]
        return DatasetValue(dataset, dict(zip(ids, feeds)))


@define_op("MakeDatasetIterator", stateful=True, static=never_static)
class MakeDatasetIterator:
    """A fresh iterator over a dataset (each run starts from the first element)."""

    def infer(dataset):
        return _RESOURCE

    def kernel(dataset):
        return IteratorState(dataset)


@define_op("IteratorGetNext", stateful=True, static=never_static)
class IteratorGetNext:
    """The next element; OutOfRangeError at the end."""

    def infer(iterator, output_types, output_shapes):
        return _component_specs(output_types, output_shapes)

    def kernel(iterator, output_types, output_shapes):
        element = iterator.next()
        if element is None:
            raise _end_of_sequence()
        return _components(element)


@define_op("IteratorGetNextAsOptional", stateful=True, static=never_static)
class IteratorGetNextAsOptional:
    """The next element as an optional value (empty at the end)."""

    def infer(iterator, output_types, output_shapes):
        return _VARIANT

    def kernel(iterator, output_types, output_shapes):
        return OptionalValue(iterator.next())


@define_op("OptionalHasValue", static=never_static)
class OptionalHasValue:
    """Whether an optional holds a value."""

    def infer(optional):
        return TensorSpec((), D.bool)

    def kernel(optional):
        return D.bool._np.type(optional.components is not None)


@define_op("OptionalGetValue", static=never_static)
class OptionalGetValue:
    """The components an optional holds."""

    def infer(optional, output_types, output_shapes):
        return _component_specs(output_types, output_shapes)

    def kernel(optional, output_types, output_shapes):
        if optional.components is None:
            raise errors.invalid_argument("The given optional does not have a value.")
        return _components(optional.components)


@define_op("DatasetCardinality", static=never_static)
class DatasetCardinality:
    """The number of elements (-1 infinite, -2 unknown), known when the graph runs."""

    def infer(dataset):
        return TensorSpec((), D.int64)

    def kernel(dataset):
        return D.int64._np.type(dataset.dataset._cardinality(dataset.env))


PYTHON_DATASET = PythonDataset
MAKE_ITERATOR = MakeDatasetIterator
GET_NEXT = IteratorGetNext
GET_NEXT_AS_OPTIONAL = IteratorGetNextAsOptional
HAS_VALUE = OptionalHasValue
GET_VALUE = OptionalGetValue
CARDINALITY = DatasetCardinality

# without gradients, as in TF (the data layer declares its ops' gradients itself: autodiff's
# rules sit below it)
not_differentiable("PythonDataset", "MakeDatasetIterator", "IteratorGetNext",
                   "IteratorGetNextAsOptional", "OptionalHasValue", "OptionalGetValue",
                   "DatasetCardinality")
