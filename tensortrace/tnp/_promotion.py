"""TF's "safe" and "all" dtype conversion modes at work: while one is on, the tensor operators
and the API functions TF gives WeakTensor support (``tf.add``, ``tf.math.abs``, ``tf.constant``,
``Variable.assign_add``, the tnp functions ...) promote their inputs through the lattice
(``_lattice``) and return a ``WeakTensor`` when the result type is weak. Installing wraps them
in place and ``uninstall`` puts the originals back, so the modes cost nothing while off."""

import inspect
import sys

from .. import dtypes as D
from .._export import _EXPORTS
from ..convert import convert_to_tensor
from ..ops.math.casting import cast
from ..ops.math.operands import operand
from ..tensor import Tensor
from ..tracing import trace as _trace
from ..variables import Variable
from . import _core, _lattice
from ._weak import WeakTensor, strip, wrap

_PACKAGE = __name__.split(".")[0]

# Tensor operators: the promoted ones give a weak result when the promotion is weak; "==" is
# promoted but its result is bool; the others take a weak operand as its plain tensor.
_PROMOTED = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
_STRONG_RESULT = ("eq",)

# The public functions TF wraps (weak_tensor_ops): unary ones take the weakness of their first
# argument; binary ones promote their two arguments.
UNARY_API = """
abs acos acosh asin asinh atan atanh cos cosh exp floor identity negative ones_like zeros_like
reduce_logsumexp reduce_max reduce_mean reduce_min reduce_prod reduce_sum round sigmoid sign sin
sinh sqrt square squeeze stop_gradient tan tanh transpose reshape expand_dims clip_by_value
debugging.check_numerics linalg.diag linalg.diag_part linalg.matrix_transpose
linalg.tensor_diag_part linalg.trace bitwise.invert
math.abs math.acos math.acosh math.angle math.asin math.asinh math.atan math.atanh
math.bessel_i0 math.bessel_i0e math.bessel_i1 math.bessel_i1e math.ceil math.conj math.cos
math.cosh math.digamma math.erf math.erfc math.erfcinv math.erfinv math.exp math.expm1
math.floor math.imag math.lgamma math.log math.log1p math.log_sigmoid math.log_softmax
math.ndtri math.negative math.real math.reciprocal math.reciprocal_no_nan
math.reduce_euclidean_norm math.reduce_logsumexp math.reduce_max math.reduce_mean
math.reduce_min math.reduce_prod math.reduce_std math.reduce_sum math.reduce_variance
math.rint math.round math.rsqrt math.sigmoid math.sign math.sin math.sinh math.softplus
math.sqrt math.square math.tan math.tanh
nn.gelu nn.leaky_relu nn.log_softmax nn.relu6 nn.sigmoid nn.silu nn.softplus nn.swish nn.tanh
""".split()
BINARY_API = """
add subtract multiply divide truediv realdiv truncatediv truncatemod pow matmul linalg.matmul
math.add math.subtract math.multiply math.multiply_no_nan math.divide math.divide_no_nan
math.truediv math.floordiv math.floormod math.mod math.pow
""".split()
COMPARISON_API = "maximum minimum math.maximum math.minimum equal math.equal".split()
TNP_UNARY = """
abs absolute angle arccos arcsin arcsinh arctan arctanh bitwise_not cbrt ceil conj conjugate
cos cosh deg2rad exp exp2 expm1 fabs fix floor log negative rad2deg reciprocal sin sinh sqrt tan
tanh nanmean log2 log10 log1p positive sinc square diff sort average trace amax amin around
arange array asanyarray asarray ascontiguousarray copy cumprod cumsum diag diagflat diagonal
empty_like expand_dims flatten flip fliplr flipud full_like imag max mean min moveaxis ones_like
prod ravel real reshape repeat rot90 round squeeze std sum swapaxes transpose triu vander var
zeros_like sign ptp
""".split()
# tnp functions whose every argument is converted (TF's asarray on each): weak per argument
TNP_EACH = ("atleast_1d", "atleast_2d", "atleast_3d", "ix_")
TNP_BINARY = ("matmul",)
# tnp functions TF composes of weak-supporting ones: weak when both arguments are
TNP_WEAK_IF_BOTH = ("hypot",)

