"""Import cost: whole ``python -c`` processes, run in alternation (so that a change in the
machine's load affects them all alike), medians of each, and what ``import tensortrace`` adds to
``import numpy``. Also what the first eager op and the first tf.function call cost afterwards
(measured inside the process), and a full load of the package (every module, as
``import tensortrace`` did before deferral).

    python bench/bench_import.py                       # 15 rounds
    python bench/bench_import.py --tf PYTHON_WITH_TF --compare OTHER_CHECKOUT

``--tf PYTHON`` adds ``import tensorflow`` run by that interpreter; ``--compare DIR`` adds
``import tensortrace`` from another checkout (the tree before a change). Bytecode is cached in a
temporary folder and warmed first, as an installed package has it; ``--source`` measures
compiling from source instead (PYTHONDONTWRITEBYTECODE).
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_OVER_NUMPY = 0.080  # seconds import tensortrace may add to import numpy
TARGET_VS_TF = 20.0  # import tensorflow / import tensortrace at least

PROGRAMS = {
    "numpy": "import numpy",
    "tensortrace": "import tensortrace",
    "first op": "import tensortrace as tf; tf.constant(1.0) + 1",
    "first tf.function": ("import tensortrace as tf; f = tf.function(lambda x: x * x + 2); "
                          "f(tf.constant(2.0))"),
    "full load": "import tensortrace.api as a; a.load_everything()",
}

# Timed inside one process: the step after ``import tensortrace``.
STEPS = {
    "first op": "tf.constant(1.0) + 1",
    "first tf.function call": "f = tf.function(lambda x: x * x + 2); f(tf.constant(2.0))",
    "first gradient": ("x = tf.constant(2.0)\nwith tf.GradientTape() as g:\n    g.watch(x)\n"
                       "    y = tf.sin(x) * x\ng.gradient(y, x)"),
    "tf.data pipeline": "list(tf.data.Dataset.range(4).map(lambda v: v + 1).batch(2))",
}


def environment(source, cache):
    env = dict(os.environ)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(python, code, cwd, env):
    """(wall, cpu) seconds of one ``python -c code`` process, start to exit. CPU time (user +
    system) is what the process itself spent: steadier than wall time on a busy machine."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([python, "-c", code], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu() - cpu


def step_time(code, cwd, env):
    """Seconds ``code`` takes right after ``import tensortrace as tf``, in a fresh process."""
    timer = (f"import time, tensortrace as tf\nstart = time.perf_counter()\n{code}\n"
             "print(time.perf_counter() - start)")
    out = subprocess.run([sys.executable, "-c", timer], cwd=cwd, env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--tf", metavar="PYTHON", help="an interpreter that has TensorFlow")
    parser.add_argument("--compare", metavar="DIR", help="another tensortrace checkout")
    parser.add_argument("--source", action="store_true", help="no cached bytecode")
    args = parser.parse_args(argv)
    cache = tempfile.mkdtemp(prefix="bench_import_pyc_")
    env = environment(args.source, cache)
    jobs = {name: (sys.executable, code, str(ROOT)) for name, code in PROGRAMS.items()}
    if args.compare:
        jobs["tensortrace (compare)"] = (sys.executable, "import tensortrace",
                                         str(Path(args.compare).resolve()))
    if args.tf:
        quiet = "import os; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'; import tensorflow"
        jobs["tensorflow"] = (args.tf, quiet, str(ROOT))
    for python, code, cwd in jobs.values():  # warm the bytecode cache and the file system
        run(python, code, cwd, env)
    samples = {name: [] for name in jobs}
    for _ in range(args.rounds):
        for name, (python, code, cwd) in jobs.items():
            samples[name].append(run(python, code, cwd, env))
    t = {name: statistics.median(w for w, _ in s) for name, s in samples.items()}
    cpu = {name: statistics.median(c for _, c in s) for name, s in samples.items()}
    steps = {}
    for name, code in STEPS.items():
        steps[name] = statistics.median(step_time(code, str(ROOT), env)
                                        for _ in range(max(3, args.rounds // 3)))

    mode = "compiled from source" if args.source else "cached bytecode"
    print(f"import: median of {args.rounds} alternating runs of each whole process ({mode})")
    print(f"  {'python -c':<28} {'wall':>9} {'vs numpy':>10} {'cpu':>9} {'vs numpy':>10}")
    base = t["numpy"]
    for name, value in t.items():
        print(f"  {name:<28} {1e3 * value:6.1f} ms {1e3 * (value - base):+7.1f} ms"
              f" {1e3 * cpu[name]:6.1f} ms {1e3 * (cpu[name] - cpu['numpy']):+7.1f} ms")
    print("after import tensortrace, in one process (median):")
    for name, value in steps.items():
        print(f"  {name:<28} {1e3 * value:8.1f} ms")
    over = t["tensortrace"] - base
    verdict = "ok" if over <= TARGET_OVER_NUMPY else "MISSED"
    print(f"import tensortrace - import numpy: {1e3 * over:.1f} ms wall, "
          f"{1e3 * (cpu['tensortrace'] - cpu['numpy']):.1f} ms cpu "
          f"(target <= {1e3 * TARGET_OVER_NUMPY:.0f} ms) {verdict}")
    missed = over > TARGET_OVER_NUMPY
    if "tensorflow" in t:
        ratio = t["tensorflow"] / t["tensortrace"]
        ok = ratio >= TARGET_VS_TF
        missed = missed or not ok
        print(f"import tensorflow / import tensortrace: {ratio:.1f}x wall, "
              f"{cpu['tensorflow'] / cpu['tensortrace']:.1f}x cpu "
              f"(target >= {TARGET_VS_TF:g}x) {'ok' if ok else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
