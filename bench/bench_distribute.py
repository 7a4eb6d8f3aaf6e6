"""MultiWorkerMirroredStrategy on Ray: training throughput of a compute-heavy MLP step on 1 and
2 Ray workers, and the per-step cost of the gradient all-reduce through Ray.

    python bench/bench_distribute.py [--width 2048] [--batch 256] [--steps 15] [--warmup 5]
                                     [--store-steps 1000]

Each worker is a Ray actor pinned to one BLAS thread (OMP/OPENBLAS/MKL_NUM_THREADS=1 in its
environment, before NumPy loads) and one Ray CPU; each trains the same tf.function step
(3 dense layers ``width`` wide, ``batch`` rows per replica, gradients all-reduced in the replica
context, SGD). Throughput is rows per second (2 workers: the global batch is 2 x ``batch``).
Per worker and step it also prints the CPU time (this process's threads, Ray's included: under
load the wall time waits for a core, the CPU time does not), the collective's pieces (put into
the object store, exchange of the references, get, sum; one worker does none), the same
step's matrix products in raw NumPy in the same actor (is the compute slowed by the other
worker or Ray's threads?), and the all-reduce alone (in a tf.function) on gradient-sized
tensors and on one float (the exchange's latency). ``--store-steps N``: N more all-reduces of
the gradients, with the object store's usage before and after (it must not grow). The
machine's load average is printed before and after: ratios within one run are what count on a
busy machine."""

import argparse
import os
import re
import statistics
import time

import _timing  # noqa: F401 - puts the repository first on the path

import numpy as np

import tensortrace as tf
from tensortrace.distribute import RayWorkers
from tensortrace.distribute.ray_backend import collective_stats

_PIECES = ("put", "exchange", "get", "sum")


def _store_usage():
    """The Ray object store's usage (MiB, objects), from Ray's memory summary."""
    import ray  # the bench needs Ray anyway
    from ray._private.internal_api import memory_summary
    text = memory_summary(address=ray.get_runtime_context().gcs_address, stats_only=True)
    found = re.search(r"Plasma memory usage (\d+) MiB, (\d+) objects", text)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _timed(fn, warmup, steps):
    """Median wall and CPU seconds of ``fn()``, and the collectives' pieces per call."""
    for _ in range(warmup):
        fn()
    before = collective_stats()
    walls, cpus = [], []
    for _ in range(steps):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    after = collective_stats()
    pieces = {k: (after[k] - before[k]) / steps for k in after}
    return statistics.median(walls), statistics.median(cpus), pieces


def _numpy_step(x, y, weights):
    """The step's forward and backward matrix products in raw NumPy (no SGD, no reduction)."""
    hs, h = [x], x
    for w, b in zip(weights[0::2], weights[1::2]):
        h = h @ w + b
        if w.shape[1] == w.shape[0]:
            h = np.maximum(h, 0)
        hs.append(h)
    g = 2 * (h - y)
    for i in range(len(hs) - 2, -1, -1):
        w = weights[2 * i]
        _ = hs[i].T @ g, g.sum(0)
        if i:
            g = (g @ w.T) * (hs[i] > 0)


