"""Run Keras' own test suite (the ``*_test.py`` files the keras wheel ships) on tensortrace, with
Keras' TensorFlow backend importing tensortrace through the shim, and report pass/fail/skip
counts per directory, the pass rate over the tests Keras does not skip, and the failures grouped
by cause.

    python conformance/keras_tests.py                       # keras/src/layers/**/*_test.py
    python conformance/keras_tests.py --tests layers/core losses/losses_test.py
    python conformance/keras_tests.py --all -j2 --log run.log --json report.json
    python conformance/keras_tests.py --all -j16 --deadline 480 --json r.json --log r.log
    python conformance/keras_tests.py --all -j16 --plan      # the chunks; runs nothing
    python conformance/keras_tests.py --report report.json rerun.json   # rerun files replace

Paths under ``--tests`` are relative to ``keras/src``; ``--all`` selects the directories of
Keras' core (layers, models, trainers, optimizers, losses, metrics, saving, callbacks,
activations, initializers, regularizers, constraints, ops, backend). First a subprocess checks
the set-up the workers get (Keras importable through the shim on the TensorFlow backend; the
versions of Python, NumPy, Keras, JAX, PyTorch) and the run stops at once if it is broken.

A long file is split into chunks: each file's expected seconds come from ``--times`` (this
folder's ``keras_times.json``, which ``--save-times`` refreshes from a run, or an earlier run's
``--json``), a file longer than ``--chunk-seconds`` (by default a third of one worker's share)
becomes that many chunks, and chunk K of N runs every N-th of the file's tests in node-id order,
so each chunk gets a share of every test's cases. Chunks go longest first to ``-j`` worker
processes (niced by ``--nice``, the cores shared out as their BLAS and intra-op threads, JAX and
PyTorch on the CPU), which each install the shim (``import tensorflow`` is tensortrace there)
with ``KERAS_BACKEND=tensorflow`` and run pytest in-process on one chunk at a time. A chunk that
runs past ``--file-timeout`` seconds, or kills its worker, keeps the outcomes of the tests it
finished and counts one failure for the rest, and a fresh worker takes the next chunk.
``--deadline`` bounds the whole run's wall time: no chunk starts in its last seconds, running
chunks are stopped shortly before it (their finished tests kept, the rest counted as cut, not
failed), and the JSON (rewritten as chunks finish) and the report are written before it. A
failure's cause is the exception's type and first message line (addresses and numbers masked, so
that one cause groups together). Failures because PyTorch is missing (Keras' tests that import
it) are a cause of their own: they need another backend's library, not a fix in tensortrace;
where PyTorch is importable those tests run and count as any other.
"""

import argparse
import collections
import heapq
import importlib.util
import json
import math
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
TIMES = os.path.join(HERE, "keras_times.json")
DEFAULT_TESTS = ["layers"]
ALL_TESTS = ["layers", "models", "trainers", "optimizers", "losses", "metrics", "saving",
             "callbacks", "activations", "initializers", "regularizers", "constraints", "ops",
             "backend"]
