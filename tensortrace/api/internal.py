"""``tf.__internal__``: the names TF gives libraries built on it (Keras' TensorFlow backend):
the tensor and trackable base classes, the graph Keras infers shapes in, ``smart_cond``, the
strategy helpers of optimizers (loaded on first use: the strategies are not needed to import
Keras), ``tf2.enabled``."""

import abc
import contextlib
import types

from .. import composite, tensor
from ..checkpoint.tracking import (AutoTrackable, Trackable, no_automatic_dependency_tracking,
                                   sticky_attribute_assignment, wrap_or_unwrap)
from ..context import state
from ..lookup.resource import TrackableResource
from ..ops.control_flow.conditionals import cond
from ..tracing import trace
from ..variables import Variable
from . import load


class Tensor(metaclass=abc.ABCMeta):
    """TF's ``types.Tensor``: the base of tensor-like classes (Keras' variables derive from
    it); tensors and variables are its instances. ``tf.is_tensor`` is true for them all."""

    is_tensor_like = True  # what tf.is_tensor asks of classes outside tensortrace


Tensor.register(tensor.Tensor)
Tensor.register(Variable)


Trackable.register(TrackableResource)  # lookup tables: Keras' lookup layers track theirs


class FuncGraph(trace.FuncGraph):
    """A graph to build ops in (``with FuncGraph(name).as_default():``); outer tensors used in
    it are captured. Not a trace: a ``tf.Variable`` made in it from a tensor computed in it is
    refused, as TF cannot lift that initial value out (Keras then builds the layer eagerly)."""

    lifts_initializers = False

    def __init__(self, name, collections=None, capture_by_value=None,
                 structured_input_signature=None, structured_outputs=None):
        super().__init__(name, outer=state.graph)
        self.structured_input_signature = structured_input_signature
        self.structured_outputs = structured_outputs


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` or ``false_fn()`` at once when ``pred`` is known now, else ``tf.cond``.

    Raises:
        TypeError: for uncallable branches or a ``pred`` neither a tensor, a bool, 0 nor 1.
    """
    if not callable(true_fn):
        raise TypeError(f"Argument `true_fn` must be callable. Received {true_fn}")
    if not callable(false_fn):
        raise TypeError(f"Argument `false_fn` must be callable. Received {false_fn}")
    value = smart_constant_value(pred)
    if value is None:
        return cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)
    return true_fn() if value else false_fn()


def smart_constant_value(pred):
    """``pred``'s value when known without running anything (a bool), else None."""
    if isinstance(pred, tensor.Tensor):  # the utility ops (and nn, linalg ...) on first use
        value = load("ops.utility.basic").get_static_value(pred)
        if value is None:  # TF then evaluates the constant subgraph (try_evaluate_constant)
            value = tensor.static_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, bool) or pred in (0, 1):
        return bool(pred)
    raise TypeError(f"Argument `pred` must be a Tensor, or a Python bool, or 1 or 0. "
                    f"Received: pred={pred} of type {type(pred).__name__}")


@contextlib.contextmanager
def eager_mode():
    """Run the block eagerly, even inside a graph."""
    saved, state.graph = state.graph, None
    try:
        yield
    finally:
        state.graph = saved


def _namespace(name, **members):
    module = types.ModuleType(f"tensortrace.__internal__{name}")
    module.__dict__.update(members)
    return module


class _Deferred(types.ModuleType):
    """A namespace whose ``names`` are those of engine module ``source``, imported when one of
    them is first used."""

    def __init__(self, name, source, names, **members):
        super().__init__(f"tensortrace.__internal__{name}")
        self.__dict__.update(members, _tt_source=source, _tt_names=frozenset(names))

    def __getattr__(self, name):
        if name not in self.__dict__["_tt_names"]:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = self.__dict__[name] = getattr(load(self.__dict__["_tt_source"]), name)
        return value

    def __dir__(self):
        return sorted(set(self.__dict__) - {"_tt_source", "_tt_names"} |
                      self.__dict__["_tt_names"])


#: ``tf.__internal__`` itself.
NAMESPACE = _namespace(
    "",
    types=_namespace(".types", Tensor=Tensor),
    tracking=_namespace(".tracking", Trackable=Trackable, AutoTrackable=AutoTrackable,
                        no_automatic_dependency_tracking=no_automatic_dependency_tracking,
                        wrap=wrap_or_unwrap,
                        sticky_attribute_assignment=sticky_attribute_assignment),
    distribute=_Deferred(
        ".distribute", "distribute.strategy",
        ("strategy_supports_no_merge_call", "get_cross_replica_context"),
        interim=_Deferred(".distribute.interim", "distribute.strategy", ("maybe_merge_call",))),
    smart_cond=_namespace(".smart_cond", smart_cond=smart_cond,
                          smart_constant_value=smart_constant_value),
    tf2=_namespace(".tf2", enabled=lambda: True),
    eager_context=_namespace(".eager_context", eager_mode=eager_mode),
    CompositeTensor=composite.CompositeTensor,
    EagerTensor=tensor.EagerTensor,
    FuncGraph=FuncGraph)
