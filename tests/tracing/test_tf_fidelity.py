"""tf.function fidelity against TF 2.21's recording (``tests/fixtures/tf/make_tracing.py``):
tf.types.experimental and the trace-type protocol, functions creating variables, loop variables
changing in AutoGraph loops, concrete-function calls with wrong arguments, and the errors raised
while a function runs ("defined at (most recent call last)" stacks).

What the comparison leaves out, and why: object addresses and the numbers of ``__inference``
names (process-specific), frames outside the cases file (the runner's), the names of loop
placeholders, scoped node names and tensor names in assert data (graph naming is its own task: TF says ``while/Placeholder``
and ``assert_equal_1/Assert/Assert`` where we say ``loop_var`` and ``Assert``).
"""

import importlib.util
import json
import pathlib
import re

import pytest

import tensortrace as tf

HERE = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "tf" / "tracing"
EXPECTED = json.loads((HERE / "expected.json").read_text())["cases"]


def _load_cases():
    spec = importlib.util.spec_from_file_location("tracing_cases", HERE / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.tf = tf
    return module


CASES = _load_cases()


def normalize(text):
    cases_file = re.escape(str(HERE / "cases.py"))
    text = re.sub(r'File "[^"]*/cases\.py"', 'File "cases.py"', text)
    text = re.sub(r'  File "(?!cases\.py)[^"]*", line \d+, in [^\n]*\n\n', "", text)
    text = re.sub(cases_file, "cases.py", text)
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    text = re.sub(r"__inference_(\w+?)_\d+\b", r"__inference_\1_N", text)
    text = re.sub(r"<tf\.Tensor '[^']*'", "<tf.Tensor '?'", text)
    text = re.sub(r"node (?:[\w.]+/)+(\w+)", r"node \1", text)
    text = re.sub(r"\((?:[\w.]+/)*[\w.]+:\d+\) = \]", "(?) = ]", text)  # assert data names
    return text


def test_every_recorded_case_is_run():
    assert sorted(CASES.cases()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_prints_what_tf_prints(name):
    assert normalize(CASES.run(CASES.cases()[name])) == normalize(EXPECTED[name])
