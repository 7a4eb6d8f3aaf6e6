"""Keras on tensortrace: ``model.fit`` epoch time of a 784-256-128-10 MLP and of a small CNN
(batch 64, synthetic data, Keras' compiled train step), and the import of Keras, against
TensorFlow 2.21 run in a subprocess in the same sitting.

    python bench/bench_keras.py                          # tensortrace only
    python bench/bench_keras.py --tf PYTHON_WITH_TF      # and TensorFlow, in alternation

Each model is fitted in a fresh process per library and round (libraries alternate, so that a
change in the machine's load hits both alike); the first epoch (tracing) is left out and the
median of the later epochs kept, in wall and in CPU seconds (CPU: the process's user + system
time, all its threads; steadier than wall time on a busy machine). One BLAS/intra-op thread for
both, as the other benchmarks (on a shared machine threads measure the load more than the code).
Targets: MLP epoch at most TF's, CNN epoch within 1.5x TF's, import at most a third of TF's.

Keras' own import tries optional packages (``try: import jax / IPython / pandas / psutil ...
except ImportError``: its orbax checkpoint callback, notebook file editor, array slicing, saving)
and imports whichever are installed, whatever the backend. When this interpreter has packages
that TensorFlow's lacks, the import is also timed with those packages hidden (as if not
installed), which is the like-for-like figure; the packages are listed. tensortrace is
byte-compiled first (``compileall``, into its ``__pycache__`` folders), as TensorFlow and Keras
were when installed: otherwise, where ``PYTHONDONTWRITEBYTECODE`` is set, each process would
compile every module of ours from source and only ours.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"mlp": 1.0, "cnn": 1.5, "import": 1 / 3}
IMPORTS = {"tensortrace": "import tensortrace as tf; tf.keras.layers",
           "tensorflow": "import tensorflow as tf; tf.keras.layers",
           "keras (on TF)": "import keras",
           "tensortrace alone": "import tensortrace"}
# Run first in the like-for-like import: the packages named in ABSENT cannot be imported.
HIDE = ("import sys\nclass _Absent:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] in ABSENT:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _Absent())\n")


def build(keras, name):
    """The model and its data: (model, x, y)."""
    import numpy as np

    rng = np.random.default_rng(0)
    if name == "mlp":
        x = rng.normal(size=(SAMPLES["mlp"], 784)).astype(np.float32)
        layers = [keras.Input((784,)), keras.layers.Dense(256, activation="relu"),
                  keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)]
    else:
        x = rng.normal(size=(SAMPLES["cnn"], 28, 28, 1)).astype(np.float32)
        layers = [keras.Input((28, 28, 1)), keras.layers.Conv2D(32, 3, activation="relu"),
                  keras.layers.MaxPooling2D(), keras.layers.Conv2D(64, 3, activation="relu"),
                  keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)]
    y = rng.integers(0, 10, len(x)).astype(np.int32)
    model = keras.Sequential(layers)
    model.compile(optimizer="adam", metrics=["accuracy"],
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model, x, y


SAMPLES = {"mlp": 60000, "cnn": 4096}


def worker(library, name, epochs):
    """In this process: fit ``name`` for ``epochs`` epochs; print each epoch's (wall, cpu)."""
    if library == "tensortrace":
        import tensortrace as tf
    else:
        import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    keras = tf.keras
    model, x, y = build(keras, name)
    times = []

    class Timer(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter(), time.process_time()

        def on_epoch_end(self, epoch, logs=None):
            times.append((time.perf_counter() - self.start[0],
                          time.process_time() - self.start[1]))

    model.fit(x, y, batch_size=64, epochs=epochs, verbose=0, shuffle=False, callbacks=[Timer()])
    print(json.dumps(times))


def environment():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", KERAS_BACKEND="tensorflow")
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def fit_times(python, library, name, epochs, samples):
    out = subprocess.run([python, __file__, "--worker", library, "--model", name,
                          "--epochs", str(epochs), "--samples", str(samples)],
                         env=environment(), cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])[1:]  # the first epoch traces


