"""Print tensortrace's public surface: dir(tf) and every tf.* namespace, recursively, with each
object's kind, and the public attributes of public classes. Engine modules (tensortrace.ops,
.tracing ...) that show as attributes of the package are listed by name but not walked.

A restructuring must leave it unchanged: run it before and after and diff the two.

    PYTHONPATH=. python tests/public_surface.py > after.txt
"""
import inspect
import types

import tensortrace as tf

ENGINE = set()
for name in dir(tf):
    v = getattr(tf, name)
    if isinstance(v, types.ModuleType) and getattr(v, "__name__", "") == f"tensortrace.{name}" \
            and name not in ("errors", "dtypes", "config", "nest", "autograph", "data", "saved_model",
                             "math", "nn", "linalg", "random", "strings", "bitwise", "debugging",
                             "image", "sets", "signal", "experimental", "compat", "types",
                             "initializers"):
        ENGINE.add(name)


def kind(v):
    if isinstance(v, types.ModuleType):
        return "module"
    if inspect.isclass(v):
        return "class " + v.__name__
    if callable(v):
        return "callable " + getattr(v, "__name__", type(v).__name__)
    return "value " + type(v).__name__


seen = set()


def walk(mod, prefix, top=False):
    if id(mod) in seen:
        return
    seen.add(id(mod))
    for name in sorted(dir(mod)):
        if name.startswith("_"):
            continue
        if top and name in ENGINE:
            print(f"{prefix}{name}: engine module")
            continue
        v = getattr(mod, name)
        print(f"{prefix}{name}: {kind(v)}")
        if isinstance(v, types.ModuleType) and v.__name__.startswith("tensortrace"):
            walk(v, prefix + name + ".")
        elif inspect.isclass(v) and v.__module__.startswith("tensortrace"):
            for a in sorted(dir(v)):
                if not a.startswith("_"):
                    print(f"{prefix}{name}.{a}")


walk(tf, "tf.", top=True)
