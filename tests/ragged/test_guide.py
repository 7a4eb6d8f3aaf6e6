"""The ragged tensor guide (tensorflow/docs, site/en/guide/ragged_tensor.ipynb): its code cells
that need no Keras run on tensortrace and print what TF 2.21 printed (recorded by
tests/fixtures/tf/make_ragged_guide.py; two protocol-buffer cells are replaced there by the
ragged tensors they parse)."""

import json
import os
import sys

import tensortrace as tf
from tests.ragged import guide_cells

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "ragged_guide",
                       "expected.json")

#: Cells whose output is not compared, and why: it prints embeddings drawn by an unseeded
#: tf.random.truncated_normal (its hashed word buckets are TF's: tests/ops/test_example_parsing).
NOT_COMPARED = {"ZBs_V7e--PVr"}


def test_guide_cells_print_what_tf_prints(monkeypatch):
    with open(FIXTURE) as f:
        cells = json.load(f)["cells"]
    monkeypatch.setitem(sys.modules, "tensorflow", tf)  # the guide's `import tensorflow as tf`
    outputs = guide_cells.run(tf, [c["source"] for c in cells])
    differ = [(c["id"], c["output"], out) for c, out in zip(cells, outputs)
              if c["id"] not in NOT_COMPARED and out != c["output"]]
    assert not differ, "\n\n".join(f"cell {i}:\nTF:\n{a}\ntensortrace:\n{b}"
                                   for i, a, b in differ)
    assert len(cells) - len(NOT_COMPARED) == 84
    for c, out in zip(cells, outputs):  # the random cell prints a 3x4 float32 tensor
        if c["id"] in NOT_COMPARED:
            assert out.endswith("shape=(3, 4), dtype=float32)\n"), out
