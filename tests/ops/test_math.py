"""Elementwise math ops: kernels against NumPy, infer against kernels, TF's dtype rules."""

import numpy as np
import pytest

import tensortrace as tf

from .optable import Case, rand, run_case

A, B = rand(2, 3), rand(3)
CASES = [
    Case(tf.math.add, (A, B), ref=np.add, id="add-broadcast"),
    Case(tf.math.add, (rand(4, dtype=np.int32), rand(4, dtype=np.int32)), ref=np.add, id="add-i32"),
    Case(tf.math.subtract, (A, B), ref=np.subtract),
    Case(tf.math.multiply, (rand(2, 1, dtype=np.float64), rand(1, 3, dtype=np.float64)),
         ref=np.multiply),
    Case(tf.math.negative, (A,), ref=np.negative),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_mismatched_dtypes_raise_invalid_argument_naming_both():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 tensor but is a float"):
        tf.constant(1) + tf.constant(1.0)
