"""The op registry: one ``OpDef`` record per op, keyed by TensorFlow's op type name.

    >>> get("AddV2").kernel(np.int32(1), np.int32(2))
    3
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Optional


class _NonDifferentiable:
    def __repr__(self):
        return "NON_DIFFERENTIABLE"


#: ``OpDef.grad`` value for ops that have no gradient (comparisons, argmax, random ...).
NON_DIFFERENTIABLE = _NonDifferentiable()


@dataclass(eq=False)
class OpDef:
    """Everything the engine knows about one op.

    Attributes:
        name: TF's op type name (``"AddV2"``), used in graphs, GraphDefs and saved files.
        infer: ``infer(*inputs, **attrs)`` -> one ``TensorSpec`` or a tuple of them. ``inputs``
            are tensors (symbolic or eager) so rules may read ``.shape``, ``.dtype`` and
            ``static_value(t)``. Raises TF's graph-time errors (TypeError/ValueError).
        kernel: ``kernel(*arrays, **attrs)`` -> one ndarray (or NumPy scalar) or a tuple.
        grad: ``grad(op, *dys)`` -> one ``dx`` (or None) per input, written with public ops;
            ``NON_DIFFERENTIABLE``; or None while no rule is written yet.
        expr: optional codegen template for a single-output op, e.g. ``"({0} + {1})"``.
        stateful: never folded, de-duplicated or pruned; runs in program order.
        check: optional ``check(arrays)`` run eagerly before the kernel, raising TF's eager
            errors (InvalidArgumentError) for dtypes the op does not accept.
    """

    name: str
    infer: Callable[..., Any]
    kernel: Callable[..., Any]
    grad: Optional[Callable[..., Any]] = None
    expr: Optional[str] = None
    stateful: bool = False
    check: Optional[Callable[..., Any]] = None
    doc: str = ""
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        # A check may carry ``fast = (dtypes, pair)``: ``bind`` then tests inline that the first
        # input's dtype is in ``dtypes`` (and, if ``pair``, that the second has the same one),
        # calling ``check`` only to raise the precise error.
        fast = getattr(self.check, "fast", None)
        self.fast_dtypes = fast[0] if fast else None
        self.fast_pair = fast[1] if fast else False

    def __repr__(self):
        return f"OpDef({self.name})"


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


def define_op(name, *, stateful=False, expr=None):
    """Class decorator: a class whose ``infer``/``kernel``/``grad``/``check`` sit together.

    The class is a namespace; its functions become the OpDef's fields.
    """

    def wrap(cls):
        ns = vars(cls)
        return register(OpDef(
            name=name,
            infer=ns["infer"],
            kernel=ns["kernel"],
            grad=ns.get("grad"),
            expr=ns.get("expr", expr),
            stateful=ns.get("stateful", stateful),
            check=ns.get("check"),
            doc=cls.__doc__ or "",
            meta={"message": ns["message"]} if "message" in ns else {},
        ))

    return wrap
