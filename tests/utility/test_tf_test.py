"""``tf.test`` against TF 2.21's recording (``tests/fixtures/tf/make_kguide.py``): the gradient
checker's Jacobians, TestCase's assert messages, the build queries of a CPU-only build; and
TestCase run as a unittest case."""

import importlib.util
import json
import pathlib
import sys
import unittest

import numpy as np
import pytest

import tensortrace as tf

HERE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tf"
EXPECTED = json.loads((HERE / "kguide" / "expected.json").read_text())["test_helpers"]


@pytest.fixture(scope="module")
def recorded():
    saved = sys.modules.get("tensorflow")
    sys.modules["tensorflow"] = tf
    try:
        spec = importlib.util.spec_from_file_location("make_kguide", HERE / "make_kguide.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.test_helpers()
    finally:
        if saved is None:
            del sys.modules["tensorflow"]
        else:
            sys.modules["tensorflow"] = saved


def _tf_part(message):
    """The part of an assert message TF writes (NumPy's own report follows it)."""
    return message.split("Mismatched elements")[0] if message else message


def test_compute_gradient_matches_tf(recorded):
    for key in ("theoretical", "numerical", "t64", "n64", "dtypes", "not_list"):
        assert recorded[key] == EXPECTED[key], key


def test_build_queries_and_deprecated_gpu_check(recorded):
    assert recorded["builds"] == EXPECTED["builds"]


def test_assert_messages_match_tf(recorded):
    assert set(recorded["messages"]) == set(EXPECTED["messages"])
    for name, message in EXPECTED["messages"].items():
        assert _tf_part(recorded["messages"][name]) == _tf_part(message), name


def test_test_case_runs_under_unittest(tmp_path):
    class Case(tf.test.TestCase):
        def test_values(self):
            self.assertAllClose({"a": tf.constant([1.0, 2.0])}, {"a": [1.0, 2.0000001]})
            self.assertAllEqual(tf.constant([[1, 2]]), np.array([[1, 2]]))
            self.assertAllCloseAccordingToType(np.float16(1.0), np.float16(1.0005))
            self.assertShapeEqual(np.zeros((2, 3)), tf.zeros([2, 3]))
            self.assertDTypeEqual(tf.constant([1], tf.int64), np.int64)
            self.assertEqual(self.evaluate({"x": tf.constant(3)}), {"x": 3})
            self.assertEqual(self.get_temp_dir(), self.get_temp_dir())
            with self.cached_session():
                pass

        def test_fails(self):
            self.assertAllClose(1.0, 1.001)

        @tf.test.disable_with_predicate(lambda: True, "disabled here")
        def test_skipped(self):
            raise AssertionError("never runs")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    assert result.testsRun == 3
    assert [t.id().rsplit(".", 1)[1] for t, _ in result.failures] == ["test_fails"]
    assert not result.errors and [why for _, why in result.skipped] == ["disabled here"]


def test_session_stand_in_refuses_use():
    case = tf.test.TestCase("__init__")
    with case.session() as sess:
        with pytest.raises(AttributeError, match="while eager execution is enabled"):
            sess.run
