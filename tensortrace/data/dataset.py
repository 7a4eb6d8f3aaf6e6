"""``tf.data.Dataset``: a tree of Python dataset objects producing NumPy elements on demand;
eagerly iterated in Python, and inside a traced function through iterator ops that fetch the
elements when the graph runs.

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2).batch(2)
    list(ds.as_numpy_iterator())     # [array([2, 4], dtype=int32), array([6], dtype=int32)]
"""

from .. import dtypes as D
from .. import errors, nest
from .._export import tf_export
from ..config import _runtime_started
from ..autograph.api import convert
from ..context import bind, state
from ..convert import constant, convert_to_tensor
from ..ops.math.casting import cast
from ..shapes import as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..tracing.function import function
from . import iterator as _iterator
from . import ops, structure
from .ops import INFINITE, UNKNOWN


def value_of(t, env):
    """The NumPy value of a tensor a dataset reads: eager now, symbolic from ``env``."""
    if isinstance(t, EagerTensor):
        return t._value
    if env is None:
        raise LookupError("symbolic value")
    return env[id(t)]


def filenames_arg(filenames):
    """A file reader's ``filenames`` as a scalar or vector string tensor, with TF's errors."""
    names = filenames if isinstance(filenames, Tensor) else \
        convert_to_tensor(filenames, dtype=D.string)
    if names.dtype != D.string:
        raise TypeError(f"Invalid `filenames`. `filenames` must be a `tf.Tensor` of dtype "
                        f"`tf.string` dtype. Got {names.dtype}")
    if names.shape.rank not in (0, 1, None):
        raise ValueError(f"Invalid `filenames`. `filenames` must be a `tf.Tensor` with "
                         f"`tf.TensorShape([None])` shape. Got {names.shape}")
    return names


def int_arg(x, name, dtype=D.int64):
    """A scalar integer argument: a Python int when known now, else its (symbolic) tensor."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)
    if t.dtype != dtype and t.dtype.is_integer:
        t = cast(t, dtype)
    if t.shape.rank not in (0, None):
        raise ValueError(f"Invalid `{name}`. `{name}` should be a scalar but got shape "
                         f"{t.shape}.")
    if isinstance(t, EagerTensor):
        return int(t._value)
    static = getattr(t, "static", None)
    return int(static) if static is not None else t


def int_value(arg, env):
    return arg if isinstance(arg, int) else int(value_of(arg, env))


def positive(value, message, op):
    """TF's eager check of a size argument known now (a tensor is checked when it runs)."""
    if isinstance(value, int) and value <= 0:
        raise errors.InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def tensors_of(*args):
    """The arguments that are tensors: what a dataset reads when it runs (``_tensors``)."""
    return [a for a in args if isinstance(a, Tensor)]


def _state_value(x):
    """A reduce state leaf as a tensor (TensorArrays and variables stay as they are)."""
    if isinstance(x, Tensor) or hasattr(x, "flow") or hasattr(x, "read_value"):
        return x
    return convert_to_tensor(x)


def _dtypes(structure_):
    leaves = nest.flatten(structure_)
    types = [x.dtype if isinstance(x, Tensor) else getattr(x, "dtype", None) for x in leaves]
    return types[0] if not nest.is_nested(structure_) else \
        nest.pack_sequence_as(structure_, types)


def _check_state_dtypes(old, new):
    """TF's reduce check that the new state has the initial state's dtypes."""
    new = nest.map_structure(_state_value, new) if nest.is_nested(new) else _state_value(new)
    try:
        nest.assert_same_structure(old, new, check_types=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"The structure of the new state must match the initial state. {e}") \
            from None
    expected, got = _dtypes(old), _dtypes(new)
    if nest.flatten(expected) != nest.flatten(got):
        raise TypeError("The element types for the new state must match the initial state. "
                        f"Expected {expected} but got {got}.")


class DatasetV2:
    """The class name TF's datasets have: libraries built on TF recognise a dataset by a class
    ``DatasetV2`` of a ``tensorflow.python`` module among its bases (Keras' data adapters)."""

    __slots__ = ()


DatasetV2.__module__ = "tensorflow.python.data.ops.dataset_ops"


