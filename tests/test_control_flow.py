"""tf.cond, tf.case, tf.switch_case and tf.while_loop: eager values equal traced values, one
If/Case/While op per call, side effects only where TF has them, and TF 2.21's errors."""

import collections

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import compiled

from .ops.optable import Case, run_case


def function(fn):
    return tf.function(fn, autograph=False)  # the engine's own control flow, not AutoGraph's


def op_types(f, *args):
    return [op.type for op in f.get_concrete_function(*args).graph.get_operations()]


def flat(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in flat(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in flat(item)]
    return [x]


def same(a, b):
    """Equal structure (container types), values, dtypes and shapes; a Python value equals the
    tensor it converts to (eager tf.cond returns what the branch returned)."""
    if isinstance(a, (list, tuple, dict)) or isinstance(b, (list, tuple, dict)):
        assert type(a) is type(b), (type(a), type(b))
        keys = sorted(a) if isinstance(a, dict) else range(len(a))
        assert len(a) == len(b)
        for k in keys:
            same(a[k], b[k])
        return
    for x, y in zip(flat(a), flat(b), strict=True):
        if x is None or y is None:
            assert x is y
            continue
        x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
        assert x.dtype == y.dtype and x.shape == y.shape, (x, y)
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def eager_vs_traced(fn, *args):
    """Run ``fn`` eagerly and as a tf.function; they must agree. Returns (result, op types)."""
    f = function(fn)
    eager, graph = fn(*args), f(*args)
    same(eager, graph)
    return graph, op_types(f, *args)


# --- op table (coverage of If/StatelessIf/Case/StatelessCase/While/StatelessWhile/Assert) ------
_counter = tf.Variable(0)


def _if_stateless(x):
    return tf.cond(x[0] > 0, lambda: x * 2.0, lambda: -x)


def _if_stateful(x):
    return tf.cond(x[0] > 0, lambda: x + tf.cast(_counter.read_value(), tf.float32), lambda: x)


def _case_stateless(i):
    return tf.switch_case(i, [lambda: tf.constant([1.0, 2.0]), lambda: tf.constant([3.0, 4.0])])


def _case_stateful(i):
    return tf.switch_case(i, [lambda: _counter.read_value(), lambda: tf.constant(7)])


def _while_stateless(x):
    return tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: [v * 2.0], [x])[0]


def _while_stateful(x):
    return tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0,
                         lambda v: [v + tf.cast(_counter.read_value(), tf.float32) + 1.0], [x])[0]


def _case_exclusive(x):
    return tf.case([(x[0] > 0, lambda: x), (x[0] > 5, lambda: x + 1.0)], default=lambda: -x,
                   exclusive=True)


