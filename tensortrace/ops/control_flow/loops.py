"""``tf.while_loop``: eagerly a Python loop; while tracing, ``cond`` and ``body`` are traced once
into sub-graphs held by one While op whose kernel is a Python ``while``.

    >>> tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])
    [<tf.Tensor: shape=(), dtype=int32, numpy=3>]
"""

from ... import dtypes as D
from ... import nest
from ..._export import tf_export
from ...composite import CompositeTensor, TypeSpec
from ...graph.naming import default_name
from ...context import bind, state
from ...convert import convert_to_tensor
from ...shapes import TensorShape, shape_attr
from ...tensor import EagerTensor, Tensor, TensorSpec
from ..tensor_array.tensor_arrays import flow_of
from .records import STATELESS_WHILE, WHILE
from .subgraphs import any_stateful, bool_pred, is_tensor_array, pack, trace, unify_captures


def read_variables(values):
    """``values`` (a structure) with each variable read into a tensor, as TF converts them."""

    def read(x):
        if not isinstance(x, Tensor) and hasattr(x, "_as_graph_or_eager_tensor"):
            return convert_to_tensor(x)
        return x

    return nest.map_structure(read, values) if nest.is_nested(values) else read(values)


def _eager_while(cond, body, loop_vars, maximum_iterations):
    """TF's eager while_loop: a Python loop, checking the body keeps the structure."""
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    if maximum_iterations is not None:
        limit = convert_to_tensor(maximum_iterations)
        if limit.shape.rank != 0:
            raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                             f"{limit.shape}")
        if limit.dtype not in (D.int32, D.int64):
            raise TypeError(f"'maximum_iterations' must be an int32 or int64 scalar, got "
                            f"{limit.dtype.name}")
        limit = int(limit._value)
        user_cond, user_body = cond, body

        def cond(i, values):
            pred = user_cond(*values)  # evaluated even at the limit, as TF's logical_and does
            return i < limit and bool(pred)

        def body(i, values):
            return i + 1, user_body(*values)

        loop_vars = (0, loop_vars)
    structure = list(loop_vars)
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        nest.assert_same_structure(structure, list(loop_vars), check_types=True)
    loop_vars = nest.map_structure(
        lambda x: x if is_tensor_array(x) or isinstance(x, CompositeTensor) else
        convert_to_tensor(x), loop_vars)
    return loop_vars[1] if maximum_iterations is not None else loop_vars


def _loop_tensor(x):
    """A loop variable as an outer-graph tensor (TensorArrays give their flow)."""
    if is_tensor_array(x):
        return flow_of(x)
    if x is None:
        raise ValueError("None values not supported.")
    t = convert_to_tensor(x)
    if isinstance(t, EagerTensor):  # a named outer tensor, as TF's error messages name it
        t = state.graph.capture(t)
    return t


def _invariants(loop_vars, flat, shape_invariants):
    """The spec each flat loop tensor's placeholder gets: its own shape, or its shape invariant;
    a composite's components get its spec's component shapes (a SparseTensor's count of values
    may change), as TF's ``_shape_invariant_to_type_spec``."""
    tops = nest.flatten(loop_vars)
    invs = [None] * len(tops) if shape_invariants is None else None
    if invs is None:
        nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
        invs = nest.flatten(shape_invariants)
    shapes, it = [], iter(flat)
    for top, inv in zip(tops, invs):
        if isinstance(top, CompositeTensor):
            spec = top._type_spec if inv is None else _composite_invariant(top, inv)
            shapes.extend(s.shape for s in spec._flat_tensor_specs)
            for _ in spec._flat_tensor_specs:
                next(it)
            continue
        t = next(it)
        if inv is None or is_tensor_array(top):
            shapes.append(t.shape)
        elif isinstance(inv, TensorSpec):
            if not inv.is_compatible_with(t):
                raise TypeError(f"TypeSpec {inv!r} is not compatible with {t!r}")
            shapes.append(inv.shape)
        elif isinstance(inv, TensorShape):
            shapes.append(inv)
        else:
            raise TypeError(f"'shape' must be one of TypeSpec, TensorShape or None. Received: "
                            f"{type(inv)}")
    return shapes