@tf_export("data.Dataset")
class Dataset(DatasetV2):
    """A collection of elements (tensors, or tuples/dicts of them) with a fixed structure.

    Subclasses implement ``_iterate(env)`` (a generator of flat tuples of NumPy component
    values) and ``_cardinality(env)``; ``env`` maps symbolic tensors the dataset was built from
    inside a trace to their run-time values (None while tracing).

    The methods making datasets (``range``, ``map``, ``batch`` ...) join this class in
    ``methods.py``: the datasets they make subclass it.
    """

    _inputs = ()  # datasets this one reads
    _tensors = ()  # tensors (eager or symbolic) this one reads

    def __init__(self, element_spec):
        _runtime_started[0] = True  # as TF's first dataset op, this fixes the logical devices
        self._element_spec = element_spec
        self._symbolic = None
        self._handle = None

    # --- structure ------------------------------------------------------------------------
    @property
    def element_spec(self):
        """The structure of ``tf.TensorSpec`` s describing one element."""
        return self._element_spec

    def __repr__(self):
        return f"<{type(self).__name__} element_spec=" \
               f"{structure.structure_text(self._element_spec)}>"

    __str__ = __repr__

    def __bool__(self):
        return True  # as TF: ``__len__`` must not decide truth

    def __tf_tracing_type__(self, context):
        """A dataset argument of a tf.function is traced by its spec (``tracing.signature``)."""
        return DatasetSpec(self._element_spec)

    def _iterate(self, env):
        raise NotImplementedError

    def _cardinality(self, env=None):
        return UNKNOWN

    def _static_cardinality(self):
        try:
            return self._cardinality(None)
        except LookupError:
            return None

    def _symbolic_inputs(self):
        """The symbolic tensors of this dataset tree (fed to the PythonDataset op), in order."""
        if self._symbolic is None:
            seen, found = set(), []
            for ds in self._walk():
                for t in ds._tensors:
                    if not isinstance(t, EagerTensor) and id(t) not in seen:
                        seen.add(id(t))
                        found.append(t)
            self._symbolic = found
        return self._symbolic

    def _walk(self):
        yield self
        for child in self._inputs:
            yield from child._walk()

    def _variant(self):
        """This dataset as a ``variant`` tensor: eager, or an op of the graph being traced."""
        if state.graph is None:
            if self._symbolic_inputs():
                raise TypeError(f"{self!r} was built from symbolic tensors of a traced function "
                                "and can only be used inside it.")
            if self._handle is None:
                self._handle = ops.handle(ops.DatasetValue(self, {}))
            return self._handle
        return bind(ops.PYTHON_DATASET, *self._symbolic_inputs(), dataset=self)

    # --- iteration ------------------------------------------------------------------------
    def __iter__(self):
        """An iterator over the elements: eager tensors, or inside a trace graph ops."""
        if state.graph is None:
            return _iterator.OwnedIterator(self)
        return _iterator.GraphIterator(self._variant(), self._element_spec)

    def as_numpy_iterator(self):
        """An iterator of NumPy values (nested like the elements)."""
        if state.graph is not None:
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in "
                               "eager mode.")
        return _iterator.NumpyIterator(self)

    def as_numpy(self):
        return self.as_numpy_iterator()

    def _for_loop(self, body, loop_vars, extra_test=None):
        """Stage ``for element in self`` in the graph being traced: a ``tf.while_loop`` whose
        size does not depend on the data, which is fetched when the graph runs.

        Args:
            body: ``body(element, *loop_vars)`` -> the new loop_vars (a sequence).
            loop_vars: a sequence of loop variables (tensors, Python values, TensorArrays,
                nested structures of them).
            extra_test: optional ``extra_test(*loop_vars)`` -> bool (a ``break`` flag); the
                loop stops when it is false.

        Returns:
            The final loop variables, as a tuple.
        """
        return _iterator.GraphIterator(self._variant(), self._element_spec)._for_loop(
            body, loop_vars, extra_test)

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold ``reduce_func(state, element)`` over the elements, from ``initial_state``.

        As in TF, ``reduce_func`` is traced (once, or again if the state's shape must be
        relaxed), so its Python side effects happen at trace time.
        """
        fn = convert(reduce_func)  # AutoGraph, whatever the caller's setting (as TF)

        def step(element, st):
            new = fn(st, element)
            _check_state_dtypes(st, new)
            return (new,)

        def run():
            init = nest.map_structure(_state_value, initial_state) \
                if nest.is_nested(initial_state) else _state_value(initial_state)
            return self._for_loop(step, (init,))[0]

        if state.graph is not None:
            return run()
        return function(run, autograph=False)()

    # --- size -----------------------------------------------------------------------------
    def cardinality(self):
        """The number of elements as an int64 tensor: -1 if infinite, -2 if unknown."""
        n = self._static_cardinality()
        if n is None:
            return bind(ops.CARDINALITY, self._variant())
        return constant(n, D.int64)

    def __len__(self):
        if state.graph is not None:
            raise TypeError("`tf.data.Dataset` only supports `len` in eager mode. Use "
                            "`tf.data.Dataset.cardinality()` instead.")
        n = self._cardinality(None)
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    # --- one element, apply, options -----------------------------------------------------
    def get_single_element(self, name=None):
        """The only element; InvalidArgumentError if there are none or several."""
        if state.graph is not None:
            return iter(self).get_next()
        it = iter(self)
        element = next(it, None)
        if element is None:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty. "
                                              "[Op:DatasetToSingleElement]")
        if next(it, None) is not None:
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element. "
                                              "[Op:DatasetToSingleElement]")
        return element

    def apply(self, transformation_func):
        """``transformation_func(self)``, checked to be a dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. "
                            f"Got {type(result)}.")
        return result

    def options(self):
        """The options set on this dataset or upstream (merged, later ones winning)."""
        merged = Options()
        for ds in reversed(list(self._walk())):
            own = getattr(ds, "_own_options", None)
            if own is not None:
                merged = merged.merge(own)
        return merged


