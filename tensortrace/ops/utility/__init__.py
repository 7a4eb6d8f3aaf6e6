"""Everyday utilities: tensor checks, ensure_shape, timestamp, bitcast, norm clipping, counting
and repeating, and small composites of public ops."""

# Re-exports of the old module's names, until their users import them where they now live: the
# graph plumbing went to ops.core, the tf.config switches to config, confusion_matrix (built on
# the asserts) to ops.debugging.
from ...config import (  # noqa: F401
    get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads,
    get_soft_device_placement,
    set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads,
    set_soft_device_placement,
)
from ..core import control_dependencies, group, init_scope, no_op  # noqa: F401
from ..debugging import confusion_matrix  # noqa: F401
from . import basic, clipping, composites, counting  # noqa: F401
from .basic import (  # noqa: F401
    bitcast,
    device,
    ensure_shape,
    get_logger,
    get_static_value,
    is_tensor,
    timestamp,
)
from .clipping import (  # noqa: F401
    clip_by_global_norm,
    clip_by_norm,
    embedding_lookup,
    global_norm,
)
from .composites import matvec  # noqa: F401
from .counting import bincount, repeat  # noqa: F401
