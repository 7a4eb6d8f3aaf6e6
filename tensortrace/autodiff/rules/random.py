"""Gradients of the gamma samplers with respect to ``alpha``: TF's implicit reparameterization
(RandomGammaGrad), summed over the sample dimensions alpha does not have."""

from ... import dtypes as D
from ...context import bind
from ...ops.array.creation import ones
from ...ops.array.joining import concat
from ...ops.array.ranges import range as tf_range
from ...ops.array.reshaping import reshape
from ...ops.array.shapes import rank, shape
from ...ops.random.gamma import RandomGammaGrad
from ...ops.reduce import reduce_sum
from ..grad_util import no_gradient, register_gradients


def _alpha_grad(dy, alpha, sample, leading):
    """TF's ``_GammaGradAlpha``: alpha gets ``leading`` unit dimensions, RandomGammaGrad gives
    d sample / d alpha, and the sample dimensions are summed away."""
    broadcastable = reshape(alpha, concat([ones([leading], D.int32), shape(alpha)], 0))
    partial = bind(RandomGammaGrad, broadcastable, sample)
    return reduce_sum(dy * partial, axis=tf_range(leading))


def _stateless(alpha_index):
    def rule(op, dy):
        shape_tensor, alpha = op.inputs[0], op.inputs[alpha_index]
        leading = shape(shape_tensor)[0] - rank(alpha)
        grads = [None] * len(op.inputs)
        grads[alpha_index] = _alpha_grad(dy, alpha, op.outputs[0], leading)
        return grads

    return rule


def _random_gamma(op, dy):
    shape_tensor, alpha = op.inputs
    leading = shape(shape_tensor)[0]
    return None, _alpha_grad(dy, alpha, op.outputs[0], leading)


register_gradients({
    "StatelessRandomGammaV2": _stateless(2),
    "StatelessRandomGammaV3": _stateless(4),
    "RandomGamma": _random_gamma,
    "RandomGammaGrad": no_gradient,  # TF registers none
})
