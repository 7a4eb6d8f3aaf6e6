"""Element structures of tf.data: tuples, dicts and namedtuples of tensors, with tf.data's rules
(a list is one tensor, not a structure) and flat component lists in ``tf.nest`` order. A
composite leaf (a RaggedTensor, or its spec) flattens into its component tensors and is rebuilt
from them; ``map_structure`` and the spec helpers treat it as one leaf."""

import collections

import numpy as np

from .. import dtypes as D
from .. import nest
from ..composite import CompositeTensor, NoneTensorSpec, TypeSpec, flat_components
from ..convert import convert_to_tensor
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor, TensorSpec
from ..tracing import signature

_wrap = EagerTensor._wrap


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_structure(x):
    """True for the containers tf.data treats as structure (tuples, namedtuples, dicts)."""
    return isinstance(x, (tuple, dict))


def _sorted_keys(d):
    return sorted(d, key=nest._sort_key)


def is_composite_spec(x):
    return isinstance(x, TypeSpec) and not isinstance(x, TensorSpec)


def _leaves(structure, components):
    out = []

    def walk(x):
        if isinstance(x, dict):
            for k in _sorted_keys(x):
                walk(x[k])
        elif isinstance(x, tuple):
            for c in x:
                walk(c)
        elif components and isinstance(x, CompositeTensor):
            out.extend(flat_components(x))
        elif components and x is None:  # a None component: no tensors (NoneTensorSpec)
            pass
        elif components and is_composite_spec(x):
            out.extend(x._flat_tensor_specs)
        else:
            out.append(x)

    walk(structure)
    return out


def flatten(structure):
    """The flat components in ``tf.nest`` order (dicts by sorted key); lists are leaves, and a
    composite leaf gives its component tensors (a composite spec its component specs)."""
    return _leaves(structure, True)


def leaves(structure):
    """The leaves in ``tf.nest`` order, composites (and their specs) as single leaves."""
    return _leaves(structure, False)


def _pack(structure, flat, components):
    it = iter(flat)

    def build(x):
        if isinstance(x, dict):
            made = {k: build(x[k]) for k in _sorted_keys(x)}
            return type(x)((k, made[k]) for k in x)
        if _is_namedtuple(x):
            return type(x)(*[build(c) for c in x])
        if isinstance(x, tuple):
            return tuple(build(c) for c in x)
        if components and x is None:
            return None
        if components and (is_composite_spec(x) or isinstance(x, CompositeTensor)):
            spec = x if is_composite_spec(x) else x._type_spec
            return spec._from_flat([next(it) for _ in spec._flat_tensor_specs])
        return next(it)

    return build(structure)


def pack(structure, flat):
    """``structure`` with its components replaced by ``flat`` (dicts keep their key order;
    composite leaves are rebuilt from their components)."""
    return _pack(structure, flat, True)


