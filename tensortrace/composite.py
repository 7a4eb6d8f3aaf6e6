"""Composite tensors: values made of several tensors (ragged, sparse), described by a ``TypeSpec``.

A ``TypeSpec`` says how a value splits into component tensors (``_to_components``) and is rebuilt
from them (``_from_components``). ``tf.nest`` (``expand_composites=True``), ``tf.function``
(a spec is the argument's trace type; results are rebuilt from their components on each call),
``tf.data`` and ``GradientTape`` work on the components, so each composite type only describes
itself here.
"""

import numpy as np

from . import dtypes as _dtypes
from . import registry as _registry
from . import tensor as _tensor
from ._export import tf_export
from .shapes import TensorShape
from .tensor import EagerTensor, Tensor, TensorSpec


class CompositeTensor:
    """A value made of component tensors; its ``_type_spec`` says how."""

    __slots__ = ()

    @property
    def _type_spec(self):
        raise NotImplementedError(f"{type(self).__name__}._type_spec")

    def _shape_invariant_to_type_spec(self, shape):
        raise NotImplementedError(f"{type(self).__name__}._shape_invariant_to_type_spec")

    def _consumers(self):
        return []

    def __tf_tracing_type__(self, context):
        """A composite argument of a tf.function is traced by its spec."""
        return self._type_spec


def _is_shape(x):
    return isinstance(x, TensorShape)


