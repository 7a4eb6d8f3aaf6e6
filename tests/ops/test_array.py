"""Shape and array ops: kernels against NumPy, infer against kernels, shapes while tracing
(including shape arguments computed in the graph) and TF's errors, pinned against TF 2.21."""

import re

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.context import bind
from tensortrace.graph.ir import Graph
from tensortrace.registry import get

from .optable import Case, rand, run_case

F = rand(2, 3, 4)
M = rand(2, 3)
I = rand(3, 4, dtype=np.int32)
C = rand(2, 3, dtype=np.complex64)
B = rand(2, 2, dtype=np.bool_)
S = np.array([b"a", b"bc", b""], dtype=object)
N = np.array(4, np.int32)  # a placeholder when traced: values computed from it have unknown shapes


def _np_pad(x, paddings, mode="CONSTANT", constant_values=0):
    if mode == "CONSTANT":
        return np.pad(x, paddings, constant_values=constant_values)
    return np.pad(x, paddings, mode=mode.lower())


CASES = [
    Case(tf.reshape, (F, [4, -1]), ref=lambda x, s: x.reshape(4, 6), id="reshape-minus-one"),
    Case(tf.reshape, (F, (24,)), ref=lambda x, s: x.reshape(24), id="reshape-tuple"),
    Case(tf.reshape, (np.array([5], np.int32), []), ref=lambda x, s: np.int32(5),
         id="reshape-to-scalar"),
    Case(tf.reshape, (F, np.array([6, 4], np.int32)), ref=lambda x, s: x.reshape(6, 4),
         dynamic_shape=True, id="reshape-shape-input"),
    Case(lambda x: tf.reshape(x, tf.constant([6, 4], tf.int64)), (F,),
         ref=lambda x: x.reshape(6, 4), id="reshape-int64-shape"),
    Case(tf.reshape, (np.zeros((0, 3), np.float32), [-1, 0]),
         ref=lambda x, s: np.zeros((3, 0), np.float32), dynamic_shape=True,
         id="reshape-empty-minus-one"),
    Case(tf.transpose, (F,), ref=np.transpose, id="transpose-default-reverses"),
    Case(tf.transpose, (F, [1, 0, 2]), ref=np.transpose, id="transpose-perm"),
    Case(tf.transpose, (F, [-1, 0, 1]), ref=lambda x, p: np.transpose(x, (2, 0, 1)),
         id="transpose-negative-perm"),
    Case(tf.transpose, (C,), {"conjugate": True}, ref=lambda x, conjugate: np.conj(x.T),
         id="transpose-conjugate"),
    Case(tf.transpose, (M,), {"conjugate": True}, ref=lambda x, conjugate: x.T,
         id="transpose-conjugate-real"),
    Case(tf.expand_dims, (M, -1), ref=np.expand_dims, id="expand-dims-last"),
    Case(tf.expand_dims, (M, [1]), ref=lambda x, a: np.expand_dims(x, 1), id="expand-list"),
    Case(tf.expand_dims, (np.float32(2.0), 0), ref=np.expand_dims, id="expand-scalar"),
    Case(tf.squeeze, (rand(1, 2, 1),), ref=np.squeeze, id="squeeze-all"),
    Case(tf.squeeze, (rand(1, 2, 1), [-1]), ref=lambda x, a: x[..., 0], id="squeeze-axis"),
    Case(tf.squeeze, (rand(1, 2, 1), [0, 0]), ref=lambda x, a: x[0], id="squeeze-dup-axis"),
    Case(tf.concat, ([M, rand(2, 5)], -1), ref=lambda v, a: np.concatenate(v, a), id="concat"),
    Case(tf.concat, ([I, I, I], 0), ref=lambda v, a: np.concatenate(v, a), id="concat-three"),
    Case(tf.concat, ([M], 1), ref=lambda v, a: v[0], id="concat-single"),
    Case(tf.concat, ([np.zeros((0, 3), np.float32), M], 0), ref=lambda v, a: v[1],
         id="concat-empty"),
    Case(tf.stack, ([M, M],), ref=lambda v: np.stack(v), id="stack"),
    Case(tf.stack, ([M, M, M], -1), ref=lambda v, a: np.stack(v, a), id="stack-last"),
    Case(tf.stack, ([S, S], 1), ref=lambda v, a: np.stack(v, a), id="stack-strings"),
    Case(tf.unstack, (F,), ref=lambda x: list(x), id="unstack"),
    Case(tf.unstack, (F,), {"axis": -1}, ref=lambda x, axis: list(np.moveaxis(x, -1, 0)),
         id="unstack-last"),
    Case(tf.unstack, (S,), ref=lambda x: [np.array(v, dtype=object) for v in x],
         id="unstack-strings"),
    Case(tf.split, (F, 2), ref=lambda x, n: np.split(x, 2), id="split-even"),
    Case(tf.split, (F, 4, -1), ref=lambda x, n, a: np.split(x, 4, -1), id="split-last"),
    Case(tf.split, (F, [1, -1], 1), ref=lambda x, s, a: np.split(x, [1], 1), id="split-sizes"),
    Case(lambda x: tf.split(x, tf.constant([3, 0, 1]), 2), (F,),
         ref=lambda x: np.split(x, [3, 3], 2), id="split-sizes-tensor"),
    Case(tf.tile, (M, [2, 3]), ref=np.tile, id="tile"),
    Case(tf.tile, (S, [2]), ref=np.tile, id="tile-strings"),
    Case(tf.tile, (M, np.array([1, 2], np.int32)), ref=np.tile, dynamic_shape=True,
         id="tile-multiples-input"),
    Case(lambda x: tf.tile(x, tf.constant([1, 2], tf.int64)), (M,), ref=lambda x: np.tile(x, 2),
         id="tile-int64-multiples"),
    Case(tf.pad, (M, [[1, 0], [0, 2]]), ref=_np_pad, id="pad"),
    Case(tf.pad, (M, [[1, 0], [0, 2]]), {"constant_values": -1.5}, ref=_np_pad, id="pad-v2"),
    Case(tf.pad, (S, [[1, 1]]), ref=lambda x, p: np.array([b"", b"a", b"bc", b"", b""], object),
         id="pad-strings"),
    Case(tf.pad, (M, [[1, 1], [2, 2]], "REFLECT"), ref=_np_pad, id="pad-reflect"),
    Case(tf.pad, (M, [[2, 2], [3, 3]], "symmetric"), ref=_np_pad, id="pad-symmetric"),
    Case(tf.fill, ([2, 3], np.float32(7)), ref=lambda d, v: np.full(d, v), id="fill"),
    Case(tf.fill, (np.array([2], np.int32), np.array(b"a", object)),
         ref=lambda d, v: np.array([b"a", b"a"], object), dynamic_shape=True, id="fill-string"),
    Case(tf.zeros, ([2, 3],), ref=lambda s: np.zeros(s, np.float32), id="zeros"),
    Case(tf.zeros, (np.array([2, 1], np.int32), "int64"),
         ref=lambda s, d: np.zeros((2, 1), np.int64), dynamic_shape=True,
         id="zeros-shape-input"),
    Case(tf.zeros, ([2], tf.string), ref=lambda s, d: np.array([b"", b""], object),
         id="zeros-string"),
    Case(tf.ones, ((2,), tf.bool), ref=lambda s, d: np.ones(2, bool), id="ones-bool"),
    Case(tf.ones, (3, tf.complex64), ref=lambda s, d: np.ones(3, np.complex64), id="ones-int"),
    Case(tf.zeros_like, (I,), ref=np.zeros_like, id="zeros-like"),
    Case(tf.zeros_like, (S,), ref=lambda x: np.array([b""] * 3, object), id="zeros-like-str"),
    Case(tf.zeros_like, (M, tf.int32), ref=lambda x, d: np.zeros(x.shape, np.int32),
         id="zeros-like-dtype"),
    Case(tf.ones_like, (B,), ref=np.ones_like, id="ones-like-bool"),
    Case(tf.ones_like, (I, "float64"), ref=lambda x, d: np.ones(x.shape), id="ones-like-dtype"),
    Case(tf.eye, (3,), ref=lambda n: np.eye(3, dtype=np.float32), id="eye"),
    Case(tf.eye, (2, 3), {"batch_shape": [2], "dtype": tf.int32},
         ref=lambda r, c, batch_shape, dtype: np.stack([np.eye(2, 3, dtype=np.int32)] * 2),
         id="eye-batch"),
    Case(tf.linalg.eye, (N,), {"dtype": tf.bool}, ref=lambda n, dtype: np.eye(4, dtype=bool),
         dynamic_shape=True, id="eye-dynamic"),
    Case(tf.identity, (S,), ref=lambda x: x, id="identity"),
    Case(lambda x: tf.raw_ops.PlaceholderWithDefault(input=x, shape=[3]), (S,), ref=lambda x: x,
         id="placeholder-with-default"),
    Case(tf.shape, (F,), ref=lambda x: np.array(x.shape, np.int32), id="shape"),
    Case(tf.shape, (np.float32(1.0), tf.int64), ref=lambda x, t: np.zeros(0, np.int64),
         id="shape-scalar-int64"),
    Case(tf.shape_n, ([M, M.T],), ref=lambda v: [np.array([2, 3], np.int32),
                                                 np.array([3, 2], np.int32)], id="shape-n"),
    Case(tf.size, (F,), ref=lambda x: np.int32(24), id="size"),
    Case(tf.size, (F, tf.int64), ref=lambda x, t: np.int64(24), id="size-int64"),
    Case(lambda n: tf.size(tf.range(n), tf.int64), (N,), ref=lambda n: np.int64(4),
         id="size-op"),
    Case(tf.rank, (F,), ref=lambda x: np.int32(3), id="rank"),
    Case(lambda x: bind(get("Rank"), x), (F,), ref=lambda x: np.int32(3), id="rank-op"),
    Case(tf.broadcast_to, (rand(3), [2, 3]), ref=np.broadcast_to, id="broadcast-to"),
    Case(tf.broadcast_to, (np.float32(1.0), np.array([2, 1], np.int32)),
         ref=lambda x, s: np.ones((2, 1), np.float32), dynamic_shape=True,
         id="broadcast-to-shape-input"),
    Case(tf.broadcast_dynamic_shape, ([2, 1], [3]), ref=lambda a, b: np.array([2, 3], np.int32),
         id="broadcast-dynamic-shape"),
    Case(tf.broadcast_dynamic_shape, (np.array([2, 1], np.int32), np.array([1, 3], np.int32)),
         ref=lambda a, b: np.array([2, 3], np.int32), id="broadcast-dynamic-shape-input"),
    Case(lambda: tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), [1, 3]), (),
         ref=lambda: np.array([2, 3], np.int64), id="broadcast-dynamic-shape-int64"),
    Case(tf.reverse, (F, [0, -1]), ref=lambda x, a: x[::-1, :, ::-1], id="reverse"),
    Case(tf.reverse, (S, []), ref=lambda x, a: x, id="reverse-nothing"),
    Case(tf.range, (5,), ref=lambda n: np.arange(5, dtype=np.int32), id="range"),
    Case(tf.range, (1, 10, 3), ref=lambda *a: np.array([1, 4, 7], np.int32), id="range-3"),
    Case(tf.range, (5, 1, -2), ref=lambda *a: np.array([5, 3], np.int32), id="range-down"),
    Case(tf.range, (1, 2.5, 0.5), ref=lambda *a: np.array([1, 1.5, 2], np.float32),
         id="range-float-wins"),
    Case(tf.range, (0.0, 1.0, 0.3), ref=lambda *a: np.float32([0, 0.3, 0.6, 0.90000004]),
         id="range-float-steps"),
    Case(tf.range, (np.float64(2),), ref=lambda n: np.arange(2.0), id="range-float64"),
    Case(tf.range, (N,), ref=lambda n: np.arange(4, dtype=np.int32), dynamic_shape=True,
         id="range-tensor"),
    Case(tf.range, (3,), {"dtype": tf.int64}, ref=lambda n, dtype: np.arange(3),
         id="range-dtype"),
    Case(tf.linspace, (0.0, 1.0, 5), ref=lambda *a: np.linspace(0, 1, 5, dtype=np.float32),
         id="linspace"),
    Case(tf.linspace, (np.float64(2), np.float64(3), 1), ref=lambda *a: np.array([2.0]),
         id="linspace-one"),
    Case(tf.linspace, (0.0, 1.0, 0), ref=lambda *a: np.zeros(0, np.float32), id="linspace-zero"),
    Case(tf.linspace, (np.float32([0, 1]), np.float32([1, 2]), 3), {"axis": -1},
         ref=lambda a, b, n, axis: np.float32([[0, 0.5, 1], [1, 1.5, 2]]), id="linspace-nd"),
    Case(tf.one_hot, (np.array([0, 2, -1, 5], np.int32), 3),
         ref=lambda i, d: np.float32([[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]),
         id="one-hot"),
    Case(tf.one_hot, (np.array([[0, 2], [1, 1]], np.int8), 3), {"axis": 0},
         ref=lambda i, d, axis: np.moveaxis(np.eye(3, dtype=np.float32)[i], -1, 0),
         id="one-hot-axis0"),
    Case(tf.one_hot, (np.array([0, 1], np.uint8), 2), {"on_value": 5, "off_value": -1},
         ref=lambda i, d, on_value, off_value: np.int32([[5, -1], [-1, 5]]), id="one-hot-values"),
    Case(tf.one_hot, (np.array([1], np.int32), 2), {"on_value": "y", "off_value": "n"},
         ref=lambda i, d, on_value, off_value: np.array([[b"n", b"y"]], object),
         id="one-hot-strings"),
    Case(tf.meshgrid, (rand(3), rand(2)), ref=lambda a, b: np.meshgrid(a, b), id="meshgrid-xy"),
    Case(tf.meshgrid, (rand(3), rand(2), rand(4)), {"indexing": "ij"},
         ref=lambda *a, indexing: np.meshgrid(*a, indexing="ij"), id="meshgrid-ij"),
    Case(tf.sequence_mask, (np.array([1, 3, 2], np.int32),),
         ref=lambda l: np.arange(3) < l[:, None], dynamic_shape=True, id="sequence-mask"),
    Case(tf.sequence_mask, (np.array([[1, 3], [2, 0]], np.int32), 4, tf.float32),
         ref=lambda l, m, d: (np.arange(4) < l[..., None]).astype(np.float32),
         id="sequence-mask-maxlen"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


# --- values and dtypes TF gives in its own way ---------------------------------------------------
def test_reshape_infers_minus_one_for_empty_tensors_like_tf():
    e = tf.zeros([0, 3])
    assert tf.reshape(e, [-1, 0]).shape == [3, 0]
    assert tf.reshape(e, [0, -1]).shape == [0, 3]
    assert tf.reshape(e, [3, -1]).shape == [3, 0]
    assert tf.reshape(tf.zeros([0]), [5, -1, 0]).shape == [5, 0, 0]


def test_reshape_accepts_tensorshapes_and_lists_holding_tensors():
    x = tf.reshape(tf.range(6.0), [2, 3])
    assert tf.reshape(x, tf.TensorShape([3, 2])).shape == [3, 2]
    assert tf.reshape(x, [tf.constant(3), 2]).shape == [3, 2]
    assert tf.reshape(x, tf.reverse(tf.shape(x), [0])).shape == [3, 2]


def test_range_dtype_inference_follows_tf():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(5.0).dtype == tf.float32
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert tf.range(tf.constant(3, tf.int64), 5).numpy().tolist() == [3, 4]
    assert tf.range(np.int64(2)).dtype == tf.int64
    assert tf.range(3, dtype=tf.float16).numpy().tolist() == [0.0, 1.0, 2.0]
    assert tf.range(start=2, limit=5).numpy().tolist() == [2, 3, 4]


def test_range_mixing_tensor_dtypes_casts_to_the_widest():
    assert tf.range(tf.constant(1), tf.constant(3, tf.int64)).dtype == tf.int64
    got = tf.range(tf.constant(1), tf.constant(3.5))
    assert got.dtype == tf.float32 and got.numpy().tolist() == [1.0, 2.0, 3.0]


def test_linspace_of_ints_is_float64_and_ends_exactly_at_stop():
    got = tf.linspace(0, 10, 5)
    assert got.dtype == tf.float64 and got.numpy().tolist() == [0, 2.5, 5, 7.5, 10]
    got = tf.linspace(0.0, 1.0, 7).numpy()
    assert got[-1] == 1.0 and got.dtype == np.float32
    assert tf.linspace([[0.0], [1.0]], [1.0, 2.0, 3.0], 2).shape == [2, 2, 3]
    assert tf.linspace(tf.constant(0, tf.float16), 4, 3).dtype == tf.float16


def test_zeros_and_ones_take_dtype_names_and_ints():
    assert tf.zeros([2], "int32").dtype == tf.int32
    assert tf.zeros([2], np.int64).dtype == tf.int64
    assert tf.zeros(2).shape == [2]
    assert tf.zeros([]).shape == []
    assert tf.zeros(tf.TensorShape([2])).shape == [2]
    assert tf.zeros([tf.constant(2), 3]).shape == [2, 3]
    assert tf.ones([2], tf.complex64).numpy().tolist() == [1, 1]


def test_one_hot_dtype_comes_from_values_or_dtype():
    assert tf.one_hot([0, 1], 2, on_value=5).dtype == tf.int32
    assert tf.one_hot([0, 1], 2, dtype=tf.int64).dtype == tf.int64
    assert tf.one_hot([0, 1], 2, on_value=3, dtype=tf.float64).numpy().tolist() == \
        [[3, 0], [0, 3]]
    assert tf.one_hot([0], 2, on_value=1, dtype=tf.float32).dtype == tf.float32
    assert tf.one_hot([0, 1], 2, on_value=True, off_value=False).dtype == tf.bool
    assert tf.one_hot(1, 3).numpy().tolist() == [0, 1, 0]
    assert tf.one_hot([0], 0).shape == [1, 0]


def test_sequence_mask_edge_cases():
    assert tf.sequence_mask(2).numpy().tolist() == [True, True]
    assert tf.sequence_mask([-1, 2]).numpy().tolist() == [[False, False], [True, True]]
    assert tf.sequence_mask(tf.zeros([0], tf.int32)).shape == [0, 0]
    got = tf.sequence_mask(tf.constant([1, 2], tf.int64), tf.constant(3, tf.int64))
    assert got.numpy().tolist() == [[True, False, False], [True, True, False]]


def test_shape_helpers():
    x = tf.zeros([2, 3])
    assert tf.shape(x, out_type="int64").dtype == tf.int64
    assert tf.shape([[1, 2]]).numpy().tolist() == [1, 2]
    assert tf.size(x, out_type=tf.float32).numpy() == 6.0  # a constant: any dtype works
    assert tf.rank([1, 2]).numpy() == 1
    rows = tf.shape_n(x)  # a tensor is taken as the list of its rows
    assert [r.numpy().tolist() for r in rows] == [[3], [3]]
    assert tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])) == \
        tf.TensorShape([None, 3])
    assert tf.broadcast_dynamic_shape([], [3]).numpy().tolist() == [3]


