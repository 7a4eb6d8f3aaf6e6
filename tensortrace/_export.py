"""``tf_export``: op modules declare where their public functions live (``tf.add``,
``tf.math.add``); the namespace modules in ``api/`` gather them. As in TensorFlow's own source.

    >>> @tf_export("math.add", "add")
    ... def add(x, y): ...
"""

_EXPORTS: dict = {}  # namespace ("" for the top level) -> {name: object}


def tf_export(*names):
    """Decorator registering ``fn`` under each dotted public name (``"math.add"``, ``"add"``)."""

    def wrap(fn):
        for full in names:
            namespace, _, name = full.rpartition(".")
            _EXPORTS.setdefault(namespace, {})[name] = fn
        return fn

    return wrap


def export_function(fn, *names, doc=""):
    """Name ``fn`` (made by an op family's factory) after the first of its public ``names``,
    give it ``doc`` and export it under them all."""
    fn.__name__ = fn.__qualname__ = names[0].rpartition(".")[2]
    fn.__doc__ = doc
    return tf_export(*names)(fn)


def export_value(value, *names):
    """Register a non-function value (a constant, a class) under public names."""
    tf_export(*names)(value)
    return value


def exports(namespace):
    """The ``{name: object}`` exported to ``namespace`` ("" is the top-level ``tf``)."""
    return dict(_EXPORTS.get(namespace, {}))


def namespaces():
    return sorted(_EXPORTS)