_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+(\.\d+)?")
# Causes that are not tensortrace's: the test needs another backend's library.
_OTHER_BACKEND = re.compile(r"No module named '(torch|torchvision)\b")
# What the workers run under (a value already in the environment wins): JAX and PyTorch on the
# CPU (on a GPU host every worker would otherwise open the accelerator); one hash seed, so that
# every worker collects a file's tests alike; no third-party pytest plugins, so that hosts with
# other plugins run alike. Their BLAS/OpenMP threads (and tensortrace's intra-op threads) are
# the cores over the jobs, since the jobs share the cores.
WORKER_ENV = {"JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": "", "PYTHONHASHSEED": "0",
              "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
REPORT_SECONDS = 10  # before --deadline: running chunks are stopped, the report written
LAST_START = 10  # and in the seconds before that stop, no chunk starts
MIN_CHUNK = 30  # seconds (in --times' units): no file is split finer by default
JSON_EVERY = 3  # seconds between the JSON's rewrites while chunks finish
CHECK_SECONDS = 180  # the set-up check's limit (a third of --deadline when that is less)


def keras_src():
    spec = importlib.util.find_spec("keras")
    if spec is None:
        sys.exit(f"Keras 3 is not installed for {sys.executable}: pip install "
                 "'tensortrace[keras]' (or put a folder holding it on PYTHONPATH)")
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


# --- planning: files into chunks ------------------------------------------------------------
def load_times(name):
    """Seconds per file (relative to keras/src): a ``{file: seconds}`` table or a ``--json``."""
    with open(name) as f:
        data = json.load(f)
    return {k: float(v["seconds"] if isinstance(v, dict) else v) for k, v in data.items()}


def plan(files, src, times, jobs, chunk_seconds=None):
    """``(path, index, count, estimate)`` chunks, longest first. A file estimated above
    ``chunk_seconds`` (None: a third of one job's share, at least ``MIN_CHUNK``; 0: never) runs
    as that many chunks; a file missing from ``times`` is estimated from its size at the known
    files' seconds per byte."""
    rel = {p: os.path.relpath(p, src) for p in files}
    known = [p for p in files if rel[p] in times]
    size = sum(os.path.getsize(p) for p in known)
    rate = sum(times[rel[p]] for p in known) / size if size else 1e-3
    est = {p: times[rel[p]] if p in known else os.path.getsize(p) * rate for p in files}
    if chunk_seconds is None:  # a chunk's start-up and collection cost a few seconds
        chunk_seconds = max(sum(est.values()) / (3 * jobs), MIN_CHUNK) if jobs > 1 else 0
    chunks = []
    for p in files:
        count = max(1, math.ceil(est[p] / chunk_seconds)) if chunk_seconds > 0 else 1
        chunks.extend((p, k, count, est[p] / count) for k in range(count))
    return sorted(chunks, key=lambda c: (-c[3], c[0], c[1]))


def makespan(chunks, jobs):
    """Each job's expected seconds when ``jobs`` workers take the chunks in this order."""
    loads = [0.0] * jobs
    for chunk in chunks:
        heapq.heapreplace(loads, loads[0] + chunk[3])
    return sorted(loads)


def chunk_members(nodeids, index, count):
    """Positions (in collection order) of the tests chunk ``index`` of ``count`` runs: every
    ``count``-th test in node-id order, whatever order a worker collected them in."""
    order = sorted(range(len(nodeids)), key=lambda i: (nodeids[i], i))
    return sorted(order[index::count])


# --- in the worker: pytest plugins ----------------------------------------------------------
class Recorder:
    """pytest plugin: each test's outcome and a failure's cause, appended to a JSON-lines file
    as soon as the test ends (so a chunk cut short by its timeout keeps what it finished)."""

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


class Select:
    """pytest plugin: keeps one chunk's share of the collected tests and writes how many tests
    the file has and how many the chunk runs (``OUT.count``), so the runner can check that the
    chunks of a file add up to it."""

    def __init__(self, index, count, out):
        self.index, self.count, self.out = index, count, out

    def pytest_collection_modifyitems(self, config, items):
        keep = set(chunk_members([item.nodeid for item in items], self.index, self.count))
        with open(self.out + ".count", "w") as f:
            f.write(f"{len(items)} {len(keep)}")
        if len(keep) < len(items):
            config.hook.pytest_deselected(items=[t for i, t in enumerate(items) if i not in keep])
            items[:] = [t for i, t in enumerate(items) if i in keep]


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


def _install_shim():
    sys.path.insert(0, REPO)
    import tensortrace
    from tensortrace import shim

    shim.install(tensortrace)
    return tensortrace


def worker(niceness, threads, preload):
    """In a worker: install the shim, then for each ``FILE OUT INDEX COUNT ROOTDIR`` line on
    stdin run pytest on that chunk of FILE, appending outcomes to OUT, and write ``OUT.done``
    (the chunk's seconds) after it."""
    if niceness:
        os.nice(niceness)
    tensortrace = _install_shim()
    tensortrace.config.threading.set_intra_op_parallelism_threads(threads)
    for name in preload:  # Keras: loaded before the first chunk, so that its time is its own
        importlib.import_module(name)
    import pytest

    conftest = _keras_conftest(pytest)
    basetemp = os.path.abspath("basetemp")  # this worker's own; pytest empties it each chunk
    for line in sys.stdin:
        start = time.time()
        path, out, index, count, rootdir = line.rstrip("\n").split("\t")
        with open(out, "a") as f:
            pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
                         "--continue-on-collection-errors", "--rootdir", rootdir,
                         "--basetemp", basetemp, path],
                        plugins=[Recorder(f), conftest, Select(int(index), int(count), out)])
        with open(out + ".done", "w") as f:
            f.write(f"{time.time() - start:.2f}")  # the chunk's own time, without start-up


