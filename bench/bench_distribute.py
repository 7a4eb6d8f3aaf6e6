"""MultiWorkerMirroredStrategy on Ray: training throughput of compute-heavy steps (an MLP, a conv
net) on 1 and 2 Ray workers, and the per-step cost of the gradient all-reduce through Ray.

    python bench/bench_distribute.py [--model mlp|conv|both] [--width 2048] [--batch 256]
        [--steps 15] [--warmup 5] [--store-steps 1000]
        [--transport both|channels|object_store|auto] [--rounds 1]

Each worker is a Ray actor pinned to one BLAS thread (OMP/OPENBLAS/MKL_NUM_THREADS=1 in its
environment, before NumPy loads) and one Ray CPU; each trains the same tf.function step
(``mlp``: 3 dense layers ``width`` wide; ``conv``: two convolutions and two dense layers;
``batch`` rows per replica, gradients all-reduced in the replica context, SGD). Throughput is
rows per second (2 workers: the global batch is 2 x ``batch``). The 2 workers run once per
transport of their collectives (``--transport both``): Ray's shared-memory channels, then Ray's
object store with actor calls. Per worker and step it also prints the CPU time (this process's
threads, Ray's included: under load the wall time waits for a core, the CPU time does not), the
collective's pieces (put into the object store or the channel, exchange (waiting for the
others), get, sum; one worker does none), the same step's matrix products in raw NumPy in the
same actor (MLP: is the compute slowed by the other worker or Ray's threads?), minor page faults
per step (fresh memory touched), and the all-reduce alone (in a tf.function) on gradient-sized
tensors and on one float (the exchange's latency). ``--store-steps N``: N more all-reduces of
the gradients, with the object store's usage before and after (it must not grow). The
machine's load average is printed around each run; the last lines sum up each workload (on a
busy machine, the ratios by CPU time are what count)."""

import argparse
import os
import re
import resource
import statistics
import time

import _timing  # noqa: F401 - puts the repository first on the path

import numpy as np

import tensortrace as tf
from tensortrace.distribute import RayWorkers
from tensortrace.distribute import ray_backend
from tensortrace.distribute.ray_backend import collective_stats

_PIECES = ("put", "exchange", "get", "sum")


def _store_usage():
    """The Ray object store's usage (MiB, objects), from Ray's memory summary."""
    import ray  # the bench needs Ray anyway
    from ray._private.internal_api import memory_summary
    text = memory_summary(address=ray.get_runtime_context().gcs_address, stats_only=True)
    found = re.search(r"Plasma memory usage (\d+) MiB, (\d+) objects", text)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _ray_cpu(driver, workers):
    """CPU seconds so far of the driver and the processes it started (Ray's GCS, raylet,
    agents, idle workers), the training workers left out (0 without psutil)."""
    try:
        import psutil  # Ray's dashboard needs it; optional here
    except ImportError:
        return 0.0
    total = 0.0
    try:
        root = psutil.Process(driver)
        for p in [root] + root.children(recursive=True):
            if p.pid not in workers:
                try:
                    t = p.cpu_times()
                    total += t.user + t.system
                except psutil.Error:
                    pass
    except psutil.Error:
        pass
    return total


def _timed(fn, warmup, steps, others=None):
    """Median wall and CPU seconds of ``fn()``, the collectives' pieces per call (and the
    process's minor page faults per call: fresh memory touched; ``others``: the CPU seconds
    per call of the processes ``others()`` counts)."""
    for _ in range(warmup):
        fn()
    before, faults = collective_stats(), _faults()
    others_before = others() if others else 0.0
    walls, cpus = [], []
    for _ in range(steps):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    after = collective_stats()
    pieces = {k: (after[k] - before[k]) / steps for k in after}
    pieces["faults"] = (_faults() - faults) / steps
    pieces["others_cpu"] = ((others() if others else 0.0) - others_before) / steps
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


