"""The runtime of ``if``, ``while`` and ``for``: Python semantics when the condition or iterable
is a Python value (or an eager tensor), graph control flow (``tf.cond``/``tf.while_loop``) when
it is a symbolic tensor.

Each statement comes as functions over a state: ``body()``/``orelse()`` run a block,
``get_state()`` returns the values of the variables the block shares (``symbol_names``),
``set_state(values)`` assigns them. Staging sets the state to the branch's or loop's inputs,
runs the block, and reads the state back as the outputs.
"""

import contextlib

import numpy as np

from ... import nest
from ...context import state
from ...convert import constant, convert_to_tensor
from ...errors import OperatorNotAllowedInGraphError
from ...graph.ir import Graph
from ...ops.control_flow.conditionals import cond as tf_cond
from ...ops.control_flow.loops import while_loop
from ...ops.math.compare import logical_and, logical_or
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from . import checks
from .checks import LEGAL_LOOP_TYPES
from .py_builtins import graph_assert, len_
from .values import convertible, is_symbolic, is_tensor_array, to_tensor
from .variables import Undefined, UndefinedReturnValue

_exploring = [0]  # > 0 while a loop body is staged in a scratch graph to learn its types


def _no_state():
    return ()


def _no_set_state(values):
    pass


@contextlib.contextmanager
def _scratch_graph():
    """A throwaway graph nested in the current one: code runs there to learn what it makes."""
    with Graph("scratch", outer=state.graph).as_default():
        yield


# --- if -----------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """``if cond: body() else: orelse()``, as ``tf.cond`` when ``cond`` is a symbolic tensor.

    Args:
        nouts: how many of ``symbol_names`` (the first ones) the statement outputs; the rest
            are only read by the branches.
    """
    if is_symbolic(cond):
        _tf_if_stmt(cond, body, orelse, get_state or _no_state, set_state or _no_set_state,
                    symbol_names, nouts)
    elif cond:
        body()
    elif orelse is not None:
        orelse()


def _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    pred = checks.verify_condition(cond, "if statement")
    init = get_state()
    if _exploring[0]:
        _explore_if_stmt(body, orelse, get_state, set_state, init, nouts)
        return
    names = symbol_names[:nouts]
    before = checks.snapshot_lists(tuple(init[:nouts]))
    results = {}

    def branch(block, key):
        def run():
            set_state(init)
            if block is not None:
                block()
            values = tuple(get_state()[:nouts])
            checks.verify_branch_vars(values, names, key)
            for name, old, new in zip(names, before, values):
                checks.check_list_growth(name, old, new, "conditional")
            results[key] = values
            if len(results) == 2:
                checks.verify_cond_vars(results["main"], results["else"], names)
            return _cond_outputs(values)

        return run

    outputs = _cond(pred, branch(body, "main"), branch(orelse, "else"))
    final = _merge_cond_outputs(outputs, results["main"], results["else"])
    set_state(final + tuple(init[nouts:]))


def _explore_if_stmt(body, orelse, get_state, set_state, init, nouts):
    """While a loop body is staged only to learn its variables' types: run both branches and
    keep, for each variable, the value of a branch that defines it (a ``return`` inside the
    loop may sit in one branch only)."""
    values = []
    for block in (body, orelse):
        set_state(init)
        if block is not None:
            block()
        values.append(tuple(get_state()[:nouts]))
    merged = tuple(b if isinstance(a, UndefinedReturnValue) else a for a, b in zip(*values))
    set_state(merged + tuple(init[nouts:]))


def _cond_outputs(values):
    """The flat outputs of a branch: its state's convertible leaves, as tensors."""
    return tuple(to_tensor(x) for x in nest.flatten(list(values)) if convertible(x))


def _cond(pred, true_fn, false_fn):
    """``tf.cond`` over flat tuples of outputs; always returns a tuple."""
    out = tf_cond(pred, true_fn, false_fn)
    if out is None:
        return ()
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _merge_cond_outputs(outputs, main, orelse):
    """The state after a staged conditional: values both branches agree on stay Python values
    (the same object, or equal Python scalars); the others are the conditional's outputs."""
    outputs = iter(outputs)
    merged = []
    for a, b in zip(nest.flatten(list(main)), nest.flatten(list(orelse))):
        out = next(outputs) if convertible(a) else None
        if a is b or (type(a) is type(b) and isinstance(a, (bool, int, float, str))
                      and a == b):
            merged.append(a)
        else:
            merged.append(out)
    return tuple(nest.pack_sequence_as(list(main), merged))


