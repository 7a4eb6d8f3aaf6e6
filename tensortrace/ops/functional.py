"""Higher-order functions over the first dimension: ``tf.map_fn``, ``tf.scan``, ``tf.foldl``,
``tf.foldr`` and ``tf.vectorized_map``, built as TF builds them, on ``tf.while_loop`` and
``tf.TensorArray`` (a Python loop eagerly, one While op while tracing; gradients come from
theirs)."""

from .. import dtypes as D
from .. import nest
from .._export import tf_export
from ..composite import CompositeTensor, eager, fallback_call
from ..context import state
from ..convert import convert_to_tensor
from ..graph.ir import Graph
from ..graph.naming import default_name
from ..shapes import TensorShape
from ..tensor import TensorSpec
from ._args import check_nesting
from .array.creation import zeros
from .array.joining import stack, unstack
from .array.shapes import shape as _shape
from .control_flow.loops import read_variables, while_loop
from .math.casting import cast
from .tensor_array.tensor_arrays import TensorArray


def _check_callable(fn):
    if not callable(fn):
        name = getattr(fn, "__name__", None)
        if name is None:  # TF formats fn.__name__ and fails this way for non-functions
            raise AttributeError(f"'{type(fn).__name__}' object has no attribute '__name__'")
        raise TypeError(f"{name} is not callable. Please provide a callable function.")


def _length(first):
    """The static length of the first dimension, else a scalar tensor."""
    n = first.shape.with_rank_at_least(1).dims
    return n[0] if n is not None and n[0] is not None else _shape(first)[0]


def _static_length(flat):
    """The first dimension all of ``flat`` share statically (None when unknown)."""
    n = None
    for t in flat:
        dims = t.shape.with_rank_at_least(1).dims
        m = None if dims is None else dims[0]
        if n is not None and m is not None and n != m:
            raise ValueError(f"Dimensions {n} and {m} are not compatible")
        n = n if m is None else m
    return n


def _unstacked(flat, n):
    return [TensorArray(t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t)
            for t in flat]


def _row_readable(t):
    """A traced composite whose TypeSpec reads its row ``i`` with ops (a SparseTensor: TF's
    map_fn batches it as serialized rows; the same rows are read here by their indices)."""
    return isinstance(t, CompositeTensor) and hasattr(t._type_spec, "_unbatch_row")


def _batch_length(first):
    """The length of the first dimension of ``first`` as a scalar int32 tensor."""
    if _row_readable(first):
        return cast(first.dense_shape[0], D.int32)
    return _shape(first)[0]


def _with_first_dim(tensors, n_static):
    """Give traced results the static first dimension of ``elems`` (TF's set_shape)."""
    for r in tensors:
        if not hasattr(r, "numpy") and r.shape.rank:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
    return tensors


def _spec_of(signature):
    """A ``fn_output_signature`` leaf (a DType or TensorSpec) as a TensorSpec."""
    if isinstance(signature, TensorSpec):
        return signature
    return TensorSpec(None, D.as_dtype(signature))


