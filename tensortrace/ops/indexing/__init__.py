"""Indexing ops: slicing and ``tensor[...]``, gather/scatter, sorting, segments, einsum, roll."""

from . import contraction, gathering, getitem, scatter, segment, slicing, sorting  # noqa: F401

# Re-exported while the families are split in parallel: other modules import these from here.
from .contraction import einsum  # noqa: F401
from .gathering import boolean_mask, gather, gather_nd  # noqa: F401
from .scatter import scatter_nd, tensor_scatter_nd_add, tensor_scatter_nd_max  # noqa: F401
from .scatter import tensor_scatter_nd_min, tensor_scatter_nd_sub  # noqa: F401
from .scatter import tensor_scatter_nd_update  # noqa: F401
from .segment import segment_max, segment_mean, segment_min, segment_prod  # noqa: F401
from .segment import segment_sum, unsorted_segment_max, unsorted_segment_min  # noqa: F401
from .segment import unsorted_segment_prod, unsorted_segment_sum  # noqa: F401
from .slicing import roll, slice_, strided_index, strided_slice, strided_slice_grad  # noqa: F401
from .sorting import argsort, searchsorted, sort, top_k, unique, unique_with_counts  # noqa: F401
