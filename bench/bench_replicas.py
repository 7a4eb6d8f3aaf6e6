"""Do MirroredStrategy's replicas run concurrently on one machine? Two compute-heavy steps
under ``strategy.run`` with 1 replica and with 2; replica-steps/s and the speedup of 2 replicas
over 1 (2.0 is perfect overlap, 1.0 is replicas taking turns), each beside the same work done
by plain NumPy threads (the machine's own ceiling):

- a 2048-wide float32 matmul and a reduction per replica, eagerly and inside a tf.function;
- an MLP training step inside a tf.function (two 2048-wide dense layers, batch 256 per replica:
  forward, gradients with a tape, gradients all-reduced, SGD updates of mirrored variables).

Eagerly the replicas take turns, as TF's do (so state one replica builds lazily is what the
next sees): expect about 1.0x there. Inside a tf.function each replica's ops, traced into one
graph, run as a part of their own on a thread between the replicas' meeting points
(executor/replica_groups.py).

BLAS is pinned to one thread per replica (OPENBLAS/OMP/MKL_NUM_THREADS=1), so a replica is one
core's worth of work and 2 replicas can at most double the throughput on 2 idle cores.

    python bench/bench_replicas.py [--width 2048] [--batch 256] [--steps 6]
"""

import argparse
import logging
import os
import threading
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402
import _timing  # noqa: E402,F401 - puts the checkout first on sys.path

import tensortrace as tf  # noqa: E402


def _best_rate(fn, steps, replicas, rounds=3):
    """Replica-steps per second of ``fn`` (one call runs ``replicas`` replica-steps): the
    best of ``rounds`` rounds of ``steps`` calls (the least disturbed by other processes)."""
    fn()
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(steps):
            fn()
        best = max(best, steps * replicas / (time.perf_counter() - start))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()
    tf.get_logger().setLevel(logging.ERROR)  # the "eager MirroredStrategy" warning
    a = np.random.default_rng(0).normal(size=(args.width, args.width)).astype(np.float32)
    print(f"{args.width}x{args.width} float32 matmul per replica-step, BLAS threads 1; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")

    def numpy_threads(n):
        def work():
            np.sum(a @ a)

        def run():
            threads = [threading.Thread(target=work) for _ in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        return run

    rates = {"numpy threads": [_best_rate(numpy_threads(n), args.steps, n) for n in (1, 2)]}

    def step(x):
        return tf.reduce_sum(tf.matmul(x, x))


    for mode in ("eager", "tf.function"):
        rates[mode] = []
        for devices in (["cpu:0"], ["cpu:0", "cpu:1"]):
            strategy = tf.distribute.MirroredStrategy(devices)
            # each replica its own matrix, passed as an argument: a trace can neither fold
            # the matmuls into constants nor merge the replicas' matmuls into one
            x = strategy.experimental_distribute_values_from_function(
                lambda ctx: tf.constant(a + np.float32(ctx.replica_id_in_sync_group)))

            def run(x, strategy=strategy):
                return strategy.run(step, args=(x,))

            fn = run if mode == "eager" else tf.function(run)
            rates[mode].append(_best_rate(lambda fn=fn, x=x: fn(x), args.steps,
                                          len(devices)))

    rates.update(_mlp_rates(args))
    print(f"  {'':<36}{'1 replica':>12}{'2 replicas':>12}{'speedup':>9}  (replica-steps/s)")
    for name, (one, two) in rates.items():
        label = name if "numpy" in name else f"strategy.run, {name}"
        print(f"  {label:<36}{one:12.2f}{two:12.2f}{two / one:8.2f}x")
    print(f"  load average after: {os.getloadavg()[0]:.2f}")


def _mlp_rates(args):
    """The MLP training step: NumPy threads doing its matmuls, and traced ``strategy.run``."""
    rng = np.random.default_rng(1)
    width, batch = args.width, args.batch
    w0 = (rng.normal(size=(width, width)) / np.sqrt(width)).astype(np.float32)
    w1 = (rng.normal(size=(width, width)) / np.sqrt(width)).astype(np.float32)
    data = [rng.normal(size=(batch, width)).astype(np.float32) for _ in range(2)]

    def numpy_step(x):  # the step's products: 2 forward, 3 backward (no input gradient)
        h = np.maximum(x @ w0, 0)
        y = h @ w1
        dy = 2 * y / y.size
        dh = (dy @ w1.T) * (h > 0)
        return (h.T @ dy).sum() + (x.T @ dh).sum()

    def numpy_threads(n):
        def run():
            threads = [threading.Thread(target=numpy_step, args=(data[i],)) for i in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        return run

    rates = {"numpy threads, MLP step": [_best_rate(numpy_threads(n), args.steps, n)
                                         for n in (1, 2)]}
    rates["MLP step, tf.function"] = []
    for devices in (["cpu:0"], ["cpu:0", "cpu:1"]):
        strategy = tf.distribute.MirroredStrategy(devices)
        with strategy.scope():
            v0, v1 = tf.Variable(w0), tf.Variable(w1)
        x = strategy.experimental_distribute_values_from_function(
            lambda ctx: tf.constant(data[ctx.replica_id_in_sync_group]))

        def replica_step(x, v0=v0, v1=v1):
            with tf.GradientTape() as tape:
                y = tf.matmul(tf.nn.relu(tf.matmul(x, v0)), v1)
                loss = tf.reduce_mean(y * y)
            grads = tape.gradient(loss, [v0, v1])
            grads = tf.distribute.get_replica_context().all_reduce("mean", grads)
            v0.assign_sub(1e-3 * grads[0])
            v1.assign_sub(1e-3 * grads[1])
            return loss

        @tf.function
        def train(x, strategy=strategy, replica_step=replica_step):
            return strategy.run(replica_step, args=(x,))

        rates["MLP step, tf.function"].append(
            _best_rate(lambda train=train, x=x: train(x), args.steps, len(devices)))
    parts = "_parts((" in train.get_concrete_function(x).code
    print(f"2-replica MLP step traced into replica parts run on threads: {parts}")
    return rates


if __name__ == "__main__":
    main()
