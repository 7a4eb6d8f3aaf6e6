"""Shape and array ops, one module per job; importing the package registers them all."""

from ...messages import shape_text  # noqa: F401

# Names other modules import from ``ops.array`` (to be pointed at their submodules).
from .._args import axis_attr, int_attr, known_values, shape_values  # noqa: F401
from .._base import graph_error, kernel_out_type  # noqa: F401
from . import (  # noqa: F401  # noqa: F401
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
from ._legacy import public  # noqa: F401
from .broadcasting import (  # noqa: F401  # noqa: F401
    broadcast_dynamic_shape,
    broadcast_static_shape,
    broadcast_to,
    sum_to_shape,
)
from .creation import eye, fill, meshgrid, ones, ones_like, zeros, zeros_like  # noqa: F401
from .joining import concat, split, stack, unstack  # noqa: F401
from .padding import pad, tile  # noqa: F401
from .passthrough import identity, stop_gradient  # noqa: F401
from .ranges import linspace, one_hot, range  # noqa: F401
from .reshaping import expand_dims, reshape, squeeze, transpose  # noqa: F401
from .sequences import reverse, reverse_sequence, sequence_mask  # noqa: F401
from .shapes import rank, shape, shape_n, size  # noqa: F401