POSITIVE = np.array([1.0, 3.0], np.float32)
CASES = [
    Case(_if_stateless, (POSITIVE,), ref=lambda x: x * 2, id="StatelessIf"),
    Case(_if_stateful, (POSITIVE,), ref=lambda x: x, id="If"),
    Case(_case_stateless, (np.array(1, np.int32),), ref=lambda i: np.array([3, 4], np.float32),
         id="StatelessCase"),
    Case(_case_stateful, (np.array(0, np.int32),), ref=lambda i: np.int32(0), id="Case"),
    Case(_while_stateless, (POSITIVE,), ref=lambda x: x * 32, id="StatelessWhile"),
    Case(_while_stateful, (POSITIVE,), ref=lambda x: x + 48, id="While"),
    Case(_case_exclusive, (-POSITIVE,), ref=lambda x: -x, id="Assert"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_table_case_emits_its_op_and_agrees_traced(case):
    from .ops.optable import op_types as traced_types

    assert case.id in traced_types(case)
    args = [tf.constant(a) for a in case.args]
    same(case.fn(*args), function(case.fn)(*args))


# --- tf.cond ----------------------------------------------------------------------------------
def test_eager_cond_calls_one_branch_and_returns_its_value_as_is():
    calls = []
    out = tf.cond(tf.constant(True), lambda: calls.append("t") or 1, lambda: calls.append("f"))
    assert out == 1 and calls == ["t"]  # a Python value, not converted (TF's eager path)
    assert tf.cond(False, lambda: 1, lambda: [2]) == [2]
    assert tf.cond(tf.constant(3), lambda: "nonzero", lambda: "zero") == "nonzero"


def test_eager_cond_with_a_vector_predicate_is_ambiguous():
    with pytest.raises(ValueError, match="truth value of an array"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)


@pytest.mark.parametrize("x", [3, -3])
def test_cond_traced_equals_eager_with_one_stateless_if(x):
    def f(x):
        return tf.cond(x > 0, lambda: x * 2, lambda: -x)

    out, ops = eager_vs_traced(f, tf.constant(x))
    assert out.numpy() == abs(x) * (2 if x > 0 else 1)
    assert ops.count("StatelessIf") == 1 and "If" not in ops


def test_cond_structures_python_constants_and_none():
    def f(x):
        a = tf.cond(x > 0, lambda: {"k": (x, 1.5)}, lambda: {"k": (-x, 2.5)})
        b = tf.cond(x > 0, lambda: [x], lambda: [x + 1])
        c = tf.cond(x > 0, lambda: 1, lambda: 2)
        d = tf.cond(x > 0, lambda: "yes", lambda: "no")
        return a, b, c, d

    for v in (1, -1):
        graph = function(f)(tf.constant(v))
        k = graph[0]["k"]
        assert k[0].numpy() == abs(v) and k[1].numpy() == (1.5 if v > 0 else 2.5)
        assert k[1].dtype == tf.float32 and isinstance(graph[1], list)
        assert graph[2].dtype == tf.int32 and graph[2].numpy() == (1 if v > 0 else 2)
        assert graph[3].numpy() == (b"yes" if v > 0 else b"no")
    f_none = function(lambda x: tf.cond(x > 0, lambda: None, lambda: None))
    assert f_none(tf.constant(1)) is None
    assert op_types(f_none, tf.constant(1)).count("StatelessIf") == 1


def test_cond_captures_arguments_eager_constants_and_variables():
    c, v = tf.constant(10), tf.Variable(100)

    def f(x, y):
        return tf.cond(x > 0, lambda: x + c + v, lambda: y - c)

    fn = function(f)
    assert fn(tf.constant(1), tf.constant(5)).numpy() == 111
    assert fn(tf.constant(-1), tf.constant(5)).numpy() == -5
    v.assign(200)
    assert fn(tf.constant(1), tf.constant(5)).numpy() == 211  # read at run time
    assert op_types(fn, tf.constant(1), tf.constant(5)).count("If") == 1  # reads a variable


def test_the_if_op_inputs_are_the_predicate_and_the_union_of_captures():
    def f(x, y, z):
        return tf.cond(x > 0, lambda: y + 1, lambda: z * 2 + y)

    graph = function(f).get_concrete_function(tf.constant(1), tf.constant(2),
                                              tf.constant(3)).graph
    (op,) = [op for op in graph.get_operations() if op.type == "StatelessIf"]
    assert [t.name for t in op.inputs] == ["Greater:0", "y:0", "z:0"]
    then_graph, else_graph = op.attrs["then_branch"], op.attrs["else_branch"]
    assert len(then_graph.captures) == len(else_graph.captures) == 2
    assert op.attrs["Tout"] == (tf.int32,)


@pytest.mark.parametrize("x", [7, 2, -1])
def test_nested_conds(x):
    def f(x):
        return tf.cond(x > 0,
                       lambda: tf.cond(x > 5, lambda: x * 2, lambda: x * 3),
                       lambda: -x)

    out, ops = eager_vs_traced(f, tf.constant(x))
    assert out.numpy() == {7: 14, 2: 6, -1: 1}[x]
    assert ops.count("StatelessIf") == 1  # the inner cond lives in the outer branch


def test_cond_calling_another_tf_function_in_a_branch():
    inner = function(lambda x: x * 10)
    outer = function(lambda x: tf.cond(x > 0, lambda: inner(x), lambda: inner(-x) + 1))
    assert outer(tf.constant(2)).numpy() == 20
    assert outer(tf.constant(-2)).numpy() == 21
    assert op_types(outer, tf.constant(2)).count("StatelessIf") == 1


def test_branch_side_effects_happen_only_for_the_branch_taken(capsys):
    v = tf.Variable(0)

    def f(x):
        def yes():
            tf.print("yes", x)
            v.assign_add(1)
            return x

        def no():
            tf.print("no", x)
            v.assign_add(10)
            return -x

        return tf.cond(x > 0, yes, no)

    fn = function(f)
    assert fn(tf.constant(3)).numpy() == 3
    assert fn(tf.constant(-3)).numpy() == 3
    assert fn(tf.constant(4)).numpy() == 4
    assert capsys.readouterr().err == "yes 3\nno -3\nyes 4\n"
    assert v.numpy() == 12
    assert op_types(fn, tf.constant(1)).count("If") == 1


def test_output_shapes_are_the_most_specific_compatible():
    shapes = {}

    def f(x, y):
        a = tf.cond(x[0] > 0, lambda: x, lambda: y)
        b = tf.cond(x[0] > 0, lambda: x, lambda: tf.reshape(y, [1, 3]))
        c = tf.cond(x[0] > 0, lambda: x, lambda: x + 1)
        shapes.update(a=a.shape, b=b.shape, c=c.shape)
        return a

    out = function(f)(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    np.testing.assert_array_equal(out.numpy(), [1, 2])
    assert shapes == {"a": tf.TensorShape([None]), "b": tf.TensorShape(None),
                      "c": tf.TensorShape([2])}


def test_a_one_element_predicate_is_squeezed_and_a_longer_one_fails_at_run_time():
    f = function(lambda x: tf.cond(x > 0, lambda: 1, lambda: 2))
    assert f(tf.constant([1])).numpy() == 1
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"The second input must be a scalar, but it has shape \[2\]"):
        f(tf.constant([1, 2]))


def test_errors_inside_a_branch_happen_only_when_it_runs():
    def f(i):
        return tf.cond(i < 3, lambda: tf.gather(tf.constant([1, 2, 3]), i), lambda: -1)

    fn = function(f)
    assert fn(tf.constant(1)).numpy() == 2
    assert fn(tf.constant(7)).numpy() == -1
    with pytest.raises(tf.errors.InvalidArgumentError, match="GatherV2"):
        fn(tf.constant(-5))


@pytest.mark.parametrize("fn, error, message", [
    (lambda x: tf.cond(True, lambda: 1, lambda: 2), TypeError, "pred must not be a Python bool"),
    (lambda x: tf.cond(x, lambda: 1, lambda: 2), tf.errors.InvalidArgumentError,
     "Input 'pred' passed int32 expected bool"),
    (lambda x: tf.cond(x > 0, 1, lambda: 2), TypeError, "'true_fn' must be callable."),
    (lambda x: tf.cond(x > 0, lambda: 1, None), TypeError,
     "cond(): 'false_fn' argument required"),
    (lambda x: tf.cond(x > 0, lambda: 1, lambda: 2.0), TypeError,
     ("true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
      "structure of return values.")),
    (lambda x: tf.cond(x > 0, lambda: [x, x], lambda: (x, x)), TypeError,
     "overall structure of return values"),
    (lambda x: tf.cond(x > 0, lambda: {"a": x}, lambda: {"b": x}), TypeError,
     "overall structure of return values"),
    (lambda x: tf.cond(x > 0, lambda: None, lambda: x), ValueError,
     "Lengths of branch outputs of cond must match."),
    (lambda x: tf.cond(x > 0, lambda: object(), lambda: object()), TypeError,
     "To be compatible with tf.function, Python functions must return zero or more Tensors"),
])
def test_traced_cond_errors(fn, error, message):
    with pytest.raises(error) as info:
        function(fn)(tf.constant(1))
    assert message in str(info.value)


def test_dtype_mismatch_message_names_both_dtypes():
    with pytest.raises(TypeError) as info:
        function(lambda x: tf.cond(x > 0, lambda: 1, lambda: 2.0))(tf.constant(1))
    assert "dtype=int32) and Tensor(" in str(info.value)
    assert "dtype=float32) have different types" in str(info.value)


def test_eager_cond_requires_callables():
    with pytest.raises(TypeError, match="'true_fn' must be callable."):
        tf.cond(tf.constant(True), 1, lambda: 2)


# --- tf.switch_case and tf.case -----------------------------------------------------------------
@pytest.mark.parametrize("i, want", [(0, 10), (1, 20), (2, 30), (7, 30), (-1, 30)])
def test_switch_case(i, want):
    def f(i):
        return tf.switch_case(i, [lambda: 10, lambda: 20, lambda: 30])

    out, ops = eager_vs_traced(f, tf.constant(i))
    assert out.numpy() == want
    assert ops.count("StatelessCase") == 1


def test_switch_case_default_dict_and_pairs():
    def f(i):
        a = tf.switch_case(i, [lambda: 1, lambda: 2], default=lambda: 9)
        b = tf.switch_case(i, {1: lambda: 1, 0: lambda: 2})
        c = tf.switch_case(i, [(0, lambda: 5), (1, lambda: 6)])
        return a, b, c

    for i, want in ((0, (1, 2, 5)), (1, (2, 1, 6)), (5, (9, 1, 6))):
        out, _ = eager_vs_traced(f, tf.constant(i))
        assert tuple(int(t) for t in out) == want
    assert tf.switch_case(tf.constant(1, tf.int64), [lambda: 1, lambda: 2]) == 2


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.switch_case(1, [lambda: 1]), TypeError, "'branch_index' must be a Tensor"),
    (lambda: tf.switch_case(tf.constant(1.0), [lambda: 1]), TypeError,
     "'branch_index' must be an integer Tensor"),
    (lambda: tf.switch_case(tf.constant(1), []), ValueError,
     "Must provide at least one item in 'branch_fns'"),
    (lambda: tf.switch_case(tf.constant(1), {1: lambda: 1, 3: lambda: 2}), ValueError,
     "branch indices (keys) must form contiguous range of [0 to 2) but found {1,3}"),
])
def test_switch_case_argument_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_traced_switch_case_errors():
    with pytest.raises(TypeError, match="Input 'branch_index' of 'StatelessCase' Op has type "
                                        "int64 that does not match expected type of int32."):
        function(lambda i: tf.switch_case(i, [lambda: 1, lambda: 2]))(tf.constant(1, tf.int64))
    with pytest.raises(TypeError, match=r"branches\[0\] and branches\[1\] arguments to "
                                        "tf.switch_case must have the same number, type"):
        function(lambda i: tf.switch_case(i, [lambda: 1, lambda: 2.0]))(tf.constant(1))


