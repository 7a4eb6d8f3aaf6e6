"""Random ops (``tf.random.*``): seeds, the stateful ops and the stateless ones."""

from . import seeds, stateful, stateless  # noqa: F401  (registers the ops)
