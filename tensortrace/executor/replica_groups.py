"""Which ops of a traced graph may run at once: the per-replica work ``strategy.run`` traces.

While ``strategy.run`` is traced each replica's ops are appended in turn and the graph records
which replica made each op (``graph._replica_of``: op name -> replica id; op names survive the
optimization passes). ``plan`` cuts the ops, in emission order, into plain runs and
``Group``s: a group is a stretch of consecutive replica ops whose replicas' parts are
independent of each other (no value or control edge between parts, no resource written by one
part and used by another, no op whose effects are ordered globally such as printing), so the
parts can be called on threads (``run_parts``: NumPy releases the GIL in its kernels) and
give the very values the sequential order gives. Ops of the merge functions (all-reduce,
``merge_call``) are made by no replica: they end a group, as the replicas meet there.
"""

from .. import dtypes
from ..registry import get as get_op
from . import parallel

#: The second-biggest part of a group must cost this many element operations (about a
#: nanosecond each) to pay for handing parts to threads (measured 120-190 us with every core
#: busy; tens of us on idle cores).
MIN_PART_WORK = 1 << 18

#: Stateful ops that only read the resources they are given (parts may share those).
_READERS = frozenset({"ReadVariableOp", "VarIsInitializedOp", "ResourceGather",
                      "ResourceGatherNd", "VariableShape", "LookupTableFindV2",
                      "LookupTableSizeV2"})

_MATMULS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})

_BEFORE = -1  # the "part" of the ops a group runs before its parts


class Group:
    """Ops of ``parts[r]`` (each in emission order) run by replica ``r``'s thread, after the
    ops of ``before`` (a value several parts read, common subexpressions merged into one op)
    run in order; ``consts`` have no line (a global each) and are emitted first."""

    def __init__(self):
        self.consts, self.before = [], []
        self.parts = {}  # replica id -> [ops]
        self.ops = []  # every op of the group, in emission order
        self.made = {}  # id(op) -> replica id of its part (or _BEFORE)
        self.resources = {}  # id(resource tensor) -> [replica ids using it, written?]

    def take(self, op, replica):
        """Add ``op`` to part ``replica`` if it depends on no other part (an op of another
        part that only reads values from before the group moves to ``before``); False, and
        nothing changed, when it cannot join."""
        moved = []
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            if self.made.get(id(dep), replica) not in (replica, _BEFORE):
                if not self._movable(dep):
                    return False
                moved.append(dep)
        writes = op.type not in _READERS
        for t in _resource_inputs(op):
            entry = self.resources.get(id(t))
            if entry is not None and (entry[0] - {replica}) and (writes or entry[1]):
                return False
        for dep in dict.fromkeys(moved):
            part = self.parts[self.made[id(dep)]]
            part.remove(dep)
            if not part:
                del self.parts[self.made[id(dep)]]
            self.before.append(dep)
            self._mark(dep, _BEFORE)
        self.parts.setdefault(replica, []).append(op)
        self.ops.append(op)
        self._mark(op, replica)
        for t in _resource_inputs(op):
            entry = self.resources.setdefault(id(t), [set(), False])
            entry[0].add(replica)
            entry[1] = entry[1] or writes
        return True

    def _movable(self, op):
        """Whether ``op`` can run before the parts: stateless, on values from before them."""
        return not get_op(op.type).stateful and not op.subgraphs() and all(
            self.made.get(id(d), _BEFORE) == _BEFORE
            for d in [t.op for t in op.inputs] + list(op.control_inputs))

    def _mark(self, op, part):
        self.made[id(op)] = part

    def worth_threads(self):
        """At least two parts, the second-biggest with enough work to pay for threads."""
        if len(self.parts) < 2:
            return False
        costs = sorted(sum(map(_cost, ops)) for ops in self.parts.values())
        return costs[-2] >= MIN_PART_WORK


def plan(graph, ops):
    """``ops`` (emission order, no placeholders) as a list of items, each a list of ops run
    in order or a ``Group``; None when ``graph`` has no replica work worth threads."""
    replica_of = getattr(graph, "_replica_of", None)
    if not replica_of:
        return None
    items, run, group = [], [], None

    def close():
        nonlocal group, run
        if group is not None:
            if group.worth_threads():
                if run:
                    items.append(run)
                items.append(group)
                run = []
            else:  # in order, with the ops around it
                run += group.consts + group.ops
            group = None

    for op in ops:
        if op.type == "Const":  # a global, no line: emitted before the ops of its run
            (group.consts if group is not None else run).append(op)
            continue
        replica = replica_of.get(op.name)
        if replica is None or not _concurrent_safe(op):
            close()
            run.append(op)
            continue
        if group is not None and not group.take(op, replica):
            close()
        if group is None:
            group = Group()
            group.take(op, replica)
    close()
    if run:
        items.append(run)
    return items if any(isinstance(item, Group) for item in items) else None


def _resource_inputs(op):
    return [t for t in op.inputs if t.dtype is dtypes.resource]


def _concurrent_safe(op):
    """Whether ``op`` may run beside other replicas' ops: stateless, or stateful through
    resources it is given (checked per group), or a random op drawing from its own stream;
    never an op whose effects are ordered globally (printing, Python callbacks, files,
    collectives, asserts); ops holding branches or bodies only if all their ops are."""
    opdef = get_op(op.type)
    if opdef.stateful and not _resource_inputs(op) and "seed" not in op.attrs:
        return False
    for _, sub in op.subgraphs():
        for inner in sub.get_operations():
            if inner.type != "Placeholder" and not _concurrent_safe(inner):
                return False
    return True


def _elements(t):
    """Static element count, unknown dimensions counted as 1."""
    n = 1
    for d in t.shape.as_list() if t.shape.rank is not None else ():
        n *= d if d is not None else 1
    return n


def _cost(op):
    """Rough element operations of ``op``: a product's result times its inner dimension."""
    out = sum(_elements(t) for t in op.outputs)
    if op.type in _MATMULS and op.inputs and op.inputs[0].shape.rank:
        inner = op.inputs[0].shape.as_list()
        k = inner[-2] if op.attrs.get("transpose_a") or op.attrs.get("adj_x") else inner[-1]
        return out * (k or 1)
    if op.type.startswith("Conv") and len(op.inputs) > 1 and op.inputs[1].shape.rank:
        window = op.inputs[1].shape.as_list()[:-1]
        return out * _product(window)
    return out


def _product(dims):
    n = 1
    for d in dims:
        n *= d or 1
    return n


def run_parts(parts):
    """Call each function of ``parts`` (no arguments) on the shared pool's threads and this
    one; their results in order. A failure raises the error of the first failing part, as
    calling them in order would; every started part has finished by then."""
    results = [None] * len(parts)

    def call(index, _buffers):
        results[index] = parts[index]()

    parallel.run_blocks(call, len(parts), 1, ())
    return results
