"""Everyday utilities scripts reach for: graph plumbing (``no_op``, ``group``,
``control_dependencies``, ``init_scope``, ``device``), ``ensure_shape``, ``timestamp``, norm
clipping, ``bitcast``, ``repeat``, ``bincount``, ``matvec``, ``embedding_lookup``,
``confusion_matrix`` and the threading/device-placement switches of ``tf.config``."""

import contextlib
import time

import numpy as np

from ... import dtypes as D
from ... import errors, nest
from ..._export import tf_export
from ...context import bind, state
from ...convert import convert_to_tensor
from ...registry import NON_DIFFERENTIABLE, define_op
from ...shapes import TensorShape, as_shape
from ...tensor import EagerTensor, Tensor, TensorSpec, static_value
from .._base import check_dtypes
from ...messages import c_name
from ..array import (
    broadcast_to,
    concat,
    expand_dims,
    ones_like,
    reshape,
    sequence_mask,
    shape,
    squeeze,
    stack,
    tile,
    zeros,
)
from ..array import size as array_size
from ..indexing import boolean_mask, gather, scatter_nd
from ..linalg import matmul
from ..math import cast, maximum, minimum, sqrt, where
from ..nn import l2_loss
from ..reduce import reduce_max, reduce_sum


def no_gradient(name):
    """A grad rule for an op TF registers no gradient for: differentiating through it raises."""

    def grad(op, *dys):
        raise LookupError(f"gradient registry has no entry for: {name}")

    return grad


def dt_enum_name(dtype):
    """``DT_FLOAT`` for float32: how TF's graph-time messages name a dtype."""
    return "DT_" + c_name(dtype).upper()


def shape_text(dims):
    """TF's runtime shape text: ``[2,?,3]``; ``<unknown>`` for an unknown rank."""
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def node_input_name(t):
    """How a graph-time error names an op input: its op's name (with ``:i`` past output 0)."""
    op = getattr(t, "op", None)
    if op is None or isinstance(t, EagerTensor):
        return "input"
    return op.name if not t.value_index else t.name


# --- tf.is_tensor / tf.get_static_value -------------------------------------------------------
def _is_variable(x):
    return hasattr(type(x), "_as_graph_or_eager_tensor")