# --- while --------------------------------------------------------------------------------------
def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """``while test(): body()``, as ``tf.while_loop`` when the test is a symbolic tensor."""
    if state.graph is not None:
        with _scratch_graph():  # learn the test's type without adding it to the graph
            first = test()
    else:
        first = test()
    if is_symbolic(first):
        _tf_while_stmt(test, body, get_state or _no_state, set_state or _no_set_state,
                       symbol_names, opts)
        return
    if not first:
        return
    body()
    _py_while_stmt(test, body)


def _py_while_stmt(test, body):
    while _python_bool(test(), _WHILE_TURNED_TENSOR):
        body()


_SEE_LIMITATIONS = (
    "\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
    "g3doc/reference/limitations.md#consistency-of-control-flow-types for more info.")
_WHILE_TURNED_TENSOR = (
    "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen "
    "either because variables changed type, or when a break or return statement inside the "
    "loop depends on a Tensor condition. In both cases, changing to a TF loop should remove the "
    "error." + _SEE_LIMITATIONS)
_FOR_TURNED_TENSOR = (
    "break and return statements which depend on a TF condition are not supported in Python "
    "for loops. Did you intend to make it a TF loop?" + _SEE_LIMITATIONS)


def _python_bool(value, message):
    try:
        return bool(value)
    except OperatorNotAllowedInGraphError as e:
        raise NotImplementedError(message) from e


def _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """Stage a ``tf.while_loop`` whose loop variables are the state's leaves."""
    init = tuple(get_state())
    invariants = _shape_invariants(opts, init)
    nulls = [_is_null(v) for v in init]
    require_iteration = False
    if any(nulls):
        init, invariants, require_iteration = _define_nulls(body, get_state, set_state, init,
                                                            nulls, invariants, symbol_names)
    checks.verify_loop_init_vars(init, symbol_names)
    structure = list(init)
    flat_init = _loop_vars(init, symbol_names)
    # A flag first: whether the loop ran (for `require_iteration`), or a dummy when the loop
    # has no variables (it changes only state outside them, such as tf.Variables).
    flagged = require_iteration or not flat_init

    def aug_test(*flat):
        set_state(tuple(nest.pack_sequence_as(structure, flat[int(flagged):])))
        return checks.verify_condition(test(), "while loop")

    def aug_body(*flat):
        entry = tuple(nest.pack_sequence_as(structure, flat[int(flagged):]))
        set_state(entry)
        body()
        new = tuple(get_state())
        checks.verify_loop_vars(init, entry, new, symbol_names, invariants)
        out = _loop_vars(new, symbol_names)
        return ((constant(True),) if flagged else ()) + out

    loop_invariants = _flat_invariants(init, invariants)
    if flagged:
        flat_init = (constant(False),) + flat_init
        loop_invariants = None if loop_invariants is None else [None] + loop_invariants
    kwargs = {}
    if loop_invariants is not None:
        kwargs["shape_invariants"] = loop_invariants
    if opts.get("maximum_iterations") is not None:
        kwargs["maximum_iterations"] = opts["maximum_iterations"]
    if opts.get("parallel_iterations") is not None:
        kwargs["parallel_iterations"] = opts["parallel_iterations"]
    final = while_loop(aug_test, aug_body, list(flat_init), **kwargs)
    final = tuple(final) if isinstance(final, (list, tuple)) else (final,)
    if require_iteration:
        graph_assert(final[0], [checks.zero_iterations_message(symbol_names, nulls, init)])
    final = final[int(flagged):]
    set_state(tuple(nest.pack_sequence_as(structure, list(final))))


def _is_null(value):
    return value is None or isinstance(value, (Undefined, UndefinedReturnValue))


def _loop_vars(values, symbol_names):
    """The flat tensors a loop carries for ``values``."""
    flat = []
    for name, value in zip(symbol_names, values):
        for leaf in nest.flatten(value):
            if not convertible(leaf):
                raise ValueError(f"'{name}' must be a {LEGAL_LOOP_TYPES} to be a TensorFlow loop "
                                 f"variable; got {type(leaf).__name__} {leaf!r}")
            flat.append(to_tensor(leaf))
    return tuple(flat)


