"""Keras 3 trains on tensortrace with TF 2.21's numbers: tiny models (Dense MLPs, a CNN with
BatchNorm and seeded Dropout, Embedding + LSTM, a CNN whose last batch is partial, a functional
model with two inputs, a custom ``train_step``, a subclassed model with a custom layer) fitted,
evaluated, predicted, saved to ``.keras`` and ``.weights.h5`` and loaded, a custom training loop
through tf.losses/tf.metrics/tf.optimizers, Keras' TensorBoard callback's event files, and what
fit/evaluate/predict print (progress bars, History), from the same initial weights as
tests/fixtures/tf/make_keras.py gave TF.

The models run in subprocesses (Keras binds ``tensorflow`` for its whole process): under
``python -m tensortrace`` (``import tensorflow`` is tensortrace) and as a program importing
tensortrace and using ``tf.keras``.
"""

import copy
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
# the TensorBoard program reads events with TensorBoard's messages: the tf-formats extra
PROGRAMS = sorted(k for k in EXPECTED if k != "versions" and not (
    k == "tensorboard" and importlib.util.find_spec("tensorboard") is None))


def run(*args, module=("-m", "tensortrace"), only=",".join(PROGRAMS)):
    # COLUMNS: model.summary() draws its table as wide as the terminal (80 when not a tty)
    env = dict(os.environ, PYTHONPATH=ROOT, KERAS_BACKEND="tensorflow", COLUMNS="80")
    done = subprocess.run([sys.executable, *module, SCRIPT, "--print", "--only", only, *args],
                          cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def assert_close(got, want, where):
    """Same keys and strings; numbers within float32 tolerance of TF's (rounded to 1e-6)."""
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            assert_close(got[key], want[key], f"{where}/{key}")
    elif isinstance(want, str) or isinstance(want, bool) or want is None:
        assert got == want, where
    elif isinstance(want, list) and not numeric(want):  # weights of several shapes, events
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{where}[{i}]")
    else:
        np.testing.assert_allclose(np.array(got, float), np.array(want, float),
                                   rtol=1e-4, atol=1e-5, err_msg=where)


def numeric(value):
    try:
        return np.array(value).dtype.kind in "fiu"
    except ValueError:  # ragged
        return False


def compiled_expected():
    """TF's numbers for ``--compiled``: the same, but the model config the TensorBoard callback
    writes says ``run_eagerly: false``."""
    expected = copy.deepcopy(EXPECTED)
    for event in expected["tensorboard"]["train"]["events"]:
        if event[1] == "keras":
            event[6]["compile_config"]["run_eagerly"] = False
    return expected


@pytest.fixture(scope="module")
def eager():
    return run()


@pytest.fixture(scope="module")
def compiled():
    # Keras' default train step is a tf.function returning an Optional (steps_per_execution)
    return run("--compiled")


def test_models_under_the_runner(eager):
    assert sorted(eager) == PROGRAMS
    for name, result in eager.items():
        assert_close(result, EXPECTED[name], name)


def test_tf_keras_from_a_program_importing_tensortrace():
    got = run("--plain", module=(), only="sequential_mlp,custom_loop")
    assert sorted(got) == ["custom_loop", "sequential_mlp"]
    for name, result in got.items():
        assert_close(result, EXPECTED[name], name)
    assert got["sequential_mlp"]["loaded_class"] == "Sequential"


def test_models_compiled_as_keras_runs_them_by_default(compiled):
    assert sorted(compiled) == PROGRAMS
    expected = compiled_expected()
    for name, result in compiled.items():
        assert_close(result, expected[name], name)


def test_weights_h5_and_custom_layer(eager, compiled):
    for got in (eager, compiled):
        done = got["subclassed_custom_layer"]
        assert done["layer_config"] == {"power": 2.0, "name": "scale", "trainable": True,
                                        "weights": ["subclassed/scale/scale",
                                                    "subclassed/scale/shift"]}
        # the fresh instance loaded from .weights.h5 predicts as the trained one
        np.testing.assert_array_equal(done["loaded_predict"], done["predict"])
        assert_close(done["loaded_weights"], done["weights"], "loaded_weights")


def test_progress_bar_and_history_print_as_tf(eager, compiled):
    for got in (eager, compiled):
        printed = got["progress"]
        for key in ("fit_verbose_1", "fit_verbose_2", "evaluate", "predict", "summary"):
            assert printed[key] == EXPECTED["progress"][key], key
        assert printed["fit_verbose_2"].splitlines()[:2] == [
            "Epoch 1/2", "2/2 - T - T - accuracy: 0.5000 - loss: 0.6935"]
        assert printed["params"] == {"verbose": 1, "epochs": 2, "steps": 2}


@pytest.mark.skipif("tensorboard" not in PROGRAMS, reason="needs the tf-formats extra")
def test_tensorboard_callback_writes_tfs_events(eager):
    runs = eager["tensorboard"]
    assert sorted(runs) == ["train", "validation"]
    assert runs["train"]["file"] == "events.out.tfevents.N.HOST.N.N.vN"
    tags = {(step, tag) for step, tag, *_ in runs["train"]["events"]}
    assert {(0, "epoch_loss"), (1, "epoch_loss"), (0, "epoch_accuracy"),
            (1, "logged/hidden/kernel/histogram"), (0, "logged/hidden/bias/image"),
            (0, "keras"), (2, "batch_loss")} <= tags
    # Keras 3 writes no op graph from TF's tf.function (it looks for ``function_spec``)
    assert not any(event[1] == "graph_def" for event in runs["train"]["events"])
    validation = [(step, tag) for step, tag, *_ in runs["validation"]["events"]]
    assert validation[:3] == [(0, "file_version"), (2, "evaluation_accuracy_vs_iterations"),
                              (2, "evaluation_loss_vs_iterations")]