def check():
    """In a subprocess with the workers' environment: what they will import, as a JSON line."""
    info = {"python": sys.version.split()[0]}
    import numpy
    info["numpy"] = numpy.__version__
    tensortrace = _install_shim()
    info["tensortrace"] = os.path.dirname(os.path.dirname(os.path.abspath(tensortrace.__file__)))
    import keras
    import pytest
    info.update(keras=keras.__version__, backend=keras.backend.backend(),
                pytest=pytest.__version__)
    for name in ("jax", "torch", "scipy", "pandas", "h5py"):
        try:
            info[name] = importlib.import_module(name).__version__
        except ImportError:
            info[name] = None
    print(json.dumps(info))


def threads_per_job(jobs):
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // jobs)


def worker_env(jobs):
    env = dict(os.environ, KERAS_BACKEND="tensorflow")
    for key, value in WORKER_ENV.items():
        env.setdefault(key, value)
    for key in THREAD_VARS:
        env.setdefault(key, str(threads_per_job(jobs)))
    # The repository first; whatever else was on the path (Keras' wheels, say) stays.
    env["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in env.get("PYTHONPATH", "")
                                                  .split(os.pathsep) if p])
    return env


def check_environment(env, timeout):
    """The set-up check's findings, or ``SystemExit`` with what is wrong."""
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--check"], env=env,
                              cwd=tempfile.gettempdir(), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"set-up check: importing tensortrace, Keras and pytest in a worker's "
                         f"environment took over {timeout:.0f} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise SystemExit(f"set-up check: a worker could not import tensortrace (shim), Keras "
                         f"and pytest with {sys.executable} (exit status {done.returncode}):\n"
                         f"{tail}")
    info = json.loads(lines[-1])
    problems = []
    if not info["keras"].startswith("3."):
        problems.append(f"Keras {info['keras']} is not Keras 3")
    if info["backend"] != "tensorflow":
        problems.append(f"Keras' backend is {info['backend']!r}, not 'tensorflow'")
    if os.path.realpath(info["tensortrace"]) != os.path.realpath(REPO):
        problems.append(f"workers import tensortrace from {info['tensortrace']}, not {REPO}")
    if problems:
        raise SystemExit("set-up check: " + "; ".join(problems))
    return info


def environment_line(info):
    names = ("python", "numpy", "keras", "pytest", "jax", "torch", "scipy", "pandas", "h5py")
    return ", ".join(f"{n} {info[n] or 'missing'}" for n in names) \
        + f"; Keras' backend {info['backend']} = tensortrace from {info['tensortrace']}"


