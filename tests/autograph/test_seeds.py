"""The AutoGraph examples of the tf.function guides (shared/seeds) do what the guides show."""

import numpy as np

import tensortrace as tf


def _op_types(graph):
    return [op.type for op in graph.get_operations()]


# --- "Better performance with tf.function" / chapter 1: conditional_function ----------------------
@tf.function
def conditional_function(x):
    if tf.reduce_sum(x) > 0:
        # This branch uses tf.abs
        return tf.abs(x)
    else:
        # This branch uses tf.square
        return tf.square(x)


def test_conditional_function():
    assert str(conditional_function(tf.constant([1, 2, -1]))) == \
        "tf.Tensor([1 2 1], shape=(3,), dtype=int32)"
    assert str(conditional_function(tf.constant([-1, -2, 1]))) == \
        "tf.Tensor([1 4 1], shape=(3,), dtype=int32)"
    assert conditional_function.experimental_get_tracing_count() == 1
    graph = conditional_function.get_concrete_function(tf.constant([1, 2, -1])).graph
    assert "StatelessIf" in _op_types(graph)


# --- "Introduction to graphs": simple_relu ------------------------------------------------------
def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def test_simple_relu():
    tf_simple_relu = tf.function(simple_relu)
    assert tf_simple_relu(tf.constant(1)).numpy() == 1
    assert tf_simple_relu(tf.constant(-1)).numpy() == 0
    code = tf.autograph.to_code(simple_relu)
    assert code.splitlines()[0] == "def tf__simple_relu(x):"
    assert "ag__.if_stmt" in code
    ops = [node.op for node in
           tf_simple_relu.get_concrete_function(tf.constant(1)).graph.as_graph_def().node]
    assert "Placeholder" in ops and "StatelessIf" in ops


# --- "Better performance with tf.function": fizzbuzz ---------------------------------------------
@tf.function
def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print('Tracing for loop')
        if i % 15 == 0:
            print('Tracing fizzbuzz branch')
            tf.print('fizzbuzz')
        elif i % 3 == 0:
            print('Tracing fizz branch')
            tf.print('fizz')
        elif i % 5 == 0:
            print('Tracing buzz branch')
            tf.print('buzz')
        else:
            print('Tracing default branch')
            tf.print(i)


def _fizzbuzz(n):
    return ["fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0 else "buzz" if i % 5 == 0
            else str(i) for i in range(1, n + 1)]


def test_fizzbuzz_traces_each_branch_once_and_prints_every_iteration(capfd):
    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(20))
    out, err = capfd.readouterr()
    assert out.splitlines() == ["Tracing for loop", "Tracing fizzbuzz branch",
                                "Tracing fizz branch", "Tracing buzz branch",
                                "Tracing default branch"]
    assert err.splitlines() == _fizzbuzz(5) + _fizzbuzz(20)
    graph = fizzbuzz.get_concrete_function(tf.constant(5)).graph
    assert "While" in _op_types(graph)


# --- "Better performance with tf.function": the tanh while loop ---------------------------------
@tf.function
def tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


def test_while_loop_prints_each_iteration(capfd):
    start = np.array([0.35, 0.15, 0.8, 0.4, 0.95], np.float32)
    x, iterations = start, 0
    while x.sum() > 1:
        x = np.tanh(x)
        iterations += 1
    result = tanh_loop(tf.constant(start))
    np.testing.assert_allclose(result.numpy(), x, rtol=1e-5)
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == iterations == 26
    assert lines[0] == "[0.35 0.15 0.8 0.4 0.95]"
    code = tf.autograph.to_code(tanh_loop.python_function)
    assert code.splitlines()[0] == "def tf__tanh_loop(x):"
    assert "ag__.while_stmt" in code
    assert [op.type for op in tanh_loop.get_concrete_function(tf.constant(start)).graph
            .get_operations()] == ["Placeholder", "While", "Identity"]


# --- "Better performance with tf.function": dynamic_rnn with a TensorArray ----------------------
batch_size, seq_len, feature_size = 2, 3, 4


def rnn_step(inp, state):
    return inp + state


@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]

    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


def test_dynamic_rnn_accumulates_in_a_tensor_array():
    data = np.arange(batch_size * seq_len * feature_size, dtype=np.float32).reshape(
        batch_size, seq_len, feature_size) / 8
    result = dynamic_rnn(rnn_step, tf.constant(data), tf.zeros([batch_size, feature_size]))
    assert result.shape == (batch_size, seq_len, feature_size)
    np.testing.assert_allclose(result.numpy(), np.cumsum(data, axis=1))


# --- "Better performance with tf.function": looping over Python data ----------------------------
def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    return len(g.as_graph_def().node)


@tf.function
def train(dataset):
    loss = tf.constant(0)
    for x, y in dataset:
        loss += tf.abs(y - x)  # Some dummy computation.
    return loss


def test_python_list_unrolls_but_tensor_loop_does_not():
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    small, big = measure_graph_size(train, small_data), measure_graph_size(train, big_data)
    assert big > small  # one copy of the body per Python element
    small_t = measure_graph_size(train, tf.constant(small_data))
    big_t = measure_graph_size(train, tf.constant(big_data))
    assert small_t == big_t < small  # one graph loop, whatever the length
    assert train([(1, 3), (5, 2)]).numpy() == 5
    assert train(tf.constant([(1, 3), (5, 2)])).numpy() == 5


# --- "Better performance with tf.function": to_code ---------------------------------------------
def test_to_code_shows_the_generated_loop():
    code = tf.autograph.to_code(tanh_loop.python_function)
    assert code == """\
def tf__tanh_loop(x):
    with ag__.FunctionScope('tanh_loop', 'fscope', ag__.ConversionOptions(recursive=True,\
 user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:
        do_return = False
        retval_ = ag__.UndefinedReturnValue()

        def get_state():
            return (x,)

        def set_state(vars_):
            nonlocal x
            x, = vars_

        def loop_body():
            nonlocal x
            ag__.converted_call(ag__.ld(tf).print, (ag__.ld(x),), None, fscope)
            x = ag__.converted_call(ag__.ld(tf).tanh, (ag__.ld(x),), None, fscope)

        def loop_test():
            return ag__.converted_call(ag__.ld(tf).reduce_sum, (ag__.ld(x),), None, fscope) > 1
        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), {})
        try:
            do_return = True
            retval_ = ag__.ld(x)
        except:
            do_return = False
            raise
        return fscope.ret(retval_, do_return)
"""