def test_stack_and_concat_convert_python_values_like_tf():
    assert tf.stack([1, 2.0]).dtype == tf.float32
    assert tf.stack([tf.constant(1), 2]).numpy().tolist() == [1, 2]
    assert tf.stack([]).shape == [0]
    x = tf.zeros([2, 3])
    assert tf.stack(x) is x
    assert tf.concat(x, 0) is not None and tf.concat(x, 0).shape == [2, 3]
    assert tf.concat([[1, 2], [3]], 0).numpy().tolist() == [1, 2, 3]
    assert tf.concat([x, [[1.0, 2.0, 3.0]]], 0).shape == [3, 3]
    assert tf.unstack(tf.zeros([0, 2])) == []
    assert [t.shape for t in tf.unstack(tf.zeros([0, 2]), axis=1)] == [[0], [0]]


def test_eye_variants():
    assert tf.eye(2, 1, batch_shape=(2, 1)).shape == [2, 1, 2, 1]
    assert tf.eye(tf.constant(2)).numpy().tolist() == [[1, 0], [0, 1]]
    assert tf.eye(0).shape == [0, 0]


def test_mirror_pad_and_padv2_ops_are_used():
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.TensorSpec([None, 3]), "x")
        tf.pad(x, [[1, 1], [0, 2]])
        tf.pad(x, [[1, 1], [0, 2]], constant_values=2.0)
        tf.pad(x, [[1, 1], [0, 2]], mode="REFLECT")
    assert [op.type for op in g.get_operations() if op.type not in ("Const", "Placeholder")] == \
        ["Pad", "PadV2", "MirrorPad"]


