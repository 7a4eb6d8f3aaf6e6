"""tf.sparse, tf.SparseTensor and tf.IndexedSlices cases replayed against what TF 2.21 printed
for them (tests/fixtures/tf/make_sparse.py): values, dtypes, shapes, printing and errors."""

import json
import os

import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "sparse",
                       "expected.json")
with open(FIXTURE) as _f:
    EXPECTED = json.load(_f)


@pytest.fixture(scope="module")
def scope():
    env = {"tf": tf}
    exec(EXPECTED["prelude"], env)
    return env


def _outcome(expr, env):
    try:
        return str(eval(expr, env))
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return f"!! {type(e).__name__}: {e}"


@pytest.mark.parametrize("expr,expected", EXPECTED["cases"], ids=[c[0][:60] for c in
                                                                     EXPECTED["cases"]])
def test_prints_as_tf(expr, expected, scope):
    assert _outcome(expr, scope) == expected
