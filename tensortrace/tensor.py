"""Tensors: the ``Tensor`` base, ``EagerTensor`` (a NumPy value) and ``TensorSpec``.

    >>> t = EagerTensor._wrap(np.float32(1.0)); print(repr(t))
    <tf.Tensor: shape=(), dtype=float32, numpy=1.0>

Operators (``+``, ``[]``, ``==`` ...) are installed onto ``Tensor`` by the op modules that define
them (``Tensor._override_operator``), as TensorFlow does, so this module knows no op.
"""

import numpy as np

from . import dtypes as _dtypes
from .shapes import TensorShape, as_shape

_from_numpy = _dtypes.from_numpy
_from_tuple = TensorShape._from_tuple

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def convert(value):
    """``convert_to_tensor(value)``: ``convert`` registers its own here when it is imported (a
    tensor knows TF's conversion rules only through the layer that defines them)."""
    raise NotImplementedError("tensortrace.convert is not imported")


class _NumpyMethod:
    """A NumPy method or property that ``tnp.experimental_enable_numpy_behavior()`` installs on
    ``Tensor``; until then reading it raises TF's AttributeError naming that switch. (A class
    attribute, not ``__getattr__``: that would slow every attribute read of every tensor.)"""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            raise AttributeError(f"type object {cls.__name__!r} has no attribute {self.name!r}",
                                 name=self.name, obj=cls)
        raise AttributeError(
            f"{type(obj).__name__} object has no attribute '{self.name}'. " + """
        If you are looking for numpy-related methods, please run the following:
        tf.experimental.numpy.experimental_enable_numpy_behavior()
      """, name=self.name, obj=obj)


class Tensor:
    """Base of eager and symbolic tensors; ``isinstance(x, tf.Tensor)`` holds for both."""

    __slots__ = ()
    __array_priority__ = 100  # NumPy defers to our reflected operators

    OVERLOADABLE_OPERATORS = frozenset({
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
        "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
        "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__", "__invert__", "__and__",
        "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__", "__gt__",
        "__ge__", "__eq__", "__ne__", "__getitem__", "__pos__",
    })

    @classmethod
    def _override_operator(cls, operator, func):
        """Install ``func`` as ``operator`` (called by the op modules)."""
        if operator not in cls.OVERLOADABLE_OPERATORS:
            raise ValueError(f"{operator} is not an overloadable operator")
        setattr(cls, operator, func)

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __round__(self, ndigits=None):
        """TF's ``round(tensor)`` is ``tnp.around``, which needs the NumPy methods."""
        return self.astype  # TF's AttributeError until NumPy behavior is enabled

    def ref(self):
        """A hashable reference to this tensor (``deref()`` gives it back)."""
        return Reference(self)

    experimental_ref = ref

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def _shape_tuple(self):
        dims = self.shape.dims
        return None if dims is None else tuple(dims)

    def _rank(self):
        return self.shape.rank


for _name in ("T", "astype", "ravel", "transpose", "reshape", "clip", "size", "tolist", "data"):
    setattr(Tensor, _name, _NumpyMethod(_name))
del _name


class EagerTensor(Tensor):
    """A tensor with a value: a NumPy array (or NumPy scalar) held in ``_value``. Like TF's,
    it takes Python attributes (Keras marks tensors with ``_keras_mask``)."""

    __slots__ = ("_value", "__weakref__", "__dict__")

    @classmethod
    def _wrap(cls, value):
        t = object.__new__(cls)
        t._value = value
        return t

    @property
    def dtype(self):
        return _from_numpy(self._value.dtype)

    @property
    def shape(self):
        return _from_tuple(self._value.shape)

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return CPU_DEVICE

    backing_device = device

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def numpy(self):
        """A copy of the value: a NumPy array, or a NumPy scalar (bytes for strings)."""
        v = self._value
        if type(v) is np.ndarray:
            return v[()] if v.ndim == 0 else v.copy()
        return v

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._value)
        return v if dtype is None else v.astype(dtype, copy=False)

    def set_shape(self, shape):
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {as_shape(shape).dims}.")

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return len(self._value)

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(len(self._value)))

    def __bool__(self):
        return bool(self._value)

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        return self._value.__index__()

    def __format__(self, format_spec):
        return self.numpy().__format__(format_spec)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return EagerTensor._wrap, (self.numpy(),)

    def __str__(self):
        return f"tf.Tensor({_numpy_text(self)}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self):
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={_numpy_text(self, is_repr=True)}>")


def _numpy_text(t, is_repr=False):
    value = t.numpy()
    if is_repr:
        if np.isscalar(value) and not isinstance(value, bytes):
            text = repr(value.item())  # TF prints Python items: 1.0, not np.float32(1.0)
        else:
            text = repr(value)
    else:
        text = str(value)
    return "\n" + text if "\n" in text else text


class ResourceTensor(EagerTensor):
    """An eager ``resource`` tensor: a scalar whose value is the resource it names (a
    variable, a lookup table); it has no NumPy value. ``_use`` says what to do instead."""

    __slots__ = ()
    _use = "use its owner"

    @property
    def dtype(self):
        return _dtypes.resource

    @property
    def shape(self):
        return TensorShape(())

    def numpy(self):
        raise ValueError(f"Cannot convert a resource handle to a NumPy value; {self._use}.")


class Reference:
    """A hashable handle on a tensor or variable, compared by identity (``Tensor.ref()``)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<Reference at {id(self)} of {self._wrapped!r}>"


def static_value(x):
    """The value of ``x`` when it is known before running (eager tensors, constants), else None."""
    if isinstance(x, EagerTensor):
        return np.asarray(x._value)
    if isinstance(x, Tensor):
        return getattr(x, "static", None)
    if hasattr(x, "_static_value"):  # variables read eagerly
        return x._static_value()
    return np.asarray(x)


class TensorSpec:
    """Describes a tensor: shape (possibly partial), dtype and an optional name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @property
    def value_type(self):
        return Tensor

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if name is None:
            try:
                name = tensor.op.name if not isinstance(tensor, EagerTensor) else None
            except AttributeError:
                name = None
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    def is_compatible_with(self, spec_or_value):
        """True if ``spec_or_value`` (a spec or a tensor) has this dtype and a compatible shape."""
        other = spec_or_value
        if not isinstance(other, (TensorSpec, Tensor)):
            try:
                other = convert(other)
            except (TypeError, ValueError):
                return False
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def is_subtype_of(self, other):
        return (type(other) is TensorSpec and self._dtype == other._dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec every one of ``[self] + others`` is a subtype of, or None."""
        shape = self._shape
        for o in others:
            if type(o) is not TensorSpec or o._dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        name = self._name if all(o._name == self._name for o in others) else None
        return TensorSpec(shape, self._dtype, name)

    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype == other._dtype
                and self._shape == other._shape and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return TensorSpec, (self._shape, self._dtype, self._name)