def _compatible(a, b):
    """Serialized spec fields compatible with each other (shapes loosely, the rest exactly)."""
    if _is_shape(a) and _is_shape(b):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_compatible_with(b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _subtype(a, b):
    if _is_shape(a) and _is_shape(b):
        return a.is_subtype_of(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_subtype_of(b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_subtype(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


_NO_SUPERTYPE = object()


def _supertype(a, b):
    if _is_shape(a) and _is_shape(b):
        return a.most_specific_compatible_shape(b) if a.rank == b.rank else TensorShape(None)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        found = a.most_specific_common_supertype([b])
        return _NO_SUPERTYPE if found is None else found
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        parts = [_supertype(x, y) for x, y in zip(a, b)]
        return _NO_SUPERTYPE if any(p is _NO_SUPERTYPE for p in parts) else type(a)(parts)
    return a if type(a) is type(b) and a == b else _NO_SUPERTYPE


def _hashable(x):
    if isinstance(x, list):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, tuple):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    return x


class _TypeSpecMeta(type):
    """TF's TensorSpec is a TypeSpec: ``isinstance(tf.TensorSpec(...), tf.TypeSpec)`` holds."""

    def __instancecheck__(cls, instance):
        return type.__instancecheck__(cls, instance) or (
            cls is TypeSpec and isinstance(instance, TensorSpec))

    def __subclasscheck__(cls, subclass):
        return type.__subclasscheck__(cls, subclass) or (
            cls is TypeSpec and issubclass(subclass, TensorSpec))


@tf_export("TypeSpec")
class TypeSpec(metaclass=_TypeSpecMeta):
    """Describes a kind of value (TF's ``tf.TypeSpec``): a subclass gives ``value_type``,
    ``_component_specs``, ``_to_components``, ``_from_components`` and ``_serialize`` (the
    constructor arguments, which also decide equality, hashing and printing)."""

    __slots__ = ("__weakref__",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        package = cls.__module__.split(".")[1] if cls.__module__.count(".") >= 1 else ""
        cls._spec_package = package  # kept: the runner may give the class TF's module path
        SPEC_CLASSES[(package, cls.__name__)] = cls

    # --- what a subclass defines ------------------------------------------------------------
    @property
    def value_type(self):
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    @property
    def _component_specs(self):
        raise NotImplementedError(f"{type(self).__name__}._component_specs")

    def _to_components(self, value):
        raise NotImplementedError(f"{type(self).__name__}._to_components")

    def _from_components(self, components):
        raise NotImplementedError(f"{type(self).__name__}._from_components")

    def _serialize(self):
        raise NotImplementedError(f"{type(self).__name__}._serialize")

    @classmethod
    def _deserialize(cls, serialization):
        return cls(*serialization)

    # --- gradients: which components carry them (all, unless a subclass says otherwise) -----
    def _grad_components(self, value):
        return flat_components(value)

    def _from_grad_components(self, value, grads):
        """``value``'s gradient from its components' ones (None when none has one)."""
        if all(g is None for g in grads):
            return None
        return self._from_flat([g if g is not None else c
                                for g, c in zip(grads, flat_components(value))])

    # --- derived ------------------------------------------------------------------------------
    @property
    def _flat_tensor_specs(self):
        """The TensorSpecs of the flat components (nested composites expanded)."""
        out = []
        for spec in self._component_specs:
            if isinstance(spec, TypeSpec) and not isinstance(spec, TensorSpec):
                out.extend(spec._flat_tensor_specs)
            else:
                out.append(spec)
        return out

    def _to_tensor_list(self, value):
        return flat_components(value)

    def _from_tensor_list(self, tensors):
        return self._from_flat(list(tensors))

    def _from_flat(self, flat):
        """Rebuild a value from its flat components (as ``_flat_tensor_specs`` lists them)."""
        parts, i = [], 0
        for spec in self._component_specs:
            if isinstance(spec, TypeSpec) and not isinstance(spec, TensorSpec):
                n = len(spec._flat_tensor_specs)
                parts.append(spec._from_flat(flat[i:i + n]))
                i += n
            else:
                parts.append(flat[i])
                i += 1
        return self._from_components(parts)

    def flatten(self):
        return list(self._flat_tensor_specs)

    def from_tensors(self, tensors):
        return self._from_flat(list(tensors))

    def is_compatible_with(self, spec_or_value):
        """True if ``spec_or_value`` (a spec or a value) could be described by this spec."""
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            try:
                other = type_spec_from_value(other)
            except TypeError:
                return False
        return type(other) is type(self) and _compatible(self._serialize(), other._serialize())

    def is_subtype_of(self, other):
        return type(other) is type(self) and _subtype(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others):
        """The most specific spec ``self`` and every one of ``others`` are subtypes of, or
        None."""
        fields = self._serialize()
        for o in others:
            if type(o) is not type(self):
                return None
            fields = _supertype(fields, o._serialize())
            if fields is _NO_SUPERTYPE:
                return None
        return self._deserialize(fields)

    def most_specific_compatible_type(self, other):
        found = self.most_specific_common_supertype([other])
        if found is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return found

    # --- the trace-type protocol of tracing.signature -------------------------------------
    def placeholder_value(self, context):
        """The value a traced function receives: built from one placeholder per component."""
        return self._from_flat([context.graph.placeholder(s, context.name)
                                for s in self._flat_tensor_specs])

    def to_tensors(self, value):
        """What a call feeds to this spec's placeholders: the flat components."""
        return flat_components(value)

    def __tf_tracing_type__(self, context):
        return self

    # --- value semantics ----------------------------------------------------------------------
    def __eq__(self, other):
        return type(other) is type(self) and self._serialize() == other._serialize()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, _hashable(self._serialize())))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(map(repr, self._serialize()))})"

    def __reduce__(self):
        return self._deserialize, (self._serialize(),)


def flat_components(value):
    """The flat component tensors of a composite value (nested composites expanded)."""
    out = []
    for c in value._type_spec._to_components(value):
        if isinstance(c, CompositeTensor):
            out.extend(flat_components(c))
        else:
            out.append(c)
    return out


def is_composite(value):
    return isinstance(value, CompositeTensor)


def type_spec_from_value(value):
    """The spec of ``value``: a composite's ``_type_spec``, a TensorSpec for tensors and NumPy
    values.

    Raises:
        TypeError: for a value no spec describes.
    """
    if isinstance(value, CompositeTensor):
        return value._type_spec
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        return TensorSpec(value.shape, _dtypes.from_numpy(value.dtype))
    if isinstance(value, TypeSpec):
        return value
    try:  # what TF converts to a tensor (Python lists and numbers)
        converted = _tensor.convert(value)
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        converted = None  # NotImplementedError: nothing converts before convert is loaded
    if isinstance(converted, Tensor):
        return TensorSpec(converted.shape, converted.dtype)
    try:
        text = repr(value)
    except RecursionError:
        text = object.__repr__(value)
    raise TypeError(f"Could not build a TypeSpec for {text} of unsupported type "
                    f"{type(value)}.")


