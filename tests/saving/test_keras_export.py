"""Saving objects that follow TF's Trackable protocol (``_trackable_children``), as Keras'
``model.export`` archive is: its lists of variables, variable wrappers saved as the variables
they wrap, tf.functions, a computed default signature, ``SaveOptions.function_aliases``, and
``tf.saved_model.experimental.TrackableResource``. Keras' ``model.export`` on tensortrace writes
a SavedModel that TF 2.21 loads and serves with the same values
(tests/fixtures/tf/make_keras_export.py) and tensortrace loads back."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.api.internal import AutoTrackable, Trackable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "fixtures", "tf", "make_keras_export.py")
X = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], np.float32)


class _Wrapped(Trackable):
    """A variable wrapper forwarding its saved form to the variable (as Keras' variables)."""

    def __init__(self, value):
        self.value = tf.Variable(value)

    def _serialize_to_tensors(self):
        return {"VARIABLE_VALUE": self.value}


def _archive():
    root = AutoTrackable()
    w, b = _Wrapped(np.eye(3, 2, dtype=np.float32)), _Wrapped(np.array([1.0, -1.0], np.float32))
    root.variables = [w, b]  # a list: not tracked by attribute tracking, saved as TF's wrapper
    root.serve = tf.function(lambda x: tf.matmul(x, w.value) + b.value,
                             input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    return root, np.eye(3, 2, dtype=np.float32), np.array([1.0, -1.0], np.float32)


def test_trackable_protocol_objects_save_and_load(tmp_path):
    root, w, b = _archive()
    path = str(tmp_path / "m")
    tf.saved_model.save(root, path, signatures={"serve": root.serve},
                        options=tf.saved_model.SaveOptions(function_aliases={"f": root.serve}))
    loaded = tf.saved_model.load(path, options=tf.saved_model.LoadOptions(
        experimental_load_function_aliases=True))
    want = X @ w + b
    np.testing.assert_allclose(loaded.serve(X).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded.signatures["serve"](x=tf.constant(X))["output_0"].numpy(),
                               want, rtol=1e-6)
    assert [v.shape.as_list() for v in loaded.variables] == [[3, 2], [2]]
    np.testing.assert_allclose(loaded.function_aliases["f"](X).numpy(), want, rtol=1e-6)
    assert not hasattr(tf.saved_model.load(path), "function_aliases")  # only when asked


def test_computed_default_signature(tmp_path):
    class Model(AutoTrackable):
        def __init__(self):
            self.k = tf.Variable(2.0)

        @property
        def _default_save_signature(self):  # as Keras' models give one
            return tf.function(lambda x: x * self.k,
                               input_signature=[tf.TensorSpec([None], tf.float32)])

    tf.saved_model.save(Model(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    out = loaded.signatures["serving_default"](x=tf.constant([1.0, 3.0]))
    assert list(out) == ["output_0"] and out["output_0"].numpy().tolist() == [2.0, 6.0]


def test_trackable_resource():
    class Counter(tf.saved_model.experimental.TrackableResource):
        made = 0

        def _create_resource(self):
            Counter.made += 1
            return tf.constant(Counter.made)

    r = Counter()
    assert int(r.resource_handle) == 1 and int(r.resource_handle) == 1  # made once
    assert r._trackable_children("checkpoint") == {}
    saved = r._trackable_children("savedmodel")
    assert sorted(saved) == ["_create_resource", "_destroy_resource", "_initialize"]
    with pytest.raises(NotImplementedError, match="_create_resource not implemented"):
        tf.saved_model.experimental.TrackableResource().resource_handle  # noqa: B018


def test_trackable_view_walks_the_trackable_protocol():
    """Keras' export finds the resources its tracked layers hold by walking a TrackableView
    subclass whose ``children`` asks for the SavedModel's children."""

    class Table(tf.saved_model.experimental.TrackableResource):
        def _create_resource(self):
            return tf.constant(0)

    root, inner, table = AutoTrackable(), AutoTrackable(), Table()
    root.inner = inner
    inner._track_trackable(table, "table")

    class SavedModelView(tf.train.TrackableView):
        @classmethod
        def children(cls, obj, save_type="savedmodel", **kwargs):
            return super().children(obj, save_type, **kwargs)

    assert tf.train.TrackableView(root).descendants() == [root, inner, table]
    found = SavedModelView(root).descendants()
    assert found[:3] == [root, inner, table] and len(found) == 6  # + the table's 3 functions
    assert sorted(tf.train.TrackableView.children(inner)) == ["table"]


@pytest.mark.skipif(importlib.util.find_spec("keras") is None, reason="Keras 3 is not installed")
def test_keras_model_export_serves_tf_values(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, KERAS_BACKEND="tensorflow")
    done = subprocess.run([sys.executable, "-m", "tensortrace", SCRIPT, "write",
                           str(tmp_path / "exported")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    with open(os.path.join(ROOT, "tests", "fixtures", "tf", "keras_export",
                           "expected.json")) as f:
        want = json.load(f)  # what TF 2.21 computes with the SavedModel tensortrace wrote
    assert got["signature_keys"] == want["signature_keys"] == ["serve", "serving_default"]
    np.testing.assert_allclose(got["serve"], want["serve"], atol=2e-6)
    np.testing.assert_allclose(got["serving_default"]["output_0"],
                               want["serving_default"]["output_0"], atol=2e-6)
    assert got["variables"] == want["variables"]
