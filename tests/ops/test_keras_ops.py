"""Ops Keras' TensorFlow backend calls, against TF 2.21's recorded outputs
(tests/fixtures/tf/make_keras_ops.py): the CTC decoders, stateless_gamma, sparse feature crosses,
Bucketize and UniqueV2; and tf.autodiff.ForwardAccumulator against NumPy derivatives."""

import json
import math
import os

import numpy as np
import pytest

import tensortrace as tf

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "keras_ops")
with open(os.path.join(FIXTURES, "outputs.json")) as _f:
    TF = json.load(_f)


def _sparse(st):
    values = [v.decode() if isinstance(v, bytes) else v for v in st.values.numpy().tolist()]
    return [st.indices.numpy().tolist(), values, st.dense_shape.numpy().tolist()]


@pytest.mark.parametrize("case", TF["ctc"], ids=lambda c: str(len(c["x"])))
def test_ctc_decoders_match_tf(case):
    x, lengths = np.float32(case["x"]), np.int32(case["lengths"])
    if isinstance(case["beam"], str):
        with pytest.raises(tf.errors.InvalidArgumentError, match=case["beam"]):
            tf.nn.ctc_beam_search_decoder(x, lengths, case["beam_width"], case["top_paths"])
    else:
        decoded, scores = tf.nn.ctc_beam_search_decoder(x, lengths, case["beam_width"],
                                                        case["top_paths"])
        assert [_sparse(s) for s in decoded] == case["beam"][:-1]
        np.testing.assert_allclose(scores.numpy(), case["beam"][-1], rtol=1e-5, atol=1e-5)
    decoded, scores = tf.nn.ctc_greedy_decoder(x, lengths, case["merge_repeated"],
                                               case["blank_index"])
    assert _sparse(decoded[0]) == case["greedy"][0]
    np.testing.assert_allclose(scores.numpy(), case["greedy"][1], rtol=1e-6)
    assert scores.dtype == tf.float32 and decoded[0].values.dtype == tf.int64


def test_ctc_decoder_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="inputs is not a 3-Tensor"):
        tf.nn.ctc_greedy_decoder(np.zeros((2, 3), np.float32), [1, 1])
    with pytest.raises(tf.errors.FailedPreconditionError, match=r"sequence_length\(0\) <= 2"):
        tf.nn.ctc_greedy_decoder(np.zeros((2, 1, 3), np.float32), [5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="blank_index expected to be"):
        tf.nn.ctc_greedy_decoder(np.zeros((2, 1, 3), np.float32), [1], blank_index=3)


def test_ctc_decoders_trace():
    f = tf.function(lambda x, n: tf.nn.ctc_beam_search_decoder(x, n, beam_width=3,
                                                                top_paths=2))
    x = np.float32(TF["ctc"][1]["x"])
    n = np.int32(TF["ctc"][1]["lengths"])
    decoded, scores = f(x, n)
    eager, eager_scores = tf.nn.ctc_beam_search_decoder(x, n, beam_width=3, top_paths=2)
    assert scores.shape.as_list() == list(eager_scores.shape)
    assert [_sparse(d) for d in decoded] == [_sparse(d) for d in eager]


def test_stateless_gamma_is_tfs():
    got = tf.random.stateless_gamma([3, 2], [1, 2], [0.5, 1.5])
    np.testing.assert_allclose(got.numpy(), TF["gamma"]["alpha_pair"], rtol=1e-6)
    got = tf.random.stateless_gamma([4, 2], [3, 4], [0.5, 2.0])
    np.testing.assert_allclose(got.numpy(), TF["gamma"]["seed_34"], rtol=1e-6)
    got = tf.random.stateless_gamma([5], [7, 8], 1.0, beta=2.0, dtype=tf.float64)
    np.testing.assert_allclose(got.numpy(), TF["gamma"]["beta_f64"], rtol=1e-12)


def test_stateless_gamma_statistics_and_errors():
    x = tf.random.stateless_gamma([20000], [5, 6], 0.7).numpy()
    assert abs(x.mean() - 0.7) < 0.03 and abs(x.var() - 0.7) < 0.06  # mean = var = alpha
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        tf.random.stateless_gamma([2, 3], [1, 2], [1.0, 2.0])


@pytest.mark.parametrize("name", sorted(TF["cross"]))
def test_sparse_cross_matches_tf(name):
    st1 = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    st2 = tf.SparseTensor([[0, 0], [1, 0]], ["d", "e"], [2, 1])
    sti = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([7, -8], tf.int64), [2, 1])
    dense, ints = tf.constant([["f"], ["g"]]), tf.constant([[1, 2], [3, 4]])
    made = {
        "cross": lambda: tf.sparse.cross([st1, st2, dense]),
        "cross_sep_dense_first": lambda: tf.sparse.cross([dense, st1], separator="+"),
        "cross_ints": lambda: tf.sparse.cross([ints, st2]),
        "hashed": lambda: tf.sparse.cross_hashed([st1, st2, dense]),
        "hashed_100": lambda: tf.sparse.cross_hashed([st1, st2, dense], num_buckets=100),
        "hashed_key": lambda: tf.sparse.cross_hashed([ints, sti], num_buckets=5, hash_key=123),
        "hashed_mixed": lambda: tf.sparse.cross_hashed(
            [tf.constant([[1], [2]]), tf.constant([["x"], ["y"]])], 10),
    }[name]()
    assert _sparse(made) == TF["cross"][name]


