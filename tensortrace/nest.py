"""``tf.nest``: flatten and rebuild nested structures (lists, tuples, namedtuples, dicts).

    >>> flatten({"b": [1, 2], "a": 3})
    [3, 1, 2]

Dicts flatten in sorted-key order, as in TensorFlow.
"""

from .tensor import Tensor


def is_nested(x):
    return isinstance(x, (list, tuple, dict))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x, key=_sort_key)]
    return list(x)


def _sort_key(k):
    return (str(type(k)), k) if not isinstance(k, (int, float, str)) else (type(k).__name__, k)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (a leaf is anything not a list/tuple/dict)."""
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if isinstance(x, (list, tuple, dict)):
        for c in _children(x):
            _flatten_into(c, out)
    else:
        out.append(x)


def _rebuild(template, children):
    if isinstance(template, dict):
        keys = sorted(template, key=_sort_key)
        return type(template)((k, c) for k, c in zip(keys, children)) if type(template) is not dict \
            else dict(zip(keys, children))
    if hasattr(template, "_fields"):
        return type(template)(*children)
    return type(template)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Rebuild ``structure`` with its leaves replaced, in order, by ``flat_sequence``.

    Raises:
        ValueError: if the number of leaves differs.
    """
    flat = list(flat_sequence)
    count = len(flatten(structure))
    if count != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {count} atoms, but "
                         f"flat_sequence had {len(flat)} items.")
    it = iter(flat)

    def build(x):
        if isinstance(x, (list, tuple, dict)):
            return _rebuild(x, [build(c) for c in _children(x)])
        return next(it)

    return build(structure)


def map_structure(func, *structures, **kwargs):
    """Apply ``func`` leafwise across structures of the same shape."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)])


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError (or TypeError for differing types) unless the structures match."""

    def walk(a, b):
        if is_nested(a) != is_nested(b):
            raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                             f"First structure: {nest1}\n\nSecond structure: {nest2}")
        if not is_nested(a):
            return
        if check_types and type(a) is not type(b):
            raise TypeError(f"The two structures don't have the same sequence type. Input "
                            f"structure has type {type(a)}, while shallow structure has type "
                            f"{type(b)}.")
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb) or (isinstance(a, dict) and set(a) != set(b)):
            raise ValueError(f"The two structures don't have the same number of elements.\n\n"
                             f"First structure: {nest1}\n\nSecond structure: {nest2}")
        for x, y in zip(ca, cb):
            walk(x, y)

    walk(nest1, nest2)


def contains_tensor(structure):
    return any(isinstance(x, Tensor) for x in flatten(structure))
