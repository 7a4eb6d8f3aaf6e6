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


def test_fixture_has_the_guide_cells():
    assert [c["source"] for c in WANT] == MAKE.CELLS
    assert all(c["error"] is None for c in WANT)


def test_every_cell_prints_and_displays_as_tf():
    got = MAKE.run_cells(tf, MAKE.CELLS)
    differ = [(i, WANT[i]["source"][:60], g) for i, (w, g) in enumerate(zip(WANT, got))
              if (w["stdout"], w["display"], w["error"]) != (g["stdout"], g["display"], g["error"])]
    assert differ == []
