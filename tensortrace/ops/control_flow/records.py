"""Control flow: ``tf.cond``, ``tf.case``, ``tf.switch_case`` and ``tf.while_loop``. Eagerly they
are Python; while tracing, each branch or loop body is traced into a sub-graph held by one
If/Case/While op (TF2's functional control flow), whose kernel runs the compiled sub-graphs in a
real Python ``if``/``while``.

    >>> tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])
    [<tf.Tensor: shape=(), dtype=int32, numpy=3>]
"""

import functools
import itertools
import weakref

import numpy as np

from ... import dtypes as D
from ... import errors, nest
from ..._export import tf_export
from ...context import bind, state
from ...convert import convert_to_tensor
from ...executor import compiled as compiled_module
from ...executor.compiled import compile_graph
from ...graph.ir import Graph, Operation
from ...passes.pipeline import optimize
from ...registry import NON_DIFFERENTIABLE, OpDef, all_ops, never_static, register
from ...registry import get as get_op
from ...shapes import TensorShape
from ...tensor import EagerTensor, Tensor, TensorSpec
from .. import tensor_array as _ta

_uid = itertools.count(1)

#: Set by AutoGraph: ``converter(fn) -> fn`` applied to branch, cond and body functions before
#: they are traced (TF converts them while AutoGraph is active). None: trace them as they are.
function_converter = None


# --- compiled sub-graphs ------------------------------------------------------------------------
class _Compiled:
    """A sub-graph compiled once, its captures fed first: ``fn(*captured, *inputs)`` returns one
    value, a tuple, or () (the kernel convention); ``exe.runtime_error(e)`` turns a failure into
    TF's error naming the node."""

    __slots__ = ("exe", "fn")

    def __init__(self, graph):
        view = Graph.__new__(type(graph))  # captures first, so a loop binds them once
        view.__dict__.update(graph.__dict__)
        view.inputs = [ph for _, ph in graph.captures] + list(graph.inputs)
        view.captures = []
        self.exe = compile_graph(view, graph.name)
        self.fn = self.exe.fn


_COMPILED = {}  # id(sub-graph) -> {executor name: _Compiled}


def _compiled(graph):
    """The sub-graph compiled with the current executor: lazily, once per graph (so per op)."""
    per_graph = _COMPILED.get(id(graph))
    if per_graph is None:
        per_graph = _COMPILED[id(graph)] = {}
        weakref.finalize(graph, _COMPILED.pop, id(graph), None)
    executor = compiled_module.default_executor
    compiled = per_graph.get(executor)
    if compiled is None:
        compiled = per_graph[executor] = _Compiled(graph)
    return compiled


def _run(graph, inputs):
    """Run a branch (whose feeds are all captures) on ``inputs``."""
    compiled = _compiled(graph)
    try:
        return compiled.fn(*inputs)
    except Exception as e:  # noqa: BLE001 - reported as TF does, naming the failing node
        raise compiled.exe.runtime_error(e) from None