@tf_export("map_fn")
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """Apply ``fn`` to each slice of ``elems`` along its first dimension and stack the results.

    ``elems`` may be a nested structure of tensors sharing their first dimension; ``fn`` gets
    the same structure of slices. Its result must have the structure (and dtypes) of ``elems``
    unless ``fn_output_signature`` (dtypes or TensorSpecs, nested) says otherwise.

    Raises:
        ValueError: for scalar or missing ``elems``, or a result of another structure.
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    _check_callable(fn)
    if isinstance(elems, CompositeTensor):  # ragged rows: mapped one by one
        return fallback_call(map_fn, (fn, elems), {"fn_output_signature": fn_output_signature})
    elems = read_variables(check_nesting(elems, "elems"))
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got "
                         f"{elems}, which does not contain any Tensors.")
    if any(isinstance(t, CompositeTensor) and eager(t) for t in elems_flat):
        return _map_rows(fn, elems, elems_flat, fn_output_signature)
    by_row = fn_output_signature is not None  # traced composites read row by row (dense results)
    elems_flat = [t if by_row and _row_readable(t) else convert_to_tensor(t) for t in elems_flat]
    if elems_flat[0].shape.rank == 0:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    if fn_output_signature is None:
        result_specs = [TensorSpec(None, t.dtype) for t in elems_flat]
        result_structure = elems
    else:
        result_specs = [_spec_of(s) for s in nest.flatten(fn_output_signature)]
        result_structure = fn_output_signature
    n_static = _static_length(elems_flat)
    n = n_static if n_static is not None else _batch_length(elems_flat[0])
    elems_ta = [t if _row_readable(t) else TensorArray(
        t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in elems_flat]
    results_ta = [TensorArray(s.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                              element_shape=s.shape) for s in result_specs]

    def compute(i, tas):
        value = nest.pack_sequence_as(elems, [
            ta._type_spec._unbatch_row(ta, i) if _row_readable(ta) else ta.read(i)
            for ta in elems_ta])
        result = fn(value)
        nest.assert_same_structure(fn_output_signature or elems, result)
        return i + 1, [ta.write(i, r) for ta, r in zip(tas, nest.flatten(result))]

    i = convert_to_tensor(0)
    _, results_ta = while_loop(lambda i, _: i < n, compute, (i, results_ta),
                               parallel_iterations=parallel_iterations or 10,
                               maximum_iterations=n)
    results = _with_first_dim([r.stack() for r in results_ta], n_static)
    return nest.pack_sequence_as(result_structure, results)


def _map_rows(fn, elems, elems_flat, fn_output_signature):
    """``map_fn`` over eager elems holding composite tensors (a SparseTensor beside dense
    tensors): each composite split into its rows by its TypeSpec (``_unbatch_values``, as
    tf.data unbatches it), ``fn`` called on each row, the results batched back the same way
    (dense ones stacked)."""
    columns = [t._type_spec._unbatch_values(t) if isinstance(t, CompositeTensor)
               else unstack(convert_to_tensor(t)) for t in elems_flat]
    if len({len(c) for c in columns}) > 1:
        raise ValueError(f"Dimensions {len(columns[0])} and "
                         f"{next(len(c) for c in columns if len(c) != len(columns[0]))} are not "
                         "compatible")
    structure = elems if fn_output_signature is None else fn_output_signature
    results = []
    for row in zip(*columns):
        result = fn(nest.pack_sequence_as(elems, list(row)))
        nest.assert_same_structure(structure, result)
        results.append(nest.flatten(result))
    if not results:
        raise ValueError("tf.map_fn over composite elems needs at least one row")
    outputs = []
    for k, first in enumerate(results[0]):
        column = [r[k] for r in results]
        outputs.append(first._type_spec._batch_values(column)
                       if isinstance(first, CompositeTensor) else stack(column))
    return nest.pack_sequence_as(structure, outputs)


@tf_export("scan")
def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """The successive values of ``a = fn(a, x)`` over the slices ``x`` of ``elems``, stacked.

    Without ``initializer`` the first slice is the first accumulator (and the first output).
    ``reverse`` scans from the last slice to the first.
    """
    _check_callable(fn)
    input_nested = nest.is_nested(check_nesting(elems, "elems"))
    elems_flat = [convert_to_tensor(e) for e in (nest.flatten(elems) if input_nested else
                                                [elems])]

    def pack_input(xs):
        return nest.pack_sequence_as(elems, xs) if input_nested else xs[0]

    template = elems if initializer is None else initializer
    output_nested = nest.is_nested(template)

    def flatten_output(x):
        return nest.flatten(x) if output_nested else [x]

    def pack_output(xs):
        return nest.pack_sequence_as(template, xs) if output_nested else xs[0]

    n_static = _static_length(elems_flat)
    n = n_static if n_static is not None else _shape(elems_flat[0])[0]
    elems_ta = [TensorArray(e.dtype, size=n, dynamic_size=False, element_shape=e.shape[1:],
                            infer_shape=True).unstack(e) for e in elems_flat]
    if initializer is None:
        a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
        start = 1
    else:
        a_flat = [convert_to_tensor(a) for a in flatten_output(initializer)]
        start = 0
    accs_ta = [TensorArray(a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                           element_shape=a.shape if infer_shape else None) for a in a_flat]
    if initializer is None:
        accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

    def compute(i, a_flat, tas):
        x = pack_input([ta.read(i) for ta in elems_ta])
        a_out = fn(pack_output(a_flat), x)
        nest.assert_same_structure(template, a_out)
        flat_out = flatten_output(a_out)
        tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
        return (i - 1 if reverse else i + 1), flat_out, tas

    if reverse:
        initial, cond = n - 1 - start, (lambda i, _1, _2: i >= 0)
    else:
        initial, cond = start, (lambda i, _1, _2: i < n)
    _, _, results_ta = while_loop(cond, compute, (convert_to_tensor(initial), a_flat, accs_ta),
                                  parallel_iterations=parallel_iterations, maximum_iterations=n)
    return pack_output(_with_first_dim([r.stack() for r in results_ta], n_static))


def _fold(fn, elems, initializer, parallel_iterations, from_right):
    _check_callable(fn)
    elems_flat = [convert_to_tensor(e) for e in nest.flatten(check_nesting(elems, "elems"))]
    n = _length(elems_flat[0])
    elems_ta = nest.pack_sequence_as(elems, _unstacked(elems_flat, n))

    def read(i):
        return nest.map_structure(lambda ta: ta.read(i), elems_ta)

    if from_right:
        i, a = (n - 1, read(n - 1)) if initializer is None else (n, initializer)

        def compute(i, a):
            i -= 1
            return [i, fn(a, read(i))]

        cond = lambda i, a: i > 0
    else:
        i, a = (1, read(0)) if initializer is None else (0, initializer)

        def compute(i, a):
            return [i + 1, fn(a, read(i))]

        cond = lambda i, a: i < n
    _, result = while_loop(cond, compute, [convert_to_tensor(i), a],
                           parallel_iterations=parallel_iterations, maximum_iterations=n)
    return result


@tf_export("foldl")
def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``fn(...fn(fn(initializer, x0), x1)..., xn)`` over the slices of ``elems``; without
    ``initializer`` the first slice starts the fold."""
    return _fold(fn, elems, initializer, parallel_iterations, from_right=False)


