"""Buffer reuse in generated code: large elementwise results go into dead intermediates
(``out=``), and every value stays bit-identical to the interpreter's. Nothing a caller can see
(inputs, outputs, captures, variables, views, TensorArray items) is ever written."""

import tracemalloc

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor import buffers, compiled

RNG = np.random.default_rng(7)


def _both(make, *args):
    """``make()``'s tf.function run by the codegen and by the interpreter (fresh traces), and
    the generated code."""
    f = make()
    got = tf.nest.map_structure(lambda t: t.numpy(), f(*args))
    code = f.get_concrete_function(*args).code
    saved = compiled.default_executor
    compiled.default_executor = "interpreter"
    try:
        want = tf.nest.map_structure(lambda t: t.numpy(), make()(*args))
    finally:
        compiled.default_executor = saved
    return got, want, code


def _assert_identical(got, want):
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()  # bit-identical, NaNs and signed zeros included


def _random_chain(seed, n_ops):
    """A random elementwise program over a pool of live values: unary and binary ops,
    broadcasting operands, constants, float64 and int32 side chains, views and several
    outputs (some of them read again later)."""
    rng = np.random.default_rng(seed)

    def chain(x, row):
        pool = [x, x * 0.5, row]
        outs = []
        for _ in range(n_ops):
            kind = rng.integers(0, 11)
            a = pool[rng.integers(len(pool))]
            b = pool[rng.integers(len(pool))]
            if kind == 0:
                y = tf.tanh(a) + b
            elif kind == 1:
                y = a * b - 0.25
            elif kind == 2:
                y = tf.sqrt(tf.abs(a)) / (tf.abs(b) + 1.0)
            elif kind == 3:
                y = tf.maximum(a, b) - tf.minimum(a, -b)
            elif kind == 4:
                y = tf.exp(-tf.abs(a)) * 3.0
            elif kind == 5:  # a float64 side chain, cast back
                d = tf.cast(a, tf.float64)
                y = tf.cast(d * d + tf.cast(b, tf.float64), tf.float32)
            elif kind == 6:  # an int32 side chain
                i = tf.cast(a * 10.0, tf.int32)
                y = tf.cast(i * i - i, tf.float32) * 0.01
            elif kind == 7:  # views of a value that later dies
                v = tf.reshape(a, [-1])
                y = tf.reshape(tf.identity(v) + 1.0, tf.shape(a)) + a
                pool.append(tf.reshape(v, tf.shape(a)))
            elif kind == 8:  # a comparison feeding a select
                y = tf.where(a > b, a, -b) + 0.5
            elif kind == 9:  # a value that is an output and read later
                y = -a
                outs.append(y)
            else:
                y = tf.sin(a) * tf.cos(b) + row
            pool.append(y)
            if len(pool) > 6:
                pool.pop(rng.integers(3, len(pool)))
        return [pool[-1], pool[-2]] + outs

    return chain


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_match_the_interpreter(seed, monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)  # reuse even the small buffers of the test
    x = tf.constant(RNG.uniform(-2, 2, (4, 6)).astype(np.float32))
    row = tf.constant(RNG.uniform(-2, 2, (6,)).astype(np.float32))
    x_before, row_before = x.numpy().copy(), row.numpy().copy()
    got, want, code = _both(lambda: tf.function(_random_chain(seed, 40)), x, row)
    _assert_identical(got, want)
    assert "out=" in code
    np.testing.assert_array_equal(x.numpy(), x_before)  # inputs are never written
    np.testing.assert_array_equal(row.numpy(), row_before)


@pytest.mark.parametrize("seed", range(4))
def test_random_chains_in_blocks_match_the_interpreter(seed, monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)
    monkeypatch.setattr(buffers, "BLOCK_ELEMENTS", 12)  # blocks of 2 rows; 15 rows: a remainder
    x = tf.constant(RNG.uniform(-2, 2, (15, 6)).astype(np.float32))
    row = tf.constant(RNG.uniform(-2, 2, (6,)).astype(np.float32))  # broadcast whole

    def make():
        chain = _random_chain(seed, 40)  # a fresh generator: the same program each trace

        @tf.function
        def f(x, row, col):
            base = tf.tanh(x * col + 1.0) * 2.0 - col  # col [15, 1] is cut into blocks too
            results = chain(base, row)
            return results + [tf.reduce_sum(results[0]) * results[0] - col]

        return f

    col = tf.constant(RNG.uniform(-2, 2, (15, 1)).astype(np.float32))
    got, want, code = _both(make, x, row, col)
    _assert_identical(got, want)
    assert "for block in range(0, 15, 2):" in code and "col_block = col[block:block + 2]" in code


