"""Linear algebra ops: importing this package registers them all."""

from . import (  # noqa: F401  (registers the ops)
    composites,
    decompositions,
    diagonals,
    norms,
    products,
)
