"""tf.distribute programs on one machine (MirroredStrategy over CPU devices, OneDeviceStrategy)
print what TF 2.21 printed for them (tests/fixtures/tf/make_distribute.py recorded it)."""

import contextlib
import io
import json
import os

import numpy as np
import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf", "distribute",
                       "programs.json")
with open(FIXTURE) as f:
    PROGRAMS = json.load(f)


def run(source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<program>", "exec"), {"tf": tf})
        except Exception as e:  # noqa: BLE001 - compared with what TF raised
            print(f"{type(e).__name__}: {e}")
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if not n.startswith("values_")))
def test_prints_what_tf_prints(name):
    assert run(PROGRAMS[name]["source"]) == PROGRAMS[name]["output"]


def _rows(text):
    return np.array([[float(x) for x in line.split()] for line in text.strip().splitlines()])


def test_mlp_two_replicas_follow_one_replica_and_tf():
    """A custom training loop under MirroredStrategy(2 CPUs), each replica half of the global
    batch: the losses and weights of one replica with the global batch, and TF's."""
    ours, theirs = _rows(run(PROGRAMS["values_mlp"]["source"])), \
        _rows(PROGRAMS["values_mlp"]["output"])
    two, one = ours
    np.testing.assert_allclose(two, one, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert len(two) == 8 + 5 * 8 + 8 + 8 * 2 + 2  # 8 losses, then the weights