def test_stateful_switch_case_runs_only_the_chosen_branch(capsys):
    def f(i):
        return tf.switch_case(i, [lambda: tf.print("zero") or 0, lambda: 1])

    fn = function(f)
    assert fn(tf.constant(1)).numpy() == 1 and fn(tf.constant(0)).numpy() == 0
    assert capsys.readouterr().err == "zero\n"
    assert op_types(fn, tf.constant(1)).count("Case") == 1


@pytest.mark.parametrize("x, want", [(-5, 1), (3, 2), (0, 3)])
def test_case_is_a_chain_of_conds(x, want):
    def f(x):
        return tf.case([(x < 0, lambda: 1), (x > 0, lambda: 2)], default=lambda: 3)

    out, ops = eager_vs_traced(f, tf.constant(x))
    assert out.numpy() == want
    assert ops.count("StatelessIf") == 1  # the second cond lives in the first's else branch


def test_case_without_default_runs_the_last_function_and_checks_its_predicate():
    def f(x):
        return tf.case([(x < 0, lambda: 1), (x > 5, lambda: 2)])

    assert f(tf.constant(9)) == 2 and function(f)(tf.constant(9)).numpy() == 2
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input error: None of conditions evaluated as True:"):
        f(tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[Input error: None of conditions evaluated as "
                             r"True:\] \[0 0\]"):
        function(f)(tf.constant(1))


def test_case_exclusive_checks_that_at_most_one_predicate_holds():
    def f(x):
        return tf.case([(x > 0, lambda: 1), (x > -1, lambda: 2)], default=lambda: 3,
                       exclusive=True)

    assert f(tf.constant(0)) == 2 and function(f)(tf.constant(0)).numpy() == 2
    assert f(tf.constant(-3)) == 3 and function(f)(tf.constant(-3)).numpy() == 3
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(1))
    assert "Input error: exclusive=True: more than 1 conditions (?, ?) evaluated as True:" in \
        str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        function(f)(tf.constant(1))
    assert "more than 1 conditions (Greater:0, Greater_1:0) evaluated as True:] [1 1]" in \
        str(info.value)


