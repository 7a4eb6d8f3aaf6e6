"""What ``tf.keras`` costs to import: Keras' import loads only the part of tensortrace it uses
(the strategies, tf.data, summaries, AutoGraph, image and string ops wait for first use), and
runs with the cyclic garbage collector paused, its objects frozen afterwards, the user's
collector setting kept. Each check runs in a fresh interpreter (what is loaded, and the
collector's state, depend on what ran before)."""

import gc
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tensortrace._tf_internal import keras as tf_keras

ROOT = Path(__file__).resolve().parent.parent

needs_keras = pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                                 reason="Keras 3 is not installed")

#: Packages of tensortrace that Keras' import does not need (each pulls tens of modules).
DEFERRED = ("distribute", "data", "summary", "autograph", "saving", "ops.image", "ops.strings",
            "ops.nn", "ops.linalg", "ops.utility", "_tf_internal.tools")

REPORT = """
import gc, json, sys
import keras
print(json.dumps({
    "loaded": sorted(m for m, mod in list(sys.modules.items())
                     if m.startswith("tensortrace") and getattr(mod, "__file__", None)),
    "enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
    "loader": type(keras.__spec__.loader).__module__ + "." + type(keras.__loader__).__name__,
    "fit_over_workers": getattr(sys.modules["keras.src.backend.tensorflow.trainer"]
                                .reduce_per_replica, "_tt_scalars_over_workers", False)}))
"""


def run(code, script=None):
    """Run ``code`` (then REPORT) in a fresh interpreter at the repository root, as ``python -c``
    or, given a ``script`` path, as ``python -m tensortrace script``; returns REPORT's JSON."""
    source = textwrap.dedent(code) + REPORT
    if script is not None:
        script.write_text(source)
    args = ["-c", source] if script is None else ["-m", "tensortrace", str(script)]
    done = subprocess.run([sys.executable, *args], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=180, env={**os.environ, "KERAS_BACKEND": "tensorflow"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def lacks(loaded, *packages):
    return [m for m in loaded for p in packages
            if m == f"tensortrace.{p}" or m.startswith(f"tensortrace.{p}.")]


@needs_keras
def test_tf_keras_loads_only_what_keras_import_uses_and_freezes_its_objects():
    got = run("""
    import tensortrace as tf
    tf.keras.layers
    """)
    assert lacks(got["loaded"], *DEFERRED) == []
    assert "tensortrace.checkpoint.tracking" in got["loaded"]  # Keras' layers are Trackables
    assert got["enabled"] is True
    assert got["frozen"] > 50_000  # Keras' modules, classes and functions
    assert got["loader"] != "tensortrace._tf_internal.keras._PausedCollectorLoader"
    assert got["fit_over_workers"] is True  # Keras' fit under MultiWorkerMirroredStrategy


@needs_keras
def test_import_keras_under_the_runner_keeps_a_disabled_collector_disabled(tmp_path):
    got = run("""
    import gc
    gc.disable()
    """, script=tmp_path / "script.py")
    assert lacks(got["loaded"], *DEFERRED) == []
    assert got["enabled"] is False  # the program's own choice
    assert got["frozen"] > 50_000  # ``import keras`` itself went through the shim's finder
    assert got["fit_over_workers"] is True  # the same Keras as tf.keras gives


def test_collector_paused_restores_the_collector_when_the_import_fails():
    frozen = gc.get_freeze_count()
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            with pytest.raises(ImportError, match="half-run"):
                with tf_keras.collector_paused():
                    assert not gc.isenabled()
                    raise ImportError("half-run module")
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert gc.get_freeze_count() == frozen  # a failed import's objects are garbage: not frozen


def test_tf_internal_distribute_loads_the_strategies_on_first_use():
    """TF 2.21: ``strategy_supports_no_merge_call()`` is True outside any strategy."""
    got = json.loads(subprocess.run([sys.executable, "-c", textwrap.dedent("""
    import json, sys
    import tensortrace as tf
    ns = tf.__internal__.distribute
    before = "tensortrace.distribute.strategy" in sys.modules
    names = {n for n in dir(ns) if not n.startswith("_")}
    interim = [n for n in dir(ns.interim) if not n.startswith("_")]
    after_dir = "tensortrace.distribute.strategy" in sys.modules
    print(json.dumps({"before": before, "after_dir": after_dir,
                      "names": sorted(names), "interim": interim,
                      "no_merge_call": ns.strategy_supports_no_merge_call(),
                      "same": ns.interim.maybe_merge_call is sys.modules[
                          "tensortrace.distribute.strategy"].maybe_merge_call,
                      "unknown": hasattr(ns, "no_such_name")}))
    """)], check=True, cwd=ROOT, capture_output=True, text=True, timeout=120).stdout)
    assert got["before"] is False and got["after_dir"] is False  # dir() loads nothing
    assert {"strategy_supports_no_merge_call", "interim"} <= set(got["names"])
    assert got["interim"] == ["maybe_merge_call"]
    assert got["no_merge_call"] is True and got["same"] is True and got["unknown"] is False
