"""``jit_compile=True``: graphs compiled with XLA through JAX give the NumPy executor's values
(float tolerance); ops XLA cannot compile raise TF's InvalidArgumentError naming them."""

import subprocess
import sys
import threading

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("jax")  # the optional extra: pip install 'tensortrace[xla]'

RNG = np.random.default_rng(0)


def both(fn, *args, rtol=1e-5, atol=1e-6):
    """``fn`` as a tf.function on NumPy and with jit_compile: the same values."""
    expected = tf.function(fn)(*args)
    jitted = tf.function(fn, jit_compile=True)
    got = jitted(*args)
    for e, g in zip(tf.nest.flatten(expected), tf.nest.flatten(got)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=rtol, atol=atol)
    return jitted


def floats(*shape, dtype=np.float32):
    return tf.constant(RNG.normal(size=shape).astype(dtype))


def test_elementwise_math_matches_numpy():
    x, y = floats(3, 4), floats(3, 4)
    pos = tf.abs(x) + 0.5
    both(lambda a, b: (a + b, a - b, a * b, a / b, tf.maximum(a, b), tf.minimum(a, b),
                       tf.math.squared_difference(a, b), tf.math.atan2(a, b)), x, y)
    both(lambda a: (tf.tanh(a), tf.exp(a), tf.sin(a), tf.cos(a), tf.sigmoid(a), tf.square(a),
                    tf.abs(a), tf.sign(a), tf.floor(a), tf.math.round(a), tf.nn.softplus(a),
                    tf.math.erf(a), tf.math.expm1(a), -a), x)
    both(lambda a: (tf.sqrt(a), tf.math.rsqrt(a), tf.math.log(a), tf.math.log1p(a),
                    tf.math.lgamma(a), tf.math.reciprocal(a), a ** 1.5), pos)
    both(lambda a, b: (a < b, a >= b, tf.equal(a, b), tf.logical_and(a < 0, b < 0),
                       tf.where(a > b, a, b), tf.cast(a * 3, tf.int32)), x, y)


def test_integer_semantics_match_tf():
    a = tf.constant([7, -7, 9, -9], tf.int32)
    b = tf.constant([2, 2, -4, -4], tf.int32)
    both(lambda a, b: (a // b, a % b, tf.truncatediv(a, b), tf.truncatemod(a, b),
                       a * b + 3, tf.reduce_mean(a), tf.cast(tf.constant([-1.7, 2.7]), tf.int32)),
         a, b)


def test_float64_keeps_its_dtype():
    x = floats(5, dtype=np.float64)
    f = both(lambda a: tf.reduce_sum(a * a) + tf.constant(1e-300, tf.float64), x, rtol=1e-12)
    assert f(x).dtype == tf.float64


def test_reductions_and_arrays():
    x = floats(2, 3, 4)
    both(lambda a: (tf.reduce_sum(a, 1), tf.reduce_mean(a, [0, 2], keepdims=True),
                    tf.reduce_max(a), tf.reduce_min(a, -1), tf.reduce_prod(a, 0),
                    tf.argmax(a, 2), tf.argmin(a, 0), tf.reduce_any(a > 1),
                    tf.math.cumsum(a, 1), tf.math.cumsum(a, 2, exclusive=True, reverse=True)), x)
    both(lambda a: (tf.reshape(a, [4, -1]), tf.transpose(a, [2, 0, 1]),
                    tf.expand_dims(a, 1), tf.squeeze(a[:1]), tf.concat([a, a], 1),
                    tf.stack([a, a], -1), tf.unstack(a, axis=1), tf.tile(a, [1, 2, 1]),
                    tf.pad(a, [[0, 0], [1, 2], [0, 1]]), tf.broadcast_to(a[:, :1], [2, 5, 4]),
                    a[:, 1:, ::2], a[1, ..., -1], tf.slice(a, [0, 1, 1], [2, 2, -1]),
                    tf.gather(a, [2, 0], axis=1), tf.split(a, 2, axis=2), tf.reverse(a, [1]),
                    tf.shape(a), tf.zeros_like(a), tf.ones([2, 2]), tf.range(5),
                    tf.one_hot([0, 2], 3), tf.fill([2], 3.0)), x)


