"""Shape and array ops, one module per job; importing the package registers them all."""

from . import (  # noqa: F401  (registers the ops)
    broadcasting,
    creation,
    joining,
    padding,
    passthrough,
    ranges,
    reshaping,
    sequences,
    shapes,
)