# --- eager errors ------------------------------------------------------------------------------
X = tf.reshape(tf.range(6.0), [2, 3])
INVALID = tf.errors.InvalidArgumentError


@pytest.mark.parametrize("fn, match", [
    (lambda: tf.reshape(X, [4, 2]),
     r"Input to reshape is a tensor with 6 values, but the requested shape has 8 \[Op:Reshape\]"),
    (lambda: tf.reshape(X, [4, -1]), "requested shape requires a multiple of 4"),
    (lambda: tf.reshape(X, [-1, -1]), "Only one input size may be -1, not both 0 and 1"),
    (lambda: tf.reshape(X, [-2, 3]), "Size 0 must be non-negative, not -2"),
    (lambda: tf.reshape(X, [0, -1]), "tensor with 6 values, but the requested shape has 0"),
    (lambda: tf.reshape(X, [[6]]), r"sizes input must be 1-D, not \[1,1\]"),
    (lambda: tf.reshape(X, [3.0, 2.0]),
     "Value for attr 'Tshape' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.transpose(X, [0, 0]), r"1 is missing from \{0,0\}."),
    (lambda: tf.transpose(X, [0, 1, 2]),
     r"transpose expects a vector of size 2. But input\(1\) is a vector of size 3"),
    (lambda: tf.transpose(X, [0, 2]), r"2 is out of range \[0 .. 2\)"),
    (lambda: tf.expand_dims(X, 3), "Tried to expand dim index 3 for tensor with 2 dimensions."),
    (lambda: tf.expand_dims(X, -4), "Tried to expand dim index -4"),
    (lambda: tf.expand_dims(X, [1, 2]), "'dim' must be a tensor with a single value"),
    (lambda: tf.squeeze(tf.zeros([1, 2, 1]), 1),
     r"Can not squeeze dim\[1\], expected a dimension of 1, got 2 \[Op:Squeeze\]"),
    (lambda: tf.squeeze(tf.zeros([1, 2, 1]), 3),
     "Tried to squeeze dim index 3 for tensor with 3 dimensions."),
    (lambda: tf.concat([X, tf.zeros([3, 3])], 1),
     (r"ConcatOp : Dimension 0 in both shapes must be equal: shape\[0\] = \[2,3\] vs. shape\[1\] "
     r"= \[3,3\] \[Op:ConcatV2\]")),
    (lambda: tf.concat([X, tf.zeros([3])], 0), "ConcatOp : Ranks of all input tensors should"),
    (lambda: tf.concat([X, tf.zeros([3, 3], tf.int32)], 0),
     (r"cannot compute ConcatV2 as input #1\(zero-based\) was expected to be a float tensor but "
     "is a int32 tensor")),
    (lambda: tf.concat([X, X], 2),
     r"Expected concatenating dimensions in the range \[-2, 2\), but got 2"),
    (lambda: tf.concat([tf.constant(1), tf.constant(2)], 0),
     r"Can't concatenate scalars \(use tf.stack instead\)"),
    (lambda: tf.stack([X, tf.zeros([3, 2])]),
     (r"Shapes of all inputs must match: values\[0\].shape = \[2,3\] != values\[1\].shape = "
     r"\[3,2\] \[Op:Pack\]")),
    (lambda: tf.stack([tf.constant(1), tf.constant(2.0)]),
     "cannot compute Pack as input #1.* int32 tensor but is a float tensor"),
    (lambda: tf.unstack(X, num=2, axis=1), r"Input shape axis 1 must equal 2, got shape \[2,3\]"),
    (lambda: tf.split(X, 2, 1),
     (r"Number of ways to split should evenly divide the split dimension, but got split_dim 1 "
     r"\(size = 3\) and num_split 2")),
    (lambda: tf.split(X, [1, 1], 1), ("Determined shape must either match input shape along "
     "split_dim exactly if fully specified, or be less than the size of the input along "
     "split_dim if not fully specified.  Got: 2")),
    (lambda: tf.split(X, [-1, -1], 1), "There can only be one -1 in the input."),
    (lambda: tf.split(X, 2, 2), r"-input rank\(-2\) <= split_dim < input rank \(2\), but got 2"),
    (lambda: tf.split(X, 0, 1), "Value for attr 'num_split' of 0 must be at least minimum 1"),
    (lambda: tf.tile(X, [2]),
     "Expected multiples argument to be a vector of length 2 but got length 1"),
    (lambda: tf.tile(X, [-1, 1]), r"Expected multiples\[0\] >= 0, but got -1"),
    (lambda: tf.pad(X, [[2, 2], [0, 0]], "REFLECT"),
     "paddings must be less than the dimension size: 2, 2 not less than 2"),
    (lambda: tf.pad(X, [[3, 3], [0, 0]], "SYMMETRIC"),
     "paddings must be no greater than the dimension size: 3, 3 greater than 2"),
    (lambda: tf.pad(X, [[-1, 0], [0, 0]]), r"Paddings must be non-negative: -1 0 \[Op:Pad\]"),
    (lambda: tf.pad(X, [[1, 1]]),
     r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,3\]"),
    (lambda: tf.fill([-1], 7), r"Dimension -1 must be >= 0 \[Op:Fill\]"),
    (lambda: tf.fill([2], [7, 8]), r"value must represent a scalar, got shape \[2\]"),
    (lambda: tf.zeros([-1]), r"Dimension -1 must be >= 0 \[Op:Fill\]"),
    (lambda: tf.eye(-1), r"Dimension -1 must be >= 0 \[Op:Fill\]"),
    (lambda: tf.ones_like(tf.constant(["a"])),
     r"Value for attr 'T' of string is not in the list of allowed values"),
    (lambda: tf.shape(X, out_type=tf.float32),
     "Value for attr 'out_type' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.shape_n([X, tf.constant(1)]), "cannot compute ShapeN as input #1"),
    (lambda: tf.broadcast_to(tf.constant([1, 2]), [3, 3]),
     r"Incompatible shapes: \[2\] vs. \[3,3\] \[Op:BroadcastTo\]"),
    (lambda: tf.broadcast_to(X, [3]),
     r"Rank of input \(2\) must be no greater than rank of output shape \(1\)."),
    (lambda: tf.broadcast_dynamic_shape([2], [3]),
     r"Incompatible shapes: \[2\] vs. \[3\] \[Op:BroadcastArgs\]"),
    (lambda: tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), tf.constant([1, 3])),
     "cannot compute BroadcastArgs as input #1"),
    (lambda: tf.reverse(X, [1, -1]), "axis 1 specified more than once."),
    (lambda: tf.reverse(X, [2]), r"'axis'\[0\] = 2 is out of valid range \[0, 1"),
    (lambda: tf.reverse(X, 1), "'dims' must be 1-dimension, not 0"),
    (lambda: tf.range(5, 1), r"Requires start <= limit when delta > 0: 5/1 \[Op:Range\]"),
    (lambda: tf.range(1, 5, 0), "Requires delta != 0: 0"),
    (lambda: tf.range(1, 5, -1), "Requires start >= limit when delta < 0: 1/5"),
    (lambda: tf.range(3, dtype=tf.uint8),
     "Value for attr 'Tidx' of uint8 is not in the list of allowed values"),
    (lambda: tf.linspace([0.0, 1.0], [1.0, 2.0], 3, axis=2),
     "Tried to expand dim index 2 for tensor with 1 dimensions."),
    (lambda: tf.one_hot([0], -1), "depth must be non-negative, got: -1"),
    (lambda: tf.one_hot([0], 2, axis=2),
     r"Expected axis to be -1 or between \[0, 2\).  But received: 2"),
    (lambda: tf.one_hot(tf.constant([0.0, 1.0]), 2),
     "Value for attr 'TI' of float is not in the list of allowed values: uint8, int8, int32"),
    (lambda: tf.meshgrid([1, 2], [1.0]), "cannot compute Mul as input #1"),
])
def test_eager_errors_are_invalid_argument(fn, match):
    with pytest.raises(INVALID, match=match):
        fn()


