"""Complex numbers: their parts (real, imaginary, magnitude, angle), the conjugate, and
``tf.complex`` building them from two real tensors."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...numerics import quiet
from ...registry import DtypeCheck, OpDef, define_op, get, register
from ...tensor import TensorSpec
from .._base import COMPLEX, broadcast_shape, check_dtypes, unary
from .compare import LESS
from .operands import as_tensor, constant_like
from .select import SelectV2


def _to_real(name, kernel, arg="input"):
    """Register a complex -> real op with TF's ``Tout`` attr (ComplexAbs, Real, Imag, Angle)."""

    def infer(x, Tout):
        check_dtypes(name, (x,), COMPLEX, (arg,))
        return TensorSpec(x.shape, Tout)

    return register(OpDef(name, infer, lambda x, Tout: kernel(x),
                          check=DtypeCheck(name, COMPLEX, 1)))


COMPLEX_ABS = _to_real("ComplexAbs", quiet(np.abs), arg="x")  # tf.abs of complex input


def _numeric(dtype):
    return dtype.is_integer or dtype.is_floating or dtype.is_complex


REAL_PART = _to_real("Real", lambda x: np.real(x).copy())  # copies: tensors share no memory


@tf_export("math.real")
def real(input, name=None):
    """The real part; real input comes back unchanged."""
    x = as_tensor(input)
    if x.dtype.is_complex:
        return bind(REAL_PART, x, Tout=x.dtype.real_dtype)
    if _numeric(x.dtype):
        return x
    raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")


IMAG_PART = _to_real("Imag", lambda x: np.imag(x).copy())


@tf_export("math.imag")
def imag(input, name=None):
    """The imaginary part; zeros for real input."""
    x = as_tensor(input)
    if x.dtype.is_complex:
        return bind(IMAG_PART, x, Tout=x.dtype.real_dtype)
    return bind(get("ZerosLike"), x)  # array's op: the array family comes after this one


ANGLE = _to_real("Angle", np.angle)


@tf_export("math.angle")
def angle(input, name=None):
    """The argument of complex input; pi for negative and 0 for other real input."""
    x = as_tensor(input)
    if x.dtype.is_complex:
        return bind(ANGLE, x, Tout=x.dtype.real_dtype)
    pi = constant_like(np.pi, x)  # TypeError for integers, as TF
    return bind(SelectV2, bind(LESS, x, constant_like(0, x)), pi, constant_like(0, x))


CONJ = unary("Conj", np.conj, COMPLEX, arg="input")


@tf_export("math.conj")
def conj(x, name=None):
    """The complex conjugate; real input comes back unchanged."""
    x = as_tensor(x)
    if x.dtype.is_complex:
        return bind(CONJ, x)
    if x.dtype.is_integer or x.dtype.is_floating:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


_COMPLEX_OF = {D.float32: D.complex64, D.float64: D.complex128}


@define_op("Complex")
class Complex:
    """``real + 1j * imag`` elementwise, with broadcasting."""

    def infer(real, imag, Tout):
        check_dtypes("Complex", (real, imag), (D.float32, D.float64), ("real", "imag"))
        return TensorSpec(broadcast_shape(real.shape, imag.shape, "Complex"), Tout)

    def kernel(real, imag, Tout):
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), Tout._np)
        out.real = real
        out.imag = imag
        return out[()] if out.ndim == 0 else out

    check = DtypeCheck("Complex", (D.float32, D.float64), same=2)


@tf_export("dtypes.complex", "complex")
def complex(real, imag, name=None):
    """The complex tensor ``real + 1j * imag`` (float32 -> complex64, float64 -> complex128).

    Raises:
        TypeError: unless both parts are float32 or both are float64.
    """
    real, imag = convert_to_tensor(real), convert_to_tensor(imag)
    tout = _COMPLEX_OF.get(real.dtype)
    if tout is None or imag.dtype != real.dtype:
        raise TypeError(f"The `real` and `imag` components have incorrect types: "
                        f"{real.dtype.name} {imag.dtype.name}. They must be consistent, and one "
                        f"of [tf.float32, tf.float64]")
    return bind(Complex, real, imag, Tout=tout)
