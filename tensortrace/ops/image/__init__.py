"""Image ops: resizing, dtype and color conversions and adjustments, flips, crops and pads,
patches, codecs, quality measures."""

from . import adjust, codecs, color, geometry, patches, quality, resize  # noqa: F401  (registers)
