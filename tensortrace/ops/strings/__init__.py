"""String ops (``tf.strings.*``), being split by kind: for now one module."""

from . import regex  # noqa: F401
