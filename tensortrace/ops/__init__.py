"""Op definitions by family. Importing this package registers every op."""

from . import core, math, reduce, array, indexing, linalg, nn, random, strings  # noqa: F401
from . import state, io, control_flow, tensor_array, internal  # noqa: F401
from . import utility, debugging, functional  # noqa: F401
