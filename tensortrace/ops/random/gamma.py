"""``tf.random.stateless_gamma``: TF's StatelessRandomGammaV2/V3 ops bit for bit (Marsaglia and
Tsang's transformation-rejection on Philox doubles, each sample with its own window of 256
counters); and RandomGammaGrad, the derivative of a gamma sample with respect to its alpha
(implicit reparameterization: ``-dP(a, x)/da / dP(a, x)/dx``, P the regularized lower incomplete
gamma function, from its power series)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import TensorSpec
from .._base import check_dtypes
from ..array.broadcasting import broadcast_dynamic_shape, broadcast_to
from ..array.shapes import shape as shape_of
from ..math.arithmetic import maximum
from ..math.special import _digamma
from . import philox
from ._common import dims, infer_seed, infer_shape, out, seed_tensor, shape_tensor
from .seeds import stateless_philox
from .stateless import StatelessRandomGetKeyCounter, _check_v2, _seeded, _v2_philox

_GAMMA_DTYPES = (D.float16, D.float32, D.float64)
_WINDOW = philox.SKIP_PER_VALUE  # Philox calls reserved for each sample


class _Draws:
    """Each sample's Philox doubles, handed out as TF's distributions do, for many samples at
    once: a generator call gives a sample two uniforms (or two Box-Muller normals), used last
    first; sample ``k`` calls the generator at ``256 * k`` onwards."""

    def __init__(self, gen, n):
        self.gen, self.base = gen, np.arange(n, dtype=np.uint64) * np.uint64(_WINDOW)
        self.calls = np.zeros(n, np.uint64)
        self.kept = {kind: (np.zeros(n, np.int64), np.zeros((n, 2))) for kind in "un"}

    def _call(self, rows):
        words = self.gen.blocks_at(self.base[rows] + self.calls[rows])
        self.calls[rows] += np.uint64(1)
        return words

    def take(self, kind, rows):
        """The next uniform ("u") or normal ("n") of each sample in ``rows``."""
        left, values = self.kept[kind]
        empty = rows[left[rows] == 0]
        if empty.size:
            w = self._call(empty)
            if kind == "u":
                pair = philox._u64_to_double(w[:, [0, 2]], w[:, [1, 3]])
            else:
                pair = np.stack(philox._box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3]),
                                axis=1)
            values[empty] = pair
            left[empty] = 2
        left[rows] -= 1
        return values[rows, left[rows]]


def gamma_samples(gen, out_dims, alpha):
    """Gamma(alpha) samples of shape ``out_dims`` (which ends with alpha's shape), TF's values:
    sample ``s`` of alpha entry ``a`` is sample ``a * samples + s`` of the generator."""
    alphas = np.asarray(alpha, np.float64).ravel()
    total = int(np.prod(out_dims, dtype=np.int64))
    per_alpha = total // alphas.size if alphas.size else 0
    a = np.repeat(alphas, per_alpha)  # generator order: alpha-major
    result = np.full(a.size, np.nan)  # TF's kernel gives NaN for a non-positive alpha
    draws = _Draws(gen, a.size)
    with np.errstate(all="ignore"):
        ones = np.flatnonzero(a == 1.0)  # an exponential
        result[ones] = -np.log1p(-draws.take("u", ones))
        below_one = a < 1.0
        d = a + np.where(below_one, 2.0 / 3, -1.0 / 3)
        c = 1.0 / 3 / np.sqrt(d)
        pending = np.flatnonzero((a > 0) & (a != 1.0))
        while pending.size:
            x = draws.take("n", pending)
            v = 1 + c[pending] * x
            positive = v > 0
            retry = pending[~positive]  # draw another normal
            pending, x, v = pending[positive], x[positive], v[positive] ** 3
            u = draws.take("u", pending)
            dp = d[pending]
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (
                np.log(u) < 0.5 * x * x + dp * (1 - v + np.log(v)))
            done, sample = pending[accept], (dp * v)[accept]
            small = below_one[done]
            if small.any():
                rows = done[small]
                sample[small] *= draws.take("u", rows) ** (1.0 / a[rows])
            result[done] = sample
            pending = np.sort(np.concatenate([retry, pending[~accept]]))
    return result.reshape(alphas.size, per_alpha).T.reshape(out_dims)


def _gamma_infer(shape, alpha, op_name):
    check_dtypes(op_name, (alpha,), _GAMMA_DTYPES, names=("alpha",))
    return TensorSpec(infer_shape(shape, op_name), alpha.dtype)


def _gamma_kernel(gen, shape, alpha):
    found = dims(shape)
    a = np.asarray(alpha)
    if tuple(found[len(found) - a.ndim:]) != a.shape or a.ndim > len(found):
        raise invalid_argument("Shape passed in must end with broadcasted shape.")
    return out(gamma_samples(gen, found, a).astype(a.dtype))


@define_op("StatelessRandomGammaV2")
class StatelessRandomGammaV2:
    """Gamma(alpha) samples of ``shape`` (ending with alpha's shape) determined by ``seed``."""

    check = DtypeCheck("StatelessRandomGammaV2", _GAMMA_DTYPES, 1, first=2, attr="dtype",
                       then=_seeded("StatelessRandomGammaV2"))

    def infer(shape, seed, alpha):
        infer_seed(seed, "StatelessRandomGammaV2")
        return _gamma_infer(shape, alpha, "StatelessRandomGammaV2")

    def kernel(shape, seed, alpha):
        return _gamma_kernel(stateless_philox(seed), shape, alpha)


@define_op("StatelessRandomGammaV3")
class StatelessRandomGammaV3:
    """Gamma(alpha) samples of ``shape`` from a Philox key and counter."""

    check = DtypeCheck("StatelessRandomGammaV3", _GAMMA_DTYPES, 1, first=4, attr="dtype")

    def infer(shape, key, counter, alg, alpha):
        _check_v2(key, counter, alg, "StatelessRandomGammaV3")
        return _gamma_infer(shape, alpha, "StatelessRandomGammaV3")

    def kernel(shape, key, counter, alg, alpha):
        return _gamma_kernel(_v2_philox(key, counter, alg), shape, alpha)


@tf_export("random.stateless_gamma")
def stateless_gamma(shape, seed, alpha, beta=None, dtype=D.float32, name=None):
    """Gamma(alpha, beta) samples of ``shape`` determined by ``seed`` (shape [2]); ``shape``
    must end with the broadcast shape of ``alpha`` and ``beta``."""
    dtype = D.as_dtype(dtype)
    shape = shape_tensor(shape)
    alpha = convert_to_tensor(alpha, dtype)
    beta = convert_to_tensor(1 if beta is None else beta, dtype)
    alpha = broadcast_to(alpha, broadcast_dynamic_shape(shape_of(alpha), shape_of(beta)))
    key, counter = bind(StatelessRandomGetKeyCounter, seed_tensor(seed))
    rnd = bind(StatelessRandomGammaV3, shape, key, counter, convert_to_tensor(3, D.int32), alpha)
    result = maximum(np.finfo(dtype._np).tiny.astype(dtype._np), rnd / beta)
    static = TensorShape(infer_shape(shape, "StatelessRandomGammaV3"))
    if static.rank is not None and result.shape.rank is None:
        result.set_shape(static)
    return result


def _gamma_grad(alpha, sample):
    """d sample / d alpha of Gamma(alpha) samples: with P(a, x) = x^a e^-x / Gamma(a + 1) S,
    S = sum_n x^n / ((a + 1) ... (a + n)), the ratio -dP/da / dP/dx is
    -(x / a) (S (log x - digamma(a + 1)) + dS/da)."""
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(sample, np.float64))
    term, total, slope, harmonic = np.ones_like(x), np.ones_like(x), np.zeros_like(x), \
        np.zeros_like(x)
    with np.errstate(all="ignore"):
        for n in range(1, 20000):  # the terms shrink once n passes x
            step = 1.0 / (a + n)
            term = term * x * step
            harmonic = harmonic + step
            total = total + term
            slope = slope - term * harmonic
            if n > 8 and not np.any(term > 1e-17 * total):
                break
        grad = -(x / a) * (total * (np.log(x) - _digamma(a + 1.0)) + slope)
        grad = np.where(x > 0, grad, 0.0)
        grad = np.where(a > 0, grad, np.nan)
    return grad


@define_op("RandomGammaGrad")
class RandomGammaGrad:
    """The derivative of Gamma(alpha) samples ``sample`` with respect to ``alpha``."""

    check = DtypeCheck("RandomGammaGrad", (D.float32, D.float64), 2)

    def infer(alpha, sample):
        check_dtypes("RandomGammaGrad", (alpha, sample), (D.float32, D.float64),
                     names=("alpha", "sample"))
        return TensorSpec(alpha.shape if alpha.shape.rank is not None and sample.shape.rank
                          is not None and alpha.shape.rank >= sample.shape.rank
                          else sample.shape, alpha.dtype)

    def kernel(alpha, sample):
        return out(_gamma_grad(alpha, sample).astype(np.asarray(alpha).dtype))