def _runtime_error(e, candidates):
    """``e`` as TF's error, attributed to the compiled sub-graph whose code raised it."""
    tb = e.__traceback__
    files = set()
    while tb is not None:
        files.add(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for compiled in candidates:
        if getattr(compiled.exe, "filename", None) in files:
            return compiled.exe.runtime_error(e)
    return e if isinstance(e, errors.OpError) else candidates[-1].exe.runtime_error(e)


def _scalar_pred(value):
    """A predicate as a Python truth value; TF squeezes it and requires a single element."""
    arr = np.asarray(value)
    if arr.size != 1:
        dims = [d for d in arr.shape if d != 1]
        raise errors.invalid_argument(
            f"The second input must be a scalar, but it has shape [{','.join(map(str, dims))}]")
    return bool(arr.reshape(()))


def _register(name, infer, kernel, stateful):
    opdef = register(OpDef(name, infer, kernel, stateful=stateful))
    opdef.static = never_static
    return opdef


def _specs(dtypes, shapes):
    specs = tuple(TensorSpec(s, d) for s, d in zip(shapes, dtypes))
    return specs[0] if len(specs) == 1 else specs


# --- If / Case ----------------------------------------------------------------------------------
def _if_infer(cond, *inputs, then_branch, else_branch, Tout, output_shapes):
    return _specs(Tout, output_shapes)


def _if_kernel(cond, *inputs, then_branch, else_branch, Tout, output_shapes):
    if type(cond) is not np.bool_:
        cond = _scalar_pred(cond)
    return _run(then_branch if cond else else_branch, inputs)


def _case_infer(branch_index, *inputs, branches, Tout, output_shapes):
    return _specs(Tout, output_shapes)


def _case_kernel(branch_index, *inputs, branches, Tout, output_shapes):
    index = int(branch_index)
    if not 0 <= index < len(branches):
        index = len(branches) - 1  # TF runs the last branch (the default) when out of range
    return _run(branches[index], inputs)


IF = _register("If", _if_infer, _if_kernel, stateful=True)
STATELESS_IF = _register("StatelessIf", _if_infer, _if_kernel, stateful=False)
CASE = _register("Case", _case_infer, _case_kernel, stateful=True)
STATELESS_CASE = _register("StatelessCase", _case_infer, _case_kernel, stateful=False)


# --- While --------------------------------------------------------------------------------------
def _while_infer(*inputs, cond, body, T, output_shapes, parallel_iterations,
                 has_maximum_iterations=False):
    return _specs(T, output_shapes)


def _while_kernel(*inputs, cond, body, T, output_shapes, parallel_iterations,
                  has_maximum_iterations=False):
    limit = -1
    if has_maximum_iterations:
        limit = _limit(inputs[0])
        inputs = inputs[1:]
    n = len(T)
    values, captured = inputs[:n], inputs[n:]
    c, b = _compiled(cond), _compiled(body)
    pred, step = c.fn, b.fn
    if captured:
        pred, step = functools.partial(pred, *captured), functools.partial(step, *captured)
    if cond.outputs[0].shape.rank != 0:  # not known to be a scalar: squeeze and check it
        raw = pred
        pred = lambda *a: _scalar_pred(raw(*a))
    try:
        if has_maximum_iterations:
            values = _bounded_loop(pred, step, values, limit)
        elif n == 1:
            value = values[0]
            while pred(value):
                value = step(value)
            return value
        else:
            while pred(*values):
                values = step(*values)
    except Exception as e:  # noqa: BLE001 - reported as TF does, naming the failing node
        raise _runtime_error(e, (c, b)) from None
    return values[0] if n == 1 else values


def _bounded_loop(pred, step, values, limit):
    count = 0
    single = len(values) == 1
    while count < limit and pred(*values):
        values = step(*values)
        if single:
            values = (values,)
        count += 1
    return values


def _limit(value):
    arr = np.asarray(value)
    if arr.ndim:
        raise errors.invalid_argument(f"The second input must be a scalar, but it has shape "
                                      f"[{','.join(map(str, arr.shape))}]")
    return int(arr)


WHILE = _register("While", _while_infer, _while_kernel, stateful=True)
STATELESS_WHILE = _register("StatelessWhile", _while_infer, _while_kernel, stateful=False)


# --- Assert -------------------------------------------------------------------------------------
def _summary(arr, summarize):
    flat = np.asarray(arr).reshape(-1)
    if summarize is not None and summarize >= 0:
        flat = flat[:summarize]
    return " ".join(v.decode("utf-8", "replace") if isinstance(v, bytes) else
                    str(int(v)) if isinstance(v, (bool, np.bool_)) else str(v) for v in flat)


def _assert_infer(condition, *data, summarize):
    return ()


def _assert_kernel(condition, *data, summarize):
    if not np.all(condition):
        text = " ".join(f"[{_summary(d, summarize)}]" for d in data)
        raise errors.invalid_argument(f"assertion failed: {text}")
    return ()


ASSERT = all_ops().get("Assert")  # a shared op: define it only if no other family has
if ASSERT is None:
    ASSERT = _register("Assert", _assert_infer, _assert_kernel, stateful=True)
    ASSERT.grad = NON_DIFFERENTIABLE


def _eager_datum(t):
    value = np.asarray(t._value if isinstance(t, EagerTensor) else t)
    if value.ndim == 0:
        return repr(value.item()) if isinstance(value.item(), bytes) else str(value.item())
    return ", ".join(str(v) for v in value.reshape(-1).tolist())


def Assert(condition, data, summarize=None, name=None):
    """``tf.debugging.Assert``: raise InvalidArgumentError when ``condition`` is false.

    Eagerly it checks at once; in a graph it adds a stateful Assert op (returned None).
    """
    condition = convert_to_tensor(condition)
    data = [convert_to_tensor(d) for d in data]
    if state.graph is None:
        if not np.all(condition._value):
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: "
                + "\n".join(_eager_datum(d) for d in data))
        return
    bind(ASSERT, condition, *data, summarize=3 if summarize is None else int(summarize))


