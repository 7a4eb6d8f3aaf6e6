"""The op registry: one ``OpDef`` record per op, keyed by TensorFlow's op type name, and
``DtypeCheck``, the one description of what input dtypes an op accepts eagerly.

Op families load on first use: the public surface installs a loader (``set_loader``) that
imports the module defining an op, or its gradient rule, when the registry is asked for one it
does not hold yet, so a graph or SavedModel naming any op runs and every op differentiates.

    >>> get("AddV2").kernel(np.int32(1), np.int32(2))
    3
"""

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Optional

from . import messages


class _NonDifferentiable:
    def __repr__(self):
        return "NON_DIFFERENTIABLE"


#: ``OpDef.grad`` value for ops that have no gradient (comparisons, argmax, random ...).
NON_DIFFERENTIABLE = _NonDifferentiable()


def never_static(*inputs, **attrs):
    """An ``OpDef.static`` rule for ops whose outputs are never known while tracing."""
    return None


class DtypeCheck:
    """The eager check of an op's input dtypes, raising TF's errors in TF's order and words.

    Inputs ``first .. first+same-1`` (all inputs when ``same`` is None) share one dtype, TF's
    type attr ``attr``, from ``allowed`` (any dtype when None); ``kernels`` narrows ``allowed``
    to the dtypes with a CPU kernel (NotFoundError for the others); ``fixed`` maps an input
    index to the one dtype the op fixes for it (a bool condition, int32 indices), or is one
    dtype for every input; ``then`` is a further check (a second type attr).

    ``bind`` tests the common case inline, without a call: the first input's dtype is in
    ``fast_dtypes`` and, when ``fast_pair``, the second input's is the same. Only otherwise is
    the check called, to raise the precise error.
    """

    __slots__ = ("op_name", "allowed", "same", "first", "attr", "kernels", "fixed", "then",
                 "fast_dtypes", "fast_pair", "_allowed_np", "_kernels_np")

    def __init__(self, op_name, allowed=None, same=2, *, first=0, attr="T", kernels=None,
                 fixed=None, then=None):
        self.op_name, self.same, self.first, self.attr = op_name, same, first, attr
        self.allowed = tuple(allowed) if allowed is not None else None
        self.kernels = tuple(kernels) if kernels is not None else None
        self.fixed, self.then = fixed, then
        self._allowed_np = None if allowed is None else frozenset(d._np for d in allowed)
        ok = self.kernels if kernels is not None else self.allowed
        self._kernels_np = None if ok is None else frozenset(d._np for d in ok)
        self.fast_dtypes = self.fast_pair = None
        if then is not None:
            return
        if fixed is None and first == 0 and same in (1, 2) and ok is not None:
            self.fast_dtypes, self.fast_pair = self._kernels_np, same == 2
        elif isinstance(fixed, dict) and allowed is None and same == 1 and \
                fixed.keys() in ({0}, {0, 1}) and len(set(fixed.values())) == 1:
            # bool operands of logic ops, a reduction's bool input: one fixed dtype, same test
            self.fast_dtypes, self.fast_pair = frozenset({fixed[0]._np}), len(fixed) == 2

    def __call__(self, arrays):
        fixed = self.fixed
        if fixed is not None:
            wanted = fixed.items() if isinstance(fixed, dict) else \
                ((i, fixed) for i in range(len(arrays)))
            for i, dtype in wanted:
                if i < len(arrays) and arrays[i].dtype != dtype._np:
                    raise messages.input_dtype_error(self.op_name, i, dtype, arrays[i].dtype)
        first = self.first
        if first < len(arrays) and (self.allowed is not None or self.same != 1):
            dt = arrays[first].dtype
            if self._allowed_np is not None and dt not in self._allowed_np:
                raise messages.attr_dtype_error(self.op_name, self.attr, dt, self.allowed)
            end = len(arrays) if self.same is None else min(first + self.same, len(arrays))
            for i in range(first + 1, end):
                if arrays[i].dtype != dt:
                    raise messages.input_dtype_error(self.op_name, i, dt, arrays[i].dtype)
            if self.kernels is not None and dt not in self._kernels_np:
                raise messages.no_kernel_error(self.op_name, dt)
        if self.then is not None:
            self.then(arrays)


class _GradRule:
    """``OpDef.grad``: a rule not yet registered is looked up through the loader once (the
    family's gradient table loads on the first gradient asked of one of its ops)."""

    def __get__(self, opdef, owner=None):
        if opdef is None:
            return None  # the dataclass field's default
        rule = opdef.__dict__.get("_grad")
        if rule is None and _loader is not None and opdef.name not in _GRADS_TRIED:
            # tried only once the loader has answered: a thread asking while another loads
            # the table asks too (the import finishes first); a table asking again loads none
            asking = _GRADS_ASKING.__dict__.setdefault("names", set())
            if opdef.name not in asking:
                asking.add(opdef.name)
                try:
                    _loader("grad", opdef.name)
                finally:
                    asking.discard(opdef.name)
                _GRADS_TRIED.add(opdef.name)
                rule = opdef.__dict__.get("_grad")
        return rule

    def __set__(self, opdef, rule):
        opdef.__dict__["_grad"] = rule


