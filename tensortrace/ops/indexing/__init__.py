"""Indexing ops: slicing and ``tensor[...]``, gather/scatter, sorting, segments, einsum, roll."""

from .slicing import boolean_mask, gather, gather_nd, scatter_nd  # noqa: F401
from .slicing import strided_index, strided_slice_grad  # noqa: F401
from .slicing import tensor_scatter_nd_add, tensor_scatter_nd_max  # noqa: F401
from .slicing import tensor_scatter_nd_min, tensor_scatter_nd_sub  # noqa: F401
from .slicing import tensor_scatter_nd_update, unsorted_segment_sum  # noqa: F401
