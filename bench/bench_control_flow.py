"""Graph control flow costs: a tf.function holding a While op against the same loop in plain
NumPy (and TensorFlow when the interpreter has it). Run: python bench/bench_control_flow.py."""

import numpy as np
from _timing import load_jax, load_tensorflow, median_time, paired_ratio, report

import tensortrace as tt

TF = load_tensorflow()
JAX = load_jax()


JIT_RATIOS = {}  # jit_compile=True and jax.jit against the NumPy path, where JAX is installed


def tanh_loop():
    """The guide's ``while tf.reduce_sum(x) > 1: x = tf.tanh(x)`` (tf.print removed)."""

    def make(lib):
        @lib.function
        def f(x):
            return lib.while_loop(lambda x: lib.reduce_sum(x) > 1, lambda x: (lib.tanh(x),),
                                  [x])[0]
        return f

    def numpy_loop(x):
        while np.sum(x) > 1:
            x = np.tanh(x)
        return x

    xn = np.full(5, 0.34, np.float32)  # 25 iterations bring the sum from 1.7 to below 1
    steps, x = 0, xn
    while np.sum(x) > 1:
        x, steps = np.tanh(x), steps + 1
    @tt.function
    def autograph(x):
        while tt.reduce_sum(x) > 1:
            x = tt.tanh(x)
        return x

    f, x = make(tt), tt.constant(xn)
    np.testing.assert_allclose(f(x).numpy(), numpy_loop(xn), rtol=1e-6)
    np.testing.assert_allclose(autograph(x).numpy(), numpy_loop(xn), rtol=1e-6)
    rows = [("numpy", median_time(lambda: numpy_loop(xn))),
            ("tensortrace function", median_time(lambda: f(x))),
            ("tensortrace autograph", median_time(lambda: autograph(x)))]
    if JAX:
        jit = tt.function(f.python_function, jit_compile=True)
        np.testing.assert_allclose(jit(x).numpy(), numpy_loop(xn), rtol=1e-5)
        jnp = JAX.numpy
        ref = JAX.jit(lambda x: JAX.lax.while_loop(lambda x: jnp.sum(x) > 1, jnp.tanh, x))
        rows += [("tensortrace jit_compile", median_time(lambda: jit(x))),
                 ("jax.jit", median_time(lambda: np.asarray(ref(xn))))]
        JIT_RATIOS["tanh while loop: jit_compile / function (target 0.33)"] = \
            paired_ratio(lambda: jit(x), lambda: f(x))
        JIT_RATIOS["tanh while loop: jax.jit / function"] = \
            paired_ratio(lambda: np.asarray(ref(xn)), lambda: f(x))
        JIT_RATIOS["tanh while loop: jit_compile / jax.jit (target 1.5)"] = \
            paired_ratio(lambda: jit(x), lambda: np.asarray(ref(xn)))
    if TF:
        g, y = make(TF), TF.constant(xn)
        rows.append(("tensorflow function", median_time(lambda: g(y))))
    report(f"while reduce_sum(x) > 1: x = tanh(x)   ({steps} iterations on 5 floats)", rows)
    return paired_ratio(lambda: f(x), lambda: numpy_loop(xn))