# --- the runner -----------------------------------------------------------------------------
class Pool:
    """``jobs`` workers taking chunks from a queue; each chunk gets ``timeout`` seconds, and
    none runs past ``kill_at`` (a ``time.time()``; None: no deadline)."""

    def __init__(self, jobs, timeout, niceness, tmp, src, log=None, json_path=None,
                 kill_at=None, env=None, preload=("keras",)):
        self.jobs, self.timeout, self.niceness, self.tmp, self.src = \
            jobs, timeout, niceness, tmp, src
        self.log, self.json_path, self.kill_at, self.preload = log, json_path, kill_at, preload
        self.env = env if env is not None else worker_env(jobs)
        self.lock = threading.Lock()
        self.results = {}  # file -> {nodeid: (outcome, cause)}
        self.seconds = collections.defaultdict(list)  # file -> each finished chunk's seconds
        self.counts = collections.defaultdict(list)  # file -> (tests in file, tests in chunk)
        self.chunks = collections.Counter()  # file -> how many chunks it was split into
        self.troubled = collections.Counter()  # file -> its chunks that died or were stopped
        self.done = 0
        self.cut = 0  # chunks stopped at the deadline or by a signal
        self.total = 0
        self.unstarted = []
        self.written = 0.0  # when the JSON was last written
        self.why = "stopped at the --deadline"
        self.last_start = LAST_START

    def stop_now(self, *_):
        """Stop every chunk now (a signal's handler): the report still gets written."""
        self.why = "stopped by a signal"
        self.kill_at = time.time()

    def _say(self, text):
        with self.lock:
            line = time.strftime("%H:%M:%S ") + text
            print(line, flush=True)
            if self.log:
                with open(self.log, "a") as f:
                    f.write(line + "\n")

    def _start(self, slot):
        cwd = os.path.join(self.tmp, f"worker{slot}")  # files a test writes stay apart
        os.makedirs(cwd, exist_ok=True)
        err = open(os.path.join(self.tmp, f"worker{slot}.log"), "a")
        return subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", str(self.niceness),
             "--threads", str(threads_per_job(self.jobs)), "--preload", *self.preload],
            stdin=subprocess.PIPE, stdout=err, stderr=err, text=True, env=self.env, cwd=cwd,
            start_new_session=True)

    def _stop(self, proc):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()

    def _late(self, margin=0.0):
        return self.kill_at is not None and time.time() >= self.kill_at - margin

    def _slot(self, slot, chunks):
        proc = None
        while not self._late(self.last_start):
            try:
                number, (path, index, count, _) = chunks.get_nowait()
            except queue.Empty:
                break
            if proc is None or proc.poll() is not None:
                proc = self._start(slot)
            out = os.path.join(self.tmp, f"{number}.jsonl")
            start = time.time()
            trouble = cut = None
            try:
                proc.stdin.write(f"{path}\t{out}\t{index}\t{count}\t{self.src}\n")
                proc.stdin.flush()
            except BrokenPipeError:
                trouble = "worker died before the chunk started"
            while trouble is None and not os.path.exists(out + ".done"):
                if proc.poll() is not None:
                    trouble = f"worker died (exit status {proc.returncode})" \
                        + self._last_words(slot)
                elif time.time() - start > self.timeout:
                    trouble = f"chunk ran past its {self.timeout} s timeout"
                elif self._late():
                    trouble = cut = self.why
                else:
                    time.sleep(0.2)
            outcomes = _read_outcomes(out)
            seconds = time.time() - start
            if trouble is None:
                try:
                    with open(out + ".done") as f:
                        seconds = float(f.read())
                except (OSError, ValueError):
                    pass
            else:
                self._stop(proc)
                proc = None
                outcomes[self._rest(path, index, count, "rest of")] = \
                    ("cut" if cut else "error", trouble)
            self._finish(path, index, count, outcomes, seconds, out, trouble, cut)
        if proc is not None:
            proc.stdin.close()
            wait = 60 if self.kill_at is None else max(0.1, min(60, self.kill_at - time.time()))
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                self._stop(proc)

    def _rest(self, path, index, count, what):
        name = f"chunk {index + 1}/{count}" if count > 1 else "file"
        return f"{os.path.relpath(path, self.src)}::<{what} {name}>"

    def _last_words(self, slot):
        """What a dead worker said last: a fatal error's headline (a crash's traceback follows
        it), else its last line (an exception's, when one ended it)."""
        try:
            with open(os.path.join(self.tmp, f"worker{slot}.log"), errors="replace") as f:
                f.seek(max(0, f.seek(0, os.SEEK_END) - 16384))
                lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
        except OSError:
            return ""
        fatal = [ln for ln in lines if ln.startswith("Fatal Python error")]
        return f": {(fatal or lines)[-1][:150]}" if lines else ""

    def _finish(self, path, index, count, outcomes, seconds, out, trouble, cut):
        try:
            with open(out + ".count") as f:
                tests = tuple(int(n) for n in f.read().split())
        except (OSError, ValueError):
            tests = None  # the chunk stopped before its collection ended
        with self.lock:
            self.results.setdefault(path, {}).update(outcomes)
            self.seconds[path].append(seconds)
            if tests:
                self.counts[path].append(tests)
            self.troubled[path] += trouble is not None
            self.done += 1
            self.cut += cut is not None
            done = self.done
            self._write_json()
        counts = collections.Counter(o for o, _ in outcomes.values())
        part = f" [{index + 1}/{count}]" if count > 1 else ""
        self._say(f"[{done}/{self.total}] {os.path.relpath(path, self.src)}{part}: "
                  f"{dict(sorted(counts.items()))} in {seconds:.0f} s"
                  + (f" ({trouble})" if trouble else ""))

    def _write_json(self, final=False):
        """Every outcome so far (called under the lock), replacing the file in one step; at
        most every ``JSON_EVERY`` seconds until the final write (a write takes ~0.2 s)."""
        if not self.json_path or not final and time.time() - self.written < JSON_EVERY:
            return
        self.written = time.time()
        data = {}
        for path, outcomes in self.results.items():
            entry = {"seconds": round(sum(self.seconds[path]), 1)}
            if self.chunks[path] > 1:
                entry.update(chunks=self.chunks[path], chunks_done=len(self.seconds[path]),
                             chunk_seconds=[round(s, 1) for s in self.seconds[path]])
            entry["tests"] = outcomes
            data[os.path.relpath(path, self.src)] = entry
        with open(self.json_path + ".part", "w") as f:
            json.dump(data, f, indent=1)
        os.replace(self.json_path + ".part", self.json_path)

    def run(self, chunks):
        """Run the chunks (longest first, as ``plan`` orders them); returns the results."""
        todo = queue.Queue()
        for item in enumerate(chunks):
            todo.put(item)
            self.chunks[item[1][0]] += 1
        self.total = len(chunks)
        threads = [threading.Thread(target=self._slot, args=(slot, todo), daemon=True)
                   for slot in range(self.jobs)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            time.sleep(0.2)  # not join(): a signal's handler must run in this thread
        while not todo.empty():
            _, (path, index, count, _) = todo.get_nowait()
            self.unstarted.append((path, index, count))
            self.results.setdefault(path, {})[self._rest(path, index, count, "not started:")] \
                = ("cut", "not started before the --deadline")
        with self.lock:
            self._write_json(final=True)
        return self.results

    def save_times(self, name, old):
        """``old`` with the seconds of every file whose chunks all ran to the end, as a table
        for ``--times``."""
        table = dict(old)
        for path, seconds in self.seconds.items():
            outcomes = self.results[path].values()
            if len(seconds) == self.chunks[path] and all(o != "cut" for o, _ in outcomes):
                table[os.path.relpath(path, self.src)] = round(sum(seconds), 1)
        with open(name, "w") as f:
            json.dump(dict(sorted(table.items())), f, indent=0)
            f.write("\n")

    def mismatches(self):
        """Files whose chunks do not add up to the tests the file has (a check of the split)."""
        found = []
        for path, counts in self.counts.items():
            if len(counts) == self.chunks[path] and self.chunks[path] > 1:
                totals = {total for total, _ in counts}
                ran = sum(n for _, n in counts)
                # Distinct test ids recorded: fewer or more than the file has would mean that
                # workers named its tests differently, so a chunk's share missed some.
                ids = sum("::" in n and "::<" not in n for n in self.results[path])
                if len(totals) > 1 or ran != max(totals) or (
                        max(totals) != ids and not self.troubled[path]):
                    found.append(f"{os.path.relpath(path, self.src)}: chunks collected "
                                 f"{sorted(totals)} tests, ran {ran}, recorded {ids}")
        return found


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
            kind = outcome if outcome in ("passed", "skipped", "cut") \
                else "other-backend" if other_backend(cause) else "failed"
            table[folder][kind] += 1
            if kind in ("failed", "other-backend"):
                causes[re.sub(r"^E\s+", "", cause or "?")].append(nodeid)
    header = f"{'directory':34s} {'passed':>7s} {'failed':>7s} {'torch':>6s} {'skipped':>8s}" \
             f" {'rate':>7s} {'cut':>4s}"
    lines += [header, "-" * len(header)]
    total = collections.Counter()
    for folder in sorted(table):
        c = table[folder]
        total.update(c)
        lines.append(_row(folder, c))
    lines += ["-" * len(header), _row("all", total), ""]
    ran = total["passed"] + total["failed"] + total["other-backend"]
    mine = total["passed"] + total["failed"]
    tests = sum(total.values()) - total["cut"]
    lines.append(f"{tests} tests in {len(results)} files; of the {ran} Keras does not skip, "
                 f"{total['passed']} pass: {_rate(total['passed'], ran)}")
    lines.append(f"without the {total['other-backend']} that need PyTorch (missing here): "
                 f"{total['passed']}/{mine} = {_rate(total['passed'], mine)}")
    if total["cut"]:
        lines.append(f"cut: {total['cut']} chunks stopped or not started at the --deadline "
                     "(their remaining tests are in no count above)")
    lines += ["", "failures by cause (a collection error or a timeout counts once per chunk):"]
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
            f"{c['skipped']:8d} {_rate(c['passed'], ran):>7s} {c['cut']:4d}")


