"""The gradient ops of pooling (TF's MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad and their 3-D
forms): shapes come from their inputs at run time, so pooling differentiates with unknown batch
and spatial sizes. A max-pooling window passes its gradient to its first maximum, as TF's CPU
kernels do."""

import numpy as np

from ... import errors
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._base import check_dtypes
from ._geometry import (check_cpu_layout, out_sizes, spatial_axes, spatial_pads, window_counts,
                        windows)
from ._util import HALF_T
from .conv_grad import sized_spec
from .pooling import MAXPOOL_T


class _Pooling:
    """A pooling's geometry over a channels-last input of ``shape`` (given in the op's
    layout)."""

    def __init__(self, op_name, shape, ksize, strides, padding, explicit, data_format):
        rank = len(ksize)
        if len(shape) != rank:
            raise invalid_argument(f"{op_name}: the input must be {rank}-dimensional, got "
                                   f"{shape_text(shape)}", op_name)
        self.last = not data_format.startswith("NC")
        axes = spatial_axes(rank, self.last)
        cax = rank - 1 if self.last else 1
        if ksize[0] != 1 or strides[0] != 1:
            raise errors.UnimplementedError(None, None, "Pooling is not yet supported on the "
                                            "batch dimension.")
        if ksize[cax] != 1 or strides[cax] != 1:
            raise errors.UnimplementedError(None, None, "Depthwise pooling is not supported "
                                            "here: ksize and strides must be 1 on the channel "
                                            "dimension.")
        if min(ksize) < 1 or min(strides) < 1:
            raise invalid_argument("Sliding window ksize and stride must be > 0", op_name)
        shape = [int(v) for v in shape]
        self.shape = shape if self.last else [shape[0]] + shape[2:] + [shape[1]]
        self.k = [ksize[a] for a in axes]
        self.s = [strides[a] for a in axes]
        ones = [1] * len(axes)
        sizes = self.shape[1:-1]
        self.pads = spatial_pads(padding, explicit, sizes, self.k, self.s, ones, axes)
        self.out = out_sizes(sizes, self.k, self.s, ones, self.pads, padding)
        self.lead = (slice(None),) * (1 + len(self.out))

    def to_last(self, x):
        return x if self.last else np.moveaxis(x, 1, -1)

    def from_last(self, x):
        return x if self.last else np.moveaxis(x, -1, 1)

    def check_grad(self, op_name, grad):
        want = (self.shape[0], *self.out, self.shape[-1])
        if grad.shape != want:
            raise invalid_argument(f"{op_name}: Expected grad shape to be {shape_text(want)}, "
                                   f"but got {shape_text(grad.shape)}", op_name)

    def taps(self):
        return list(np.ndindex(*self.k))

    def tap_slice(self, tap):
        return (slice(None),) + tuple(slice(t, t + (o - 1) * s + 1, s)
                                      for t, o, s in zip(tap, self.out, self.s))

    def padded(self, x, fill=0):
        if all(p == (0, 0) for p in self.pads):
            return x
        return np.pad(x, [(0, 0), *self.pads, (0, 0)], constant_values=fill)

    def padded_zeros(self, dtype):
        size = [n + p[0] + p[1] for n, p in zip(self.shape[1:-1], self.pads)]
        return np.zeros([self.shape[0], *size, self.shape[-1]], dtype)

    def crop(self, xp):
        return xp[(slice(None),) + tuple(slice(b, b + n) for (b, _), n in
                                         zip(self.pads, self.shape[1:-1]))]

    def first_max(self, x):
        """Per output position, the tap of its window's first maximum (padding never wins):
        a tap wins where it is strictly above the running maximum, so ties keep the first and
        a NaN never wins, nor anything after a NaN in the first tap (as TF's CPU kernel)."""
        fill = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min  # V: bfloat16
        xp = self.padded(x, fill)
        win = windows(xp, self.out, self.k, self.s, [1] * len(self.k))
        taps = self.taps()
        best = np.array(win[self.lead + taps[0]])
        nan_first = np.isnan(best) if x.dtype.kind in "fV" and len(taps) > 1 else None
        index = np.zeros(best.shape, np.int8 if len(taps) < 128 else np.int64)
        better, later = np.empty(best.shape, bool), np.empty(best.shape, index.dtype)
        v = np.empty_like(best)  # each tap copied once: ufuncs run far faster on contiguous
        for i, tap in enumerate(taps[1:], 1):
            np.copyto(v, win[self.lead + tap])
            np.greater(v, best, out=better)
            np.fmax(best, v, out=best)  # the running maximum of the values not NaN
            # i is above every earlier index: a win sets it, a loss keeps the index
            np.maximum(index, np.multiply(better, index.dtype.type(i), out=later), out=index)
        if nan_first is not None:
            index *= ~nan_first  # fmax went past a NaN first tap, which keeps its window
        if any(before for before, _ in self.pads):
            index = self._first_in_bounds(xp, best, fill, index)
        return index

    def _first_in_bounds(self, xp, best, fill, index):
        """TF's kernel takes each window's first element in bounds before it compares: where
        padding comes first, that element wins when it is NaN or nothing in bounds is above
        the fill (all -inf)."""
        offsets = [np.maximum(before - np.arange(o) * s, 0)
                   for (before, _), o, s in zip(self.pads, self.out, self.s)]
        first = np.ravel_multi_index(np.meshgrid(*offsets, indexing="ij"), self.k)
        at = np.ix_(*[np.arange(o) * s + off for o, s, off in zip(self.out, self.s, offsets)])
        value = xp[(slice(None), *at)]
        takes = best == fill
        if xp.dtype.kind in "fV":
            takes |= np.isnan(value)
        return np.where(takes, first.reshape(1, *self.out, 1).astype(index.dtype), index)