@tf_export("is_tensor")
def is_tensor(x):
    """True for tensors (eager or symbolic) and variables; False for NumPy arrays and Python
    values."""
    return isinstance(x, Tensor) or _is_variable(x)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The value of ``tensor`` when known without running anything, else None.

    Non-tensors come back unchanged; eager tensors as NumPy values; variables as None (their
    value may change); symbolic tensors as the value tracing propagated, if any.
    """
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if not is_tensor(tensor):
        return tensor
    if _is_variable(tensor):
        return None
    return static_value(tensor)


# --- NoOp, group, control_dependencies, init_scope, device ------------------------------------
@define_op("NoOp")
class NoOp:
    """Does nothing; in a graph its control inputs make it a join point (``tf.group``)."""

    grad = NON_DIFFERENTIABLE

    def infer():
        return ()

    def kernel():
        return ()


@tf_export("no_op")
def no_op(name=None):
    """Eagerly None; while tracing, a NoOp operation."""
    if state.graph is None:
        return None
    return bind(NoOp)  # a graph returns the Operation itself for ops without outputs


def _control_ops(values):
    """The graph operations ``values`` (tensors, operations, nested lists) stand for."""
    ops = []
    for v in nest.flatten(values):
        if isinstance(v, Tensor) and not isinstance(v, EagerTensor):
            ops.append(v.op)
        elif hasattr(v, "control_inputs") and hasattr(v, "outputs"):  # an Operation
            ops.append(v)
    return ops


@tf_export("group")
def group(*inputs, name=None):
    """Eagerly None; while tracing, a NoOp that runs after every op of ``inputs``."""
    if state.graph is None:
        return None
    with control_dependencies(_control_ops(inputs)):
        return no_op(name)


@tf_export("control_dependencies")
def control_dependencies(control_inputs):
    """A context manager: ops created inside run after ``control_inputs`` (tensors or ops).

    Eagerly ops already run in order, so it does nothing. While tracing, nested blocks add up;
    ``None`` clears the dependencies inside the block.
    """
    graph = state.graph
    if graph is None:
        return contextlib.nullcontext()
    if control_inputs is None:
        return graph.control_dependencies([])
    outer = graph.control_dependencies_stack[-1] if graph.control_dependencies_stack else []
    return graph.control_dependencies(list(outer) + _control_ops(control_inputs))


@tf_export("init_scope")
@contextlib.contextmanager
def init_scope():
    """Run the body eagerly even inside a trace (how TF lifts initializers), with gradient tapes
    paused."""
    saved_graph, saved_tapes = state.graph, state.tapes
    state.graph, state.tapes = None, ()
    try:
        yield
    finally:
        state.graph, state.tapes = saved_graph, saved_tapes


@tf_export("device")
def device(device_name):
    """A context manager placing ops on ``device_name``: everything runs on the CPU here, so it
    only checks its argument."""
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions.")  # noqa: TRY004 (TF's type)
    return contextlib.nullcontext()


@tf_export("get_logger")
def get_logger():
    """The logger tensortrace writes its warnings to (Python's ``logging``)."""
    from ..._logging import logger

    return logger


# --- EnsureShape ---------------------------------------------------------------------------------
def _shape_attr(shape):
    shape = as_shape(shape)
    return None if shape.dims is None else tuple(shape.dims)


def _ensure_shape_error(x, dims):
    have = x.shape.dims
    node = (f" for '{{{{node EnsureShape}}}} = EnsureShape[T={dt_enum_name(x.dtype)}, "
            f"shape={shape_text(dims)}]({node_input_name(x)})' with input shapes: "
            f"{shape_text(have)}.")
    if len(have) != len(dims):
        return ValueError(f"Shape must be rank {len(dims)} but is rank {len(have)}{node}")
    i = next(i for i, (a, b) in enumerate(zip(dims, have)) if a is not None and b is not None
             and a != b)
    return ValueError(f"Dimension {i} in both shapes must be equal, but are {dims[i]} and "
                      f"{have[i]}. Shapes are {shape_text(dims)} and {shape_text(have)}.{node}")


@define_op("EnsureShape")
class EnsureShape:
    """The input, after checking its shape is compatible with ``shape`` (merged statically)."""

    def infer(input, shape):
        if not input.shape.is_compatible_with(TensorShape(shape)):
            raise _ensure_shape_error(input, shape)
        return TensorSpec(input.shape.merge_with(TensorShape(shape)), input.dtype)

    def kernel(input, shape):
        if shape is not None and (len(shape) != np.ndim(input) or any(
                d is not None and d != n for d, n in zip(shape, np.shape(input)))):
            raise errors.invalid_argument(
                f"Shape of tensor input {shape_text(np.shape(input))} is not compatible with "
                f"expected shape {shape_text(shape)}.")
        return input

    def grad(op, dy):
        return dy


@tf_export("ensure_shape")
def ensure_shape(x, shape, name=None):
    """``x``, checked at run time to have a shape compatible with ``shape``; while tracing the
    result's static shape is the merge of both.

    Raises:
        ValueError: while tracing, if the static shapes are incompatible.
        InvalidArgumentError: at run time, if the actual shape is incompatible.
    """
    if isinstance(shape, Tensor):
        shape = static_value(shape).tolist()
    try:
        dims = _shape_attr(shape)
    except (TypeError, ValueError):
        raise TypeError(f"Failed to convert '{shape!r}' to a shape: '{shape!r}'could not be "
                        "converted to a dimension. A shape should either be single dimension "
                        "(e.g. 10), or an iterable of dimensions (e.g. [1, 10, None]).") from None
    return bind(EnsureShape, convert_to_tensor(x), shape=dims)


# --- Timestamp -----------------------------------------------------------------------------------
@define_op("Timestamp", stateful=True)
class Timestamp:
    """Seconds since the epoch, as float64, read when the op runs."""

    grad = NON_DIFFERENTIABLE

    def infer():
        return TensorSpec((), D.float64)

    def kernel():
        return np.float64(time.time())


@tf_export("timestamp")
def timestamp(name=None):
    """The current time in seconds (float64); inside functions, read each time it runs."""
    return bind(Timestamp)


# --- norm clipping -------------------------------------------------------------------------------
@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescale ``t`` so its L2 norm along
    ``axes`` is at most ``clip_norm`` (TF's NaN-safe formulation, gradients included)."""
    values = convert_to_tensor(t)
    if np.isscalar(clip_norm):
        clip_norm = max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))  # no NaN gradient through sqrt(0)
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    intermediate = values * clip_norm
    values.shape.assert_is_compatible_with(intermediate.shape)
    return intermediate / maximum(l2norm, clip_norm)