if ASSERT.kernel is _assert_kernel:
    tf_export("debugging.Assert", "Assert")(Assert)


# --- tracing branches and bodies ----------------------------------------------------------------
def _subgraph(kind):
    return Graph(f"{kind}_{next(_uid)}", outer=state.graph)


def _is_tensor_array(x):
    return isinstance(x, _ta.TensorArray)


def _output_tensor(graph, x, fn):
    """A branch or body result leaf as a tensor of ``graph``: TensorArrays give their flow,
    variables their value, Python values a constant, outer tensors a capture."""
    if _is_tensor_array(x):
        x = _ta.flow_of(x)
    elif not isinstance(x, Tensor):
        try:
            x = convert_to_tensor(x)
        except (TypeError, ValueError):
            raise TypeError(
                "To be compatible with tf.function, Python functions must return zero or more "
                f"Tensors or ExtensionTypes or None values; in compilation of {fn}, found "
                f"return value of type {type(x).__name__}, which is not a Tensor or "
                "ExtensionType.") from None
    if getattr(x, "graph", None) is not graph:
        x = graph.capture(x)
    return x


class _Traced:
    """One traced branch or body: its graph, the returned structure and its leaves."""

    def __init__(self, graph, result, leaves, tensors):
        self.graph = graph
        self.result = result
        self.leaves = leaves
        graph.outputs = tensors
        graph.structured_outputs = result

    def shown(self):
        """The result with tensors in place of Python values (for error messages)."""
        it = iter(self.graph.outputs)
        flat = [None if leaf is None else next(it) for leaf in self.leaves]
        return nest.pack_sequence_as(self.result, flat) if nest.is_nested(self.result) else \
            flat[0]


def _trace(kind, fn, args=(), specs=None, templates=None, structure=None, allow_none=True,
           op_value=None):
    """Trace ``fn(*args)`` into a new sub-graph; ``specs`` make placeholders standing for the
    flat loop variables, repacked like ``structure`` (TensorArrays rebuilt from ``templates``).
    A returned Operation stands for ``op_value`` run after it (TF's cond/switch_case: a
    branch returning ``tf.no_op()`` yields the predicate or index)."""
    graph = _subgraph(kind)
    if function_converter is not None:
        fn = function_converter(fn)
    with graph.as_default():
        if specs is not None:
            graph.inputs = [graph.placeholder(s, "loop_var") for s in specs]
            args = _pack(structure, templates, graph.inputs)
        result = fn(*args)
        if specs is not None and kind == "while_body" and not nest.is_nested(result):
            result = [result]
        leaves = nest.flatten(result)
        if op_value is not None and any(isinstance(x, Operation) for x in leaves):
            leaves = [_op_result(x, op_value) if isinstance(x, Operation) else x
                      for x in leaves]
            result = nest.pack_sequence_as(result, leaves) if nest.is_nested(result) \
                else leaves[0]
        tensors = []
        for leaf in leaves:
            if leaf is None:
                if not allow_none:
                    raise ValueError("None values not supported.")
                continue
            tensors.append(_output_tensor(graph, leaf, fn))
    return _Traced(graph, result, leaves, tensors)


def _op_result(op, value):
    from ..array import identity
    from ..utility import control_dependencies

    graph = state.graph
    if getattr(value, "graph", None) is not graph:
        value = graph.capture(value)  # before the block: a capture takes no control inputs
    with control_dependencies([op]):
        return identity(value)