def _masked(a, mask, out):
    """``a`` where the unsigned all-ones/zeros ``mask`` is set, else zero bits (+0), into
    ``out``: np.where's result, exactly, at a fraction of its cost."""
    np.bitwise_and(a.view(mask.dtype), mask, out=out)
    return out.view(a.dtype)


def _tap_masks(index, count, itemsize):
    """For each tap i < ``count``: an unsigned mask of ``itemsize`` bytes, all ones where
    ``index`` is i (one buffer, rewritten per tap)."""
    won = np.empty(index.shape, bool)
    mask = np.empty(index.shape, f"u{itemsize}")
    ones = mask.dtype.type(np.iinfo(mask.dtype).max)
    for i in range(count):
        np.equal(index, i, out=won)
        yield i, np.multiply(won, ones, out=mask)


def _pooling(op_name, shape, attrs):
    return _Pooling(op_name, shape, attrs["ksize"], attrs["strides"], attrs["padding"],
                    attrs.get("explicit_paddings", ()), attrs.get("data_format", "NHWC"))


def _max_pool_grad(op_name, orig_input, orig_output, grad, attrs):
    p = _pooling(op_name, orig_input.shape, attrs)
    x, grad = p.to_last(orig_input), p.to_last(grad)
    p.check_grad(op_name, grad)
    index = p.first_max(x)
    dxp = p.padded_zeros(grad.dtype)
    taps = p.taps()
    part = np.empty(index.shape, f"u{grad.dtype.itemsize}")
    for i, mask in _tap_masks(index, len(taps), grad.dtype.itemsize):
        target = dxp[p.tap_slice(taps[i])]
        target += _masked(grad, mask, part)  # where windows overlap, gradients add
    return p.from_last(p.crop(dxp))


def _max_pool_grad_grad(op_name, orig_input, orig_output, grad, attrs):
    """The gradient ``grad`` (shaped like the input) read at each window's first maximum."""
    p = _pooling(op_name, orig_input.shape, attrs)
    x, grad = p.to_last(orig_input), p.to_last(grad)
    if grad.shape != x.shape:
        raise invalid_argument(f"{op_name}: grad must have the shape of orig_input "
                               f"{shape_text(x.shape)}, got {shape_text(grad.shape)}", op_name)
    index = p.first_max(x)
    gwin = windows(p.padded(grad), p.out, p.k, p.s, [1] * len(p.k))
    taps = p.taps()
    bits = np.zeros(index.shape, f"u{grad.dtype.itemsize}")
    part = np.empty_like(bits)
    for i, mask in _tap_masks(index, len(taps), grad.dtype.itemsize):
        bits |= _masked(gwin[p.lead + taps[i]], mask, part).view(bits.dtype)  # one tap wins
    return p.from_last(bits.view(grad.dtype))


