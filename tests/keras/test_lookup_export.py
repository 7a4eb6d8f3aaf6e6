"""Keras' ``model.export`` and ``tf.saved_model.save`` of a model whose lookup table is held by
a layer in the model's layer list (StringLookup): the SavedModels tensortrace writes serve what
TF 2.21 serves from them (tests/fixtures/tf/make_keras_lookup_export.py), and tensortrace loads
them back with the same values."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "fixtures", "tf", "make_keras_lookup_export.py")


@pytest.mark.skipif(importlib.util.find_spec("keras") is None, reason="Keras 3 is not installed")
def test_lookup_layer_models_export_and_save_as_tf_serves_them(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, KERAS_BACKEND="tensorflow")
    done = subprocess.run([sys.executable, "-m", "tensortrace", SCRIPT, "write", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    with open(os.path.join(ROOT, "tests", "fixtures", "tf", "keras_lookup_export",
                           "expected.json")) as f:
        want = json.load(f)  # what TF 2.21 computes with the SavedModels tensortrace wrote
    assert got == want
    assert want["serve"][1] == [[0.0, 0.25]]  # "zz": out of vocabulary, row 0