def test_nn_and_linalg():
    x, w = floats(4, 5), floats(5, 3)
    labels = tf.one_hot([0, 2, 1, 1], 3)
    both(lambda a, b: (tf.matmul(a, b), tf.matmul(a, a, transpose_b=True),
                       tf.nn.relu(a), tf.nn.relu6(a * 4), tf.nn.elu(a), tf.nn.selu(a),
                       tf.nn.leaky_relu(a), tf.nn.softmax(a), tf.nn.log_softmax(a),
                       tf.nn.bias_add(a, a[0]), tf.nn.l2_loss(a),
                       tf.nn.softmax_cross_entropy_with_logits(labels, tf.matmul(a, b)),
                       tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2, 1, 1],
                                                                      tf.matmul(a, b)),
                       tf.einsum("ij,jk->ik", a, b), tf.linalg.matmul(a[None], b[None]),
                       tf.add_n([a, a, a])), x, w)


def test_matmul_with_a_transposed_left_operand():
    """A ``transpose_a`` product (a dense layer's weight gradient, x^T @ dy) keeps the NumPy
    values for every dtype and operand kind."""
    x, dy = floats(6, 5), floats(6, 3)
    both(lambda a, b: (tf.matmul(a, b, transpose_a=True),
                       tf.matmul(a, tf.transpose(b), transpose_a=True, transpose_b=True),
                       tf.matmul(tf.nn.relu(a), b, transpose_a=True),
                       tf.matmul(tf.constant(np.arange(12.0, dtype=np.float32).reshape(3, 4)),
                                 a[:3], transpose_a=True)), x, dy)
    both(lambda a, b: tf.matmul(a, b, transpose_a=True),
         floats(4, 2, dtype=np.float64), floats(4, 3, dtype=np.float64), rtol=1e-12)
    ints = tf.constant(np.arange(12, dtype=np.int32).reshape(4, 3))
    both(lambda a: tf.matmul(a, a, transpose_a=True), ints)

    def weight_grad(a, b):
        w = tf.ones([5, 3])
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_sum(tf.matmul(a, w) * b)
        return tape.gradient(loss, w)

    f = both(weight_grad, x, dy)
    np.testing.assert_allclose(f(x, dy).numpy(), x.numpy().T @ dy.numpy(), rtol=1e-5)


def test_tensordot_and_its_gradients():
    """Keras' Dense on a rank-3 input is one Tensordot op here (TF builds MatMul from
    reshapes): it lowers, with its gradients, to the NumPy values."""
    x, w = floats(2, 3, 4), floats(4, 5)

    def dense(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.tensordot(a, b, [[2], [0]])
            loss = tf.reduce_sum(y * y)
        return (y, tf.tensordot(a, a, [[0, 1], [0, 1]]), tf.tensordot(b, tf.transpose(b), 1),
                *tape.gradient(loss, [a, b]))

    f = both(dense, x, w)
    y, _, _, dx, dw = f(x, w)
    np.testing.assert_allclose(y.numpy(), np.tensordot(x.numpy(), w.numpy(), 1), rtol=1e-5)
    np.testing.assert_allclose(dw.numpy(), 2 * np.tensordot(x.numpy(), y.numpy(), [[0, 1], [0, 1]]),
                               rtol=1e-5)


def test_convolution_and_pooling():
    image, kernel = floats(2, 6, 6, 3), floats(3, 3, 3, 4)
    both(lambda x, k: (tf.nn.conv2d(x, k, 1, "SAME"), tf.nn.conv2d(x, k, 2, "VALID"),
                       tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, 3, 2, "SAME")),
         image, kernel, rtol=1e-4, atol=1e-5)


def test_control_flow_lowers_to_lax():
    x = tf.constant(np.full(5, 0.34, np.float32))
    both(lambda x: tf.while_loop(lambda x: tf.reduce_sum(x) > 1, lambda x: (tf.tanh(x),),
                                 [x])[0], x)
    both(lambda x: tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s * 1.1), [0, x],
                                 maximum_iterations=4), x)
    both(lambda x: tf.cond(tf.reduce_sum(x) > 1, lambda: x * 2, lambda: x - 1), x)
    both(lambda x: tf.cond(tf.reduce_sum(x) > 9, lambda: x * 2, lambda: x - 1), x)
    for i in (0, 1, 5):
        both(lambda x, i: tf.switch_case(i, [lambda: x + 1, lambda: x * 3, lambda: -x]),
             x, tf.constant(i))


def test_autograph_loops_and_tensor_arrays():
    def rnn(inputs, state):
        inputs = tf.transpose(inputs, [1, 0, 2])
        states = tf.TensorArray(tf.float32, size=inputs.shape[0])
        for i in tf.range(inputs.shape[0]):
            state = inputs[i] + state
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    both(rnn, floats(2, 7, 3), floats(2, 3))

    def total(x):
        s = tf.constant(0.0)
        for v in x:
            if v > 0:
                s += v
        return s

    both(total, floats(6))


