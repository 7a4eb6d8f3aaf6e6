"""The ops every graph has: ``Const`` and ``Placeholder`` (graph-only: their values come from
the graph, not from inputs)."""

from ..registry import NON_DIFFERENTIABLE, define_op
from ..tensor import TensorSpec


@define_op("Const")
class Const:
    """A value baked into the graph (``attrs['value']``)."""

    def infer(value, dtype):
        import numpy as np

        return TensorSpec(np.shape(value), dtype)

    def kernel(value, dtype):
        return value

    grad = NON_DIFFERENTIABLE


@define_op("Placeholder")
class Placeholder:
    """A graph input; the executor feeds it, it has no kernel of its own to run."""

    def infer(dtype, shape):
        return TensorSpec(shape, dtype)

    def kernel(dtype, shape):
        raise ValueError("A Placeholder has no value outside a graph call: feed it.")

    grad = NON_DIFFERENTIABLE
