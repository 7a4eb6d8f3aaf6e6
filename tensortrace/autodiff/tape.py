"""``tf.GradientTape``: records the ops applied to watched tensors, then walks them backwards.

    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)      # 2 * x

Contexts offer every op to the active tapes (``context.record``) ; a tape keeps the records
whose inputs it watches, so only the computation between sources and target is kept.
"""

import enum

from .. import nest
from .._export import tf_export
from .._logging import logger
from ..composite import CompositeTensor
from ..context import state
from ..convert import convert_to_tensor
from ..ops.array.creation import ones, zeros
from ..ops.array.shapes import shape as tf_shape
from ..tensor import EagerTensor, Tensor
from ..variables import Variable
from .backprop import backward, batch_jacobian, jacobian


class TapeRecord:
    """One recorded op application; grad rules read ``inputs``, ``outputs`` and ``attrs``."""

    __slots__ = ("opdef", "inputs", "attrs", "outputs", "skip_input_indices")

    def __init__(self, opdef, inputs, attrs, outputs):
        self.opdef, self.inputs, self.attrs, self.outputs = opdef, inputs, attrs, outputs
        self.skip_input_indices = ()  # set by the backward walk: inputs needing no gradient

    @property
    def type(self):
        return self.opdef.name

    @property
    def name(self):
        return self.opdef.name

    def get_attr(self, name):
        return self.attrs[name]


class _Pause:
    """What ``GradientTape.stop_recording`` returns."""

    def __init__(self, tape):
        if not tape._entered:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self.tape = tape

    def __enter__(self):
        if not self.tape._recording:
            raise ValueError("Tape is not recording.")
        self.tape._recording = False

    def __exit__(self, *exc):
        self.tape._recording = True


@tf_export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


