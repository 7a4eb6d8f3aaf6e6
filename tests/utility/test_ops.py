"""Op table for the utility ops (NoOp, EnsureShape, Timestamp, Bitcast, DenseBincount,
CheckNumerics, RngReadAndSkip) and for the composite utilities built on public ops: kernels
against NumPy, infer against kernels, and the gradients TF defines (or refuses)."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import random_generator as RG
from tensortrace.ops import debugging as Dg
from tensortrace.ops.core import group, no_op
from tensortrace.ops.utility.basic import bitcast, ensure_shape, timestamp
from tensortrace.ops.utility.clipping import clip_by_norm, embedding_lookup
from tensortrace.ops.utility.composites import matvec
from tensortrace.ops.utility.counting import bincount, repeat

from ..autodiff.gradcheck import GradCase, check
from ..autodiff.gradcheck import rand as grad_rand
from ..ops.optable import Case, op_types, rand, run_case

F32, F64 = rand(2, 3), rand(4, dtype=np.float64)
F16 = rand(3, dtype=np.float16)
I32 = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32)
U8 = np.arange(8, dtype=np.uint8)
COUNTS = np.array([1, 1, 3, 0], np.int32)
ROWS = np.array([[1, 1], [0, 3]], np.int64)
GEN = RG.Generator.from_seed(5)


def _same(x, *rest, **kw):
    return x


def _view(dtype):
    def ref(x, type=None):
        x = np.asarray(x)
        if x.itemsize > np.dtype(dtype).itemsize:
            return x.reshape(x.shape + (1,)).view(dtype)
        out = x.view(dtype)
        return out.reshape(x.shape[:-1]) if x.itemsize < np.dtype(dtype).itemsize else out
    return ref


def _no_op_then(x):
    no_op()
    group(x)
    return tf.identity(x)


def _check_timestamp(out, *args):
    assert out.dtype == tf.float64 and abs(float(out) - __import__("time").time()) < 60


def _check_skip(out, *args):
    assert out.dtype == tf.int64 and out.shape == (3,)


CASES = [
    Case(_no_op_then, (F32,), ref=_same, id="NoOp"),
    Case(ensure_shape, (F32,), {"shape": [None, 3]}, ref=_same, id="EnsureShape"),
    Case(ensure_shape, (I32,), {"shape": None}, ref=_same, id="EnsureShape-unknown"),
    Case(ensure_shape, (np.float32(1.5),), {"shape": []}, ref=_same, id="EnsureShape-scalar"),
    Case(timestamp, (), check=_check_timestamp, id="Timestamp"),
    Case(bitcast, (F32,), {"type": tf.int32}, ref=_view(np.int32), id="Bitcast-same"),
    Case(bitcast, (I32,), {"type": tf.uint8}, ref=_view(np.uint8), id="Bitcast-smaller"),
    Case(bitcast, (np.ascontiguousarray(I32[:, :2]),), {"type": tf.float64},
         ref=_view(np.float64), id="Bitcast-larger"),
    Case(bitcast, (F16,), {"type": tf.int16}, ref=_view(np.int16), id="Bitcast-f16"),
    Case(bincount, (COUNTS,), ref=lambda x: np.bincount(x).astype(np.int32),
         dynamic_shape=True, id="DenseBincount"),
    Case(bincount, (COUNTS,), {"weights": np.array([.5, 1, 2, 4], np.float32),
                                 "minlength": 6},
         ref=lambda x, weights, minlength: np.bincount(x, weights, 6).astype(np.float32),
         dynamic_shape=True, id="DenseBincount-weights"),
    Case(bincount, (ROWS,), {"axis": -1, "binary_output": True},
         ref=lambda x, axis, binary_output: np.array([[0, 1, 0, 0], [1, 0, 0, 1]], np.int32),
         dynamic_shape=True, id="DenseBincount-rows"),
    Case(Dg.check_numerics, (F32, "msg"), ref=_same, id="CheckNumerics"),
    Case(Dg.check_numerics, (F64, "msg"), ref=_same, id="CheckNumerics-f64"),
    Case(lambda: GEN.skip(2), (), check=_check_skip, id="RngReadAndSkip"),
    Case(repeat, (I32, 2), {"axis": 1}, ref=lambda x, r, axis: np.repeat(x, r, axis),
         id="repeat-scalar"),
    Case(repeat, (I32, np.array([2, 0], np.int32)), {"axis": 0},
         ref=lambda x, r, axis: np.repeat(x, r, axis), dynamic_shape=True, id="repeat-counts"),
    Case(matvec, (F32, rand(3)), ref=lambda a, b: a @ b, id="matvec"),
    Case(clip_by_norm, (F32, 1.0), {"axes": [1]},
         ref=lambda t, c, axes: t / np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1.0),
         rtol=1e-5, id="clip_by_norm"),
    Case(embedding_lookup, (F32, np.array([[1, 0]], np.int32)),
         ref=lambda p, i: p[i], id="embedding_lookup"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_case(case):
    run_case(case)


def test_every_utility_op_is_in_the_table():
    covered = set().union(*(op_types(c) for c in CASES))
    mine = {"NoOp", "EnsureShape", "Timestamp", "Bitcast", "DenseBincount", "CheckNumerics",
            "RngReadAndSkip"}
    assert mine <= covered


def test_gradients_of_ensure_shape_and_check_numerics_pass_dy_through():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ensure_shape(x * 3.0, [2])
        z = Dg.check_numerics(x * x, "sq")
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [2.0, 4.0])


def test_check_numerics_gradient_checks_the_gradient():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = Dg.check_numerics(x * 2.0, "dbl")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tape.gradient(y, x, output_gradients=tf.constant([np.nan, 1.0]))
    assert str(e.value) == ("{{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} Not a number (NaN) or infinity (Inf) values detected in gradient. "
                            "b'dbl' : Tensor had NaN values [Op:CheckNumerics] name: ")


@pytest.mark.parametrize("fn", [lambda x: bitcast(x, tf.float16),
                                lambda x: bincount(tf.cast(x, tf.int32), weights=x)])
def test_ops_without_a_tf_gradient_raise_lookup_error(fn):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    with pytest.raises(LookupError):
        tape.gradient(y, x)


def test_composites_have_gradients():
    x = tf.constant([[3.0, 4.0], [1.0, 0.0]])
    long, short = tf.constant([3.0, 4.0]), tf.constant([0.3, 0.4])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, long, short])
        clipped = tf.reduce_sum(clip_by_norm(long, 1.0))
        kept = tf.reduce_sum(clip_by_norm(short, 1.0))
        repeated = tf.reduce_sum(repeat(x, [2, 1], axis=0) * 1.5)
        looked = tf.reduce_sum(embedding_lookup(x, [1, 1, 0]))
    np.testing.assert_allclose(tape.gradient(clipped, long).numpy(), [0.032, -0.024], atol=1e-6)
    np.testing.assert_allclose(tape.gradient(kept, short).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(tape.gradient(repeated, x).numpy(), [[3.0, 3.0], [1.5, 1.5]])
    looked_grad = tape.gradient(looked, x)  # TF's IndexedSlices, rows per looked-up id
    assert isinstance(looked_grad, tf.IndexedSlices)
    np.testing.assert_allclose(tf.convert_to_tensor(looked_grad).numpy(),
                               [[1.0, 1.0], [2.0, 2.0]])


# --- finite differences (the autodiff table's harness) ----------------------------------------
GRAD_CASES = [
    GradCase(lambda x: ensure_shape(x * x, [None, 3]), (grad_rand(2, 3),), id="EnsureShape"),
    GradCase(lambda x: Dg.check_numerics(tf.sin(x), "m"), (grad_rand(4),), id="CheckNumerics"),
    GradCase(lambda x: repeat(x * x, [2, 1], axis=0), (grad_rand(2, 3),), dynamic=False,
             id="repeat"),
    GradCase(lambda x: clip_by_norm(x, 1.0, axes=[1]), (grad_rand(2, 3, low=1.0),),
             id="clip_by_norm"),
]


@pytest.mark.parametrize("mode", ["eager", "graph", "dynamic"])
@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_gradients_match_finite_differences(case, mode):
    if mode == "dynamic" and not case.dynamic:
        mode = "graph"
    check(case, mode, order=1)
    if mode == "eager":
        check(case, mode, order=2)
