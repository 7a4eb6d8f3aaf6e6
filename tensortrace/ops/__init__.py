"""Op definitions by family. Importing this package registers every op."""

from . import (  # noqa: F401  # noqa: F401  # noqa: F401
    array,
    control_flow,
    core,
    debugging,
    functional,
    indexing,
    internal,
    io,
    linalg,
    math,
    nn,
    random,
    reduce,
    state,
    strings,
    tensor_array,
    utility,
)
