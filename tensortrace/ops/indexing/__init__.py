"""Indexing ops: slicing and ``tensor[...]``, gather/scatter, sorting, segments, einsum, roll."""

from . import (  # noqa: F401  (registers the ops)
    buckets,
    contraction,
    gathering,
    getitem,
    scatter,
    segment,
    slicing,
    sorting,
)