def eager(value):
    """True if every component of a composite value is an eager tensor."""
    return all(isinstance(c, EagerTensor) for c in flat_components(value))


# --- ops on composite arguments -------------------------------------------------------------
#: public op function -> handler(*args, **kwargs) for calls with a composite argument; filled
#: by the composite types' packages when they load (ragged registers tf.concat's ragged form).
OVERRIDES = {}
#: handlers(fn, args, kwargs) of elementwise op functions (one per composite package); each
#: returns NotImplemented for arguments it does not handle.
ELEMENTWISE = []


def _has_composite(args, kwargs):
    for a in args:
        if isinstance(a, CompositeTensor) or (
                isinstance(a, (list, tuple)) and any(isinstance(x, CompositeTensor) for x in a)):
            return True
    return any(isinstance(v, CompositeTensor) for v in kwargs.values())


def fallback(fn, args, kwargs, elementwise=False):
    """The call ``fn(*args, **kwargs)`` for composite arguments, from the ``except`` block of an
    op function whose argument conversion failed: the plain-tensor path pays nothing. Without a
    composite argument or a handler, the conversion error being handled propagates."""
    if _has_composite(args, kwargs):
        handler = OVERRIDES.get(fn)
        if handler is not None:
            return handler(*args, **kwargs)
        if elementwise:
            for handler in ELEMENTWISE:
                out = handler(fn, args, kwargs)
                if out is not NotImplemented:
                    return out
    raise  # noqa: PLE0704 - re-raises the conversion error the caller is handling


#: composite classes by name ("ragged": RaggedTensor), registered by their packages; ops below
#: their layer build composite results through ``composite_class`` (which loads the package).
CLASSES = {}


def composite_class(name):
    """The composite class registered as ``name``, loading its package on first use."""
    cls = CLASSES.get(name)
    if cls is None and _registry._loader is not None:
        _registry._loader("composite", name)
        cls = CLASSES.get(name)
    if cls is None:
        raise NotImplementedError(f"composite type {name!r} is not available")
    return cls


def map_values(fn, value, **kwargs):
    """``fn(value, **kwargs)`` for a composite ``value``, through the elementwise handlers (ops
    on one value whose argument conversion would fail call this first)."""
    for handler in ELEMENTWISE:
        out = handler(fn, (value,), kwargs)
        if out is not NotImplemented:
            return out
    raise TypeError(f"{getattr(fn, '__name__', fn)} does not support {type(value).__name__}")



#: (package, class name) -> TypeSpec subclass, for formats that save specs by name
SPEC_CLASSES = {}
#: the packages that define composite types (the only ones a saved name may load)
PACKAGES = ("ragged", "sparse")


def spec_class(package, name):
    """The TypeSpec subclass saved as ``(package, name)``, loading its package on first use;
    None for an unknown one."""
    cls = SPEC_CLASSES.get((package, name))
    if cls is None and package in PACKAGES and _registry._loader is not None:
        _registry._loader("composite", package)
        cls = SPEC_CLASSES.get((package, name))
    return cls


def spec_key(spec):
    """``(package, class name)`` of a TypeSpec, as ``spec_class`` finds it again."""
    cls = type(spec)
    return (cls._spec_package, cls.__name__)


def fallback_call(fn, args, kwargs):
    """``OVERRIDES[fn](*args, **kwargs)``: an op function given a composite argument it tests
    for directly (a DynamicRaggedShape as a shape)."""
    handler = OVERRIDES.get(fn)
    if handler is None:
        raise TypeError(f"{getattr(fn, '__name__', fn)} does not support "
                        f"{', '.join(type(a).__name__ for a in args)}")
    return handler(*args, **kwargs)


@tf_export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """The type of None where tf.data takes it as an element's component (TF's
    ``NoneTensorSpec``): no component tensors; the value rebuilt is None."""

    __slots__ = ()

    @property
    def value_type(self):
        return type(None)

    @property
    def _component_specs(self):
        return []

    def _to_components(self, value):
        return []

    def _from_components(self, components):
        return None

    def _serialize(self):
        return ()

    def _batch(self, batch_size):
        return self

    def _unbatch(self):
        return self
