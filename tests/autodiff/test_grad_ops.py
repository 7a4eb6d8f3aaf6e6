"""The ops gradients add (StopGradient, Complex, SumToShape, StridedSliceGrad), tf.custom_gradient,
and the shape logic that undoes broadcasting (static when shapes decide it, else SumToShape)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.autodiff.grad_util import unbroadcast
from tensortrace.graph.ir import Graph
from tensortrace.ops.array.broadcasting import sum_to_shape
from tensortrace.ops.indexing.slicing import strided_slice_grad

from ..ops.optable import Case, op_types, run_case

F32 = np.arange(6, dtype=np.float32).reshape(2, 3)
CASES = [
    Case(tf.stop_gradient, (F32,), ref=lambda x: x),
    Case(tf.complex, (F32, np.float32(2.0)), ref=lambda a, b: (a + 1j * b).astype(np.complex64)),
    Case(tf.complex, (F32.astype(np.float64), np.ones((1, 3))),
         ref=lambda a, b: a + 1j * b),
    Case(sum_to_shape, (np.ones((4, 2, 3), np.float32), np.array([2, 1], np.int32)),
         ref=lambda x, s: np.full((2, 1), 12.0, np.float32), dynamic_shape=True),
    Case(sum_to_shape, (F32, np.array([2, 3], np.int32)), ref=lambda x, s: x, dynamic_shape=True),
    Case(sum_to_shape, (F32, np.array([3], np.int64)), ref=lambda x, s: x.sum(0),
         dynamic_shape=True),
    Case(lambda dy: strided_slice_grad(tf.constant([3, 4]), tf.constant([1, 3]),
                                       tf.constant([3, 0]), tf.constant([1, -2]), dy,
                                       begin_mask=0, end_mask=0, ellipsis_mask=0,
                                       new_axis_mask=0, shrink_axis_mask=0),
         (np.ones((2, 2), np.float32),),
         ref=lambda dy: np.array([[0, 0, 0, 0], [0, 1, 0, 1], [0, 1, 0, 1]], np.float32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_gradient_op_appears_in_the_table():
    seen = set().union(*(op_types(c) for c in CASES))
    assert {"StopGradient", "Complex", "SumToShape", "StridedSliceGrad"} <= seen


def test_complex_errors():
    with pytest.raises(TypeError, match="The `real` and `imag` components have incorrect types: "
                                        "float32 float64"):
        tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))
    with pytest.raises(TypeError, match="incorrect types: int32 int32"):
        tf.complex(1, 2)


def test_stop_gradient_blocks_the_path():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stop_gradient(x * x) + x
    assert tape.gradient(y, x).numpy() == 1.0


def test_sum_to_shape_gradient_broadcasts_back():
    x = tf.constant(np.ones((2, 3), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = sum_to_shape(x, tf.constant([1, 3]))
    assert tape.gradient(y, x, output_gradients=tf.constant([[1.0, 2.0, 3.0]])).numpy() \
        .tolist() == [[1.0, 2.0, 3.0]] * 2


def _graph_unbroadcast(g_shape, x_shape, *other_shapes):
    """The op types unbroadcast emits for symbolic shapes, and the result's shape."""
    graph = Graph()
    with graph.as_default():
        dx = graph.placeholder(tf.TensorSpec(g_shape, tf.float32), "g")
        x = graph.placeholder(tf.TensorSpec(x_shape, tf.float32), "x")
        others = [graph.placeholder(tf.TensorSpec(s, tf.float32), "o") for s in other_shapes]
        out = unbroadcast(dx, x, *others)
    return [op.type for op in graph.get_operations()[2 + len(others):]], out.shape


def test_unbroadcast_uses_static_shapes_when_they_decide():
    assert _graph_unbroadcast([2, 3], [2, 3]) == ([], tf.TensorShape([2, 3]))
    assert _graph_unbroadcast([None, 3], [3], [None, 3]) == (["Sum"], tf.TensorShape([3]))
    assert _graph_unbroadcast([None, 3], [None, 3], [3]) == ([], tf.TensorShape([None, 3]))
    assert _graph_unbroadcast([None, 3], [None, 1], [1, 3])[0] == ["Sum"]
    assert _graph_unbroadcast([None, 3], [None, 1], [None, 3])[0] == ["Shape", "SumToShape"]
    types, shape = _graph_unbroadcast([4, 3], [4, 1], [3])
    assert types == ["Sum", "Const", "Reshape"] and shape == tf.TensorShape([4, 1])


def test_unbroadcast_asks_the_runtime_when_shapes_cannot_decide():
    types, _ = _graph_unbroadcast([None, None], [None, None], [None, None])
    assert types == ["Shape", "SumToShape"]

    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float64)] * 2)
    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = a * b
        return tape.gradient(y, [a, b])

    ga, gb = grads(tf.constant(np.ones((2, 3))), tf.constant(np.full((1, 3), 2.0)))
    assert ga.numpy().tolist() == [[2.0] * 3] * 2 and gb.numpy().tolist() == [[2.0] * 3]
    ga, gb = grads(tf.constant(np.ones((2, 1))), tf.constant(np.full((2, 4), 2.0)))
    assert ga.numpy().tolist() == [[8.0]] * 2 and gb.numpy().tolist() == [[1.0] * 4] * 2