def test_variables_are_read_and_written_back():
    v = tf.Variable([1.0, 2.0])
    count = tf.Variable(0)

    @tf.function(jit_compile=True)
    def step(x):
        v.assign_add(x)
        count.assign_add(1)
        return v * 2.0

    np.testing.assert_allclose(step(tf.constant([1.0, 1.0])).numpy(), [4.0, 6.0])
    np.testing.assert_allclose(step(tf.constant([0.5, 0.5])).numpy(), [5.0, 7.0])
    np.testing.assert_allclose(v.numpy(), [2.5, 3.5])
    assert int(count.numpy()) == 2

    def body(i):
        v.assign_add([1.0, 0.0])
        return (i + 1,)

    @tf.function(jit_compile=True)
    def loop(n):
        return tf.while_loop(lambda i: i < n, body, [0])

    loop(tf.constant(3))
    np.testing.assert_allclose(v.numpy(), [5.5, 3.5])


def test_variable_created_on_first_call():
    class Model(tf.Module):
        def __init__(self):
            self.w = None

        @tf.function(jit_compile=True)
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(2.0 * x)
            return self.w * x

    m = Model()
    np.testing.assert_allclose(m(tf.constant(3.0)).numpy(), 18.0)
    np.testing.assert_allclose(m(tf.constant(1.0)).numpy(), 6.0)


def test_train_step_matches_numpy_path():
    # TF32 off: on GPUs that have it, XLA's float32 matmuls would round (as TF's do by default)
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        _train_step_matches_numpy_path()
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(True)


def _train_step_matches_numpy_path():
    rng = np.random.default_rng(1)
    w0, b0 = rng.normal(size=(8, 4)).astype(np.float32), np.zeros(4, np.float32)
    x = tf.constant(rng.normal(size=(16, 8)).astype(np.float32))
    labels = tf.one_hot(rng.integers(0, 4, 16), 4)

    def make(jit):
        w, b = tf.Variable(w0), tf.Variable(b0)

        @tf.function(jit_compile=jit)
        def step(x, labels):
            with tf.GradientTape() as tape:
                logits = tf.nn.relu(tf.matmul(x, w) + b)
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
            for var, g in zip((w, b), tape.gradient(loss, [w, b])):
                var.assign_sub(0.1 * g)
            return loss
        return step, w

    (plain, wp), (jitted, wj) = make(None), make(True)
    for _ in range(3):
        np.testing.assert_allclose(jitted(x, labels).numpy(), plain(x, labels).numpy(),
                                   rtol=1e-5)
    np.testing.assert_allclose(wj.numpy(), wp.numpy(), rtol=1e-5, atol=1e-6)


def test_gradient_of_a_jit_function_under_an_outer_tape():
    f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x) * x), jit_compile=True)
    x = floats(5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    (g,) = tape.gradient(y, [x])
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(g.numpy(), t + x.numpy() * (1 - t * t), rtol=1e-5)
    backward = f.get_concrete_function(x)._backward[0]
    assert type(backward._executable()).__name__ == "XlaCompiledGraph"


def test_unknown_dims_compile_per_shape():
    f = tf.function(lambda x: tf.reduce_sum(x * 2.0, 0) + tf.cast(tf.shape(x)[0], tf.float32),
                    input_signature=[tf.TensorSpec([None, 2], tf.float32)], jit_compile=True)
    np.testing.assert_allclose(f(tf.ones([3, 2])).numpy(), [9.0, 9.0])
    np.testing.assert_allclose(f(tf.ones([5, 2])).numpy(), [15.0, 15.0])


def test_unsupported_op_raises_tfs_error_naming_it():
    @tf.function(jit_compile=True)
    def f(x):
        tf.print(x)
        return x + 1

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(1.0))
    message = str(info.value)
    assert message.startswith("Detected unsupported operations when trying to compile graph "
                              "__inference_f_")
    assert "[_XlaMustCompile=true] on XLA_CPU_JIT: PrintV2 (No registered 'PrintV2' OpKernel " \
           "for XLA_CPU_JIT devices compatible with node {{node PrintV2}}){{node PrintV2}}" \
        in message
    tf.function(f.python_function)(tf.constant(1.0))  # the NumPy path still runs it


