"""``tf.custom_gradient``: a function that returns ``(y, grad_fn)`` is differentiated with
``grad_fn`` instead of through its ops.

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

The call runs ``f`` (recorded as usual, so ``grad_fn`` may use f's tensors and still be
differentiated again), passes its results through Identity, and records one tape entry from
the inputs (and the variables f read) to those outputs whose rule is ``grad_fn``.
"""

import functools
import inspect
import weakref

from .. import nest
from .._export import tf_export
from ..context import executing_eagerly, record, state
from ..convert import convert_to_tensor
from ..ops.array.passthrough import identity
from ..registry import OpDef
from ..tensor import Tensor
from ..variables import Variable
from .tape import _graph_handle, _variable_of

# graph -> {name of the last output's Identity op: (opdef, inputs, outputs)}: the custom
# gradients of a traced function, replayed by the backward graph of its calls (function_grad)
_MARKERS = weakref.WeakKeyDictionary()


def markers(graph):
    return _MARKERS.get(graph, {})


class _VariableWatcher:
    """Sits on the tape stack while ``f`` runs and notes the trainable variables it reads."""

    def __init__(self):
        self.variables = {}

    def _record(self, opdef, inputs, attrs, outputs, shared=None):
        self._consider(opdef, inputs)
        return shared

    def _consider(self, opdef, inputs):
        if opdef.name == "ReadVariableOp" or opdef.reads_variables:
            for handle in inputs:
                if handle.dtype.name == "resource":
                    var = _variable_of(handle)
                    if var is not None and var.trainable:
                        self.variables.setdefault(id(var), var)
        return False


@tf_export("custom_gradient")
def custom_gradient(f=None):
    """Decorator: ``f(*args)`` returns ``(result, grad_fn)``; ``grad_fn(*upstream)`` returns
    one gradient per argument, or ``(arg_grads, variable_grads)`` when it accepts a
    ``variables`` keyword and ``f`` read trainable variables.
    """
    if f is None:
        return custom_gradient
    return _Decorated(f)


class _Decorated:
    """The decorated function; as a method it binds ``self`` first (like TF's decorator), so
    ``self`` is not an input of the gradient."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        return _call(self._f, args, kwargs)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _Decorated(self._f.__get__(instance, owner))


def _call(f, args, kwargs):
    if kwargs and not executing_eagerly():
        raise ValueError("The custom_gradient decorator currently supports keywords arguments "
                         "only when eager execution is enabled.")
    if not executing_eagerly():
        # TF's graph-mode decorator converts the arguments (reading variables) before f runs,
        # so what f reads of them is not among the variables grad_fn is given
        args = nest.map_structure(convert_to_tensor, args, expand_composites=True)
    watcher = _VariableWatcher()
    saved = state.tapes
    state.tapes = saved + (watcher,)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        state.tapes = tuple(t for t in state.tapes if t is not watcher)
    graph = state.graph
    if not state.tapes and graph is None:
        return result
    # as in TF, keyword arguments are not inputs of the custom rule (only positional ones are)
    flat_args = nest.flatten(args)
    every_arg = flat_args + nest.flatten(kwargs)
    variables = [v for v in watcher.variables.values() if all(v is not a for a in every_arg)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument "
                        f"'variables', since function uses variables: {variables}")
    inputs = [_input(a) for a in flat_args] + [_graph_handle(v) for v in variables]
    opdef = OpDef(getattr(f, "__name__", "CustomGradient"), infer=None, kernel=None,
                  grad=_rule(grad_fn, result, len(flat_args), variables))
    tapes = state.tapes
    # tapes the rule reaches see the outputs only through grad_fn; the others (a tape watching
    # only keyword arguments) differentiate f's own ops, as TF's tape does
    custom = tapes if not kwargs else tuple(t for t in tapes if t._consider(opdef, inputs))
    state.tapes = tuple(t for t in tapes if all(t is not c for c in custom))
    try:
        outputs = [identity(x) if isinstance(x, Tensor) else x for x in nest.flatten(result)]
        tensors = tuple(o for o in outputs if isinstance(o, Tensor))
        state.tapes = custom
        if custom:
            record(opdef, inputs, {}, tensors)
    finally:
        state.tapes = tapes
    if graph is not None and tensors:  # for the backward graph of a call of this function
        _MARKERS.setdefault(graph, {})[tensors[-1].op.name] = (opdef, inputs, tensors)
    return nest.pack_sequence_as(result, outputs) if nest.is_nested(result) else outputs[0]


def _input(arg):
    if isinstance(arg, Variable):
        return _graph_handle(arg)
    return arg if isinstance(arg, Tensor) else convert_to_tensor(arg)


def _accepts_variables(grad_fn):
    try:
        spec = inspect.getfullargspec(grad_fn)
    except TypeError:
        return True
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _rule(grad_fn, result, arg_count, variables):
    def grad(record, *dys):
        upstream = list(dys)
        if variables:
            input_grads, variable_grads = grad_fn(*upstream, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient "
                                 "grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*upstream), []
        flat = nest.flatten(input_grads) if isinstance(input_grads, (list, tuple)) \
            else [input_grads]
        if len(flat) != arg_count:
            raise ValueError(f"custom_gradient function expected to return {arg_count} "
                             f"gradients, but returned {len(flat)} instead.")
        return list(flat) + list(variable_grads)

    return grad
