"""Batch inference of a SavedModel on Ray Data: throughput (rows/s) of
``tensortrace.distribute.ray_data.predict_batches`` over 1M rows with 1 and 2 workers, and of the
same predictor called in this process without Ray (the ceiling one worker can reach).

The model is a 64-256-256-10 MLP (relu, softmax) saved by tensortrace into a temporary
directory; the rows are a materialized dataset of 64 blocks. BLAS runs one thread per process
(Ray gives each one-CPU actor one), so N workers use N cores. Each Ray run reports the rows/s
from submitting the dataset to its last row (starting the actors, each importing Ray Data and
tensortrace and loading the model, included), the time to the first output block, and the
rows/s after it (steady state). On a machine with as many cores as workers, the driver and
Ray's own processes share them. Run from the repository root when the machine is quiet:

    python bench/bench_ray_data.py [--rows 1000000] [--batch 4096] [--workers 1 2] [--stats]
"""

import argparse
import os
import tempfile
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import _timing  # noqa: E402,F401 - puts the checkout first on sys.path

import tensortrace as tf  # noqa: E402
from tensortrace.distribute import ray_data  # noqa: E402

SIZES = (64, 256, 256, 10)


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.ws = [tf.Variable(rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32))
                   for a, b in zip(SIZES[:-1], SIZES[1:])]

    @tf.function(input_signature=[tf.TensorSpec([None, SIZES[0]], tf.float32, name="x")])
    def __call__(self, x):
        for w in self.ws[:-1]:
            x = tf.nn.relu(tf.matmul(x, w))
        return {"probs": tf.nn.softmax(tf.matmul(x, self.ws[-1]))}


def _run(dataset):
    """(rows, seconds to the first output block, seconds to the last, rows after the first)."""
    start = time.perf_counter()
    rows = first = first_rows = 0
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        if not first:
            first, first_rows = time.perf_counter() - start, len(batch["probs"])
        rows += len(batch["probs"])
    return rows, first, time.perf_counter() - start, rows - first_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--blocks", type=int, default=64)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--stats", action="store_true", help="print Ray Data's stats of each run")
    args = parser.parse_args()
    import ray  # the optional extra: imported here so that --help works without it

    model_dir = tempfile.mkdtemp(prefix="bench_ray_data_")
    tf.saved_model.save(MLP(), model_dir)
    x = np.random.default_rng(1).normal(size=(args.rows, SIZES[0])).astype(np.float32)
    print(f"{args.rows} rows of {SIZES[0]} float32 in {args.blocks} blocks, batches of "
          f"{args.batch}, model {'-'.join(map(str, SIZES))}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

    predictor = ray_data.SavedModelPredictor(model_dir)
    predictor({"x": x[:args.batch]})
    start = time.perf_counter()
    for i in range(0, args.rows, args.batch):
        predictor({"x": x[i:i + args.batch]})
    local = args.rows / (time.perf_counter() - start)
    print(f"  in-process predictor (no Ray) {local:12,.0f} rows/s")

    # No runtime_env: the workers inherit this process's environment (one BLAS thread) through
    # the raylet, so the idle workers Ray starts with the cluster can host the actors.
    ray.init(num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    blocks = np.array_split(x, args.blocks)
    dataset = ray.data.from_numpy(blocks).rename_columns({"data": "x"}).materialize()
    try:
        for n in args.workers:
            out = ray_data.predict_batches(dataset, model_dir, num_workers=n,
                                           batch_size=args.batch)
            rows, first, seconds, steady = _run(out)
            assert rows == args.rows, rows
            print(f"  ray data, {n} worker{'s' if n > 1 else ' '}        "
                  f"{rows / seconds:12,.0f} rows/s   ({seconds:.2f} s; first block at "
                  f"{first:.2f} s, then {steady / (seconds - first):,.0f} rows/s; "
                  f"load average now {os.getloadavg()[0]:.2f})")
            if args.stats:
                print(out.stats())
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