def import_time(python, code):
    """(wall, cpu) seconds of ``python -c code``: cpu is the child's user + system time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, "-c", code], env=environment(), cwd="/", check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def absent_packages(python):
    """Top-level packages our Keras import loads that ``python`` (TensorFlow's) cannot import:
    Keras imports them only because they are installed here."""
    listing = "import sys; print(' '.join(sorted({m.partition('.')[0] for m in sys.modules})))"
    ours = subprocess.run([sys.executable, "-c", f"{IMPORTS['tensortrace']}; {listing}"],
                          env=environment(), cwd="/", capture_output=True, text=True,
                          check=True).stdout.split()
    candidates = [m for m in ours if m not in sys.stdlib_module_names and m != "tensortrace"
                  and not m.startswith("_") and not m[0].isdigit()]
    probe = ("import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] "
             "if importlib.util.find_spec(m) is None))")
    return subprocess.run([python, "-c", probe, *candidates], env=environment(), cwd="/",
                          capture_output=True, text=True, check=True).stdout.split()


def line(label, ours, theirs, target):
    if theirs is None:
        return f"  {label:<26} {ours:9.3f} s"
    ratio = ours / theirs
    verdict = "met" if ratio <= target else "MISSED"
    return (f"  {label:<26} {ours:9.3f} s  TF {theirs:9.3f} s  ratio {ratio:5.2f} "
            f"(target <= {target:.2f}: {verdict})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf", metavar="PYTHON", help="an interpreter with TensorFlow 2.21")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=3, help="per process, the first untimed")
    parser.add_argument("--models", default="mlp,cnn", help="comma-separated; empty: none")
    parser.add_argument("--no-import", action="store_true", help="leave out the import timing")
    parser.add_argument("--samples", type=int, help="override the data size (all models)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.samples:
        SAMPLES.update(dict.fromkeys(SAMPLES, args.samples))
    if args.worker:
        worker(args.worker, args.model, args.epochs)
        return
    runs = [("tensortrace", sys.executable)] + ([("tensorflow", args.tf)] if args.tf else [])
    for name in filter(None, args.models.split(",")):
        epochs = {library: [] for library, _ in runs}
        for _ in range(args.rounds):
            for library, python in runs:
                epochs[library] += fit_times(python, library, name, args.epochs, SAMPLES[name])
        print(f"\n{name}: model.fit epoch, {SAMPLES[name]} samples, batch 64 "
              f"(medians of {len(epochs['tensortrace'])} epochs)")
        for i, what in enumerate(("wall", "cpu")):
            ours = statistics.median(t[i] for t in epochs["tensortrace"])
            theirs = statistics.median(t[i] for t in epochs["tensorflow"]) if args.tf else None
            print(line(what, ours, theirs, TARGETS[name]))
    if not args.no_import:
        import_times(args)


def import_times(args):
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "tensortrace")],
                   check=True, stdout=subprocess.DEVNULL)
    absent = absent_packages(args.tf) if args.tf else []
    codes = {label: (python, code) for label, python, code in [
        ("tensortrace", sys.executable, IMPORTS["tensortrace"]),
        ("tensortrace alone", sys.executable, IMPORTS["tensortrace alone"]),
        ("tensorflow", args.tf, IMPORTS["tensorflow"]),
        ("keras (on TF)", args.tf, IMPORTS["keras (on TF)"]),
        ("tensortrace, same packages", sys.executable,
         f"ABSENT = {set(absent)!r}\n{HIDE}{IMPORTS['tensortrace']}")] if python}
    if not absent:
        codes.pop("tensortrace, same packages", None)
    samples = {label: [] for label in codes}
    for _ in range(max(args.rounds, 5)):
        for label, (python, code) in codes.items():
            samples[label].append(import_time(python, code))
    print("\nimport (whole python -c processes, medians; cpu: the process's user + system time;"
          " tensortrace byte-compiled)")
    for what, i in (("wall", 0), ("cpu", 1)):
        medians = {label: statistics.median(t[i] for t in v) for label, v in samples.items()}
        for label in ("tensortrace alone", "tensortrace"):
            print(f"  {what}  {IMPORTS[label]!r}: {medians[label]:.3f} s")
        if args.tf:
            for label in ("tensorflow", "keras (on TF)"):
                print(line(f"{what}  vs {IMPORTS[label]!r}", medians["tensortrace"],
                           medians[label], TARGETS["import"]))
        if "tensortrace, same packages" in medians:
            ours = medians["tensortrace, same packages"]
            print(f"  {what}  like for like, the packages TF's interpreter lacks hidden: "
                  f"{ours:.3f} s")
            for label in ("tensorflow", "keras (on TF)"):
                print(line(f"{what}  vs {IMPORTS[label]!r}", ours, medians[label],
                           TARGETS["import"]))
    if absent:
        print(f"  hidden: {', '.join(absent)}")


if __name__ == "__main__":
    main()