def _model(name, width, batch, rng):
    """The workload: inputs, targets, variable shapes and the forward pass ``f(x, variables)``.
    ``mlp``: 3 dense layers ``width`` wide; ``conv``: 32x32x3 images through two 3x3
    convolutions (32 and 64 channels, the second of stride 2) and dense 12544 -> 256 -> 10."""
    if name == "mlp":
        shapes = [(width, width), (width,), (width, width), (width,), (width, 10), (10,)]
        x = rng.randn(batch, width)

        def forward(h, variables):
            for w, b in zip(variables[0::2], variables[1::2]):
                h = h @ w + b
                if w.shape[1] == width:
                    h = tf.nn.relu(h)
            return h
    else:
        shapes = [(3, 3, 3, 32), (32,), (3, 3, 32, 64), (64,), (14 * 14 * 64, 256), (256,),
                  (256, 10), (10,)]
        x = rng.randn(batch, 32, 32, 3)

        def forward(h, v):
            h = tf.nn.relu(tf.nn.conv2d(h, v[0], 1, "VALID") + v[1])
            h = tf.nn.relu(tf.nn.conv2d(h, v[2], 2, "VALID") + v[3])
            h = tf.nn.relu(tf.reshape(h, [batch, -1]) @ v[4] + v[5])
            return h @ v[6] + v[7]
    return (tf.constant(x.astype(np.float32)),
            tf.constant(rng.randn(batch, 10).astype(np.float32)), shapes, forward)