def test_chain_at_the_default_threshold_reuses_and_matches():
    x = tf.constant(RNG.uniform(-1, 1, (8, 1024)).astype(np.float32))
    row = tf.constant(RNG.uniform(-1, 1, (1024,)).astype(np.float32))
    got, want, code = _both(lambda: tf.function(_random_chain(11, 30)), x, row)
    _assert_identical(got, want)
    assert "out=" in code


def test_small_and_unknown_shapes_are_not_rewritten():
    def f(x):
        return tf.tanh(x * 2.0 + 1.0) - x

    small = tf.function(f).get_concrete_function(tf.TensorSpec([64], tf.float32)).code
    unknown = tf.function(f).get_concrete_function(tf.TensorSpec([None], tf.float32)).code
    big = tf.function(f).get_concrete_function(tf.TensorSpec([8192], tf.float32)).code
    assert "out=" not in small and "out=" not in unknown
    assert "np.add(mul, _c" in big and "out=mul)" in big


def test_scalar_results_are_not_buffers(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)  # NumPy returns scalars for 0-d ufunc results

    def make():
        return tf.function(lambda x: tf.tanh(x * 2.0 + 1.0) - x)

    got, want, code = _both(make, tf.constant(0.75))
    _assert_identical(got, want)
    assert "out=" not in code


def test_broadcast_results_need_a_buffer_of_their_full_shape(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)

    def make():
        @tf.function
        def f(col, row):
            a = col * 2.0  # [5, 1]: dies in a [5, 7] result, which it cannot hold
            b = a + row
            c = tf.exp(b)  # b dies here: same shape and dtype, written in place
            return c * 0.5

        return f

    col = tf.constant(RNG.random((5, 1)).astype(np.float32))
    row = tf.constant(RNG.random((7,)).astype(np.float32))
    got, want, code = _both(make, col, row)
    _assert_identical(got, want)
    assert "out=a" not in code.replace("out=add", "") and "np.exp(add, out=add)" in code


def test_dtypes_must_match_exactly(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)

    def make():
        @tf.function
        def f(x):
            y = x * 3.0
            z = y > 1.0  # bool: y's buffer does not fit
            w = tf.cast(tf.logical_not(z), tf.float32)  # LogicalNot writes into z
            d = tf.cast(x, tf.float64) * 2.0
            return w + y, d + 1.0

        return f

    got, want, code = _both(make, tf.constant(RNG.random((3, 4)).astype(np.float32)))
    _assert_identical(got, want)
    assert "np.logical_not(Greater, out=Greater)" in code
    assert "out=mul)" in code and "np.greater(mul" not in code


def test_outputs_views_and_identity_keep_their_values(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)

    def make():
        @tf.function
        def f(x):
            a = x + 1.0
            view = tf.reshape(a, [-1])  # a view of a, read at the end
            b = tf.tanh(a)  # a's last direct read: still never written
            out = b * 2.0  # an output
            c = tf.exp(out)  # out's last read: never written
            d = c * 3.0 + 1.0  # c and its successors are private
            return out, tf.reshape(view, [3, 4]) + d, tf.identity(d)

        return f

    got, want, code = _both(make, tf.constant(RNG.random((3, 4)).astype(np.float32)))
    _assert_identical(got, want)
    assert "out=Exp)" in code  # c (Exp) is written in place
    assert "out=add)" not in code and "out=mul)" not in code


