"""tf.compat.v1.sparse_placeholder and placeholder_with_default build TF 2.21's graph nodes
(names, op types, dtypes, shapes and the GraphDef attrs TF writes); map_fn reads a traced
SparseTensor row by row (Keras' sparse batched matmul)."""

import numpy as np
import pytest

import tensortrace as tf


def _traced(build):
    seen = {}

    @tf.function
    def f():
        seen.update(build())
        return tf.constant(0)

    return f.get_concrete_function().graph, seen


def _nodes(sparse):
    return [(t.name, t.op.type, t.shape.as_list() if t.shape.rank is not None else None,
             t.dtype.name, [i.name for i in t.op.inputs])
            for t in (sparse.values, sparse.indices, sparse.dense_shape)]


def test_sparse_placeholder_nodes_as_tf():
    graph, seen = _traced(lambda: {
        "a": tf.compat.v1.sparse_placeholder(tf.float32, shape=(None, 3, 3)),
        "b": tf.compat.v1.sparse_placeholder(tf.int64, shape=[2, None], name="sp"),
        "c": tf.compat.v1.sparse_placeholder("float32")})
    a, b, c = seen["a"], seen["b"], seen["c"]
    # what TF 2.21 prints for the same calls in a graph
    assert a.shape.as_list() == [None, 3, 3] and a.dtype == tf.float32
    assert _nodes(a) == [
        ("Placeholder:0", "Placeholder", [None], "float32", []),
        ("Placeholder_1:0", "Placeholder", [None, 3], "int64", []),
        ("PlaceholderWithDefault:0", "PlaceholderWithDefault", [3], "int64", ["Const:0"])]
    assert b.shape.as_list() == [2, None]
    assert _nodes(b) == [
        ("sp/values:0", "Placeholder", [None], "int64", []),
        ("sp/indices:0", "Placeholder", [None, 2], "int64", []),
        ("sp/shape:0", "PlaceholderWithDefault", [2], "int64", ["sp/shape_default:0"])]
    assert c.shape.rank is None
    assert _nodes(c) == [
        ("Placeholder_3:0", "Placeholder", [None], "float32", []),
        ("Placeholder_4:0", "Placeholder", [None, None], "int64", []),
        ("Placeholder_2:0", "Placeholder", [None], "int64", [])]
    default = graph.get_operation_by_name("sp/shape_default")
    np.testing.assert_array_equal(default.attrs["value"], np.array([2, -1], np.int64))
    assert tf.get_static_value(b.dense_shape) is None  # it may be fed


def test_sparse_placeholder_graph_def():
    pytest.importorskip("google.protobuf")
    graph, _ = _traced(lambda: {"b": tf.compat.v1.sparse_placeholder(tf.int64, [2, None], "sp")})
    node = next(n for n in graph.as_graph_def().node if n.name == "sp/shape")
    # TF 2.21's GraphDef: input "sp/shape_default", attrs shape [2] and dtype DT_INT64 only
    assert node.op == "PlaceholderWithDefault" and list(node.input) == ["sp/shape_default"]
    assert sorted(node.attr) == ["dtype", "shape"]
    assert [d.size for d in node.attr["shape"].shape.dim] == [2]
    assert node.attr["dtype"].type == 9  # DT_INT64


def test_sparse_placeholder_eagerly():
    with pytest.raises(RuntimeError, match="`sparse_placeholder` is not compatible with eager"):
        tf.compat.v1.sparse_placeholder(tf.float32)


def test_placeholder_with_default():
    # eagerly the input itself (TF checks no shape there)
    np.testing.assert_array_equal(
        tf.compat.v1.placeholder_with_default([1.0, 2.0], shape=[3]).numpy(), [1.0, 2.0])
    out = tf.function(lambda x: tf.compat.v1.placeholder_with_default(x, [None]))(
        tf.constant([1.0, 5.0]))
    np.testing.assert_array_equal(out.numpy(), [1.0, 5.0])
    with tf.GradientTape() as tape:
        x = tf.constant([1.0, 2.0])
        tape.watch(x)
        y = tf.reduce_sum(tf.raw_ops.PlaceholderWithDefault(input=x * x, shape=[2]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_placeholder_with_default_shape_errors():
    messages = {}

    def build():
        t = tf.compat.v1.placeholder_with_default(tf.constant([[1.0, 2.0]]), [None, 2])
        for key, shape in (("dim", [3]), ("rank", [None, 2])):
            with pytest.raises(ValueError) as e:
                tf.compat.v1.placeholder_with_default(tf.constant([1, 2]), shape=shape)
            messages[key] = str(e.value)
        return {"t": t}

    _, seen = _traced(build)
    assert seen["t"].shape.as_list() == [None, 2]  # the attr's shape, not the input's
    # TF 2.21's shape function texts (node names aside)
    assert messages["dim"].startswith(
        "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3]. for "
        "'{{node PlaceholderWithDefault}} = PlaceholderWithDefault[dtype=DT_INT32, shape=[3]](")
    assert messages["rank"].startswith("Shapes must be equal rank, but are 1 and 2 for '{{node "
                                       "PlaceholderWithDefault}} = PlaceholderWithDefault[dtype="
                                       "DT_INT32, shape=[?,2]](")
    assert messages["rank"].endswith(")' with input shapes: [2].")


def test_map_fn_over_a_traced_sparse_tensor():
    dense = np.array([[[1, 0], [0, 2]], [[0, 3], [4, 0]], [[0, 0], [0, 5]]], np.float32)
    other = np.arange(12, dtype=np.float32).reshape(3, 2, 2)

    @tf.function
    def f(a, b):
        return tf.map_fn(lambda x: tf.sparse.sparse_dense_matmul(x[0], x[1]), elems=(a, b),
                         fn_output_signature=tf.float32)

    out = f(tf.sparse.from_dense(dense), tf.constant(other))
    np.testing.assert_allclose(out.numpy(), np.matmul(dense, other))