def _alternating(fn, steps, rounds=4):
    """Steps with the large batches reduce-scattered and with every worker adding up everything
    (one round of messages), in alternating blocks: {mode: (median wall, median CPU)}."""
    default = ray_backend._SCATTER_WORKERS
    modes = {"scatter": 2, "all-sum": 1 << 30}  # the fewest workers that reduce-scatter
    times = {m: ([], []) for m in modes}
    try:
        for _ in range(rounds):
            for mode, workers in modes.items():
                ray_backend._SCATTER_WORKERS = workers
                fn()  # the first step after a switch settles the new sizes' buffers
                for _ in range(max(1, steps // rounds)):
                    start, cpu = time.perf_counter(), time.process_time()
                    fn()
                    times[mode][0].append(time.perf_counter() - start)
                    times[mode][1].append(time.process_time() - cpu)
    finally:
        ray_backend._SCATTER_WORKERS = default
    return {m: (statistics.median(w), statistics.median(c)) for m, (w, c) in times.items()}


def train(model, width, batch, steps, warmup, store_steps, ab=False, driver=None, pids=()):
    """This worker's figures (see the module docstring)."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.RandomState(strategy.cluster_resolver.task_id or 0)
    x, y, shapes, forward = _model(model, width, batch, rng)
    with strategy.scope():
        variables = [tf.Variable(rng.randn(*s).astype(np.float32) * (0.02 if len(s) >= 2
                                                                      else 0.0)) for s in shapes]
    global_batch = batch * strategy.num_replicas_in_sync

    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = forward(xb, variables)
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

    chief = strategy.cluster_resolver.task_id in (0, None)
    others = (lambda: _ray_cpu(driver, set(pids))) if chief and driver else None
    out = {"step": _timed(lambda: train_step(x, y).numpy(), warmup, steps, others)}
    if ab and strategy.num_replicas_in_sync > 1:
        out["ab"] = _alternating(lambda: train_step(x, y).numpy(), steps, max(1, steps // 2))
    if model == "mlp":
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
    return ", ".join(f"{k} {stats[k] * 1e3:.1f} ({stats[k + '_cpu'] * 1e3:.1f} CPU, "
                     f"{stats.get(k + '_faults', 0):.0f} faults)" for k in _PIECES)


def _ms(seconds):
    return f"{seconds * 1e3:7.1f}"


def _gloo_all_reduce(nbytes, steps=15):
    """Median seconds of ``ray.util.collective``'s all-reduce (its CPU backend, gloo through
    torch.distributed) between 2 Ray actors, of ``nbytes`` of float32 and of one float; None
    where PyTorch is missing (that backend needs it)."""
    import ray
    try:
        import ray.util.collective  # noqa: F401 - imported again in the actors
        import torch  # noqa: F401
    except ImportError:
        return None

    @ray.remote(num_cpus=1, runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    class Gloo:
        def __init__(self, rank):
            import ray.util.collective as col
            col.init_collective_group(2, rank, backend="gloo", group_name="bench")
            self.rank = rank

        def time(self, size):
            import ray.util.collective as col
            import torch
            tensor = torch.from_numpy(np.full(size, self.rank + 1.0, np.float32))
            for _ in range(3):
                col.allreduce(tensor, group_name="bench")
            walls = []
            for _ in range(steps):
                start = time.perf_counter()
                col.allreduce(tensor, group_name="bench")
                walls.append(time.perf_counter() - start)
            return statistics.median(walls)

    actors = [Gloo.remote(i) for i in range(2)]
    try:
        return tuple(max(ray.get([a.time.remote(size) for a in actors], timeout=300))
                     for size in (nbytes // 4, 1))
    finally:
        for a in actors:
            ray.kill(a)


def _run_model(model, args):
    """1 then 2 workers on ``model`` (2 workers once per transport): the printed figures;
    {(workers, transport): summary}."""
    results = {}
    transports = ("channels", "object_store") if args.transport == "both" else (args.transport,)
    plan = [(1, "auto")] + [(2, t) for t in transports]
    for k, (n, transport) in enumerate(plan):
        before = os.getloadavg()[0]
        with RayWorkers(n, num_cpus=max(2, os.cpu_count() or 1), blas_threads=1,
                        transport=transport) as workers:
            transport = workers.transport
            per_worker = workers.run(train, args=(model, args.width, args.batch, args.steps,
                                                  args.warmup, args.store_steps, args.ab,
                                                  os.getpid(), workers.pids),
                                     all_workers=True)
        keys = [k for k in ("step", "numpy", "reduce", "float") if k in per_worker[0]]
        results[n, transport] = worst = {
            k: tuple(max(r[k][i] for r in per_worker) for i in range(2)) for k in keys}
        worst["load"] = (before, os.getloadavg()[0])
        raw = "" if "numpy" not in worst else (
            f"; raw NumPy step in the actor {_ms(worst['numpy'][0])} ms "
            f"({_ms(worst['numpy'][1])} ms CPU)")
        print(f"{n} worker(s){'' if n == 1 else ', ' + transport}: step "
              f"{_ms(worst['step'][0])} ms ({_ms(worst['step'][1])} ms "
              f"CPU), {n * args.batch / worst['step'][0]:7.1f} rows/s{raw}; load average "
              f"{worst['load'][0]:.1f} -> {worst['load'][1]:.1f}")
        print(f"  the driver and Ray's own processes (GCS, raylet, agents): "
              f"{per_worker[0]['step'][2]['others_cpu'] * 1e3:.1f} ms CPU per step")
        for rank, r in enumerate(per_worker):
            pieces = r["step"][2]
            print(f"  worker {rank}: {pieces['collectives']:.0f} collectives/step, "
                  f"{pieces['bytes'] / 2**20:.1f} MiB; "
                  + _pieces(pieces) + f" ms/step; {pieces['faults']:.0f} page faults/step")
        print(f"  all-reduce alone: gradients {_ms(worst['reduce'][0])} ms "
              f"({_ms(worst['reduce'][1])} ms CPU), one float {worst['float'][0] * 1e3:6.2f} ms")
        for rank, r in enumerate(per_worker):
            pieces = r["reduce"][2]
            print(f"  worker {rank}, gradients alone: "
                  + _pieces(pieces) + f" ms/call; {pieces['faults']:.0f} page faults/call")
        if "ab" in per_worker[0]:
            ab = {m: tuple(max(r["ab"][m][i] for r in per_worker) for i in range(2))
                  for m in per_worker[0]["ab"]}
            print("  alternating blocks of steps: " + "; ".join(
                f"{m} {_ms(w)} ms ({_ms(c)} ms CPU)" for m, (w, c) in ab.items()))
        if k == len(plan) - 1 and args.gloo:  # after the last 2-worker run: its CPUs free
            gloo = _gloo_all_reduce(int(per_worker[0]["reduce"][2]["bytes"]) or 1)
            print("  ray.util.collective (gloo through torch.distributed), the same all-reduce "
                  "between 2 actors: " + ("not measured: it needs PyTorch" if gloo is None else
                                          f"gradients {_ms(gloo[0])} ms, one float "
                                          f"{gloo[1] * 1e3:6.2f} ms"))
        if "store" in per_worker[0]:
            print(f"  object store (MiB, objects) over {args.store_steps} more all-reduces: "
                  f"{per_worker[0]['store']}")
    return results


def _describe(model, args):
    if model == "mlp":
        params = 2 * args.width * args.width + 12 * args.width + 10
        what = f"MLP {args.width} wide"
    else:
        params = 3 * 3 * 3 * 32 + 32 + 3 * 3 * 32 * 64 + 64 + 12544 * 256 + 256 + 2570
        what = "conv net (32x32x3 images, conv 32, conv 64 stride 2, dense 256, 10)"
    return (f"{what}, {params / 1e6:.1f}M parameters ({params * 4 / 2**20:.0f} MiB of "
            f"gradients), {args.batch} rows per replica, {args.steps} steps after {args.warmup}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "conv", "both"), default="both")
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--store-steps", type=int, default=0)
    parser.add_argument("--transport", choices=("auto", "channels", "object_store", "both"),
                        default="both", help="how the 2 workers' collectives travel (both: "
                        "a 2-worker run with each, Ray's shared-memory channels first)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run 1 worker then 2 workers this many times in a row, and give "
                        "the median ratio (the machine's load changes between the runs)")
    parser.add_argument("--no-gloo", dest="gloo", action="store_false",
                        help="skip timing ray.util.collective's all-reduce (needs PyTorch)")
    parser.add_argument("--ab", action="store_true",
                        help="2 workers: also time steps with the gradients reduce-scattered "
                        "and with each worker adding up all of them, in alternating blocks")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; CPUs: {os.cpu_count()}")
    summary, ratios = [], {}
    for model in (("mlp", "conv") if args.model == "both" else (args.model,)):
        print(_describe(model, args))
        for _ in range(args.rounds):
            results = _run_model(model, args)
            one = results[1, "object_store"]["step"]
            for (n, transport), two in results.items():
                if n == 1:
                    continue
                step = two["step"]
                ratios.setdefault((model, transport), []).append(
                    (one[0] * 2 / step[0], one[1] * 2 / step[1]))
                summary.append(
                    f"{model}, {transport}: throughput 2 workers / 1 worker "
                    f"{one[0] * 2 / step[0]:.2f}x (by CPU time per step: "
                    f"{one[1] * 2 / step[1]:.2f}x); step {one[0] * 1e3:.1f} -> "
                    f"{step[0] * 1e3:.1f} ms ({one[1] * 1e3:.1f} -> {step[1] * 1e3:.1f} ms CPU): "
                    f"the second worker adds {(step[0] - one[0]) * 1e3:.1f} ms "
                    f"({(step[1] - one[1]) * 1e3:.1f} ms CPU) per step; Ray all-reduce of the "
                    f"gradients alone {two['reduce'][0] * 1e3:.1f} ms "
                    f"({two['reduce'][1] * 1e3:.1f} ms CPU), of one float "
                    f"{two['float'][0] * 1e3:.2f} ms; load average "
                    f"{results[1, 'object_store']['load'][0]:.1f} .. {two['load'][1]:.1f}")
    if args.rounds > 1:
        for (model, transport), got in ratios.items():
            summary.append(
                f"{model}, {transport}: median over {len(got)} rounds: throughput 2 workers / 1 "
                f"worker {statistics.median(w for w, _ in got):.2f}x (by CPU time "
                f"{statistics.median(c for _, c in got):.2f}x); each round: "
                + ", ".join(f"{w:.2f}x" for w, _ in got))
    print("\n".join(summary))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