def test_case_argument_errors_and_singletons():
    t = tf.constant(True)
    with pytest.raises(TypeError, match="pred must be a Tensor, got: True"):
        tf.case([(True, lambda: 1)], default=lambda: 3)
    with pytest.raises(TypeError, match="'pred_fn_pairs' must be a list, tuple, or dict"):
        tf.case(3, default=lambda: 3)
    with pytest.raises(ValueError, match="Unordered dictionaries are not supported"):
        tf.case({"k": lambda: 1}, default=lambda: 3)
    assert tf.case([(t, lambda: [1])], default=lambda: [3]) == 1  # strict=False unpacks
    assert tf.case([(t, lambda: [1])], default=lambda: [3], strict=True) == [1]


# --- tf.while_loop ------------------------------------------------------------------------------
def test_eager_while_loop_is_a_python_loop_with_tfs_structure_rules():
    out = tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, j * 2), [0, 1.0])
    same(out, (tf.constant(3), tf.constant(8.0)))  # the body's structure
    same(tf.while_loop(lambda i: i < 0, lambda i: (i + 1,), [0]), [tf.constant(0)])
    same(tf.while_loop(lambda i: i < 30, lambda i: [i + 1], [0], maximum_iterations=5),
         [tf.constant(5)])
    same(tf.while_loop(lambda i: i < 30, lambda i: [i + 1], [0], maximum_iterations=-3),
         [tf.constant(0)])


