"""TF's "Unicode strings" guide, cell by cell, against what TF 2.21 printed and displayed for
each cell (``tests/fixtures/tf/make_unicode_guide.py``)."""

import importlib.util
import json
import pathlib

import tensortrace as tf

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "tf"
_spec = importlib.util.spec_from_file_location("make_unicode_guide",
                                               FIXTURES / "make_unicode_guide.py")
MAKE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKE)
WANT = json.loads((FIXTURES / "unicode_guide" / "cells.json").read_text())

# Cells 11 and 14 need RaggedTensor.to_sparse/from_sparse, cell 25 ragged slicing and tf.concat
# / tf.not_equal on RaggedTensors (26 and 27 use its results): ragged-tensor features, not the
# string ops'. Every other cell prints and displays exactly what TF does.
IDENTICAL = [i for i in range(len(WANT)) if i not in (11, 14, 25, 26, 27)]


def test_fixture_has_the_guide_cells():
    assert [c["source"] for c in WANT] == MAKE.CELLS
    assert all(c["error"] is None for c in WANT)


def test_cells_print_and_display_as_tf():
    got = MAKE.run_cells(tf, MAKE.CELLS)
    same = [i for i, (w, g) in enumerate(zip(WANT, got))
            if (w["stdout"], w["display"], w["error"]) == (g["stdout"], g["display"], g["error"])]
    missing = sorted(set(IDENTICAL) - set(same))
    assert not missing, [(i, WANT[i]["source"][:60], got[i]) for i in missing]