def _pack(structure, leaves, tensors):
    """``structure`` with its leaves replaced by ``tensors`` (TensorArrays rebuilt around them,
    None kept)."""
    it = iter(tensors)
    flat = [None if leaf is None else
            _ta.from_flow(leaf, next(it)) if _is_tensor_array(leaf) else next(it)
            for leaf in leaves]
    return nest.pack_sequence_as(structure, flat) if nest.is_nested(structure) else flat[0]


def _unify_captures(graphs):
    """Give every sub-graph the same captures, in one order; returns the outer values."""
    values, seen = [], set()
    for g in graphs:
        for value, _ in g.captures:
            if id(value) not in seen:
                seen.add(id(value))
                values.append(value)
    position = {id(v): i for i, v in enumerate(values)}
    for g in graphs:
        have = {id(v) for v, _ in g.captures}
        for value in values:
            if id(value) not in have:
                g.capture(value)
        g.captures.sort(key=lambda c: position[id(c[0])])
    return values


def _stateful(graphs):
    return any(get_op(op.type).stateful for g in graphs for op in g.get_operations())


def _dims(shape):
    return None if shape.rank is None else tuple(shape.dims)


def _check_same_outputs(traced, names, op_name, kind):
    """TF's checks that branches return the same structure, number and dtypes."""
    first = traced[0]

    def error(i, detail):
        return TypeError(
            f"{names[0]} and {names[i]} arguments to {op_name} must have the same number, type, "
            f"and overall structure of return values.\n\n{names[0]} output: {first.shown()}\n"
            f"{names[i]} output: {traced[i].shown()}\n\nError details:\n{detail}")

    for i, other in enumerate(traced[1:], 1):
        try:
            nest.assert_same_structure(first.result, other.result)
        except (TypeError, ValueError) as e:
            raise error(i, str(e)) from None
        a, b = first.graph.outputs, other.graph.outputs
        if len(a) != len(b):
            raise ValueError(f"Lengths of branch outputs of {kind} must match.\n"
                             f"len(graphs[0].outputs): {len(a)}\n"
                             f"len(graphs[{i}].outputs): {len(b)}\n")
        if [x is None for x in first.leaves] != [x is None for x in other.leaves]:
            raise error(i, "None values are in different positions")
        for x, y in zip(first.leaves, other.leaves):
            if _is_tensor_array(x) != _is_tensor_array(y) or \
                    (_is_tensor_array(x) and x.dtype != y.dtype):
                raise error(i, f"{x!r} and {y!r} are not TensorArrays of one dtype")
        for x, y in zip(a, b):
            if x.dtype != y.dtype:
                raise error(i, f"{x} and {y} have different types")


