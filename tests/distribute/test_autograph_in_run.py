"""The function a strategy runs inside a tf.function is converted by AutoGraph, as TF 2.21's
``strategy.run`` converts it, also when AutoGraph was not loaded yet in the process (a fresh
interpreter): a Python ``while``/``for``/``if`` on tensors becomes graph control flow, under
MirroredStrategy and MultiWorkerMirroredStrategy. Under ``tf.function(autograph=False)`` it is
not converted, and a tensor used as a Python bool raises TF's OperatorNotAllowedInGraphError
(TF 2.21 gave the same values and error for this program)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = textwrap.dedent('''
    import json, sys
    import tensortrace as tf

    loaded = "tensortrace.autograph" in sys.modules  # AutoGraph itself, not yet
    strategy = (tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"]) if sys.argv[1] == "mirrored"
                else tf.distribute.MultiWorkerMirroredStrategy())

    def replica_fn(x):
        total = tf.constant(0.0)
        i = tf.constant(0)
        while i < tf.cast(tf.reduce_sum(x), tf.int32):
            total += 1.0
            i += 1
        for v in tf.range(3):
            total += tf.cast(v, tf.float32)
        if tf.reduce_sum(x) > 2.5:
            total = total * 10.0
        else:
            total = -total
        return total

    x = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([1.0, 1.0]) * float(ctx.replica_id_in_sync_group + 1))
    out = {"loaded_before": loaded}
    for autograph in (True, False):
        @tf.function(autograph=autograph)
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        try:
            out[str(autograph)] = [float(v) for v in
                                   strategy.experimental_local_results(step(x))]
        except Exception as e:
            out[str(autograph)] = [type(e).__name__, str(e).split(". ")[0]]
    print(json.dumps(out))
''')


@pytest.mark.parametrize("kind, want", [("mirrored", [-5.0, 70.0]), ("multi_worker", [-5.0])])
def test_run_converts_in_a_fresh_process(kind, want, tmp_path):
    script = tmp_path / "program.py"  # AutoGraph reads the source: a file, not -c
    script.write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("TF_CONFIG", None)
    done = subprocess.run([sys.executable, str(script), kind], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["loaded_before"] is False
    # replica 0: x = [1, 1]: the while adds 2, the for 0+1+2, the if negates; replica 1: x = [2,
    # 2]: 4 + 3, times 10
    assert got["True"] == want
    assert got["False"] == ["OperatorNotAllowedInGraphError",
                            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"]