@pytest.mark.parametrize("fn, exc, match", [
    (lambda: tf.stack([X, X], 3), ValueError, r"Argument `axis` = 3 not in range \[-3, 3\)"),
    (lambda: tf.unstack(tf.constant(1.0)), ValueError, r"`axis` = 0 not in range \[0, 0\)"),
    (lambda: tf.unstack(X, axis=2), ValueError, r"`axis` = 2 not in range \[-2, 2\)"),
    (lambda: tf.split(X, tf.constant(3), 1), ValueError,
     "Rank-0 tensors are not supported as the num_or_size_splits argument to split"),
    (lambda: tf.pad(X, [[1, 1], [0, 0]], "WRAP"), ValueError,
     'expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". Received `mode` = WRAP'),
    (lambda: tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=2.5), TypeError,
     "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda: tf.zeros([2.0]), TypeError, r"Cannot convert \[2.0\] to EagerTensor of dtype int32"),
    (lambda: tf.zeros([None]), ValueError, r"Attempt to convert a value \(None\)"),
    (lambda: tf.ones([2], tf.string), TypeError, ("Cannot convert 1 to EagerTensor of dtype "
     "string")),
    (lambda: tf.eye(2.0), TypeError, ("Arguments `num_rows` and `num_columns` must be positive "
     "integer values. Received: num_rows=2.0, num_columns=2.0")),
    (lambda: tf.eye(2, dtype=tf.string), TypeError, "Cannot convert 1 to EagerTensor of dtype"),
    (lambda: tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3])), ValueError,
     r"Incompatible shapes for broadcasting.*Received: \(2,\) and \(3,\)."),
    (lambda: tf.range(1.5, dtype=tf.int32), TypeError, "Cannot convert 1.5 to EagerTensor"),
    (lambda: tf.range(3, dtype=tf.bool), TypeError, ("Cannot convert 0 to EagerTensor of dtype "
     "bool")),
    (lambda: tf.linspace(0, 1.5, 3), TypeError, ("Cannot convert 1.5 to EagerTensor of dtype "
     "int32")),
    (lambda: tf.linspace(0.0, 4.0, 3.0), TypeError,
     r"Argument `tensor` \(name: num\) must be of type integer"),
    (lambda: tf.meshgrid([1], indexing="xx"), ValueError,
     "Argument `indexing` parameter must be either 'xy' or 'ij', got 'xx'"),
    (lambda: tf.one_hot([0, 1], 2, on_value=1.0, off_value=0), TypeError,
     "dtype <dtype: 'float32'> of on_value does not match dtype <dtype: 'int32'> of off_value"),
    (lambda: tf.sequence_mask([1, 2], [3]), ValueError,
     "Argument `maxlen` must be scalar for sequence_mask"),
])
def test_python_level_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


