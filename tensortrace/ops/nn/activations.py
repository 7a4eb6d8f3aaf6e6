"""The activation functions: relu and its variants, elu, selu, gelu and silu (swish)."""

import numpy as np

from ... import dtypes as D
from ..._export import export_function, tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...numerics import quiet
from ...registry import DtypeCheck, OpDef, define_op, register
from ...tensor import TensorSpec
from .._base import check_dtypes, dtypes_named
from .._args import float_arg
from ..math.special import _erfc
from ..math.transcendental import _sigmoid
from ._util import HALF_T

RELU_T = dtypes_named("float32 float64 int32 uint8 int16 int8 int64 bfloat16 uint16 float16 "
                      "uint32 uint64")
SIGMOID_T = dtypes_named("bfloat16 float16 float32 float64 complex64 complex128")
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _activation(name, kernel, allowed):
    """Register an elementwise op of ``features`` whose attrs (Gelu's approximate, Silu's beta)
    go to the kernel."""

    def infer(x, **attrs):
        return TensorSpec(x.shape, check_dtypes(name, (x,), allowed, ("features",)))

    return register(OpDef(name, infer, kernel, check=DtypeCheck(name, allowed, same=1)))


def _api(opdef, export, doc):
    """The public function of an attr-less activation: convert ``features``, then ``bind``."""

    def fn(features, name=None):
        return bind(opdef, convert_to_tensor(features))

    return export_function(fn, export, doc=doc)


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _selu(x):
    t = x.dtype.type
    return t(SELU_SCALE) * np.where(x > 0, x, t(SELU_ALPHA) * np.expm1(np.minimum(x, 0)))


RELU = _activation("Relu", lambda x: np.maximum(x, x.dtype.type(0)), RELU_T)
relu = _api(RELU, "nn.relu", "max(features, 0).")
RELU6 = _activation("Relu6", lambda x: np.minimum(np.maximum(x, x.dtype.type(0)),
                                                  x.dtype.type(6)), RELU_T)  # bfloat16 stays
relu6 = _api(RELU6, "nn.relu6", "min(max(features, 0), 6).")
ELU = _activation("Elu", quiet(_elu), HALF_T)
elu = _api(ELU, "nn.elu", "features where positive, else exp(features) - 1.")
SELU = _activation("Selu", quiet(_selu), HALF_T)
selu = _api(SELU, "nn.selu", "scale * (features where positive, else alpha * (exp(features) - 1)).")


_LEAKY_RELU_FLOATS = DtypeCheck("LeakyRelu", HALF_T, same=1)


@define_op("LeakyRelu")
class LeakyRelu:
    """features where positive, else ``alpha * features``; integer features give float32 (TF's
    leaky_relu casts them first)."""

    def check(arrays):
        if arrays[0].dtype.kind not in "iu":
            _LEAKY_RELU_FLOATS(arrays)

    def infer(features, alpha=0.2):
        if features.dtype.is_integer:
            return TensorSpec(features.shape, D.float32)
        check_dtypes("LeakyRelu", (features,), HALF_T, ("features",))
        return TensorSpec(features.shape, features.dtype)

    @quiet
    def kernel(features, alpha=0.2):
        x = features.astype(np.float32) if features.dtype.kind in "iu" else features
        return np.where(x > 0, x, x * x.dtype.type(alpha))


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else ``alpha * features`` (integers become float32, as in TF)."""
    alpha = float(np.float32(float_arg(alpha, "alpha")))  # a float32 attr in TF
    return bind(LeakyRelu, convert_to_tensor(features), alpha=alpha)


def _gelu(x, approximate=False):
    t = x.dtype.type
    if approximate:
        inner = t(np.sqrt(2 / np.pi)) * (x + t(0.044715) * x * x * x)
        return t(0.5) * x * (t(1) + np.tanh(inner))
    return t(0.5) * x * _erfc(-x * t(1 / np.sqrt(2)))


def _silu(x, beta=1.0):
    return x * _sigmoid(x * x.dtype.type(beta))


# TF composes these from Erfc/Tanh/Sigmoid and Mul; here each is one op (named after it).
GELU = _activation("Gelu", quiet(_gelu), HALF_T)
SILU = _activation("Silu", quiet(_silu), SIGMOID_T)


@tf_export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * Phi(x) (the tanh approximation when ``approximate``).

    Raises:
        ValueError: for non-floating ``features``, as TF.
    """
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:"
                         f"features.dtype={x.dtype}")
    return bind(GELU, x, approximate=bool(approximate))


@tf_export("nn.silu", "nn.swish")
def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features)."""
    return bind(SILU, convert_to_tensor(features), beta=float_arg(beta, "beta"))
