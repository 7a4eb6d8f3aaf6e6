"""The op records of control flow: If/StatelessIf, Case/StatelessCase and While/StatelessWhile,
whose kernels run compiled sub-graphs in a real Python ``if``/``while``, and Assert."""

import functools
import weakref

import numpy as np

from ... import errors
from ..._export import tf_export
from ...context import bind, state
from ...convert import convert_to_tensor
from ...executor import compiled as compiled_module
from ...executor.compiled import compile_graph
from ...graph.ir import Graph
from ...registry import OpDef, never_static, register
from ...tensor import EagerTensor, TensorSpec
from .._args import int_arg
from .codegen import emit_if, emit_while


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


def _register(name, infer, kernel, stateful, emit=None):
    """A control-flow record: never folded while tracing; it reads the variables its sub-graphs
    read (a tape watching accessed variables watches them)."""
    return register(OpDef(name, infer, kernel, stateful=stateful, static=never_static,
                          emit=emit, reads_variables=True))


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


IF = _register("If", _if_infer, _if_kernel, stateful=True, emit=emit_if)
STATELESS_IF = _register("StatelessIf", _if_infer, _if_kernel, stateful=False, emit=emit_if)
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


WHILE = _register("While", _while_infer, _while_kernel, stateful=True, emit=emit_while)
STATELESS_WHILE = _register("StatelessWhile", _while_infer, _while_kernel, stateful=False,
                            emit=emit_while)


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


ASSERT = register(OpDef("Assert", _assert_infer, _assert_kernel, stateful=True,
                        static=never_static))


def _eager_datum(t):
    value = np.asarray(t._value if isinstance(t, EagerTensor) else t)
    if value.ndim == 0:
        return repr(value.item()) if isinstance(value.item(), bytes) else str(value.item())
    return ", ".join(str(v) for v in value.reshape(-1).tolist())


@tf_export("debugging.Assert", "Assert")
def Assert(condition, data, summarize=None, name=None):
    """``tf.debugging.Assert``: raise InvalidArgumentError when ``condition`` is false.

    Eagerly it checks at once; in a graph it adds a stateful Assert op (returned None).
    """
    condition = convert_to_tensor(condition)
    summarize = 3 if summarize is None else int_arg(summarize, "summarize")
    if not isinstance(data, (list, tuple)):
        raise TypeError(f"`data` must be a list of tensors, got {data!r}")
    data = [convert_to_tensor(d) for d in data]
    if state.graph is None:
        if not np.all(condition._value):
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: "
                + "\n".join(_eager_datum(d) for d in data))
        return
    bind(ASSERT, condition, *data, summarize=summarize)
