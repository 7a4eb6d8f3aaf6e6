"""Graphs compiled with XLA through JAX: each op lowers to ``jax.numpy``/``jax.lax`` (the
tables in ``lowerings/``), the whole graph becomes one ``jax.jit`` function of its feeds.

Values known while lowering (constants, shapes) stay NumPy values and ops on them run their
NumPy kernels, so shape arithmetic stays static as XLA needs it. Variables are fed as values
and the values assigned are written back after the call. Compiling and running happen in JAX's
64-bit mode (``jax.enable_x64``, scoped: the process's own JAX code keeps its setting), so
float64/int64 graphs keep their dtypes.
"""

import contextlib

import numpy as np

import jax
from jax import numpy as jnp

from .. import dtypes as D
from .. import errors
from ..graph.ir import subgraphs
from ..passes.pipeline import optimize
from ..registry import get as get_op

_X64 = jax.enable_x64  # a context manager: 64-bit mode for our calls only

#: op type -> ``lower(op, *inputs, **attrs)``: the op's values as JAX values (one or a tuple)
LOWERINGS = {}

DEVICE = "XLA_CPU_JIT"
_FOLDABLE = (np.ndarray, np.generic)


def lowering(*names):
    """Decorator: register ``fn`` as the lowering of the ops ``names``."""
    def register(fn):
        for name in names:
            if name in LOWERINGS:
                raise ValueError(f"Op {name!r} already has a lowering")
            LOWERINGS[name] = fn
        return fn
    return register


def simple(name, fn):
    """Register an op whose lowering calls ``fn`` on its inputs (attrs ignored)."""
    LOWERINGS[name] = lambda op, *xs, **attrs: fn(*xs)


class Cell:
    """A variable while a graph lowers: its current value, and whether the graph wrote it."""

    __slots__ = ("value", "written", "name")

    def __init__(self, value, name):
        self.value, self.written, self.name = value, False, name


def is_static(value):
    return isinstance(value, _FOLDABLE)


def static(value, op, index):
    """``value`` (input ``index`` of ``op``) as a NumPy value, or TF's compile-time error."""
    if not isinstance(value, jax.core.Tracer):
        return np.asarray(value)
    raise errors.InvalidArgumentError(None, None, (
        f"Input {index} to node `{op.name}` with op {op.type} must be a compile-time constant."
        "\n\nXLA compilation requires that operator arguments that represent shapes or "
        "dimensions be evaluated to concrete values at compile time. This error means that a "
        "shape or dimension argument could not be evaluated at a compile time, usually because "
        "the value of the argument depends on a parameter to the computation, on a variable, or "
        "on a stateful operation such as a random number generator."))


def unsupported(graph, name):
    """The ops of ``graph`` (and its branches and bodies) with no lowering."""
    found = []
    for op in graph.get_operations():
        if op.type not in ("Const", "Placeholder") and op.type not in LOWERINGS:
            found.append(op)
        for _, sub in subgraphs(op.attrs):
            found.extend(unsupported(sub, name))
    return found


def unsupported_error(graph_name, ops):
    """TF's error for a jit_compile graph holding ops XLA has no kernel for."""
    nodes = ", ".join(
        f"{op.type} (No registered '{op.type}' OpKernel for {DEVICE} devices compatible with "
        f"node {{{{node {op.name}}}}}){{{{node {op.name}}}}}" for op in ops)
    return errors.InvalidArgumentError(None, None, (
        f"Detected unsupported operations when trying to compile graph {graph_name}"
        f"[_XlaMustCompile=true] on {DEVICE}: {nodes} [Op:{graph_name}]"))


def _no_variant_io(op, opdef):
    # channels-first convolutions and pooling lower to XLA, whose kernels take that layout
    # (TF's CPU kernels, which NumPy folding follows, refuse it)
    return not opdef.stateful and not op.attrs.get("_no_fold") and all(
        t.dtype not in (D.variant, D.resource) for t in op.outputs + op.inputs) and \
        not str(op.attrs.get("data_format", "")).startswith("NC")


