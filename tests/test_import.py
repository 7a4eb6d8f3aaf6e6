"""Deferred loading: ``import tensortrace`` loads only the package's vocabulary; namespaces, op
families, gradient rules, AutoGraph, tf.data and SavedModel load on first use, and nothing is
lost: every public name, op type, gradient rule and Tensor operator is reachable from a fresh
import. Each check runs in a fresh interpreter (what is loaded depends on what ran before).
Import time itself is measured by bench/bench_import.py, not asserted here (it is noisy)."""

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The engine modules ``import tensortrace`` loads: the rest waits for first use.
EAGER = {"tensortrace", "tensortrace._export", "tensortrace.api", "tensortrace.api._table",
         "tensortrace.dtypes", "tensortrace.errors", "tensortrace.shapes"}


LOADED = """
import json, sys
def loaded():  # engine modules (the namespaces made in memory have no file)
    return sorted(m for m, mod in list(sys.modules.items())
                  if m.startswith("tensortrace") and getattr(mod, "__file__", None))
steps = {}
"""


def run(code, timeout=180):
    """Run ``code`` (after LOADED's helper) in a fresh interpreter at the repository root;
    returns what it printed as JSON (its last line)."""
    source = textwrap.dedent(LOADED) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", source], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])




def test_import_loads_only_the_vocabulary_and_first_uses_load_the_rest():
    steps = run("""
    import tensortrace as tf
    steps["import"] = loaded()
    names = len(dir(tf))
    steps["dir"] = loaded()
    x = tf.constant(1.0) + 1
    steps["first op"] = loaded()
    f = tf.function(lambda v: v * 2)
    steps["tf.function"] = loaded()
    f(x)
    steps["first call"] = loaded()
    ds = tf.data.Dataset.range(3)
    steps["tf.data"] = loaded()
    tf.strings.length("abc")
    steps["tf.strings"] = loaded()
    tf.saved_model.SaveOptions()
    steps["tf.saved_model"] = loaded()
    print(json.dumps({"values": [float(x), float(f(x)), list(map(int, ds))], **steps}))
    """)
    assert set(steps["import"]) == EAGER
    assert steps["dir"] == steps["import"]  # dir(tf) lists every name without loading it

    def new(step, before):
        return set(steps[step]) - set(steps[before])

    def has(step, *modules):
        return all(f"tensortrace.{m}" in steps[step] for m in modules)

    def lacks(step, *modules):
        return not any(m == f"tensortrace.{p}" or m.startswith(f"tensortrace.{p}.")
                       for m in steps[step] for p in modules)

    assert steps["values"] == [2.0, 4.0, [0, 1, 2]]
    assert has("first op", "convert", "ops.math.operators")
    assert lacks("first op", "ops.nn", "ops.linalg", "ops.strings", "autodiff", "tracing",
                 "autograph", "data", "saving")
    assert has("tf.function", "tracing.function") and lacks("tf.function", "autograph")
    assert has("first call", "autograph.conversion")  # AutoGraph: on the first conversion
    assert lacks("first call", "data", "saving", "ops.strings", "ops.nn")
    assert has("tf.data", "data.dataset") and lacks("tf.data", "saving", "ops.strings")
    assert {m.rsplit(".", 1)[0] for m in new("tf.strings", "tf.data")} >= {
        "tensortrace.ops.strings"}
    assert has("tf.saved_model", "saving.save", "saving.load")


