"""tf.function fidelity against TF 2.21's recording (``tests/fixtures/tf/make_tracing.py``):
tf.types.experimental and the trace-type protocol, functions creating variables, loop variables
changing in AutoGraph loops, concrete-function calls with wrong arguments, the errors raised
while a function runs ("defined at (most recent call last)" stacks) and tf.autograph.to_code's
generated form.

What the comparison leaves out, and why: object addresses and the numbers of ``__inference``
names (process-specific), frames outside the cases file (the runner's), the names of loop
placeholders, scoped node names and tensor names in assert data (graph naming is its own task:
TF says ``while/Placeholder`` and ``assert_equal_1/Assert/Assert`` where we say ``loop_var`` and
``Assert``).
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


def _sorted_names(match, quote=""):
    names = sorted(n.strip() for n in match.group(2).split(",") if n.strip())
    return match.group(1) + ", ".join(names) + match.group(3)


def normalize_code(text):
    """Generated code, leaving out what TF prints in no fixed order (state variables come from
    a set: its order changes between TF runs), TF's stray ``(break_,)`` statement, and the
    ``x = ag__.Undefined('x')`` declarations TF puts before a loop for its loop-local names
    (ours keep them local to the loop body)."""
    text = re.sub(r"(nonlocal )([\w, ]+)(\n)", _sorted_names, text)
    text = re.sub(r"(return \()(\w+(?:, \w+)+)(\))", _sorted_names, text)
    text = re.sub(r"(\n\s*)(\w+(?:, \w+)+)( = vars_)", _sorted_names, text)
    text = re.sub(r"(\()('\w+'(?:, '\w+')+)(\))", _sorted_names, text)
    text = re.sub(r"\n\s*\(\w+,\)(?=\n)", "", text)
    text = re.sub(r"\n\s*\w+ = ag__\.Undefined\('\w+'\)(?=\n)", "", text)
    return text


def test_every_recorded_case_is_run():
    assert sorted(CASES.cases()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if not n.startswith("to_code")))
def test_prints_what_tf_prints(name):
    assert normalize(CASES.run(CASES.cases()[name])) == normalize(EXPECTED[name])


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n.startswith("to_code")))
def test_to_code_prints_tf_generated_form(name):
    assert normalize_code(CASES.run(CASES.cases()[name])) == normalize_code(EXPECTED[name])


def test_generated_code_runs_as_shown():
    """The code to_code shows is the code that runs: its FunctionScope, loads and returns."""
    fn = tf.function(CASES._first_big)
    assert fn(tf.constant([1, 5, 7])).numpy() == 5
    assert fn(tf.constant([1, 2])).numpy() == -1
    assert tf.function(CASES._positive_or_none)(3) == 3
    assert tf.function(CASES._positive_or_none)(-3) is None
    assert tf.function(CASES._sum_until_big)(tf.constant([1, 2, 5, 1])).numpy() == 3
