"""What tf.saved_model.load returns prints and fails as TF 2.21's does: signatures (keyword
inputs in sorted order, outputs named by key), their structured inputs and outputs, the short
and long signature texts, restored functions and their call errors (TF's text recorded by
tests/fixtures/tf/make_loaded_objects.py)."""

import os
import re

import tensortrace as tf
from tests.fixtures.tf import make_loaded_objects as fixture

EXPECTED = os.path.join(os.path.dirname(fixture.__file__), "loaded_objects", "expected.txt")


def _canon(text):
    """Dict items sorted: TF's order is its proto map's, which varies from run to run."""
    text = re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(
        re.split(r", (?=')", m.group(1)))) + "}", text)
    return re.sub(r"Dict\[\[([^\[\]]*(?:\], \[[^\[\]]*)*)\]\]", lambda m: "Dict[[" + "], [".join(
        sorted(m.group(1).split("], ["))) + "]]", text)


def test_loaded_objects_print_as_tf(tmp_path):
    got = fixture.normalize("\n-----\n".join(fixture.scenario(tf, str(tmp_path / "m")))) + "\n"
    with open(EXPECTED, encoding="utf-8") as f:
        want = f.read()
    assert [_canon(c) for c in got.split("\n-----\n")] == \
        [_canon(c) for c in want.split("\n-----\n")]
