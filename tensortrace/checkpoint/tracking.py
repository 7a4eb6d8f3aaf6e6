"""TF's Trackable protocol for objects built on ``tf.__internal__.tracking`` (Keras' layers and
export archives): the ``Trackable`` base with named dependencies, ``AutoTrackable`` that tracks
what is assigned to its attributes, and TF's trackable data structures: a list, dict or tuple
assigned to such an attribute becomes a ``ListWrapper`` / ``_DictWrapper`` / ``_TupleWrapper``
whose trackable elements are its children (named by position or key), so that what a list
holds is saved and restored with its owner.

    obj = AutoTrackable()
    obj.layers = [tf.Variable(1.0)]        # ListWrapper([<tf.Variable ...>])
    obj._trackable_children()              # {"layers": ListWrapper([...])}
    obj.layers._trackable_children()       # {"0": <tf.Variable ...>}

The wrappers hold their elements themselves (TF's proxy the caller's list or dict): changes made
to the original list after the assignment are not seen. As in TF, a list whose trackable element
was replaced, removed or moved, or a dict holding a trackable under a non-string key, refuses to
be saved.
"""

import abc
import copy
import collections
import functools

from .. import module as _module
from ..module import Module
from ..random_generator import Generator
from ..tracing.concrete import ConcreteFunction
from ..tracing.function import PolymorphicFunction
from ..variables import Variable
from . import checkpoint, graph_view

_SAVEDMODEL = "savedmodel"


class Trackable(metaclass=abc.ABCMeta):
    """An object with named dependencies (TF's ``Trackable``): ``_track_trackable`` adds one,
    ``_trackable_children`` lists them, as checkpoints walk them."""

    # Each instance's dict of dependencies, made on first use; declared on the class so that
    # every instance lists it in dir(), as TF's Trackable does its own attributes (Keras' saving
    # walks the attributes an instance has beyond those of a fresh Layer).
    _tt_dependencies = None

    @property
    def _self_unconditional_dependency_names(self):
        deps = self.__dict__.get("_tt_dependencies")
        if deps is None:
            deps = {}
            object.__setattr__(self, "_tt_dependencies", deps)
        return deps

    def _maybe_initialize_trackable(self):
        return self._self_unconditional_dependency_names

    @property
    def _self_setattr_tracking(self):
        return self.__dict__.get("_tt_setattr_tracking", True)

    @_self_setattr_tracking.setter
    def _self_setattr_tracking(self, value):
        object.__setattr__(self, "_tt_setattr_tracking", value)

    _setattr_tracking = _self_setattr_tracking

    def _track_trackable(self, trackable, name, overwrite=False):
        """Make ``trackable`` this object's dependency ``name``; returns it.

        Raises:
            ValueError: ``name`` already names another dependency and not ``overwrite``.
        """
        deps = self._self_unconditional_dependency_names
        current = deps.get(name)
        if current is not None and current is not trackable and not overwrite:
            raise ValueError(f"Called Trackable._track_trackable() with name='{name}', but a "
                             "Trackable with this name is already declared as a dependency. "
                             "Names must be unique (or overwrite=True).")
        deps[name] = trackable
        return trackable

    def _lookup_dependency(self, name, cached_dependencies=None):
        return self._self_unconditional_dependency_names.get(name)

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        return dict(self._self_unconditional_dependency_names)


for _cls in (Variable, Module, Generator, graph_view.PythonState, PolymorphicFunction,
             ConcreteFunction):
    Trackable.register(_cls)  # TF's are Trackables too


def _is_function(value):
    return isinstance(value, (PolymorphicFunction, ConcreteFunction))


# --- assignment: what an attribute (or a wrapper's element) holds -----------------------------
class NoDependency:
    """Assign ``NoDependency(value)`` to store ``value`` itself, untracked and unwrapped."""

    __slots__ = ["value"]

    def __init__(self, value):
        self.value = value


