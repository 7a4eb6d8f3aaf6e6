"""TF's save context: while ``tf.saved_model.save`` runs, tf.function keys its traces by the save
options' variable policy as well, so every function is traced again (once per input signature
it has been traced with, or once for its ``input_signature``) and those traces are saved; a
second save with the same policy finds them.

    with save_context(options):
        concretes = traces_to_save(module.f)     # prints "Tracing with ..." again, as TF
"""

import contextlib
import threading

from .. import nest
from .._logging import logger
from ..tracing import function as _function
from ..tracing.function import PolymorphicFunction
from ..tracing.signature import IdentitySpec

_local = threading.local()  # the policy of the save this thread runs, or none
_lock = threading.Lock()
_saves = [0]  # saves running in any thread: the hook is installed while there are some
_POLICIES = {None: "NONE", "none": "NONE", "save_variable_devices": "SAVE_VARIABLE_DEVICES",
             "expand_distributed_variables": "EXPAND_DISTRIBUTED_VARIABLES"}


def variable_policy(options):
    """TF's VariablePolicy name of ``options.experimental_variable_policy``.

    Raises:
        ValueError: TF's message for a policy it does not know.
    """
    policy = getattr(options, "experimental_variable_policy", None)
    key = getattr(policy, "value", policy)
    if isinstance(key, str) and key.upper() in _POLICIES.values():
        return key.upper()
    if key not in _POLICIES:
        raise ValueError(f"Received invalid VariablePolicy value: {policy}.")
    return _POLICIES[key]


class _InSaveContext(PolymorphicFunction):
    """A tf.function as a save context sees it: a trace cache of its own; the Python function,
    lock and tracing count of the function it stands for."""

    _tracing_count = property(lambda self: self._main._tracing_count,
                              lambda self, n: setattr(self._main, "_tracing_count", n))

    def __repr__(self):
        return repr(self._main)


def _stand_in(pf):
    policy = getattr(_local, "policy", None)
    if policy is None or isinstance(pf, _InSaveContext) or not pf._eager_python:
        return None
    with pf._lock:
        table = pf.__dict__.setdefault("_save_contexts", {})
        shadow = table.get(policy)
        if shadow is None:
            shadow = table[policy] = pf._shadow(_InSaveContext, ("_save_contexts",))
    return shadow


@contextlib.contextmanager
def save_context(options):
    """Trace in the save context of ``options`` (a SaveOptions or None) inside the block."""
    policy = variable_policy(options)
    if getattr(_local, "policy", None) is not None:
        raise RuntimeError("Save context is already active.")
    with _lock:
        _saves[0] += 1
        _function.context_function[0] = _stand_in
    _local.policy = policy
    try:
        yield
    finally:
        _local.policy = None
        with _lock:
            _saves[0] -= 1
            if not _saves[0]:
                _function.context_function[0] = None


def traces_to_save(pf):
    """The concrete functions of ``pf`` a save writes: in the save context, one per distinct
    input signature of its traces (TF's ``_list_all_concrete_functions_for_serialization``),
    traced there if new; a loaded function's saved traces as they are."""
    if not pf._eager_python or getattr(_local, "policy", None) is None:
        concretes = pf.experimental_get_concrete_functions()
        if not concretes and pf.input_signature is not None:
            concretes = [pf.get_concrete_function()]
        return _saveable(pf, concretes)
    if pf.input_signature is not None:
        return [pf.get_concrete_function()]
    shadow = _stand_in(pf)
    signatures = []
    for cf in _saveable(pf, pf._traces() + shadow._traces()):
        signature = cf.structured_input_signature
        if signature not in signatures:
            signatures.append(signature)
    found = []
    for args, kwargs in signatures:
        cf = shadow.get_concrete_function(*args, **kwargs)
        if not any(cf is f for f in found):
            found.append(cf)
    return found


def _saveable(pf, concretes):
    kept = []
    for cf in concretes:
        if any(isinstance(s, IdentitySpec) for s in nest.flatten(cf._specs)):
            logger.warning("A trace of %s takes a Python object argument (matched by "
                           "identity); it cannot be saved and is left out.", pf._name)
            continue
        kept.append(cf)
    return kept
