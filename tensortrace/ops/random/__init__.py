"""Random ops (``tf.random.*``): seeds, the stateful ops and the stateless ones."""

from . import gamma, seeds, stateful, stateless  # noqa: F401  (registers the ops)
