"""Image ops: resizing, dtype and color conversions and adjustments, flips, crops and pads,
patches, codecs."""

from . import adjust, codecs, color, geometry, patches, resize  # noqa: F401  (registers the ops)
