"""The sparse tensor guide (tensorflow/docs site/en/guide/sparse_tensor.ipynb): its code cells
run in order print what TF 2.21 printed for them (tests/fixtures/tf/make_sparse.py; the Keras
cell is replaced by the data it defines)."""

import contextlib
import io
import json
import os

import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "sparse",
                       "expected.json")
with open(FIXTURE) as _f:
    CELLS = json.load(_f)["guide"]


@pytest.fixture(scope="module")
def notebook():
    return {"tf": tf}


@pytest.mark.parametrize("number", range(len(CELLS)))
def test_cell_prints_as_tf(number, notebook):
    source, expected = CELLS[number]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(source, notebook)
    assert out.getvalue() == expected