def _tensor_list(t_list):
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return [None if t is None else convert_to_tensor(t) for t in t_list]


@tf_export("linalg.global_norm")
def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``; None entries are skipped."""
    values = _tensor_list(t_list)
    half_squared_norms = [l2_loss(v) for v in values if v is not None]
    if not half_squared_norms:
        return convert_to_tensor(0.0)
    half_squared_norm = reduce_sum(stack(half_squared_norms))
    return sqrt(half_squared_norm * convert_to_tensor(2.0, half_squared_norm.dtype))


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns:
        ``(list_clipped, global_norm)``; None entries stay None. An infinite or NaN norm makes
        every value NaN, as in TF.
    """
    values = _tensor_list(t_list)
    if use_norm is None:
        use_norm = global_norm(values)
    use_norm = convert_to_tensor(use_norm)
    scale_for_finite = clip_norm * minimum(
        1.0 / use_norm, convert_to_tensor(1.0, use_norm.dtype) / clip_norm)
    scale = scale_for_finite + (use_norm - use_norm)  # NaN for an inf/NaN norm
    clipped = [None if v is None else v * cast(scale, v.dtype) for v in values]
    return clipped, use_norm


# --- Bitcast -------------------------------------------------------------------------------------
_BITCAST = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int64, D.int32,
                             D.uint8, D.uint16, D.uint32, D.uint64, D.int8, D.int16, D.complex64,
                             D.complex128) if d is not None)
_BITCAST_NP = frozenset(d._np for d in _BITCAST)
_BITCAST_TEXT = ", ".join(c_name(d) for d in _BITCAST)


def _bitcast_dtype_error(attr, dtype, op_name=None):
    return errors.invalid_argument(f"Value for attr '{attr}' of {c_name(dtype)} is not in the "
                                   f"list of allowed values: {_BITCAST_TEXT}", op_name)


class _BitcastMismatch(Exception):
    """The last dim (args[0]) is not the item size ratio (args[1]) of a larger target dtype."""


