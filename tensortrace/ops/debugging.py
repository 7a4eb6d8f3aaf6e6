"""``tf.debugging``: the assert family (eager errors at once, ``Assert`` ops while tracing,
static failures at trace time), ``check_numerics`` and ``enable_check_numerics``; and
``tf.math.confusion_matrix``, which asserts its inputs' bounds."""

import collections
import sys

import numpy as np

from .. import dtypes as D
from .. import errors, registry
from .._export import tf_export
from ..context import bind, state
from ..messages import kernel_error_text
from ..convert import convert_to_tensor
from ..graph.naming import default_name
from ..registry import DtypeCheck, define_op
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor, TensorSpec, static_value
from ._args import int_arg, shown
from ._base import FLOAT, check_dtypes, dtypes_named
from .array.creation import ones_like
from .array.joining import stack
from .array.shapes import rank as _rank
from .array.shapes import shape as _shape
from .control_flow.records import ASSERT
from .core import no_op
from .indexing.scatter import scatter_nd
from .math.arithmetic import abs as _abs
from .math.arithmetic import maximum
from .math.casting import cast
from .math.compare import equal, greater, greater_equal, less, less_equal, logical_or, not_equal
from .reduce import reduce_all, reduce_max


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _shape_and_dtype_str(t):
    return f"shape={t.shape} dtype={t.dtype.name}"


def _tensor_name(t, default):
    """How messages name ``t``: eagerly its shape and dtype, while tracing its graph name."""
    if isinstance(t, EagerTensor):
        return default
    return t.name


# --- Assert: eager error or graph op -----------------------------------------------------------
def _summarize_eager(t, summarize):
    """TF's ``Tensor::SummarizeValue`` for eager data: the first ``summarize`` items."""
    value = t.numpy()
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = np.size(value)
    if np.ndim(value):
        flat = value.reshape(-1)
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
    else:
        items = [str(value)] if summarize != 0 else []
    return ", ".join(items)


def _assert(condition, data, summarize=None):
    summarize = None if summarize is None else int_arg(summarize, "summarize")
    """``tf.debugging.Assert`` returning its op while tracing (None eagerly)."""
    condition = convert_to_tensor(condition)
    data = [convert_to_tensor(d) for d in data]
    if state.graph is None:
        if not np.all(condition.numpy()):
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: "
                + "\n".join(_summarize_eager(d, summarize) for d in data))
        return None
    return bind(ASSERT, condition, *data, summarize=3 if summarize is None else int(summarize))


def _pretty_print(item, summarize):
    if isinstance(item, Tensor):
        arr = item.numpy()
        if np.ndim(arr) == 0:
            return str(arr)
        flat = arr.reshape(-1)
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _static_text(item):
    """A data item in a trace-time failure: its value when known, else the tensor itself."""
    if not isinstance(item, Tensor):
        return str(item)
    value = static_value(item)
    return str(item) if value is None else str(value)


def _assert_static(condition, data):
    if not condition:
        raise errors.InvalidArgumentError(None, None, "\n".join(_static_text(d) for d in data))


def _eager_binary_data(sym, x, y, summarize, test):
    data = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        xv, yv = x.numpy(), y.numpy()
        if x.shape == y.shape and x.shape.rank:
            mask = ~np.asarray(test.numpy())
            indices = np.argwhere(mask)
            n = min(summarize, indices.shape[0])
            data += [f"Indices of first {n} different values:", indices[:n],
                     "Corresponding x values:", xv[mask].reshape(-1)[:n],
                     "Corresponding y values:", yv[mask].reshape(-1)[:n]]
        xf, yf = np.reshape(xv, -1), np.reshape(yv, -1)
        nx, ny = min(xf.size, summarize), min(yf.size, summarize)
        data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return data


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message):
    summarize = None if summarize is None else int_arg(summarize, "summarize")
    x = convert_to_tensor(x)
    y = convert_to_tensor(y)
    if state.graph is None:
        test = op_func(x, y)
        if np.all(test.numpy()):
            return None
        summarize = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
        if data is None:
            data = _eager_binary_data(sym, x, y, summarize, test)
        if message is not None:
            data = [message] + list(data)
        raise errors.InvalidArgumentError(
            None, None, "\n".join(_pretty_print(d, summarize) for d in data))
    if data is None:
        data = [f"Condition x {sym} y did not hold element-wise:",
                f"x ({_tensor_name(x, opname + '/x:0')}) = ", x,
                f"y ({_tensor_name(y, opname + '/y:0')}) = ", y]
    if message is not None:
        data = [message] + list(data)
    condition = reduce_all(op_func(x, y))
    xs, ys = static_value(x), static_value(y)
    if xs is not None and ys is not None:
        _assert_static(np.all(static_func(xs, ys)), data)
    return _assert(condition, data, summarize)