def run_summary(pool, chunks, files, seconds, jobs):
    """What the run did: chunks finished and cut, the split's check, the slowest chunks."""
    lines = [(f"{len(files)} files in {len(chunks)} chunks: {pool.done - pool.cut} ran to the "
              f"end, {pool.cut} were stopped, {len(pool.unstarted)} never started; "
              f"{seconds:.0f} s with -j{jobs}")]
    split = sorted((n, os.path.relpath(p, pool.src)) for p, n in pool.chunks.items() if n > 1)
    if split:
        lines.append("split: " + ", ".join(f"{name} x{n}" for n, name in reversed(split)))
    for text in pool.mismatches():
        lines.append(f"SPLIT MISMATCH {text}")
    if pool.unstarted:
        names = sorted({os.path.relpath(p, pool.src) for p, _, _ in pool.unstarted})
        lines.append(f"not started before the deadline: {len(pool.unstarted)} chunks of "
                     + ", ".join(names))
    slow = sorted(((s, p) for p, ss in pool.seconds.items() for s in ss), reverse=True)[:8]
    lines.append("slowest chunks: " + ", ".join(f"{os.path.relpath(p, pool.src)} {s:.0f} s"
                                                for s, p in slow))
    return "\n".join(lines)


def _times(name):
    return load_times(name) if name and os.path.exists(name) else {}


