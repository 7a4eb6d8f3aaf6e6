"""Indexing ops: slicing and ``tensor[...]``, gather/scatter, sorting, segments, einsum, roll."""

from . import contraction, gathering, getitem, scatter, segment, slicing, sorting  # noqa: F401

# Re-exported while the families are split in parallel: other modules import these from here.
from .contraction import einsum  # noqa: F401
from .gathering import boolean_mask, gather, gather_nd  # noqa: F401
from .scatter import (  # noqa: F401  # noqa: F401
    scatter_nd,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,  # noqa: F401
)
from .segment import (  # noqa: F401  # noqa: F401  # noqa: F401
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
from .slicing import roll, slice_, strided_index, strided_slice, strided_slice_grad  # noqa: F401
from .sorting import argsort, searchsorted, sort, top_k, unique, unique_with_counts  # noqa: F401
