"""Buffer reuse for generated code: liveness over a graph's ops, in the order codegen emits
them, decides which elementwise ops write their result into the buffer of an intermediate that
has just died (``np.add(Mul, _c5, out=Mul)``) instead of allocating a fresh array.

A buffer is reused only when it is certainly private to the generated function: the result of
an op whose kernel is a NumPy ufunc (a fresh array), read only by such ops (none of them keeps
or views its inputs), and not an output of the graph. Feeds, captures, constants, variable
values and views (reshape, identity, slices ...) are never written. Results stay bit-identical
to the kernels': the ufunc is the kernel's own, its loop is resolved from the static input
dtypes, and the buffer has the result's exact static shape and dtype. Small arrays are left
alone (allocation is cheap there and ``out=`` costs a keyword call).
"""

import operator

import numpy as np

from ..registry import get as get_op

#: Results smaller than this many bytes are allocated fresh, as before.
MIN_BYTES = 1 << 14

# Kernels written with Python's operators: on arrays they are these ufuncs.
_OPERATOR_UFUNCS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.truediv: np.true_divide, operator.neg: np.negative,
    operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater,
    operator.ge: np.greater_equal,
}


def kernel_ufunc(opdef):
    """The NumPy ufunc ``opdef``'s kernel is (through ``numerics.quiet``, which only silences
    warnings), or None."""
    kernel = getattr(opdef.kernel, "__wrapped__", opdef.kernel)
    if isinstance(kernel, np.ufunc):
        return kernel
    try:
        return _OPERATOR_UFUNCS.get(kernel)
    except TypeError:  # an unhashable callable
        return None


def _key(t):
    """(shape, NumPy dtype) of a tensor whose buffer may be reused, else None."""
    shape, np_dtype = t.shape, t.dtype._np
    if np_dtype is None or np_dtype.kind not in "biufc" or not shape.is_fully_defined():
        return None
    dims = tuple(shape.as_list())
    if not dims or np_dtype.itemsize * shape.num_elements() < MIN_BYTES:
        return None  # 0-d ufunc results are NumPy scalars, not buffers
    return dims, np_dtype


def _writable(op, skip):
    """(ufunc, key) when ``op`` is an elementwise ufunc op whose result may go into a buffer."""
    if op.type in ("Const", "Placeholder") or op.attrs or len(op.outputs) != 1 or id(op) in skip:
        return None
    opdef = get_op(op.type)
    ufunc = None if opdef.emit is not None else kernel_ufunc(opdef)
    if ufunc is None or ufunc.nout != 1 or ufunc.nin != len(op.inputs):
        return None
    key = _key(op.outputs[0])
    if key is None:
        return None
    dtypes = [t.dtype._np for t in op.inputs]
    if any(d is None or d.kind not in "biufc" for d in dtypes):
        return None
    try:  # the loop the kernel runs must produce exactly the buffer's dtype: no casting
        resolved = ufunc.resolve_dtypes(tuple(dtypes) + (None,))
    except (TypeError, ValueError):
        return None
    if resolved[-1] != key[1] or any(r != d for r, d in zip(resolved, dtypes)):
        return None
    return ufunc, key


class Plan:
    """Where each op writes: ``out[i] = (ufunc, tensor)`` makes op ``i`` call ``ufunc`` with
    ``out=`` that tensor's buffer; ``keep[id(t)] = j`` defers deleting the dead ``t`` until
    after op ``j``, which writes into it."""

    def __init__(self):
        self.out = {}
        self.keep = {}


def plan(ops, outputs, skip=()):
    """The reuse plan for ``ops`` (in emission order) producing ``outputs``; ``skip`` holds the
    ids of ops something else emits."""
    result = Plan()
    writable = {}
    for i, op in enumerate(ops):
        w = _writable(op, skip)
        if w is not None:
            writable[i] = w
    if not writable:
        return result
    owned = {id(ops[i].outputs[0]) for i in writable}
    last = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = i
            if i not in writable:
                owned.discard(id(t))  # read by an op that may keep or view it
    owned.difference_update(id(t) for t in outputs)
    dying = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            if id(t) in owned and last[id(t)] == i:
                dying.setdefault(i, {})[id(t)] = t
    free = {}  # key -> dead buffers, the most recently freed last (likely still in cache)
    for i, op in enumerate(ops):
        dead = dying.get(i, {})
        donor = None
        if i in writable:
            ufunc, key = writable[i]
            donor = next((t for t in dead.values() if _key(t) == key), None)
            if donor is None and free.get(key):
                donor = free[key].pop()
                result.keep[id(donor)] = i
            if donor is not None:
                result.out[i] = (ufunc, donor)
        for t in dead.values():
            if t is not donor:
                free.setdefault(_key(t), []).append(t)
    return result
