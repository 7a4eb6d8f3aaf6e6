"""String ops (``tf.strings.*``) on NumPy object arrays of ``bytes``."""

from . import (elementwise, hashing, join_split, numbers, ngrams, regex,  # noqa: F401
               unicode)  # (registers the ops)
