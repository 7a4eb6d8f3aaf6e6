"""Run Keras' own test suite (the ``*_test.py`` files the keras wheel ships) on tensortrace, with
Keras' TensorFlow backend importing tensortrace through the shim, and report pass/fail/skip
counts per directory, the pass rate over the tests Keras does not skip, and the failures grouped
by cause.

    python conformance/keras_tests.py                       # keras/src/layers/**/*_test.py
    python conformance/keras_tests.py --tests layers/core losses/losses_test.py
    python conformance/keras_tests.py --all -j2 --log run.log --json report.json
    python conformance/keras_tests.py --report report.json rerun.json   # rerun files replace

Paths under ``--tests`` are relative to ``keras/src``; ``--all`` selects the directories of
Keras' core (layers, models, trainers, optimizers, losses, metrics, saving, callbacks,
activations, initializers, regularizers, constraints, ops, backend). ``-j`` worker processes
(niced by ``--nice``) each install the shim (``import tensorflow`` is tensortrace there) with
``KERAS_BACKEND=tensorflow`` and run pytest in-process on one file at a time; a file that runs
past ``--file-timeout`` seconds, or kills its worker, keeps the outcomes of the tests it finished
and counts one failure for the rest, and a fresh worker takes the next file. A failure's cause is
the exception's type and first message line (addresses and numbers masked, so that one cause
groups together). Failures that need PyTorch (Keras' tests that import it, not installed here)
are a cause of their own: they need another backend's library, not a fix in tensortrace.
"""

import argparse
import collections
import importlib.util
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_TESTS = ["layers"]
ALL_TESTS = ["layers", "models", "trainers", "optimizers", "losses", "metrics", "saving",
             "callbacks", "activations", "initializers", "regularizers", "constraints", "ops",
             "backend"]
_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+(\.\d+)?")
# Causes that are not tensortrace's: the test needs another backend's library.
_OTHER_BACKEND = re.compile(r"No module named '(torch|torchvision)\b")


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
        if not os.path.isdir(path):
            sys.exit(f"--tests {sel}: no such file or folder below {src}")
        for folder, dirs, files in os.walk(path):
            dirs.sort()
            found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith("_test.py"))
    return list(dict.fromkeys(found))


class Recorder:
    """pytest plugin: each test's outcome and a failure's cause, appended to a JSON-lines file
    as soon as the test ends (so a file cut short by its timeout keeps what it finished)."""

    def __init__(self, out):
        self.out = out
        self.seen = {}

    def _write(self, nodeid, outcome, cause):
        self.seen[nodeid] = outcome
        self.out.write(json.dumps([nodeid, outcome, cause]) + "\n")
        self.out.flush()

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if self.seen.get(report.nodeid, "passed") != "passed":
                return  # keep the first failure (setup before teardown)
            cause = _cause(report) if report.outcome == "failed" else None
            self._write(report.nodeid, report.outcome, cause)

    def pytest_collectreport(self, report):
        if report.outcome == "failed":
            self._write(report.nodeid, "error", _cause(report))


