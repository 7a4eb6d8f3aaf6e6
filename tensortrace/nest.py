"""``tf.nest``: flatten and rebuild nested structures (lists, tuples, namedtuples, dicts).

    >>> flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]

Dicts flatten in sorted-key order, as in TensorFlow.
"""

import collections

from .composite import CompositeTensor, TypeSpec
from .tensor import Tensor, TensorSpec


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x, key=_sort_key)]
    return list(x)


def _sort_key(k):
    return (str(type(k)), k) if not isinstance(k, (int, float, str)) else (type(k).__name__, k)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (a leaf is anything not a list/tuple/dict; with
    ``expand_composites``, composite tensors and their specs give their components)."""
    out = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(x, out, expand=False):
    if isinstance(x, (list, tuple, dict)):
        for c in _children(x):
            _flatten_into(c, out, expand)
    elif expand and _expandable(x):
        for c in _components(x):
            _flatten_into(c, out, True)
    else:
        out.append(x)


def _expandable(x):
    """A composite value, or the spec of one (TensorSpecs are leaves)."""
    return isinstance(x, CompositeTensor) or (isinstance(x, TypeSpec)
                                              and not isinstance(x, TensorSpec))


def _components(x):
    if isinstance(x, CompositeTensor):
        return list(x._type_spec._to_components(x))
    return list(x._component_specs)


def _spec(x):
    return x._type_spec if isinstance(x, CompositeTensor) else x


def _rebuild(template, children):
    if isinstance(template, dict):  # children come in sorted-key order; keep the dict's order
        by_key = dict(zip(sorted(template, key=_sort_key), children))
        if isinstance(template, collections.defaultdict):
            out = collections.defaultdict(template.default_factory)
            out.update((k, by_key[k]) for k in template)
            return out
        return type(template)((k, by_key[k]) for k in template)
    if hasattr(template, "_fields"):
        return type(template)(*children)
    return type(template)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Rebuild ``structure`` with its leaves replaced, in order, by ``flat_sequence``.

    Raises:
        ValueError: if the number of leaves differs.
    """
    flat = list(flat_sequence)
    if expand_composites:
        return _pack_expanded(structure, flat, flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map one "
                             f"to the other.")
        return flat[0]
    count = len(flatten(structure))
    if count != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but "
                         f"flat_sequence had {len(flat)} items.  Structure: {structure}, "
                         f"flat_sequence: {flat_sequence}.")
    it = iter(flat)

    def build(x):
        if isinstance(x, (list, tuple, dict)):
            return _rebuild(x, [build(c) for c in _children(x)])
        return next(it)

    return build(structure)


def _pack_expanded(structure, flat, flat_sequence):
    """pack_sequence_as with composites (and specs) rebuilt from their components."""
    count = len(flatten(structure, True))
    if count != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but "
                         f"flat_sequence had {len(flat)} items.  Structure: {structure}, "
                         f"flat_sequence: {flat_sequence}.")
    it = iter(flat)

    def build(x):
        if isinstance(x, (list, tuple, dict)):
            return _rebuild(x, [build(c) for c in _children(x)])
        if _expandable(x):
            return _spec(x)._from_components([build(c) for c in _components(x)])
        return next(it)

    return build(structure)


def map_structure(func, *structures, **kwargs):
    """Apply ``func`` leafwise across structures of the same shape."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(kwargs)}`")
    for s in structures[1:]:
        assert_same_structure(structures[0], s, check_types=check_types,
                              expand_composites=expand)
    flats = [flatten(s, expand) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)],
                            expand_composites=expand)


class _Dot:
    def __repr__(self):
        return "."


_DOT = _Dot()


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def _same_sequence_type(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return True  # TF: any two mappings
    return type(a) is type(b)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError (or TypeError for differing types) unless the structures match, with
    TF's message."""

    def fail(error, detail):
        dots = [map_structure(lambda _: _DOT, n) if is_nested(n) else "." for n in (nest1, nest2)]
        raise error(f"The two structures don't have the same nested structure.\n\n"
                    f"First structure: {_describe(nest1)}\n\nSecond structure: "
                    f"{_describe(nest2)}\n\nMore specifically: {detail}\n"
                    f"Entire first structure:\n{dots[0]}\nEntire second structure:\n{dots[1]}")

    def walk(a, b):
        if is_nested(a) != is_nested(b):
            seq, other = (a, b) if is_nested(a) else (b, a)
            fail(ValueError, f'Substructure "{_describe(seq)}" is a sequence, while substructure '
                             f'"{_describe(other)}" is not')
        if not is_nested(a):
            if expand_composites and (_expandable(a) or _expandable(b)):
                _composites_alike(a, b, fail)
            return
        if check_types and not _same_sequence_type(a, b):
            fail(TypeError, f"The two namedtuples don't have the same sequence type. First "
                            f"structure {_describe(a)} has type {type(a).__name__}, while second "
                            f"structure {_describe(b)} has type {type(b).__name__}")
        if isinstance(a, dict) and isinstance(b, dict) and set(a) != set(b):
            fail(ValueError, f"The two dictionaries don't have the same set of keys. First "
                             f"structure has keys {_describe(list(a))}, while second structure "
                             f"has keys {_describe(list(b))}")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            fail(ValueError, f"The two structures don't have the same number of elements. First "
                             f"structure: {_describe(a)}. Second structure: {_describe(b)}")
        for x, y in zip(ca, cb):
            walk(x, y)

    walk(nest1, nest2)


def _composites_alike(a, b, fail):
    """Composites (or their specs) match if their specs are compatible, as in TF."""
    sa = _spec(a) if _expandable(a) else None
    sb = _spec(b) if _expandable(b) else None
    if sa is None or sb is None or type(sa) is not type(sb) or not (
            sa.is_compatible_with(sb) or sa.most_specific_common_supertype([sb])):
        fail(ValueError, f"Incompatible CompositeTensor TypeSpecs: {sa if sa else a}, "
                         f"{sb if sb else b}")


def contains_tensor(structure):
    return any(isinstance(x, Tensor) for x in flatten(structure))
