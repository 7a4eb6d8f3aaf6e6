"""Every node an export writes is a node TF 2.21 can build: its op type is in TF's registry (the
op table made from it) or a function of the library, it has every attr TF's op requires and no
attr TF's op lacks (ours travel under an underscore name TF ignores), and as many inputs as TF's
signature takes. Our fused ops (Tensordot, SumToShape, StringBytesSplit, Gelu ...) are written
as the ops TF composes; exported graphs re-import to the same values."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.executor.compiled import compile_graph
from tensortrace.graph import tf_attrs
from tensortrace.graph.function_def import function_def_to_graph
from tensortrace.graph.graph_def import graph_to_function_def, graph_to_graph_def
from tensortrace.ops.array.broadcasting import sum_to_shape
from tests.saving import corpus
from tests.saving.runner import Ref, _argument

F32 = np.float32
RNG = np.random.default_rng(5)


def check_node(node, functions, where):
    sig = tf_attrs.signature(node.op)
    assert sig is not None or node.op in functions, f"{where}: {node.op} is not a TF op"
    if sig is None:
        return
    for name, (_, has_default, _) in sig.attrs.items():
        assert has_default or name in node.attr, f"{where}: {node.op} lacks attr {name}"
    for name in node.attr:
        assert name.startswith("_") or name in sig.attrs, \
            f"{where}: {node.op} has attr {name}, which TF's op lacks"
    decoded = {k: tf_attrs.decode(node.attr[k]) for k in sig.bound if k in node.attr}
    want = sum(a.count(decoded) for a in sig.inputs)
    got = sum(1 for i in node.input if not i.startswith("^"))
    assert got == want, f"{where}: {node.op} has {got} inputs, TF's takes {want}"


def check_library(fdefs, nodes=()):
    functions = {f.signature.name for f in fdefs}
    for node in nodes:
        check_node(node, functions, "graph")
    for f in fdefs:
        for node in f.node_def:
            check_node(node, functions, f.signature.name)
    return functions


def exported(cf):
    fdef, nested = graph_to_function_def(cf.graph, "f")
    check_library([fdef, *nested])
    return fdef, nested


def _strided_assign(v, x):
    v[1:3].assign(x)
    return v.read_value()


def _loop(x):
    i = tf.constant(0)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), (i, x))
    return tf.cond(tf.reduce_sum(y) > 0, lambda: y + 1.0, lambda: y - 1.0)


A3 = RNG.normal(size=(2, 3, 4)).astype(F32)
B2 = RNG.normal(size=(4, 2)).astype(F32)
M = RNG.normal(size=(3, 3)).astype(F32)
IMG = RNG.uniform(size=(1, 4, 4, 3)).astype(F32)
WORDS = np.array([b"hello world", b"a b", b"tensortrace"], object)
OPS = {
    "tensordot": (lambda a, b: tf.tensordot(a, b, [[2], [0]]), (A3, B2)),
    "tensordot_axes": (lambda a: tf.tensordot(a, a, [[0, 2], [0, 2]]), (A3,)),
    "einsum": (lambda a, b: tf.einsum("ijk,kl->ijl", a, b), (A3, B2)),
    "gather_batch_dims": (lambda p, i: tf.gather(p, i, batch_dims=1, axis=1),
                          (A3, np.array([[0, 2], [1, 1]], np.int32))),
    "gather_nd": (lambda p: tf.gather_nd(p, [[0, 1], [1, 2]]), (A3,)),
    "sum_to_shape": (lambda x, s: sum_to_shape(x, s), (A3, np.array([1, 4], np.int32))),
    "strings": (lambda s: (tf.strings.upper(s), tf.strings.length(s),
                           tf.strings.regex_replace(s, "o", "0"), tf.strings.substr(s, 1, 3),
                           tf.strings.reduce_join(s, separator="|")), (WORDS,)),
    "bytes_split": (lambda s: tf.strings.bytes_split(s), (np.array(b"abc", object),)),
    "unicode": (lambda s: tf.strings.unicode_script(
        tf.strings.unicode_decode(s, "UTF-8").flat_values), (WORDS,)),
    "cond_while": (_loop, (np.array([1.0, -2.0], F32),)),
    "linalg": (lambda m: (tf.linalg.svd(m)[0], tf.linalg.inv(m + 3 * np.eye(3, dtype=F32)),
                          tf.linalg.trace(m), tf.linalg.matrix_transpose(m),
                          tf.norm(m), tf.linalg.det(m)), (M,)),
    "nn": (lambda x: (tf.nn.gelu(x), tf.nn.silu(x), tf.nn.moments(x, [0])[1],
                      tf.nn.l2_normalize(x, 1), tf.nn.softmax(x, axis=0),
                      tf.nn.log_softmax(x)), (M,)),
    "image": (lambda x: (tf.image.resize(x, [6, 6]), tf.image.rgb_to_hsv(x),
                         tf.image.adjust_saturation(x, 0.5), tf.image.adjust_hue(x, 0.1),
                         tf.image.resize(x, [2, 2], method="nearest"),
                         tf.image.resize(x, [5, 5], method="bicubic"),
                         tf.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                                  "VALID")), (IMG,)),
    "segments": (lambda x: (tf.math.segment_sum(x, [0, 0, 1]),
                            tf.math.unsorted_segment_max(x, [1, 0, 1], 2),
                            tf.math.bincount(tf.constant([1, 2, 2])),
                            tf.sparse.segment_sum(x, [0, 2], [0, 1])), (M,)),
    "random": (lambda s: (tf.random.stateless_uniform([2], s), tf.random.stateless_normal([3], s),
                          tf.random.stateless_truncated_normal([2], s),
                          tf.random.stateless_uniform([2], s, 0, 5, tf.int32)),
               (np.array([1, 2], np.int32),)),
    "sparse": (lambda x: tf.sparse.to_dense(tf.sparse.add(
        tf.sparse.from_dense(x), tf.sparse.from_dense(x * 2.0))), (M,)),
    "io": (lambda x: (tf.io.decode_raw(tf.io.serialize_tensor(x), tf.uint8),
                      tf.io.encode_base64(tf.strings.as_string(x))), (M,)),
    "scatter": (lambda x: tf.tensor_scatter_nd_update(x, [[0, 0]], [5.0]), (M,)),
    # TF's StringSplitV2 takes a vector, LowerBound/UpperBound matrices: rows of one
    "split_scalar": (lambda s: tf.strings.split(s, " "), (np.array(b"a bc d", object),)),
    "searchsorted": (lambda s, v: (tf.searchsorted(s, v), tf.searchsorted(s, v, "right")),
                     (np.array([1.0, 2.0, 2.0, 5.0], F32), np.array([2.0, 0.0, 6.0], F32))),
    "ragged": (lambda x: tf.reduce_sum(tf.RaggedTensor.from_row_lengths(x, [1, 2]), axis=1),
               (np.array([1.0, 2.0, 3.0], F32),)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_exported_node_is_a_tf_node(name):
    fn, args = OPS[name]
    f = tf.function(fn)
    tensors = [tf.constant(a) for a in args]
    cf = f.get_concrete_function(*tensors)
    fdef, nested = exported(cf)
    # our import of TF's form computes the same values
    graph = function_def_to_graph(fdef, nested)
    runner = tf.function(fn)
    want = [np.asarray(t) for t in tf.nest.flatten(runner(*tensors))]
    got = compile_graph(graph, "f").fn(*[np.asarray(a) for a in args])
    got = got if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w.dtype == object:
            assert np.asarray(g).tolist() == w.tolist()
        else:
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-5)


def test_variable_ops_are_tf_nodes():
    v = tf.Variable(np.zeros((4, 2), F32))
    f = tf.function(_strided_assign)
    cf = f.get_concrete_function(v, tf.constant(np.ones((2, 2), F32)))
    exported(cf)


@pytest.mark.parametrize("entry", corpus.ENTRIES, ids=[e.name for e in corpus.ENTRIES])
def test_saving_corpus_exports_tf_nodes(entry):
    module = entry.build()
    seen = []
    for path, args, kwargs in entry.warmup:
        fn = Ref(path).resolve(module)
        if not any(fn is f for f in seen):
            seen.append(fn)
        fn(*[_argument(tf, module, a) for a in args], **kwargs)
    for fn in seen:
        for cf in fn.experimental_get_concrete_functions():
            exported(cf)


def test_graph_def_nodes_are_tf_nodes():
    f = tf.function(lambda a, b: tf.tensordot(a, b, 1) + 1.0)
    graph = f.get_concrete_function(tf.constant(A3), tf.constant(B2)).graph
    gd = graph_to_graph_def(graph, strict=True)
    check_library(gd.library.function, gd.node)
    assert {"MatMul", "Reshape"} <= {n.op for n in gd.node}
