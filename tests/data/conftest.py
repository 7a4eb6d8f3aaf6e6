"""Load the tf.data package: until ``tensortrace/__init__.py`` imports it, ``tf.data`` is an
empty export namespace whose stub module shadows the package in ``sys.modules``."""

import importlib
import sys
import types

import tensortrace as tf
from tensortrace._export import exports

if not hasattr(sys.modules.get("tensortrace.data"), "__path__"):
    sys.modules.pop("tensortrace.data", None)
    _real = importlib.import_module("tensortrace.data")
    _ns = types.ModuleType("tensortrace.data", "tf.data namespace")
    _ns.__dict__.update({k: v for k, v in vars(_real).items()
                         if not k.startswith("_") and not isinstance(v, types.ModuleType)})
    _ns.__dict__.update(exports("data"))
    tf.data = _ns
    tf.experimental.__dict__.update(exports("experimental"))
