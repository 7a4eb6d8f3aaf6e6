"""TensorLists and ``tf.TensorArray``: the list value, its ops, list arithmetic, TensorArray."""

from . import list_math, list_ops, list_value, tensor_arrays  # noqa: F401

# Re-exports for modules that import from the package path (until they import the submodules).
from .list_math import add_lists, element_dtype, zero_list_like  # noqa: F401
from .list_math import single_item as _single_item  # noqa: F401
from .list_ops import (  # noqa: F401  # noqa: F401
    CONCAT,
    FROM_TENSOR,
    GATHER,
    GET_ITEM,
    LENGTH,
    RESERVE,
    SCATTER,
    SET_ITEM,
    SPLIT,
    STACK,
)
from .list_value import TensorList, from_items, private_items, set_item_error  # noqa: F401
from .list_value import shape_attr as _dims  # noqa: F401
from .tensor_arrays import TensorArray, flow_of, from_flow  # noqa: F401
