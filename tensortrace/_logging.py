"""The one logger tensortrace writes to (``tf.get_logger()`` returns it), printing as TF's does:
``WARNING:tensortrace:<message>`` on stderr, unless the application configures logging itself."""

import logging
import sys

logger = logging.getLogger("tensortrace")


class _StderrHandler(logging.StreamHandler):
    """Writes to the current ``sys.stderr`` (so redirections and test captures see it)."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))

    def emit(self, record):
        if logging.root.handlers:  # the application configured logging: it prints the record
            return
        super().emit(record)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass


if not logger.handlers:
    logger.addHandler(_StderrHandler())