def _cause(report):
    """``Type: first line of the message`` with numbers and addresses masked."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()] or ["?"]
    line = re.sub(r"^E\s+", "", lines[0])  # a collection error's text keeps pytest's marker
    if line.endswith("Graph execution error:"):  # TF's wrapper: the node's own error follows
        line += " " + next((ln for ln in lines[1:] if not ln.startswith(("File ", "Detected at"))
                            and not ln.startswith("[[")), "")
    return _MASK.sub("#", line)[:200]


def _keras_conftest(pytest):
    """What Keras' repository-level conftest (not in the wheel) gives its tests: the
    ``requires_trainable_backend`` and ``multi_device`` markers (the latter skipped: Keras'
    conftest counts devices for JAX and PyTorch only), and ``skip_if_backend`` for
    ``from conftest import``."""
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
            config.addinivalue_line("markers", "multi_device: several devices only")

        @staticmethod
        def pytest_collection_modifyitems(config, items):
            skip = pytest.mark.skip(reason="Requires multiple devices")
            for item in items:
                if "multi_device" in item.keywords:
                    item.add_marker(skip)

    return Markers()


def worker(niceness):
    """In a worker: install the shim, then for each ``FILE OUT`` line on stdin run pytest on
    FILE, appending outcomes to OUT, and write ``OUT.done`` when the file has finished."""
    if niceness:
        os.nice(niceness)
    sys.path.insert(0, REPO)
    import tensortrace
    from tensortrace import shim

    shim.install(tensortrace)
    import pytest

    conftest = _keras_conftest(pytest)
    for line in sys.stdin:
        path, out = line.rstrip("\n").split("\t")
        with open(out, "a") as f:
            pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
                         "--continue-on-collection-errors", "--rootdir", keras_src(), path],
                        plugins=[Recorder(f), conftest])
        with open(out + ".done", "w"):
            pass


class Pool:
    """``jobs`` workers taking files from a queue; each file gets ``timeout`` seconds."""

    def __init__(self, jobs, timeout, niceness, tmp, log):
        self.jobs, self.timeout, self.niceness, self.tmp, self.log = \
            jobs, timeout, niceness, tmp, log
        self.lock = threading.Lock()
        self.results = {}  # file -> {nodeid: (outcome, cause)}
        self.seconds = {}

    def _say(self, text):
        with self.lock:
            line = time.strftime("%H:%M:%S ") + text
            print(line, flush=True)
            if self.log:
                with open(self.log, "a") as f:
                    f.write(line + "\n")

    def _start(self, slot):
        env = dict(os.environ, KERAS_BACKEND="tensorflow", PYTHONPATH=REPO)
        err = open(os.path.join(self.tmp, f"worker{slot}.log"), "a")
        return subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", str(self.niceness)],
            stdin=subprocess.PIPE, stdout=err, stderr=err, text=True, env=env, cwd=self.tmp,
            start_new_session=True)

    def _stop(self, proc):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()

    def _slot(self, slot, files, total, src):
        proc = None
        while True:
            try:
                index, path = files.get_nowait()
            except queue.Empty:
                break
            if proc is None or proc.poll() is not None:
                proc = self._start(slot)
            out = os.path.join(self.tmp, f"{index}.jsonl")
            start = time.time()
            trouble = None
            try:
                proc.stdin.write(f"{path}\t{out}\n")
                proc.stdin.flush()
            except BrokenPipeError:
                trouble = "worker died before the file started"
            while trouble is None and not os.path.exists(out + ".done"):
                if proc.poll() is not None:
                    trouble = f"worker died (exit status {proc.returncode})"
                elif time.time() - start > self.timeout:
                    trouble = f"file ran past its {self.timeout} s timeout"
                else:
                    time.sleep(0.5)
            outcomes = _read_outcomes(out)
            if trouble is not None:
                self._stop(proc)
                proc = None
                outcomes[os.path.relpath(path, src) + "::<rest of file>"] = ("error", trouble)
            with self.lock:
                self.results[path] = outcomes
                self.seconds[path] = time.time() - start
                done = len(self.results)
            counts = collections.Counter(o for o, _ in outcomes.values())
            self._say(f"[{done}/{total}] {os.path.relpath(path, src)}: "
                      f"{dict(sorted(counts.items()))} in {time.time() - start:.0f} s"
                      + (f" ({trouble})" if trouble else ""))
        if proc is not None:
            proc.stdin.close()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._stop(proc)

    def run(self, paths, src):
        files = queue.Queue()
        # Biggest files first, so that the last file to finish is a short one.
        for item in sorted(enumerate(paths), key=lambda p: -os.path.getsize(p[1])):
            files.put(item)
        threads = [threading.Thread(target=self._slot, args=(slot, files, len(paths), src))
                   for slot in range(self.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self.results


def _read_outcomes(out):
    outcomes = {}
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                try:
                    nodeid, outcome, cause = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a kill
                outcomes[nodeid] = (outcome, cause)
    return outcomes


def other_backend(cause):
    return bool(cause and _OTHER_BACKEND.search(cause))


def report(results, src, top, examples, depth):
    """The per-directory table, the overall rates and the failures by cause, as text."""
    lines = []
    table = collections.defaultdict(collections.Counter)
    causes = collections.defaultdict(list)
    for path, outcomes in results.items():
        folder = os.path.dirname(os.path.relpath(path, src) if src else path)
        folder = "/".join(folder.split("/")[:depth])
        for nodeid, (outcome, cause) in outcomes.items():
            kind = "passed" if outcome == "passed" else "skipped" if outcome == "skipped" \
                else "other-backend" if other_backend(cause) else "failed"
            table[folder][kind] += 1
            if kind in ("failed", "other-backend"):
                causes[re.sub(r"^E\s+", "", cause or "?")].append(nodeid)
    header = f"{'directory':34s} {'passed':>7s} {'failed':>7s} {'torch':>6s} {'skipped':>8s}" \
             f" {'rate':>7s}"
    lines += [header, "-" * len(header)]
    total = collections.Counter()
    for folder in sorted(table):
        c = table[folder]
        total.update(c)
        lines.append(_row(folder, c))
    lines += ["-" * len(header), _row("all", total), ""]
    ran = total["passed"] + total["failed"] + total["other-backend"]
    mine = total["passed"] + total["failed"]
    lines.append(f"{sum(total.values())} tests in {len(results)} files; of the {ran} Keras "
                 f"does not skip, {total['passed']} pass: {_rate(total['passed'], ran)}")
    lines.append(f"without the {total['other-backend']} that need PyTorch: "
                 f"{total['passed']}/{mine} = {_rate(total['passed'], mine)}")
    lines += ["", "failures by cause (a collection error or a timeout counts once per file):"]
    ordered = sorted(causes.items(), key=lambda kv: (other_backend(kv[0]), -len(kv[1]), kv[0]))
    for cause, nodeids in ordered[:top]:
        tag = " [needs PyTorch]" if other_backend(cause) else ""
        lines.append(f"  {len(nodeids):5d}  {cause}{tag}")
        for nodeid in sorted(nodeids)[:examples]:
            lines.append(f"           {nodeid}")
        if len(nodeids) > examples:
            lines.append(f"           ... and {len(nodeids) - examples} more")
    if len(ordered) > top:
        rest = sum(len(n) for _, n in ordered[top:])
        lines.append(f"  {rest:5d}  ({len(ordered) - top} more causes; --top to list them)")
    return "\n".join(lines)


def _rate(passed, ran):
    return f"{100.0 * passed / ran:.2f}%" if ran else "n/a"


def _row(folder, c):
    ran = c["passed"] + c["failed"] + c["other-backend"]
    return (f"{folder:34s} {c['passed']:7d} {c['failed']:7d} {c['other-backend']:6d} "
            f"{c['skipped']:8d} {_rate(c['passed'], ran):>7s}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", nargs="*", default=None,
                        help="folders or files below keras/src (default: layers)")
    parser.add_argument("--all", action="store_true", help="Keras' core directories: "
                        + " ".join(ALL_TESTS))
    parser.add_argument("-j", "--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--nice", type=int, default=10, help="the workers' niceness increment")
    parser.add_argument("--file-timeout", type=int, default=3600,
                        help="seconds one test file may run")
    parser.add_argument("--depth", type=int, default=2,
                        help="path components below keras/src that name a table row")
    parser.add_argument("--json", help="write every test's outcome and cause here")
    parser.add_argument("--log", help="append progress lines to this file")
    parser.add_argument("--top", type=int, default=40, help="failure causes to list")
    parser.add_argument("--examples", type=int, default=3, help="test ids shown per cause")
    parser.add_argument("--report", nargs="+", metavar="JSON",
                        help="print the report of earlier --json runs instead of running: a "
                             "file in a later one replaces its outcomes in the earlier ones")
    parser.add_argument("--worker", metavar="NICE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        return worker(int(args.worker))
    if args.report:
        merged = {}
        for name in args.report:
            with open(name) as f:
                merged.update(json.load(f))
        results = {path: {n: tuple(o) for n, o in entry["tests"].items()}
                   for path, entry in merged.items()}
        print(report(results, "", args.top, args.examples, args.depth))
        return 0
    selections = (args.tests or []) + (ALL_TESTS if args.all else [])
    src = keras_src()
    files = test_files(src, selections or DEFAULT_TESTS)
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        pool = Pool(max(1, args.jobs), args.file_timeout, args.nice, tmp, args.log)
        results = pool.run(files, src)
    text = report(results, src, args.top, args.examples, args.depth)
    text += f"\n\n{len(files)} files in {time.time() - start:.0f} s with -j{args.jobs}"
    print(text)
    if args.log:
        with open(args.log, "a") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({os.path.relpath(p, src): {"seconds": round(pool.seconds[p], 1),
                                                 "tests": o} for p, o in results.items()},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
