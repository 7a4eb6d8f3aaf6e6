"""The op registry: one ``OpDef`` record per op, keyed by TensorFlow's op type name, and
``DtypeCheck``, the one description of what input dtypes an op accepts eagerly.

    >>> get("AddV2").kernel(np.int32(1), np.int32(2))
    3
"""

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
    grad: Optional[Callable[..., Any]] = None
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
        raise KeyError(f"No op named {name!r} is registered") from None


def all_ops() -> dict:
    """A copy of the registry: name -> OpDef."""
    return dict(_OPS)


def define_op(name, **defaults):
    """Class decorator: a class whose ``infer``/``kernel``/``check``/... sit together.

    The class is a namespace; its functions and values named like OpDef fields become the
    OpDef's (``defaults`` give fields the class leaves out).
    """

    def wrap(cls):
        ns = {**defaults, **{k: v for k, v in vars(cls).items() if k in _FIELDS}}
        return register(OpDef(name=name, doc=cls.__doc__ or "", **ns))

    return wrap
