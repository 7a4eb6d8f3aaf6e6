"""``tf.cond``, ``tf.switch_case`` and ``tf.case``. Eagerly only the chosen function runs; while
tracing, each branch is traced into a sub-graph and one If/Case op chooses at run time.

    >>> tf.cond(x > 0, lambda: x, lambda: -x)
"""

import functools

import numpy as np

from ... import dtypes as D
from ... import nest
from ..._export import tf_export
from ...graph.naming import default_name
from ...context import bind, state
from ...convert import convert_to_tensor
from ...tensor import EagerTensor, Tensor
from ..array.joining import stack
from ..math.casting import cast
from ..math.compare import less_equal
from ..reduce import reduce_sum
from ...shapes import shape_attr
from .records import CASE, IF, STATELESS_CASE, STATELESS_IF, Assert
from .subgraphs import any_stateful, bool_pred, is_tensor_array, pack, trace, unify_captures


# --- branches -----------------------------------------------------------------------------------
def _check_same_outputs(traced, names, op_name, kind):
    """TF's checks that branches return the same structure, number and dtypes."""
    first = traced[0]

    def error(i, detail):
        return TypeError(
            f"{names[0]} and {names[i]} arguments to {op_name} must have the same number, type, "
            f"and overall structure of return values.\n\n{names[0]} output: {first.shown()}\n"
            f"{names[i]} output: {traced[i].shown()}\n\nError details:\n{detail}")

    for i, other in enumerate(traced[1:], 1):
        try:
            nest.assert_same_structure(first.result, other.result, expand_composites=True)
        except (TypeError, ValueError) as e:
            raise error(i, str(e)) from None
        a, b = first.graph.outputs, other.graph.outputs
        if len(a) != len(b):
            raise ValueError(f"Lengths of branch outputs of {kind} must match.\n"
                             f"len(graphs[0].outputs): {len(a)}\n"
                             f"len(graphs[{i}].outputs): {len(b)}\n")
        if [x is None for x in first.leaves] != [x is None for x in other.leaves]:
            raise error(i, "None values are in different positions")
        for x, y in zip(first.leaves, other.leaves):
            if is_tensor_array(x) != is_tensor_array(y) or \
                    (is_tensor_array(x) and x.dtype != y.dtype):
                raise error(i, f"{x!r} and {y!r} are not TensorArrays of one dtype")
        for x, y in zip(a, b):
            if x.dtype != y.dtype:
                raise error(i, f"{x} and {y} have different types")


def _build_branches(opdefs, index, fns, names, op_name, kind, attrs_of):
    """Trace ``fns`` as branches and emit one op choosing between them by ``index``."""
    graph_names = ("cond_true", "cond_false") if kind == "cond" else \
        [f"case_branch{i}" for i in range(len(fns))]
    traced = [trace(n, fn, op_value=index) for fn, n in zip(fns, graph_names)]
    _check_same_outputs(traced, names, op_name, kind)
    outputs = [t.graph.outputs for t in traced]
    shapes = []
    for column in zip(*outputs):
        shape = column[0].shape
        for t in column[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        shapes.append(shape_attr(shape))
    graphs = [t.graph for t in traced]
    captured = unify_captures(graphs)
    opdef = opdefs[0] if any_stateful(graphs) else opdefs[1]
    out = bind(opdef, index, *captured, **attrs_of(graphs),
               Tout=tuple(t.dtype for t in outputs[0]), output_shapes=tuple(shapes))
    return pack(traced[0].result, traced[0].leaves, out if type(out) is tuple else (out,))


# --- tf.cond ------------------------------------------------------------------------------------
def _unpack_if_singleton(x):
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def _cond(pred, true_fn, false_fn, strict=True):
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if state.graph is None:
        value = pred if isinstance(pred, bool) else convert_to_tensor(pred)._value
        if np.size(value) != 1:  # TF's eager cond takes the truth value (NumPy's words)
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()" if np.size(value) else
                             "The truth value of an empty array is ambiguous.")
        result = true_fn() if value else false_fn()
        return result if strict else _unpack_if_singleton(result)
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool", pred)
    pred = bool_pred(convert_to_tensor(pred), "pred", "cond/switch_pred")
    return _build_branches((IF, STATELESS_IF), pred, (true_fn, false_fn),
                           ("true_fn", "false_fn"), "tf.cond", "cond",
                           lambda g: {"then_branch": g[0], "else_branch": g[1]})


