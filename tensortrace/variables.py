"""``tf.Variable``: mutable state, read and written through ops so that functions see it by
reference and tapes can watch it.

    >>> v = Variable(1.0); v.assign_add(2.0); v.numpy()
    3.0

Inside ``tf.function`` a variable is captured as a resource input; creating one is allowed only
while the function's first trace runs (TF's rule). Every update is a read-modify-write under the
variable's own lock (``_lock``), eagerly and in compiled graphs alike, as TF's kernels hold it.
"""

import enum
import itertools
import threading
import weakref

import numpy as np

from . import dtypes as D
from ._export import export_value
from .config import _runtime_started
from .context import bind, state
from .convert import convert_to_tensor, to_array
from .graph.ir import SymbolicTensor
from .graph.naming import default_name
from .ops import core as _core
from .ops import state as state_ops
from .ops.array.broadcasting import broadcast_to
from .ops.array.ranges import range as tf_range
from .ops.array.reshaping import expand_dims, reshape
from .ops.array.shapes import shape as tf_shape
from .ops.array.shapes import size
from .ops.indexing._util import to_tensor_like
from .ops.indexing.gathering import gather
from .ops.indexing.gathering import gather_nd as tf_gather_nd
from .ops.math.arithmetic import floordiv, floormod
from .ops.math.operands import operand
from .ops.reduce import cumprod
from .registry import get as get_op
from .shapes import TensorShape, as_shape
from .ops.sparse.indexed_slices import IndexedSlices
from .tensor import EagerTensor, Reference, ResourceTensor, Tensor, TensorSpec

_READ = get_op("ReadVariableOp")
_ASSIGN = get_op("AssignVariableOp")
_ASSIGN_ADD = get_op("AssignAddVariableOp")
_ASSIGN_SUB = get_op("AssignSubVariableOp")
_INIT_ONCE = get_op("InitializeVariableOnce")
_EQUAL = get_op("Equal")
_NOT_EQUAL = get_op("NotEqual")

_name_scopes = _core.name_scopes  # tf.name_scope and tf.Module scopes prefix variable names


class ResourceHandle(ResourceTensor):
    """The eager ``resource`` tensor of a variable; its value is the Variable object."""

    __slots__ = ()
    _use = "read the variable"

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=resource, value=<ResourceHandle({self._value.name})>>"


class VariableCreationError(ValueError):
    pass


class VariableSynchronization(enum.Enum):
    """``tf.VariableSynchronization``: when a distributed variable is synchronized."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregationV2(enum.Enum):
    """``tf.VariableAggregation``: how a distributed variable's updates are combined."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


export_value(VariableSynchronization, "VariableSynchronization")
export_value(VariableAggregationV2, "VariableAggregation")


