"""What the nn ops share: TF's dtype list of its float ops, and half precision computed in
float32."""

import numpy as np

from .._base import dtypes_named

# TF's OpDef order for the float ops (its messages list the allowed dtypes in this order).
HALF_T = dtypes_named("float16 bfloat16 float32 float64")


def in_float32(x):
    """Half-precision losses and moments are computed in float32 and rounded back, as TF does."""
    return x.astype(np.float32) if x.dtype.itemsize == 2 else x
