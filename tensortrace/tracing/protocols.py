"""``tf.types.experimental``: the abstract types of tf.function's objects (PolymorphicFunction,
ConcreteFunction, FunctionType ...) and the tracing protocol user classes implement
(``__tf_tracing_type__`` returning a ``TraceType``), with TF 2.21's default methods.

Our own classes are registered as virtual subclasses (``register``), so ``isinstance`` answers
as in TF while the concrete classes keep plain metaclasses (no ABC cost on their hot paths).
"""

import abc
import inspect
import typing

import numpy as np

from .._export import export_value
from ..composite import TypeSpec
from ..tensor import Tensor, TensorSpec


class FunctionType(inspect.Signature, metaclass=abc.ABCMeta):
    """The signature of a tf.function: parameters annotated with their trace types."""

    @classmethod
    def from_callable(cls, obj, *, follow_wrapped=True):
        raise NotImplementedError


class Callable(metaclass=abc.ABCMeta):
    """Base of the tf.function objects: something with a ``function_type`` to call."""

    @property
    @abc.abstractmethod
    def function_type(self):
        """The FunctionType describing this callable."""

    def __call__(self, *args, **kwargs):
        """Executes this callable (implemented by the subclasses)."""


class AtomicFunction(Callable):
    """The smallest callable unit: one graph function called with captures."""

    def call_with_captures(self, args, kwargs, captures):
        """Calls with the captured values given explicitly."""


class ConcreteFunction(Callable):
    """One trace of a tf.function: a graph specialized to one input signature."""

    @property
    @abc.abstractmethod
    def inference_fn(self):
        """The AtomicFunction that runs the forward pass."""


class PolymorphicFunction(Callable):
    """What ``tf.function`` returns: traces a ConcreteFunction per input signature."""

    @abc.abstractmethod
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (or specs), traced if needed."""

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """The compiler IR of the function (not available here)."""
        raise NotImplementedError


class TracingContext(metaclass=abc.ABCMeta):
    """What ``__tf_tracing_type__`` receives: state shared while one call's arguments are
    typed."""


class InternalTracingContext(TracingContext):
    """The context tf.function passes (TF's defaults: no legacy signature)."""

    is_legacy_signature = False
    unnest_only = False


class PlaceholderContext:
    """What ``TraceType.placeholder_value`` receives (the graph being traced, the input's
    name, when tf.function builds placeholders)."""

    def __init__(self, graph=None, name=None):
        self.graph, self.name = graph, name


class CastContext:
    """What ``TraceType.cast`` receives."""


class TraceType(metaclass=abc.ABCMeta):
    """The type of a tf.function argument, for matching calls to traces (TF's protocol)."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """True if a value of this type may be passed where ``other`` was traced."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type all of ``self`` and ``others`` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value the traced function receives for an argument of this type."""

    def to_tensors(self, value):
        """The tensors a value of this type feeds to the graph (none by default)."""
        del value
        return []

    def from_tensors(self, tensors):
        """A value of this type from the tensors ``to_tensors`` gives."""
        del tensors
        return self.placeholder_value(PlaceholderContext())

    def flatten(self):
        """The TensorSpecs of the tensors ``to_tensors`` gives."""
        return []

    def cast(self, value, cast_context):
        """``value`` as this type (by default it must equal the placeholder value)."""
        del cast_context
        assert value == self.placeholder_value(PlaceholderContext()), \
            f"Can not cast {value!r} to type {self!r}"
        return value

    @abc.abstractmethod
    def __hash__(self):
        pass

    @abc.abstractmethod
    def __eq__(self, other):
        pass


@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """A protocol allowing custom classes to control tf.function retracing."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context):
        """The TraceType of this object."""


TensorLike = typing.Union[Tensor, int, float, bool, str, bytes, complex, tuple, list,
                          np.ndarray, np.generic]

# TF's specs are trace types
TraceType.register(TensorSpec)
TraceType.register(TypeSpec)

for _name, _value in (("FunctionType", FunctionType), ("Callable", Callable),
                      ("AtomicFunction", AtomicFunction), ("ConcreteFunction", ConcreteFunction),
                      ("PolymorphicFunction", PolymorphicFunction), ("TraceType", TraceType),
                      ("SupportsTracingProtocol", SupportsTracingProtocol),
                      ("TensorLike", TensorLike)):
    export_value(_value, f"types.experimental.{_name}")
export_value(PolymorphicFunction, "types.experimental.GenericFunction")