# --- graphs: static shapes from shape tensors ---------------------------------------------------
def _trace(fn, *specs):
    g = Graph()
    with g.as_default():
        return fn(*[g.placeholder(s, f"x{i}") for i, s in enumerate(specs)])


TS = tf.TensorSpec


@pytest.mark.parametrize("fn, specs, shape", [
    (lambda x: tf.reshape(x, [-1, 2]), [TS([None, 3])], [None, 2]),
    (lambda x: tf.reshape(x, [-1, 3]), [TS([None, 6])], [None, 3]),
    (lambda x: tf.reshape(x, [2, -1]), [TS([None, 6])], [2, None]),
    (lambda x: tf.reshape(x, [-1, -1]), [TS([None, 3])], [None, None]),
    (lambda x: tf.reshape(x, [-1, 0]), [TS([0, 3])], [None, 0]),
    (lambda x: tf.reshape(x, [-1, 3]), [TS([None, 0])], [0, 3]),
    (lambda x, s: tf.reshape(x, s), [TS([None, 6]), TS([2], tf.int32)], [None, None]),
    (lambda x, s: tf.reshape(x, s), [TS([None, 6]), TS([None], tf.int32)], None),
    (lambda x, y: tf.reshape(x, tf.shape(y)), [TS([None]), TS([2, None])], [2, None]),
    (lambda x, y: tf.reshape(x, [tf.size(y), -1]), [TS([4, 6]), TS([None])], [None, None]),
    (lambda x: tf.zeros([tf.rank(x), 3]), [TS([None, 6])], [2, 3]),
    (lambda x: tf.zeros([tf.size(x), 3]), [TS([None, 6])], [None, 3]),
    (lambda x: tf.ones(tf.shape(x)), [TS([None, 3])], [None, 3]),
    (lambda x: tf.zeros(tf.shape(x)), [TS(None)], None),
    (lambda x: tf.zeros(tf.shape(x)), [TS([2, 3])], [2, 3]),
    (lambda x: tf.zeros([200, 300]), [TS([1])], [200, 300]),
    (lambda x: tf.ones_like(x), [TS(None)], None),
    (lambda x: tf.zeros_like(x, dtype=tf.int32), [TS([None, 3])], [None, 3]),
    (lambda s: tf.fill(s, 1.0), [TS([3], tf.int32)], [None, None, None]),
    (lambda s: tf.fill(s, 1.0), [TS([None], tf.int32)], None),
    (lambda x: tf.transpose(x), [TS([None, 3])], [3, None]),
    (lambda x: tf.transpose(x), [TS(None)], None),
    (lambda x: tf.expand_dims(x, -1), [TS([None, 3])], [None, 3, 1]),
    (lambda x: tf.squeeze(x), [TS([None, 1])], None),
    (lambda x: tf.squeeze(x, 0), [TS([None, 2, 1])], [2, 1]),
    (lambda x: tf.squeeze(x, [2]), [TS(None)], None),
    (lambda x, y: tf.concat([x, y], 1), [TS([None, 3]), TS([2, None])], [2, None]),
    (lambda x: tf.stack([x, x], 0), [TS([None, 3])], [2, None, 3]),
    (lambda x: tf.split(x, 2, 0)[0], [TS([None, 3])], [None, 3]),
    (lambda x: tf.split(x, [1, -1], 0)[0], [TS([None, 3])], [1, 3]),
    (lambda x: tf.split(x, [1, -1], 0)[1], [TS([None, 3])], [None, 3]),
    (lambda x: tf.unstack(x, num=4)[3], [TS([None, 3])], [3]),
    (lambda x: tf.tile(x, [2, 3]), [TS([None, 3])], [None, 9]),
    (lambda x, m: tf.tile(x, m), [TS([None, 3]), TS([2], tf.int32)], [None, None]),
    (lambda x: tf.pad(x, [[1, 1], [0, 2]]), [TS([None, 3])], [None, 5]),
    (lambda x, p: tf.pad(x, p), [TS([None, 3]), TS([2, 2], tf.int32)], [None, None]),
    (lambda x: tf.broadcast_to(x, [2, 3]), [TS([3])], [2, 3]),
    (lambda x: tf.broadcast_to(x, [3, 2]), [TS([None])], [3, 2]),
    (lambda x, s: tf.broadcast_to(x, s), [TS([2]), TS([2], tf.int32)], [None, 2]),
    (lambda a, b: tf.broadcast_dynamic_shape(a, b), [TS([2], tf.int32), TS([None], tf.int32)],
     [None]),
    (lambda a, b: tf.broadcast_dynamic_shape(a, b), [TS([2], tf.int32), TS([3], tf.int32)], [3]),
    (lambda n: tf.range(n), [TS([], tf.int32)], [None]),
    (lambda n: tf.range(n, 10), [TS([], tf.int32)], [None]),
    (lambda x: tf.range(0.0, 1.0, 0.3), [TS([1])], [4]),
    (lambda n: tf.linspace(0.0, 1.0, n), [TS([], tf.int32)], [None]),
    (lambda a: tf.linspace(a, 1.0, 5), [TS([])], [5]),
    (lambda d: tf.one_hot([0, 1], d), [TS([], tf.int32)], [2, None]),
    (lambda i: tf.one_hot(i, 4, axis=0), [TS([None, 2], tf.int32)], [4, None, 2]),
    (lambda n: tf.eye(n), [TS([], tf.int32)], [None, None]),
    (lambda n: tf.eye(n, 3, batch_shape=[2]), [TS([], tf.int32)], [2, None, 3]),
    (lambda x: tf.shape(x), [TS(None)], [None]),
    (lambda x: tf.size(x), [TS([None, 3])], []),
    (lambda x: tf.rank(x), [TS(None)], []),
    (lambda a, b: tf.meshgrid(a, b)[0], [TS([None]), TS([None])], [None, None]),
    (lambda a, b: tf.meshgrid(a, b)[1], [TS([3]), TS([2])], [2, 3]),
    (lambda l: tf.sequence_mask(l, 4), [TS([None], tf.int32)], [None, 4]),
    (lambda l: tf.sequence_mask(l), [TS([None], tf.int32)], [None, None]),
])
def test_graph_shapes(fn, specs, shape):
    assert _trace(fn, *specs).shape == tf.TensorShape(shape)