class UnaryDataset(Dataset):
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


class DatasetSpec:
    """The spec of a dataset: its element spec and shape (``tf.data.DatasetSpec``).

    It is also the trace type of a dataset argument of a ``tf.function`` (the protocol of
    ``tracing.signature``): datasets of one element spec share a trace, fed at call time
    through a variant placeholder, as in TF.
    """

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = as_shape(dataset_shape)

    def __eq__(self, other):
        return (isinstance(other, DatasetSpec) and self.shape == other.shape
                and self.element_spec == other.element_spec)

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({structure.structure_text(self.element_spec)}, {self.shape!r})"

    # --- the trace-type protocol ------------------------------------------------------------
    def is_subtype_of(self, other):
        return (isinstance(other, DatasetSpec) and self.shape == other.shape
                and structure.is_subtype(self.element_spec, other.element_spec))

    def most_specific_common_supertype(self, others):
        return self if all(o == self for o in others) else None

    def placeholder_value(self, context):
        placeholder = context.graph.placeholder(TensorSpec((), D.variant), context.name)
        return DatasetArgument(placeholder, self.element_spec)

    def to_tensors(self, value):
        return [value._variant()]  # fed to the trace's variant placeholder


class DatasetArgument(Dataset):
    """A dataset argument inside a trace: stands for whichever dataset the call passes, read
    from its variant placeholder's value when the graph runs."""

    def __init__(self, placeholder, element_spec):
        super().__init__(element_spec)
        self._placeholder = placeholder
        self._tensors = (placeholder,)

    def _fed(self, env):
        if env is None:
            raise LookupError("symbolic value")
        return env[id(self._placeholder)]  # a DatasetValue

    def _iterate(self, env):
        value = self._fed(env)
        return value.dataset._iterate(value.env)

    def _cardinality(self, env=None):
        value = self._fed(env)  # unknown while tracing: computed when the graph runs
        return value.dataset._cardinality(value.env)

    def __repr__(self):
        return f"<DatasetArgument element_spec={self._element_spec!r}>"


@tf_export("data.Options")
class Options:
    """Accepted for compatibility: every option may be set and has no effect."""

    # TF's groups of options (objects); any other option reads None until set
    _GROUPS = frozenset({"autotune", "experimental_distribute", "experimental_optimization",
                         "experimental_service", "experimental_threading", "threading"})

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._GROUPS or not self._top:
            return None
        child = Options(top=False)
        object.__setattr__(self, name, child)
        return child

    def __init__(self, top=True):
        object.__setattr__(self, "_top", top)

    def merge(self, options):
        """These options updated with the ones set in ``options``."""
        merged = Options()
        merged.__dict__.update(self.__dict__)
        merged.__dict__.update({k: v for k, v in options.__dict__.items() if k != "_top"})
        return merged