def _assert_scope(local):
    """TF's asserts run in a scope of their name, their Assert op under it (node names)."""
    return (local["opname"], False, None)


def _binary(sym, opname, op_func, static_func, top_level=False):
    """``tf.debugging.{opname}`` (also ``tf.{opname}`` when ``top_level``): ``x {sym} y``."""

    def assert_fn(x, y, message=None, summarize=None, name=None):
        if summarize is not None:
            int_arg(summarize, "summarize")
        if opname == "assert_equal" and x is y:
            return None if state.graph is None else no_op()
        return _binary_assert(sym, opname, op_func, static_func, x, y, None, summarize, message)

    default_name(_assert_scope, assert_fn)
    assert_fn.__name__ = opname
    assert_fn.__doc__ = (f"Assert ``x {sym} y`` element-wise (broadcasting); empty tensors "
                         "pass.\n\nRaises InvalidArgumentError eagerly (or while tracing when "
                         "both values are known); otherwise returns the Assert op that raises "
                         "when run.")
    return tf_export(f"debugging.{opname}", *([opname] if top_level else []))(assert_fn)


assert_equal = _binary("==", "assert_equal", equal, np.equal, top_level=True)
assert_none_equal = _binary("!=", "assert_none_equal", not_equal, np.not_equal)
assert_less = _binary("<", "assert_less", less, np.less, top_level=True)
assert_less_equal = _binary("<=", "assert_less_equal", less_equal, np.less_equal)
assert_greater = _binary(">", "assert_greater", greater, np.greater, top_level=True)
assert_greater_equal = _binary(">=", "assert_greater_equal", greater_equal, np.greater_equal)