def dynamic_rnn():
    """The guide's dynamic_rnn with rnn_step = inp + state, written with tf.while_loop and
    TensorArrays: batch 8, 100 steps, 64 features."""

    def make(lib):
        @lib.function
        def rnn(input_data, initial_state):
            input_data = lib.transpose(input_data, [1, 0, 2])  # [time, batch, features]
            n = input_data.shape[0]
            inputs = lib.TensorArray(lib.float32, size=n).unstack(input_data)
            states = lib.TensorArray(lib.float32, size=n)

            def body(i, state, states):
                state = inputs.read(i) + state
                return i + 1, state, states.write(i, state)

            _, _, states = lib.while_loop(lambda i, state, states: i < n, body,
                                          [0, initial_state, states])
            return lib.transpose(states.stack(), [1, 0, 2])
        return rnn

    def numpy_rnn(input_data, state):
        input_data = np.transpose(input_data, [1, 0, 2])
        states = []
        for i in range(input_data.shape[0]):
            state = input_data[i] + state
            states.append(state)
        return np.transpose(np.stack(states), [1, 0, 2])

    rng = np.random.default_rng(0)
    xn = rng.random((8, 100, 64), dtype=np.float32)
    sn = np.zeros((8, 64), np.float32)
    f, x, s = make(tt), tt.constant(xn), tt.constant(sn)
    np.testing.assert_allclose(f(x, s).numpy(), numpy_rnn(xn, sn), rtol=1e-5)
    rows = [("numpy", median_time(lambda: numpy_rnn(xn, sn))),
            ("tensortrace function", median_time(lambda: f(x, s)))]
    if JAX:
        jit = tt.function(f.python_function, jit_compile=True)
        np.testing.assert_allclose(jit(x, s).numpy(), numpy_rnn(xn, sn), rtol=1e-5)
        jnp = JAX.numpy

        def jax_rnn(inputs, state):
            inputs = jnp.transpose(inputs, [1, 0, 2])
            states = jnp.zeros_like(inputs)

            def body(carry):
                i, state, states = carry
                state = inputs[i] + state
                return i + 1, state, states.at[i].set(state)

            _, _, states = JAX.lax.while_loop(lambda c: c[0] < inputs.shape[0], body,
                                              (0, state, states))
            return jnp.transpose(states, [1, 0, 2])

        ref = JAX.jit(jax_rnn)
        rows += [("tensortrace jit_compile", median_time(lambda: jit(x, s))),
                 ("jax.jit", median_time(lambda: np.asarray(ref(xn, sn))))]
        JIT_RATIOS["dynamic_rnn: jit_compile / function (target 0.87)"] = \
            paired_ratio(lambda: jit(x, s), lambda: f(x, s))
        JIT_RATIOS["dynamic_rnn: jax.jit / function"] = \
            paired_ratio(lambda: np.asarray(ref(xn, sn)), lambda: f(x, s))
        JIT_RATIOS["dynamic_rnn: jit_compile / jax.jit (target 1.5)"] = \
            paired_ratio(lambda: jit(x, s), lambda: np.asarray(ref(xn, sn)))
    if TF:
        g, y, t = make(TF), TF.constant(xn), TF.constant(sn)
        rows.append(("tensorflow function", median_time(lambda: g(y, t))))
    a = seed_rnn(tt)
    np.testing.assert_allclose(a(rnn_step, x, s).numpy(), numpy_rnn(xn, sn), rtol=1e-5)
    rows.append(("tensortrace autograph", median_time(lambda: a(rnn_step, x, s))))
    if TF:
        b = seed_rnn(TF)
        rows.append(("tensorflow autograph", median_time(lambda: b(rnn_step, y, t))))
    report("dynamic_rnn, rnn_step = inp + state (batch 8, 100 steps, 64 features)", rows)
    return (paired_ratio(lambda: f(x, s), lambda: numpy_rnn(xn, sn)),
            paired_ratio(lambda: a(rnn_step, x, s), lambda: numpy_rnn(xn, sn)))


def rnn_step(inp, state):
    return inp + state


def seed_rnn(lib):
    """The guide's dynamic_rnn exactly: a ``for i in tf.range`` loop AutoGraph converts."""

    @lib.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = lib.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = lib.TensorArray(lib.float32, size=max_seq_len)
        state = initial_state
        for i in lib.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return lib.transpose(states.stack(), [1, 0, 2])

    return dynamic_rnn


if __name__ == "__main__":
    loop, autograph = dynamic_rnn()
    ratios = {"tanh while loop (target 1.5x)": tanh_loop(),
              "dynamic_rnn while_loop (1.3x)": loop,
              "dynamic_rnn autograph (1.3x)": autograph}
    print()
    for name, r in ratios.items():
        print(f"{name:<32} tensortrace / numpy = {r:.2f}x (median of paired runs)")
    for name, r in JIT_RATIOS.items():
        print(f"{name:<54} {r:.2f}x (median of paired runs)")
