"""The public namespaces (``tf.math``, ``tf.nn`` ...): re-exports only, gathered from
``tf_export`` declarations in the op modules."""

import sys
import types

from .._export import exports

NAMESPACES = ("math", "nn", "linalg", "random", "strings", "bitwise", "debugging", "dtypes",
              "image", "sets", "signal", "experimental", "compat", "config",
              "config.experimental", "autograph", "autograph.experimental", "saved_model", "data",
              "types", "types.experimental")


def build(package):
    """Create ``tensortrace.<ns>`` modules from the export table; returns {ns: module}."""
    made = {}
    for ns in NAMESPACES:
        name = f"{package}.{ns}"
        mod = sys.modules.get(name) or types.ModuleType(name, f"tf.{ns} namespace")
        mod.__dict__.update(exports(ns))
        sys.modules[name] = mod
        made[ns] = mod
    for ns, mod in made.items():  # "config.experimental" is an attribute of tf.config
        parent, _, leaf = ns.rpartition(".")
        if parent:
            setattr(made[parent], leaf, mod)
    return {ns: mod for ns, mod in made.items() if "." not in ns}
