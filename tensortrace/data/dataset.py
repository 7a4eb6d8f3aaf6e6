"""``tf.data.Dataset``: a tree of Python dataset objects producing NumPy elements on demand;
eagerly iterated in Python, and inside a traced function through iterator ops that fetch the
elements when the graph runs.

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 2).batch(2)
    list(ds.as_numpy_iterator())     # [array([2, 4], dtype=int32), array([6], dtype=int32)]
"""

from .. import dtypes as D
from .. import errors, nest
from .._export import tf_export
from ..context import bind, state
from ..convert import constant, convert_to_tensor
from ..shapes import as_shape
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..tracing import signature
from . import iterator as _iterator
from . import ops, structure
from .functions import autograph
from .ops import INFINITE, UNKNOWN


def value_of(t, env):
    """The NumPy value of a tensor a dataset reads: eager now, symbolic from ``env``."""
    if isinstance(t, EagerTensor):
        return t._value
    if env is None:
        raise LookupError("symbolic value")
    return env[id(t)]


def int_arg(x, name, dtype=D.int64):
    """A scalar integer argument: a Python int when known now, else its (symbolic) tensor."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)
    if t.dtype != dtype and t.dtype.is_integer:
        from ..ops.math import cast

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


@tf_export("data.Dataset")
class Dataset:
    """A collection of elements (tensors, or tuples/dicts of them) with a fixed structure.

    Subclasses implement ``_iterate(env)`` (a generator of flat tuples of NumPy component
    values) and ``_cardinality(env)``; ``env`` maps symbolic tensors the dataset was built from
    inside a trace to their run-time values (None while tracing).
    """

    _inputs = ()  # datasets this one reads
    _tensors = ()  # tensors (eager or symbolic) this one reads

    def __init__(self, element_spec):
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
        fn = autograph(reduce_func)

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
        from ..tracing.function import function

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

    # --- sources --------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """The slices of ``tensors`` (a tensor or a tuple/dict of them) along the first axis."""
        return _sources._TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of the single element ``tensors``."""
        return _sources._TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=D.int64, name=None):
        """``range(stop)``, ``range(start, stop[, step])`` as a dataset of ``output_type``."""
        return _sources._RangeDataset(args, output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """The elements a Python generator yields; ``generator(*args)`` is called anew for
        each iteration (so inside a function, each time the graph runs)."""
        return _sources._FlatMapDataset(generator, output_types, output_shapes, args,
                                        output_signature)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side (a tuple or dict of datasets)."""
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        return _transforms._ZipDataset(datasets)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element i from ``datasets[c_i]``, the c_i read from ``choice_dataset`` (int64)."""
        return _transforms._DirectedInterleaveDataset(datasets, choice_dataset,
                                                      stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements from ``datasets`` picked at random with ``weights`` (uniform by default)."""
        return _transforms._SampleDataset(datasets, weights, seed, stop_on_empty_dataset)

    # --- transformations ------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """``map_func`` applied to each element (a tuple element is passed as arguments)."""
        return _transforms._MapDataset(self, map_func, parallel=num_parallel_calls is not None)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (a scalar bool tensor) holds."""
        return _transforms._FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Consecutive elements stacked into batches of ``batch_size``."""
        return _transforms._BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches whose components are padded to ``padded_shapes`` (default: the longest)."""
        return _transforms._PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                               drop_remainder)

    def unbatch(self, name=None):
        """Split each element into its rows."""
        return _transforms._UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's algorithm)."""
        return _transforms._ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The elements ``count`` times (forever if None or -1)."""
        return _transforms._RepeatDataset(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (all if -1)."""
        return _transforms._TakeDataset(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none if -1)."""
        return _transforms._SkipDataset(self, count)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` is false."""
        return _transforms._TakeWhileDataset(self, predicate)

    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by ``dataset``'s."""
        return _transforms._ConcatenateDataset(self, dataset)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element."""
        if _transforms.has_dataset_elements(self):
            return _transforms._WindowFlatMapDataset(self, map_func)
        return _transforms._FlatMapDataset(self, map_func)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements starting every ``shift`` (default ``size``) elements,
        each a dataset (a structure of them for structured elements); use with flat_map."""
        return _transforms._WindowDataset(self, size, shift, stride, drop_remainder)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """The elements of the datasets ``map_func`` returns, ``block_length`` at a time from
        ``cycle_length`` of them in turn (parallel calls change nothing here)."""
        return _transforms._InterleaveDataset(
            self, map_func, -1 if cycle_length is None else cycle_length,
            1 if block_length is None else block_length)

    def scan(self, initial_state, scan_func, name=None):
        """Outputs of ``scan_func(state, element) -> (new_state, output)`` carried along."""
        return _transforms._ScanDataset(self, initial_state, scan_func)

    def unique(self, name=None):
        """The elements (scalar ints or strings) at their first occurrence."""
        return _transforms._UniqueDataset(self)

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

    @staticmethod
    def counter(start=0, step=1, dtype=D.int64, name=None):
        """``start, start + step, ...`` forever."""
        return _sources._ScanDataset(start, step, dtype)

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        counter = Dataset.range(start, (1 << 63) - 1)
        return Dataset.zip((counter, self))

    def prefetch(self, buffer_size, name=None):
        """The same elements (prefetching is a no-op here)."""
        return _transforms._PrefetchDataset(self)

    def cache(self, filename="", name=None):
        """The same elements, kept in memory after the first complete iteration."""
        return _transforms.CacheDataset(self)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        return _transforms._ShardDataset(self, num_shards, index)

    def apply(self, transformation_func):
        """``transformation_func(self)``, checked to be a dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. "
                            f"Got {type(result)}.")
        return result

    def with_options(self, options, name=None):
        """This dataset with ``options`` merged into its options (they change nothing here)."""
        return _transforms._OptionsDataset(self, options)

    def options(self):
        """The options set on this dataset or upstream (merged, later ones winning)."""
        merged = Options()
        for ds in reversed(list(self._walk())):
            own = getattr(ds, "_own_options", None)
            if own is not None:
                merged = merged.merge(own)
        return merged


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
                and _element_subtype(self.element_spec, other.element_spec))

    def most_specific_common_supertype(self, others):
        return self if all(o == self for o in others) else None

    def placeholder_value(self, context):
        placeholder = context.graph.placeholder(TensorSpec((), D.variant), context.name)
        return DatasetArgument(placeholder, self.element_spec)

    def to_tensors(self, value):
        return [value._variant()]  # fed to the trace's variant placeholder


def _element_subtype(spec, general):
    if isinstance(general, dict):
        return (isinstance(spec, dict) and spec.keys() == general.keys()
                and all(_element_subtype(spec[k], general[k]) for k in general))
    if isinstance(general, (list, tuple)):
        return (type(spec) is type(general) and len(spec) == len(general)
                and all(_element_subtype(a, b) for a, b in zip(spec, general)))
    if isinstance(general, TensorSpec):
        return signature.is_subtype(spec, general)
    return spec == general


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


from . import sources as _sources
from . import transforms as _transforms