@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0]), TypeError,
     "'int' object is not iterable"),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, 0), ValueError,
     "'loop_vars' must be provided."),
    (lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1], [0, 1]), ValueError,
     "don't have the same"),
    (lambda: tf.while_loop(1, lambda i: i + 1, [0]), TypeError, "'cond' must be callable."),
    (lambda: tf.while_loop(lambda i: i < 3, 1, [0]), TypeError, "'body' must be callable."),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0], parallel_iterations=0),
     TypeError, "'parallel_iterations' must be a positive integer."),
    (lambda: tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [0], maximum_iterations=[5]),
     ValueError, "'maximum_iterations' must be a scalar. Received shape: (1,)"),
])
def test_eager_while_loop_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while_loop_traced_equals_eager_with_one_stateless_while(n):
    def f(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, s + i * i], [0, 0])

    out, ops = eager_vs_traced(f, tf.constant(n))
    assert [int(t) for t in out] == [n, sum(i * i for i in range(n))]
    assert ops.count("StatelessWhile") == 1 and "While" not in ops


def test_while_loop_nested_structures():
    Pair = collections.namedtuple("Pair", "a b")

    def f(x):
        return tf.while_loop(lambda p, d: p.a < 3,
                             lambda p, d: [Pair(p.a + 1, p.b * 2.0), {"k": d["k"] + x}],
                             [Pair(0, 1.0), {"k": x}])

    out, _ = eager_vs_traced(f, tf.constant(1))
    assert isinstance(out[0], Pair)
    assert out[0].a.numpy() == 3 and out[0].b.numpy() == 8.0 and out[1]["k"].numpy() == 4