def _build_branches(opdefs, index, fns, names, op_name, kind, attrs_of):
    """Trace ``fns`` as branches and emit one op choosing between them by ``index``."""
    graph_names = ("cond_true", "cond_false") if kind == "cond" else \
        [f"case_branch{i}" for i in range(len(fns))]
    traced = [_trace(n, fn, op_value=index) for fn, n in zip(fns, graph_names)]
    _check_same_outputs(traced, names, op_name, kind)
    outputs = [t.graph.outputs for t in traced]
    shapes = []
    for column in zip(*outputs):
        shape = column[0].shape
        for t in column[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        shapes.append(_dims(shape))
    graphs = [t.graph for t in traced]
    captured = _unify_captures(graphs)
    opdef = opdefs[0] if _stateful(graphs) else opdefs[1]
    out = bind(opdef, index, *captured, **attrs_of(graphs),
               Tout=tuple(t.dtype for t in outputs[0]), output_shapes=tuple(shapes))
    return _pack(traced[0].result, traced[0].leaves, out if type(out) is tuple else (out,))


# --- tf.cond ------------------------------------------------------------------------------------
def _bool_pred(pred, input_name, node):
    if pred.dtype != D.bool:
        raise errors.InvalidArgumentError(
            None, None, f"Input '{input_name}' passed {pred.dtype.name} expected bool while "
            f"building NodeDef '{node}'")
    return pred


def _unpack_if_singleton(x):
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def _cond(pred, true_fn, false_fn, strict=True):
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if state.graph is None:
        value = pred if isinstance(pred, bool) else convert_to_tensor(pred)._value
        result = true_fn() if value else false_fn()
        return result if strict else _unpack_if_singleton(result)
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool", pred)
    pred = _bool_pred(convert_to_tensor(pred), "pred", "cond/switch_pred")
    return _build_branches((IF, STATELESS_IF), pred, (true_fn, false_fn),
                           ("true_fn", "false_fn"), "tf.cond", "cond",
                           lambda g: {"then_branch": g[0], "else_branch": g[1]})


@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Eagerly only the chosen function runs. While tracing both are traced into sub-graphs and one
    If op (StatelessIf when neither has a stateful op) chooses at run time; Python values they
    return become constants.

    Raises:
        TypeError: if a function is not callable, ``pred`` is a Python bool while tracing, or
            the branches return different structures or dtypes.
        ValueError: if the branches return different numbers of tensors.
    """
    for arg, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if fn is None:
            raise TypeError(f"cond(): '{arg}' argument required")
    return _cond(pred, true_fn, false_fn)


# --- tf.switch_case and tf.case -----------------------------------------------------------------
def _branch_fns(branch_fns, default, branch_index):
    """TF's validation of switch_case's arguments: the callables, in index order, default last."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = branch_fns.items()
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, sorted(keys)))}}}")
    actions = [p[1] for p in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


@tf_export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: run ``branch_fns[branch_index]()``, or ``default`` (else the last
    branch) when the index is out of range. Traced, it is one Case/StatelessCase op.

    Raises:
        TypeError: if ``branch_index`` is not an integer tensor (int32 while tracing) or the
            branches return different structures or dtypes.
        ValueError: if ``branch_fns`` is empty or its keys are not 0..n-1.
    """
    fns = _branch_fns(branch_fns, default, branch_index)
    if state.graph is None and isinstance(branch_index, EagerTensor):
        index = int(branch_index._value)
        return fns[index if 0 <= index < len(fns) else -1]()
    if branch_index.dtype != D.int32:
        raise TypeError(f"Input 'branch_index' of 'StatelessCase' Op has type "
                        f"{branch_index.dtype.name} that does not match expected type of int32.")
    names = [f"branches[{i}]" for i in range(len(fns))]
    return _build_branches((CASE, STATELESS_CASE), branch_index, fns, names, "tf.switch_case",
                           "case", lambda g: {"branches": tuple(g)})


def _case_pairs(pred_fn_pairs, exclusive):
    """TF's validation of tf.case's arguments: (predicates, functions)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: "
                        f"{type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if state.graph is None:
            if not exclusive:
                raise ValueError("Unordered dictionaries are not supported for the "
                                 "'pred_fn_pairs' argument when `exclusive=False` and eager "
                                 "mode is enabled.")
            pred_fn_pairs = list(pred_fn_pairs.items())
        else:
            pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != D.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return predicates, actions


def _names(predicates):
    return ", ".join(getattr(p, "name", "?") if not isinstance(p, EagerTensor) else "?"
                     for p in predicates)


def _at_most_n_true(predicates, n, message):
    """TF's assertion that at most ``n`` predicates are true."""
    from ..array import stack
    from ..math import cast, less_equal
    from ..reduce import reduce_sum

    stacked = stack(predicates)
    count = reduce_sum(cast(stacked, D.int32))
    text = f"{message}: more than {n} conditions ({_names(predicates)}) evaluated as True:"
    Assert(less_equal(count, n), [text, stacked], summarize=len(predicates))


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: run the function of the first true predicate (a chain of tf.cond), else
    ``default``; without a default the last function runs and its predicate must hold.

    Raises:
        TypeError: for malformed pairs or non-bool predicates.
        InvalidArgumentError: (at run time) with ``exclusive`` when several predicates hold, or
            without ``default`` when none does.
    """
    from ..array import stack

    predicates, actions = _case_pairs(pred_fn_pairs, exclusive)
    if default is None:
        k = len(predicates) - 1
        last_pred, last_action, every_pred = predicates[k], actions[k], predicates

        def default():
            Assert(last_pred, ["Input error: None of conditions evaluated as True:",
                               stack(every_pred)])
            return last_action()

        predicates, actions = predicates[:k], actions[:k]
    fn = default
    for pred, action in reversed(list(zip(predicates, actions))):
        fn = functools.partial(_cond, pred, action, fn, strict)
    if exclusive:
        _at_most_n_true(predicates, 1, "Input error: exclusive=True")
    return fn()


# --- tf.while_loop ------------------------------------------------------------------------------
def _read_variables(loop_vars):
    def read(x):
        if not isinstance(x, Tensor) and hasattr(x, "_as_graph_or_eager_tensor"):
            return convert_to_tensor(x)
        return x

    return nest.map_structure(read, loop_vars) if nest.is_nested(loop_vars) else read(loop_vars)


def _eager_while(cond, body, loop_vars, maximum_iterations):
    """TF's eager while_loop: a Python loop, checking the body keeps the structure."""
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    if maximum_iterations is not None:
        limit = convert_to_tensor(maximum_iterations)
        if limit.shape.rank != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                             f"{limit.shape}")
        limit = int(limit._value)
        user_cond, user_body = cond, body

        def cond(i, values):
            pred = user_cond(*values)  # evaluated even at the limit, as TF's logical_and does
            return i < limit and bool(pred)

        def body(i, values):
            return i + 1, user_body(*values)

        loop_vars = (0, loop_vars)
    structure = list(loop_vars)
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        nest.assert_same_structure(structure, list(loop_vars), check_types=True)
    loop_vars = nest.map_structure(
        lambda x: x if _is_tensor_array(x) else convert_to_tensor(x), loop_vars)
    return loop_vars[1] if maximum_iterations is not None else loop_vars