@tf_export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Eagerly only the chosen function runs. While tracing both are traced into sub-graphs and one
    If op (StatelessIf when neither has a stateful op) chooses at run time; Python values they
    return become constants.

    Raises:
        TypeError: if a function is not callable, ``pred`` is a Python bool while tracing, or
            the branches return different structures or dtypes.
        ValueError: if the branches return different numbers of tensors.
    """
    for arg, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if fn is None:
            raise TypeError(f"cond(): '{arg}' argument required")
    return _cond(pred, true_fn, false_fn)


# --- tf.switch_case and tf.case -----------------------------------------------------------------
def _branch_fns(branch_fns, default, branch_index):
    """TF's validation of switch_case's arguments: the callables, in index order, default last."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = branch_fns.items()
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, sorted(keys)))}}}")
    actions = [p[1] for p in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


@tf_export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: run ``branch_fns[branch_index]()``, or ``default`` (else the last
    branch) when the index is out of range. Traced, it is one Case/StatelessCase op.

    Raises:
        TypeError: if ``branch_index`` is not an integer tensor (int32 while tracing) or the
            branches return different structures or dtypes.
        ValueError: if ``branch_fns`` is empty or its keys are not 0..n-1.
    """
    fns = _branch_fns(branch_fns, default, branch_index)
    if state.graph is None and isinstance(branch_index, EagerTensor):
        index = int(branch_index._value)
        return fns[index if 0 <= index < len(fns) else -1]()
    if branch_index.dtype != D.int32:
        raise TypeError(f"Input 'branch_index' of 'StatelessCase' Op has type "
                        f"{branch_index.dtype.name} that does not match expected type of int32.")
    names = [f"branches[{i}]" for i in range(len(fns))]
    return _build_branches((CASE, STATELESS_CASE), branch_index, fns, names, "tf.switch_case",
                           "case", lambda g: {"branches": tuple(g)})


def _case_pairs(pred_fn_pairs, exclusive):
    """TF's validation of tf.case's arguments: (predicates, functions)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: "
                        f"{type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if state.graph is None:
            if not exclusive:
                raise ValueError("Unordered dictionaries are not supported for the "
                                 "'pred_fn_pairs' argument when `exclusive=False` and eager "
                                 "mode is enabled.")
            pred_fn_pairs = list(pred_fn_pairs.items())
        else:
            pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != D.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return predicates, actions


def _names(predicates):
    return ", ".join(getattr(p, "name", "?") if not isinstance(p, EagerTensor) else "?"
                     for p in predicates)


def _at_most_n_true(predicates, n, message):
    """TF's assertion that at most ``n`` predicates are true."""
    stacked = stack(predicates)
    count = reduce_sum(cast(stacked, D.int32))
    text = f"{message}: more than {n} conditions ({_names(predicates)}) evaluated as True:"
    Assert(less_equal(count, n), [text, stacked], summarize=len(predicates))


@tf_export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: run the function of the first true predicate (a chain of tf.cond), else
    ``default``; without a default the last function runs and its predicate must hold.

    Raises:
        TypeError: for malformed pairs or non-bool predicates.
        InvalidArgumentError: (at run time) with ``exclusive`` when several predicates hold, or
            without ``default`` when none does.
    """
    predicates, actions = _case_pairs(pred_fn_pairs, exclusive)
    if default is None:
        k = len(predicates) - 1
        last_pred, last_action, every_pred = predicates[k], actions[k], predicates

        def default():
            Assert(last_pred, ["Input error: None of conditions evaluated as True:",
                               stack(every_pred)])
            return last_action()

        predicates, actions = predicates[:k], actions[:k]
    fn = default
    for pred, action in reversed(list(zip(predicates, actions))):
        fn = functools.partial(_cond, pred, action, fn, strict)
    if exclusive:
        _at_most_n_true(predicates, 1, "Input error: exclusive=True")
    return fn()


default_name("cond", cond)  # TF's node name