def same_structure(a, b):
    """True if ``a`` and ``b`` nest alike (same container types, lengths and keys)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and set(a) == set(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True


def map_structure(fn, structure):
    """``fn`` over the leaves (a composite or composite spec is one leaf)."""
    return _pack(structure, [fn(x) for x in leaves(structure)], False)


def normalize(value, name="component"):
    """A user structure with every leaf a tensor (lists and arrays become one tensor)."""
    def leaf(x):
        if isinstance(x, (Tensor, CompositeTensor)):
            return x
        if hasattr(x, "_as_graph_or_eager_tensor") or hasattr(x, "read_value"):
            return convert_to_tensor(x)
        if x is None:  # TF keeps it, of NoneTensorSpec
            return None
        if isinstance(x, TensorSpec):
            raise TypeError(f"Unsupported element of type {type(x).__name__}: {x!r}")
        return convert_to_tensor(x)

    return map_structure(leaf, value)


def spec_of(structure):
    """The spec structure describing a structure of tensors (and composites)."""
    return map_structure(lambda t: t._type_spec if isinstance(t, CompositeTensor)
                         else NoneTensorSpec() if t is None
                         else TensorSpec(t.shape, t.dtype), structure)


def is_single(spec):
    return isinstance(spec, TensorSpec)


def dtypes_of(spec):
    return tuple(s.dtype for s in flatten(spec))


def shapes_of(spec):
    """The flat shapes as op attrs: tuples of int/None, or None for an unknown rank."""
    return tuple(None if s.shape.rank is None else tuple(s.shape.dims) for s in flatten(spec))


def batched(spec, size):
    """``spec`` with a leading dimension of ``size`` (None for unknown)."""
    return map_structure(lambda s: _batchable(s)._batch(size) if is_composite_spec(s) else
                         TensorSpec(TensorShape([size]).concatenate(s.shape), s.dtype), spec)


def _batchable(spec):
    if not hasattr(spec, "_batch"):
        raise TypeError(f"{type(spec).__name__} does not support batching")
    return spec


def unbatched(spec):
    def one(s):
        if is_composite_spec(s):
            return _batchable(s)._unbatch()
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        if s.shape.rank is None:
            return TensorSpec(None, s.dtype)
        return TensorSpec(s.shape[1:], s.dtype)

    return map_structure(one, spec)


def relaxed(a, b):
    """The most specific spec structure compatible with both (same structure and dtypes)."""
    flat = [x.most_specific_common_supertype([y]) or x if is_composite_spec(x) else
            TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
            for x, y in zip(leaves(a), leaves(b))]
    return _pack(a, flat, False)


def is_subtype(spec, general):
    """Whether element spec ``spec`` fits the more general ``general`` (trace-type matching)."""
    if isinstance(general, dict):
        return (isinstance(spec, dict) and spec.keys() == general.keys()
                and all(is_subtype(spec[k], general[k]) for k in general))
    if isinstance(general, (list, tuple)):
        return (type(spec) is type(general) and len(spec) == len(general)
                and all(is_subtype(a, b) for a, b in zip(spec, general)))
    if isinstance(general, TensorSpec):
        return signature.is_subtype(spec, general)
    return spec == general


def structure_text(spec):
    """How TF prints an element_spec: ``(TensorSpec(...), TensorSpec(...))``, dicts in order."""
    if type(spec) is collections.OrderedDict:  # as Python prints one
        inner = ", ".join(f"({k!r}, {structure_text(v)})" for k, v in spec.items())
        return f"OrderedDict([{inner}])"
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {structure_text(v)}" for k, v in spec.items()) + "}"
    if _is_namedtuple(spec):
        inner = ", ".join(f"{f}={structure_text(v)}" for f, v in zip(spec._fields, spec))
        return f"{type(spec).__name__}({inner})"
    if isinstance(spec, tuple):
        inner = ", ".join(structure_text(v) for v in spec)
        return f"({inner},)" if len(spec) == 1 else f"({inner})"
    return repr(spec)


def row(arr, i):
    """Row ``i`` of a component: a NumPy scalar, or an array (0-d for strings, never bytes)."""
    return arr[i, ...] if arr.dtype == object else arr[i]


def composite_groups(spec):
    """``[(leaf spec, number of components)]`` for an element spec holding a composite leaf,
    else None (the plain path)."""
    found = leaves(spec)
    if not any(is_composite_spec(x) and type(x) is not NoneTensorSpec for x in found):
        return None  # (a None component has no tensors: the plain path skips it)
    return [(x, len(x._flat_tensor_specs) if is_composite_spec(x) else 1) for x in found]


def split_groups(groups, components):
    """Flat components regrouped per leaf: composite leaves as eager values."""
    out, i = [], 0
    for leaf, n in groups:
        part = components[i:i + n]
        i += n
        out.append(leaf._from_flat([_wrap(c) for c in part]) if is_composite_spec(leaf)
                   else part[0])
    return out


def composite_arrays(value):
    """The NumPy components of an eager composite value (or tensor)."""
    if isinstance(value, CompositeTensor):
        return [c._value for c in flat_components(value)]
    return [value._value if isinstance(value, Tensor) else value]


#: component spec type -> ``wrap(spec, value)`` for components that are not tensors (the
#: datasets of a window), registered by the module that makes them
ELEMENT_WRAPPERS = {}


def wrap_element(spec, components):
    """Eager tensors (or what ``ELEMENT_WRAPPERS`` makes) packed like ``spec`` from flat
    component values."""
    if type(spec) is TensorSpec:
        return _wrap(components[0])
    if ELEMENT_WRAPPERS:
        wrappers = [ELEMENT_WRAPPERS.get(type(s)) for s in flatten(spec)]
        if any(wrappers):
            return pack(spec, [w(s, c) if w else _wrap(c) for w, s, c in
                               zip(wrappers, flatten(spec), components)])
    return pack(spec, [_wrap(c) for c in components])


def zeros_value(dtype):
    """The default padding value of a dtype (0, False or b"")."""
    if dtype == D.string:
        return np.array(b"", dtype=object)
    return np.zeros((), dtype._np)