def _bitcast_shape(shape, src, dst):
    """The output dims (a tuple; None for an unknown rank)."""
    a, b = src._np.itemsize, dst._np.itemsize
    if a == b or shape is None:
        return shape
    if a > b:
        return shape + (a // b,)
    last = shape[-1] if shape else None
    if (not shape) or (last is not None and last != b // a):
        raise _BitcastMismatch(last, b // a)
    return shape[:-1]


@define_op("Bitcast")
class Bitcast:
    """The bytes of ``input`` reinterpreted as ``type``; the last dim grows or shrinks by the
    ratio of the item sizes."""

    grad = no_gradient("Bitcast")

    def check(arrays):
        if arrays[0].dtype not in _BITCAST_NP:
            raise _bitcast_dtype_error("T", D.from_numpy(arrays[0].dtype), "Bitcast")

    def infer(input, type):
        check_dtypes("Bitcast", (input,), _BITCAST, names=("input",))
        dims = None if input.shape.dims is None else tuple(input.shape.dims)
        try:
            return TensorSpec(TensorShape(_bitcast_shape(dims, input.dtype, type)), type)
        except _BitcastMismatch as e:
            raise ValueError(
                f"Cannot bitcast from {input.dtype.as_datatype_enum} to "
                f"{type.as_datatype_enum} due to shape. {e.args[0]} does not match {e.args[1]} "
                f"for '{{{{node Bitcast}}}} = Bitcast[T={dt_enum_name(input.dtype)}, "
                f"type={dt_enum_name(type)}]({node_input_name(input)})' with input shapes: "
                f"{shape_text(dims)}.") from None

    def kernel(input, type):
        if type not in _BITCAST:
            raise _bitcast_dtype_error("type", type)
        arr = np.asarray(input)
        src = D.from_numpy(arr.dtype)
        try:
            dims = _bitcast_shape(arr.shape, src, type)
        except _BitcastMismatch:
            raise errors.invalid_argument(f"Cannot bitcast from {src.as_datatype_enum} to "
                                          f"{type.as_datatype_enum}") from None
        if not arr.flags.c_contiguous:
            arr = arr.copy()
        if arr.itemsize > type._np.itemsize:
            arr = arr.reshape(arr.shape + (1,))
        out = arr.view(type._np).reshape(dims)
        return out[()] if out.ndim == 0 else out


@tf_export("bitcast")
def bitcast(input, type, name=None):
    """The bytes of ``input`` reinterpreted as dtype ``type`` (no copy of values, no rounding).

    A smaller ``type`` adds a last dimension; a larger one consumes a last dimension that must
    equal the size ratio.
    """
    return bind(Bitcast, convert_to_tensor(input), type=D.as_dtype(type))


# --- tf.repeat -----------------------------------------------------------------------------------
def _positive_axis(axis, rank):
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"axis={axis} out of bounds: expected {-max(rank, 1)}<=axis<"
                         f"{max(rank, 1)}")
    return axis + rank if axis < 0 else axis


def _int_repeats(repeats):
    repeats = convert_to_tensor(repeats, dtype_hint=D.int32)
    if not repeats.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received "
                        f"`tensor` = {repeats!r} of dtype: {repeats.dtype!r}")
    return repeats


def _tile_one_dimension(data, axis, multiple):
    multiples = [1] * data.shape.rank
    multiples[axis] = multiple
    return tile(data, stack([convert_to_tensor(m, dtype=multiple.dtype) for m in multiples]))


@tf_export("repeat")
def repeat(input, repeats, axis=None, name=None):
    """Repeat each element of ``input`` along ``axis`` (flattened first when None) ``repeats``
    times; ``repeats`` is a scalar or one count per element. TF's composition of tile,
    sequence_mask and boolean_mask, so gradients flow."""
    data = convert_to_tensor(input)
    if axis is None:
        data, axis = reshape(data, [-1]), 0
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type "
                        f"{type(axis).__name__}")
    repeats = _int_repeats(repeats)
    if repeats.shape.rank is not None and repeats.shape.rank > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    if data.shape.rank == 0:
        data = stack([data])
    axis = _positive_axis(axis, data.shape.rank)
    data_shape = shape(data, out_type=repeats.dtype)
    if repeats.shape.num_elements() == 1:
        repeats = reshape(repeats, [])
        tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, repeats)
        return reshape(tiled, concat([data_shape[:axis], [repeats * data_shape[axis]],
                                      data_shape[axis + 1:]], axis=0))
    if repeats.shape.rank == 1:
        n, m = data.shape.dims[axis], repeats.shape.dims[0]
        if n is not None and m is not None and n != m:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
    counts = broadcast_to(repeats, [data_shape[axis]])
    if axis > 0:  # the same counts for every leading index
        counts = broadcast_to(counts, concat([data_shape[:axis], shape(counts)], 0))
    max_repeat = maximum(convert_to_tensor(0, dtype=counts.dtype), reduce_max(counts))
    mask = sequence_mask(counts, max_repeat)
    tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, max_repeat)
    result = boolean_mask(tiled, mask)
    if axis > 0:
        size = reduce_sum(broadcast_to(repeats, [data_shape[axis]]))
        result = reshape(result, concat([data_shape[:axis], [size], data_shape[axis + 1:]], 0))
    dims = data.shape.dims
    if dims is not None and not isinstance(result, EagerTensor):
        result.set_shape(dims[:axis] + [0 if counts.shape.dims[-1] == 0 else None]
                         + dims[axis + 1:])
    return result


# --- DenseBincount -------------------------------------------------------------------------------
_BINCOUNT_IDX = (D.int32, D.int64)
_BINCOUNT_T = (D.int32, D.int64, D.float32, D.float64)


