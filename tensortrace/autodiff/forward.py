"""``tf.autodiff.ForwardAccumulator``: forward-mode differentiation (Jacobian-vector products).

    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = f(x)
    acc.jvp(y)               # J_f(x) @ v

The accumulator sits on the context's tapes like a GradientTape; each op applied to a tensor
with a tangent gets its outputs' tangents at once, from the op's gradient rule used twice (as
TF does): the rule is linear in the output gradients ``dy``, so ``d/d dy <rule(dy), t_in>`` is
the forward product. Those ops run as ops, so an enclosing GradientTape records them
(Hessian-vector products), and an enclosing accumulator sees a tape's gradient computation.
"""

from .. import nest
from .._export import tf_export
from ..context import state
from ..convert import convert_to_tensor
from ..ops.array.creation import zeros_like
from ..ops.math.arithmetic import add, multiply
from ..ops.reduce import reduce_sum
from ..ops.sparse.indexed_slices import IndexedSlices
from ..registry import NON_DIFFERENTIABLE
from ..tensor import Tensor
from ..variables import Variable
from .backprop import densify, differentiable
from .tape import GradientTape, TapeRecord, UnconnectedGradients, _unconnected, _variable_of

_PASS_THROUGH = ("ReadVariableOp", "Identity", "IdentityN")


def _key(primal):
    """The tensor a primal's tangent belongs to (a variable: its handle, which reads take)."""
    if isinstance(primal, Variable):
        return primal.handle
    handle = getattr(primal, "handle", None)
    if handle is not None and not isinstance(primal, Tensor) and _variable_of(handle) is not None:
        return handle  # an object acting as a variable (Keras' variables)
    if isinstance(primal, Tensor):
        return primal
    raise TypeError(f"Expected a Tensor or Variable as a primal, got {primal!r}.")


@tf_export("autodiff.ForwardAccumulator")
class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff.

    ``primals`` (tensors or variables) are watched with ``tangents`` of the same structure;
    inside ``with`` every op computes its outputs' tangents, read back with ``jvp``.
    """

    def __init__(self, primals, tangents):
        self._tangents = {}  # id(tensor) -> (tensor, tangent): the tensor keeps its id unique
        self._recording = False
        self._entered = 0
        self.watch(primals, tangents)

    def __enter__(self):
        self._entered += 1
        self._recording = True
        state.tapes = state.tapes + (self,)
        return self

    def __exit__(self, *exc):
        self._entered -= 1
        if not self._entered:
            self._recording = False
            state.tapes = tuple(t for t in state.tapes if t is not self)

    def watch(self, primals, tangents):
        """Watch ``primals`` with ``tangents`` (the same structure; each tangent takes its
        primal's dtype and shape).

        Raises:
            ValueError: a tangent whose shape differs from its primal's.
        """
        nest.assert_same_structure(primals, tangents)
        for primal, tangent in zip(nest.flatten(primals), nest.flatten(tangents)):
            key = _key(primal)
            dtype = primal.dtype.base_dtype if hasattr(primal.dtype, "base_dtype") \
                else primal.dtype
            if not (dtype.is_floating or dtype.is_complex):
                raise ValueError(f"Tried to watch a primal of dtype {dtype.name}; only floating "
                                 f"and complex primals have tangents.")
            tangent = convert_to_tensor(tangent, dtype)
            if not primal.shape.is_compatible_with(tangent.shape):
                raise ValueError(f"Tangent {tangent!r} was not compatible with shape "
                                 f"{primal.shape} of primal {primal!r}.")
            old = self._tangents.get(id(key))
            if old is not None:  # watching again adds tangents, as TF's accumulator does
                tangent = add(old[1], tangent)
            self._tangents[id(key)] = (key, tangent)

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangent of each of ``primals`` (a structure of tensors): None (or zeros with
        ``UnconnectedGradients.ZERO``) for a tensor the watched primals do not reach."""
        unconnected = _unconnected(unconnected_gradients)

        def one(t):
            found = self._tangents.get(id(_key(t)))
            if found is not None:
                return found[1]
            return zeros_like(t) if unconnected is UnconnectedGradients.ZERO else None

        return nest.map_structure(one, primals)

    # --- the tape protocol ------------------------------------------------------------------
    def _record(self, opdef, inputs, attrs, outputs, shared=None):
        if not self._recording:
            return shared
        tangents = [self._tangents.get(id(x)) for x in inputs]
        if all(t is None for t in tangents):
            return shared
        tangents = [None if t is None else t[1] for t in tangents]
        self._recording = False  # the product's own ops carry no tangents of this accumulator
        try:
            out = self._push_forward(opdef, inputs, attrs, outputs, tangents)
        finally:
            self._recording = True
        for o, t in zip(outputs, out):
            if t is not None:
                self._tangents[id(o)] = (o, t)
        return shared

    def _push_forward(self, opdef, inputs, attrs, outputs, tangents):
        """The outputs' tangents: ``d/d dy sum(rule(dy) * tangent_in)`` (None where no float
        output, or the op has no gradient)."""
        if opdef.name in _PASS_THROUGH and len(inputs) == len(outputs):
            return tangents
        rule = opdef.grad
        if rule is None or rule is NON_DIFFERENTIABLE:
            return [None] * len(outputs)
        dys = [zeros_like(o) for o in outputs]
        live = [d for d, o in zip(dys, outputs) if differentiable(o)]
        if not live:
            return [None] * len(outputs)
        record = TapeRecord(opdef, tuple(inputs), attrs, tuple(outputs))
        record.skip_input_indices = tuple(i for i, t in enumerate(tangents) if t is None)
        with GradientTape(persistent=True) as tape:
            tape.watch(live)
            dxs = rule(record, *dys)
            if not isinstance(dxs, (tuple, list)):
                dxs = (dxs,)
            total = None
            for dx, t in zip(dxs, tangents):
                if dx is None or t is None:
                    continue
                if isinstance(dx, IndexedSlices):
                    dx = densify(dx)
                term = reduce_sum(multiply(dx, t))
                total = term if total is None else add(total, term)
        if total is None:
            return [None] * len(outputs)
        grads = iter(tape.gradient(total, live, unconnected_gradients=UnconnectedGradients.ZERO))
        return [next(grads) if differentiable(o) else None for o in outputs]