def _composite_invariant(value, inv):
    if isinstance(inv, TypeSpec) and not isinstance(inv, TensorSpec):
        if not inv.is_compatible_with(value):
            raise TypeError(f"TypeSpec {inv!r} is not compatible with {value!r}")
        return inv
    if isinstance(inv, TensorShape):
        return value._shape_invariant_to_type_spec(inv)
    raise TypeError(f"'shape' must be one of TypeSpec, TensorShape or None. Received: "
                    f"{type(inv)}")


def _check_body(flat, body_graph, shapes):
    for t, out, shape in zip(flat, body_graph.outputs, shapes):
        if out.dtype != t.dtype:
            raise TypeError(f"Loop var {t.name} enters the loop with type {t.dtype} but has type "
                            f"{out.dtype} after 1 iteration. {t.name} type should remain "
                            "constant.")
        if not out.shape.is_subtype_of(shape):  # TF's _ShapeLessThanOrEqual
            raise ValueError(f"Input tensor `{t.name}` enters the loop with shape {shape}, but "
                             f"has shape {out.shape} after one iteration. To allow the shape to "
                             "vary across iterations, use the `shape_invariants` argument of "
                             "tf.while_loop to specify a less-specific shape.")


def _traced_pred(traced):
    outputs = traced.graph.outputs
    if len(outputs) != 1:
        raise ValueError(f"cond must return exactly one boolean scalar tensor, got "
                         f"{traced.result!r}")
    bool_pred(outputs[0], "input", "while/LoopCond")


def _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations,
                 maximum_iterations):
    len(loop_vars)  # TF requires a sequence of loop variables (and fails like this otherwise)
    # may be empty (a loop run for its side effects); composites carry their components
    leaves = nest.flatten(loop_vars, expand_composites=True)
    flat = [_loop_tensor(x) for x in leaves]
    shapes = _invariants(loop_vars, flat, shape_invariants)
    specs = [TensorSpec(s, t.dtype) for s, t in zip(shapes, flat)]
    traced_cond = trace("while_cond", cond, specs=specs, templates=leaves, structure=loop_vars)
    _traced_pred(traced_cond)
    traced_body = trace("while_body", body, specs=specs, templates=leaves, structure=loop_vars,
                         allow_none=False)
    nest.assert_same_structure(traced_body.result, loop_vars, check_types=False,
                               expand_composites=True)
    _check_body(flat, traced_body.graph, shapes)
    graphs = [traced_cond.graph, traced_body.graph]
    captured = unify_captures(graphs)
    limit = ()
    if maximum_iterations is not None:
        limit = (convert_to_tensor(maximum_iterations, dtype=D.int32),)
    opdef = WHILE if any_stateful(graphs) else STATELESS_WHILE
    out = bind(opdef, *limit, *flat, *captured, cond=graphs[0], body=graphs[1],
               T=tuple(t.dtype for t in flat), output_shapes=tuple(shape_attr(s) for s in shapes),
               parallel_iterations=int(parallel_iterations),
               has_maximum_iterations=bool(limit))
    return pack(loop_vars, leaves, out if type(out) is tuple else (out,))


@tf_export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    ``loop_vars`` is a list/tuple (possibly nested) of tensors, Python values and TensorArrays;
    the result has its structure. Eagerly this is a Python loop. While tracing, ``cond`` and
    ``body`` are traced once into sub-graphs held by one While op (StatelessWhile without
    stateful ops) whose kernel is a Python ``while``; a loop variable's shape may change across
    iterations only within its ``shape_invariants`` entry.

    Raises:
        TypeError: if ``cond``/``body`` are not callable, ``parallel_iterations`` < 1, or the
            body changes a loop variable's dtype.
        ValueError: if the body returns another structure, or changes a loop variable's shape
            beyond its invariant.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    loop_vars = read_variables(loop_vars)
    if state.graph is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations)
    return _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations,
                        maximum_iterations)


default_name("while", while_loop)  # TF's node name