def _bincount_rows(arr, size, weights, binary_output):
    """Counts of one row (vectorised over rows by offsetting each row's values)."""
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
    offsets = (np.arange(rows.shape[0]) * size)[:, None]
    keep = rows < size
    flat = (rows + offsets)[keep]
    if binary_output:
        out = np.zeros(rows.shape[0] * size, weights.dtype)
        out[flat] = 1
    elif weights.size:
        w = weights.reshape(rows.shape)[keep]
        out = np.bincount(flat, w, minlength=rows.shape[0] * size).astype(weights.dtype)
    else:
        out = np.bincount(flat, minlength=rows.shape[0] * size).astype(weights.dtype)
    return out.reshape(-1, size) if arr.ndim == 2 else out


@define_op("DenseBincount")
class DenseBincount:
    """Counts (or summed weights) of each value in ``[0, size)``, per row for 2-D input."""

    grad = no_gradient("DenseBincount")

    def check(arrays):
        dt = arrays[0].dtype
        if dt not in (np.int32, np.int64):
            raise errors.invalid_argument(f"Value for attr 'Tidx' of {c_name(D.from_numpy(dt))} "
                                          "is not in the list of allowed values: int32, int64",
                                          "DenseBincount")

    def infer(input, size, weights, binary_output=False):
        check_dtypes("DenseBincount", (input, size), _BINCOUNT_IDX, names=("input", "size"))
        check_dtypes("DenseBincount", (weights,), _BINCOUNT_T, names=("weights",))
        n = static_value(size)
        n = None if n is None else int(n)
        rank = input.shape.rank
        if rank == 2:
            return TensorSpec([input.shape.dims[0], n], weights.dtype)
        return TensorSpec([n], weights.dtype)

    def kernel(input, size, weights, binary_output=False):
        arr, size = np.asarray(input), int(size)
        if arr.ndim > 2:
            raise errors.invalid_argument(f"Input must be at most 2-dimensional, got shape "
                                          f"{shape_text(arr.shape)}")
        if size < 0:
            raise errors.invalid_argument(f"size ({size}) must be non-negative")
        if arr.size and arr.min() < 0:
            raise errors.invalid_argument("Input arr must be non-negative!")
        weights = np.asarray(weights)
        if weights.size and weights.shape != arr.shape:
            raise errors.invalid_argument(
                "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case "
                f"it acts as all weights equal to 1. Received {shape_text(weights.shape)}")
        return _bincount_rows(arr, size, weights, binary_output)


@tf_export("math.bincount", "bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
             axis=None, binary_output=False):
    """Count how often each value in ``arr`` (non-negative ints) occurs.

    The output has ``max(arr) + 1`` bins (at least ``minlength``, at most ``maxlength``); with
    ``weights`` each occurrence adds its weight (and the output takes the weights' dtype).
    ``axis=-1`` counts each row of a 2-D ``arr`` separately.
    """
    arr = convert_to_tensor(arr)
    if weights is not None:
        weights = convert_to_tensor(weights)
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please "
                         "specify only one.")
    if not arr.dtype.is_integer:
        arr = cast(arr, D.int32)
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    nonempty = cast(array_size(arr) > 0, arr.dtype)
    output_size = nonempty * (reduce_max(arr) + 1)
    if minlength is not None:
        output_size = maximum(convert_to_tensor(minlength, arr.dtype), output_size)
    if maxlength is not None:
        output_size = minimum(convert_to_tensor(maxlength, arr.dtype), output_size)
    if axis == 0:
        arr = reshape(arr, [-1])
        if weights is not None:
            weights = reshape(weights, [-1])
    if weights is None:
        weights = zeros([0], D.as_dtype(dtype))
    return bind(DenseBincount, arr, output_size, weights, binary_output=bool(binary_output))


