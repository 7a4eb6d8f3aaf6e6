"""Ops that grow a tensor at its edges or repeat it: tile, and pad's three ops (Pad with zeros,
PadV2 with a constant, MirrorPad mirroring the edges), which share one shape rule."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...composite import fallback
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, OpDef, define_op, register
from ...shapes import TensorShape
from ...tensor import TensorSpec, static_value
from ...messages import check_size
from .._args import int_input, shape_values
from .._base import INDEX, bounded_static, check_dtypes, check_index, graph_error


@bounded_static
@define_op("Tile")
class Tile:
    """Repeat a tensor ``multiples[i]`` times along each dimension i: output dim i is
    ``input.shape[i] * multiples[i]``."""

    def infer(input, multiples):
        check_index("Tile", multiples, "multiples")
        m = shape_values(multiples)
        rank = input.shape.rank
        if rank is not None and m is not None and len(m) != rank:
            raise graph_error("Tile", f"Shape must be rank {rank} but is rank {len(m)}",
                              input.shape, multiples.shape)
        if rank is None:
            return TensorSpec(TensorShape(None) if m is None else [None] * len(m), input.dtype)
        m = m or [None] * rank
        dims = [None if d is None or k is None else d * k for d, k in zip(input.shape.dims, m)]
        return TensorSpec(dims, input.dtype)

    def kernel(input, multiples):
        m = np.reshape(multiples, -1).tolist()
        if len(m) != np.ndim(input):
            raise invalid_argument(f"Expected multiples argument to be a vector of length "
                                   f"{np.ndim(input)} but got length {len(m)}")
        for i, k in enumerate(m):
            if k < 0:
                raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {k}")
        check_size([d * k for d, k in zip(np.shape(input), m)], input.dtype, product=True)
        return np.tile(input, m)

    check = DtypeCheck("Tile", INDEX, 1, first=1, attr="Tmultiples")


@tf_export("tile")
def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[i]`` times along dimension i."""
    try:
        x = convert_to_tensor(input)
    except (TypeError, ValueError):  # a composite (ragged) has its own form
        return fallback(tile, (input, multiples), {})
    return bind(Tile, x, int_input(multiples, hint=D.int32))


# --- Pad / PadV2 / MirrorPad -------------------------------------------------------------------
def _pad_infer(op):
    def infer(input, paddings, *constant_values, **attrs):
        check_index(op, paddings, "paddings")
        if constant_values:
            check_dtypes(op, (input, constant_values[0]), None, ("input", "constant_values"))
        rows = paddings.shape[0] if paddings.shape.rank else None
        rank = input.shape.rank
        if rank is not None and rows is not None and rows != rank:
            raise graph_error(op, f"Shape must be rank {rows} but is rank {rank}", input.shape,
                              paddings.shape)
        rank = rank if rank is not None else rows
        if rank is None:
            return TensorSpec(TensorShape(None), input.dtype)
        p = static_value(paddings)
        dims = input.shape.dims or [None] * rank
        if p is None:
            return TensorSpec([None] * rank, input.dtype)
        if np.shape(p) != (rank, 2):  # the kernel's error when it runs
            return TensorSpec([None] * rank, input.dtype)
        p = p.tolist()
        return TensorSpec([None if d is None else d + a + b for d, (a, b) in zip(dims, p)],
                          input.dtype)

    return infer


def _checked_paddings(x, paddings):
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[0] != np.ndim(x) or p.shape[1] != 2:
        raise invalid_argument(f"The first dimension of paddings must be the rank of inputs"
                               f"{shape_text(p.shape)} {shape_text(np.shape(x))}")
    p = p.tolist()
    for a, b in p:
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    return p


def _constant_pad(x, paddings, value):
    p = _checked_paddings(x, paddings)
    shape = np.shape(x)
    out = np.full([d + a + b for d, (a, b) in zip(shape, p)], value, dtype=x.dtype)
    out[tuple(slice(a, a + d) for d, (a, _) in zip(shape, p))] = x
    return out


def _zero_pad(input, paddings):
    return _constant_pad(input, paddings, b"" if input.dtype == object else 0)


def _value_pad(input, paddings, constant_values):
    if np.ndim(constant_values) != 0:
        raise invalid_argument(f"constant_values must be a scalar. Got: "
                               f"{shape_text(np.shape(constant_values))}")
    return _constant_pad(input, paddings, constant_values)


def _mirror_pad(input, paddings, mode):
    p = _checked_paddings(input, paddings)
    for d, (a, b) in zip(np.shape(input), p):
        if mode == "REFLECT" and (a >= d or b >= d):
            raise invalid_argument(f"paddings must be less than the dimension size: {a}, {b} "
                                   f"not less than {d}")
        if mode == "SYMMETRIC" and (a > d or b > d):
            raise invalid_argument(f"paddings must be no greater than the dimension size: "
                                   f"{a}, {b} greater than {d}")
    return np.pad(input, p, mode=mode.lower())


def _pad_op(name, kernel, doc):
    """Register a pad op: inputs ``input``, ``paddings`` (int32/int64 [rank, 2]) and more."""
    check = DtypeCheck(name, INDEX, 1, first=1, attr="Tpaddings")
    return bounded_static(register(OpDef(name, _pad_infer(name), kernel, check=check, doc=doc)))


PAD = _pad_op("Pad", _zero_pad, "Pad with zeros (empty strings, False).")
PAD_V2 = _pad_op("PadV2", _value_pad, "Pad with ``constant_values``.")
MIRROR_PAD = _pad_op("MirrorPad", _mirror_pad, "Pad by mirroring the edges: ``mode`` REFLECT "
                     "(edge excluded) or SYMMETRIC (included).")


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad ``tensor`` by ``paddings`` ([rank, 2]: before/after per dimension).

    ``mode`` is CONSTANT (with ``constant_values``), REFLECT or SYMMETRIC (any case).
    """
    x = convert_to_tensor(tensor)
    p = int_input(paddings, hint=D.int32)
    if not isinstance(mode, str):
        raise TypeError(f"`mode` must be a string (CONSTANT, REFLECT or SYMMETRIC), got {mode!r}")
    mode = mode.upper()
    if mode == "CONSTANT":
        if isinstance(constant_values, (int, float)) and constant_values == 0:
            return bind(PAD, x, p)
        return bind(PAD_V2, x, p, convert_to_tensor(constant_values, x.dtype))
    if mode in ("REFLECT", "SYMMETRIC"):
        return bind(MIRROR_PAD, x, p, mode=mode)
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
                     f'"SYMMETRIC". Received `mode` = {mode}')
