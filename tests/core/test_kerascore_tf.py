"""What Keras 3 needs of the core, replayed against what TF 2.21 printed for it
(tests/fixtures/tf/make_kerascore.py): Optional as a composite through nest, functions, cond,
while_loop and datasets; SparseTensor/RaggedTensor loop variables and branch outputs;
IndexedSlices gradients and dispatch; a CNN's gradients traced with a batch of None."""

import ast
import json
import os
import warnings

import numpy as np
import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "kerascore",
                       "expected.json")
with open(FIXTURE) as _f:
    EXPECTED = json.load(_f)


@pytest.fixture(scope="module")
def scope():
    env = {"tf": tf}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(EXPECTED["prelude"], env)
    return env


def _outcome(expr, env):
    try:
        return str(eval(expr, env))
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return f"!! {type(e).__name__}: {e}"


def _leaves(text):
    """The leaves of a printed structure of rounded values: (floats, everything else)."""
    def flat(x):
        return [y for v in x for y in flat(v)] if isinstance(x, (list, tuple)) else [x]
    leaves = flat(ast.literal_eval(text))
    return (np.array([x for x in leaves if isinstance(x, float)]),
            [x for x in leaves if not isinstance(x, float)])


@pytest.mark.parametrize("expr,expected", EXPECTED["cases"], ids=[c[0][:60] for c in
                                                                     EXPECTED["cases"]])
def test_as_tf(expr, expected, scope):
    got = _outcome(expr, scope)
    if "r4(" in expr or expr.startswith("keras_fit"):
        # rounded float32 values, summed in another order: equal to the rounding
        (got_f, got_rest), (want_f, want_rest) = _leaves(got), _leaves(expected)
        assert got_rest == want_rest
        np.testing.assert_allclose(got_f, want_f, rtol=1e-4, atol=3e-4)
    else:
        assert got == expected
