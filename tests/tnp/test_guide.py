"""The code cells of TF's guide "NumPy API on TensorFlow" run by ``python -m tensortrace`` print
what TF 2.21 printed (tests/fixtures/tf/tnp/guide_tf21.txt), cell by cell.

Cells left out here: the three benchmarks (they print timings only, and take seconds).
``list_devices`` runs (later cells use its result) but its output is not compared: tensortrace's
``tf.config.list_logical_devices`` gives PhysicalDevice objects."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUIDE = os.path.join(ROOT, "tests", "fixtures", "tf", "tnp", "guide.py")
TF_OUTPUT = os.path.join(ROOT, "tests", "fixtures", "tf", "tnp", "guide_tf21.txt")

SKIPPED = ("trace_compilation", "vectorization_benchmark", "sigmoid_benchmark")
NOT_COMPARED = ("list_devices",)
RANDOM = ("example_model",)  # random weights: the printed numbers differ, nothing else
# The tensor class's import path (what ``__class__`` prints) is tensortrace's own.
CLASS_PATHS = ("<class 'tensorflow.python.framework.ops.EagerTensor'>",
               "<class 'tensortrace.tensor.EagerTensor'>")


def _cells(text):
    cells = {}
    for chunk in text.split("=== cell ")[1:]:
        head, _, body = chunk.partition("\n")
        cells[head.split()[1]] = body
    return cells


def _normalize(name, body):
    if name in RANDOM:
        body = re.sub(r"\s+", " ", re.sub(r"-?\d+\.\d*(e[-+]?\d+)?", "#", body))
        body = body.replace(" ]", "]").replace("[ ", "[")
    return body.replace(CLASS_PATHS[1], CLASS_PATHS[0])


def test_guide_cells_print_what_tf_prints():
    done = subprocess.run([sys.executable, "-m", "tensortrace", GUIDE, *SKIPPED], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with open(TF_OUTPUT, encoding="utf-8") as f:
        theirs = _cells(f.read())
    ours = _cells(done.stdout)
    assert set(ours) == set(theirs) - set(SKIPPED)
    for name, body in ours.items():
        if name not in NOT_COMPARED:
            assert _normalize(name, body) == _normalize(name, theirs[name]), name
    assert "!!!" not in done.stdout  # no cell raised
