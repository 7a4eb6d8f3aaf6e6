"""Eager errors read as TF 2.21's whole: the one-op function's name first, then the op's, then
the `` name: ...`` tail TF's generated op wrappers append (the name the wrapper got; none when an
input reached the op as a list or string, which TF runs by its slow path). Recorded from TF by
``tests/fixtures/tf/make_eager_errors.py``."""

import builtins
import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import messages

FIXTURES = pathlib.Path(__file__).parent.parent / "fixtures" / "tf"
CASES = json.loads((FIXTURES / "eager_errors" / "cases.json").read_text(encoding="utf-8"))
SETUP = ("a = tf.constant([1, 2]); b = tf.constant([1, 2, 3]); f23 = tf.ones([2, 3]); "
         "f32 = tf.ones([3, 2]); s = tf.constant(['x'])")


@pytest.mark.parametrize("expr", sorted(CASES))
def test_error_text_is_tfs(expr):
    scope = {"tf": tf, "np": np}
    exec(SETUP, scope)
    kind, message = CASES[expr]
    with pytest.raises(getattr(tf.errors, kind, None) or getattr(builtins, kind)) as info:
        eval(expr, scope)
    assert getattr(info.value, "message", str(info.value)) == message
