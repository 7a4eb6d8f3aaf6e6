"""Linear algebra ops: importing this package registers them all."""

# nn imports these from here until its own split points it at the shared helpers
# (messages.shape_text, _base.dtypes_named, messages.node_error)
from ...messages import shape_text as dims_text  # noqa: F401
from . import composites, decompositions, diagonals, norms, products  # noqa: F401
from ._util import dtypes_named, static_attr, via_float32  # noqa: F401  # noqa: F401
from ._util import shape_fn_error as node_error
from .norms import norm  # noqa: F401  (utility imports these two from here)
from .products import matmul  # noqa: F401
