"""Crash-safe save: a child process saves models over one path again and again while its parent
SIGKILLs it at random moments. After every kill the path must load as one of the saved models
(old or new, never nothing, never a mix), and after the next successful save no temporary
directory may remain beside it. Both replacement schemes run: the atomic directory exchange
(Linux's renameat2) and the portable rename-aside fallback whose window ``load`` recovers.

The loop runs in one server process that imports tensortrace once and forks the writers, so a
trial costs milliseconds; ``python tests/reliability/test_crash_save.py TRIALS SEED DIR`` runs
it by hand and prints the tally.
"""

import collections
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

import tensortrace as tf
from tensortrace.saving import io as saving_io
from tensortrace.saving.save import save_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRIALS = 120
SEED = 9


def _models(count):
    """Saved models differing by one value: ``f()`` returns ``[k, 2k + 1]`` for model ``k``,
    with k split between a variable (in the .npz) and a constant (in the document), so a mix
    of two saves' files shows."""
    made = []
    for k in range(1, count + 1):
        m = tf.Module()
        m.v = tf.Variable(np.full([64], float(k), np.float32), name="v")
        m.f = tf.function(_reader(m.v, tf.constant(np.full([64], 2.0 * k + 1.0, np.float32))),
                          input_signature=[])
        m.f.get_concrete_function()
        made.append(m)
    return made


def _reader(v, c):
    return lambda: (v[0] + 0.0, c[0] + 0.0)


def _check(path, valid):
    """'ok' or the failure class of loading ``path``."""
    try:
        a, b = tf.saved_model.load(path).f()
    except Exception as e:  # noqa: BLE001 - what the loop counts
        return f"load failed: {type(e).__name__}"
    k = float(a.numpy())
    if k not in valid or float(b.numpy()) != 2 * k + 1:
        return "wrong model"
    return "ok"


def _slow_rename(rename):
    def slow(src, dst):
        rename(src, dst)
        if ".replaced-" in os.fspath(dst):
            time.sleep(0.003)  # the old model is aside, the new one not yet in place

    return slow


def _strays(parent, name):
    return sorted(n for n in os.listdir(parent) if n != name)


def server(trials, seed, workdir):
    """Run the kill loop; returns the tally of outcomes and a few examples."""
    rng = random.Random(seed)
    models = _models(8)
    valid = {float(k) for k in range(1, len(models) + 1)}
    parent = os.path.join(workdir, "models")
    os.makedirs(parent)
    name = "model"
    path = os.path.join(parent, name)
    save_json(models[0], path)
    tally, examples = collections.Counter(), collections.defaultdict(list)
    exchange = getattr(saving_io, "_EXCHANGE", None)
    for trial in range(trials):
        portable = trial % 2 == 1  # half the trials use the fallback scheme
        pid = os.fork()
        if pid == 0:  # the writer: save until killed
            try:
                if portable:  # and a slow filesystem: kills land between the two renames
                    saving_io._EXCHANGE = None
                    os.rename = _slow_rename(os.rename)
                k = rng.randrange(len(models))
                while True:
                    save_json(models[k], path)
                    k = (k + 1) % len(models)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.001, 0.02))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        scheme = "fallback" if portable else "exchange"
        if _strays(parent, name):
            tally[f"{scheme}: temporaries left by the kill"] += 1
        if not os.path.isdir(path):
            tally[f"{scheme}: no model at the path after the kill"] += 1
        outcome = _check(path, valid)
        tally[f"{scheme}: {outcome}"] += 1
        if outcome != "ok" and len(examples[outcome]) < 3:
            examples[outcome].append(f"trial {trial}: {_strays(parent, name)} "
                                     f"{os.listdir(path) if os.path.isdir(path) else 'no dir'}")
        saving_io._EXCHANGE = exchange
        save_json(models[trial % len(models)], path)  # a later successful save
        if _strays(parent, name):
            tally[f"{scheme}: temporaries after a successful save"] += 1
            if len(examples["strays"]) < 3:
                examples["strays"].append(_strays(parent, name))
        if trial % 8 == 0 and _check(path, valid) != "ok":
            tally[f"{scheme}: a successful save does not load"] += 1
    return {"tally": dict(tally), "examples": dict(examples)}


def run_server(root, workdir, trials=TRIALS, seed=SEED, timeout=120):
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(trials), str(seed),
                           str(workdir)], cwd=root, env=env, capture_output=True,
                          timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def test_kill_during_save_always_leaves_a_loadable_model(tmp_path):
    # on a memory filesystem where there is one: a SIGKILL loses no written data either way,
    # and a disk's fsyncs would make each trial cost a hundred milliseconds
    shm = "/dev/shm"
    workdir = tempfile.mkdtemp(dir=shm) if os.access(shm, os.W_OK) else str(tmp_path)
    try:
        result = run_server(ROOT, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    tally = result["tally"]
    ok = tally.get("exchange: ok", 0) + tally.get("fallback: ok", 0)
    assert ok == TRIALS, result
    assert not any("after a successful save" in k or "does not load" in k for k in tally), result
    # kills did land in the portable scheme's window, and load recovered from them
    assert tally.get("fallback: no model at the path after the kill", 0) > 0, result


if __name__ == "__main__":
    print(json.dumps(server(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])))
