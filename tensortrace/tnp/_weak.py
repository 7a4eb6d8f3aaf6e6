"""``WeakTensor``: a tensor whose dtype was inferred, not chosen (TF's weakly typed tensor of the
"safe" and "all" promotion modes): ``tf.constant(1)`` is a weak int32 that defers to the other
operand's dtype. It wraps a plain tensor (``.tensor``), converts to it wherever a tensor is
expected (TF's ``__tf_tensor__`` protocol), prints with ``weak=True``, and is a composite value
so that ``tf.function`` takes and returns it as one."""

import numpy as np

from .. import composite, errors
from ..context import executing_eagerly
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor, TensorSpec

#: the dtypes a weak tensor may have
ALLOWED = ("int32", "int64", "float32", "float64", "complex128")


class WeakTensor(composite.CompositeTensor):
    """A weakly typed tensor: ``tensor`` with a dtype the promotion may replace."""

    __slots__ = ("tensor", "__weakref__")
    __array_priority__ = 100  # NumPy defers to our reflected operators

    def __init__(self, tensor):
        if tensor.dtype.name not in ALLOWED:
            raise TypeError(f"{tensor.dtype!r} not allowed as a weak type. The allowed types "
                            f"are {ALLOWED}.")
        self.tensor = tensor

    @classmethod
    def from_tensor(cls, tensor):
        """A weak tensor holding ``tensor`` (an eager or symbolic ``tf.Tensor``)."""
        if isinstance(tensor, WeakTensor):
            tensor = tensor.tensor
        if isinstance(tensor, EagerTensor):
            return EagerWeakTensor(tensor)
        if hasattr(tensor, "_as_graph_or_eager_tensor"):  # TF's variables are tensors there
            tensor = tensor._as_graph_or_eager_tensor(None)
            return WeakTensor.from_tensor(tensor)
        if isinstance(tensor, Tensor):
            return GraphWeakTensor(tensor)
        raise errors.InvalidArgumentError(
            None, None, "WeakTensor can only be constructed from tf.Tensor or tf.WeakTensor, "
            f"but {type(tensor)} was given.")

    def to_tensor(self):
        """The plain ``tf.Tensor`` this weak tensor holds."""
        return self.tensor

    def __tf_tensor__(self, dtype=None, name=None):
        return self.tensor

    def _as_graph_element(self):
        return self.tensor

    def __getattr__(self, name):  # the tensor's other attributes and methods
        if name == "tensor":
            raise AttributeError(name)
        return getattr(self.tensor, name)

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def shape(self):
        return self.tensor.shape

    @property
    def is_tensor_like(self):
        return True

    @property
    def _type_spec(self):
        return WeakTensorSpec(self.tensor.shape, self.tensor.dtype)

    def _format(self, text):
        return text[:-1] + ", weak=True" + text[-1]

    def __repr__(self):
        return self._format(repr(self.tensor))

    def __str__(self):
        return self._format(str(self.tensor))

    def __hash__(self):
        return hash(self.tensor)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __len__(self):
        return len(self.tensor)

    def __bool__(self):
        return bool(self.tensor)

    def __iter__(self):
        if not executing_eagerly():
            raise errors.OperatorNotAllowedInGraphError(
                "Iterating over a symbolic `tf.WeakTensor` is not allowed. You can attempt the "
                "following resolutions to the problem: If you are running in Graph mode, use "
                "Eager execution mode or decorate this function with @tf.function. If you are "
                "using AutoGraph, you can try decorating this function with @tf.function. If "
                "that does not work, then you may be using an unsupported feature or your "
                "source code may not be visible to AutoGraph. See https://github.com/tensorflow/"
                "tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
                "limitations.md#access-to-source-code for more information.")
        return (WeakTensor.from_tensor(t) for t in self.tensor)


class EagerWeakTensor(WeakTensor):
    """A weakly typed eager tensor."""

    __slots__ = ()

    def numpy(self):
        return self.tensor.numpy()

    def __int__(self):
        return int(self.tensor)

    def __float__(self):
        return float(self.tensor)

    def __complex__(self):
        return complex(self.tensor)

    def __index__(self):
        return self.tensor.__index__()

    def __format__(self, format_spec):
        return f"{self.tensor.__format__(format_spec)} weakly typed"

    def __array__(self, dtype=None, copy=None):
        return np.array(self.tensor.__array__(dtype))


class GraphWeakTensor(WeakTensor):
    """A weakly typed symbolic tensor (inside ``tf.function``)."""

    __slots__ = ()


class WeakTensorSpec(composite.TypeSpec):
    """The spec of a weak tensor: its tensor's shape and dtype."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape, dtype):
        self._shape = TensorShape(shape)
        self._dtype = dtype

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: WeakTensor)

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        return [TensorSpec(self._shape, self._dtype)]

    def _to_components(self, value):
        return [value.tensor]

    def _from_components(self, components):
        return WeakTensor.from_tensor(components[0])


def strip(x):
    """``x`` with a weak tensor replaced by its tensor."""
    return x.tensor if isinstance(x, WeakTensor) else x


def wrap(t, weak):
    """``t`` as a weak tensor when ``weak`` (TF's errors for a value that cannot be one), else
    ``t`` with a weak tensor made plain."""
    if weak:
        return WeakTensor.from_tensor(t)
    return strip(t)