class _VariableMetaclass(type):
    """``tf.Variable(...)`` makes a ``ResourceVariable``, as TF's ``VariableMetaclass`` does;
    ``isinstance(v, tf.Variable)`` still holds."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable:
            if Variable._creator is not None:  # a strategy's scope makes its own variables
                made = Variable._creator(args, kwargs)
                if made is not None:
                    return made
            cls = ResourceVariable
        return type.__call__(cls, *args, **kwargs)


_UIDS = itertools.count(1)


class Variable(metaclass=_VariableMetaclass):
    """A tensor-like container of a mutable value (``tf.Variable``)."""

    _creation_hooks = []  # tracing pushes a guard that allows creation on first traces only
    # (args, kwargs) -> a variable, or None for a plain one; set from above (tf.distribute)
    _creator = None

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None, synchronization=None, aggregation=None,
                 shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except "
                             "when you are not providing a `variable_def`. You provided neither.")
        if not getattr(state.graph, "lifts_initializers", True) and \
                not _is_eager_value(initial_value):
            # a bare FuncGraph (Keras' scratch graph), not a trace: TF cannot lift the value
            raise ValueError(
                f"Argument `initial_value` ({initial_value}) could not be lifted out of a "
                f"`tf.function`. (Tried to create variable with name='{name}'). To avoid this "
                "error, when constructing `tf.Variable`s inside of `tf.function` you can create "
                "the `initial_value` tensor in a `tf.init_scope` or pass a callable "
                "`initial_value` (e.g., `tf.Variable(lambda : tf.truncated_normal([10, 40]))`). "
                "Please file a feature request if this restriction inconveniences you.")
        for hook in Variable._creation_hooks:
            hook(self)
        # reentrant: an eager scatter holds it across its read, scatter and assign
        self._lock = threading.RLock()
        if callable(initial_value):
            initial_value = initial_value()
        if dtype is not None:
            dtype = D.as_dtype(dtype)
        graph = state.graph
        self._trainable = True if trainable is None else bool(trainable)
        self._name = _scoped_name(name or "Variable")
        self._constraint = constraint
        self._synchronization = synchronization or VariableSynchronization.AUTO
        self._aggregation = aggregation or VariableAggregationV2.NONE
        self._handle = ResourceHandle._wrap(self)
        self._array = None
        if isinstance(initial_value, Variable):
            initial_value = initial_value.read_value()
        if graph is None or _is_eager_value(initial_value):
            value = _eager_value(initial_value, dtype)
            _runtime_started[0] = True  # TF's context starts: logical devices are fixed
            self._set_meta(value.dtype, value.shape, shape, validate_shape)
            self._array = value
        else:  # a value computed in the graph: initialized when the graph first runs
            init = convert_to_tensor(initial_value, dtype=dtype)
            self._set_meta(init.dtype._np, tuple(init.shape.dims or ()), shape,
                           validate_shape, static_shape=init.shape)
            bind(_INIT_ONCE, self._handle, init)
            graph.variables.append(self)

    @classmethod
    def _symbolic(cls, handle, dtype, shape, name, trainable=True):
        """A variable argument inside a trace: reads and writes go through ``handle``, a
        resource placeholder fed with the real variable at call time."""
        v = object.__new__(ResourceVariable if cls is Variable else cls)
        v._handle = handle
        v._array = None
        v._name = name
        v._trainable = trainable
        v._constraint = None
        v._set_meta(dtype._np, tuple(shape.dims or ()), shape, True)
        return v

    def _set_meta(self, np_dtype, value_shape, shape, validate_shape, static_shape=None):
        self._np_dtype = np.dtype(np_dtype)
        self._dtype = D.from_numpy(self._np_dtype)
        if shape is not None:
            self._shape = as_shape(shape)
            given = static_shape if static_shape is not None else TensorShape(value_shape)
            if not given.is_compatible_with(self._shape):
                raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                 f"({given}) is not compatible with the explicitly supplied "
                                 f"`shape` argument ({self._shape}).")
        elif static_shape is not None:
            self._shape = static_shape
        else:
            self._shape = TensorShape(value_shape)
        if not validate_shape and shape is None:
            self._shape = TensorShape(None)
        self._shape_known = self._shape.is_fully_defined()
        self._value_shape = tuple(self._shape.dims) if self._shape_known else None

    # --- properties -------------------------------------------------------------------------
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    trainable = property(lambda self: self._trainable)
    handle = property(lambda self: self._handle)
    constraint = property(lambda self: self._constraint)
    device = property(lambda self: "/job:localhost/replica:0/task:0/device:CPU:0")
    synchronization = property(
        lambda self: getattr(self, "_synchronization", VariableSynchronization.AUTO))
    aggregation = property(lambda self: getattr(self, "_aggregation", VariableAggregationV2.NONE))

    @property
    def initial_value(self):
        if state.graph is None:
            raise RuntimeError("This property is not supported when eager execution is enabled.")
        raise NotImplementedError("initial_value of a variable inside a tf.function")

    @property
    def name(self):
        return self._name + ":0"

    @property
    def _shared_name(self):
        """The resource's name: the variable's name without ``:0`` (TF's)."""
        return self._name

    @property
    def _unique_id(self):
        """An id no other variable has (TF's: the name and a process-wide counter)."""
        uid = self.__dict__.get("_tt_uid")
        if uid is None:
            uid = self.__dict__["_tt_uid"] = f"{self._name}_{next(_UIDS)}"
        return uid

    @property
    def ndim(self):
        return self._shape.rank

    def get_shape(self):
        return self._shape

    # --- reading ----------------------------------------------------------------------------
    def value(self):
        """The current value as a tensor (a graph read inside functions)."""
        if state.graph is None and not state.tapes:
            return EagerTensor._wrap(state_ops._value_of(self))
        return bind(_READ, self._handle, dtype=self._dtype, shape=self._shape)

    def read_value(self):
        """``value()``; in a graph its read is TF's ``Read/ReadVariableOp``."""
        return self.value()

    def numpy(self):
        v = state_ops._value_of(self)
        return v[()] if v.ndim == 0 else v.copy()

    def _as_graph_or_eager_tensor(self, dtype=None):
        if dtype is not None and D.as_dtype(dtype) != self._dtype:
            raise ValueError(f"Tensor conversion requested dtype {D.as_dtype(dtype).name} for "
                             f"variable with dtype {self._dtype.name}: {self!r}")
        return self.value()

    def _as_tensor_value(self):
        return self.numpy()

    def _static_value(self):
        return None

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(state_ops._value_of(self))
        return v if dtype is None else v.astype(dtype)

    # --- writing ----------------------------------------------------------------------------
    def _write(self, opdef, value, read_value):
        value = convert_to_tensor(value, dtype=self._dtype)
        if state.graph is None:
            state_ops.update(self, opdef.name, value._value)
            return _UnreadVariable(self) if read_value else None
        handle = self._handle
        if opdef is not _ASSIGN:
            if getattr(handle, "graph", None) is not state.graph:
                handle = state.graph.capture(handle)
            state_ops.check_update_shape(self, handle, value, opdef.name)
        bind(opdef, handle, value)
        return self.value() if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._write(_ASSIGN, value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(_ASSIGN_ADD, delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(_ASSIGN_SUB, delta, read_value)

    # --- sparse reads and updates (TF's, built from gather and tensor_scatter ops) -----------
    def sparse_read(self, indices, name=None):
        return gather(self.value(), indices)

    def gather_nd(self, indices, name=None):
        return tf_gather_nd(self.value(), indices)

    def _scatter_nd(self, kind, indices, updates, read_value=True):
        """One ResourceScatterNd<kind> op: its read, scatter and write hold the lock."""
        bind(state_ops.RESOURCE_SCATTER[kind], self._handle, convert_to_tensor(indices),
             to_tensor_like(updates, self), dtype=self._dtype, shape=self._shape)
        if not read_value:
            return None
        return _UnreadVariable(self) if state.graph is None else self.value()

    def _scatter(self, kind, sparse_delta, read_value=True):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received "
                            f"arg: {sparse_delta}")
        indices = convert_to_tensor(sparse_delta.indices)
        values = sparse_delta.values
        if indices.shape.rank == 0:  # one slice: as a batch of one
            indices, values = reshape(indices, [1]), expand_dims(values, 0)
        indices = expand_dims(indices, -1)
        return self._scatter_nd(kind, indices, values, read_value)

    def scatter_nd_update(self, indices, updates, name=None):
        return self._scatter_nd("update", indices, updates)

    def scatter_nd_add(self, indices, updates, name=None):
        return self._scatter_nd("add", indices, updates)

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._scatter_nd("sub", indices, updates)

    def scatter_nd_max(self, indices, updates, name=None):
        return self._scatter_nd("max", indices, updates)

    def scatter_nd_min(self, indices, updates, name=None):
        return self._scatter_nd("min", indices, updates)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("update", sparse_delta)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("add", sparse_delta)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("sub", sparse_delta)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("max", sparse_delta)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._scatter("min", sparse_delta)

    def is_initialized(self):
        return bind(get_op("VarIsInitializedOp"), self._handle)

    # --- Python protocol --------------------------------------------------------------------
    def ref(self):
        return Reference(self)

    experimental_ref = ref

    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    def __repr__(self):
        if self._array is None:
            return f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}>"
        text = repr(EagerTensor._wrap(self._array)).split("numpy=", 1)[1][:-1]
        return (f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}, "
                f"numpy={text}>")

    __str__ = __repr__

    def __bool__(self):
        return bool(self.value())

    def __len__(self):
        return len(self.value())

    def __iter__(self):
        return iter(self.value())

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __index__(self):
        return self.numpy().__index__()

    def __format__(self, spec):
        return self.value().__format__(spec)

    def __deepcopy__(self, memo):
        return Variable(self.numpy(), trainable=self._trainable, name=self._name)

    __array_priority__ = 100


