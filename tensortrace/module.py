"""``tf.Module``: a named container that finds the variables and sub-modules in its attributes.

    class Dense(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(tf.ones([2, 2]))
    Dense().trainable_variables   # (<tf.Variable 'Variable:0' ...>,)
"""

import contextlib
import re

from . import variables as _variables
from ._export import tf_export


class _NameScope:
    """``module.name_scope``: variables created inside get the module's name as a prefix."""

    def __init__(self, name):
        self.name = name + "/"

    def __enter__(self):
        _variables._name_scopes.append(self.name[:-1])
        return self.name

    def __exit__(self, *exc):
        _variables._name_scopes.pop()


def _camel_to_snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


@tf_export("Module")
class Module:
    """Base class for objects that own variables and other modules."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][\w.\-]*", name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid "
                             f"Python identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = name

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        return _NameScope(self._scope_name)

    @property
    def variables(self):
        """Every variable reachable from this module's attributes (deduplicated, in order)."""
        return tuple(self._flatten(lambda x: isinstance(x, _variables.Variable)))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(lambda x: isinstance(x, _variables.Variable) and x.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(
            lambda x: isinstance(x, _variables.Variable) and not x.trainable))

    @property
    def submodules(self):
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _flatten(self, predicate, recursive=True):
        seen, out = set(), []

        def walk(value, depth):
            if id(value) in seen:
                return
            if isinstance(value, (_variables.Variable, Module)):
                seen.add(id(value))
                if predicate(value):
                    out.append(value)
                if isinstance(value, Module) and (recursive or depth == 0):
                    for k in sorted(vars(value)):
                        if k not in value._TF_MODULE_IGNORED_PROPERTIES:
                            walk(vars(value)[k], depth + 1)
                return
            if isinstance(value, dict):
                for k in sorted(value, key=repr):
                    walk(value[k], depth)
            elif isinstance(value, (list, tuple, set, frozenset)):
                for v in value:
                    walk(v, depth)

        seen.add(id(self))
        for k in sorted(vars(self)):
            if k not in self._TF_MODULE_IGNORED_PROPERTIES:
                walk(vars(self)[k], 0)
        return out

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""

        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        wrapped.__name__ = method.__name__
        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


@contextlib.contextmanager
def name_scope(name):
    """``tf.name_scope``: prefixes names of variables created inside."""
    _variables._name_scopes.append(name.rstrip("/"))
    try:
        yield name.rstrip("/") + "/"
    finally:
        _variables._name_scopes.pop()


tf_export("name_scope")(name_scope)