def test_the_table_is_current():
    """The generated table matches a full import (run the generator after adding an op, an
    export, a gradient rule or an operator)."""
    done = subprocess.run([sys.executable, "-m", "tensortrace.api.generate", "--check"],
                          check=False, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr


def test_dir_lists_every_public_name_and_each_resolves():
    got = run("""
    import tensortrace as tf
    from tensortrace import api

    def namespaces():
        yield "", tf
        for ns in api.NAMESPACES:
            obj = tf
            for part in ns.split("."):
                obj = getattr(obj, part)
            yield ns, obj

    fresh = {ns: [n for n in dir(m) if not n.startswith("_")] for ns, m in namespaces()}
    star, star_math = {}, {}
    exec("from tensortrace import *", star)  # every public name, loaded through __all__
    exec("from tensortrace.math import *", star_math)
    missing = [f"{ns}.{n}" for ns, m in namespaces() for n in fresh[ns] if not hasattr(m, n)]
    api.load_everything()
    full = {ns: [n for n in dir(m) if not n.startswith("_")] for ns, m in namespaces()}
    print(json.dumps({"fresh": fresh, "full": full, "missing": missing,
                      "star": sorted(n for n in star if not n.startswith("_")),
                      "star math": sorted(n for n in star_math if not n.startswith("_")),
                      "unknown": [hasattr(tf, "no_such_name"), hasattr(tf.math, "nope")],
                      "same": [tf.math.add is tf.add, tf.dtypes.float32 is tf.float32,
                               tf.nest is sys.modules["tensortrace.nest"]]}))
    """)
    assert got["missing"] == []
    assert got["fresh"] == got["full"]  # a full load adds no name that dir(tf) did not promise
    assert {"function", "Variable", "constant", "GradientTape", "float32", "newaxis", "data",
            "saved_model", "math", "ops", "nest"} <= set(got["fresh"][""])
    assert {"Dataset", "AUTOTUNE", "experimental"} <= set(got["fresh"]["data"])
    assert {"add", "reduce_sum", "sin"} <= set(got["fresh"]["math"])
    assert got["unknown"] == [False, False]
    assert got["same"] == [True, True, True]
    assert got["star"] == got["fresh"][""] and got["star math"] == got["fresh"]["math"]


def test_ops_and_gradient_rules_load_on_demand():
    got = run("""
    import pickle
    import numpy as np
    from tensortrace import registry
    from tensortrace.api import _table
    from tensortrace.tensor import EagerTensor
    steps["import"] = loaded()
    # a graph or SavedModel naming an op: the registry loads the family defining it
    steps["StringLength"] = registry.get("StringLength").name
    steps["after get"] = loaded()
    relu = registry.get("Relu")
    steps["before grad"] = loaded()
    steps["relu grad"] = callable(relu.grad)
    steps["after grad"] = loaded()
    from tensortrace.ops.math.compare import EQUAL
    steps["equal"] = EQUAL.grad is registry.NON_DIFFERENTIABLE
    # a tensor made without the public surface (unpickled) still has every operator
    t = pickle.loads(pickle.dumps(EagerTensor._wrap(np.array([[1.0, 2.0]], np.float32))))
    steps["operators"] = [(t + 1).numpy().tolist(), (t @ np.ones((2, 1), np.float32)).numpy()
                          .tolist(), float(t[0, 1]), (-t).numpy().tolist()]
    # every op of a full import is reachable from here, each loading its own module
    table = {op: m for m, ops in _table.OPS.items() for op in ops.split()}
    steps["wrong"] = [op for op in sorted(table) if registry.get(op).name != op]
    grads = {op for ops in _table.GRADS.values() for op in ops.split()}
    steps["no rule"] = sorted(op for op in grads if registry.get(op).grad is None)
    steps["ops"], steps["all"] = sorted(table), sorted(registry.all_ops())
    print(json.dumps(steps))
    """)
    assert "tensortrace.ops.strings.elementwise" in set(got["after get"]) - set(got["import"])
    assert not any(m.startswith("tensortrace.autodiff") for m in got["before grad"])
    assert got["relu grad"] and "tensortrace.autodiff.rules.nn" in got["after grad"]
    assert got["equal"] and got["StringLength"] == "StringLength"
    assert got["operators"] == [[[2.0, 3.0]], [[3.0]], 2.0, [[-1.0, -2.0]]]
    assert got["wrong"] == [] and got["no rule"] == []
    assert got["all"] == got["ops"] and len(got["ops"]) > 250  # the table names every op


def test_a_saved_model_runs_and_differentiates_ops_no_one_imported(tmp_path):
    path = str(tmp_path / "model")
    run(f"""
    import json
    import tensortrace as tf

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def f(self, x):
            return tf.nn.relu(x) * tf.math.sin(x) + tf.cast(tf.strings.length("ab"), tf.float32)

    tf.saved_model.save(M(), {path!r})
    print(json.dumps(True))
    """)
    got = run(f"""
    import tensortrace as tf
    load = tf.saved_model.load
    steps["saving"] = loaded()
    m = load({path!r})
    steps["loaded"] = loaded()
    x = tf.constant([-1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = m.f(x)
    steps["y"] = y.numpy().tolist()
    steps["dy"] = tape.gradient(y, x).numpy().tolist()
    steps["after"] = loaded()
    print(json.dumps(steps))
    """)
    assert got["y"] == pytest.approx([2.0, 2.0 * math.sin(2.0) + 2.0])
    assert got["dy"] == pytest.approx([0.0, math.sin(2.0) + 2.0 * math.cos(2.0)])
    assert "tensortrace.ops.nn.activations" not in got["saving"]
    assert "tensortrace.ops.nn.activations" in got["loaded"]  # by the registry, on demand
    assert "tensortrace.autodiff.rules.nn" in got["after"]


def test_first_uses_from_many_threads_at_once():
    got = run("""
    import json, threading
    import tensortrace as tf
    jobs = {
        "nn": lambda: float(tf.reduce_sum(tf.nn.relu(tf.constant([-1.0, 2.0])))),
        "linalg": lambda: float(tf.linalg.det(tf.constant([[2.0, 0.0], [0.0, 3.0]]))),
        "strings": lambda: int(tf.strings.length("abcd")),
        "data": lambda: [int(v) for v in tf.data.Dataset.range(3)],
        "function": lambda: float(tf.function(lambda v: v * v)(tf.constant(3.0))),
        "gradient": lambda: _grad(),
        "random": lambda: tf.random.uniform([2]).shape.as_list(),
        "signal": lambda: sorted(dir(tf.signal)) == sorted(dir(tf.signal)),
    }

    def _grad():
        x = tf.constant(2.0)
        with tf.GradientTape() as g:
            g.watch(x)
            y = tf.math.tanh(x) * x
        return float(g.gradient(y, x))

    barrier = threading.Barrier(len(jobs))
    results, errors = {}, []

    def work(name, fn):
        barrier.wait()
        try:
            results[name] = fn()
        except Exception as e:
            errors.append(f"{name}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=item) for item in jobs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"results": results, "errors": errors}))
    """)
    assert got["errors"] == []
    r = got["results"]
    assert r["nn"] == 2.0 and r["linalg"] == pytest.approx(6.0) and r["strings"] == 4
    assert r["data"] == [0, 1, 2] and r["function"] == 9.0 and r["random"] == [2]
    assert r["gradient"] == pytest.approx(math.tanh(2.0) + 2.0 * (1 - math.tanh(2.0) ** 2))
    assert r["signal"] is True


def test_the_tensorflow_shim_forwards_names_loaded_later(tmp_path):
    """``python -m tensortrace``: the ``tensorflow`` module forwards names as they load, lists
    them all in dir() and ``__all__`` (a star import), and its namespaces too."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import json, sys
        import tensorflow as tf
        names = dir(tf)
        from tensorflow import *
        from tensorflow.math import *
        sys.stdout.write(json.dumps({
            "dir": ["reduce_sum" in names, "data" in names, "ops" in names],
            "star": [float(reduce_sum(constant([1.0, 2.0]))), int(add(1, 2)),
                     float(log_sigmoid(0.0))],
            "data": [int(v) for v in tf.data.Dataset.range(2)]}) + "\\n")
    """))
    done = subprocess.run([sys.executable, "-m", "tensortrace", str(script)], check=False,
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["dir"] == [True, True, False]  # engine modules are not TensorFlow's
    assert got["star"] == [3.0, 3, pytest.approx(-math.log(2.0))]
    assert got["data"] == [0, 1]
