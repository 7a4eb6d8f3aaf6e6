"""TF's discrete Fourier transforms (tf.signal.fft ... irfft3d, fftnd, fftshift): the FFT, IFFT,
RFFT and IRFFT ops of ranks 1 to 3 over the innermost axes, computed with NumPy's pocketfft in
the input's precision."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error
from ...registry import DtypeCheck, OpDef, register
from ...tensor import TensorSpec
from .._args import int_input, known_values
from .._base import check_dtypes, dtypes_named
from ..array.shapes import shape as tf_shape
from ..indexing.slicing import roll

_COMPLEX = dtypes_named("complex64 complex128")
_REAL = dtypes_named("float32 float64")
_RANK_NAME = {1: "", 2: "2D", 3: "3D"}


def _check_rank(name, x, rank, attrs, names):
    if x.shape.rank is not None and x.shape.rank < rank:
        raise shape_fn_error(name, f"Shape must be at least rank {rank} but is rank "
                             f"{x.shape.rank}", x.dtype, attrs, (x,), names)


def _kernel_rank(x, rank):
    if x.ndim < rank:
        raise invalid_argument(f"Input must have rank of at least {rank} but got: "
                               f"[{','.join(map(str, x.shape))}]")


def _complex_op(rank, inverse):
    """FFT/IFFT (2D, 3D): the complex transform of the innermost ``rank`` axes."""
    name = ("IFFT" if inverse else "FFT") + _RANK_NAME[rank]
    transform = np.fft.ifftn if inverse else np.fft.fftn

    def infer(input):
        dtype = check_dtypes(name, (input,), _COMPLEX, ("input",))
        _check_rank(name, input, rank, {}, ("input",))
        return TensorSpec(input.shape, dtype)

    def kernel(input):
        _kernel_rank(input, rank)
        if input.size == 0:
            return np.zeros(input.shape, input.dtype)
        return transform(input, axes=tuple(range(-rank, 0))).astype(input.dtype)

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, _COMPLEX, 1,
                                                                  attr="Tcomplex")))


def _fft_lengths(fft_length, rank):
    """The static values of an op's ``fft_length`` input (None where unknown)."""
    v = known_values(fft_length)
    return [None] * rank if v is None else list(v)