def lower_graph(graph, feeds):
    """The values of ``graph``'s outputs with its feeds (inputs, then captures) = ``feeds``:
    JAX values while ``jax.jit`` traces, ``Cell`` objects for variables."""
    env = {}
    for ph, value in zip(list(graph.inputs) + [ph for _, ph in graph.captures], feeds):
        env[id(ph)] = value
    for op in graph.get_operations():
        kind = op.type
        if kind == "Placeholder":
            continue
        if kind == "Const":
            env[id(op.outputs[0])] = np.asarray(op.attrs["value"])
            continue
        inputs = [env[id(t)] for t in op.inputs]
        opdef = get_op(kind)
        try:
            if all(isinstance(x, _FOLDABLE) for x in inputs) and inputs and \
                    not subgraphs(op.attrs) and _no_variant_io(op, opdef):
                with np.errstate(all="ignore"):
                    out = opdef.kernel(*inputs, **op.attrs)  # known while lowering: NumPy
            else:
                out = LOWERINGS[kind](op, *inputs, **op.attrs)
        except errors.OpError:
            raise
        except Exception as e:  # noqa: BLE001 - a shape or dtype XLA cannot take, named
            raise errors.InvalidArgumentError(None, None, (
                f"XLA compilation of node {{{{node {op.name}}}}} ({kind}) failed: "
                f"{type(e).__name__}: {e}")) from None
        outs = op.outputs
        if len(outs) == 1 and not op.multi:
            env[id(outs[0])] = out
        else:
            for t, v in zip(outs, out):
                env[id(t)] = v
    return [env[id(t)] for t in graph.outputs]


class XlaCompiledGraph:
    """A graph compiled with XLA: the interface of ``executor.compiled.CompiledGraph``
    (``fn(*feeds)``, ``exe(*feeds)`` -> list, ``runtime_error``, ``single``, ``graph``).

    Variables are fed by value; those the graph assigns are written back after the call.
    """

    def __init__(self, graph, name):
        self.graph = optimize(graph)
        self.name = name
        self.code = None
        self.feeds = list(self.graph.inputs) + [ph for _, ph in self.graph.captures]
        self.single = len(self.graph.outputs) == 1
        missing = unsupported(self.graph, name)
        if missing:
            raise unsupported_error(name, missing)
        self._resources = [i for i, ph in enumerate(self.feeds) if ph.dtype == D.resource]
        self.fn = self._make_fn()

    def _lower(self, arrays, variables):
        feeds = list(arrays)
        cells = [Cell(v, i) for i, v in zip(self._resources, variables)]
        for i, cell in zip(self._resources, cells):
            feeds.insert(i, cell)
        outs = lower_graph(self.graph, feeds)
        for v in outs:
            if not hasattr(v, "dtype"):
                raise errors.InvalidArgumentError(None, None, (
                    f"{self.name}: a jit_compile function returns tensors only, not {v!r}"))
        outs = [jnp.asarray(v) for v in outs]
        return outs, {k: c.value for k, c in enumerate(cells) if c.written}

    def _make_fn(self):
        single, resources = self.single, self._resources
        if not resources:  # the common case: flat arrays in, arrays out (JAX's fastest call)
            def lowered(*arrays):
                outs, _ = self._lower(arrays, ())
                return outs[0] if single else tuple(outs)

            jitted = jax.jit(lowered)

            def run(*feeds):
                with _X64(True):
                    outs = jitted(*feeds)
                return np.asarray(outs) if single else tuple(map(np.asarray, outs))
            return run
        positions, count = set(resources), len(self.feeds) - len(resources)

        def lowered_with_variables(*values):
            return self._lower(values[:count], values[count:])

        jitted = jax.jit(lowered_with_variables)

        def run_with_variables(*feeds):
            variables = [feeds[i] for i in resources]  # a resource's value: its Variable
            with contextlib.ExitStack() as held:  # read, compute, write back: one update
                for _, v in sorted({id(v): v for v in variables}.items()):  # one order: no
                    held.enter_context(v._lock)  # two calls deadlock
                with _X64(True):
                    outs, written = jitted(
                        *[f for i, f in enumerate(feeds) if i not in positions],
                        *[v._array for v in variables])
                for k, value in written.items():
                    variables[k]._array = np.asarray(value)
            if single:
                return np.asarray(outs[0])
            return tuple(map(np.asarray, outs))
        return run_with_variables

    def __call__(self, *feeds):
        try:
            out = self.fn(*feeds)
        except Exception as e:  # noqa: BLE001 - every failure is reported as TF does
            raise self.runtime_error(e) from None
        return [out] if self.single else list(out)

    def runtime_error(self, e):
        if isinstance(e, errors.OpError):
            return e
        return errors.InvalidArgumentError(None, None, f"{type(e).__name__}: {e} "
                                                       f"[Op:{self.name}]")
