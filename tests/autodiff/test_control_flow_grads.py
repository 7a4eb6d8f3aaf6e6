"""Gradients through tf.cond, tf.case, tf.switch_case, tf.while_loop and TensorArrays: against
central finite differences (float64) eagerly and inside tf.function, against unrolled Python
equivalents, to second order, through variables read in loop bodies, and values pinned to
TF 2.21."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import compiled

from .gradcheck import GradCase, check, op_types, rand

F64 = tf.float64
SCALE = tf.Variable(1.5, dtype=tf.float64)  # read in a branch/body: makes If/Case/While stateful


def C(fn, *args, **kw):
    return GradCase(fn, args, **kw)


# --- the op-table of gradients: each control-flow and list op at the top level of a function ----
def _if(x, y):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * y, lambda: x * x + y)


def _if_stateful(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x * SCALE, lambda: tf.exp(x))


def _switch(x, y):
    return tf.switch_case(tf.cast(tf.reduce_sum(x) > 0, tf.int32),
                          [lambda: x * y, lambda: tf.tanh(x) + y, lambda: tf.zeros_like(x)])


def _switch_stateful(x):
    return tf.switch_case(tf.constant(1), [lambda: x, lambda: x * x * SCALE])


def _while(x):
    return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x), [0, x])[1]


def _while_stateful(x):
    return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.tanh(y) * SCALE),
                         [0, x])[1]


def _rnn(x, w):
    """A TensorArray written in a loop over a captured weight."""
    def body(i, s, ta):
        s = tf.tanh(tf.linalg.matvec(w, x[i]) + s)
        return i + 1, s, ta.write(i, s)

    ta = tf.TensorArray(F64, size=3)
    _, s, ta = tf.while_loop(lambda i, s, ta: i < 3, body, [0, tf.zeros([2], F64), ta])
    return ta.stack() * s


def _list_ops(x):
    """Write, read, scatter, gather and stack outside loops (TensorListSetItem/GetItem/...)."""
    ta = tf.TensorArray(F64, size=4, clear_after_read=False)
    ta = ta.scatter([0, 2], tf.stack([x, x * 2.0]))
    ta = ta.write(1, tf.sin(x)).write(3, x * x)
    return ta.gather([3, 0]) * ta.read(1) + tf.reduce_sum(ta.stack(), 0)


def _list_unstack(x):
    ta = tf.TensorArray(F64, size=3).unstack(x)
    return ta.read(0) * ta.read(2) + ta.read(1)


def _list_split(x):
    ta = tf.TensorArray(F64, size=3, infer_shape=False).split(x, [1, 2, 3])
    return ta.concat() * tf.range(6, dtype=F64) + tf.reduce_sum(ta.read(1) ** 2)


CASES = [
    C(_if, rand(3), rand(3), id="if"),
    C(_if_stateful, rand(3), id="if_stateful"),
    C(_switch, rand(3), rand(3), id="switch_case"),
    C(_switch_stateful, rand(3), id="switch_case_stateful"),
    C(_while, rand(3), id="while"),
    C(_while_stateful, rand(3), id="while_stateful"),
    C(_rnn, rand(3, 2), rand(2, 2, low=-0.8, high=0.8), id="rnn_tensor_array"),
    C(_list_ops, rand(2), id="list_ops"),
    C(_list_unstack, rand(3, 2), id="list_unstack"),
    C(_list_split, rand(6), dynamic=False, id="list_split"),
]


def _modes():
    for case in CASES:
        for mode in ("eager", "graph", "dynamic") if case.dynamic else ("eager", "graph"):
            yield pytest.param(case, mode, id=f"{case}-{mode}")


@pytest.mark.parametrize("case,mode", list(_modes()))
def test_first_order(case, mode):
    check(case, mode, order=1)


@pytest.mark.parametrize("case,mode", [p for p in _modes() if p.values[1] != "graph"])
def test_second_order(case, mode):
    check(case, mode, order=2)


def test_the_cases_cover_every_control_flow_and_list_op():
    seen = set().union(*(op_types(c) for c in CASES))
    mine = {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile",
            "TensorListFromTensor", "TensorListSetItem", "TensorListGetItem", "TensorListStack",
            "TensorListGather", "TensorListScatterIntoExistingList", "TensorListConcatV2",
            "TensorListSplit"}
    assert mine - seen == set()


# --- helpers ------------------------------------------------------------------------------------
def numeric(fn, *arrays, eps=1e-6):
    """Central differences of the scalar fn(*arrays) w.r.t. each array."""
    out = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (fn(*plus) - fn(*minus)) / (2 * eps)
        out.append(g)
    return out


def close(got, want, tol=1e-7):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


X2 = tf.constant([0.3, -0.7], F64)


# --- the seeds' dynamic_rnn with a learnable weight (AutoGraph ``for i in tf.range``) -----------
B, T, FEAT = 2, 3, 4
RNG = np.random.default_rng(11)
DATA = RNG.normal(size=(B, T, FEAT))
W0 = RNG.normal(size=(FEAT, FEAT)) * 0.5
S0 = RNG.normal(size=(B, FEAT))


@tf.function
def dynamic_rnn(input_data, initial_state, w):
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tf.TensorArray(tf.float64, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = tf.tanh(tf.matmul(input_data[i], w) + state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def unrolled_rnn(input_data, initial_state, w):
    """The same loop unrolled in Python (any tensors, any mode)."""
    state, states = initial_state, []
    for i in range(T):
        state = tf.tanh(tf.matmul(input_data[:, i], w) + state)
        states.append(state)
    return tf.stack(states, 1)


def np_rnn_loss(data, s, w):
    outs = []
    for i in range(T):
        s = np.tanh(data[:, i] @ w + s)
        outs.append(s)
    out = np.stack(outs, 1)
    return np.sum(out * out)


def _rnn_grads(rnn, outside_function):
    def grads(d, s, w):
        with tf.GradientTape() as tape:
            tape.watch([s, w])
            out = rnn(d, s, w)
            loss = tf.reduce_sum(out * out)
        return loss, tape.gradient(loss, [s, w])

    fn = grads if outside_function else tf.function(grads)
    return fn(tf.constant(DATA), tf.constant(S0), tf.constant(W0))


@pytest.mark.parametrize("executor", ["codegen", "interpreter"])
@pytest.mark.parametrize("outside", [False, True], ids=["tape_in_function", "tape_outside"])
def test_dynamic_rnn_gradient_wrt_weight_and_initial_state(monkeypatch, executor, outside):
    monkeypatch.setattr(compiled, "default_executor", executor)
    rnn = tf.function(dynamic_rnn.python_function)  # a fresh trace with this executor
    loss, (gs, gw) = _rnn_grads(rnn, outside)
    close(loss, np_rnn_loss(DATA, S0, W0))
    num_s, num_w = numeric(lambda s, w: np_rnn_loss(DATA, s, w), S0, W0)
    close(gs, num_s, 1e-6)
    close(gw, num_w, 1e-6)
    u_loss, (u_gs, u_gw) = _rnn_grads(unrolled_rnn, outside)
    close(loss, u_loss, 1e-12)
    close(gs, u_gs, 1e-12)
    close(gw, u_gw, 1e-12)


def test_while_gradient_graph_saves_iterations_instead_of_recomputing():
    @tf.function
    def grads(x, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.tanh(y @ w)),
                              [0, x])[1]
        return tape.gradient(y, w)

    graph = grads.get_concrete_function(tf.TensorSpec([2, 2], F64),
                                        tf.TensorSpec([2, 2], F64)).graph
    loops = [op for op in graph.get_operations() if op.type.endswith("While")]
    assert len(loops) == 2  # the forward loop (now saving its iterations) and the backward one
    forward_ops = {op.type for op in loops[0].attrs["body"].get_operations()}
    assert {"MatMul", "Tanh", "TensorListSetItem"} <= forward_ops
    backward_ops = [op.type for op in loops[1].attrs["body"].get_operations()]
    assert "Tanh" not in backward_ops  # the backward body reads saved values, no forward replay
    assert backward_ops.count("TensorListGetItem") == 2  # y and tanh(y @ w) of that iteration


def test_random_values_in_a_loop_body_are_the_ones_differentiated():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, y: i < 2,
                              lambda i, y: (i + 1, y * tf.random.uniform([3], 1.0, 2.0, F64)),
                              [0, x])[1]
        return y, tape.gradient(y, x)

    x = tf.constant([1.0, 2.0, 4.0], F64)
    y, g = f(x)
    close(g, y.numpy() / x.numpy(), 1e-12)  # d(x * u1 * u2)/dx with the same u1, u2


# --- values pinned to TF 2.21 -------------------------------------------------------------------
def test_switch_case_gradients_match_tf():
    @tf.function
    def f(x, i):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.switch_case(i, [lambda: tf.sin(x), lambda: x * x,
                                   lambda: tf.constant([1.0, 2.0], F64)])
        return tape.gradient(y, x)

    close(f(X2, tf.constant(0)), [0.955336, 0.764842], 1e-6)
    close(f(X2, tf.constant(1)), [0.6, -1.4])
    close(f(X2, tf.constant(2)), [0.0, 0.0])  # TF: zeros, not None (another branch uses x)
    close(f(X2, tf.constant(7)), [0.0, 0.0])  # out of range: the last branch


def test_tf_case_gradients():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.case([(x[0] > 0, lambda: x * 2.0), (x[1] > 0, lambda: x * 3.0)],
                        default=lambda: tf.exp(x))
        return tape.gradient(y, x)

    close(f(X2), [2.0, 2.0])
    close(f(-X2), [3.0, 3.0])
    x = tf.constant([-0.3, -0.7], F64)
    close(f(x), np.exp(x.numpy()))


def test_cond_gradient_is_zero_in_a_branch_not_using_the_input_and_none_if_unused():
    @tf.function
    def f(x, y, z, p):
        with tf.GradientTape() as tape:
            tape.watch([x, y, z])
            out = tf.cond(p, lambda: x * 2.0, lambda: y * 3.0)
        gx, gy, gz = tape.gradient(out, [x, y, z])
        return gx, gy, gz is None

    gx, gy, z_none = f(X2, X2, X2, tf.constant(True))
    close(gx, [2.0, 2.0])
    close(gy, [0.0, 0.0])
    assert bool(z_none)


def test_while_gradients_match_tf():
    @tf.function
    def run(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.sin(y)), [0, x])[1]
        return tape.gradient(y, x)

    close(run(X2, tf.constant(0)), [1.0, 1.0])  # no iteration: dy passes through
    close(run(X2, tf.constant(2)), [0.913923, 0.611545], 1e-6)

    @tf.function
    def bounded(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, y: i < 10, lambda i, y: (i + 1, tf.sin(y) * 2.0),
                              [0, x], maximum_iterations=3)[1]
        return tape.gradient(y, x)

    close(bounded(X2), [2.796584, -0.584588], 1e-6)


def test_tensor_array_gradients_match_tf():
    @tf.function
    def ops(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=4)
            ta = ta.scatter([0, 2], tf.reshape(x, [2, 1]) * [[1.0, 2.0]])
            ta = ta.write(1, tf.stack([x[0], x[1] * 5])).write(3, x * x)
            s = ta.stack()
            y = (tf.reduce_sum(ta.gather([3, 0]) * [[1.0, 2.0], [3.0, 4.0]])
                 + tf.reduce_sum(s * s) + tf.reduce_sum(ta.read(2) * 7.0))
        return tape.gradient(y, x)

    close(ops(X2), [15.308, -25.172])

    @tf.function
    def split(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            v = tf.concat([x, x * 2.0, x * x], 0)
            ta = tf.TensorArray(F64, size=3, infer_shape=False).split(v, [1, 2, 3])
            y = tf.reduce_sum(ta.concat() * tf.range(6, dtype=F64)) + \
                tf.reduce_sum(ta.read(1) ** 2)
        return tape.gradient(y, x)

    close(split(X2), [8.8, -1.4])


def test_variables_read_in_loop_and_branch_bodies_get_gradients():
    v = tf.Variable([[0.5, -0.2], [0.1, 0.4]], dtype=F64)

    @tf.function
    def loop(x):
        with tf.GradientTape() as tape:
            y = tf.while_loop(lambda i, y: i < 3,
                              lambda i, y: (i + 1, tf.tanh(tf.linalg.matvec(v, y))), [0, x])[1]
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, v)

    close(loop(X2), [[0.080814, -0.068688], [-0.028632, 0.039659]], 1e-6)  # TF 2.21

    @tf.function
    def branch(x, p):
        with tf.GradientTape() as tape:
            y = tf.cond(p, lambda: tf.linalg.matvec(v, x), lambda: x)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, v)

    close(branch(X2, tf.constant(True)), [[0.174, -0.406], [-0.15, 0.35]])
    close(branch(X2, tf.constant(False)), np.zeros((2, 2)))  # TF: zeros, not None


def test_training_step_with_a_tape_around_a_loop_matches_tf():
    data = np.random.default_rng(1).normal(size=(4, 3))

    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.eye(3) * 0.5)
            self.b = tf.Variable(np.zeros(3))

        @tf.function
        def train(self, x):
            with tf.GradientTape() as tape:
                s = tf.zeros([3], F64)
                for i in tf.range(tf.shape(x)[0]):
                    s = tf.tanh(tf.linalg.matvec(self.w, x[i]) + self.b + s)
                loss = tf.reduce_sum(s * s)
            gw, gb = tape.gradient(loss, [self.w, self.b])
            self.w.assign_sub(0.1 * gw)
            self.b.assign_sub(0.1 * gb)
            return loss

    model = Model()
    losses = [float(model.train(tf.constant(data))) for _ in range(5)]
    close(losses, [1.02734567, 0.50884947, 1.12483436, 0.81473528, 0.53562113])  # TF 2.21


def test_gradients_with_respect_to_integer_loop_variables_are_none():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            n = tf.constant(0)
            tape.watch(x)
            _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), [n, x])
        gx, gn = tape.gradient(y, [x, n])
        return gx, gn is None

    gx, none = f(X2)
    close(gx, [8.0, 8.0])
    assert bool(none)


def test_loop_variable_with_a_shape_invariant():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(
                lambda i, y: i < 3, lambda i, y: (i + 1, tf.concat([y, tf.sin(y[-1:])], 0)),
                [0, x], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
            loss = tf.reduce_sum(y * tf.range(5, dtype=F64))
        return tape.gradient(loss, x)

    close(f(X2), [0.0, 6.382445], 1e-6)  # TF 2.21


# --- more structure: nesting, lists in loops, AutoGraph, higher orders -------------------------
def test_nested_loops_with_maximum_iterations():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, y):
                z = tf.while_loop(lambda j, z: j < 2,
                                  lambda j, z: (j + 1, tf.sin(z) + y * 0.5), [0, y])[1]
                return i + 1, z * 1.1

            y = tf.while_loop(lambda i, y: i < 100, body, [0, x], maximum_iterations=3)[1]
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, x)

    def np_f(x):
        for _ in range(3):
            z = x
            for _ in range(2):
                z = np.sin(z) + x * 0.5
            x = z * 1.1
        return x.sum()

    x = np.array([0.3, -0.7])
    close(f(tf.constant(x)), numeric(np_f, x)[0], 1e-6)


def test_cond_inside_a_loop_and_loop_inside_a_cond():
    @tf.function
    def f(x, p):
        with tf.GradientTape() as tape:
            tape.watch(x)
            def body(i, y):
                return i + 1, tf.cond(tf.reduce_sum(y) > 0, lambda: y * y, lambda: tf.sin(y))

            def loop():
                return tf.while_loop(lambda i, y: i < 3, body, [0, x])[1]

            y = tf.cond(p, loop, lambda: x * 3.0)
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, x)

    def np_f(x):
        for _ in range(3):
            x = x * x if x.sum() > 0 else np.sin(x)
        return x.sum()

    x = np.array([0.9, 0.4])
    close(f(tf.constant(x), tf.constant(True)), numeric(np_f, x)[0], 1e-6)
    close(f(tf.constant(x), tf.constant(False)), [3.0, 3.0])


def test_tensor_array_written_and_read_back_in_a_loop():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=4, clear_after_read=False).write(0, x)
            _, ta = tf.while_loop(
                lambda i, ta: i < 4,
                lambda i, ta: (i + 1, ta.write(i, tf.sin(ta.read(i - 1)) * 2.0)), [1, ta])
            y = ta.read(3)
        return tape.gradient(y, x)

    close(f(X2), [2.79658357, -0.58458807])


def test_tensor_array_read_in_a_loop_captured_and_as_loop_variable():
    def np_f(x):
        s = 1.0
        for i in range(3):
            s = s * x[i] + 1
        return s

    @tf.function
    def captured(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=3).unstack(x)
            s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * ta.read(i) + 1.0),
                              [0, tf.constant(1.0, F64)])[1]
        return tape.gradient(s, x)

    @tf.function
    def carried(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=3).unstack(x)
            _, s, _ = tf.while_loop(lambda i, s, ta: i < 3,
                                    lambda i, s, ta: (i + 1, s * ta.read(i) + 1.0, ta),
                                    [0, tf.constant(1.0, F64), ta])
        return tape.gradient(s, x)

    x = np.array([0.3, -0.7, 1.2])
    want = numeric(np_f, x)[0]
    close(captured(tf.constant(x)), want, 1e-6)
    close(carried(tf.constant(x)), want, 1e-6)


def test_dynamic_size_tensor_array_in_an_autograph_loop_with_unknown_shapes():
    @tf.function(input_signature=[tf.TensorSpec([None], F64)])
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=0, dynamic_size=True)
            y = x
            for i in tf.range(3):
                y = tf.sin(y) + 1.0
                ta = ta.write(i, y)
            loss = tf.reduce_sum(ta.stack() ** 2)
        return tape.gradient(loss, x)

    def np_f(x):
        total, y = 0.0, x
        for _ in range(3):
            y = np.sin(y) + 1
            total += (y ** 2).sum()
        return total

    x = np.array([0.3, -0.7, 0.1])
    close(f(tf.constant(x)), numeric(np_f, x)[0], 1e-6)


def test_autograph_while_and_if_on_tensors():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            while tf.reduce_sum(y) < 10.0:
                y = y * 1.5 + 0.1
            if tf.reduce_sum(y) > 12.0:
                y = y * y
            else:
                y = -y
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, x)

    def np_f(x):
        y = x
        while y.sum() < 10:
            y = y * 1.5 + 0.1
        return (y * y if y.sum() > 12 else -y).sum()

    for x in (np.array([1.0, 2.0]), np.array([2.0, 4.5])):
        close(f(tf.constant(x)), numeric(np_f, x)[0], 1e-6)


def test_second_order_through_cond_and_while():
    @tf.function
    def cond2(x, p):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.cond(p, lambda: tf.sin(x) * x, lambda: x * x * x)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    x = X2.numpy()
    close(cond2(X2, tf.constant(True)), 2 * np.cos(x) - x * np.sin(x))
    close(cond2(X2, tf.constant(False)), 6 * x)

    @tf.function
    def while2(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x),
                                  [0, x])[1]
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    def loop(x):
        y = x
        for _ in range(3):
            y = np.sin(y) * x
        return y

    def diagonal(fn, x, eps):  # d fn(x)[k] / d x[k]: fn acts elementwise
        return np.array([numeric(lambda v, k=k: fn(v)[k], x, eps=eps)[0][k] for k in range(2)])

    want = diagonal(lambda v: diagonal(loop, v, 1e-6), x, 1e-4)
    close(while2(X2), want, 1e-5)


def test_eager_control_flow_records_the_ops_it_runs():
    x = X2
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cond(x[0] > 0, lambda: tf.sin(x), lambda: x)
        z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * y), [0, x])[1]
        ta = tf.TensorArray(F64, size=2, clear_after_read=False).unstack(z)
        w = ta.read(0) * ta.read(1) + tf.reduce_sum(ta.stack())
    close(tape.gradient(w, x), [0.11978, -0.941178], 1e-6)  # TF 2.21


def test_jacobian_and_persistent_tape_through_a_loop():
    @tf.function
    def f(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x), [0, x])[1]
            z = y * 2.0
        return tape.jacobian(y, x), tape.gradient(y, x), tape.gradient(z, x)

    jac, g, g2 = f(X2)
    close(jac, np.diag([0.10527823, -1.08755824]))
    close(g, [0.10527823, -1.08755824])
    close(g2, 2 * g.numpy())


def test_effects_in_a_branch_run_once_when_differentiated():
    count = tf.Variable(0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def branch():
                count.assign_add(1)
                return x * 2.0

            y = tf.cond(tf.reduce_sum(x) < 0, branch, lambda: x)
        return tape.gradient(y, x)

    close(f(X2), [2.0, 2.0])
    assert int(count.numpy()) == 1


def test_dynamic_size_tensor_array_grown_past_its_unstacked_rows():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(F64, size=0, dynamic_size=True).unstack(x)
            for i in tf.range(2):
                ta = ta.write(i + 3, ta.read(i) * 2.0)
            y = tf.reduce_sum(ta.stack() * tf.range(5, dtype=F64)[:, None])
        return tape.gradient(y, x)

    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], F64)
    close(f(x), [[6.0, 6.0], [9.0, 9.0], [2.0, 2.0]])  # TF 2.21
