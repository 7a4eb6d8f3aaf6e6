"""Neural-network ops: activations, softmax and losses, normalization, dropout, convolutions."""

from . import (  # noqa: F401  (registers the ops)
    activations,
    conv_grad,
    conv_transpose,
    convolution,
    dropout,
    normalization,
    pool_grad,
    pooling,
    softmax,
)
