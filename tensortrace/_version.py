"""``tf.version``: the TensorFlow release whose behaviour tensortrace implements (what programs
test ``tf.__version__`` against), and tensortrace's own release under a name of its own."""

from ._export import export_value

#: The TensorFlow version followed; ``tf.__version__`` and ``tf.version.VERSION``, as in TF.
VERSION = export_value("2.21.0", "version.VERSION")
#: tensortrace's own release (the package metadata's version, ``pyproject.toml``).
TENSORTRACE_VERSION = export_value("0.1.0", "version.TENSORTRACE_VERSION")
