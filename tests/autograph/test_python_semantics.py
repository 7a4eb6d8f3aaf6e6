"""Converted code run on Python values behaves exactly like the original: same results, same
exceptions (with AutoGraph's "in user code" header naming the line)."""

import pytest

import tensortrace as tf

from . import python_semantics as ps


class _Counter:
    count = 0


CASES = [
    (ps.nested_loops, (4,)), (ps.while_else, (3,)), (ps.while_else, (10,)),
    (ps.returns_everywhere, (2,)), (ps.returns_everywhere, (8,)),
    (ps.no_return_at_end, (1,)), (ps.no_return_at_end, (-1,)), (ps.try_blocks, (4,)),
    (ps.closures, (2,)), (ps.nonlocal_counter, (5,)), (ps.uses_global, (5,)),
    (ps.comprehension, ([1, 2, 3, 4, 12],)), (ps.defaults, (1,)), (ps.defaults, (1, 2, 3, 4)),
    (ps.walrus, ([1, 2, 3],)), (ps.walrus, ([1],)), (ps.deletes, (1,)), (ps.deletes, (0,)),
    (ps.with_stmt, (3,)), (ps.ifexp_and_or, (1, 2)), (ps.ifexp_and_or, (0, 3)),
    (ps.ifexp_and_or, (-6, 1)), (ps.gen_inside, (6,)), (ps.method_call, (1,)),
    (ps.method_call, (-1,)), (ps.possibly_undefined, (True,)), (ps.possibly_undefined, (False,)),
    (ps.loop_var_after, (3,)), (ps.loop_var_after, (0,)), (ps.augassign_in_if, (3,)),
    (ps.augassign_in_if, (-3,)), (ps.multiple_targets, (4,)), (ps.recursion, (5,)),
    (ps.star_args, (1, -2, 3)), (ps.kwargs_call, (2,)), (ps.class_in_function, (3,)),
    (ps.class_in_function, (-3,)), (ps.partial_call, (2,)), (ps.string_ops, ("a1b2c",)),
    (ps.nested_def_with_control, (7,)), (ps.shadowed_builtin, (1,)),
    (ps.break_in_while_true, (4,)), (ps.for_else_return, ([1, 2], 2)),
    (ps.for_else_return, ([1, 2], 3)), (ps.assert_python, (5,)), (ps.assert_python, (-1,)),
    (ps.assert_python, (200,)), (ps.raise_in_branch, (1,)), (ps.raise_in_branch, (-1,)),
    (ps.match_stmt, (0,)), (ps.match_stmt, ([1, 2],)), (ps.match_stmt, (5,)),
    (ps.early_return_nested, (11,)), (ps.early_return_nested, (5,)),
    (ps.early_return_nested, (-1,)), (ps.chained_compare, (5,)), (ps.chained_compare, (50,)),
    (ps.while_with_complex_cond, (10,)), (ps.while_with_complex_cond, (2,)),
    (ps.walrus_conditions, ([1, 3, 5],)),
]


def _outcome(fn, args):
    ps.G = 10
    try:
        return "returned", fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e), str(e)


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}{a}" for f, a in CASES])
def test_converted_code_behaves_like_python(fn, args):
    expected = _outcome(fn, args)
    got = _outcome(tf.autograph.to_graph(fn), args)
    assert got[0] == expected[0]
    if expected[0] == "returned":
        assert got[1] == expected[1]
    else:  # same exception type and message, after the header naming the user's line
        assert got[1].endswith(f"{expected[0].__name__}: {expected[1]}\n")
        assert "in user code:" in got[1] and ps.__file__ in got[1]


def test_attribute_updates_in_loops():
    assert tf.autograph.to_graph(ps.attr_state)(_Counter(), 5) == ps.attr_state(_Counter(), 5)


def test_python_values_add_no_control_flow_ops():
    @tf.function
    def f(n):
        return ps.nested_loops(n), ps.returns_everywhere(n), ps.while_else(n)

    graph = f.get_concrete_function(4).graph
    assert not [op for op in graph.get_operations() if op.type in ("If", "While", "StatelessIf",
                                                                     "StatelessWhile")]
