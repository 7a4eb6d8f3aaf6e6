"""Checks that staged control flow is well formed, with TensorFlow's error messages: tensor
conditions are boolean scalars, both branches of a conditional and every iteration of a loop
leave each variable defined, with the same structure, dtype and (for loops) shape."""

import numpy as np

from ... import nest
from ...convert import convert_to_tensor, to_array
from ...dtypes import from_numpy
from ...ops.array.reshaping import reshape
from ...shapes import TensorShape
from ...tensor import Tensor
from .values import convertible
from .variables import Undefined, UndefinedReturnValue

LEGAL_LOOP_TYPES = "Tensor, int, float, bool or a list, tuple or dict thereof"

#: id(list) -> where a Python list was appended to while a graph branch or loop was traced.
APPEND_SITES = {}


def verify_condition(cond, tag):
    """``cond`` as a boolean scalar tensor.

    Raises:
        ValueError: for a non-boolean or non-scalar condition.
    """
    cond = convert_to_tensor(cond)
    hint = "to check for None, use `is not None`"
    if cond.dtype.name != "bool":
        raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; to use "
                         f"as boolean Tensor, use `tf.cast`; {hint}")
    rank = cond.shape.rank
    if rank is None:
        return reshape(cond, [])
    if rank > 0:
        known = [d for d in cond.shape.dims if d is not None]
        if np.prod(known) > 1:
            raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; "
                             f"{hint}")
        return reshape(cond, [])
    return cond


# --- conditionals -------------------------------------------------------------------------------
def verify_branch_vars(values, names, branch):
    for name, value in zip(names, values):
        if isinstance(value, Undefined):
            raise ValueError(  # noqa: TRY004 - TF's error type
                f"'{name}' must also be initialized in the {branch} branch")
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(  # noqa: TRY004
                f"the {branch} branch must also have a return statement.")


def verify_cond_vars(main, orelse, names):
    for name, a, b in zip(names, main, orelse):
        try:
            nest.assert_same_structure(a, b)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' must have the same nested structure in the main and else "
                            f"branches:\n\n{e}") from e
        for x, y in zip(nest.flatten(a), nest.flatten(b)):
            _verify_cond_leaf(name, x, y)


def _verify_cond_leaf(name, a, b):
    if a is None:
        raise ValueError(f"'{name}' is None at the end of the main branch.")
    if b is None:
        raise ValueError(f"'{name}' is None at the end of the else branch.")
    if a is b:
        return
    if not (convertible(a) and convertible(b)):
        raise TypeError(f"'{name}' has a value of type {type(a).__name__} in the main branch and "
                        f"{type(b).__name__} in the else branch; a TensorFlow conditional can "
                        f"only merge values of types {LEGAL_LOOP_TYPES}")
    da, db = dtype_of(a), dtype_of(b)
    if da is not None and db is not None and da != db:
        raise TypeError(f"'{name}' has dtype {da.name} in the main branch, but dtype {db.name} "
                        f"in the else branch")


def dtype_of(value):
    """The dtype ``value`` has (or gets when converted to a tensor), or None (TensorArrays)."""
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_or_eager_tensor"):
        return value.dtype
    try:
        return from_numpy(np.asarray(to_array(value)).dtype)
    except (TypeError, ValueError):
        return None


# --- loops --------------------------------------------------------------------------------------
def verify_loop_init_vars(init, names, first_iter=None, extra_message=None):
    """Every loop variable has a value before the loop.

    Raises:
        ValueError: naming the first variable that is undefined or None.
        NotImplementedError: for a return value no iteration defines.
    """
    first_iter = first_iter if first_iter is not None else [None] * len(init)
    for name, value, first in zip(names, init, first_iter):
        if isinstance(value, UndefinedReturnValue):
            raise NotImplementedError(
                "a return statement cannot be placed inside this TensorFlow loop; this may happen "
                "if a return statement depends on a static Python condition such as a "
                "hyperparameter")
        message = None
        if value is None:
            message = f"'{name}' is not allowed to be None before the loop"
        elif isinstance(value, Undefined):
            message = f"'{name}' must be defined before the loop"
        if message is not None:
            if extra_message:
                message += "\n" + extra_message
            raise ValueError(message)


