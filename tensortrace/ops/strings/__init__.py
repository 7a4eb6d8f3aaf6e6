"""String ops (``tf.strings.*``) on NumPy object arrays of ``bytes``."""

from . import elementwise, join_split, numbers, ngrams, regex, unicode  # noqa: F401  (registers the ops)
