"""TensorLists and ``tf.TensorArray``."""

from .list_ops import (  # noqa: F401
    FROM_TENSOR, GET_ITEM, RESERVE, SET_ITEM, STACK, TensorArray, TensorList, _dims, _single_item,
    add_lists, element_dtype, flow_of, from_flow, from_items, private_items, set_item_error,
    zero_list_like)
