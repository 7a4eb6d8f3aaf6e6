"""Iterators over datasets: ``OwnedIterator`` (eager, also usable inside a function through its
resource handle), the graph iterator of a trace, and the graph loop over a dataset.

    it = iter(dataset); next(it)            # eagerly: tensors
    dataset._for_loop(body, loop_vars)      # traced: one While op, data fetched at run time
"""

import numpy as np

from .. import dtypes as D
from .. import errors, nest
from .._export import tf_export
from ..context import bind, state
from ..convert import constant
from ..ops.control_flow.loops import while_loop
from ..ops.math.compare import logical_and
from ..shapes import TensorShape
from ..tensor import Tensor, TensorSpec
from . import checkpointing, ops, optional, structure

_ERROR_THRESHOLD = 32
_TOO_MANY_GET_NEXT = (
    "An unusually high number of `tf.data.Iterator.get_next()` calls was detected. This "
    "suggests that the `for elem in dataset: ...` idiom is used within tf.function with "
    "AutoGraph disabled. This idiom is only supported when AutoGraph is enabled.")


def _attrs(spec):
    return {"output_types": structure.dtypes_of(spec),
            "output_shapes": structure.shapes_of(spec)}


def _pack(spec, components):
    if type(components) is not tuple:
        components = (components,)
    return components[0] if structure.is_single(spec) else structure.pack(spec, components)


def _next(iterator_state):
    """The next flat element (None at the end); errors name the op as TF's eager ones do."""
    try:
        return iterator_state.next()
    except errors.OpError as e:
        raise type(e)(None, None, f"{e.message} [Op:IteratorGetNext]") from None


@tf_export("data.Iterator")
class Iterator:
    """Base of tf.data iterators (for ``isinstance`` checks)."""

    element_spec = property(lambda self: self._spec)

    def __iter__(self):
        return self


class OwnedIterator(Iterator):
    """An eager iterator. Inside a traced function ``next(it)`` becomes an IteratorGetNext op
    on the iterator's resource handle, so each call of the function advances it."""

    def __init__(self, dataset):
        self._spec = dataset.element_spec
        self._state = ops.IteratorState(ops.DatasetValue(dataset, {}))
        self._handle = None

    def _resource(self):
        if self._handle is None:
            self._handle = ops.handle(self._state)
        return self._handle

    def __next__(self):
        if state.graph is not None:
            return self.get_next()
        element = _next(self._state)
        if element is None:
            raise StopIteration
        return structure.wrap_element(self._spec, element)

    def next(self):
        """``next(it)`` (TF's Python 2 era spelling, still public)."""
        return self.__next__()

    def get_next(self, name=None):
        """The next element; OutOfRangeError at the end."""
        if state.graph is not None:
            return _pack(self._spec, bind(ops.GET_NEXT, self._resource(), **_attrs(self._spec)))
        element = _next(self._state)
        if element is None:
            raise errors.OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]")
        return structure.wrap_element(self._spec, element)

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional``."""
        if state.graph is not None:
            return optional.from_iterator(bind(ops.GET_NEXT_AS_OPTIONAL, self._resource(),
                                               **_attrs(self._spec)), self._spec)
        return optional.from_iterator(ops.handle(ops.OptionalValue(_next(self._state))),
                                      self._spec)

    def _for_loop(self, body, loop_vars, extra_test=None, count=1):
        """``for element in it`` inside a trace (see ``Dataset._for_loop``; ``count``: see
        ``for_loop``)."""
        return for_loop(self._resource(), self._spec, body, loop_vars, extra_test, count)

    @property
    def _type_spec(self):
        return IteratorSpec(self._spec)

    def __tf_tracing_type__(self, context):
        """An iterator argument of a tf.function is traced by its spec, as in TF: iterators of
        one element spec share a trace (Keras passes a new one every epoch)."""
        return IteratorSpec(self._spec)

    # --- checkpoints (see checkpointing.py): the iterator is a trackable with one value ------
    _checkpoint_attribute = checkpointing.ATTRIBUTE

    def _checkpoint_value(self):
        return checkpointing.serialize(self._state)

    def _restore_checkpoint_value(self, value):
        checkpointing.restore(self._state, value)

    def __repr__(self):
        return f"<tensortrace.data.OwnedIterator object at {hex(id(self))}>"


class _IteratorArgument(OwnedIterator):
    """An iterator argument inside a trace: its ops run on the resource placeholder that each
    call feeds with the passed iterator's handle."""

    def __init__(self, handle, spec):
        self._spec, self._handle, self._state = spec, handle, None


