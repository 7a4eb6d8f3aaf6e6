"""What the nn ops share: TF's dtype list of its float ops, half precision computed in float32,
TF's graph-construction error naming a node with its attrs, and exporting a generated public
function."""

import numpy as np

from ... import messages
from .._base import dtypes_named

# TF's OpDef order for the float ops (its messages list the allowed dtypes in this order).
HALF_T = dtypes_named("float16 bfloat16 float32 float64")


def in_float32(x):
    """Half-precision losses and moments are computed in float32 and rounded back, as TF does."""
    return x.astype(np.float32) if x.dtype.itemsize == 2 else x


def _attr_text(value):
    """One of nn's attr values as TF prints it in a node: strings quoted, int lists [1, 2]."""
    return f'"{value}"' if isinstance(value, str) else f"[{', '.join(map(str, value))}]"


def node_error(op_name, message, dtype, attrs, inputs, names):
    """TF's ValueError from a shape function: the node with its ``T`` and ``attrs``, then the
    shapes of ``inputs`` (an unknown rank prints as ``?``, as in TF's node texts)."""
    attr_text = "".join(f", {k}={_attr_text(v)}" for k, v in attrs.items())
    shapes = ["?" if t.shape.rank is None else messages.shape_text(t.shape) for t in inputs]
    return messages.node_error(message, op_name, shapes, f"T=DT_{messages.enum_name(dtype)}"
                               f"{attr_text}", ", ".join(names[:len(inputs)]))