def _unary(opname, sym, compare, zero_first):
    """``tf.debugging.{opname}``: ``x {sym}``, asserted as ``assert_less``/``assert_less_equal``
    against zero, like TF."""

    def assert_fn(x, message=None, summarize=None, name=None):
        prefix = _message_prefix(message)
        x = convert_to_tensor(x)
        label = _shape_and_dtype_str(x) if state.graph is None else \
            _tensor_name(x, f"{opname}/x:0")
        # TF's assert_non_positive drops the newline between these two items.
        head = [f"Condition x {sym} did not hold element-wise:", f"x ({label}) = "]
        if opname == "assert_non_positive":
            head = ["".join(head)]
        data = [prefix] + head + [x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        op_func, static_func = compare
        sym2 = "<" if op_func is less else "<="
        return _binary_assert(sym2, opname, op_func, static_func, a, b, data, summarize, None)

    default_name(_assert_scope, assert_fn)
    assert_fn.__name__ = opname
    assert_fn.__doc__ = f"Assert ``x {sym}`` element-wise; empty tensors pass."
    return tf_export(f"debugging.{opname}")(assert_fn)


assert_negative = _unary("assert_negative", "< 0", (less, np.less), False)
assert_positive = _unary("assert_positive", "> 0", (less, np.less), True)
assert_non_negative = _unary("assert_non_negative", ">= 0", (less_equal, np.less_equal), True)
assert_non_positive = _unary("assert_non_positive", "<= 0", (less_equal, np.less_equal), False)


@tf_export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Assert ``|x - y| < atol + rtol * |y|`` element-wise (defaults: 10 * eps of the dtype)."""
    prefix = _message_prefix(message)
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
    eps = np.finfo(dtype._np).eps
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=dtype)
    eager = state.graph is None
    x_name = _shape_and_dtype_str(x) if eager else _tensor_name(x, "assert_near/x:0")
    y_name = _shape_and_dtype_str(y) if eager else _tensor_name(y, "assert_near/y:0")
    data = [prefix, f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({x_name}) = ", x, f"y ({y_name}) = ", y]
    condition = reduce_all(less(_abs(x - y), atol + rtol * _abs(y)))
    return _assert(condition, data, summarize)


# --- rank and shape asserts ---------------------------------------------------------------------
class _StaticRankFailure(Exception):
    pass


def _int32_rank(rank):
    rank = convert_to_tensor(rank)
    assert_type(rank, D.int32)
    return rank


def _assert_ranks(x, ranks, static_ok, dynamic_ok, data, summarize):
    """Check statically when every rank and ``x``'s rank are known, else build an Assert."""
    values = [static_value(r) for r in ranks]
    if all(v is not None for v in values):
        if any(np.ndim(v) != 0 for v in values):
            raise ValueError("Rank must be a scalar.")
        if x.shape.rank is not None:
            if not static_ok(x.shape.rank, [int(v) for v in values]):
                raise _StaticRankFailure(x.shape.rank, [int(v) for v in values])
            return None if state.graph is None else no_op()
    return _assert(dynamic_ok(_rank(x), ranks), data, summarize)


def _rank_assert(kind, x, ranks, message, static_ok, dynamic_ok, text):
    x = convert_to_tensor(x)
    prefix = _message_prefix(message)
    name = "" if state.graph is None else _tensor_name(x, "x:0")
    data = [prefix, f"Tensor {name} must have {kind}", *ranks, "Received shape: ", _shape(x)]
    try:
        return _assert_ranks(x, ranks, static_ok, dynamic_ok, data, None)
    except _StaticRankFailure as e:
        actual, wanted = e.args
        raise ValueError(f"{prefix}Tensor {name} must have {kind} {text(wanted)}.  Received rank "
                         f"{actual}, shape {x.shape}") from None


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, message=None, name=None):
    """Assert ``x`` has rank ``rank`` (a ValueError when the shapes tell statically)."""
    return _rank_assert("rank", x, [_int32_rank(rank)], message, lambda a, r: a == r[0],
                        lambda a, r: equal(a, r[0]), lambda r: r[0])


@tf_export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None):
    """Assert ``x`` has rank ``rank`` or more."""
    return _rank_assert("rank at least", x, [_int32_rank(rank)], message,
                        lambda a, r: a >= r[0], lambda a, r: greater_equal(a, r[0]),
                        lambda r: r[0])


def _any_equal(actual, ranks):
    result = equal(ranks[0], actual)
    for r in ranks[1:]:
        result = logical_or(result, equal(r, actual))
    return result


@tf_export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None):
    """Assert the rank of ``x`` is one of ``ranks``."""
    ranks = [_int32_rank(r) for r in ranks]
    return _rank_assert("rank in", x, ranks, message, lambda a, r: a in r, _any_equal,
                        lambda r: tuple(r))


@tf_export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None):
    """Raise ValueError unless ``tensor`` is statically known to be a scalar."""
    tensor = convert_to_tensor(tensor)
    prefix = _message_prefix(message)
    if tensor.shape.rank != 0:
        if state.graph is None:
            raise ValueError(f"{prefix}Expected scalar shape, saw shape: {tensor.shape}.")
        raise ValueError(f"{prefix}Expected scalar shape for {_tensor_name(tensor, 'x:0')}, "
                         f"saw shape: "
                         f"{tensor.shape}.")