def _loop_tensor(x):
    """A loop variable as an outer-graph tensor (TensorArrays give their flow)."""
    if _is_tensor_array(x):
        return _ta.flow_of(x)
    if x is None:
        raise ValueError("None values not supported.")
    t = convert_to_tensor(x)
    if isinstance(t, EagerTensor):  # a named outer tensor, as TF's error messages name it
        t = state.graph.capture(t)
    return t


def _invariants(loop_vars, leaves, flat, shape_invariants):
    """The shape each loop variable's placeholder gets: its own, or its shape invariant."""
    if shape_invariants is None:
        return [t.shape for t in flat]
    nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
    shapes = []
    for leaf, t, inv in zip(leaves, flat, nest.flatten(shape_invariants)):
        if inv is None or _is_tensor_array(leaf):
            shapes.append(t.shape)
        elif isinstance(inv, TensorSpec):
            if not inv.is_compatible_with(t):
                raise TypeError(f"TypeSpec {inv!r} is not compatible with {t!r}")
            shapes.append(inv.shape)
        elif isinstance(inv, TensorShape):
            shapes.append(inv)
        else:
            raise TypeError(f"'shape' must be one of TypeSpec, TensorShape or None. Received: "
                            f"{type(inv)}")
    return shapes


def _shape_le(shape, invariant):
    """True if ``shape`` is at least as specific as ``invariant`` (TF's _ShapeLessThanOrEqual)."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(b is None or a == b for a, b in zip(shape.dims, invariant.dims))


def _check_body(flat, body_graph, shapes):
    for t, out, shape in zip(flat, body_graph.outputs, shapes):
        if out.dtype != t.dtype:
            raise TypeError(f"Loop var {t.name} enters the loop with type {t.dtype} but has type "
                            f"{out.dtype} after 1 iteration. {t.name} type should remain "
                            "constant.")
        if not _shape_le(out.shape, shape):
            raise ValueError(f"Input tensor `{t.name}` enters the loop with shape {shape}, but "
                             f"has shape {out.shape} after one iteration. To allow the shape to "
                             "vary across iterations, use the `shape_invariants` argument of "
                             "tf.while_loop to specify a less-specific shape.")


def _traced_pred(traced):
    outputs = traced.graph.outputs
    if len(outputs) != 1:
        raise ValueError(f"cond must return exactly one boolean scalar tensor, got "
                         f"{traced.result!r}")
    _bool_pred(outputs[0], "input", "while/LoopCond")


def _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations,
                 maximum_iterations):
    len(loop_vars)  # TF requires a sequence of loop variables (and fails like this otherwise)
    leaves = nest.flatten(loop_vars)  # may be empty: a loop run for its side effects
    flat = [_loop_tensor(x) for x in leaves]
    shapes = _invariants(loop_vars, leaves, flat, shape_invariants)
    specs = [TensorSpec(s, t.dtype) for s, t in zip(shapes, flat)]
    traced_cond = _trace("while_cond", cond, specs=specs, templates=leaves, structure=loop_vars)
    _traced_pred(traced_cond)
    traced_body = _trace("while_body", body, specs=specs, templates=leaves, structure=loop_vars,
                         allow_none=False)
    nest.assert_same_structure(traced_body.result, loop_vars, check_types=False)
    _check_body(flat, traced_body.graph, shapes)
    graphs = [traced_cond.graph, traced_body.graph]
    captured = _unify_captures(graphs)
    limit = ()
    if maximum_iterations is not None:
        limit = (convert_to_tensor(maximum_iterations, dtype=D.int32),)
    opdef = WHILE if _stateful(graphs) else STATELESS_WHILE
    out = bind(opdef, *limit, *flat, *captured, cond=graphs[0], body=graphs[1],
               T=tuple(t.dtype for t in flat), output_shapes=tuple(_dims(s) for s in shapes),
               parallel_iterations=int(parallel_iterations),
               has_maximum_iterations=bool(limit))
    return _pack(loop_vars, leaves, out if type(out) is tuple else (out,))


@tf_export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    ``loop_vars`` is a list/tuple (possibly nested) of tensors, Python values and TensorArrays;
    the result has its structure. Eagerly this is a Python loop. While tracing, ``cond`` and
    ``body`` are traced once into sub-graphs held by one While op (StatelessWhile without
    stateful ops) whose kernel is a Python ``while``; a loop variable's shape may change across
    iterations only within its ``shape_invariants`` entry.

    Raises:
        TypeError: if ``cond``/``body`` are not callable, ``parallel_iterations`` < 1, or the
            body changes a loop variable's dtype.
        ValueError: if the body returns another structure, or changes a loop variable's shape
            beyond its invariant.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    loop_vars = _read_variables(loop_vars)
    if state.graph is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations)
    return _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations,
                        maximum_iterations)



# --- codegen: loops and branches as real Python ``while``/``if`` around inlined sub-graphs ------
def _assign(em, targets, values, indent):
    if targets:
        em.line(f"{', '.join(targets)}, = {', '.join(values)},", indent)


def _emit_while(em, op, args, outs, indent):
    """``while cond: body`` inline, so an iteration costs its ops and no function calls."""
    attrs = op.attrs
    if attrs.get("has_maximum_iterations") or attrs["cond"].outputs[0].shape.rank != 0:
        return False  # the kernel handles the bound and squeezes non-scalar predicates
    n = len(attrs["T"])
    cond, body = optimize(attrs["cond"]), optimize(attrs["body"])
    loop_vars = [em.fresh("loop_var") for _ in range(n)]
    captured = args[n:]
    _assign(em, loop_vars, args[:n], indent)
    accumulators = _accumulate_in_place(em, op, cond, body, loop_vars, indent)
    em.line("while True:", indent)
    (test,) = em.graph(cond, loop_vars + captured, indent + 1, free_feeds=False)
    em.line(f"if not {test}:", indent + 1)
    em.line("break", indent + 2)
    updated = em.graph(body, loop_vars + captured, indent + 1, free_feeds=False)
    _assign(em, loop_vars, updated, indent + 1)
    for k, acc in accumulators.items():
        em.line(f"{loop_vars[k]} = {em.global_value(_ta.from_items, 'k', 'list')}"
                f"({acc}, {loop_vars[k]})", indent)
    _assign(em, outs, loop_vars, indent)
    return True


def _accumulate_in_place(em, op, cond, body, loop_vars, indent):
    """Loop variables that are TensorArrays the body only writes (``ta = ta.write(i, x)``, the
    seeds' dynamic_rnn) become a private Python list written in place: ``acc[i] = x`` instead
    of a TensorListSetItem call per iteration. The list is new, so values stay immutable.

    Returns {loop var index: accumulator name}; emits the accumulators' set-up lines.
    """
    made = {}
    for k, writer in _only_written_lists(op, cond, body).items():
        acc, size = em.fresh("accumulator"), em.fresh("accumulator_size")
        em.line(f"{acc} = {em.global_value(_ta.private_items, 'k', 'list')}"
                f"({loop_vars[k]})", indent)
        em.line(f"{size} = len({acc})", indent)
        fail = em.global_value(_ta.set_item_error, "k", "list")

        def emit(em, s, args, outs, indent, acc=acc, size=size, fail=fail, k=k):
            _, index, item = args
            em.line(f"if not 0 <= {index} < {size}:", indent, s)
            em.line(f"{fail}({index}, {size})", indent + 1, s)
            em.line(f"{acc}[{index}] = {item}", indent, s)
            em.names[id(s.outputs[0])] = loop_vars[k]  # the list itself is not rebuilt
            return True

        em.overrides[id(writer)] = emit
        made[k] = acc
    return made


def _only_written_lists(op, cond, body):
    """{k: the body's TensorListSetItem} for list loop vars that start as a TensorListReserve of
    the written items' static dtype and shape, are read nowhere, and are written once."""
    found = {}
    for k, (ph, out) in enumerate(zip(body.inputs, body.outputs)):
        writer = out.op
        if writer.type != "TensorListSetItem" or writer.attrs or writer.inputs[0] is not ph:
            continue
        users = [o for o in body.get_operations() if any(t is ph for t in o.inputs)]
        if users != [writer] or any(t is ph for t in body.outputs):
            continue
        test_ph = cond.inputs[k]
        if any(t is test_ph for o in cond.get_operations() for t in o.inputs) or \
                any(t is test_ph for t in cond.outputs):
            continue
        init, item = op.inputs[k].op, writer.inputs[2]
        if init.type != "TensorListReserve" or init.attrs["element_dtype"] != item.dtype:
            continue
        shape = init.attrs["element_shape"]
        if not item.shape.is_fully_defined() or (
                shape is not None and not TensorShape(shape).is_compatible_with(item.shape)):
            continue
        found[k] = writer
    return found


def _emit_if(em, op, args, outs, indent):
    """``if pred: then else: else`` inline; only the branch taken runs."""
    if op.inputs[0].shape.rank != 0:
        return False
    em.line(f"if {args[0]}:", indent)
    _assign(em, outs, em.graph(optimize(op.attrs["then_branch"]), args[1:], indent + 1,
                               free_feeds=False), indent + 1)
    em.line("else:", indent)
    _assign(em, outs, em.graph(optimize(op.attrs["else_branch"]), args[1:], indent + 1,
                               free_feeds=False), indent + 1)
    if not outs:
        em.line("pass", indent + 1)
    return True


for _opdef in (WHILE, STATELESS_WHILE):
    _opdef.emit = _emit_while
for _opdef in (IF, STATELESS_IF):
    _opdef.emit = _emit_if


# --- gradients (tensortrace/autodiff/control_flow_grad.py builds them) --------------------------
def _if_grad(record, *dys):
    """An If of the branches' backward graphs."""
    from ...autodiff.control_flow_grad import cond_grad

    def make(pred, graphs, captured, tout, shapes):
        opdef = IF if _stateful(graphs) else STATELESS_IF
        return bind(opdef, pred, *captured, then_branch=graphs[0], else_branch=graphs[1],
                    Tout=tout, output_shapes=shapes)

    attrs = record.attrs
    return cond_grad(record, dys, (attrs["then_branch"], attrs["else_branch"]), make)


def _case_grad(record, *dys):
    """A Case of the branches' backward graphs."""
    from ...autodiff.control_flow_grad import cond_grad

    def make(index, graphs, captured, tout, shapes):
        opdef = CASE if _stateful(graphs) else STATELESS_CASE
        return bind(opdef, index, *captured, branches=tuple(graphs), Tout=tout,
                    output_shapes=shapes)

    return cond_grad(record, dys, record.attrs["branches"], make)


def _while_grad(record, *dys):
    """A While running the body's backward graph over the saved iterations, in reverse."""
    from ...autodiff.control_flow_grad import while_grad

    return while_grad(record, dys)


for _opdefs, _rule in (((IF, STATELESS_IF), _if_grad), ((CASE, STATELESS_CASE), _case_grad),
                       ((WHILE, STATELESS_WHILE), _while_grad)):
    for _opdef in _opdefs:
        _opdef.grad = _rule
        _opdef.reads_variables = True  # a tape watches the variables its bodies read
