"""Every tnp function and the NumPy behaviour against TF 2.21's recorded results (dtypes,
shapes, values, error types), with NumPy behaviour off, on ("legacy" promotion) and on with
``prefer_float32``."""

import numpy as np
import pytest

from ._fixture import RECORDED, encode, evaluate, expected, numpy_behavior, same

#: Where TF 2.21's own tnp fails on valid input (its isinf family reads ``.dtype`` of a list):
#: ours gives NumPy's answer, checked here instead of TF's AttributeError.
TF_BUGS = {
    "tnp.isinf([np.inf, 1.0])": np.isinf([np.inf, 1.0]),
    "tnp.isneginf([-np.inf, np.inf])": np.isneginf([-np.inf, np.inf]),
    "tnp.isposinf([-np.inf, np.inf])": np.isposinf([-np.inf, np.inf]),
}


def _needs_numpy_methods(record):
    """TF's record is the error of one of its tnp functions calling ``.astype``/``.ravel``
    with NumPy behaviour off."""
    return record["kind"] == "error" and record["type"] == "AttributeError" and \
        "experimental_enable_numpy_behavior" in record["message"]


def _reference(mode, part, expr):
    if expr in TF_BUGS:
        value = TF_BUGS[expr]
        return {"kind": "tensor", "dtype": value.dtype.name, "shape": list(value.shape),
                "value": encode(value)["value"]}
    theirs = expected(mode, part, expr)
    if expr.startswith("tnp.") and _needs_numpy_methods(theirs):
        # Ours needs no NumPy methods: it gives what TF gives with them on.
        theirs = expected("legacy-0", part, expr)
    return theirs


def _check(mode, part):
    failures = []
    with numpy_behavior(mode):
        for expr in RECORDED["legacy-0"][part]:
            ours, theirs = evaluate(expr), _reference(mode, part, expr)
            if not same(ours, theirs):
                failures.append(f"{expr}: ours {ours} TF {theirs}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("mode", ["legacy-0", "legacy-1", "off-0"])
def test_functions(mode):
    _check(mode, "functions")


@pytest.mark.parametrize("mode", ["legacy-0", "legacy-1", "off-0"])
def test_behavior(mode):
    _check(mode, "behavior")


def test_tf_bugs_are_tf_errors():
    """The TF_BUGS entries are TF's AttributeErrors, not results we disagree with."""
    for expr in TF_BUGS:
        assert expected("legacy-0", "functions", expr)["type"] == "AttributeError"
