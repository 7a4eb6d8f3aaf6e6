"""Keras 3 trains on tensortrace with TF 2.21's numbers: tiny models (Dense MLPs, a CNN with
BatchNorm and seeded Dropout, Embedding + LSTM) fitted, evaluated, predicted, saved to ``.keras``
and loaded, and a custom training loop through tf.losses/tf.metrics/tf.optimizers, from the same
initial weights as tests/fixtures/tf/make_keras.py gave TF.

The models run in subprocesses (Keras binds ``tensorflow`` for its whole process): under
``python -m tensortrace`` (``import tensorflow`` is tensortrace) and as a program importing
tensortrace and using ``tf.keras``.
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

# the optional extra: pip install 'tensortrace[keras]' (found, not imported: it binds tensorflow)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                reason="Keras 3 is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "fixtures", "tf", "make_keras.py")
with open(os.path.join(ROOT, "tests", "fixtures", "tf", "keras", "expected.json")) as _f:
    EXPECTED = json.load(_f)


def run(*args, module=("-m", "tensortrace")):
    env = dict(os.environ, PYTHONPATH=ROOT, KERAS_BACKEND="tensorflow")
    done = subprocess.run([sys.executable, *module, SCRIPT, "--print", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def assert_close(got, want, where):
    """Same keys and strings; numbers within float32 tolerance of TF's (rounded to 1e-6)."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            assert_close(got[key], want[key], f"{where}/{key}")
    elif isinstance(want, str):
        assert got == want, where
    elif isinstance(want, list) and want and isinstance(want[0], list) and \
            where.endswith("weights"):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{where}[{i}]")
    else:
        np.testing.assert_allclose(np.array(got, float), np.array(want, float),
                                   rtol=1e-4, atol=1e-5, err_msg=where)


def test_models_under_the_runner():
    got = run()
    assert sorted(got) == sorted(k for k in EXPECTED if k != "versions")
    for name, result in got.items():
        assert_close(result, EXPECTED[name], name)


def test_tf_keras_from_a_program_importing_tensortrace():
    got = run("--plain", "--only", "sequential_mlp,custom_loop", module=())
    assert sorted(got) == ["custom_loop", "sequential_mlp"]
    for name, result in got.items():
        assert_close(result, EXPECTED[name], name)
    assert got["sequential_mlp"]["loaded_class"] == "Sequential"


def test_models_compiled_as_keras_runs_them_by_default():
    # Keras' default train step is a tf.function returning an Optional (steps_per_execution)
    got = run("--compiled")
    assert sorted(got) == sorted(k for k in EXPECTED if k != "versions")
    for name, result in got.items():
        assert_close(result, EXPECTED[name], name)