# --- custom_gradient ------------------------------------------------------------------------------
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


def test_custom_gradient_eagerly_and_in_a_function():
    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert y.numpy() == np.inf and tape.gradient(y, x).numpy() == 1.0

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return tape.gradient(y, x)

    assert f(tf.constant(100.0)).numpy() == 1.0
    assert np.isclose(log1pexp(tf.constant(1.0)).numpy(), np.log1p(np.e))


def test_custom_gradient_second_order():
    x = tf.constant(1.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        g = inner.gradient(y, x)
    assert np.isclose(g.numpy(), 0.7310586) and np.isclose(outer.gradient(g, x).numpy(),
                                                           0.19661194)


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * v, [dy * x * 10]

        return x * v, grad

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    assert [g.numpy() for g in tape.gradient(y, [x, v])] == [2.0, 30.0]

    @tf.custom_gradient
    def bad(x):
        return x * v, lambda dy: dy

    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="@tf.custom_gradient grad_fn must accept keyword "
                                            "argument 'variables', since function uses "
                                            "variables"):
            bad(x)


def test_custom_gradient_several_inputs_and_outputs():
    @tf.custom_gradient
    def two(x, y):
        return x + y, lambda dz: (dz * 2, dz * 3)

    @tf.custom_gradient
    def multi(x):
        return (x * 1, x * 1), lambda da, db: da * 2 + db * 3

    @tf.custom_gradient
    def wrong(x, y):
        return x + y, lambda dz: dz * 2

    x, y = tf.constant(3.0), tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = two(x, y)
        a, b = multi(x)
        c = a + 10 * b
        w = wrong(x, y)
    assert [g.numpy() for g in tape.gradient(z, [x, y])] == [2.0, 3.0]
    assert tape.gradient(c, x).numpy() == 32.0
    with pytest.raises(ValueError, match="custom_gradient function expected to return 2 "
                                         "gradients, but returned 1 instead."):
        tape.gradient(w, x)


def test_custom_gradient_inside_a_function_called_under_an_eager_tape():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scaled(x):
        e = tf.exp(x)

        def grad(dy, variables=None):
            return dy * (1 - 1 / (1 + e)) * v, [dy * 10]

        return tf.math.log(1 + e) * v, grad

    @tf.function
    def f(x):
        return scaled(x) + x

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    assert gx.numpy() == 3.0 and gv.numpy() == 10.0


def test_custom_gradient_on_a_method_binds_self():
    # TF 2.21: the decorator binds ``self`` (not an input); variables go to ``variables``.
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.custom_gradient
        def f(self, x):
            y = x * self.w

            def grad(dy, variables=None):
                return dy * 100.0, [dy * 7.0]

            return y, grad

    m = M()
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = m.f(x)
    gx, gw = t.gradient(y, [x, m.w])
    assert (float(y), float(gx), float(gw)) == (6.0, 100.0, 7.0)
    assert M.f.__name__ == "f"


def test_custom_gradient_keyword_arguments_are_not_inputs_of_the_rule():
    # TF 2.21: with ``f(x=x)`` the rule never sees x, so the tape differentiates f's own ops.
    @tf.custom_gradient
    def f(x):
        return x * 2, lambda dy: dy * 5.0

    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        by_keyword, positional = f(x=x), f(x)
    assert float(t.gradient(by_keyword, x)) == 2.0
    assert float(t.gradient(positional, x)) == 5.0


def test_custom_gradient_in_a_function_converts_arguments_before_f_runs():
    # TF 2.21's graph-mode decorator converts the arguments (reading the variable behind one)
    # before f runs, so grad_fn gets no ``variables`` there; eagerly the conversion is f's own
    # read, and grad_fn gets the variable (3 + 5). Keras' float8 layers rely on the former.
    class Box:
        def __init__(self, v):
            self.v = v

        def __tf_tensor__(self, dtype=None, name=None):
            return tf.convert_to_tensor(self.v, dtype=dtype)

    v = tf.Variable(2.0)
    box = Box(v)
    given = []

    @tf.custom_gradient
    def f(x):
        y = tf.convert_to_tensor(x)

        def grad(dy, variables=None):
            given.append(None if variables is None else [u.name for u in variables])
            return (dy * 3.0, [dy * 5.0]) if variables else dy * 3.0

        return y * y, grad

    @tf.function
    def in_function():
        with tf.GradientTape() as t:
            y = f(box)
        return t.gradient(y, v)

    assert float(in_function()) == 3.0
    with tf.GradientTape() as t:
        y = f(box)
    assert float(t.gradient(y, v)) == 8.0
    assert given == [None, ["Variable:0"]]
