"""``tf.GradientTape``: records the ops applied to watched tensors, then walks them backwards.

    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)      # 2 * x

Contexts call ``record_operation`` for every op while any tape is active; a tape keeps the
records whose inputs it watches, so only the computation between sources and target is kept.
"""

import enum

from .. import nest
from .._export import tf_export
from ..context import state
from ..tensor import Tensor
from ..variables import Variable


class TapeRecord:
    """One recorded op application; grad rules read ``inputs``, ``outputs`` and ``attrs``."""

    __slots__ = ("opdef", "inputs", "attrs", "outputs")

    def __init__(self, opdef, inputs, attrs, outputs):
        self.opdef, self.inputs, self.attrs, self.outputs = opdef, inputs, attrs, outputs

    @property
    def type(self):
        return self.opdef.name

    @property
    def name(self):
        return self.opdef.name

    def get_attr(self, name):
        return self.attrs[name]


def record_operation(opdef, inputs, attrs, outs):
    """Called by ``bind`` (eager) and ``Graph.apply`` (tracing) while tapes are active."""
    outputs = outs if type(outs) is tuple else (outs,)
    record = None
    for tape in state.tapes:
        if tape._recording and tape._consider(opdef, inputs):
            if record is None:
                record = TapeRecord(opdef, tuple(inputs), attrs, outputs)
            tape._records.append(record)
            for t in outputs:
                tape._watched[id(t)] = t


@tf_export("UnconnectedGradients")
class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


@tf_export("GradientTape")
class GradientTape:
    """Record operations for automatic differentiation."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._records = []
        self._watched = {}  # id -> tensor (kept alive so ids stay unique)
        self._variables = {}  # id(handle) -> variable, in watch order
        self._recording = False
        self._used = False

    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        self._pop()

    def _push(self):
        self._recording = True
        state.tapes = state.tapes + (self,)

    def _pop(self):
        self._recording = False
        state.tapes = tuple(t for t in state.tapes if t is not self)

    # --- watching ---------------------------------------------------------------------------
    def watch(self, tensor):
        """Track ``tensor`` (a tensor, variable, or nested structure of them)."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                self._watched[id(t)] = t
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 f"tf.Tensor or tf.Variable or ExtensionType.")

    def _watch_variable(self, v):
        handle = _graph_handle(v)
        self._watched[id(handle)] = handle
        self._variables.setdefault(id(v), v)

    def watched_variables(self):
        return tuple(self._variables.values())

    def _consider(self, opdef, inputs):
        if self._watch_accessed_variables and (opdef.name == "ReadVariableOp"
                                               or opdef.meta.get("reads_variables")):
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
        """Context manager: ops inside it are not recorded on this tape."""
        tape = self

        class _Pause:
            def __enter__(self):
                tape._recording = False

            def __exit__(self, *exc):
                tape._recording = True

        return _Pause()

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording)."""
        self._records = []
        self._watched = {}
        self._variables = {}

    # --- differentiation --------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources), with the structure of ``sources``.

        Raises:
            RuntimeError: for a second call on a non-persistent tape.
            ValueError: for sources that are not tensors or variables.
        """
        from .backprop import backward

        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True
        unconnected = UnconnectedGradients(unconnected_gradients)
        flat_sources = nest.flatten(sources)
        keys = []
        for s in flat_sources:
            if isinstance(s, Variable):
                keys.append(_graph_handle(s))
            elif isinstance(s, Tensor):
                keys.append(s)
            else:
                raise ValueError(f"Attempted to take gradient of a value of type {type(s)}, "
                                 f"which is not a tensor or variable.")
        targets = nest.flatten(target)
        targets = [t.value() if isinstance(t, Variable) else t for t in targets]
        grads_out = nest.flatten(output_gradients) if output_gradients is not None else None
        was_recording = self._recording
        self._recording = False  # the backward pass is recorded only by outer tapes
        try:
            grads = backward(self._records, targets, keys, grads_out)
        finally:
            self._recording = was_recording
        result = []
        for src, key, g in zip(flat_sources, keys, grads):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                from ..ops import array as array_ops

                g = array_ops.zeros_like(src.value() if isinstance(src, Variable) else src)
            result.append(g)
        return nest.pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d(target)/d(sources) for every element of ``target``: shape target.shape + source.shape."""
        from .backprop import jacobian

        return jacobian(self, target, sources, unconnected_gradients)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example jacobian: target [b, ...], source [b, ...] -> [b, target..., source...]."""
        from .backprop import batch_jacobian

        return batch_jacobian(self, target, source, unconnected_gradients)


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