_aliases = {}  # id(namespace) -> the modules forwarding it, found when installing
_patched = []  # (module, name, value before, export table, original): uninstall's list
_ABSENT = object()


def _mode():
    return _core.config.mode


def to_dtype(x, dtype):
    """``x`` as a tensor of ``dtype``: tensors cast, other values converted (TF's
    ``_convert_or_cast``)."""
    x = strip(x)
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else cast(x, dtype)
    if hasattr(x, "_as_graph_or_eager_tensor"):
        x = convert_to_tensor(x)
        return x if x.dtype == dtype else cast(x, dtype)
    return convert_to_tensor(x, dtype)


def result_type(*values):
    """The (dtype, weak) the current mode promotes ``values`` to."""
    return _lattice.result_type(values, _mode())


# --- operators --------------------------------------------------------------------------------
def _operator(name, original):
    """Tensor's operator ``name`` in the new modes (``original`` is the plain one)."""
    op = name.strip("_").removeprefix("r") if name.startswith("__r") else name.strip("_")
    kind = "weak" if op in _PROMOTED else "strong" if op in _STRONG_RESULT else "plain"

    def operator(self, other):
        if kind == "plain":
            if not isinstance(other, (Tensor, WeakTensor)) and not hasattr(other, "dtype"):
                if name.startswith("__r") and op in ("and", "or", "xor"):  # TF's and_(3, t)
                    raise AttributeError(
                        f"'{type(other).__name__}' object has no attribute 'dtype'")
                if _mode() == "safe" and isinstance(self, WeakTensor) and other is not None:
                    # TF's conversion of the value next to a weak tensor asks the mode
                    _lattice.result_type((other, self.dtype), "safe")
            return original(strip(self), strip(other))
        if other is None and op == "eq":
            return original(strip(self), other)
        try:
            try:
                dtype, weak = _lattice.result_type2(self, other, _mode())
            except NotImplementedError:
                return original(strip(self), strip(other))
            a = to_dtype(self, dtype)
            cls = type(other)
            b = operand(other, a) if cls is int or cls is float else to_dtype(other, dtype)
            out = original(a, b)
            return wrap(out, weak and kind == "weak")
        except (TypeError, ValueError) as e:  # TF's wrapper: the other value's reflected op
            if name.startswith("__r") or op not in _PROMOTED:
                raise
            r_op = getattr(type(other), f"__r{op}__", None)
            if r_op is None or isinstance(other, (Tensor, WeakTensor)) or \
                    hasattr(other, "_as_graph_or_eager_tensor"):  # those promote as we do
                raise
            try:
                out = r_op(other, strip(self))
            except (TypeError, ValueError):
                raise e from None
            if out is NotImplemented:
                raise
            return out

    operator.__name__ = name
    operator._weak_promoting = True
    return operator


def _weak_operator(name):
    """WeakTensor's operator ``name``: Tensor's current one (promoting while a mode is on)."""
    unary = name in ("__neg__", "__abs__", "__invert__", "__pos__")

    if unary:
        def operator(self):
            out = getattr(Tensor, name)(self.tensor)
            return wrap(out, _mode() in ("safe", "all"))
    else:
        def operator(self, other):
            tensor_op = getattr(Tensor, name)
            if getattr(tensor_op, "_weak_promoting", False):
                return tensor_op(self, other)
            return tensor_op(self.tensor, strip(other))

    operator.__name__ = name
    return operator


def _index(spec):
    if isinstance(spec, (tuple, list)):
        return type(spec)(_index(s) for s in spec)
    return strip(spec)


def _weak_method(name):
    """WeakTensor's NumPy method ``name`` (TF's tnp functions on the weak tensor): a weak
    result while a new mode is on."""

    def method(self, *args, **kwargs):
        return wrap(getattr(self.tensor, name)(*args, **kwargs), _mode() in ("safe", "all"))

    method.__name__ = name
    return method