def test_traced_while_loop_returns_the_loop_vars_structure():
    f = function(lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, j], (0, 1)))
    out = f()
    assert isinstance(out, tuple) and [int(t) for t in out] == [3, 1]
    single = function(lambda x: tf.while_loop(lambda i: i < x, lambda i: i + 1, [0]))
    out = single(tf.constant(4))
    assert isinstance(out, list) and out[0].numpy() == 4  # a single result is wrapped


def test_the_guides_tanh_loop():
    def f(x):
        return tf.while_loop(lambda x: tf.reduce_sum(x) > 1, lambda x: (tf.tanh(x),), [x])[0]

    x = np.full(5, 0.34, np.float32)
    out, ops = eager_vs_traced(f, tf.constant(x))
    want = x
    while want.sum() > 1:
        want = np.tanh(want)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    assert ops.count("StatelessWhile") == 1


def test_while_loop_captures_and_nesting_with_cond():
    scale = tf.constant(3)

    def f(n):
        def body(i, total):
            inner = tf.while_loop(lambda j, s: j < i, lambda j, s: [j + 1, s + j], [0, 0])[1]
            total = tf.cond(i % 2 == 0, lambda: total + inner * scale, lambda: total - 1)
            return [i + 1, total]

        return tf.while_loop(lambda i, t: i < n, body, [0, 0])

    for n in (0, 4, 7):
        out, ops = eager_vs_traced(f, tf.constant(n))
        want = sum((i * (i - 1) // 2) * 3 if i % 2 == 0 else -1 for i in range(n))
        assert out[1].numpy() == want
        assert ops.count("StatelessWhile") == 1 and "StatelessIf" not in ops


def test_while_inside_a_cond_branch():
    def f(x):
        return tf.cond(x > 0, lambda: tf.while_loop(lambda v: v < 100, lambda v: [v * 2], [x])[0],
                       lambda: x)

    for x in (3, -3):
        out, ops = eager_vs_traced(f, tf.constant(x))
        assert out.numpy() == (192 if x > 0 else -3)
        assert ops.count("StatelessIf") == 1 and "StatelessWhile" not in ops


@pytest.mark.parametrize("limit", [0, 3, 10])
def test_maximum_iterations(limit):
    def f(n, limit):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, s + 2], [0, 0],
                             maximum_iterations=limit)

    out, ops = eager_vs_traced(f, tf.constant(5), tf.constant(limit))
    assert [int(t) for t in out] == [min(5, limit), 2 * min(5, limit)]
    assert ops.count("StatelessWhile") == 1
    static = function(lambda n: tf.while_loop(lambda i: i < n, lambda i: [i + 1], [0],
                                              maximum_iterations=limit))
    assert static(tf.constant(5))[0].numpy() == min(5, limit)


def test_maximum_iterations_stops_before_cond_with_side_effects(capsys):
    def f():
        return tf.while_loop(lambda i: (tf.print("cond", i), i < 10)[1], lambda i: [i + 1],
                             [0], maximum_iterations=2)

    assert function(lambda: f())()[0].numpy() == 2
    traced = capsys.readouterr().err
    assert traced == "cond 0\ncond 1\n"  # the graph checks the counter first
    assert f()[0].numpy() == 2
    assert capsys.readouterr().err == "cond 0\ncond 1\ncond 2\n"  # eager TF evaluates both


def test_shape_change_without_invariant_is_tfs_value_error():
    def f(x):
        return tf.while_loop(lambda v: tf.size(v) < 8, lambda v: [tf.concat([v, v], 0)], [x])

    with pytest.raises(ValueError) as info:
        function(f)(tf.constant([1]))
    assert str(info.value) == (
        "Input tensor `x:0` enters the loop with shape (1,), but has shape (2,) after one "
        "iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
        "argument of tf.while_loop to specify a less-specific shape.")
    with pytest.raises(ValueError, match="Input tensor `Const:0` enters the loop with shape "
                                         r"\(1, 1\), but has shape \(2, 1\)"):
        function(lambda: tf.while_loop(lambda v: tf.size(v) < 8,
                                       lambda v: [tf.concat([v, v], 0)],
                                       [tf.constant([[1.0]])]))()


