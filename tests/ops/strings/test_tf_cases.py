"""The unicode, n-gram, segment-join, tf.io byte/CSV ops and tf.linalg.svd against what TF 2.21
returns or raises for the same expressions (``tests/fixtures/tf/make_strings_io.py``)."""

import importlib.util
import json
import math
import pathlib

import pytest

import tensortrace as tf

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "tf"
_spec = importlib.util.spec_from_file_location("make_strings_io",
                                               FIXTURES / "make_strings_io.py")
MAKE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKE)
CASES = json.loads((FIXTURES / "strings_io" / "cases.json").read_text())
NS = MAKE.namespace(tf)


def _close(want, got, path):
    if isinstance(want, dict):
        assert isinstance(got, dict) and want.keys() == got.keys(), (path, want, got)
        for k in want:
            _close(want[k], got[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(want) == len(got), (path, want, got)
        for i, (w, g) in enumerate(zip(want, got)):
            _close(w, g, f"{path}[{i}]")
    elif isinstance(want, float) and not isinstance(got, bool):
        assert isinstance(got, float), (path, want, got)
        if math.isnan(want):
            assert math.isnan(got), (path, want, got)
        else:
            assert got == pytest.approx(want, rel=2e-5, abs=1e-9), (path, want, got)
    else:
        assert want == got, (path, want, got)


def test_fixture_lists_every_case():
    assert [c["expr"] for c in CASES] == MAKE.CASES


@pytest.mark.parametrize("case", CASES, ids=[c["expr"][:70] for c in CASES])
def test_as_tf(case):
    got = MAKE.run_case(NS, case["expr"])
    _close(case["result"], got, case["expr"])