@tf_export("GradientTape", "autodiff.GradientTape")
class GradientTape:
    """Record operations for automatic differentiation."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._records = []
        self._watched = {}  # id -> tensor (kept alive so ids stay unique)
        self._variables = {}  # id(variable) -> variable, in watch order
        self._recording = False  # inside ``with tape`` and not paused by stop_recording
        self._entered = 0
        self._used = False

    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        self._pop()

    def _push(self):
        self._entered += 1
        self._recording = True
        state.tapes = state.tapes + (self,)

    def _pop(self):
        self._entered -= 1
        self._recording = self._entered > 0
        if not self._entered:
            state.tapes = tuple(t for t in state.tapes if t is not self)

    # --- watching ---------------------------------------------------------------------------
    def watch(self, tensor):
        """Track ``tensor`` (a tensor, variable, or nested structure of them)."""
        for t in _grad_flat(nest.flatten(tensor)):
            t = _acting_variable(t)
            if isinstance(t, Variable):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                if t.dtype.is_floating or t.dtype.is_complex or \
                        t.dtype.name in ("resource", "variant"):
                    t = _traced(t)
                    self._watched[id(t)] = t
                else:
                    logger.warning("The dtype of the watched tensor must be floating (e.g. "
                                   "tf.float32), got %r", t.dtype)
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 f"tf.Tensor or tf.Variable or ExtensionType.")

    def _watch_variable(self, v):
        handle = _graph_handle(v)
        self._watched[id(handle)] = handle
        self._variables.setdefault(id(v), v)

    def _record(self, opdef, inputs, attrs, outputs, shared=None):
        """Keep this application of ``opdef`` if an input is watched (the tape protocol of
        ``context.record``); returns the record, shared with the other tapes that keep it."""
        if self._recording and self._consider(opdef, inputs):
            if shared is None:
                shared = TapeRecord(opdef, tuple(inputs), attrs, outputs)
            self._records.append(shared)
            for t in outputs:
                self._watched[id(t)] = t
        return shared

    def watched_variables(self):
        return tuple(self._variables.values())

    def _consider(self, opdef, inputs):
        if self._watch_accessed_variables and (opdef.name == "ReadVariableOp"
                                               or opdef.reads_variables):
            for handle in inputs:
                if handle.dtype.name != "resource":
                    continue
                var = _variable_of(handle)
                if var is None or var.trainable:
                    self._watched[id(handle)] = handle
                    if var is not None:
                        self._variables.setdefault(id(var), var)
        watched = self._watched
        for t in inputs:
            if id(t) in watched:
                return True
        return False

    def stop_recording(self):
        """Context manager: ops inside it are not recorded on this tape.

        Raises:
            RuntimeError: if the tape is not in a ``with`` block.
            ValueError: if recording is already stopped.
        """
        return _Pause(self)

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording)."""
        self._records = []
        self._watched = {}
        self._variables = {}

    # --- differentiation --------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources), with the structure of ``sources``; the gradients of several
        targets add up. ``output_gradients`` (one per target) weight the targets.

        Raises:
            RuntimeError: for a second call on a non-persistent tape.
            TypeError: when ``target`` is None.
            ValueError: for an unknown ``unconnected_gradients``.
        """
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, "
                            "Variables or CompositeTensors to be differentiated, but received "
                            "None.")
        if sources is None:
            raise TypeError("Argument `sources` should be a list or nested structure of Tensors "
                            "or Variables, but received None.")
        unconnected = _unconnected(unconnected_gradients)
        nested_sources = nest.flatten(sources)
        flat_sources = _grad_flat(nested_sources)  # a composite: its components with gradients
        flat_sources = [_acting_variable(s) for s in flat_sources]
        keys = [_source_key(s) for s in flat_sources]
        flat_targets = [_acting_variable(t) for t in _grad_flat(nest.flatten(target))]
        if any(t is None for t in flat_targets):
            raise TypeError(_NONE_DTYPE)
        # A variable target stands for its handle, as in TF: d(v)/d(v) is ones, not None.
        targets = [_graph_handle(t) if isinstance(t, Variable) else t for t in flat_targets]
        given = _grad_flat(nest.flatten(output_gradients)) \
            if output_gradients is not None else None
        grads_out = [None if given is None or given[i] is None else given[i]
                     if isinstance(given[i], Tensor) else _convert(given[i], t.dtype)
                     for i, t in enumerate(flat_targets)]
        for i, t in enumerate(flat_targets):
            if isinstance(t, Variable) and grads_out[i] is None:
                shape = t.shape.as_list() if t.shape.is_fully_defined() else tf_shape(t)
                grads_out[i] = ones(shape, t.dtype)
        self._used = True
        was_recording = self._recording
        self._recording = False  # the backward pass is recorded only by outer tapes
        try:
            grads = backward(self._records, targets, keys, grads_out, self._watched, slices=True)
        finally:
            self._recording = was_recording
        if not self._persistent:  # TF drops a used tape's records
            self._records = []
            self._recording = False
        result = []
        for src, g in zip(flat_sources, grads):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                shape = src.shape
                g = zeros(shape.as_list() if shape.is_fully_defined()
                                    else tf_shape(src), src.dtype)
            result.append(g)
        return nest.pack_sequence_as(sources, _grad_regroup(nested_sources, result))

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d(target)/d(sources) for each element of ``target``: target.shape + source.shape."""
        self._check_usable()
        self._check_pfor(experimental_use_pfor, "jacobian", "and with  ")
        return jacobian(self, target, sources, _unconnected(unconnected_gradients))

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobian: target [b, ...], source [b, ...] -> [b, target..., source...]."""
        self._check_usable()
        self._check_pfor(experimental_use_pfor, "batch_jacobian", "and  with ")
        return batch_jacobian(self, target, source, _unconnected(unconnected_gradients))

    def _check_pfor(self, use_pfor, what, joint):
        # TF's loop fallback needs several backward passes; its messages, double spaces and all
        if not use_pfor and not self._persistent and state.graph is None:
            raise RuntimeError(f"GradientTape must be created with persistent=True to compute "
                               f"the {what} with eager execution enabled {joint}"
                               f"experimental_use_pfor set to False.")

    def _check_usable(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")


def _unconnected(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _grad_flat(flat):
    """``flat`` with each composite replaced by its components that carry gradients."""
    if not any(isinstance(x, CompositeTensor) for x in flat):
        return flat
    out = []
    for x in flat:
        if isinstance(x, CompositeTensor):
            out.extend(x._type_spec._grad_components(x))
        else:
            out.append(x)
    return out


def _grad_regroup(nested, grads):
    """The gradients of ``_grad_flat(nested)`` regrouped: one per element of ``nested``."""
    if not any(isinstance(x, CompositeTensor) for x in nested):
        return grads
    out, i = [], 0
    for x in nested:
        if isinstance(x, CompositeTensor):
            n = len(x._type_spec._grad_components(x))
            out.append(x._type_spec._from_grad_components(x, grads[i:i + n]))
            i += n
        else:
            out.append(grads[i])
            i += 1
    return out


def _acting_variable(x):
    """The tf.Variable behind an object that acts as one (TF's ``_should_act_as_resource_variable``:
    Keras' variables, through their ``handle``); anything else as it is."""
    if hasattr(type(x), "_should_act_as_resource_variable") and \
            not isinstance(x, (Variable, Tensor)):
        var = _variable_of(x.handle)
        if var is not None:
            return var
    return x


def _source_key(source):
    """The tensor a source's gradient accumulates on (a variable's handle)."""
    if isinstance(source, Variable):
        return _graph_handle(source)
    if isinstance(source, Tensor):
        return _traced(source)
    if source is None:  # TF fails converting the missing source's dtype
        raise TypeError(_NONE_DTYPE)
    raise AttributeError(f"{type(source).__name__!r} object has no attribute 'dtype'")


def _traced(t):
    """While a function is traced, an eager tensor it uses stands for its capture placeholder
    (watching or differentiating the eager tensor means that placeholder)."""
    graph = state.graph
    return graph.capture(t) if graph is not None and isinstance(t, EagerTensor) else t


_NONE_DTYPE = "Cannot convert the argument `type_value`: None to a TensorFlow DType."


def _convert(value, dtype):
    return convert_to_tensor(value, dtype)


def _variable_of(handle):
    """The Variable behind a resource tensor: eager handles hold it; graph placeholders map to
    the eager handle they capture."""
    var = getattr(handle, "_value", None)
    if isinstance(var, Variable):
        return var
    graph = getattr(handle, "graph", None)
    while graph is not None:
        for value, ph in graph.captures:
            if ph is handle:
                if isinstance(getattr(value, "_value", None), Variable):
                    return value._value
                handle = value
                break
        else:
            return None
        graph = getattr(handle, "graph", None)
    return None


def _graph_handle(variable):
    """The handle that reads of ``variable`` take as input in the current context."""
    handle = variable.handle
    graph = state.graph
    if graph is not None and getattr(handle, "graph", None) is not graph:
        return graph.capture(handle)
    return handle