@dataclass(eq=False)
class OpDef:
    """Everything the engine knows about one op.

    Attributes:
        name: TF's op type name (``"AddV2"``), used in graphs, GraphDefs and saved files.
        infer: ``infer(*inputs, **attrs)`` -> one ``TensorSpec`` or a tuple of them. ``inputs``
            are tensors (symbolic or eager) so rules may read ``.shape``, ``.dtype`` and
            ``static_value(t)``. Raises TF's graph-time errors (TypeError/ValueError).
        kernel: ``kernel(*arrays, **attrs)`` -> one ndarray (or NumPy scalar) or a tuple.
        grad: ``grad(op, *dys)`` -> one ``dx`` (or None) per input, written with public ops
            (filled in by ``autodiff.rules``); ``NON_DIFFERENTIABLE``; or None when no rule
            exists (differentiating through the op raises, as in TF).
        expr: optional codegen template for a single-output op, e.g. ``"({0} + {1})"``.
        stateful: never folded, de-duplicated or pruned; runs in program order.
        check: optional eager check of the input arrays raising TF's errors: a ``DtypeCheck``
            (tested inline by ``bind``) or any ``check(arrays)``.
        static: optional ``static(*inputs, **attrs)`` giving the outputs' values while tracing
            (shape maths), or None; ``never_static`` turns off the default (running the kernel
            on small known inputs).
        emit: optional ``emit(emitter, op, args, outs, indent)`` writing the op's own lines of
            generated code (control flow inlines its sub-graphs); returns False to fall back.
        reads_variables: the op reads variables through resource inputs (a tape watching
            accessed variables watches them).
        reword: optional ``reword(exception, op)`` giving TF's message for a NumPy error raised
            by the op's ``expr`` in generated code.
    """

    name: str
    infer: Callable[..., Any]
    kernel: Callable[..., Any]
    grad: Optional[Callable[..., Any]] = _GradRule()
    expr: Optional[str] = None
    stateful: bool = False
    check: Optional[Callable[..., Any]] = None
    static: Optional[Callable[..., Any]] = None
    emit: Optional[Callable[..., Any]] = None
    reads_variables: bool = False
    reword: Optional[Callable[..., Any]] = None
    doc: str = ""
    fast_dtypes: Optional[frozenset] = field(default=None, init=False, repr=False)
    fast_pair: bool = field(default=False, init=False, repr=False)

    def __post_init__(self):
        if isinstance(self.check, DtypeCheck):
            self.fast_dtypes, self.fast_pair = self.check.fast_dtypes, self.check.fast_pair

    def __repr__(self):
        return f"OpDef({self.name})"


_FIELDS = tuple(f.name for f in fields(OpDef) if f.init and f.name != "name")
_OPS: dict = {}
_GRADS_TRIED: set = set()  # op names whose rule the loader was asked for
_GRADS_ASKING = threading.local()  # .names: the op names this thread is asking the loader for
#: ``loader(kind, name)``: imports what registers op ``name`` (kind "op"), its gradient rule
#: ("grad"), or every op (kind "all", name None). Set by the public surface (``set_loader``).
_loader = None


def set_loader(loader):
    """Install the function that loads op families on demand (the upper layers register it)."""
    global _loader
    _loader = loader


def register(opdef: OpDef) -> OpDef:
    """Add ``opdef`` to the registry; a second op of the same name is a bug."""
    if opdef.name in _OPS:
        raise ValueError(f"Op {opdef.name!r} is already registered")
    _OPS[opdef.name] = opdef
    return opdef


def get(name: str) -> OpDef:
    """The OpDef registered under ``name``.

    Raises:
        KeyError: naming the op when no such op exists.
    """
    try:
        return _OPS[name]
    except KeyError:
        pass
    if _loader is not None:
        _loader("op", name)
        if name in _OPS:
            return _OPS[name]
    raise KeyError(f"No op named {name!r} is registered")


class _Registry(Mapping):
    """``all_ops()``: looking a name up loads the op on demand; iterating (``items()``,
    ``len``) first loads every op family, so it sees every op."""

    def __getitem__(self, name):
        return get(name)

    def __contains__(self, name):
        try:
            get(name)
        except KeyError:
            return False
        return True

    def __iter__(self):
        return iter(dict(_every_op()))

    def __len__(self):
        return len(_every_op())

    def __repr__(self):
        return f"<op registry: {len(self)} ops>"


def _every_op():
    if _loader is not None:
        _loader("all", None)
    return _OPS


def all_ops() -> Mapping:
    """The registry, name -> OpDef (a read-only mapping loading ops on demand)."""
    return _Registry()


def define_op(name, **defaults):
    """Class decorator: a class whose ``infer``/``kernel``/``check``/... sit together.

    The class is a namespace; its functions and values named like OpDef fields become the
    OpDef's (``defaults`` give fields the class leaves out).
    """

    def wrap(cls):
        ns = {**defaults, **{k: v for k, v in vars(cls).items() if k in _FIELDS}}
        return register(OpDef(name=name, doc=cls.__doc__ or "", **ns))

    return wrap
