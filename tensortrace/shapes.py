"""TensorShape: a possibly partial shape (unknown rank, or unknown dimensions as None).

    >>> TensorShape([None, 3]).most_specific_compatible_shape(TensorShape([2, 3]))
    TensorShape([None, 3])
"""

from ._export import tf_export


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a TF1-style Dimension
        return d.value
    try:
        d = int(d.__index__()) if not isinstance(d, int) else int(d)
    except (AttributeError, TypeError):
        raise TypeError(f"Dimension value must be integer or None or have an __index__ method, "
                        f"got value '{d!r}' with type '{type(d)}'") from None
    if d < 0:
        raise ValueError(f"Dimension {d} must be >= 0")
    return d


class TensorShape:
    """The static shape of a tensor: ``dims`` is a tuple of int-or-None, or None (unknown rank)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, (list, tuple)):
            self._dims = tuple(_dim(d) for d in dims)
        elif hasattr(dims, "__iter__") and not isinstance(dims, (str, bytes)):
            self._dims = tuple(_dim(d) for d in dims)
        else:
            self._dims = (_dim(dims),)

    @classmethod
    def _from_tuple(cls, dims):
        """Fast constructor for a tuple of valid ints (the eager hot path)."""
        s = object.__new__(cls)
        s._dims = dims
        return s

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def is_subtype_of(self, other):
        """True if every shape this one admits is admitted by ``other`` (the more general)."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other):
        """The most specific shape that both ``self`` and ``other`` are compatible with."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(shape):
    """``shape`` as a TensorShape (TensorShape, list, tuple, None or an int)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    return TensorShape(None if rank is None else [None] * rank)


@tf_export("compat.dimension_value")
def dimension_value(dimension):
    """A dimension as an int or None (TF 2's shapes already hold plain ints)."""
    return getattr(dimension, "value", dimension)


@tf_export("compat.dimension_at_index")
def dimension_at_index(shape, index):
    """Dimension ``index`` of ``shape`` (None when the rank or the dimension is unknown)."""
    shape = as_shape(shape)
    return None if shape.rank is None else shape.dims[index]


def shape_attr(shape):
    """A shape as an op attr or a key: a tuple of int-or-None, or None for an unknown rank."""
    shape = as_shape(shape)
    return None if shape.rank is None else tuple(shape.dims)