# --- matvec, embedding_lookup, confusion_matrix --------------------------------------------------
@tf_export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b`` for a (batch of) matrix ``a`` and vector ``b``: ``matmul`` on ``b[..., None]``."""
    b = expand_dims(convert_to_tensor(b), -1)
    return squeeze(matmul(a, b, transpose_a=transpose_a, adjoint_a=adjoint_a), axis=-1)


@tf_export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of ``params`` picked by ``ids``: ``gather(params, ids)``.

    ``params`` may be a list of tensors sharded along their first dimension (TF's "div"
    partitioning); with ``max_norm`` each looked-up row is clipped to that L2 norm.
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Length of params is currently 0. Need at least one param.")
        params = list(params)
        if len(params) > 1:
            params = [convert_to_tensor(p) for p in params]
            result = _div_lookup(params, convert_to_tensor(ids))
            return _clip_rows(result, ids, max_norm)
        params = params[0]
    if _is_variable(params):
        params = params.value()
    result = gather(params, ids)
    return _clip_rows(result, ids, max_norm)


def _div_lookup(params, ids):
    """Gather from each shard its share of ``ids`` and put the rows back in ``ids`` order."""
    sizes = [p.shape.dims[0] for p in params]
    if None in sizes:
        raise ValueError("embedding_lookup over sharded params needs each shard's first "
                         "dimension to be known")
    total, n = sum(sizes), len(params)
    per, extras = total // n, total % n
    starts = np.cumsum([0] + [per + 1 if i < extras else per for i in range(n)])
    flat = reshape(ids, [-1])
    rows = concat(params, 0) if all(s == e - b for s, b, e in zip(sizes, starts, starts[1:])) \
        else None
    if rows is None:
        raise ValueError("embedding_lookup shards must follow TF's div partitioning")
    out = gather(rows, flat)
    return reshape(out, concat([shape(ids), shape(out)[1:]], 0))


def _clip_rows(result, ids, max_norm):
    if max_norm is None:
        return result
    ids_rank = convert_to_tensor(ids).shape.rank
    axes = list(range(ids_rank, result.shape.rank))
    return clip_by_norm(result, max_norm, axes=axes) if axes else result


@tf_export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=D.int32,
                     name=None):
    """``m[i, j]``: how many examples of label ``i`` were predicted as ``j`` (summing
    ``weights`` when given), ``num_classes`` defaulting to ``max(labels, predictions) + 1``."""
    from ..debugging import assert_less, assert_non_negative

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


# --- tf.config switches --------------------------------------------------------------------------
_CONFIG = {"soft_device_placement": True, "inter_op": 0, "intra_op": 0}


@tf_export("config.set_soft_device_placement")
def set_soft_device_placement(enabled):
    """Recorded only: every op runs on the CPU."""
    _CONFIG["soft_device_placement"] = bool(enabled)


@tf_export("config.get_soft_device_placement")
def get_soft_device_placement():
    return _CONFIG["soft_device_placement"]


@tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads):
    """Recorded only: ops run one after another in the calling thread."""
    _CONFIG["inter_op"] = int(num_threads)


@tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads():
    return _CONFIG["inter_op"]


@tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads):
    """Recorded only: NumPy decides its own threading."""
    _CONFIG["intra_op"] = int(num_threads)


@tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads():
    return _CONFIG["intra_op"]


# --- in_top_k, polyval, weighted cross-entropy ---------------------------------------------------
@tf_export("math.in_top_k", "nn.in_top_k")
def in_top_k(targets, predictions, k, name=None):
    """Whether each row's target class is among its ``k`` highest predictions (ties count as in;
    an out-of-range target or a non-finite prediction in the row gives False), as TF's InTopKV2."""
    from ..math import greater, is_finite, less, logical_and
    from ..reduce import reduce_all

    predictions = convert_to_tensor(predictions, D.float32)
    targets = convert_to_tensor(targets)
    if targets.dtype not in (D.int32, D.int64):
        raise TypeError(f"Value passed to parameter 'targets' has DataType {targets.dtype.name} "
                        f"not in list of allowed values: int32, int64")
    k = convert_to_tensor(k, targets.dtype)
    classes = cast(shape(predictions)[1], targets.dtype)
    valid = logical_and(targets >= 0, less(targets, classes))
    picked = gather(predictions, where(valid, targets, 0 * targets), axis=1, batch_dims=1)
    more = reduce_sum(cast(greater(predictions, expand_dims(picked, 1)), targets.dtype), 1)
    ok = logical_and(logical_and(valid, is_finite(picked)),
                     reduce_all(is_finite(predictions), 1))
    return logical_and(ok, less(more, k))