def test_bucketize_and_unique_v2():
    got = tf.raw_ops.Bucketize(input=[[-5, 10000], [150, 10]], boundaries=[0., 10., 100.])
    assert got.numpy().tolist() == TF["bucketize"] and got.dtype == tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        tf.raw_ops.Bucketize(input=[1.], boundaries=[3., 1.])
    y, idx, count = tf.raw_ops.UniqueWithCountsV2(x=[[1, 2, 1], [1, 2, 1]], axis=[1])
    assert [y.numpy().tolist(), idx.numpy().tolist(), count.numpy().tolist()] == \
        TF["unique_v2_axis1"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"axis has to be between \[0, 2\)"):
        tf.raw_ops.UniqueV2(x=[[1, 2]], axis=[2])


def test_forward_accumulator_jvp():
    x, v = np.array([1., 2., 3.], np.float32), np.array([1., 0., 2.], np.float32)
    xt = tf.constant(x)
    with tf.autodiff.ForwardAccumulator(xt, tf.constant(v)) as acc:
        y = tf.reduce_sum(tf.sin(xt) * xt ** 2)
    expected = np.sum((np.cos(x) * x ** 2 + np.sin(x) * 2 * x) * v)
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-5)
    assert acc.jvp(tf.constant(1.0)) is None
    var = tf.Variable([2., 3.])
    with tf.autodiff.ForwardAccumulator(var, tf.constant([1., 0.])) as acc:
        y = var * var
    np.testing.assert_allclose(acc.jvp(y).numpy(), [4., 0.])


def test_forward_accumulator_with_tapes():
    x = tf.constant([1., 2.])
    with tf.GradientTape() as tape:  # Hessian-vector product: tape over accumulator
        tape.watch(x)
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1., 1.])) as acc:
            y = tf.reduce_sum(x ** 3)
        jvp = acc.jvp(y)
    np.testing.assert_allclose(jvp.numpy(), 15.0)
    np.testing.assert_allclose(tape.gradient(jvp, x).numpy(), [6., 12.])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1., 1.])) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x ** 3)
        grad = tape.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(grad).numpy(), [6., 12.])
    f = tf.function(lambda t: tf.exp(t) * 2)
    with tf.autodiff.ForwardAccumulator(x, tf.ones(2)) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y).numpy(), 2 * np.exp([1., 2.]), rtol=1e-6)


