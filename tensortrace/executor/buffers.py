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

A long run of such ops on one big shape is evaluated block by block along axis 0 (``Block``):
a block's intermediates stay in cache, and only the values read after the run get full arrays.
Elementwise loops give each element the same bits whatever the block boundaries. A run with
enough work to pay for the hand-off (``PARALLEL_MIN_WORK``) has its blocks shared out among
threads (``parallel``), each block's fresh arrays going into its thread's scratch buffers.
"""

import operator

import numpy as np

from ..registry import get as get_op

#: Results smaller than this many bytes are allocated fresh, as before.
MIN_BYTES = 1 << 14
#: Elements in one block of a blocked run (128 KB of float32: a few buffers fit in L2).
BLOCK_ELEMENTS = 1 << 15
#: Fewest consecutive elementwise ops worth a blocked loop.
MIN_BLOCK_OPS = 4
#: Fewest elements times ops of a blocked run worth running on several threads: ~3 ms of cheap
#: ufunc loops on one thread, against a hand-off of ~30-50 us; on a machine whose cores are all
#: busy, two threads are no slower than one from here on (smaller runs lose up to 2x there).
PARALLEL_MIN_WORK = 1 << 24

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
    if len(op.outputs) != 1 or op.attrs or op.type in ("Const", "Placeholder") or id(op) in skip:
        return None
    key = _key(op.outputs[0])
    if key is None:
        return None
    opdef = get_op(op.type)
    ufunc = None if opdef.emit is not None else kernel_ufunc(opdef)
    if ufunc is None or ufunc.nout != 1 or ufunc.nin != len(op.inputs):
        return None
    dtypes = tuple(t.dtype._np for t in op.inputs)
    if any(d is None or d.kind not in "biufc" for d in dtypes):
        return None
    exact = _EXACT.get((ufunc, dtypes, key[1]))
    if exact is None:
        try:  # the loop the kernel runs must take and give exactly these dtypes: no casting
            resolved = ufunc.resolve_dtypes(dtypes + (None,))
            exact = resolved[-1] == key[1] and resolved[:-1] == dtypes
        except (TypeError, ValueError):
            exact = False
        _EXACT[(ufunc, dtypes, key[1])] = exact
    return (ufunc, key) if exact else None


_EXACT = {}  # (ufunc, input dtypes, result dtype) -> whether its loop is exactly that


class Plan:
    """Where each op writes: ``out[i] = (ufunc, tensor)`` makes op ``i`` call ``ufunc`` with
    ``out=`` that tensor's buffer; ``keep[id(t)] = j`` defers deleting the dead ``t`` until
    after op ``j``, which writes into it; ``blocks[i]`` is a ``Block`` starting at op ``i``."""

    def __init__(self):
        self.out = {}
        self.keep = {}
        self.blocks = {}


class Block:
    """Ops ``start .. stop - 1``, elementwise with results of one ``shape``, run in a loop over
    blocks of ``rows`` rows. ``made``: ids of their results; ``live_out``: those read after the
    run (each written into a full array); ``sliced``: ids of inputs from before the run that
    are cut into blocks too (the others broadcast whole); ``inner``: the reuse plan of a
    block; ``ufuncs``: {index in the run: ufunc} (the run's other ops are constants).
    ``scratch``: None for a plain loop, else the dtypes of the scratch buffers of a block run
    on threads (``parallel.run_blocks``), ``slots[index in the run]`` the one an op writes
    into instead of a fresh array."""

    def __init__(self, start, stop, shape, rows, made, live_out, sliced, inner, ufuncs):
        self.start, self.stop, self.shape, self.rows = start, stop, shape, rows
        self.made, self.live_out, self.sliced = made, live_out, sliced
        self.inner, self.ufuncs = inner, ufuncs
        self.scratch, self.slots = None, {}


def plan(ops, outputs, skip=(), blocked=True):
    """The reuse plan for ``ops`` (in emission order) producing ``outputs``; ``skip`` holds the
    ids of ops something else emits; ``blocked`` allows blocked runs."""
    result = Plan()
    writable = {}
    for i, op in enumerate(ops):
        w = _writable(op, skip)
        if w is not None:
            writable[i] = w
    if not writable:
        return result
    if blocked:
        result.blocks = _blocks(ops, outputs, writable)
        for block in result.blocks.values():
            for i in range(block.start, block.stop):
                writable.pop(i, None)
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


def _blocks(ops, outputs, writable):
    """{start: Block} for the runs of consecutive elementwise ops on one big shape."""
    found = {}
    i = 0
    while i < len(ops):
        if i not in writable:
            i += 1
            continue
        shape = writable[i][1][0]
        inner = int(np.prod(shape[1:], dtype=np.int64))
        if inner > BLOCK_ELEMENTS or shape[0] * inner < 2 * BLOCK_ELEMENTS:
            i += 1
            continue
        made, sliced, j, end = set(), set(), i, i
        while j < len(ops):
            if ops[j].type == "Const":  # a global in the generated code: no line
                j += 1
                continue
            if j not in writable or writable[j][1][0] != shape:
                break
            cut = _cut_inputs(ops[j], shape, made)
            if cut is None:
                break
            sliced |= cut
            made.add(id(ops[j].outputs[0]))
            j = end = j + 1
        if len(made) < MIN_BLOCK_OPS:
            i = max(end, i + 1)
            continue
        run = ops[i:end]
        later = {id(t) for op in ops[end:] for t in op.inputs} | {id(t) for t in outputs}
        live_out = [t for t in (op.outputs[0] for op in run) if id(t) in made and id(t) in later]
        inner_plan = plan(run, live_out, blocked=False)
        ufuncs = {k - i: writable[k][0] for k in range(i, end) if k in writable}
        found[i] = block = Block(i, end, shape, max(1, BLOCK_ELEMENTS // inner), made, live_out,
                                 sliced, inner_plan, ufuncs)
        if len(made) * shape[0] * inner >= PARALLEL_MIN_WORK:
            block.slots, block.scratch = _scratch(run, live_out, inner_plan)
        i = end
    return found


def _scratch(run, live_out, inner):
    """({index in the run: slot}, dtype of each slot) for the ops of a block that would make a
    fresh array: an op takes a slot of its dtype that holds no live value, else a new one (an
    op writing into a dead value, ``inner.out``, keeps that value's slot)."""
    last = {}
    for k, op in enumerate(run):
        for t in op.inputs:
            last[id(t)] = k
    full = {id(t) for t in live_out}
    slot_of, slots, dtypes = {}, {}, []
    for k, op in enumerate(run):
        if op.type == "Const" or id(op.outputs[0]) in full:
            continue
        t = op.outputs[0]
        donor = inner.out.get(k)
        if donor is not None:
            slot_of[id(t)] = slot_of[id(donor[1])]
            continue
        busy = {slot_of[key] for key, j in last.items() if j >= k and key in slot_of}
        dtype = t.dtype._np
        slot = next((s for s, d in enumerate(dtypes) if d == dtype and s not in busy), None)
        if slot is None:
            slot = len(dtypes)
            dtypes.append(dtype)
        slot_of[id(t)] = slots[k] = slot
    return slots, dtypes


def _cut_inputs(op, shape, made):
    """Ids of ``op``'s inputs from before the run that are cut into blocks with it, or None
    when one of them can be neither cut along axis 0 nor broadcast whole."""
    cut = set()
    for t in op.inputs:
        if id(t) in made:
            continue
        if not t.shape.is_fully_defined():
            return None
        dims = t.shape.as_list()
        if len(dims) == len(shape) and dims[0] == shape[0]:
            cut.add(id(t))
        elif len(dims) > len(shape) or (len(dims) == len(shape) and dims[0] != 1):
            return None
    return cut
