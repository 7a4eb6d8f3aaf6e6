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


class IteratorState(_Value):
    """A position in a dataset: a Python generator of flat component tuples."""

    __slots__ = ("_gen", "_source")
    dtype = D.resource

    def __init__(self, source):
        self._source = source  # a DatasetValue, iterated lazily (on the first read)
        self._gen = None

    def next(self):
        """The next flat element, or None at the end."""
        gen = self._gen
        if gen is None:
            gen = self._gen = self._source.dataset._iterate(self._source.env)
        return next(gen, None)

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
