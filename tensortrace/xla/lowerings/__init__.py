"""The lowering tables, one module per op family; importing this package fills
``compiler.LOWERINGS``."""

from . import array, control_flow, indexing, math, nn, state  # noqa: F401 - each registers
from . import dynamic  # noqa: F401, I001 - after them: it extends their Shape, Fill, ExpandDims ...