class ResourceVariable(Variable):
    """The variable that ``tf.Variable(...)`` creates (TF's class of the same name)."""


class _UnreadVariable(Variable):
    """What an eager ``assign*`` returns, as in TF: the same variable (its value read on use)
    printed under the name ``UnreadVariable``."""

    def __init__(self, parent):  # noqa: D107 - shares the parent's handle and value
        self._parent = parent.__dict__.get("_parent", parent)

    def __getattr__(self, name):  # everything but the name is the parent's
        if name == "_parent":
            raise AttributeError(name)
        return getattr(self._parent, name)

    _array = property(lambda self: self._parent._array,
                      lambda self, value: setattr(self._parent, "_array", value))

    @property
    def name(self):
        return "UnreadVariable"

    def __deepcopy__(self, memo):
        return self._parent.__deepcopy__(memo)


def _forward(operator):
    def method(self, *args):
        return getattr(self.value(), operator)(*args)

    method.__name__ = operator
    return method


for _op in Tensor.OVERLOADABLE_OPERATORS - {"__eq__", "__ne__"}:
    setattr(Variable, _op, _forward(_op))


# --- v[...].assign(value): TF's sliced variable ----------------------------------------------
_slice_sources = {}  # id(sliced graph tensor) -> (variable, slice spec), while it lives