def _shape_invariants(opts, init):
    """Per-variable shape invariants from ``set_loop_options`` (matched by identity)."""
    pairs = opts.get("shape_invariants") or ()
    by_id = {id(v): s for v, s in pairs}
    return [by_id.get(id(v)) for v in init]


def _flat_invariants(init, invariants):
    if not any(s is not None for s in invariants):
        return None
    flat = []
    for value, inv in zip(init, invariants):
        leaves = nest.flatten(value)
        invs = nest.flatten(inv) if nest.is_nested(inv) else [inv] * len(leaves)
        flat.extend(None if s is None else TensorShape(s) for s in invs)
    return flat


def _define_nulls(body, get_state, set_state, init, nulls, invariants, symbol_names):
    """Give variables undefined (or None) before a loop a starting value of the type one
    iteration gives them: zeros, checked at run time to be overwritten (TF's rule)."""
    first = None
    failure = None
    _exploring[0] += 1
    try:
        with _scratch_graph():
            set_state(tuple(_placeholder_like(v) for v in init))
            body()
            first = tuple(get_state())
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        failure = (f"Note: AutoGraph tried to define it automatically, but ran into a "
                   f"{type(e).__name__}: {e}")
    finally:
        _exploring[0] -= 1
        set_state(init)
    if first is None:
        checks.verify_loop_init_vars(init, symbol_names, extra_message=failure)
    values, invariants = list(init), list(invariants)
    require = False
    for i, (value, null) in enumerate(zip(init, nulls)):
        if not null:
            continue
        zero, invariant = _zeros_like(first[i], invariants[i])
        if zero is None:
            checks.verify_loop_init_vars([value], [symbol_names[i]], [first[i]], failure)
        values[i] = zero
        invariants[i] = invariants[i] if invariants[i] is not None else invariant
        require = require or not isinstance(value, UndefinedReturnValue)
    return tuple(values), invariants, require


def _placeholder_like(value):
    """A placeholder standing for ``value`` in the scratch graph (Python values included)."""
    def leaf(x):
        if _is_null(x) or not convertible(x) or is_tensor_array(x):
            return x
        t = to_tensor(x)
        return state.graph.placeholder(TensorSpec(t.shape, t.dtype), "Placeholder")

    return nest.map_structure(leaf, value) if nest.is_nested(value) else leaf(value)


def _zeros_like(like, invariant):
    """A zero value shaped like ``like``, and the shape invariant it needs (dims unknown)."""
    if _is_null(like):
        return None, None
    if isinstance(like, (bool, int, float)):
        return type(like)(0), None
    if isinstance(like, Tensor):
        shape = TensorShape(invariant) if invariant is not None else like.shape
        if shape.rank is None:
            dims, needs = (), shape
        else:
            dims = [0 if d is None else d for d in shape.dims]
            needs = shape if None in shape.dims else None
        np_dtype = like.dtype.as_numpy_dtype
        zeros = np.zeros(dims, dtype=object if like.dtype.name == "string" else np_dtype)
        if like.dtype.name == "string":
            zeros[...] = b""
        return constant(zeros, dtype=like.dtype), needs
    if isinstance(like, (list, tuple, dict)):
        pairs = [_zeros_like(x, None) for x in nest.flatten(like)]
        if any(z is None for z, _ in pairs):
            return None, None
        return (nest.pack_sequence_as(like, [z for z, _ in pairs]),
                nest.pack_sequence_as(like, [s for _, s in pairs]))
    raise TypeError(f"Found an unsupported type '{type(like).__name__}' while creating "
                    f"placeholder for {like}. Supported types include Tensor, int, float, bool, "
                    "list, tuple or dict.")


