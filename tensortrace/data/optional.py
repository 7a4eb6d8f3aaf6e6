"""``tf.experimental.Optional``: a value that may be missing, as a composite tensor of one
``variant`` component (TF's OptionalVariant), so it passes through ``tf.nest``
(``expand_composites``), in and out of ``tf.function``s, as ``tf.cond`` branch outputs and
``tf.while_loop`` variables, and in datasets; ``OptionalSpec`` is its type.

    opt = iterator.get_next_as_optional()
    tf.while_loop(lambda o: o.has_value(), lambda o: [iterator.get_next_as_optional()], [opt])
"""

from .. import dtypes as D
from .._export import tf_export
from .._logging import logger
from ..composite import CompositeTensor, TypeSpec
from ..context import bind, state
from ..registry import define_op, never_static
from ..tensor import EagerTensor, TensorSpec
from ..autodiff.grad_util import not_differentiable
from . import ops, structure

_VARIANT = TensorSpec((), D.variant)


@define_op("OptionalFromValue", static=never_static)
class OptionalFromValue:
    """An optional holding the components."""

    def infer(*components):
        return _VARIANT

    def kernel(*components):
        return ops.OptionalValue(tuple(components))


@define_op("OptionalNone", static=never_static)
class OptionalNone:
    """An optional holding nothing."""

    def infer():
        return _VARIANT

    def kernel():
        return ops.OptionalValue(None)


not_differentiable("OptionalFromValue", "OptionalNone")


def _attrs(spec):
    return {"output_types": structure.dtypes_of(spec),
            "output_shapes": structure.shapes_of(spec)}


def _variant(t):
    """The variant component as an eager handle (a function's result comes back wrapped as a
    plain eager tensor)."""
    if isinstance(t, EagerTensor) and not isinstance(t, ops.Handle):
        return ops.handle(t._value)
    return t


@tf_export("experimental.Optional")
class Optional(CompositeTensor):
    """A value that may be missing (TF's ``tf.experimental.Optional``).

    Build one with ``from_value`` or ``empty``, or from an iterator's
    ``get_next_as_optional()``.
    """

    __slots__ = ("_variant_tensor", "_element_spec")

    @staticmethod
    def empty(element_spec):
        """An Optional holding no value, of elements described by ``element_spec``."""
        variant = ops.handle(ops.OptionalValue(None)) if state.graph is None else \
            bind(OptionalNone)
        return _OptionalImpl(variant, element_spec)

    @staticmethod
    def from_value(value):
        """An Optional holding ``value`` (a structure of tensors and composites)."""
        value = structure.normalize(value)
        spec = structure.spec_of(value)
        flat = structure.flatten(value)
        if state.graph is None and all(isinstance(t, EagerTensor) for t in flat):
            variant = ops.handle(ops.OptionalValue(tuple(t._value for t in flat)))
        else:
            variant = bind(OptionalFromValue, *flat)
        return _OptionalImpl(variant, spec)

    @property
    def element_spec(self):
        """The structure of TypeSpecs of the value, when there is one."""
        return self._element_spec

    def has_value(self, name=None):
        """A scalar bool tensor: True when the Optional holds a value."""
        return bind(ops.HAS_VALUE, self._variant_tensor)

    def get_value(self, name=None):
        """The value; InvalidArgumentError (when run) for an empty Optional."""
        spec = self._element_spec
        out = bind(ops.GET_VALUE, self._variant_tensor, **_attrs(spec))
        flat = out if type(out) is tuple else (out,)
        if state.graph is None:
            return structure.wrap_element(spec, tuple(t._value for t in flat))
        return flat[0] if structure.is_single(spec) else structure.pack(spec, flat)

    @property
    def _type_spec(self):
        return OptionalSpec(self._element_spec)

    def _shape_invariant_to_type_spec(self, shape):
        return self._type_spec


class _OptionalImpl(Optional):
    """The Optional a program gets (TF's class of that name)."""

    __slots__ = ()

    def __init__(self, variant, element_spec):
        self._variant_tensor = _variant(variant)
        self._element_spec = element_spec


@tf_export("OptionalSpec")
class OptionalSpec(TypeSpec):
    """The type of an Optional: the structure of its value's specs."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return _OptionalImpl

    def _serialize(self):
        return (self._element_spec,)

    @property
    def _component_specs(self):
        return [_VARIANT]

    def _to_components(self, value):
        return [value._variant_tensor]

    def _from_components(self, components):
        return _OptionalImpl(components[0], self._element_spec)

    def _grad_components(self, value):
        return []  # no gradient passes through an Optional (its ops have none, as in TF)

    def _from_grad_components(self, value, grads):
        return None

    def __repr__(self):  # TF prints the serialization tuple
        return f"OptionalSpec({self._element_spec!r},)"

    @staticmethod
    def from_value(value):
        """The spec of the Optional ``value``."""
        return OptionalSpec(value.element_spec)


def get_next_as_optional(iterator):
    """Deprecated (TF): ``iterator.get_next_as_optional()``, with TF's deprecation warning."""
    logger.warning("get_next_as_optional (from tensorflow.python.data.ops.iterator_ops) is "
                   "deprecated and will be removed in a future version.\nInstructions for "
                   "updating:\nUse `tf.data.Iterator.get_next_as_optional()` instead.")
    return iterator.get_next_as_optional()


def from_iterator(variant, spec):
    """The Optional an IteratorGetNextAsOptional op (or an eager fetch) made."""
    return _OptionalImpl(variant, spec)
