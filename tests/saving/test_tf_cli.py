"""``python -m tensortrace.saved_model_cli show`` prints what TF's saved_model_cli printed for the
TF-made fixtures (recorded by tests/fixtures/tf/make_savedmodels.py)."""

import ast
import os
import subprocess
import sys

import pytest

from tensortrace import saved_model_cli

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "savedmodels")
OPS_LINE = "contains the following ops: "


def _split_ops(text):
    """The text with the ops line's set (printed in hash order) taken out as a set."""
    lines, ops = [], None
    for line in text.splitlines():
        if OPS_LINE in line:
            head, _, tail = line.partition(OPS_LINE)
            ops = ast.literal_eval(tail)
            line = head + OPS_LINE
        lines.append(line)
    return "\n".join(lines), ops


@pytest.mark.parametrize("name", ["mlp", "conv", "loop", "multi"])
def test_show_all_prints_what_tf_prints(name, capsys):
    saved_model_cli.main(["show", "--dir", os.path.join(FIXTURES, name), "--all"])
    with open(os.path.join(FIXTURES, f"{name}.cli.txt")) as f:
        expected = f.read()
    got_text, got_ops = _split_ops(capsys.readouterr().out)
    want_text, want_ops = _split_ops(expected)
    assert got_text == want_text
    assert got_ops == want_ops and "StatefulPartitionedCall" in got_ops


def test_show_one_signature_prints_what_tf_prints(capsys):
    saved_model_cli.main(["show", "--dir", os.path.join(FIXTURES, "multi"), "--tag_set", "serve",
                          "--signature_def", "add"])
    with open(os.path.join(FIXTURES, "multi.sig_add.cli.txt")) as f:
        assert capsys.readouterr().out == f.read()


def test_signature_keys_and_tag_sets(capsys):
    path = os.path.join(FIXTURES, "multi")
    saved_model_cli.main(["show", "--dir", path, "--tag_set", "serve"])
    assert capsys.readouterr().out == (
        "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
        'SignatureDef key: "__saved_model_init_op"\nSignatureDef key: "add"\n'
        'SignatureDef key: "scaled"\n')
    saved_model_cli.main(["show", "--dir", path])
    assert capsys.readouterr().out == ("The given SavedModel contains the following tag-sets:\n"
                                       "'serve'\n")


def test_errors_are_tfs():
    path = os.path.join(FIXTURES, "multi")
    with pytest.raises(ValueError, match='Could not find signature "nope". Please choose from: '):
        saved_model_cli.show(path, tag_set="serve", signature_def="nope")
    with pytest.raises(RuntimeError, match="MetaGraphDef associated with tag-set train could not "
                       r"be found in the SavedModel. Please use one of the following tag-sets: "
                       r"\['serve'\]"):
        saved_model_cli.show(path, tag_set="train", signature_def="add")
    with pytest.raises(OSError, match="SavedModel file does not exist at: "):
        saved_model_cli.show(FIXTURES, all=True)


def test_runs_as_a_module():
    out = subprocess.run([sys.executable, "-m", "tensortrace.saved_model_cli", "show", "--dir",
                          os.path.join(FIXTURES, "mlp"), "--tag_set", "serve",
                          "--signature_def", "serving_default"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert out.splitlines()[:5] == [
        "The given SavedModel SignatureDef contains the following input(s):",
        "  inputs['x'] tensor_info:", "      dtype: DT_FLOAT", "      shape: (-1, 3)",
        "      name: serving_default_x:0"]
