"""Elementwise math ops, their public functions, and the Python operators on tensors."""

from . import (  # noqa: F401  (registers the ops)
    arithmetic,
    casting,
    clip,
    compare,
    complex_numbers,
    operands,
    operators,
    select,
    special,
    transcendental,
)
