"""Runs notebook code cells in one namespace the way a notebook shows them: what a cell prints,
then the repr of its last expression; an exception is shown as ``Type: message``. Shared by the
fixture script (on TensorFlow) and tests/ragged/test_guide.py (on tensortrace)."""

import ast
import contextlib
import io
import math


def run(tf, cells):
    """The output of each cell (source text) run in order with ``tf`` as the module."""
    env = {"tf": tf, "math": math, "__name__": "__guide__"}
    outputs = []
    for source in cells:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                _run_cell(source, env)
        except Exception as e:  # noqa: BLE001 - the cell's error is its output
            out.write(f"{type(e).__name__}: {e}\n")
        outputs.append(out.getvalue())
    return outputs


def _run_cell(source, env):
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    exec(compile(tree, "<cell>", "exec"), env)  # noqa: S102 - the guide's own code
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), env)  # noqa: S307
        if value is not None:
            print(repr(value))