def test_captures_and_variables_are_never_written(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)
    big = tf.constant(RNG.random((4, 5)).astype(np.float32))
    v = tf.Variable(RNG.random((4, 5)).astype(np.float32))
    big_before, v_before = big.numpy().copy(), v.numpy().copy()

    def make():
        @tf.function
        def f(x):
            r = v.read_value()
            y = (x + big) * r  # big and r are not the graph's to write
            v.assign(y)  # y is stored: never written afterwards
            z = y * 2.0
            return tf.exp(z) - big

        return f

    x = tf.constant(RNG.random((4, 5)).astype(np.float32))
    got = make()(x).numpy()
    after_codegen = v.numpy().copy()
    v.assign(v_before)
    saved = compiled.default_executor
    compiled.default_executor = "interpreter"
    try:
        want = make()(x).numpy()
    finally:
        compiled.default_executor = saved
    _assert_identical(got, want)
    _assert_identical(after_codegen, v.numpy())
    np.testing.assert_array_equal(big.numpy(), big_before)
    np.testing.assert_array_equal(after_codegen, (x.numpy() + big_before) * v_before)
    code = make().get_concrete_function(x).code
    assert "np.exp(mul_1, out=mul_1)" in code


def test_loop_and_branch_bodies_match_the_interpreter(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)

    def make():
        @tf.function
        def f(x, n):
            ta = tf.TensorArray(tf.float32, size=n)
            for i in tf.range(n):
                y = tf.tanh(x * 1.5 + 0.25) - x / 3.0
                y = tf.sqrt(tf.abs(y)) + 0.1
                item = y * 2.0
                ta = ta.write(i, item)  # the item is kept by the array: never written
                x = y * 0.9 + y
            if tf.reduce_sum(x) > 0:
                z = tf.exp(x * 0.5) * 2.0 - 1.0
            else:
                z = -x
            return x, z, ta.stack()

        return f

    x = tf.constant(RNG.uniform(-1, 1, (3, 4)).astype(np.float32))
    got, want, code = _both(make, x, tf.constant(5))
    _assert_identical(got, want)
    assert code.count("out=") >= 4 and "while True:" in code


def test_function_gradients_match_the_interpreter(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", 1)

    def grads(executor):
        saved = compiled.default_executor
        compiled.default_executor = executor
        try:
            f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x * 2.0 + 1.0) * tf.exp(-x)))
            x = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
            with tf.GradientTape() as tape:
                y = f(x)
            return y.numpy(), tape.gradient(y, x).numpy()
        finally:
            compiled.default_executor = saved

    _assert_identical(grads("codegen"), grads("interpreter"))


def _five_steps(x):
    """30 elementwise ops: three 4 MB temporaries live at once when each op allocates."""
    for _ in range(5):
        t = tf.tanh(x * 1.01 + 0.5) - x / 3.0
        x = tf.sqrt(tf.abs(tf.maximum(t, -0.5)))
    return x


def test_peak_memory_of_a_long_chain_on_one_million_values():
    n = 1 << 20

    chain = tf.function(_five_steps)
    xn = RNG.uniform(-1, 1, n).astype(np.float32)
    x = tf.constant(xn)
    chain(x)
    tracemalloc.start()
    try:
        out = chain(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Fresh arrays for every op hold three 4 MB arrays at once (x * 1.01 + 0.5, x / 3 and their
    # difference); evaluated in blocks, only the result is a full array (the input is not
    # counted), the blocks' few buffers are 128 KB each.
    assert peak < 1.5 * 4 * n
    code = chain.get_concrete_function(x).code  # 30 ops on 1M values: blocks run on threads
    assert "_blocks(run_block, 1048576, 32768, " in code and "out=scratch[0])" in code
    y = xn
    for _ in range(5):
        y = np.sqrt(np.abs(np.maximum(np.tanh(y * np.float32(1.01) + np.float32(0.5))
                                      - y / np.float32(3.0), np.float32(-0.5))))
    np.testing.assert_array_equal(out.numpy(), y)


def test_peak_memory_without_blocks(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BLOCK_OPS", 1 << 30)
    n = 1 << 20

    chain = tf.function(_five_steps)
    x = tf.constant(RNG.uniform(-1, 1, n).astype(np.float32))
    chain(x)
    tracemalloc.start()
    try:
        chain(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * 4 * n  # buffer reuse alone: two buffers carry the chain