def _avg_pool_grad(op_name, shape, grad, attrs):
    p = _pooling(op_name, np.asarray(shape).reshape(-1), attrs)
    grad = p.to_last(grad)
    p.check_grad(op_name, grad)
    acc = np.float32 if grad.dtype.itemsize == 2 else grad.dtype
    share = grad.astype(acc) / window_counts(p.shape[1:-1], p.k, p.s, p.pads, p.out, acc)
    dxp = p.padded_zeros(acc)
    for tap in p.taps():
        dxp[p.tap_slice(tap)] += share
    return p.from_last(p.crop(dxp)).astype(grad.dtype, copy=False)


# --- the ops ------------------------------------------------------------------------------------
def _rank_of(op_name, t, rank):
    if t.shape.rank is not None and t.shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {t.shape.rank} for "
                         f"'{{{{node {op_name}}}}}'")


def _max_grad_op(op_name, rank, allowed, kernel_fn, like):
    """MaxPoolGrad(GradGrad): inputs orig_input, orig_output, grad; the result has the shape of
    input ``like`` (0: the input, 1: the output)."""

    def infer(orig_input, orig_output, grad, ksize, strides, padding, **attrs):
        dtype = check_dtypes(op_name, (orig_input, orig_output, grad), allowed,
                             ("orig_input", "orig_output", "grad"))
        for t in (orig_input, orig_output, grad):
            _rank_of(op_name, t, rank)
        shape = (orig_input, orig_output)[like].shape
        return TensorSpec(shape if shape.rank is not None else [None] * rank, dtype)

    def kernel(orig_input, orig_output, grad, **attrs):
        check_cpu_layout(op_name, attrs.get("data_format", "NHWC"))
        for what, a in (("orig_input", orig_input), ("orig_output", orig_output),
                        ("grad", grad)):
            if a.ndim != rank:
                raise invalid_argument(f"{what} must be {rank}-dimensional", op_name)
        return kernel_fn(op_name, orig_input, orig_output, grad, attrs)

    return register(OpDef(op_name, infer, kernel, check=DtypeCheck(op_name, allowed, same=3)))


def _avg_grad_op(op_name, rank):
    def infer(orig_input_shape, grad, ksize, strides, padding, **attrs):
        dtype = check_dtypes(op_name, (grad,), HALF_T, ("grad",))
        _rank_of(op_name, grad, rank)
        return sized_spec(op_name, orig_input_shape, rank, dtype)

    def kernel(orig_input_shape, grad, **attrs):
        check_cpu_layout(op_name, attrs.get("data_format", "NHWC"))
        if grad.ndim != rank:
            raise invalid_argument(f"grad must be {rank}-dimensional", op_name)
        return _avg_pool_grad(op_name, orig_input_shape, grad, attrs)

    return register(OpDef(op_name, infer, kernel,
                          check=DtypeCheck(op_name, HALF_T, same=1, first=1)))


MAX_POOL_GRAD = _max_grad_op("MaxPoolGrad", 4, MAXPOOL_T, _max_pool_grad, 0)
MAX_POOL_GRAD_GRAD = _max_grad_op("MaxPoolGradGrad", 4, MAXPOOL_T, _max_pool_grad_grad, 1)
MAX_POOL3D_GRAD = _max_grad_op("MaxPool3DGrad", 5, HALF_T, _max_pool_grad, 0)
MAX_POOL3D_GRAD_GRAD = _max_grad_op("MaxPool3DGradGrad", 5, HALF_T, _max_pool_grad_grad, 1)
AVG_POOL_GRAD = _avg_grad_op("AvgPoolGrad", 4)
AVG_POOL3D_GRAD = _avg_grad_op("AvgPool3DGrad", 5)