class _SlicedEagerTensor(EagerTensor):
    """``v[...]`` read eagerly: a tensor that can also ``assign`` to that slice of ``v``."""

    __slots__ = ()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        var, spec = _slice_sources[id(self)]
        return _assign_slice(var, spec, value, read_value)


def _sliced_symbolic_class():
    if not _SLICED_SYMBOLIC:
        class _SlicedSymbolicTensor(SymbolicTensor):
            """``v[...]`` inside a trace: a graph tensor that can ``assign`` to the slice."""

            __slots__ = ()
            assign = _SlicedEagerTensor.assign

        _SLICED_SYMBOLIC.append(_SlicedSymbolicTensor)
    return _SLICED_SYMBOLIC[0]


_SLICED_SYMBOLIC = []


def _variable_getitem(self, slice_spec):
    t = self.value()[slice_spec]
    # the op's output itself gains ``assign`` (same layout; tapes keep seeing the same tensor)
    cls = _SlicedEagerTensor if type(t) is EagerTensor else _sliced_symbolic_class()
    if type(t) is cls.__base__:
        t.__class__ = cls
        _slice_sources[id(t)] = (self, slice_spec)
        weakref.finalize(t, _slice_sources.pop, id(t), None)
    return t


def _assign_slice(var, spec, value, read_value):
    """Assign ``value`` to ``var[spec]`` (TF's strided-slice assign): one ResourceScatterNdUpdate
    at the slice's coordinates, so the write holds the variable's lock as TF's op does (two
    threads assigning different slices keep both)."""
    full = var.value()
    shape = tf_shape(full)
    flat_index = reshape(tf_range(size(full)), shape)[spec]
    value = convert_to_tensor(value, dtype=var.dtype)
    value = broadcast_to(value, tf_shape(flat_index))
    if var.shape.rank == 0:
        return var.assign(reshape(value, []), read_value=read_value)
    strides = cumprod(shape, exclusive=True, reverse=True)
    coords = floormod(floordiv(reshape(flat_index, [-1, 1]), strides), shape)
    return var._scatter_nd("update", coords, reshape(value, [-1]), read_value=read_value)


Variable.__getitem__ = _variable_getitem


def _variable_equals(self, other):
    """``==``, as TF's ``Variable.__eq__``: elementwise (``Equal`` with
    ``incompatible_shape_error=False``) eagerly and in functions alike. Unlike a tensor's ``==``
    it does not special-case ``None`` (TF converts it, and that fails)."""
    x = self.value()
    return bind(_EQUAL, x, operand(other, x), incompatible_shape_error=False)


def _variable_not_equals(self, other):
    x = self.value()
    return bind(_NOT_EQUAL, x, operand(other, x), incompatible_shape_error=False)


Variable.__eq__ = _variable_equals
Variable.__ne__ = _variable_not_equals


def _is_eager_value(value):
    return not isinstance(value, Tensor) or isinstance(value, EagerTensor)


def _eager_value(initial_value, dtype):
    if isinstance(initial_value, EagerTensor):
        value = np.asarray(initial_value._value)
        if dtype is not None and dtype != initial_value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {initial_value.dtype.name}: {initial_value!r}")
        return value
    return np.asarray(to_array(initial_value, dtype))


def _scoped_name(name):
    return "/".join(_name_scopes + [name]) if _name_scopes else name


class VariableSpec(TensorSpec):
    """The trace type of a variable argument: its shape, dtype and, in a trace, ``alias_id``
    (variables passed in one call are numbered in order; the same variable twice shares one)."""

    __slots__ = ("alias_id",)

    def __init__(self, shape, dtype=D.float32, trainable=True, alias_id=None):
        super().__init__(shape, dtype)
        self.alias_id = alias_id

    def __eq__(self, other):
        return TensorSpec.__eq__(self, other) and self.alias_id == other.alias_id

    def __hash__(self):
        return hash((self._dtype, self.alias_id))

    def __repr__(self):
        return (f"VariableSpec(shape={self._shape}, dtype={self._dtype!r}, trainable=True, "
                f"alias_id={self.alias_id})")


default_name(("Read", False, None), Variable.read_value)  # TF's node name: Read/ReadVariableOp