@tf_export("foldr")
def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``foldl`` from the last slice to the first."""
    return _fold(fn, elems, initializer, parallel_iterations, from_right=True)


def _output_signature(fn, elems):
    """The dtypes and shapes of ``fn``'s result on one slice, found by tracing it into a scratch
    graph (vectorized_map, unlike map_fn, takes no output signature)."""
    scratch = Graph("vectorized_map_signature", outer=state.graph)
    with scratch.as_default():
        slices = nest.map_structure(
            lambda t: scratch.placeholder(TensorSpec(t.shape[1:], t.dtype), "elem"), elems)
        result = fn(slices)
    return nest.map_structure(lambda r: TensorSpec(convert_to_tensor(r).shape,
                                                   convert_to_tensor(r).dtype), result)


@tf_export("vectorized_map")
def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to each slice of ``elems``, results stacked, with no output signature
    needed. TF vectorizes the loop; here eagerly it is a Python loop, and while tracing
    ``map_fn``'s loop with the signature found by tracing ``fn`` once."""
    elems = nest.map_structure(convert_to_tensor, read_variables(check_nesting(elems, "elems")))
    flat = nest.flatten(elems)
    if state.graph is not None or any(t.shape.rank == 0 for t in flat):
        if any(t.shape.rank == 0 for t in flat):
            raise IndexError("list index out of range")  # TF's error (its static shape[0])
        return map_fn(fn, elems, fn_output_signature=_output_signature(fn, elems))
    n = max(int(t.shape[0]) for t in flat)
    if n == 0:
        return nest.map_structure(lambda s: zeros([0] + s.shape.as_list(), s.dtype),
                                  _output_signature(fn, elems))
    columns = [unstack(t) if int(t.shape[0]) == n else [t[0]] * n for t in flat]
    outs = [fn(nest.pack_sequence_as(elems, list(row))) for row in zip(*columns)]
    return nest.map_structure(lambda *xs: stack([convert_to_tensor(x) for x in xs]), *outs)


# TF's node names: its functional ops' ops all go under their scope (map/while ...)
for _scope, _fn in (("map", map_fn), ("scan", scan), ("foldl", foldl), ("foldr", foldr)):
    default_name((_scope, False, None), _fn)