def train(width, batch, steps, warmup, store_steps):
    """This worker's figures (see the module docstring)."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.RandomState(strategy.cluster_resolver.task_id or 0)
    x = tf.constant(rng.randn(batch, width).astype(np.float32))
    y = tf.constant(rng.randn(batch, 10).astype(np.float32))
    shapes = [(width, width), (width,), (width, width), (width,), (width, 10), (10,)]
    with strategy.scope():
        variables = [tf.Variable(rng.randn(*s).astype(np.float32) * (0.02 if len(s) == 2
                                                                      else 0.0)) for s in shapes]
    global_batch = batch * strategy.num_replicas_in_sync

    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = xb
            for w, b in zip(variables[0::2], variables[1::2]):
                h = h @ w + b
                if w.shape[1] == width:
                    h = tf.nn.relu(h)
            loss = tf.nn.compute_average_loss(tf.reduce_sum((h - yb) ** 2, axis=1),
                                              global_batch_size=global_batch)
        grads = tape.gradient(loss, variables)
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for v, g in zip(variables, grads):
            v.assign_sub(0.01 * g)
        return loss

    @tf.function
    def train_step(xb, yb):
        return strategy.run(step, args=(xb, yb))

    @tf.function
    def all_reduce(grads):
        return strategy.run(
            lambda g: tf.distribute.get_replica_context().all_reduce("SUM", g), args=(grads,))

    out = {"step": _timed(lambda: train_step(x, y).numpy(), warmup, steps)}
    weights = [v.numpy() for v in variables]
    xs, ys = x.numpy(), y.numpy()
    out["numpy"] = _timed(lambda: _numpy_step(xs, ys, weights), 1, max(3, steps // 3))
    grads = [tf.constant(rng.randn(*s).astype(np.float32)) for s in shapes]
    one = [tf.constant([1.0])]
    out["reduce"] = _timed(lambda: all_reduce(grads), warmup, steps)
    out["float"] = _timed(lambda: all_reduce(one), warmup, 4 * steps)
    if store_steps and strategy.num_replicas_in_sync > 1:
        chief = strategy.cluster_resolver.task_id == 0
        usage = [_store_usage() if chief else None]
        for i in range(store_steps):
            all_reduce(grads)
            if chief and (i + 1) % max(1, store_steps // 4) == 0:
                usage.append(_store_usage())
        out["store"] = usage
    return out


def _pieces(stats):
    return ", ".join(f"{k} {stats[k] * 1e3:.1f} ({stats[k + '_cpu'] * 1e3:.1f} CPU)"
                     for k in _PIECES)


def _ms(seconds):
    return f"{seconds * 1e3:7.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--store-steps", type=int, default=0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; CPUs: {os.cpu_count()}")
    params = 2 * args.width * args.width + 12 * args.width + 10
    print(f"MLP {args.width} wide, {params / 1e6:.1f}M parameters ({params * 4 / 2**20:.0f} MiB "
          f"of gradients), {args.batch} rows per replica, {args.steps} steps after "
          f"{args.warmup}")
    results = {}
    for n in (1, 2):
        with RayWorkers(n, num_cpus=max(2, os.cpu_count() or 1), blas_threads=1) as workers:
            per_worker = workers.run(train, args=(args.width, args.batch, args.steps,
                                                  args.warmup, args.store_steps),
                                     all_workers=True)
        results[n] = worst = {k: tuple(max(r[k][i] for r in per_worker) for i in range(2))
                              for k in ("step", "numpy", "reduce", "float")}
        print(f"{n} worker(s): step {_ms(worst['step'][0])} ms ({_ms(worst['step'][1])} ms "
              f"CPU), {n * args.batch / worst['step'][0]:7.1f} rows/s; raw NumPy step in the "
              f"actor {_ms(worst['numpy'][0])} ms ({_ms(worst['numpy'][1])} ms CPU)")
        for rank, r in enumerate(per_worker):
            pieces = r["step"][2]
            print(f"  worker {rank}: {pieces['collectives']:.0f} collectives/step, "
                  f"{pieces['bytes'] / 2**20:.1f} MiB; "
                  + _pieces(pieces) + " ms/step")
        print(f"  all-reduce alone: gradients {_ms(worst['reduce'][0])} ms "
              f"({_ms(worst['reduce'][1])} ms CPU), one float {worst['float'][0] * 1e3:6.2f} ms")
        for rank, r in enumerate(per_worker):
            pieces = r["reduce"][2]
            print(f"  worker {rank}, gradients alone: "
                  + _pieces(pieces) + " ms/call")
        if "store" in per_worker[0]:
            print(f"  object store (MiB, objects) over {args.store_steps} more all-reduces: "
                  f"{per_worker[0]['store']}")
    one, two = results[1]["step"], results[2]["step"]
    print(f"throughput 2 workers / 1 worker: {one[0] * 2 / two[0]:.2f}x (by CPU time per step: "
          f"{one[1] * 2 / two[1]:.2f}x); step time added by the second worker (reduction and "
          f"waiting): {(two[0] - one[0]) * 1e3:.1f} ms; Ray all-reduce of the gradients: "
          f"{results[2]['reduce'][0] * 1e3:.1f} ms/step")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