# --- for ----------------------------------------------------------------------------------------
def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """``for target in iter_: body(target)``, while ``extra_test()`` (break flags) holds.

    A symbolic tensor is iterated along its first dimension (a ``tf.range`` by its bounds), a
    TensorArray element by element, both as a ``tf.while_loop``; anything else as Python.
    """
    get_state, set_state = get_state or _no_state, set_state or _no_set_state
    if is_symbolic(iter_):
        iter_ = convert_to_tensor(iter_)
        if iter_.op.type == "Range":
            _tf_range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        else:
            _tf_indexed_for_stmt(len_(iter_), iter_.__getitem__, extra_test, body,
                                 get_state, set_state, symbol_names, opts)
    elif is_tensor_array(iter_):
        size = iter_.size()
        if is_symbolic(size):
            _tf_indexed_for_stmt(size, iter_.read, extra_test, body, get_state, set_state,
                                 symbol_names, opts)
        else:
            _py_for_stmt((iter_.read(i) for i in range(int(size))), extra_test, body)
    elif state.graph is not None and _is_dataset(iter_):
        _dataset_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    else:
        _py_for_stmt(iter_, extra_test, body)


def _py_for_stmt(iter_, extra_test, body):
    if extra_test is None:
        for target in iter_:
            body(target)
        return
    if not _python_bool(extra_test(), _FOR_TURNED_TENSOR):
        return
    for target in iter_:
        body(target)
        if not _python_bool(extra_test(), _FOR_TURNED_TENSOR):
            break


def _is_dataset(value):
    return hasattr(value, "_for_loop")  # tf.data datasets and their iterators


def _with_iterate(get_state, set_state, symbol_names, opts, first, start_target=False):
    """State functions that carry the loop's iterate (``first`` at the start) in front of the
    user's variables. With ``start_target``, a target variable undefined before the loop starts
    as ``first`` too (TF's rule for ``range`` loops)."""
    box = [first]
    target = opts.get("iterate_names") if start_target else None

    def aug_get_state():
        values = tuple(first if (n == target and isinstance(v, Undefined)) else v
                       for n, v in zip(symbol_names, get_state()))
        return (box[0],) + values

    def aug_set_state(values):
        box[0] = values[0]
        set_state(values[1:])

    return box, aug_get_state, aug_set_state, ("<internal iterate>",) + tuple(symbol_names)


def _and_extra(main, extra_test):
    if extra_test is None:
        return main
    extra = extra_test()
    if not is_symbolic(extra):
        return main if extra else constant(False)
    return logical_and(main, extra)


def _tf_range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    start, limit, delta = iter_.op.inputs
    box, aug_get, aug_set, names = _with_iterate(get_state, set_state, symbol_names, opts, start,
                                                 start_target=True)
    step = static_value(delta)

    def aug_test():
        i = box[0]
        if step is not None:
            main = i < limit if step >= 0 else i > limit
        else:
            main = logical_or(logical_and(delta >= 0, i < limit),
                              logical_and(delta < 0, i > limit))
        return _and_extra(main, extra_test)

    def aug_body():
        body(box[0])
        box[0] = box[0] + delta

    _tf_while_stmt(aug_test, aug_body, aug_get, aug_set, names, opts)


def _tf_indexed_for_stmt(n, element, extra_test, body, get_state, set_state, symbol_names,
                         opts):
    """Iterate ``element(i)`` for ``i`` in ``range(n)`` as a graph loop."""
    box, aug_get, aug_set, names = _with_iterate(get_state, set_state, symbol_names, opts,
                                                 constant(0))

    def aug_test():
        return _and_extra(box[0] < n, extra_test)

    def aug_body():
        body(element(box[0]))
        box[0] = box[0] + 1

    _tf_while_stmt(aug_test, aug_body, aug_get, aug_set, names, opts)


def _dataset_for_stmt(ds, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over a dataset inside a trace: one graph loop fetching elements at run time."""
    init = tuple(get_state())
    checks.verify_loop_init_vars(init, symbol_names)
    structure = list(init)
    relaxed = [TensorShape(None)] * len(init)  # TF does not check shapes in these loops

    def loop_body(element, *flat):
        entry = tuple(nest.pack_sequence_as(structure, list(flat)))
        set_state(entry)
        body(element)
        new = tuple(get_state())
        checks.verify_loop_vars(init, entry, new, symbol_names, relaxed)
        return _loop_vars(new, symbol_names)

    def test(*flat):
        set_state(tuple(nest.pack_sequence_as(structure, list(flat))))
        return extra_test()

    final = ds._for_loop(loop_body, _loop_vars(init, symbol_names),
                         None if extra_test is None else test)
    set_state(tuple(nest.pack_sequence_as(structure, list(final))))