@tf_export("math.polyval")
def polyval(coeffs, x, name=None):
    """``coeffs[0] * x**(n-1) + ... + coeffs[-1]`` by Horner's rule (zeros_like(x) if empty)."""
    from ..array import zeros_like

    if not isinstance(coeffs, (list, tuple)):  # a ValueError, as TF raises
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")  # noqa: TRY004
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    coeffs = [convert_to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight`` (TF's stable
    form: (1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0)))."""
    from ..math import abs as abs_
    from ..math import exp, log1p
    from ..nn import relu

    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, logits.dtype)
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs_(logits))) + relu(-logits))


# --- histogram_fixed_width -----------------------------------------------------------------------
_HISTOGRAM_T = (D.int32, D.int64, D.float32, D.float64)


@define_op("HistogramFixedWidth")
class HistogramFixedWidth:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (outliers go to the end
    bins)."""

    grad = NON_DIFFERENTIABLE

    def infer(values, value_range, nbins, dtype):
        check_dtypes("HistogramFixedWidth", (values, value_range), _HISTOGRAM_T,
                     ("values", "value_range"))
        n = static_value(nbins)
        return TensorSpec([None if n is None else int(n)], dtype)

    def kernel(values, value_range, nbins, dtype):
        lo, hi = value_range[0], value_range[1]
        n = int(nbins)
        if not lo < hi:
            raise errors.invalid_argument(f"value_range should satisfy value_range[0] < "
                                          f"value_range[1], but got '[{lo:g}, {hi:g}]'")
        if n <= 0:
            raise errors.invalid_argument(f"nbins should be a positive number, but got '{n}'")
        v = np.asarray(values, np.float64).reshape(-1)
        if np.isnan(v).any():
            raise errors.invalid_argument("Histogram values must not contain NaN")
        step = (float(hi) - float(lo)) / n
        bins = np.clip(np.floor((v - float(lo)) / step), 0, n - 1).astype(np.intp)
        return np.bincount(bins, minlength=n).astype(dtype._np)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """How many ``values`` fall in each of ``nbins`` equal-width bins over ``value_range``."""
    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, values.dtype)
    return bind(HistogramFixedWidth, values, value_range, convert_to_tensor(nbins, D.int32),
                dtype=D.as_dtype(dtype))


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=D.int32, name=None):
    """The bin index (0 .. nbins - 1) of each of ``values``, as histogram_fixed_width bins them."""
    from ..math import floor

    values = convert_to_tensor(values)
    value_range = convert_to_tensor(value_range, values.dtype)
    nbins = convert_to_tensor(nbins, D.int32)
    scaled = (values - value_range[0]) / (value_range[1] - value_range[0])
    indices = cast(floor(cast(nbins, scaled.dtype) * scaled), D.int32)
    return cast(maximum(minimum(indices, nbins - 1), 0), D.as_dtype(dtype))


# --- loss scaling for custom training loops (one replica) ----------------------------------------
@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (0 when that is 0); the batch
    size defaults to the first dimension (tensortrace runs one replica)."""
    from ..math import divide_no_nan

    loss = convert_to_tensor(per_example_loss)
    dtype = loss.dtype
    if loss.shape.rank == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with at "
                         f"least rank 1. Received per_example_loss={loss} with rank 0")
    if sample_weight is not None:
        weight = cast(convert_to_tensor(sample_weight), D.float32)
        loss = cast(loss, D.float32)
        diff = None if weight.shape.rank is None or loss.shape.rank is None else \
            weight.shape.rank - loss.shape.rank
        if diff == 1 and weight.shape[-1] == 1:
            weight = squeeze(weight, [-1])
        elif diff == -1:
            weight = expand_dims(weight, -1)
        loss = cast(loss * weight, dtype)
    if global_batch_size is None:
        global_batch_size = shape(loss)[0]
    global_batch_size = convert_to_tensor(global_batch_size)
    if global_batch_size.shape.rank not in (None, 0):
        raise ValueError(f"global_batch_size must be scalar.  Expected shape () but got "
                         f"{global_batch_size.shape}")
    if not global_batch_size.dtype.is_integer:
        raise TypeError(f'global_batch_size must be an integer..  Expected "x" to be integer '
                        f'type.  Found: tensor of dtype {global_batch_size.dtype}')
    return divide_no_nan(reduce_sum(loss), cast(global_batch_size, dtype))


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas (one here)."""
    return reduce_sum(regularization_loss) / 1