def _should_wrap_tuple(t):
    """Whether a tuple holds something tracked (TF wraps only those; exact types: list and dict
    subclasses keep their own behaviour)."""
    for element in t:
        if isinstance(element, (NoDependency, Trackable)) or \
                type(element) in (dict, collections.OrderedDict, list):
            return True
        if isinstance(element, tuple) and _should_wrap_tuple(element):
            return True
    return False


def wrap_or_unwrap(value):
    """``value`` as an attribute of a trackable holds it: a list, dict or tuple of trackables
    wrapped, a ``NoDependency`` unwrapped, anything else as it is."""
    if isinstance(value, NoDependency):
        return value.value
    if isinstance(value, Trackable):
        return value
    if type(value) in (dict, collections.OrderedDict):
        return _DictWrapper(value)
    if type(value) is list:
        return ListWrapper(value)
    if isinstance(value, tuple) and _should_wrap_tuple(value):
        return _TupleWrapper.wrap(value)
    return value


def sticky_attribute_assignment(trackable, name, value):
    """What ``trackable.name = value`` stores: ``value`` wrapped or unwrapped, and made the
    dependency ``name`` when trackable (not for a ``NoDependency``)."""
    add_dependency = not isinstance(value, NoDependency)
    value = wrap_or_unwrap(value)
    if add_dependency and isinstance(value, Trackable):
        trackable._track_trackable(value, name=name, overwrite=True)
    return value


