"""The public namespaces (``tf.math``, ``tf.nn`` ...): re-exports only, gathered from
``tf_export`` declarations in the op modules."""

import sys
import types

from .._export import exports

NAMESPACES = ("math", "nn", "linalg", "random", "strings", "bitwise", "debugging", "dtypes",
              "image", "sets", "signal", "experimental", "compat", "config",
              "config.experimental", "config.threading", "config.optimizer", "autograph",
              "autograph.experimental", "saved_model", "data",
              "types", "types.experimental")


def build(package):
    """Create ``tensortrace.<ns>`` modules from the export table; returns {ns: module}."""
    made = {}
    for ns in NAMESPACES:
        name = f"{package}.{ns}"
        mod = types.ModuleType(name, f"tf.{ns} namespace")
        real = sys.modules.get(name)
        if real is not None:  # an engine module of that name: show its public names, never
            # write into it (exports such as dtypes.complex would shadow its builtins)
            mod.__dict__.update({k: v for k, v in vars(real).items()
                                 if not k.startswith("_") and not isinstance(v, types.ModuleType)})
        else:
            sys.modules[name] = mod
        mod.__dict__.update(exports(ns))
        made[ns] = mod
    for ns, mod in made.items():  # "config.experimental" is an attribute of tf.config
        parent, _, leaf = ns.rpartition(".")
        if parent:
            setattr(made[parent], leaf, mod)
    return {ns: mod for ns, mod in made.items() if "." not in ns}