def test_shape_of_fully_known_input_is_known_when_tracing():
    out = _trace(lambda x: tf.shape(x), TS([2, 3]))
    assert out.op.type == "Shape" and out.static.tolist() == [2, 3]
    assert _trace(lambda x: tf.shape(x), TS([None, 3])).static is None
    n = _trace(lambda x: tf.shape_n([x, x])[1], TS([4]))
    assert n.static.tolist() == [4]


def test_size_and_rank_of_known_shapes_are_constants():
    assert _trace(lambda x: tf.size(x), TS([2, 3])).op.type == "Const"
    assert _trace(lambda x: tf.rank(x), TS([None, 3])).op.type == "Const"
    assert _trace(lambda x: tf.size(x), TS([None, 3])).op.type == "Size"
    assert _trace(lambda x: tf.rank(x), TS(None)).op.type == "Rank"


def test_mixed_shape_lists_are_packed_into_one_shape_tensor():
    out = _trace(lambda x: tf.zeros([tf.size(x), 3]), TS([None, 6]))
    fill = out.op
    assert fill.type == "Fill" and fill.inputs[0].op.type == "Pack"
    assert fill.inputs[0].dtype == tf.int32


def test_large_constant_shapes_are_filled_not_stored():
    out = _trace(lambda: tf.zeros([200, 300]))
    assert out.op.type == "Fill" and out.static is None
    small = _trace(lambda: tf.zeros([2, 3]))
    assert small.op.type == "Const"