def main(argv=None):
    started = time.time()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", nargs="*", default=None,
                        help="folders or files below keras/src (default: layers)")
    parser.add_argument("--all", action="store_true", help="Keras' core directories: "
                        + " ".join(ALL_TESTS))
    parser.add_argument("-j", "--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--nice", type=int, default=10, help="the workers' niceness increment")
    parser.add_argument("--file-timeout", type=int, default=3600,
                        help="seconds one chunk (a test file, or part of a long one) may run")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds from the start by which the run ends, its JSON and report "
                             "written (chunks still running are stopped before it)")
    parser.add_argument("--times", default=TIMES,
                        help="each file's expected seconds: a {file: seconds} table or an "
                             "earlier run's --json (default: keras_times.json next to this)")
    parser.add_argument("--chunk-seconds", type=float, default=None,
                        help="split files expected to run longer (in --times' seconds) into "
                             "chunks; 0: no split; default: a third of one job's share")
    parser.add_argument("--save-times", metavar="JSON",
                        help="write --times' table with this run's seconds for the files that "
                             "ran to the end (for the next run's --times)")
    parser.add_argument("--plan", action="store_true",
                        help="print the chunks and each job's expected seconds; run nothing")
    parser.add_argument("--depth", type=int, default=2,
                        help="path components below keras/src that name a table row")
    parser.add_argument("--json", help="write every test's outcome and cause here (rewritten "
                                       "as chunks finish)")
    parser.add_argument("--log", help="append progress lines to this file")
    parser.add_argument("--top", type=int, default=40, help="failure causes to list")
    parser.add_argument("--examples", type=int, default=3, help="test ids shown per cause")
    parser.add_argument("--report", nargs="+", metavar="JSON",
                        help="print the report of earlier --json runs instead of running: a "
                             "file in a later one replaces its outcomes in the earlier ones")
    parser.add_argument("--worker", metavar="NICE", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--preload", nargs="*", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        return worker(int(args.worker), args.threads, args.preload)
    if args.check:
        return check()
    if args.report:
        merged = {}
        for name in args.report:
            with open(name) as f:
                merged.update(json.load(f))
        results = {path: {n: tuple(o) for n, o in entry["tests"].items()}
                   for path, entry in merged.items()}
        print(report(results, "", args.top, args.examples, args.depth))
        return 0
    if args.deadline is not None and args.deadline <= REPORT_SECONDS + LAST_START:
        parser.error(f"--deadline must be over {REPORT_SECONDS + LAST_START} seconds")
    def say(text):
        print(text, flush=True)
        if args.log:
            with open(args.log, "a") as f:
                f.write(text + "\n")

    selections = (args.tests or []) + (ALL_TESTS if args.all else [])
    jobs = max(1, args.jobs)
    if args.plan:
        src = keras_src()
        chunks = plan(test_files(src, selections or DEFAULT_TESTS), src, _times(args.times),
                      jobs, args.chunk_seconds)
        for path, index, count, est in chunks:
            print(f"{est:8.1f}  {os.path.relpath(path, src)}"
                  + (f" [{index + 1}/{count}]" if count > 1 else ""))
        loads = makespan(chunks, jobs)
        print(f"{len(chunks)} chunks; expected seconds per job (in --times' seconds): "
              f"{loads[0]:.0f} to {loads[-1]:.0f}")
        return 0
    env = worker_env(jobs)
    limit = CHECK_SECONDS if args.deadline is None else min(CHECK_SECONDS, args.deadline / 3)
    try:
        src = keras_src()
        files = test_files(src, selections or DEFAULT_TESTS)
        info = check_environment(env, limit)
    except SystemExit as stop:  # a broken set-up: say so in the log too, then stop
        say(str(stop.code))
        return 2
    times = _times(args.times)
    chunks = plan(files, src, times, jobs, args.chunk_seconds)
    say(environment_line(info))
    say(f"{len(files)} files in {len(chunks)} chunks, -j{jobs}"
        + (f", deadline {args.deadline:.0f} s" if args.deadline else "")
        + f" (set-up check {time.time() - started:.0f} s)")
    kill_at = None if args.deadline is None else started + args.deadline - REPORT_SECONDS
    with tempfile.TemporaryDirectory() as tmp:
        pool = Pool(jobs, args.file_timeout, args.nice, tmp, src, args.log, args.json,
                    kill_at, env)
        handlers = {s: signal.signal(s, pool.stop_now) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            results = pool.run(chunks)
        finally:
            for s, handler in handlers.items():
                signal.signal(s, handler)
        text = report(results, src, args.top, args.examples, args.depth)
        if info["torch"]:
            text += f"\nPyTorch {info['torch']} is importable: the tests that use it ran and " \
                    "count as any other"
        text += "\n\n" + run_summary(pool, chunks, files, time.time() - started, jobs)
        say(text)
        if args.save_times:
            pool.save_times(args.save_times, times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
