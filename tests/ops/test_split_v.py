"""SplitV takes its sizes as an input tensor, as TF 2.21's does: ``tf.split`` with sizes computed
inside a traced function, the shapes TF's shape function gives, TF's kernel errors and Tlen
dtypes, TF's GraphDef node, gradients, and XLA (the sizes needed when compiling). The texts
and shapes are what TF 2.21 printed for the same calls."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor.compiled import compile_graph
from tensortrace.graph import function_def

X = np.arange(12, dtype=np.float32).reshape(2, 6)
SIX = tf.ones([6, 3])
DETERMINED = ("Determined shape must either match input shape along split_dim exactly if fully "
              "specified, or be less than the size of the input along split_dim if not fully "
              "specified.  Got: {}")


def _with_traced_sizes(x, a):
    return tf.split(x, tf.concat([a, [2]], 0), axis=1)


def test_sizes_computed_in_a_function():
    shapes = []

    @tf.function
    def f(x, a):
        parts = _with_traced_sizes(x, a)
        shapes.append([p.shape.as_list() for p in parts])
        return parts

    got = f(tf.constant(X), tf.constant([1, 3]))
    assert shapes == [[[2, None]] * 3]  # TF: the sizes' values are not known when tracing
    for g, want in zip(got, np.split(X, [1, 4], axis=1)):
        np.testing.assert_array_equal(g.numpy(), want)
    got = f(tf.constant(X), tf.constant([4, 0]))  # other sizes, the same trace
    assert [g.shape.as_list() for g in got] == [[2, 4], [2, 0], [2, 2]]
    assert len(shapes) == 1


def test_shapes_from_known_sizes_and_an_unknown_length():
    @tf.function
    def known(x):
        return tf.split(x, tf.constant([1, -1]), axis=0)

    cf = known.get_concrete_function(tf.TensorSpec([None, 3]))
    assert [t.shape.as_list() for t in cf.outputs] == [[1, 3], [None, 3]]

    @tf.function
    def unknown(x, s):
        return tf.split(x, s)

    with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape"):
        unknown.get_concrete_function(tf.TensorSpec([6, 3]), tf.TensorSpec([None], tf.int32))
    cf = unknown.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([3], tf.int32))
    assert [t.shape.as_list() for t in cf.outputs] == [[None, 3]] * 3


@pytest.mark.parametrize("sizes, message", [
    ([1, 2, 4], DETERMINED.format(7)),
    ([1, -1, -1], "There can only be one -1 in the input."),
    ([-2, 4, 4], "Split size at index 0 must be >= 0. Got: -2"),
    ([7, -1, 1], DETERMINED.format(8)),
])
def test_kernel_errors_eagerly_and_in_a_function(sizes, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.split(SIX, tf.constant(sizes))
    assert info.value.message == (
        "{{function_node __wrapped__SplitV_num_split_3_device_/job:localhost/replica:0/task:0/"
        f"device:CPU:0}}}} {message} [Op:SplitV] name: split")
    f = tf.function(lambda x, s: tf.split(x, s))
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        f(SIX, tf.constant(sizes))


def test_one_output_and_malformed_sizes():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="If there is only one output, it must have the same size as the "
                             "input. Input size: 6 output size: -1"):
        tf.split(SIX, [-1])
    assert [p.shape.as_list() for p in tf.split(SIX, [6])] == [[6, 3]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="size of the split_tensor must be 1-D and have the same elements "
                             "as outputs got 2 -D and 2 elements"):
        tf.split(SIX, [[1, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="size of the split_tensor must be 1-D and have the same elements "
                             "as outputs got 1 -D and 2 elements"):
        tf.split(SIX, [1, 5], num=3)
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported as the "
                                         "num_or_size_splits argument to split. Argument "
                                         "provided: 2"):
        tf.split(SIX, np.array(2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Value for attr 'num_split' of 0 must be at least minimum 1"):
        tf.split(SIX, [])


@pytest.mark.parametrize("dtype", [tf.int8, tf.int32, tf.int64])
def test_size_dtypes(dtype):
    parts = tf.split(SIX, tf.constant([1, 5], dtype))
    assert [p.shape.as_list() for p in parts] == [[1, 3], [5, 3]]


@pytest.mark.parametrize("dtype", [tf.int16, tf.uint8, tf.float32])
def test_other_size_dtypes_are_refused(dtype):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"Value for attr 'Tlen' of {dtype.name.replace('float32', 'float')}"
                             " is not in the list of allowed values: int8, int32, int64"):
        tf.split(SIX, tf.constant([1, 5], dtype))
    f = tf.function(lambda x: tf.split(x, tf.constant([1, 5], dtype)))
    with pytest.raises(TypeError, match="Value passed to parameter 'size_splits' has DataType "
                                        f"{dtype.name} not in list of allowed values: int8, "
                                        "int32, int64"):
        f(SIX)


def test_graph_def_node_is_tfs_and_reads_back():
    f = tf.function(_with_traced_sizes)
    cf = f.get_concrete_function(tf.TensorSpec([2, 6]), tf.TensorSpec([2], tf.int32))
    gd = cf.graph.as_graph_def()
    node = next(n for n in gd.node if n.op == "SplitV")
    assert list(node.input) == ["x", "concat", "split/split_dim"]  # TF's three inputs
    assert node.attr["num_split"].i == 3
    assert node.attr["Tlen"].type == tf.int32.as_datatype_enum
    assert node.attr["T"].type == tf.float32.as_datatype_enum
    graph = function_def.graph_def_to_graph(type(gd).FromString(gd.SerializeToString()), "g")
    graph.inputs = [graph.get_tensor_by_name(t.name) for t in cf.graph.inputs]
    graph.outputs = [graph.get_tensor_by_name(t.name) for t in cf.graph.outputs]
    got = compile_graph(graph, "g")(X, np.array([2, 2], np.int32))
    for g, want in zip(got, np.split(X, [2, 4], axis=1)):
        np.testing.assert_array_equal(g, want)


def test_gradient_with_traced_sizes():
    @tf.function
    def grad(x, a):
        with tf.GradientTape() as tape:
            tape.watch(x)
            first, _, last = _with_traced_sizes(x * 2.0, a)
            loss = tf.reduce_sum(first * 3.0) + tf.reduce_sum(last)
        return tape.gradient(loss, x)

    want = np.zeros_like(X)
    want[:, :1], want[:, 4:] = 6.0, 2.0  # d(3 * 2x)/dx in the first piece, d(2x)/dx in the last
    np.testing.assert_array_equal(grad(tf.constant(X), tf.constant([1, 3])).numpy(), want)


def test_xla_compiles_sizes_that_fold_and_refuses_looped_ones():
    pytest.importorskip("jax")

    @tf.function(jit_compile=True)
    def folded(x):
        return tf.split(x, tf.concat([tf.constant([1, 3]), [2]], 0), axis=1)

    for g, want in zip(folded(tf.constant(X)), np.split(X, [1, 4], axis=1)):
        np.testing.assert_array_equal(g.numpy(), want)

    @tf.function(jit_compile=True)
    def looped(x, n):  # TF 2.21: the same error
        _, first = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1), (0, 0))
        return tf.split(x, tf.stack([first, 3 - first]))

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input 1 to node `split` with op SplitV must be a compile-time "
                             "constant"):
        looped(tf.ones([3]), tf.constant(2))


def test_xla_compiles_sizes_from_arguments_per_value():
    """TF compiles a jit function whose arguments decide a compile-time input for their values
    (again for new values): Keras' ``split`` under jit_compile computes the sizes from the
    indices it is passed."""
    pytest.importorskip("jax")
    compiles = []

    @tf.function(jit_compile=True)
    def keras_like(x, indices):
        sizes = tf.concat([indices[0:1], indices[1:] - indices[:-1],
                           x.shape[1] - indices[-1:]], axis=0)
        return tf.split(x, sizes, axis=1)

    @tf.function(jit_compile=True)
    def reshaped(x, shape):
        compiles.append(shape)
        return tf.reshape(x, shape) * 2.0

    for indices in ([1, 2], [2, 5], [1, 2]):
        got = keras_like(tf.constant(X), tf.constant(indices))
        want = np.split(X, indices, axis=1)
        assert [g.shape.as_list() for g in got] == [list(w.shape) for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    for shape in ([3, 4], [4, 3], [12]):
        np.testing.assert_array_equal(reshaped(tf.constant(X), tf.constant(shape)).numpy(),
                                      X.reshape(shape) * 2.0)
    assert len(compiles) == 2  # traced once per argument rank; compiled per value
