"""``tf.Module``: a named container that finds the variables and sub-modules in its attributes.

    class Dense(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(tf.ones([2, 2]))
    Dense().trainable_variables   # (<tf.Variable 'Variable:0' ...>,)
"""

import collections
import re

from . import variables as _variables
from ._export import tf_export
from .context import state


class _NameScope:
    """``module.name_scope``: variables created inside get the module's name as a prefix; ops
    traced inside are named ``name/...`` (TF's absolute scope ``name/``)."""

    def __init__(self, name):
        self.name = name + "/"
        self._graph_scopes = []

    def __enter__(self):
        _variables._name_scopes.append(self.name[:-1])
        graph = state.graph
        if graph is not None:
            scope = graph.name_scope(self.name)
            scope.__enter__()
            self._graph_scopes.append(scope)
        else:
            self._graph_scopes.append(None)
        return self.name

    def __exit__(self, *exc):
        _variables._name_scopes.pop()
        scope = self._graph_scopes.pop()
        if scope is not None:
            scope.__exit__(*exc)


#: Called as ``hook(module, name, value)`` after an attribute is set, while one is installed:
#: checkpoint restoration installs one while values wait for objects not attached yet (TF's
#: deferred restoration).
_attach_hook = None

#: ``wrap(value)``: a list, dict or tuple as a tf.Module attribute holds it (TF's Module is an
#: AutoTrackable: ListWrapper, _DictWrapper, _TupleWrapper). The trackable data structures
#: register it (the public surface installs a loader of them until then).
structure_wrapper = [None]


def set_attach_hook(hook):
    """Install ``hook`` (None removes it)."""
    global _attach_hook
    _attach_hook = hook


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

    def __setattr__(self, name, value):
        t = type(value)  # by identity: hashing a type with a metaclass can be slow
        if (t is list or t is dict or t is tuple or t is collections.OrderedDict) and \
                structure_wrapper[0] is not None:
            value = structure_wrapper[0](value)
        object.__setattr__(self, name, value)
        hook = _attach_hook
        if hook is not None:
            hook(self, name, value)

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
        """TF's order: this module's leaves (attributes sorted by name, containers flattened as
        tf.nest does), then each submodule found, recursively; every object at most once."""
        seen, out = {id(self)}, []
        self._flatten_into(predicate, recursive, seen, out, [])
        return out

    def _flatten_into(self, predicate, recursive, seen, out, stack):
        if id(self) in stack:
            recursive = False
        found = []
        attrs = vars(self)
        for k in sorted(attrs):
            if k in self._TF_MODULE_IGNORED_PROPERTIES:
                continue
            for leaf in _leaves(attrs[k]):
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
                if predicate(leaf):
                    out.append(leaf)
                if recursive and isinstance(leaf, Module):
                    found.append(leaf)
        stack.append(id(self))
        for sub in found:
            sub._flatten_into(predicate, recursive, seen, out, stack)
        stack.pop()

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""

        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        wrapped.__name__ = method.__name__
        return wrapped



def _leaves(value):
    """``value``'s leaves as tf.nest flattens them (dicts by sorted key)."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for k in keys:
            yield from _leaves(value[k])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value