def test_csr_sparse_matrix_product():
    from tensortrace.ops.sparse import csr

    def product(a, b):
        a = csr.sparse_tensor_to_csr_sparse_matrix(a.indices, a.values, a.dense_shape)
        b = csr.sparse_tensor_to_csr_sparse_matrix(b.indices, b.values, b.dense_shape)
        c = csr.sparse_matrix_sparse_mat_mul(a, b, tf.float32)
        assert c.dtype == tf.variant and c.shape == ()
        return _sparse(csr.csr_sparse_matrix_to_sparse_tensor(c, tf.float32))

    a = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1., -1., 2.], [2, 3])
    b = tf.SparseTensor([[0, 1], [2, 1], [1, 0]], [3., 3., 4.], [3, 2])
    assert product(a, b) == TF["csr"]["unordered"]
    a3 = tf.sparse.from_dense(np.arange(12, dtype=np.float32).reshape(2, 2, 3) % 3)
    b3 = tf.sparse.from_dense(np.ones((2, 3, 2), np.float32))
    assert product(a3, b3) == TF["csr"]["batched"]
    x = tf.SparseTensor([[0, 0], [0, 1]], [1., 1.], [1, 2])
    y = tf.SparseTensor([[0, 0], [1, 0]], [1., -1.], [2, 1])
    assert product(x, y) == TF["csr"]["zero"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Inner product dimensions"):
        product(a, a)


def test_ragged_one_hot_and_bincount():
    rt = tf.ragged.constant([[1, 2, 2], [3], [], [0, 5]])
    w = tf.ragged.constant([[1., 2., 3.], [4.], [], [5., 6.]])
    want = TF["ragged"]
    assert tf.math.bincount(rt).numpy().tolist() == want["bincount"]
    assert tf.math.bincount(rt, axis=-1, minlength=7, binary_output=True).numpy().tolist() == \
        want["bincount_rows"]
    assert tf.math.bincount(rt, weights=w, axis=-1, maxlength=3).numpy().tolist() == \
        want["bincount_weights"]
    assert _sparse(tf.sparse.bincount(rt, weights=w, axis=-1)) == want["sparse_bincount"]
    assert tf.one_hot(rt, 4).to_list() == want["one_hot"]
    with pytest.raises(ValueError, match=r"axis \(1\) must be greater than indices.ragged_rank"):
        tf.one_hot(rt, 4, axis=1)


def test_required_space_to_batch_paddings():
    # TF 2.21: ([[0, 0], [0, 2]], [[0, 0], [0, 2]]) and ([[1, 1], [0, 2]], [[0, 0], [0, 0]])
    paddings, crops = tf.required_space_to_batch_paddings([2, 3], [1, 5])
    assert paddings.numpy().tolist() == [[0, 0], [0, 2]] == crops.numpy().tolist()
    paddings, crops = tf.required_space_to_batch_paddings(tf.constant([4, 7]), [2, 3],
                                                          base_paddings=[[1, 1], [0, 2]])
    assert paddings.numpy().tolist() == [[1, 1], [0, 2]]
    assert crops.numpy().tolist() == [[0, 0], [0, 0]] and crops.dtype == tf.int32
    with pytest.raises(ValueError, match=r"Shape \(1, 1\) must have rank 1"):
        tf.required_space_to_batch_paddings([2], [[1]])


def test_gamma_alpha_gradient():
    alpha = tf.Variable([0.5, 2.0])
    with tf.GradientTape() as tape:
        sample = tf.random.stateless_gamma([4, 2], [3, 4], alpha)
    np.testing.assert_allclose(tape.gradient(sample, alpha).numpy(),
                               TF["gamma"]["alpha_gradient"], rtol=2e-6)
    # d sample / d alpha = -dP(a, x)/da / density(a, x), P by quadrature, against RandomGammaGrad
    from tensortrace.context import bind
    from tensortrace.ops.random.gamma import RandomGammaGrad

    def cdf(a, x, n=400000):
        u = np.linspace(0, x ** a, n + 1)
        f = np.exp(-u ** (1 / a)) / a
        return np.sum((f[1:] + f[:-1]) / 2 * np.diff(u)) / math.gamma(a)

    for a, x in [(0.5, 0.3), (2.0, 1.7), (0.9, 0.01), (1.0, 2.5)]:
        h = 1e-4
        slope = (cdf(a + h, x) - cdf(a - h, x)) / (2 * h)
        density = x ** (a - 1) * np.exp(-x) / math.gamma(a)
        got = bind(RandomGammaGrad, tf.constant(a, tf.float64), tf.constant(x, tf.float64))
        np.testing.assert_allclose(got.numpy(), -slope / density, rtol=1e-4)
    stateful = tf.Variable([[0.5], [3.0]])
    with tf.GradientTape() as tape:
        sample = tf.random.gamma([5], alpha=stateful, seed=1)
    assert tape.gradient(sample, stateful).shape == (2, 1)


def test_einsum_bfloat16():
    a = tf.ones([2, 3], tf.bfloat16)
    got = tf.einsum("ij,kj->ik", a, a)  # TF 2.21: [[3, 3], [3, 3]] of bfloat16
    assert got.dtype == tf.bfloat16 and got.numpy().astype(np.float32).tolist() == [[3, 3]] * 2


def test_ops_without_gradients_raise_lookup_error():
    x = tf.constant([[1., 2.], [1., 2.]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, _ = tf.raw_ops.UniqueV2(x=x, axis=[0])
    with pytest.raises(LookupError, match="UniqueV2"):
        tape.gradient(y, x)
    alpha = tf.constant([1.5])
    with tf.GradientTape() as outer:
        outer.watch(alpha)
        with tf.GradientTape() as inner:
            inner.watch(alpha)
            sample = tf.random.stateless_gamma([3, 1], [1, 2], alpha)
        first = inner.gradient(sample, alpha)
    with pytest.raises(LookupError, match="RandomGammaGrad"):
        outer.gradient(first, alpha)


# --- op-table cases (eager values, and infer against the kernels) -----------------------------
from tensortrace.context import bind as _bind  # noqa: E402
from tensortrace.ops.random import gamma as _gamma  # noqa: E402
from tensortrace.ops.sparse import csr as _csr  # noqa: E402

from .optable import Case, run_case  # noqa: E402


def _parts(st):
    return st.indices, st.values, st.dense_shape


def _csr_product(ai, av, ash, bi, bv, bsh):
    a = _csr.sparse_tensor_to_csr_sparse_matrix(ai, av, ash)
    b = _csr.sparse_tensor_to_csr_sparse_matrix(bi, bv, bsh)
    return tuple(_csr.csr_sparse_matrix_to_sparse_tensor(
        _csr.sparse_matrix_sparse_mat_mul(a, b, tf.float32), tf.float32))


_CTC = TF["ctc"][1]
_I64 = np.int64
CASES = [
    Case(lambda x, n: (*_parts(tf.nn.ctc_greedy_decoder(x, n, _CTC["merge_repeated"],
                                                         _CTC["blank_index"])[0][0]),),
         (np.float32(_CTC["x"]), np.int32(_CTC["lengths"])), dynamic_shape=True,
         ref=lambda x, n: tuple(np.asarray(v, d) for v, d in
                                zip(_CTC["greedy"][0], (_I64, _I64, _I64))), id="CTCGreedy"),
    Case(lambda x, n: _parts(tf.nn.ctc_beam_search_decoder(x, n, 3, 2)[0][0]),
         (np.float32(_CTC["x"]), np.int32(_CTC["lengths"])), dynamic_shape=True,
         id="CTCBeamSearch"),
    Case(lambda x: tf.raw_ops.Bucketize(input=x, boundaries=[0., 10., 100.]),
         (np.array([[-5, 10000], [150, 10]], np.int32),),
         ref=lambda x: np.int32(TF["bucketize"]), id="Bucketize"),
    Case(lambda x: tuple(tf.raw_ops.UniqueWithCountsV2(x=x, axis=np.int64([1]))),
         (np.array([[1, 2, 1], [1, 2, 1]], np.int32),), dynamic_shape=True,
         ref=lambda x: tuple(np.asarray(v, d) for v, d in
                             zip(TF["unique_v2_axis1"], (np.int32, np.int32, np.int32))),
         id="UniqueWithCountsV2"),
    Case(lambda x: tuple(tf.raw_ops.UniqueV2(x=x, axis=np.int64([0]))),
         (np.array([3., 1., 3.], np.float32),), dynamic_shape=True,
         ref=lambda x: (np.float32([3, 1]), np.int32([0, 1, 0])), id="UniqueV2"),
    Case(lambda a, b: _parts(tf.sparse.cross_hashed([a, b], 10)),
         (np.array([[1], [2]], np.int64), np.array([["x"], ["y"]], object)), dynamic_shape=True,
         ref=lambda a, b: tuple(np.asarray(v, _I64) for v in TF["cross"]["hashed_mixed"]),
         id="SparseCross"),
    Case(lambda a: _parts(tf.sparse.cross([a, a], separator="+")),
         (np.array([["f"], ["g"]], object),), dynamic_shape=True,
         check=lambda out, a: out[1].numpy().tolist() == [b"f+f", b"g+g"], id="SparseCrossV2"),
    Case(_csr_product, (np.int64([[0, 0], [0, 2], [1, 1]]), np.float32([1., -1., 2.]),
                        np.int64([2, 3]), np.int64([[0, 1], [2, 1], [1, 0]]),
                        np.float32([3., 3., 4.]), np.int64([3, 2])), dynamic_shape=True,
         ref=lambda *a: tuple(np.asarray(v, d) for v, d in
                              zip(TF["csr"]["unordered"], (_I64, np.float32, _I64))),
         id="CSRSparseMatMul"),
    Case(lambda a: tf.random.stateless_gamma([3, 2], [1, 2], a), (np.float32([0.5, 1.5]),),
         ref=lambda a: np.float32(TF["gamma"]["alpha_pair"]), id="StatelessRandomGammaV3"),
    Case(lambda a: _bind(_gamma.StatelessRandomGammaV2, tf.constant([3, 2]),
                         tf.constant([1, 2]), a), (np.float32([0.5, 1.5]),),
         ref=lambda a: np.float32(TF["gamma"]["alpha_pair"]), id="StatelessRandomGammaV2"),
    Case(lambda a, x: _bind(_gamma.RandomGammaGrad, a, x), (np.array(1.0), np.array(2.5)),
         # alpha = 1: x is exponential, d x / d alpha = -dP/da / e^-x (quadrature value above)
         ref=lambda a, x: np.float64(1.7970322332601896), rtol=1e-8, id="RandomGammaGrad"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)
