"""Run Keras' own test suite (the ``*_test.py`` files the keras wheel ships) on tensortrace, with
Keras' TensorFlow backend importing tensortrace through the shim, and report pass/fail/skip
counts with the most common causes of failure.

    python conformance/keras_tests.py                       # keras/src/layers/**/*_test.py
    python conformance/keras_tests.py --tests layers/core losses/losses_test.py
    python conformance/keras_tests.py --json report.json --timeout 1200

Paths under ``--tests`` are relative to ``keras/src``. Each selection runs in one child process:
``import tensorflow`` is tensortrace there (``shim.install``) before Keras is imported, with
``KERAS_BACKEND=tensorflow``; pytest runs in-process and a plugin records each test's outcome and,
for failures, the exception's type and first message line (addresses and numbers masked, so
that one cause groups together).
"""

import argparse
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_TESTS = ["layers"]
_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+(\.\d+)?")


def keras_src():
    spec = importlib.util.find_spec("keras")
    if spec is None:
        sys.exit("Keras 3 is not installed: pip install 'tensortrace[keras]'")
    return os.path.join(next(iter(spec.submodule_search_locations)), "src")


def test_files(src, selections):
    """The ``*_test.py`` files under each selection (a folder or a file below keras/src)."""
    found = []
    for sel in selections:
        path = os.path.join(src, sel)
        if os.path.isfile(path):
            found.append(path)
            continue
        for folder, dirs, files in os.walk(path):
            dirs.sort()
            found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith("_test.py"))
    return found


class Recorder:
    """pytest plugin: each test's outcome, and a failure's cause."""

    def __init__(self):
        self.results = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if report.nodeid in self.results and self.results[report.nodeid][0] != "passed":
                return  # keep the first failure (setup before teardown)
            cause = None
            if report.outcome == "failed":
                cause = _cause(report)
            outcome = "skipped" if report.outcome == "skipped" else report.outcome
            self.results[report.nodeid] = (outcome, cause)

    def pytest_collectreport(self, report):
        if report.outcome == "failed":
            self.results[report.nodeid] = ("error", _cause(report))


def _cause(report):
    """``Type: first line of the message`` with numbers and addresses masked."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
    line = text.strip().splitlines()[0] if text.strip() else "?"
    return _MASK.sub("#", line)[:200]


def _keras_conftest(pytest):
    """What Keras' repository-level conftest (not in the wheel) gives its tests: the
    ``requires_trainable_backend`` marker, and ``skip_if_backend`` for ``from conftest import``."""
    module = types.ModuleType("conftest")

    def skip_if_backend(given_backend, reason):
        import keras
        return pytest.mark.skipif(keras.backend.backend() == given_backend, reason=reason)

    module.skip_if_backend = skip_if_backend
    sys.modules["conftest"] = module

    class Markers:
        @staticmethod
        def pytest_configure(config):
            config.addinivalue_line("markers", "requires_trainable_backend: a trainable backend")

    return Markers()


def child(files, out):
    """In the child: install the shim, run pytest over ``files``, write the outcomes."""
    sys.path.insert(0, REPO)
    import tensortrace
    from tensortrace import shim

    shim.install(tensortrace)
    import pytest

    recorder = Recorder()
    pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
                 "--continue-on-collection-errors", "--rootdir", keras_src(), *files],
                plugins=[recorder, _keras_conftest(pytest)])
    with open(out, "w") as f:
        json.dump(recorder.results, f)


def summarize(results, top):
    counts = collections.Counter(outcome for outcome, _ in results.values())
    causes = collections.Counter(cause for outcome, cause in results.values()
                                 if outcome in ("failed", "error"))
    return {"counts": dict(counts), "top_causes": causes.most_common(top)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", nargs="*", default=DEFAULT_TESTS,
                        help="folders or files below keras/src (default: layers)")
    parser.add_argument("--json", help="write every test's outcome and cause here")
    parser.add_argument("--top", type=int, default=15, help="failure causes to list")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds for the whole run")
    parser.add_argument("--child", nargs=2, metavar=("FILES", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        with open(args.child[0]) as f:
            return child(json.load(f), args.child[1])
    files = test_files(keras_src(), args.tests)
    with tempfile.TemporaryDirectory() as tmp:
        listing, out = os.path.join(tmp, "files.json"), os.path.join(tmp, "out.json")
        with open(listing, "w") as f:
            json.dump(files, f)
        env = dict(os.environ, KERAS_BACKEND="tensorflow", PYTHONPATH=REPO)
        try:
            subprocess.run([sys.executable, __file__, "--child", listing, out], env=env,
                           cwd=tmp, timeout=args.timeout, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            print(f"timed out after {args.timeout} s; outcomes so far are lost")
            return 1
        if not os.path.exists(out):
            print("the child process died before reporting (see it run: pytest's own output)")
            return 1
        with open(out) as f:
            results = json.load(f)
    summary = summarize(results, args.top)
    print(f"{len(files)} test files, {len(results)} tests: " +
          ", ".join(f"{k} {v}" for k, v in sorted(summary["counts"].items())))
    print("top causes of failure:")
    for cause, n in summary["top_causes"]:
        print(f"  {n:5d}  {cause}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