for _name in Tensor.OVERLOADABLE_OPERATORS:
    if _name != "__getitem__":
        setattr(WeakTensor, _name, _weak_operator(_name))
for _name in ("reshape", "ravel", "flatten", "transpose", "max", "min", "mean", "__round__"):
    setattr(WeakTensor, _name, _weak_method(_name))
WeakTensor.T = property(lambda self: wrap(self.tensor.T, _mode() in ("safe", "all")))
WeakTensor.data = property(lambda self: self if _mode() in ("safe", "all") else self.tensor.data)
WeakTensor.__getitem__ = lambda self, spec: self.tensor[_index(spec)]
del _name


# --- API functions ----------------------------------------------------------------------------
def _params(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _arg(args, kwargs, params, name, default=None):
    if name in kwargs:
        return kwargs[name]
    i = params.index(name) if name in params else -1
    return args[i] if 0 <= i < len(args) else default


def _set_arg(args, kwargs, params, name, value):
    i = params.index(name) if name in params else -1
    if name not in kwargs and 0 <= i < len(args):
        args = list(args)
        args[i] = value
        return args, kwargs
    return args, dict(kwargs, **{name: value})


def unary(fn, x_name=None):
    """``fn`` taking the weakness of its argument ``x_name`` (default the first): a Python or
    weak input gives a weak result; a tensor input, or a ``dtype`` asked for, leaves ``fn``
    as it is."""
    params = _params(fn)
    x_name = x_name or (params[0] if params else None)

    def wrapper(*args, **kwargs):
        x = _arg(args, kwargs, params, x_name)
        if isinstance(x, Tensor) or _arg(args, kwargs, params, "dtype") is not None:
            return fn(*args, **kwargs)
        try:
            dtype, weak = result_type(x)
        except NotImplementedError:
            return fn(*args, **kwargs)
        args, kwargs = _set_arg(args, kwargs, params, x_name, to_dtype(x, dtype))
        return wrap(fn(*args, **kwargs), weak)

    return _named(wrapper, fn)


def binary(fn, strong_result=False):
    """``fn`` with its two first arguments promoted to their result type (weak when that is,
    unless ``strong_result``: comparisons, maximum/minimum)."""
    params = _params(fn)
    x_name, y_name = params[0], params[1]

    def wrapper(*args, **kwargs):
        x = _arg(args, kwargs, params, x_name)
        y = _arg(args, kwargs, params, y_name)
        try:
            dtype, weak = result_type(x, y)
        except NotImplementedError:
            return fn(*args, **kwargs)
        args, kwargs = _set_arg(args, kwargs, params, x_name, to_dtype(x, dtype))
        args, kwargs = _set_arg(args, kwargs, params, y_name, to_dtype(y, dtype))
        return wrap(fn(*args, **kwargs), weak and not strong_result)

    return _named(wrapper, fn)


def _weak_if_both(fn):
    def wrapper(x1, x2):
        weak = not isinstance(x1, Tensor) and not isinstance(x2, Tensor) and \
            result_type(x1)[1] and result_type(x2)[1]
        return wrap(fn(strip(x1), strip(x2)), weak)

    return _named(wrapper, fn)


def _each(fn):
    """``fn(*arrays)`` whose result has one array per argument (or the one array): each is
    weak when its argument is."""

    def wrapper(*arrays):
        out = fn(*arrays)
        many = isinstance(out, (list, tuple))
        results = []
        for a, r in zip(arrays, out if many else [out]):
            weak = not isinstance(a, Tensor) and result_type(a)[1]
            results.append(wrap(r, weak))
        return type(out)(results) if many else results[0]

    return _named(wrapper, fn)


def _constant(fn):
    """``tf.constant``: a weak tensor for a value of no dtype of its own; given a ``dtype``, a
    tensor value promoting to it is cast (TF allows that in the new modes)."""

    def constant(value, dtype=None, shape=None, name=None):
        if dtype is None:
            dtype, weak = result_type(value)
            return wrap(fn(strip(value), dtype, shape, name), weak)
        dtype = D.as_dtype(dtype)
        promoted = result_type(value, dtype)[0]
        value = strip(value)
        if promoted == dtype and isinstance(value, Tensor):
            value = to_dtype(value, dtype)
        return fn(value, dtype, shape, name)

    return _named(constant, fn)


def _variable_method(fn):
    """``Variable.assign``/``assign_add``/``assign_sub``: the value promotes to the variable's
    dtype, or TF's TypeError (a variable's dtype cannot change)."""

    def method(self, value, *args, **kwargs):
        dtype, _ = result_type(self, value)
        if dtype != self.dtype:
            raise TypeError(
                f"Variable dtype is immutable. Calling {fn.__name__} of Variable (with dtype "
                f"{self.dtype}) on {value} requires converting {value} to {self.dtype}. "
                "This is disabled in the current promotion semantics. Please convert "
                f"{value} manually before calling {fn.__name__}.")
        return fn(self, to_dtype(value, dtype), *args, **kwargs)

    return _named(method, fn)


def _named(wrapper, fn):
    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__wrapped__ = fn
    return wrapper


def _namespace(ns):
    module = sys.modules[_PACKAGE]
    for part in ns.split(".") if ns else ():
        module = getattr(module, part)
    return module


def _patch(module, ns, name, make):
    """Replace ``module.name`` (its export record, and the modules that forward it: the
    ``tensorflow`` the runner installs caches names it forwards) by ``make(original)``."""
    try:
        original = getattr(module, name)
    except AttributeError:  # a name TF wraps that this namespace lacks
        return
    new = make(original)
    exports = _EXPORTS.get(ns, {}) if ns is not None else {}
    _patched.append((module, name, vars(module).get(name, _ABSENT),
                     exports if exports.get(name) is original else None, original))
    setattr(module, name, new)
    if exports.get(name) is original:
        exports[name] = new
    for alias in _aliases.get(id(module), ()):
        if vars(alias).get(name) is original:
            _patched.append((alias, name, original, None, original))
            setattr(alias, name, new)


def install(set_attribute, operator_names):
    """Install the new modes' operators (through ``set_attribute``, which records what it
    replaces) and wrap the API functions."""
    for name in operator_names:
        current = getattr(Tensor, name)
        if not getattr(current, "_weak_promoting", False):
            set_attribute(name, _operator(name, current))
    for name in ("assign", "assign_add", "assign_sub"):
        set_attribute(name, _variable_method(getattr(Variable, name)), Variable)
    if _patched:
        return
    _aliases.clear()
    for alias in list(sys.modules.values()):
        target = getattr(alias, "__dict__", {}).get("_tt_target")
        if target is not None:
            _aliases.setdefault(id(target), []).append(alias)
    for path in UNARY_API + BINARY_API + COMPARISON_API:
        ns, _, name = path.rpartition(".")
        make = unary if path in UNARY_API else binary if path in BINARY_API else \
            (lambda f: binary(f, strong_result=True))
        _patch(_namespace(ns), ns, name, make)
    _patch(_namespace(""), "", "constant", _constant)
    # a traced function's Python results become tensors as TF's convert_to_tensor_or_composite
    _patch(_trace, None, "convert_to_tensor", unary)
    _patch(_namespace("math"), "math", "scalar_mul", lambda f: unary(f, "x"))
    tnp = sys.modules[__package__]
    for name in TNP_UNARY:
        _patch(tnp, "experimental.numpy", name, unary)
    for name in TNP_BINARY:
        _patch(tnp, "experimental.numpy", name, binary)
    for name in TNP_WEAK_IF_BOTH:
        _patch(tnp, "experimental.numpy", name, _weak_if_both)
    for name in TNP_EACH:
        _patch(tnp, "experimental.numpy", name, _each)


def uninstall(restore):
    """Put back what ``install`` replaced (``restore`` undoes the recorded attributes)."""
    restore([(Variable, n) for n in ("assign", "assign_add", "assign_sub")])
    while _patched:
        module, name, before, exports, original = _patched.pop()
        if before is _ABSENT:
            try:
                delattr(module, name)
            except AttributeError:
                pass
        else:
            setattr(module, name, before)
        if exports is not None:
            exports[name] = original
