"""Run a notebook's code cells in one namespace, as Jupyter would, and record each cell's output.

usage: python _cells.py CELLS.json OUT.json   (CELLS.json: a list of cell sources)

Under ``python -m tensortrace`` the cells' ``import tensorflow`` gives tensortrace; under an
interpreter with TensorFlow they run on TensorFlow. Each cell's record is its printed text, plus the
repr of a last bare expression (what Jupyter displays), or the error it raised; a failing cell does
not stop the cells after it.
"""

import ast
import contextlib
import io
import json
import os
import sys
import traceback


def _missing_api(exc):
    shim = sys.modules.get("tensortrace.shim")
    found = shim.explain(exc) if shim is not None else None
    return None if found is None else found.summary


def run_cell(source, namespace, filename):
    out = io.StringIO()
    record = {"status": "ok"}
    # The cell is a file, as IPython's cells are in linecache: AutoGraph (TF's and ours) reads a
    # function's source with ``inspect``, which cannot see code exec'd from a bare string.
    with open(filename, "w") as f:
        f.write(source)
    try:
        tree = ast.parse(source, filename)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), namespace)
                if value is not None:
                    print(repr(value))
    except BaseException as e:  # a cell's SystemExit or error is that cell's result
        if isinstance(e, KeyboardInterrupt):
            raise
        record["status"] = "error"
        record["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300] if str(e) else \
            type(e).__name__
        missing = _missing_api(e)
        if missing:
            record["missing_api"] = missing
        record["traceback"] = traceback.format_exc(limit=-3)[-1500:]
    record["output"] = out.getvalue()
    return record


def main(cells_path, out_path):
    with open(cells_path) as f:
        cells = json.load(f)
    namespace = {"__name__": "__main__"}
    records = []
    for i, source in enumerate(cells):
        records.append(run_cell(source, namespace, os.path.abspath(f"cell_{i}.py")))
        with open(out_path, "w") as f:  # written as it goes: a hang still leaves the rest
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
