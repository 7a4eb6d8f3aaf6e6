"""The lowering tables, one module per op family; importing this package fills
``compiler.LOWERINGS``."""

from . import array, control_flow, dynamic, indexing, math, nn, state  # noqa: F401 - each registers
