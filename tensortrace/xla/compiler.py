"""Graphs compiled with XLA through JAX: each op lowers to ``jax.numpy``/``jax.lax`` (the
tables in ``lowerings/``), the whole graph becomes one ``jax.jit`` function of its feeds.

Values known while lowering (constants, shapes) stay NumPy values and ops on them run their
NumPy kernels, so shape arithmetic stays static as XLA needs it. Variables are fed as values
and the values assigned are written back after the call. Compiling and running happen in JAX's
64-bit mode (``jax.enable_x64``, scoped: the process's own JAX code keeps its setting), so
float64/int64 graphs keep their dtypes.

Host traffic: XLA:CPU reads a NumPy array in place only when its data is 64-byte aligned and
C-contiguous; any other array it copies through a transfer that costs many times a memcpy (a
[64, 784] float32 batch: ~200 us against ~10). A variable a jit call writes keeps its value as
a read-only NumPy view of the output (``np.asarray(xla_array)``), and the next call feeds the
XLA array that view was made from (``view.base.obj``): no copy either way between calls. A
large variable only read gets an aligned copy as its value once. An eager write replaces
``_array`` (values are never mutated in place, see ``ops/state.py``), so the next call sees the
new array. Large inputs and captures are copied aligned here (kept while the same array comes
again). Written variables' buffers are not donated: a NumPy view of them may be alive.
"""

import weakref

import numpy as np

import jax
from jax import numpy as jnp

try:
    from jax._src.array import ArrayImpl as _XlaArray  # the type of jax.Array's values
except ImportError:  # another JAX: views are copied in as plain arrays
    _XlaArray = None

from .. import dtypes as D
from .. import errors
from ..graph.ir import subgraphs
from ..passes.pipeline import optimize
from ..registry import get as get_op
from . import constant_args

_X64 = jax.enable_x64  # a context manager: 64-bit mode for our calls only

#: op type -> ``lower(op, *inputs, **attrs)``: the op's values as JAX values (one or a tuple)
LOWERINGS = {}

DEVICE = "XLA_CPU_JIT"
_FOLDABLE = (np.ndarray, np.generic)

#: XLA:CPU uses a host array in place only at this alignment (else it copies it)
_ALIGNMENT = 64
#: feeds smaller than this go in as they are: XLA copies them in the call, at ~5 us over the
#: in-place feed at 96 KB; from 128 KB on it takes a transfer of ~90 us (~200 us at 200 KB)
_ALIGN_MIN_BYTES = 1 << 17


def _dead():
    return None


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
    error = errors.InvalidArgumentError(None, None, (
        f"Input {index} to node `{op.name}` with op {op.type} must be a compile-time constant."
        "\n\nXLA compilation requires that operator arguments that represent shapes or "
        "dimensions be evaluated to concrete values at compile time. This error means that a "
        "shape or dimension argument could not be evaluated at a compile time, usually because "
        "the value of the argument depends on a parameter to the computation, on a variable, or "
        "on a stateful operation such as a random number generator."))
    error._tt_not_constant = op.inputs[index]  # constant_args may compile its feeds as values
    raise error


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


def _narrow(dtype):
    """Whether JAX keeps ``dtype`` outside 64-bit mode."""
    return dtype.itemsize < 8 or dtype.kind == "c" and dtype.itemsize == 8