def zero_iterations_message(names, nulls, init):
    missing = ", ".join("the function return value" if isinstance(v, UndefinedReturnValue)
                        else n for n, null, v in zip(names, nulls, init) if null)
    return f"loop must iterate at least once to initialize {missing}"


def verify_loop_vars(init, entry, exit_, names, invariants):
    """Each variable keeps its structure and dtype, and its shape (or its invariant)."""
    for name, i, n, x, inv in zip(names, init, entry, exit_, invariants):
        check_list_growth(name, i, x, "loop")
        try:
            nest.assert_same_structure(n, x)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' does not have the same nested structure after one "
                            f"iteration.\n\n{e}") from e
        invs = nest.flatten(inv) if nest.is_nested(inv) else [inv] * len(nest.flatten(n))
        for a, b, c, s in zip(nest.flatten(i), nest.flatten(n), nest.flatten(x), invs):
            _verify_loop_leaf(name, a, b, c, s)


def _verify_loop_leaf(name, init, entry, exit_, invariant):
    if exit_ is None:
        raise ValueError(f"'{name}' is None at the end of the iteration.")
    if isinstance(exit_, Undefined):
        raise ValueError(f"'{name}' is not defined at the end of the iteration.")  # noqa: TRY004
    d_entry, d_exit = dtype_of(entry), dtype_of(exit_)
    if d_entry is None or d_exit is None:
        return
    if d_entry != d_exit:
        raise TypeError(f"'{name}' has dtype {d_entry.name} before the loop, but dtype "
                        f"{d_exit.name} after one iteration")
    exit_shape = _shape_of(exit_)
    if invariant is None:
        entry_shape = _shape_of(entry)
        if not exit_shape.is_subtype_of(entry_shape):
            raise ValueError(f"'{name}' has shape {entry_shape} before the loop, but shape "
                             f"{exit_shape} after one iteration. Use tf.autograph.experimental."
                             f"set_loop_options to set shape invariants.")
        return
    invariant = TensorShape(invariant)
    init_shape = _shape_of(init)
    if not init_shape.is_subtype_of(invariant):
        raise ValueError(f"'{name}' has shape {init_shape} before the loop, which does not "
                         f"conform with the shape invariant {invariant}.")
    if not exit_shape.is_subtype_of(invariant):
        raise ValueError(f"'{name}' has shape {exit_shape} after one iteration, which does not "
                         f"conform with the shape invariant {invariant}.")


def _shape_of(value):
    shape = getattr(value, "shape", None)
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(np.shape(to_array(value)))


# --- Python lists -------------------------------------------------------------------------------
def snapshot_lists(value):
    """A copy of ``value``'s list containers (their lengths before a block appends to them)."""
    if isinstance(value, list):
        return [snapshot_lists(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(snapshot_lists(v) for v in value)
    if isinstance(value, dict):
        return {k: snapshot_lists(v) for k, v in value.items()}
    return value


def check_list_growth(name, before, after, construct):
    """Raise a clear error if a Python list was appended to while a graph ``construct`` was
    traced (TF fails there with an out-of-scope tensor). A list rebuilt longer (``x = x + [i]``)
    is left to the structure check, which raises TF's TypeError."""
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after) and id(after) in APPEND_SITES:
            raise ValueError(_list_message(name, after, construct))
        for b, a in zip(before, after):
            check_list_growth(name, b, a, construct)
    elif isinstance(before, tuple) and isinstance(after, tuple) and len(before) == len(after):
        for b, a in zip(before, after):
            check_list_growth(name, b, a, construct)


def _list_message(name, lst, construct):
    site = APPEND_SITES.get(id(lst))
    where = f" (appended at {site[0]})" if site else ""
    dtype = site[1] if site and site[1] else "dtype"
    kind = "loop" if construct == "loop" else "conditional (tf.cond)"
    return (
        f"'{name}' is a Python list that grows inside a TensorFlow {kind}{where}. The "
        f"{'loop body' if construct == 'loop' else 'branch'} is traced only once, so a Python "
        f"list cannot hold one element per run. Accumulate into a tf.TensorArray instead:\n\n"
        f"    {name} = tf.TensorArray(tf.{dtype}, size=0, dynamic_size=True)\n"
        f"    ...\n"
        f"    {name} = {name}.write({name}.size(), value)   # instead of {name}.append(value)\n"
        f"    ...\n"
        f"    {name}.stack()                       # instead of tf.stack({name})")