def test_shape_inputs_must_be_compile_time_constants():
    """TF 2.21 compiles a shape computed from the function's arguments for their values (per
    value), and refuses one a loop computes."""
    @tf.function(jit_compile=True)
    def f(x, n):
        return tf.reshape(x, [n, -1])

    assert f(tf.ones([4]), tf.constant(2)).shape == (2, 2)
    assert f(tf.ones([4]), tf.constant(4)).shape == (4, 1)

    @tf.function(jit_compile=True)
    def g(x, n):
        _, rows = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1), (0, 0))
        return tf.reshape(x, [rows, -1])

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input 1 to node `Reshape` with op Reshape must be a compile-time "
                             "constant"):
        g(tf.ones([4]), tf.constant(2))


def test_set_jit_autoclusters_and_experimental_compile():
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit("autoclustering")
    try:
        assert tf.config.optimizer.get_jit() == "autoclustering"
        f = tf.function(lambda x: x * 2.0)
        np.testing.assert_allclose(f(tf.constant(2.0)).numpy(), 4.0)
        assert type(f.get_concrete_function(tf.constant(2.0))._executable()).__name__ == \
            "XlaCompiledGraph"
        g = tf.function(lambda x: tf.strings.as_string(x))  # no lowering: runs on NumPy
        assert g(tf.constant(2)).numpy() == b"2"
        off = tf.function(lambda x: x * 2.0, jit_compile=False)
        off(tf.constant(2.0))
        assert type(off.get_concrete_function(tf.constant(2.0))._executable()).__name__ == \
            "CompiledGraph"
    finally:
        tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() == ""
    legacy = tf.function(lambda x: x + 1.0, experimental_compile=True)
    legacy(tf.constant(1.0))
    assert type(legacy.get_concrete_function(tf.constant(1.0))._executable()).__name__ == \
        "XlaCompiledGraph"


def test_core_imports_without_jax_and_jit_compile_names_the_extra():
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "import tensortrace as tf\n"
        "assert 'tensortrace.xla' not in sys.modules\n"
        "assert float(tf.function(lambda x: x * 2.0)(tf.constant(2.0))) == 4.0\n"
        "f = tf.function(lambda x: x * 2.0, jit_compile=True)\n"
        "try:\n"
        "    f(tf.constant(1.0))\n"
        "except tf.errors.InvalidArgumentError as e:\n"
        "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "pip install 'tensortrace[xla]'" in out.stdout


def test_variable_updates_from_threads_lose_nothing():
    # the compiled call reads, computes and writes back under the variables' locks
    v = tf.Variable(0.0, dtype=tf.float64)

    @tf.function(jit_compile=True)
    def inc():
        v.assign_add(1.0)

    inc()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=lambda: [inc() for _ in range(200)])
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert v.numpy() == 1 + 8 * 200


def test_channels_first_conv3d_gives_tfs_values():
    """NCDHW Conv3D runs only under XLA in TF (its CPU kernel is NDHWC-only); TF 2.21's values."""
    x = np.arange(2 * 4 * 5 * 4 * 3, dtype=np.float32).reshape(2, 4, 5, 4, 3) / 100
    k = (np.arange(2 * 2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 2, 3, 2, 4) - 20) / 50
    fn = tf.function(lambda v: tf.nn.convolution(v, k, [2, 1, 2], "VALID", data_format="NCDHW"),
                     jit_compile=True)
    y = fn(x).numpy()
    assert y.shape == (2, 4, 2, 3, 1)
    np.testing.assert_allclose(y.sum(), 1545.6577, rtol=1e-5)
    np.testing.assert_allclose(y.reshape(-1)[:6], [5.896, 6.2704, 6.6448, 8.8912, 9.2656, 9.64],
                               rtol=1e-5)
    fn = tf.function(lambda v: tf.nn.convolution(v, k, [1, 1, 1], "SAME", data_format="NCDHW",
                                                 dilations=[1, 2, 1]), jit_compile=True)
    y = fn(x).numpy()
    assert y.shape == (2, 4, 5, 4, 3)
    np.testing.assert_allclose(y.sum(), 7530.005, rtol=1e-5)
    np.testing.assert_allclose(y.reshape(-1)[:6], [2.984, 4.1504, 2.5328, 4.5664, 6.1696, 3.6256],
                               rtol=1e-5)


def test_jit_compile_keeps_the_process_jax_precision_setting():
    # 64-bit mode is scoped to our compiles and calls: the user's own JAX code (Keras' dtype
    # tests compare against it) keeps float32 defaults
    import jax
    import jax.numpy as jnp

    before = jax.config.jax_enable_x64
    f = tf.function(lambda x: x * 2.0, jit_compile=True)
    assert f(tf.constant([1.0], tf.float64)).dtype == tf.float64
    assert jax.config.jax_enable_x64 == before
    if not before:
        assert jnp.add(jnp.ones(1, "int8"), 1.0).dtype == jnp.float32