def _aligned_copy(array):
    """A copy of ``array``: C-contiguous, data aligned as XLA needs to use it in place (the
    itemsizes of XLA's dtypes divide the alignment, and NumPy aligns data to the itemsize)."""
    itemsize, size = array.itemsize, array.size
    raw = np.empty(size + _ALIGNMENT // itemsize, array.dtype)
    start = (-raw.ctypes.data % _ALIGNMENT) // itemsize
    out = raw[start:start + size].reshape(array.shape)
    np.copyto(out, array)
    return out


def _xla_value(array):
    """A feed's value as XLA takes it at least cost: the XLA array a view was made from, a
    large array XLA would copy itself copied here to an aligned one, else ``array``."""
    base = getattr(array, "base", None)
    if type(base) is memoryview and type(base.obj) is _XlaArray:
        return base.obj
    if type(array) is not np.ndarray or array.nbytes < _ALIGN_MIN_BYTES or \
            array.dtype.kind not in "biufc":
        return array
    if array.ctypes.data % _ALIGNMENT == 0 and array.flags.c_contiguous:
        return array
    return _aligned_copy(array)


def _variable_value(variable):
    """``variable``'s value as XLA takes it at least cost: the XLA array its value is a view
    of (a jit call's output), else ``_xla_value``; an aligned copy made here becomes the
    variable's value (the same values, read-only; the caller holds the variable's lock), so
    that later calls read it in place until an eager write replaces it. (``jax.device_put``
    would cost more than the copy: hundreds of us on a busy machine.)"""
    array = variable._array
    base = array.base
    if type(base) is memoryview and type(base.obj) is _XlaArray:
        return base.obj
    value = _xla_value(array)
    if value is not array and type(value) is np.ndarray:
        value.flags.writeable = False
        variable._array = value
    return value


def _compile(jitted, avals, arrays):
    """``jitted`` compiled for ``avals`` and called on ``arrays``: (the executable's own call,
    the outputs). The call is JAX's C++ path that a Compiled's first call makes; 32-bit
    arguments need no 64-bit mode."""
    with _X64(True):
        compiled = jitted.lower(*avals).compile()
    outs = compiled(*arrays)
    direct = getattr(compiled, "_call", None)
    return (compiled if direct is None else direct), outs


def _in_x64(jitted):
    def call(*arrays):
        with _X64(True):
            return jitted(*arrays)
    return call


class XlaCompiledGraph:
    """A graph compiled with XLA: the interface of ``executor.compiled.CompiledGraph``
    (``fn(*feeds)``, ``exe(*feeds)`` -> list, ``runtime_error``, ``single``, ``graph``).

    Variables are fed by value; those the graph assigns are written back after the call.
    """

    def __init__(self, graph, name, constants=None):
        self.graph = optimize(graph)
        self.name = name
        self.code = None
        self.feeds = list(self.graph.inputs) + [ph for _, ph in self.graph.captures]
        self.single = len(self.graph.outputs) == 1
        missing = unsupported(self.graph, name)
        if missing:
            raise unsupported_error(name, missing)
        self._resources = [i for i, ph in enumerate(self.feeds) if ph.dtype == D.resource]
        # feeds compiled as values (TF's compile-time constant arguments): (position among the
        # non-resource feeds, value); a graph needing some is compiled again per their values
        self._constants = constants or ()
        self.fn = self._make_fn() if constants is not None else \
            constant_args.per_value(self, self._make_fn())

    def _lower(self, arrays, variables):
        feeds = list(arrays)
        for k, value in self._constants:
            feeds[k] = value
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
        """The call: ``jax.jit`` of the lowered graph, run in 64-bit mode. When every feed has
        a static shape and a 32-bit (or narrower) dtype, the executable is compiled ahead of
        time on the first call and called directly after: no mode switch and no jit cache key
        per call (a 64-bit argument needs the mode to keep its dtype)."""
        single, resources = self.single, self._resources
        if resources:
            return self._make_fn_with_variables()

        def lowered(*arrays):  # the common case: flat arrays in, arrays out
            outs, _ = self._lower(arrays, ())
            return outs[0] if single else tuple(outs)

        jitted = jax.jit(lowered)
        avals = self._avals()
        if avals is None:
            call = _in_x64(jitted)
        else:
            def call(*arrays):  # the first call compiles, and puts the executable in its place
                nonlocal call
                call, outs = _compile(jitted, avals, arrays)
                return outs
        convert = self._feed_converter()
        if convert is not None:
            if single:
                return lambda *feeds: np.asarray(call(*convert(feeds)))
            return lambda *feeds: tuple(map(np.asarray, call(*convert(feeds))))
        if single:
            return lambda *feeds: np.asarray(call(*feeds))
        return lambda *feeds: tuple(map(np.asarray, call(*feeds)))

    def _avals(self, variables=()):
        """The feeds' abstract values (placeholders', then the values of ``variables``), or
        None when one needs jit's dispatch on shapes or 64-bit mode."""
        placeholders = [ph for ph in self.feeds if ph.dtype != D.resource]
        if not all(ph.shape.is_fully_defined() and _narrow(ph.dtype._np)
                   for ph in placeholders) or \
                not all(_narrow(v._array.dtype) for v in variables):
            return None
        avals = [jax.ShapeDtypeStruct(tuple(ph.shape.as_list()), ph.dtype._np)
                 for ph in placeholders]
        return avals + [jax.ShapeDtypeStruct(v._array.shape, v._array.dtype)
                        for v in variables]

    def _feed_converter(self):
        """``convert(arrays)``: the array feeds as XLA takes them at least cost (``_xla_value``),
        or None when no feed can be large. A copy is kept per position, and fed again while the
        same array comes again (captures come every call; a loop may feed one batch)."""
        placeholders = [ph for ph in self.feeds if ph.dtype != D.resource]
        large = [i for i, ph in enumerate(placeholders) if ph.dtype._np.kind in "biufc" and not (
            ph.shape.is_fully_defined() and
            ph.shape.num_elements() * ph.dtype._np.itemsize < _ALIGN_MIN_BYTES)]
        if not large:
            return None
        # per position: (a weak reference to the array last copied there, the copy)
        kept = [(_dead, None)] * len(placeholders)

        def convert(arrays):
            arrays = list(arrays)
            for i in large:
                array, (ref, copy) = arrays[i], kept[i]
                if ref() is array:
                    arrays[i] = copy
                    continue
                value = arrays[i] = _xla_value(array)
                if value is not array and type(value) is np.ndarray:  # a copy: kept
                    kept[i] = (weakref.ref(array), value)
            return arrays
        return convert

    def _make_fn_with_variables(self):
        single, resources = self.single, self._resources
        positions, count = set(resources), len(self.feeds) - len(resources)
        arrays_at = [i for i in range(len(self.feeds)) if i not in positions]
        convert = self._feed_converter()

        def lowered_with_variables(*values):
            return self._lower(values[:count], values[count:])

        jitted = jax.jit(lowered_with_variables)
        general = _in_x64(jitted)
        fast = {}  # (variables' avals) -> the ahead-of-time call for them, or None
        order = ((), ())  # the last call's variables' ids, and their locks in one order

        def run_with_variables(*feeds):
            nonlocal order
            variables = [feeds[i] for i in resources]  # a resource's value: its Variable
            ids, known = tuple(map(id, variables)), order
            if ids != known[0]:  # one lock order for every call: no two calls deadlock
                unique = sorted({id(v): v for v in variables}.items())
                known = order = ids, [v._lock for _, v in unique]
            locks, result = known[1], None
            for lock in locks:  # read, compute, write back: one update
                lock.acquire()
            try:
                values = [v._array for v in variables]
                try:
                    key = tuple([(a.shape, a.dtype) for a in values])
                except AttributeError:  # a variable this call initializes: no value yet
                    key = None
                else:  # values as XLA arrays: no copy while they are views a call left
                    values = [_variable_value(v) for v in variables]
                call, arrays = fast.get(key, general), [feeds[i] for i in arrays_at]
                if convert is not None:
                    arrays = convert(arrays)
                if call is general and key is not None and key not in fast:
                    avals = self._avals(variables)
                    fast[key] = general  # until compiled: a failure leaves the jit path
                    if avals is not None:
                        fast[key], result = _compile(jitted, avals, arrays + values)
                if result is None:
                    result = call(*arrays, *values)
                outs, written = result
                for k, value in written.items():
                    variables[k]._array = np.asarray(value)
            finally:
                for lock in locks:
                    lock.release()
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