def test_shape_invariants_relax_the_loop_variable():
    shapes = []

    def f(x):
        out = tf.while_loop(lambda v: tf.size(v) < 8, lambda v: [tf.concat([v, v], 0)], [x],
                            shape_invariants=[tf.TensorShape([None])])
        shapes.append(out[0].shape)
        return out

    out, ops = eager_vs_traced(f, tf.constant([1]))
    np.testing.assert_array_equal(out[0].numpy(), [1] * 8)
    assert shapes[-1] == tf.TensorShape([None]) and ops.count("StatelessWhile") == 1
    spec = function(lambda x: tf.while_loop(
        lambda v: tf.size(v) < 8, lambda v: [tf.concat([v, v], 0)], [x],
        shape_invariants=[tf.TensorSpec([None], tf.int32)]))
    np.testing.assert_array_equal(spec(tf.constant([2]))[0].numpy(), [2] * 8)


def test_a_more_specific_body_shape_is_allowed():
    def f(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 10, lambda v: [tf.ones([3]) * 5],
                             [x])

    sig = function(f).get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert sig.outputs[0].shape == tf.TensorShape([None])


@pytest.mark.parametrize("fn, error, message", [
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32) + 1, [x]),
     TypeError, ("Loop var x:0 enters the loop with type <dtype: 'int32'> but has type "
                 "<dtype: 'float32'> after 1 iteration. x:0 type should remain constant.")),
    (lambda x: tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1], [x, 1]), ValueError,
     "don't have the same number of elements"),
    (lambda x: tf.while_loop(lambda i: i, lambda i: i - 1, [x]), tf.errors.InvalidArgumentError,
     "Input 'input' passed int32 expected bool"),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: i + 1, x), TypeError,
     "len is not well defined for a symbolic Tensor"),
    (lambda x: tf.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1, j], [x, None]),
     ValueError, "None values not supported."),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [x],
                             shape_invariants=[tf.TensorSpec([], tf.float32)]),
     TypeError, "is not compatible with"),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [x], shape_invariants=[[None]]),
     ValueError, "don't have the same"),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [x],
                             maximum_iterations=tf.constant(5, tf.int64)),
     ValueError, "Tensor conversion requested dtype int32 for Tensor with dtype int64"),
])
def test_traced_while_loop_errors(fn, error, message):
    with pytest.raises(error) as info:
        function(fn)(tf.constant(1))
    assert message in str(info.value)


def test_run_time_loop_errors_name_the_node():
    f = function(lambda x: tf.while_loop(lambda v: v > 0, lambda v: v - 1, [x]))
    np.testing.assert_array_equal(f(tf.constant([3]))[0].numpy(), [0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"The second input must be a scalar, but it has shape \[2\]"):
        f(tf.constant([5, 4]))

    def g(i):
        return tf.while_loop(lambda j: j < 3, lambda j: [tf.gather(tf.constant([1, 2]), j) + j],
                             [i])

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        function(g)(tf.constant(-4))
    assert "GatherV2" in str(info.value)


def test_stateful_body_makes_a_while_op_and_runs_every_iteration(capsys):
    v = tf.Variable(0)

    def f(n):
        def body(i):
            v.assign_add(i)
            tf.print("step", i)
            return [i + 1]

        return tf.while_loop(lambda i: i < n, body, [0])

    fn = function(f)
    assert fn(tf.constant(3))[0].numpy() == 3
    assert capsys.readouterr().err == "step 0\nstep 1\nstep 2\n"
    assert v.numpy() == 3
    fn(tf.constant(2))
    assert v.numpy() == 4
    assert op_types(fn, tf.constant(3)).count("While") == 1


def test_loop_variables_may_be_variables_and_python_values():
    v = tf.Variable(2)
    out, _ = eager_vs_traced(lambda: tf.while_loop(lambda i, s: i < 30, lambda i, s: [i * 2, s],
                                                   [v, "s"]))
    assert out[0].numpy() == 32 and out[1].numpy() == b"s"


def test_dynamic_rnn_written_with_while_loop():
    def dynamic_rnn(input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        n = input_data.shape[0]
        inputs = tf.TensorArray(tf.float32, size=n).unstack(input_data)
        states = tf.TensorArray(tf.float32, size=n)

        def body(i, state, states):
            state = inputs.read(i) + state
            return i + 1, state, states.write(i, state)

        _, _, states = tf.while_loop(lambda i, state, states: i < n, body,
                                     [0, initial_state, states])
        return tf.transpose(states.stack(), [1, 0, 2])

    x = np.random.default_rng(0).random((8, 10, 4), dtype=np.float32)
    out, ops = eager_vs_traced(dynamic_rnn, tf.constant(x), tf.zeros([8, 4]))
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=1), rtol=1e-6)
    assert out.shape == (8, 10, 4)
    assert ops.count("StatelessWhile") == 1