class AutoTrackable(Trackable):
    """A Trackable that tracks the trackable values assigned to its attributes (lists, dicts
    and tuples of them wrapped); in a SavedModel its tf.functions are children too."""

    def __setattr__(self, name, value):
        if name.startswith("_tt_"):
            object.__setattr__(self, name, value)
            return
        try:
            if getattr(self, name) is value:
                return  # self.x = self.x
        except AttributeError:
            pass
        if self._self_setattr_tracking:
            value = sticky_attribute_assignment(self, name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self._self_unconditional_dependency_names.pop(name, None)
        object.__delattr__(self, name)

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """The dependencies; for a SavedModel also the tf.functions among the attributes.

        Raises:
            ValueError: a dependency and a function have the same name.
        """
        if save_type != _SAVEDMODEL:
            return super()._trackable_children(save_type, **kwargs)
        functions = {}
        for attribute in dir(self):
            try:
                value = getattr(self, attribute, None)
            except Exception:  # as TF: an attribute that cannot be read is no function
                value = None
            if _is_function(value):
                functions[attribute] = value
        children = {}
        for name, child in self._self_unconditional_dependency_names.items():
            if _is_function(child):
                continue
            if name in functions and child is not functions[name]:
                raise ValueError(
                    "Can't save object because it has multiple children with the same name. "
                    f"Object: {self}, attribute name: {name}, child 1: {child}, child 2: "
                    f"{functions[name]}")
            children[name] = child
        children.update(functions)
        return children


def no_automatic_dependency_tracking(method):
    """``method`` run with attribute tracking off on its object (restored after)."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        before = self._self_setattr_tracking
        self._self_setattr_tracking = False
        try:
            return method(self, *args, **kwargs)
        finally:
            self._self_setattr_tracking = before

    return wrapped


# --- the data structures ------------------------------------------------------------------------
def _track_value(structure, value, name):
    """An element as ``structure`` stores it (wrapped), tracked under ``name`` if trackable."""
    return sticky_attribute_assignment(structure, name, value)


def _with_functions(children, items):
    """A SavedModel's children also name the tf.functions held (not trackable otherwise)."""
    children.update({str(k): v for k, v in items if _is_function(v)})
    return children


class ListWrapper(checkpoint.ListWrapper, Trackable):
    """A list assigned to a trackable's attribute: its trackable elements are children "0",
    "1", ...; appending is free, but replacing, removing or moving a trackable element makes
    it unsaveable (restoring matches elements by position)."""

    def __init__(self, wrapped_list=()):
        list.__init__(self)
        self._self_non_append_mutation = False
        for value in wrapped_list:
            list.append(self, _track_value(self, value, str(len(self))))

    def _mutated(self):
        """Note a non-append change, which matters once a trackable is involved."""
        if self._self_non_append_mutation or any(isinstance(v, Trackable) for v in self):
            self._self_non_append_mutation = True

    def append(self, value):
        super().append(_track_value(self, value, str(len(self))))

    def extend(self, values):
        for value in list(values):
            self.append(value)

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __imul__(self, n):
        if n <= 0:
            self._mutated()
            list.__imul__(self, n)
        else:
            self.extend(list(self) * (n - 1))
        return self

    def __setitem__(self, key, value):
        if isinstance(key, slice):
            before = list(self)
            list.__setitem__(self, key, value)
            for i in range(max(len(before), len(self))):
                now = list.__getitem__(self, i) if i < len(self) else None
                old = before[i] if i < len(before) else None
                if isinstance(old, Trackable):
                    self._self_non_append_mutation = True
                if now is not None and now != old:
                    list.__setitem__(self, i, _track_value(self, now, str(i)))
            return
        if isinstance(self[key], Trackable):
            self._self_non_append_mutation = True
        super().__setitem__(key, _track_value(self, value, str(key)))  # TF's name: as given

    def __delitem__(self, key):
        self._mutated()
        list.__delitem__(self, key)

    def insert(self, index, value):
        if isinstance(value, Trackable):
            self._self_non_append_mutation = True
        self._mutated()
        list.insert(self, index, value)

    def pop(self, index=-1):
        self._mutated()
        return list.pop(self, index)

    def remove(self, value):
        self._mutated()
        list.remove(self, value)

    def clear(self):
        self._mutated()
        list.clear(self)

    def sort(self):  # TF's takes no key
        self._mutated()
        list.sort(self)

    def reverse(self):
        self._mutated()
        list.reverse(self)

    def copy(self):
        return copy.copy(self)

    def __copy__(self):
        copied = type(self)(list(self))
        copied._self_non_append_mutation = self._self_non_append_mutation
        return copied

    def __deepcopy__(self, memo):
        copied = type(self)(copy.deepcopy(list(self), memo))
        copied._self_non_append_mutation = self._self_non_append_mutation
        return copied

    def __reduce_ex__(self, protocol):
        return (_rebuild_list, (list(self),))

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """The trackable elements by position.

        Raises:
            ValueError: a trackable element was replaced, removed or moved.
        """
        if self._self_non_append_mutation:
            raise ValueError(
                f"Unable to save the object {self} (a list wrapper constructed to track "
                "trackable TensorFlow objects). A list element was replaced (__setitem__, "
                "__setslice__), deleted (__delitem__, __delslice__), or moved (sort). In order "
                "to support restoration on object creation, tracking is exclusively for "
                "append-only data structures.\n\nIf you don't need this list checkpointed, "
                "wrap it in a non-trackable object; it will be subsequently ignored.")
        children = super()._trackable_children(save_type, **kwargs)
        if save_type == _SAVEDMODEL:
            _with_functions(children, enumerate(self))
        return children


class _DictWrapper(checkpoint.DictWrapper, Trackable):
    """A dict assigned to a trackable's attribute: its trackable values are children named by
    their keys. A trackable under a key that is not a string makes it unsaveable."""

    def __init__(self, wrapped_dict=None, **kwargs):
        dict.__init__(self)
        self._self_non_string_key = False
        for key, value in dict(wrapped_dict or {}, **kwargs).items():
            self[key] = value

    def __setitem__(self, key, value):
        if isinstance(key, str):
            value = _track_value(self, value, key)
        else:
            tracked = not isinstance(value, NoDependency)
            value = wrap_or_unwrap(value)
            if tracked and isinstance(value, Trackable):
                self._self_non_string_key = True
        super().__setitem__(key, value)

    def __ior__(self, other):
        self.update(other)
        return self

    def copy(self):
        return copy.copy(self)

    def __copy__(self):
        copied = _DictWrapper(dict(self))
        copied._self_non_string_key = self._self_non_string_key
        return copied

    def __deepcopy__(self, memo):
        copied = _DictWrapper(copy.deepcopy(dict(self), memo))
        copied._self_non_string_key = self._self_non_string_key
        return copied

    def __reduce_ex__(self, protocol):
        return (_rebuild_dict, (dict(self),))

    def __hash__(self):
        raise TypeError("unhashable type: 'DictWrapper'")

    def __str__(self):  # TF's proxy prints as the dict it wraps
        return dict.__repr__(self)

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """The trackable values by key.

        Raises:
            ValueError: a trackable is held under a key that is not a string.
        """
        if self._self_non_string_key:
            raise ValueError(
                f"Unable to save the object {self} (a dictionary wrapper constructed "
                "automatically on attribute assignment). The wrapped dictionary contains a "
                "non-string key which maps to a trackable object or mutable data structure."
                "\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                "non-trackable object; it will be subsequently ignored.")
        children = super()._trackable_children(save_type, **kwargs)
        if save_type == _SAVEDMODEL:
            _with_functions(children, self.items())
        return children


class _TupleWrapper(tuple, Trackable):
    """A tuple (or namedtuple) holding trackables, as a trackable's attribute holds it: its
    trackable elements are children by position (and by field name for a namedtuple). A
    namedtuple's wrapper is an instance of the namedtuple's class too."""

    _tt_classes = {}  # namedtuple class -> its wrapper class
    _tt_original = tuple  # the class of the tuple wrapped

    @classmethod
    def wrap(cls, value):
        """``value`` (a tuple) with its elements wrapped or unwrapped as attributes hold them."""
        elements = [wrap_or_unwrap(e) for e in value]
        depend = [not isinstance(e, NoDependency) for e in value]
        original = type(value)
        if hasattr(value, "_fields"):
            wrapper = cls._tt_classes.get(original)
            if wrapper is None:
                wrapper = cls._tt_classes[original] = type(
                    "_TupleWrapper", (cls, original),
                    {"__slots__": (), "__module__": cls.__module__, "_tt_original": original})
            wrapped = wrapper._make(elements)
            names = list(value._fields)
        else:
            wrapped = cls(elements)
            names = []
        names += [str(i) for i in range(len(elements))]
        values = elements * (2 if len(names) > len(elements) else 1)
        for name, element, dep in zip(names, values, depend * 2):
            if dep and isinstance(element, Trackable):
                wrapped._track_trackable(element, name=name, overwrite=True)
        return wrapped

    def __repr__(self):
        return f"_TupleWrapper({self._tt_plain()!r})"

    def __str__(self):  # TF's proxy prints as the tuple it wraps
        return str(self._tt_plain())

    def __copy__(self):
        return _TupleWrapper.wrap(self._tt_plain())

    def __deepcopy__(self, memo):
        return _TupleWrapper.wrap(copy.deepcopy(self._tt_plain(), memo))

    def _tt_plain(self):
        """The tuple (or namedtuple) wrapped, unwrapped."""
        original = self._tt_original
        return original._make(self) if original is not tuple else tuple(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild_tuple, (self._tt_plain(),))


# Pickles name these functions, not the wrapper classes: under the runner the classes carry TF's
# module paths, which pickle could not import back.
def _rebuild_list(items):
    return ListWrapper(items)


def _rebuild_dict(items):
    return _DictWrapper(items)


def _rebuild_tuple(value):
    return _TupleWrapper.wrap(value)


_module.structure_wrapper[0] = wrap_or_unwrap  # tf.Module is an AutoTrackable in TF
