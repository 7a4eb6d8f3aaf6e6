"""The parameter-server and TPU strategies TF has and tensortrace does not: real classes, so
that code asking ``isinstance(strategy, tf.distribute.TPUStrategy)`` gets its (false) answer,
whose construction names what is missing."""

from .._export import tf_export
from .strategy import Strategy


def _strategy_class(name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tensortrace does not provide tf.distribute.{name}: it runs "
                                  "on one machine only")

    cls = type(name, (Strategy,), {"__init__": __init__, "__doc__": f"TF's {name} (absent)."})
    cls.__module__ = __name__
    return tf_export(f"distribute.{name}")(cls)


ParameterServerStrategy = _strategy_class("ParameterServerStrategy")
TPUStrategy = _strategy_class("TPUStrategy")
