"""MultiWorkerMirroredStrategy on Ray: training throughput of a compute-heavy MLP step on 1 and
2 Ray workers, and the per-step cost of the gradient all-reduce through Ray.

    python bench/bench_distribute.py [--width 2048] [--batch 256] [--steps 8]

Each worker is a Ray actor pinned to one BLAS thread (OMP/OPENBLAS/MKL_NUM_THREADS=1 in its
environment, before NumPy loads) and one Ray CPU; each trains the same tf.function step
(3 dense layers ``width`` wide, ``batch`` rows per replica, gradients all-reduced in the replica
context, SGD). Throughput is rows per second (2 workers: the global batch is 2 x ``batch``).
The all-reduce is also timed alone (in a tf.function) on gradient-sized tensors (the step's
one packed collective) and on one float (the round trip's latency); the machine's load average
is printed before and after. One worker's collectives cost nothing (it is the whole cluster)."""

import argparse
import os
import statistics
import time

import _timing  # noqa: F401 - puts the repository first on the path

import numpy as np

import tensortrace as tf
from tensortrace.distribute import RayWorkers


def train(width, batch, steps, warmup=2):
    """Seconds per training step on this worker (median), and of the all-reduce alone."""
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

    times = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        train_step(x, y).numpy()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    def timed(values):
        samples = []
        for i in range(warmup + steps):
            start = time.perf_counter()
            all_reduce(values)[0].numpy()
            if i >= warmup:
                samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    grads = [tf.constant(rng.randn(*s).astype(np.float32)) for s in shapes]
    return statistics.median(times), timed(grads), timed([tf.constant([1.0])])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; CPUs: {os.cpu_count()}")
    params = 2 * args.width * args.width + 12 * args.width + 10
    print(f"MLP {args.width} wide, {params / 1e6:.1f}M parameters ({params * 4 / 2**20:.0f} MiB "
          f"of gradients), {args.batch} rows per replica, {args.steps} steps")
    results = {}
    for n in (1, 2):
        with RayWorkers(n, num_cpus=max(2, os.cpu_count() or 1), blas_threads=1) as workers:
            per_worker = workers.run(train, args=(args.width, args.batch, args.steps),
                                     all_workers=True)
        step, reduce, latency = (max(r[i] for r in per_worker) for i in range(3))
        results[n] = (step, reduce)
        print(f"{n} worker(s): {step * 1e3:8.1f} ms/step, {n * args.batch / step:8.1f} rows/s; "
              f"all-reduce alone: gradients {reduce * 1e3:6.1f} ms, one float "
              f"{latency * 1e3:5.2f} ms")
    speedup = (2 * args.batch / results[2][0]) / (args.batch / results[1][0])
    print(f"throughput 2 workers / 1 worker: {speedup:.2f}x; step time added by the second "
          f"worker (reduction and waiting): {(results[2][0] - results[1][0]) * 1e3:.1f} ms; "
          f"Ray all-reduce of the gradients: {results[2][1] * 1e3:.1f} ms/step")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