# --- small composites TF also builds from other ops ----------------------------------------------
def _segment_counts(data, segment_ids, num_segments):
    """max(count of rows per segment, 1), shaped to broadcast against the segment sums."""
    from ..array import ones, rank
    from ..indexing import unsorted_segment_sum

    n = unsorted_segment_sum(ones(shape(segment_ids), data.dtype), segment_ids, num_segments)
    extra = rank(data) - rank(segment_ids)
    num = cast(convert_to_tensor(num_segments), D.int32)
    n = reshape(n, concat([expand_dims(num, 0), ones(expand_dims(extra, 0), D.int32)], 0))
    return maximum(n, convert_to_tensor(1, data.dtype))


@tf_export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of ``data`` in each segment (0 for empty segments)."""
    from ..indexing import unsorted_segment_sum

    data = convert_to_tensor(data)
    return unsorted_segment_sum(data, segment_ids, num_segments) / _segment_counts(
        data, segment_ids, num_segments)


@tf_export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of each segment's rows divided by sqrt(their count)."""
    from ..indexing import unsorted_segment_sum

    data = convert_to_tensor(data)
    return unsorted_segment_sum(data, segment_ids, num_segments) / sqrt(_segment_counts(
        data, segment_ids, num_segments))


@tf_export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (float32)."""
    from ..math import equal
    from ..reduce import reduce_mean

    value = convert_to_tensor(value)
    return reduce_mean(cast(equal(value, convert_to_tensor(0, value.dtype)), D.float32))


@tf_export("nn.crelu")
def crelu(features, name=None, axis=-1):
    """concat([relu(x), relu(-x)], axis)."""
    from ..nn import relu

    features = convert_to_tensor(features)
    return concat([relu(features), relu(-features)], axis)


@tf_export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):
    """(tensor / norm(tensor), norm(tensor)), the norm kept broadcastable."""
    from ..linalg import norm

    tensor = convert_to_tensor(tensor)
    n = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return tensor / n, n


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets (+ Stirling's term for targets > 1 when
    ``compute_full_loss``)."""
    from ..array import ones_like, zeros_like
    from ..math import exp, greater, log

    log_input = convert_to_tensor(log_input)
    targets = convert_to_tensor(targets, log_input.dtype)
    result = exp(log_input) - log_input * targets
    if compute_full_loss:
        point_five = convert_to_tensor(0.5, targets.dtype)
        two_pi = convert_to_tensor(2 * np.pi, targets.dtype)
        stirling = targets * log(targets) - targets + point_five * log(two_pi * targets)
        return result + where(greater(targets, ones_like(targets)), stirling,
                              zeros_like(targets))
    return result


@tf_export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Move ``block_size`` x ``block_size`` spatial blocks into the channels (NHWC)."""
    from ..array import transpose

    if data_format != "NHWC":
        raise NotImplementedError("tf.nn.space_to_depth supports NHWC only")
    x = convert_to_tensor(input)
    b = int(block_size)
    n, h, w, c = (shape(x)[i] for i in range(4))
    y = reshape(x, stack([n, h // b, b, w // b, b, c]))
    y = transpose(y, [0, 1, 3, 2, 4, 5])
    return reshape(y, stack([n, h // b, w // b, b * b * c]))


@tf_export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """Move channels into ``block_size`` x ``block_size`` spatial blocks (NHWC)."""
    from ..array import transpose

    if data_format != "NHWC":
        raise NotImplementedError("tf.nn.depth_to_space supports NHWC only")
    x = convert_to_tensor(input)
    b = int(block_size)
    n, h, w, c = (shape(x)[i] for i in range(4))
    y = reshape(x, stack([n, h, w, b, b, c // (b * b)]))
    y = transpose(y, [0, 1, 3, 2, 4, 5])
    return reshape(y, stack([n, h * b, w * b, c // (b * b)]))
