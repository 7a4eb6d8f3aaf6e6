"""Everyday utilities: tensor checks, ensure_shape, timestamp, bitcast, norm clipping, counting
and repeating, and small composites of public ops."""

from . import basic, clipping, composites, counting  # noqa: F401  (registers the ops)