def test_range_of_known_bounds_is_known_when_tracing():
    out = _trace(lambda: tf.range(2, 5))
    assert out.static.tolist() == [2, 3, 4]
    assert _trace(lambda: tf.range(10000)).static is None


@pytest.mark.parametrize("fn, specs, exc, match", [
    (lambda x: tf.reshape(x, [4, 2]), [TS([2, 3])], ValueError,
     r"Cannot reshape a tensor with 6 elements to shape \[4,2\] \(8 elements\)"),
    (lambda x: tf.reshape(x, [4, -1]), [TS([2, 3])], ValueError,
     "Dimension size must be evenly divisible by 4 but is 6"),
    (lambda x: tf.reshape(x, [0, -1]), [TS([2, 3])], ValueError,
     r"Cannot reshape a tensor with 6 elements to shape \[0,\?\] \(0 elements\)"),
    (lambda x: tf.reshape(x, [-2, 3]), [TS([None, 3])], ValueError,
     "Invalid value in tensor used for shape: -2"),
    (lambda x: tf.reshape(x, [3.0]), [TS([3])], TypeError,
     "Value passed to parameter 'shape' has DataType float32 not in list of allowed values"),
    (lambda x: tf.transpose(x, [0, 1, 2]), [TS([2, 3])], ValueError,
     "Dimension must be 2 but is 3"),
    (lambda x: tf.expand_dims(x, 3), [TS([2, 3])], ValueError,
     r"dim 3 not in the interval \[-3, 2\]."),
    (lambda x: tf.squeeze(x, 1), [TS([1, 2, 1])], ValueError,
     r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"),
    (lambda x: tf.squeeze(x, 3), [TS([1, 2, 1])], ValueError,
     r"squeeze_dims\[0\] not in \[-3,3\)."),
    (lambda x, y: tf.concat([x, y], 1), [TS([2, 3]), TS([3, 3])], ValueError,
     r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2\] and \[3\]."),
    (lambda x, y: tf.concat([x, y], 2), [TS([2, 3]), TS([2, 3])], ValueError,
     "Shape must be at least rank 3 but is rank 2"),
    (lambda x, y: tf.concat([x, y], 0), [TS([2, 3]), TS([2, 3], tf.int32)], TypeError,
     (r"Tensors in list passed to 'values' of 'ConcatV2' Op have types \[float32, int32\] that "
     "don't all match.")),
    (lambda x, y: tf.stack([x, y]), [TS([2, 3]), TS([3, 2])], ValueError,
     "Shapes of all inputs must match"),
    (lambda x, y: tf.stack([x, y], 3), [TS([2, 3]), TS([2, 3])], ValueError,
     r"Argument `axis` = 3 not in range \[-3, 3\)"),
    (lambda x: tf.unstack(x), [TS([None, 3])], ValueError,
     r"Cannot infer argument `num` from shape \(None, 3\)"),
    (lambda x: tf.split(x, 2, 1), [TS([None, 3])], ValueError,
     "Dimension size must be evenly divisible by 2 but is 3"),
    (lambda x: tf.split(x, [1, 1], 1), [TS([None, 3])], ValueError,
     r"can't split axis of size 3 into pieces of size \[1,1\]"),
    (lambda x: tf.tile(x, [2]), [TS([None, 3])], ValueError,
     "Shape must be rank 2 but is rank 1"),
    (lambda x: tf.pad(x, [[1, 1]]), [TS([2, 3])], ValueError,
     "Shape must be rank 1 but is rank 2"),
    (lambda: tf.fill([-1], 7), [], ValueError, "Fill dimensions must be >= 0"),
    (lambda x: tf.broadcast_to(x, [3, 3]), [TS([2])], ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda x: tf.reverse(x, [2]), [TS([2, 3])], ValueError,
     r"'axis'\[0\] = 2 is out of valid range \[0, 1"),
    (lambda x: tf.shape(x, out_type=tf.float32), [TS([2])], TypeError,
     ("Value passed to parameter 'out_type' has DataType float32 not in list of allowed values: "
     "int32, int64")),
])
def test_graph_errors(fn, specs, exc, match):
    with pytest.raises(exc, match=match):
        _trace(fn, *specs)


def test_shape_arithmetic_keeps_known_dims_like_tf():
    spec = TS([None, 6])
    assert _trace(lambda x: tf.one_hot(tf.argmax(x, 1), tf.shape(x)[1]), spec).shape == [None, 6]
    assert _trace(lambda x: tf.zeros([tf.shape(x)[0], tf.shape(x)[1]]), spec).shape == [None, 6]
    assert _trace(lambda x: tf.reshape(x, tf.shape(x)[::-1]), spec).shape == [6, None]
    assert _trace(lambda x: tf.fill(tf.shape(x)[1:], 2.0), spec).shape == [6]
    out = _trace(lambda x: tf.reshape(x, tf.concat([tf.shape(x)[:1], [2, 3]], 0)), spec)
    assert out.shape == [None, 2, 3]


def test_shape_size_rank_of_a_sparse_tensor_read_its_dense_shape():
    # TF 2.21: tf.shape/size/rank of a SparseTensor come from dense_shape, eagerly and traced
    x = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], (2, 3))

    def measure(v):
        return tf.shape(v), tf.shape(v, out_type=tf.int64), tf.size(v), tf.rank(v)

    for shape32, shape64, size, rank in (measure(x), tf.function(measure)(x)):
        assert shape32.dtype == tf.int32 and shape32.numpy().tolist() == [2, 3]
        assert shape64.dtype == tf.int64 and shape64.numpy().tolist() == [2, 3]
        assert (size.dtype, int(size), rank.dtype, int(rank)) == (tf.int32, 6, tf.int32, 2)


