"""Run TensorFlow's guides cell by cell on tensortrace and compare with what TF 2.21 printed.

    python conformance/guides.py --docs DOCS                # compare with conformance/expected/
    python conformance/guides.py --docs DOCS --record PY    # record TF's outputs (PY has TF 2.21)

DOCS is a checkout of the tensorflow/docs repository. Each guide's code cells run in one process
(``python -m tensortrace conformance/_cells.py``), in order, sharing a namespace as in Jupyter;
shell (``!``) and magic (``%``) lines are dropped, and cells that use Keras or the network are left
out of both runs (Keras on tensortrace is its own piece of work). A cell is *identical* when its
printed text equals TF's, *same up to values* when they differ only in numbers (random draws,
timings, addresses), otherwise *different*; *error* counts cells that raise here but not on TF.

``--keras`` runs the guides that use Keras (``KERAS_GUIDES``) with their Keras cells kept, against
TF's recordings in ``conformance/expected/NAME.keras.json``. A NAME not under ``site/en/guide`` is
looked up under ``site/en/tutorials`` (``--guide quickstart/beginner``).

``--tutorials`` runs TF's quickstarts (``TUTORIALS``, Keras kept) against
``conformance/expected/quickstart__NAME.keras.json``. They load MNIST, which downloads; with
``--mnist-standin`` (implied by ``--tutorials``) a notebook that calls ``mnist.load_data`` gets a
first cell (``_mnist_standin.py``) pointing ``load_data`` at a small seeded stand-in, in both runs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)  # the checkout whose tensortrace runs the cells
EXPECTED = os.path.join(HERE, "expected")
# The guides the "rest of core TensorFlow" work names, then the core guides the seeds came from.
GUIDES = ["ragged_tensor", "sparse_tensor", "tensor_slicing", "tf_numpy", "random_numbers",
          "data", "saved_model", "checkpoint", "core/matrix_core", "core/mlp_core",
          "core/optimizers_core", "tensor", "variable", "autodiff", "advanced_autodiff",
          "intro_to_modules", "basic_training_loops", "function", "intro_to_graphs", "basics",
          "tf_numpy_type_promotion", "distributed_training"]
# The guides whose left-out cells are mostly Keras ones (run with ``--keras``).
KERAS_GUIDES = ["basics", "intro_to_modules", "autodiff", "advanced_autodiff",
                "basic_training_loops", "function"]
# TF's tutorials compared here (under ``site/en/tutorials``); they run with the MNIST stand-in.
TUTORIALS = ["quickstart/beginner", "quickstart/advanced"]
_STANDIN = os.path.join(HERE, "_mnist_standin.py")
_LEFT_OUT = [("keras", re.compile(r"\bkeras\b")),
             ("network", re.compile(r"get_file|tfds\.|urlopen|https?://|pip install"))]
_IMPORT = re.compile(r"\s*(import|from)\s|\s*#")
# Keras' progress bar times (ETA, elapsed, per step), whose unit changes with the speed.
_TIMING = re.compile(r"(?<![\d.])(?:\d+:)*\d+(?:\.\d+)?(?:s|ms|us|\u00b5s)\b(?:/step)?")
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def code_cells(notebook_path, keras=False):
    """The notebook's code cells as (source, why left out or None); with ``keras``, Keras cells
    are kept."""
    left_out = _LEFT_OUT[1:] if keras else _LEFT_OUT
    with open(notebook_path, encoding="utf-8") as f:
        notebook = json.load(f)
    cells = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        lines = [line for line in source.splitlines()
                 if not line.lstrip().startswith(("!", "%"))]
        if not keras and all(_IMPORT.match(line) or not line.strip() for line in lines):
            # an imports cell runs without its Keras imports: later cells need the rest
            lines = [line for line in lines if not _LEFT_OUT[0][1].search(line)]
        source = "\n".join(lines).strip()
        if not source:
            continue
        why = next((name for name, pattern in left_out if pattern.search(source)), None)
        cells.append((source, why))
    return cells


def run(command, cells, timeout):
    """Run ``cells`` with ``command`` (an interpreter invocation); their records."""
    with tempfile.TemporaryDirectory() as tmp:
        cells_path, out_path = os.path.join(tmp, "cells.json"), os.path.join(tmp, "out.json")
        with open(cells_path, "w") as f:
            json.dump(cells, f)
        try:
            env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
            if command[0] == sys.executable:
                env["PYTHONPATH"] = os.pathsep.join([REPO, env.get("PYTHONPATH", "")])
            subprocess.run(command + [os.path.join(HERE, "_cells.py"), cells_path, out_path],
                           cwd=tmp, timeout=timeout, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
        except subprocess.TimeoutExpired:
            pass
        records = []
        if os.path.exists(out_path):
            with open(out_path) as f:
                records = json.load(f)
    missing = len(cells) - len(records)
    records += [{"status": "error", "error": "timed out", "output": ""}] * missing
    return records


def render(text):
    """``text`` as a terminal shows it: of each line's ``\\r``-separated frames (Keras' progress
    bar redrawing itself, as often as the speed allows) the last, with backspaces applied."""
    if "\r" not in text and "\b" not in text:
        return text
    lines = []
    for line in text.split("\n"):
        shown = []
        for char in line.rstrip("\b").rsplit("\r", 1)[-1]:
            if char != "\b":
                shown.append(char)
            elif shown:
                shown.pop()
        lines.append("".join(shown))
    return "\n".join(lines)


def mask(text):
    """``text`` with numbers (and the spaces NumPy pads them with) made alike."""
    text = _TIMING.sub("#", text)
    return re.sub(r"[ \t]*#[ \t]*", "#", re.sub(r"[ \t]+", " ", _NUMBER.sub("#", text)))


def compare(expected, ours):
    """Per-cell verdicts: identical, values, different, error, tf-error."""
    verdicts = []
    for tf_rec, rec in zip(expected, ours):
        if tf_rec["status"] == "error":
            verdicts.append("tf-error")
        elif rec["status"] == "error":
            verdicts.append("error")
        elif render(rec["output"]) == render(tf_rec["output"]):
            verdicts.append("identical")
        elif mask(render(rec["output"])) == mask(render(tf_rec["output"])):
            verdicts.append("values")
        else:
            verdicts.append("different")
    return verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help="a checkout of tensorflow/docs")
    parser.add_argument("--guide", action="append", help="a guide name (default: all listed)")
    parser.add_argument("--record", metavar="PYTHON", help="record TF's outputs with PYTHON")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--show", action="store_true", help="print each cell that differs")
    parser.add_argument("--keras", action="store_true",
                        help="keep the Keras cells (recordings in NAME.keras.json)")
    parser.add_argument("--tutorials", action="store_true",
                        help="run TF's quickstarts (implies --keras and --mnist-standin)")
    parser.add_argument("--mnist-standin", action="store_true",
                        help="give mnist.load_data a small seeded stand-in (no download)")
    args = parser.parse_args(argv)
    if args.tutorials:
        args.keras = args.mnist_standin = True
    totals = {}
    suffix = ".keras.json" if args.keras else ".json"
    default = TUTORIALS if args.tutorials else KERAS_GUIDES if args.keras else GUIDES
    for guide in args.guide or default:
        path = os.path.join(args.docs, "site", "en", "guide", guide + ".ipynb")
        if not os.path.exists(path):
            path = os.path.join(args.docs, "site", "en", "tutorials", guide + ".ipynb")
        cells = code_cells(path, keras=args.keras)
        kept = [source for source, why in cells if why is None]
        left_out = len(cells) - len(kept)
        if args.mnist_standin and any("mnist.load_data" in source for source in kept):
            with open(_STANDIN) as f:
                kept.insert(0, f.read().strip())
        expected_path = os.path.join(EXPECTED, guide.replace("/", "__") + suffix)
        if args.record:
            records = run([args.record], kept, args.timeout)
            for r in records:
                r.pop("traceback", None)
            os.makedirs(EXPECTED, exist_ok=True)
            with open(expected_path, "w") as f:
                json.dump({"cells": kept, "records": records}, f, indent=1)
            print(f"{guide}: recorded {len(kept)} cells, "
                  f"{sum(r['status'] == 'error' for r in records)} raise on TF")
            continue
        with open(expected_path) as f:
            expected = json.load(f)
        if expected["cells"] != kept:
            print(f"{guide}: the recorded cells differ from DOCS' notebook; record again")
            continue
        ours = run([sys.executable, "-m", "tensortrace"], kept, args.timeout)
        verdicts = compare(expected["records"], ours)
        counts = {v: verdicts.count(v) for v in
                  ("identical", "values", "different", "error", "tf-error")}
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        totals["left out"] = totals.get("left out", 0) + left_out
        print(f"{guide}: {len(kept) + left_out} cells, {left_out} left out "
              f"({'network' if args.keras else 'Keras/network'}); "
              f"identical {counts['identical']}, same up to values {counts['values']}, "
              f"different {counts['different']}, error here {counts['error']}, "
              f"raise on TF too {counts['tf-error']}")
        if args.show:
            for i, (v, source, rec, tf_rec) in enumerate(
                    zip(verdicts, kept, ours, expected["records"])):
                if v in ("different", "error"):
                    print(f"  --- cell {i} [{v}]\n    " + source[:300].replace("\n", "\n    "))
                    ours_text = (rec.get("missing_api") or rec.get("error")
                                 or render(rec["output"])[:300])
                    print("    ours: " + ours_text.replace("\n", "\n          "))
                    tf_text = render(tf_rec["output"])[:300]
                    print("    TF:   " + tf_text.replace("\n", "\n          "))
    if totals:
        print("total: " + ", ".join(f"{k} {v}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
