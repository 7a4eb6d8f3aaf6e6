"""Which values staged control flow treats as graph values: symbolic tensors decide between Python
and graph control flow; tensors, Python scalars, NumPy values and TensorArrays are what graph
conditionals and loops carry."""

import numpy as np

from ...context import state
from ...convert import convert_to_tensor
from ...ops.tensor_array.tensor_arrays import TensorArray
from ...tensor import EagerTensor, Tensor


def is_symbolic(value):
    """True for a tensor being traced into a graph (a graph-mode variable counts)."""
    if isinstance(value, Tensor):
        return not isinstance(value, EagerTensor)
    return state.graph is not None and hasattr(value, "_as_graph_or_eager_tensor")


def is_tensor_array(value):
    return isinstance(value, TensorArray)


def convertible(leaf):
    """Leaves a graph conditional or loop carries as tensors."""
    return (isinstance(leaf, (Tensor, bool, int, float, complex, str, bytes, np.ndarray,
                              np.generic)) or hasattr(leaf, "_as_graph_or_eager_tensor")
            or is_tensor_array(leaf))


def to_tensor(leaf):
    """A carried leaf as a tensor (TensorArrays stay as they are)."""
    if is_tensor_array(leaf) or isinstance(leaf, Tensor):
        return leaf
    return convert_to_tensor(leaf)