def test_interpreter_and_codegen_agree():
    def f(x, n):
        def body(i, acc, ta):
            acc = tf.cond(i % 2 == 0, lambda: acc + x, lambda: acc * 2.0)
            return i + 1, acc, ta.write(i, acc)

        return tf.while_loop(lambda i, a, t: i < n, body,
                             [0, tf.zeros_like(x), tf.TensorArray(tf.float32, size=n)])[2].stack()

    args = (tf.constant([1.0, 2.0]), tf.constant(5))
    results = []
    saved = compiled.default_executor
    try:
        for executor in ("codegen", "interpreter"):
            compiled.default_executor = executor
            results.append(function(f)(*args).numpy())
    finally:
        compiled.default_executor = saved
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], f(*args).numpy())


def test_graph_printer_shows_the_sub_graphs():
    f = function(lambda x: tf.cond(x > 0, lambda: x + 1, lambda: x - 1))
    text = str(f.get_concrete_function(tf.constant(1)).graph)
    assert "StatelessIf(%Greater" in text and "then_branch:" in text and "else_branch:" in text


def test_cond_missing_branch_and_case_assert_messages():
    # TF 2.21 names the missing argument; the eager Assert shows the condition's str().
    with pytest.raises(TypeError, match=r"^cond\(\): 'true_fn' argument required$"):
        tf.cond(tf.constant(True), false_fn=lambda: 1)
    with pytest.raises(TypeError, match=r"^cond\(\): 'false_fn' argument required$"):
        tf.cond(tf.constant(True), lambda: 1)
    x = tf.constant(5)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.case([(tf.less(x, 1), lambda: tf.constant(17))])
    assert str(info.value).startswith(
        "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
        "b'Input error: None of conditions evaluated as True:'")


def test_a_branch_returning_an_operation_yields_the_predicate_or_index():
    # TF 2.21: cond_v2 turns a returned Operation into identity(pred) after it (index for
    # switch_case), so the op still runs.
    @tf.function
    def f(p):
        return tf.cond(p, tf.no_op, tf.no_op)

    assert f(tf.constant(True)).numpy() is np.True_ and not f(tf.constant(False)).numpy()
    v = tf.Variable(0)

    @tf.function
    def g(i):
        r = tf.switch_case(i, [lambda: v.assign_add(1).op, tf.no_op])
        return r, v.read_value()

    assert [int(t) for t in g(tf.constant(0))] == [0, 1]
    assert [int(t) for t in g(tf.constant(1))] == [1, 1]

    @tf.function
    def h(p):
        return tf.cond(p, lambda: (tf.no_op(), tf.constant(1)), lambda: (tf.no_op(), 2))

    flag, value = h(tf.constant(False))
    assert flag.dtype == tf.bool and not flag.numpy() and int(value) == 2
    assert tf.cond(tf.constant(True), tf.no_op, tf.no_op) is None