def _real_op(rank, inverse):
    """RFFT/IRFFT (2D, 3D): the real-to-complex transform of the innermost ``rank`` axes, the
    input cropped or zero-padded to ``fft_length`` (its complex counterpart to the unique
    ``fft_length // 2 + 1`` bins on the last axis)."""
    name = ("IRFFT" if inverse else "RFFT") + _RANK_NAME[rank]

    def infer(input, fft_length, Treal, Tcomplex):
        allowed = _COMPLEX if inverse else _REAL
        check_dtypes(name, (input,), allowed, ("input",))
        _check_rank(name, input, rank, {"Treal": Treal, "Tcomplex": Tcomplex},
                    ("input", "fft_length"))
        lengths = _fft_lengths(fft_length, rank)
        dims = list(input.shape.dims) if input.shape.rank is not None else None
        if dims is None:
            return TensorSpec(None, Treal if inverse else Tcomplex)
        inner = list(lengths)
        if not inverse and inner[-1] is not None:
            inner[-1] = inner[-1] // 2 + 1
        return TensorSpec(dims[:-rank] + inner, Treal if inverse else Tcomplex)

    def kernel(input, fft_length, Treal, Tcomplex):
        _kernel_rank(input, rank)
        lengths = [int(n) for n in np.asarray(fft_length).reshape(-1)]
        if len(lengths) != rank:
            raise invalid_argument(f"fft_length must be length {rank} vector")
        if any(n < 0 for n in lengths):
            raise invalid_argument("fft_length must be non-negative")
        axes = tuple(range(-rank, 0))
        out_dtype = (Treal if inverse else Tcomplex)._np
        out_shape = input.shape[:-rank] + tuple(
            lengths[:-1] + [lengths[-1] if inverse else lengths[-1] // 2 + 1])
        if 0 in out_shape or 0 in input.shape[-rank:]:
            return np.zeros(out_shape, out_dtype)
        if inverse:
            return np.fft.irfftn(input, s=lengths, axes=axes).astype(out_dtype)
        return np.fft.rfftn(input, s=lengths, axes=axes).astype(out_dtype)

    return register(OpDef(name, infer, kernel,
                          check=DtypeCheck(name, _COMPLEX if inverse else _REAL, 1,
                                           attr="Tcomplex" if inverse else "Treal")))


FFT, IFFT = _complex_op(1, False), _complex_op(1, True)
FFT2D, IFFT2D = _complex_op(2, False), _complex_op(2, True)
FFT3D, IFFT3D = _complex_op(3, False), _complex_op(3, True)
RFFT, IRFFT = _real_op(1, False), _real_op(1, True)
RFFT2D, IRFFT2D = _real_op(2, False), _real_op(2, True)
RFFT3D, IRFFT3D = _real_op(3, False), _real_op(3, True)


def _complex_fn(op, *names):
    @tf_export(*names)
    def fn(input, name=None):
        return bind(op, convert_to_tensor(input, dtype_hint=D.complex64))

    fn.__name__ = names[0].rpartition(".")[2]
    fn.__doc__ = f"TF's {op.name} of the innermost axes of a complex ``input``."
    return fn


fft = _complex_fn(FFT, "signal.fft")
ifft = _complex_fn(IFFT, "signal.ifft")
fft2d = _complex_fn(FFT2D, "signal.fft2d")
ifft2d = _complex_fn(IFFT2D, "signal.ifft2d")
fft3d = _complex_fn(FFT3D, "signal.fft3d")
ifft3d = _complex_fn(IFFT3D, "signal.ifft3d")


def _inner_lengths(x, rank, inverse):
    """The default ``fft_length``: the inner dims (the last one ``2 * (n - 1)`` for IRFFT)."""
    dims = x.shape.dims[-rank:] if x.shape.rank is not None else [None] * rank
    if None in dims:
        lengths = tf_shape(x)[-rank:]
        if inverse:
            last = 2 * (lengths[-1] - 1)
            lengths = int_input([lengths[i] for i in range(rank - 1)] + [last], D.int32)
        return lengths
    if inverse:
        dims[-1] = max(0, 2 * (dims[-1] - 1))
    return np.array(dims, np.int32)


def _real_fn(op, rank, inverse, *names):
    @tf_export(*names)
    def fn(input_tensor, fft_length=None, name=None):
        if inverse:
            x = convert_to_tensor(input_tensor, dtype_hint=D.complex64)
            if x.dtype not in _COMPLEX:
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x!s}")
        else:
            x = convert_to_tensor(input_tensor, dtype_hint=D.float32)
            if x.dtype not in _REAL:
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!s}")
        if x.shape.rank is not None and x.shape.rank < rank:
            raise ValueError(f"Shape must be at least rank {rank} but is rank {x.shape.rank}")
        lengths = _inner_lengths(x, rank, inverse) if fft_length is None else fft_length
        lengths = int_input(list(lengths) if isinstance(lengths, np.ndarray) else lengths,
                            D.int32)
        real, cplx = ((x.dtype.real_dtype, x.dtype) if inverse else
                      (x.dtype, D.complex64 if x.dtype is D.float32 else D.complex128))
        return bind(op, x, lengths, Treal=real, Tcomplex=cplx)

    fn.__name__ = names[0].rpartition(".")[2]
    fn.__doc__ = (f"TF's {op.name}: the {'inverse ' if inverse else ''}real FFT of the "
                  f"innermost {rank} axes, over ``fft_length`` points (default: the input's).")
    return fn


rfft = _real_fn(RFFT, 1, False, "signal.rfft")
irfft = _real_fn(IRFFT, 1, True, "signal.irfft")
rfft2d = _real_fn(RFFT2D, 2, False, "signal.rfft2d")
irfft2d = _real_fn(IRFFT2D, 2, True, "signal.irfft2d")
rfft3d = _real_fn(RFFT3D, 3, False, "signal.rfft3d")
irfft3d = _real_fn(IRFFT3D, 3, True, "signal.irfft3d")


def _shift(x, axes, sign):
    """fftshift's roll: ``sign * (n // 2)`` along each of ``axes`` (all by default)."""
    x = convert_to_tensor(x)
    if axes is None:
        axes = list(range(x.shape.rank))
    axes = np.reshape(axes, -1).tolist()
    rank = x.shape.rank
    for a in axes:
        if type(a) is not int or rank is None or not -rank <= a < rank:
            tf_shape(x)[a]  # TF indexes the shape by the axis: its error for a bad one
    dims = x.shape.dims
    if all(dims[a] is not None for a in axes):
        shifts = [sign * (dims[a] // 2) for a in axes]
    else:
        shape = tf_shape(x)
        shifts = int_input([sign * (shape[a] // 2) for a in axes], D.int32)
    return roll(x, shifts, axes)


@tf_export("signal.fftshift")
def fftshift(x, axes=None, name=None):
    """``x`` rolled by half its size along ``axes`` (all by default): the zero frequency in
    the middle."""
    return _shift(x, axes, 1)


@tf_export("signal.ifftshift")
def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1)