@tf_export("data.IteratorSpec")
class IteratorSpec:
    """The type spec of an iterator (``tf.data.IteratorSpec``), and the trace type of an
    iterator argument of a tf.function (the protocol of ``tracing.signature``)."""

    def __init__(self, element_spec):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)

    def __eq__(self, other):
        return type(other) is IteratorSpec and self._element_spec == other._element_spec

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"IteratorSpec({structure.structure_text(self._element_spec)},)"

    # --- the trace-type protocol ------------------------------------------------------------
    def is_subtype_of(self, other):
        return (type(other) is IteratorSpec
                and structure.is_subtype(self._element_spec, other._element_spec))

    def most_specific_common_supertype(self, others):
        return self if all(o == self for o in others) else None

    def placeholder_value(self, context):
        handle = context.graph.placeholder(TensorSpec((), D.resource), context.name)
        return _IteratorArgument(handle, self._element_spec)

    def to_tensors(self, value):
        return [value._resource()]  # fed to the trace's resource placeholder


class GraphIterator(Iterator):
    """``iter(dataset)`` inside a trace: a MakeDatasetIterator op and get-next ops on it."""

    def __init__(self, variant, spec):
        self._spec = spec
        self._variant = variant
        self._resource = None
        self._calls = 0

    def _handle(self):
        if self._resource is None:
            self._resource = bind(ops.MAKE_ITERATOR, self._variant)
        return self._resource

    def __next__(self):
        self._calls += 1
        if self._calls > _ERROR_THRESHOLD:
            raise ValueError(_TOO_MANY_GET_NEXT)
        return self.get_next()

    def get_next(self, name=None):
        return _pack(self._spec, bind(ops.GET_NEXT, self._handle(), **_attrs(self._spec)))

    def get_next_as_optional(self):
        return optional.from_iterator(bind(ops.GET_NEXT_AS_OPTIONAL, self._handle(),
                                           **_attrs(self._spec)), self._spec)

    def _for_loop(self, body, loop_vars, extra_test=None, count=1):
        return for_loop(self._handle(), self._spec, body, loop_vars, extra_test, count)


class NumpyIterator:
    """``as_numpy_iterator()``: the elements as NumPy values, nested like the elements."""

    def __init__(self, dataset):
        self._iterator = OwnedIterator(dataset)
        self._spec = dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        element = _next(self._iterator._state)
        if element is None:
            raise StopIteration
        values = [_numpy(v) for v in element]
        return values[0] if structure.is_single(self._spec) else structure.pack(self._spec, values)

    next = __next__

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator!r})"


def _numpy(v):
    """What ``EagerTensor.numpy()`` returns: NumPy scalars (bytes for strings) or arrays."""
    if type(v) is np.ndarray:
        return v[()] if v.ndim == 0 else v.copy()
    return v


# --- the graph loop -----------------------------------------------------------------------------
def for_loop(resource, spec, body, loop_vars, extra_test=None, count=1):
    """A ``tf.while_loop`` over the elements the iterator ``resource`` yields at run time.

    The loop carries the next element as an optional value in front of ``loop_vars``, so its
    size does not depend on the data. Shapes of loop variables that change across iterations
    are relaxed, as TF's dataset loops do. With ``count`` > 1 each iteration takes that many
    consecutive elements (the body gets them as a tuple) and the loop ends when fewer remain
    (tf.distribute's replicas taking one element each).
    """
    attrs = _attrs(spec)
    loop_vars = tuple(loop_vars)

    def fetch():
        return tuple(bind(ops.GET_NEXT_AS_OPTIONAL, resource, **attrs) for _ in range(count))

    def cond(*carried):
        has = bind(ops.HAS_VALUE, carried[0])
        for later in carried[1:count]:
            has = logical_and(has, bind(ops.HAS_VALUE, later))
        if extra_test is None:
            return has
        more = extra_test(*carried[count:])
        if not isinstance(more, Tensor):
            return has if more else constant(False)
        return logical_and(has, more)

    def step(*carried):
        elements = tuple(_pack(spec, bind(ops.GET_VALUE, o, **attrs)) for o in carried[:count])
        new = tuple(body(elements[0] if count == 1 else elements, *carried[count:]))
        return fetch() + new

    first = fetch()
    # Exact shapes first; if the body changes a shape, retrace with every dimension unknown,
    # then with unknown ranks (TF relaxes to the most specific shape; this is coarser).
    for keep_rank in (None, True, False):
        invariants = None if keep_rank is None else \
            (None,) * count + tuple(_relaxed_invariants(loop_vars, keep_rank))
        try:
            out = while_loop(cond, step, first + loop_vars, shape_invariants=invariants)
            break
        except ValueError as e:
            if "enters the loop with shape" not in str(e) or keep_rank is False:
                raise
    return tuple(out[count:])


def _relaxed_invariants(loop_vars, keep_rank):
    """Shape invariants with every dimension unknown (and the rank too unless ``keep_rank``)."""
    def relax(x):
        if isinstance(x, Tensor):
            rank = x.shape.rank
        elif isinstance(x, (int, float, bool, complex, np.generic, np.ndarray)):
            rank = np.ndim(x)
        else:
            return None  # TensorArrays need no invariant
        return TensorShape(None if rank is None or not keep_rank else [None] * rank)

    return [nest.map_structure(relax, v) if nest.is_nested(v) else relax(v) for v in loop_vars]