def test_shape_lists_of_float_scalar_tensors_are_cast_to_int32():
    # TF's packing casts the scalar tensors of a shape list to the op's int32 default:
    # tf.reshape(x, (ks[0], ks[1])) with float ks works (3.5 truncates), a float tensor fails
    ks = tf.constant([3.0, 5.0])
    x = tf.range(15.0)
    assert tf.reshape(x, (ks[0], ks[1])).shape == (3, 5)
    assert tf.reshape(x, (tf.constant(3.5), 5)).shape == (3, 5)
    assert tf.zeros((ks[0], 2)).shape == (3, 2)
    assert tf.function(lambda k: tf.reshape(x, (k[0], k[1])))(ks).shape == (3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="attr 'Tshape' of float"):
        tf.reshape(x, ks)


def test_invert_permutation_matches_tf():
    got = tf.math.invert_permutation([3, 4, 0, 2, 1])
    assert got.dtype == tf.int32 and got.numpy().tolist() == [2, 4, 3, 0, 1]
    assert tf.math.invert_permutation(tf.constant([1, 0], tf.int64)).dtype == tf.int64
    for bad, message in (([0, 5], "5 is not between 0 and 2"),
                         ([0, 0], "0 is duplicated in the input."),
                         ([[0]], "invert_permutation expects a 1D vector."),
                         ([0.0], "Value for attr 'T' of float is not in the list of allowed "
                                 "values: int32, int64")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
            tf.math.invert_permutation(bad)
