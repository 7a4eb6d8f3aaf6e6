"""Linear algebra ops: importing this package registers them all."""

from .decompositions import dims_text, dtypes_named, matmul, node_error, norm, static_attr, \
    via_float32  # noqa: F401  (nn and utility import these from here)
