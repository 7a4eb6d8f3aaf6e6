"""Image ops: resizing, dtype and color conversions and adjustments, flips, crops and pads,
patches, codecs, quality measures."""

from . import (adjust, boxes, codecs, color, geometry, patches, quality,  # noqa: F401
               resize, sampling, transform)  # (each registers its ops)