@tf_export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """Raise TypeError unless ``tensor`` has dtype ``tf_type`` (always a static check)."""
    tf_type = D.as_dtype(tf_type)
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        raise TypeError(f"{_message_prefix(message)}{getattr(tensor, 'name', 'tensor')} must be "
                        f"of type {tf_type!r}; got {tensor.dtype!r}")


@tf_export("debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """Raise TypeError unless ``x`` has an integer dtype."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        label = "tensor" if state.graph is None else _tensor_name(x, "x:0")
        raise TypeError(f'{_message_prefix(message)}Expected "x" to be integer type.  Found: '
                        f"{label} of dtype {x.dtype}")


@tf_export("debugging.assert_proper_iterable")
def assert_proper_iterable(values):
    """Raise TypeError unless ``values`` is an iterable that is not a tensor, array or string."""
    if isinstance(values, (Tensor, np.ndarray, bytes, str)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


@tf_export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """True for tensors of a number dtype (not bool, not string)."""
    return isinstance(tensor, Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer
                                           or tensor.dtype.is_complex)


@tf_export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common float dtype of ``tensors`` (and ``dtype``); float32 when neither is given.

    Raises:
        ValueError: if the dtypes differ or are not floating point.
    """
    first = None
    if tensors is not None and not isinstance(tensors, (list, tuple)):
        raise TypeError(f"`tensors` must be a list of tensors, got {shown(tensors)}")
    for t in tensors or ():
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"`tensors` must hold tensors, got {shown(t)}")
        if dtype is None:
            dtype, first = t.dtype, t
        elif t.dtype != dtype:
            origin = f" as {first!s}" if first is not None else ""
            raise ValueError(f"{t!s}, type={t.dtype}, must be of the same type ({dtype}){origin}.")
    if dtype is None:
        return D.float32
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


_DimSizes = collections.namedtuple("_DimSizes", "x innermost actual symbolic")


def _dimension_sizes(x):
    """Each dim as an int when static, else a scalar tensor; a scalar counts as shape [1]."""
    rank = x.shape.rank
    if rank == 0:
        return (1,)
    if rank is None:
        raise ValueError(f"assert_shapes needs the rank of {_tensor_name(x, 'x:0')} to be "
                         f"known")
    dynamic = _shape(x)
    return [d if d is not None else dynamic[i] for i, d in enumerate(x.shape.dims)]


def _known(size):
    try:
        int(size)
        return size is not None
    except (TypeError, ValueError):
        return False


def _shape_constraints(shapes, prefix, tensor_name):
    found = []
    for x, symbolic in shapes:
        if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
            raise ValueError(f"{prefix}Tensor {tensor_name(x)}.  Specified shape must be an "
                             "iterable.  An iterable has the attribute `__iter__` or "
                             f"`__getitem__`.  Received specified shape: {symbolic}")
        symbolic = tuple(symbolic if not isinstance(symbolic, TensorShape) else symbolic.dims)
        innermost = False
        for i, symbol in enumerate(symbolic):
            if symbol is Ellipsis or symbol == "*":
                if i != 0:
                    raise ValueError(f"{prefix}Tensor {tensor_name(x)} specified shape index {i}."
                                     "  Symbol `...` or `*` for a variable number of unspecified "
                                     "dimensions is only allowed as the first entry")
                innermost = True
        sizes = symbolic[1:] if innermost else symbolic
        found.append(_DimSizes(x, innermost, _dimension_sizes(x), sizes or (1,)))
    return found


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Assert tensors' shapes and the relations between their dimensions.

    ``shapes`` pairs tensors with specs such as ``('N', 'Q')``: ints are exact sizes, equal
    strings must be equal sizes across tensors, None or '.' match anything, and a leading
    ``...`` or ``'*'`` constrains only the innermost dimensions. Scalars count as shape [1].

    Raises:
        ValueError: when the static shapes violate a constraint.
    """
    if summarize is not None:
        int_arg(summarize, "summarize")
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    shapes = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]
    eager = state.graph is None

    def tensor_name(x):
        return _shape_and_dtype_str(x) if eager else _tensor_name(x, "x:0")

    constraints = _shape_constraints(shapes, prefix, tensor_name)
    checks = []
    for c in constraints:
        n = len(c.symbolic)
        if c.innermost:
            if n > 1:
                checks.append(assert_rank_at_least(c.x, n, message=message))
        elif n == 1:
            checks.append(assert_rank_in(c.x, [0, 1], message=message))
        else:
            checks.append(assert_rank(c.x, n, message=message))
    specified = {}
    for c in constraints:
        for i, symbol in enumerate(c.symbolic):
            if symbol is None or symbol == ".":
                continue
            dim = i - len(c.symbolic) if c.innermost else i
            if symbol not in specified and not _known(symbol):
                specified[symbol] = (c.actual[dim], c.x, dim)
                continue
            if _known(symbol):
                want, how = int(symbol), "Specified explicitly"
            else:
                want, by, at = specified[symbol]
                how = f"Specified by tensor {tensor_name(by)} dimension {at}"
            actual = c.actual[dim]
            if _known(actual) and _known(want):
                if int(actual) != int(want):
                    raise ValueError(f"{prefix}{how}.  Tensor {tensor_name(c.x)} dimension {dim} "
                                     f"must have size {int(want)}.  Received size {int(actual)}, "
                                     f"shape {c.x.shape}")
                continue
            info = data if data is not None else [
                prefix, how, f"Tensor {tensor_name(c.x)} dimension", dim, "must have size",
                want, "Received shape: ", _shape(c.x)]
            checks.append(_assert(equal(convert_to_tensor(actual), convert_to_tensor(want)),
                                  info, summarize))
    # TF 2's assert_shapes returns nothing; the Assert ops run anyway (stateful)


# --- CheckNumerics ------------------------------------------------------------------------------
def _numerics_problem(arr):
    """"NaN", "Inf" or "Inf and NaN" when ``arr`` has such values, else None."""
    if np.isfinite(arr).all():
        return None
    nan, inf = bool(np.isnan(arr).any()), bool(np.isinf(arr).any())
    return "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"


@define_op("CheckNumerics", stateful=True)
class CheckNumerics:
    """The input, after checking it holds no NaN or Inf (raising with ``message``)."""

    # TF's list (the message's order): bfloat16 first
    check = DtypeCheck("CheckNumerics", dtypes_named("bfloat16 float16 float32 float64"), 1)

    def infer(tensor, message):
        check_dtypes("CheckNumerics", (tensor,), FLOAT, names=("tensor",))
        return TensorSpec(tensor.shape, tensor.dtype)

    def kernel(tensor, message):
        problem = _numerics_problem(tensor)
        if problem is not None:
            raise errors.invalid_argument(f"{message} : Tensor had {problem} values")
        return tensor


@tf_export("debugging.check_numerics")
def check_numerics(tensor, message, name=None):
    """``tensor``, checked to hold no NaN or Inf.

    Raises:
        InvalidArgumentError: ``"{message} : Tensor had NaN values"`` (or Inf, or both) when the
            op runs.
    """
    return bind(CheckNumerics, convert_to_tensor(tensor), message=str(message))


@tf_export("debugging.assert_all_finite")
def assert_all_finite(x, message, name=None):
    """``check_numerics(x, message)``."""
    return check_numerics(x, message)


# --- enable_check_numerics ----------------------------------------------------------------------
# While enabled every registered op's kernel is wrapped to check its float outputs, and ops that
# codegen would inline through ``expr`` lose it, so compiled graphs call the checked kernels too.
# Disabled, the original kernels are back: the eager hot path pays nothing.
_SKIPPED = {"Const", "Placeholder", "CheckNumerics"}
_saved = {}  # op name -> (kernel, expr) while enabled


def _numerics_error(op_name, outputs, index, arr, inputs):
    graph = sys._getframe(2).f_code.co_filename.startswith("<tensortrace")
    kind = "graph" if graph else "eagerly-executing"
    header = (f"!!! Detected Infinity or NaN in output {index} of {kind} op \"{op_name}\" "
              f"(# of outputs: {len(outputs)}) !!!")
    lines = ["", "", header,
             f"  dtype: {D.from_numpy(arr.dtype)}", f"  shape: {TensorShape(np.shape(arr))}"]
    with np.errstate(invalid="ignore"):
        inf = np.isinf(arr)
        for label, count in (("-Inf", np.sum(inf & (arr < 0))), ("+Inf", np.sum(inf & (arr > 0))),
                             ("+NaN", np.sum(np.isnan(arr)))):
            if count:
                lines.append(f"  # of {label} elements: {count}")
    shown = [EagerTensor._wrap(a) if isinstance(a, (np.ndarray, np.generic)) else a
             for a in inputs]
    if len(shown) > 1:
        lines += ["", f"  Input tensors ({len(shown)}):"]
        lines += [f"         {i}: {t!s}" for i, t in enumerate(shown)]
    elif shown:
        lines += ["", f"  Input tensor: {shown[0]!s}"]
    problem = [k for k, bad in (("-Inf", np.any(inf & (arr < 0))),
                                ("+Inf", np.any(inf & (arr > 0))),
                                ("NaN", np.any(np.isnan(arr)))) if bad]
    lines += ["", f" : Tensor had {' and '.join(problem)} values"]
    if graph:
        return errors.invalid_argument("\n".join(lines))
    # eagerly TF runs a CheckNumericsV2 op after the op: the error is that op's
    return errors.InvalidArgumentError(None, None, kernel_error_text("\n".join(lines),
                                                                     "CheckNumericsV2"))


def _checked(op_name, kernel):
    def run(*arrays, **attrs):
        out = kernel(*arrays, **attrs)
        outs = out if type(out) is tuple else (out,)
        for i, arr in enumerate(outs):
            if isinstance(arr, (np.ndarray, np.floating)) and arr.dtype.kind == "f" and \
                    not np.isfinite(arr).all():
                raise _numerics_error(op_name, outs, i, np.asarray(arr), arrays)
        return out

    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Make every op raise InvalidArgumentError when a float output holds NaN or Inf: eager ops
    at once, and ops of functions traced and compiled while it is enabled when they run."""
    if _saved:
        return
    for name, op in registry.all_ops().items():
        if name in _SKIPPED or op.kernel is None:
            continue
        _saved[name] = (op.kernel, op.expr)
        op.kernel, op.expr = _checked(name, op.kernel), None


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Undo ``enable_check_numerics`` (graphs compiled meanwhile keep their checks, as in TF)."""
    for name, (kernel, expr) in _saved.items():
        op = registry.get(name)
        op.kernel, op.expr = kernel, expr
    _saved.clear()


# --- confusion_matrix -----------------------------------------------------------------------------
@tf_export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=D.int32,
                     name=None):
    """``m[i, j]``: how many examples of label ``i`` were predicted as ``j`` (summing
    ``weights`` when given), ``num_classes`` defaulting to ``max(labels, predictions) + 1``."""
    dtype = D.as_dtype(dtype)
    labels = cast(convert_to_tensor(labels), D.int64)
    predictions = cast(convert_to_tensor(predictions), D.int64)
    assert_non_negative(labels, message="`labels` contains negative values")
    assert_non_negative(predictions, message="`predictions` contains negative values")
    if num_classes is None:
        num_classes = maximum(reduce_max(predictions), reduce_max(labels)) + 1
    else:
        num_classes = cast(convert_to_tensor(num_classes), D.int64)
        assert_less(labels, num_classes, message="`labels` out of bound")
        assert_less(predictions, num_classes, message="`predictions` out of bound")
    if weights is not None:
        weights = convert_to_tensor(weights)
    indices = stack([labels, predictions], axis=1)
    values = ones_like(predictions, dtype) if weights is None else cast(weights, dtype)
    return scatter_nd(indices, values, cast(stack([num_classes, num_classes]), D.int64))
