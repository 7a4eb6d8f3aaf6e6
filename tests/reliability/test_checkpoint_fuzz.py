"""Checkpoint loader fuzzing: deterministic mutants of TF-made checkpoints (byte flips, byte
runs, truncations and insertions of the .index and .data files, and structured edits of the
bundle's entries and header re-encoded with valid block checksums: huge and negative sizes,
offsets, shapes and shard ids, unknown dtypes, broken object graphs). Reading every key of each
mutant, and restoring it with ``tf.train.Checkpoint``, either succeeds or raises one of TF's
error types for bad files; never another exception, a hang or a huge allocation.

The mutants run in one worker process under a memory limit and a per-mutant time bound;
``python tests/reliability/test_checkpoint_fuzz.py SEED COUNT`` runs the worker by hand.
"""

import collections
import logging
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "tf", "checkpoints")
SOURCES = ("mlp/ckpt-1", "dtypes/ckpt", "raw/bundle")
SEED, COUNT = 20261126, 600
PER_MUTANT_S = 2.0
MEMORY_LIMIT = 3 << 30


class Timeout(BaseException):
    """A mutant ran past its bound (BaseException: no ``except Exception`` swallows it)."""


def _flip(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def _byte_mutant(data, rng):
    kind = rng.randrange(5)
    if kind == 0 or not data:
        return _flip(data, rng)
    i = rng.randrange(len(data))
    if kind == 1:
        return data[:i]
    if kind == 2:
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[i:]
    if kind == 3:
        return data[:i] + bytes([rng.choice([0, 0xFF, 0x80])]) * rng.randint(1, 12) + data[i + 1:]
    return data[:i] + data[i + rng.randint(1, 40):]  # a deleted run


HUGE = [0, 1, -1, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1, -(2 ** 63), 7, 3]


def _structured_mutant(index, rng):
    """Decode the table, edit one entry's proto fields, re-encode with valid checksums."""
    from tensortrace import _protos
    from tensortrace.checkpoint import bundle

    entries = bundle.read_table(index, "fuzz")
    i = rng.randrange(len(entries))
    key, value = entries[i]
    if key == b"":
        msg = _protos.BundleHeaderProto.FromString(value)
        field = rng.randrange(4)
        if field == 0:
            msg.num_shards = rng.choice([0, -1, 2, 2 ** 31 - 1])
        elif field == 1:
            msg.version.min_consumer = rng.choice([0, 2, 10 ** 6])
        elif field == 2:
            msg.version.bad_consumers.append(1)
        else:
            msg.endianness = 1
        value = msg.SerializeToString()
    elif rng.random() < 0.15:
        value = _flip(value, rng)
    else:
        msg = _protos.BundleEntryProto.FromString(value)
        field = rng.randrange(7)
        if field == 0:
            msg.size = rng.choice(HUGE) & ((1 << 63) - 1) if rng.random() < 0.5 else \
                max(0, msg.size + rng.choice([-1, 1, 8]))
        elif field == 1:
            msg.offset = rng.choice(HUGE)
        elif field == 2:
            msg.shard_id = rng.choice([1, -1, 2 ** 31 - 1])
        elif field == 3:
            msg.dtype = rng.choice([0, 5, 7, 10, 14, 19, 20, 21, 23, 99, 1000])
        elif field == 4:
            if msg.shape.dim:
                msg.shape.dim[rng.randrange(len(msg.shape.dim))].size = rng.choice(HUGE)
            else:
                msg.shape.dim.add(size=rng.choice(HUGE))
        elif field == 5:
            for _ in range(rng.choice([1, 300])):
                msg.shape.dim.add(size=1)
        else:
            msg.crc32c = rng.randrange(2 ** 32)
        value = msg.SerializeToString()
    if rng.random() < 0.1:  # a duplicated or reordered key
        entries.insert(rng.randrange(len(entries)), (key, value))
    else:
        entries[i] = (key, value)
    return bundle.build_table(entries)


def _graph_mutant(data_path, index, rng):
    """Replace the object graph tensor's bytes with a mutated graph (valid checksums)."""
    from tensortrace import _protos
    from tensortrace.checkpoint import bundle

    reader = bundle.BundleReader(data_path)
    tensors = {k: (reader.read(k), reader.dtype(k)) for k in reader.keys()}
    graph = _protos.trackable_object_graph_pb2.TrackableObjectGraph.FromString(
        tensors["_CHECKPOINTABLE_OBJECT_GRAPH"][0].reshape(-1)[0])
    node = graph.nodes[rng.randrange(len(graph.nodes))]
    kind = rng.randrange(5)
    if kind == 0 and node.children:
        node.children[0].node_id = rng.choice([-1, 0, 10 ** 6, len(graph.nodes)])
    elif kind == 1 and node.attributes:
        node.attributes[0].checkpoint_key = rng.choice(["", "missing/key", "_CHECKPOINTABLE_OBJECT_GRAPH"])
    elif kind == 2:
        node.children.add(node_id=0, local_name=rng.choice(["", "model", "\x00", "a" * 1000]))
    elif kind == 3:
        del graph.nodes[rng.randrange(len(graph.nodes)):]
    else:
        raw = _flip(graph.SerializeToString(), rng)
        tensors["_CHECKPOINTABLE_OBJECT_GRAPH"] = (raw, tensors["_CHECKPOINTABLE_OBJECT_GRAPH"][1])
        return tensors
    tensors["_CHECKPOINTABLE_OBJECT_GRAPH"] = (graph.SerializeToString(),
                                               tensors["_CHECKPOINTABLE_OBJECT_GRAPH"][1])
    return tensors


def _exercise(prefix, tf, errors):
    """Read every key and restore into fresh variables; returns the outcome's name."""
    from tensortrace.checkpoint import bundle

    allowed = (errors.DataLossError, errors.NotFoundError, ValueError, OSError,
               errors.InvalidArgumentError, errors.UnimplementedError)
    try:
        reader = bundle.BundleReader(prefix)
        for key in reader.keys():
            reader.dtype(key), reader.shape(key)
            try:
                reader.read(key)
            except allowed:
                pass
        listing = tf.train.list_variables(prefix)
        variables = {}
        for key, shape in listing:
            name = key.split("/")[0]
            if name != "save_counter" and key.endswith("VARIABLE_VALUE") and key.count("/") == 2 and \
                    sum(1 for s in shape) < 4 and all(0 <= s < 1000 for s in shape):
                dtype = reader.dtype(key)
                if dtype == tf.string:
                    variables[name] = tf.Variable(tf.fill(shape, "?"))
                elif dtype.is_numpy_compatible and dtype.name not in ("resource", "variant"):
                    variables[name] = tf.Variable(tf.zeros(shape, dtype))
        if "_CHECKPOINTABLE_OBJECT_GRAPH" in reader:
            tf.train.Checkpoint(**variables).read(prefix).expect_partial()
        return "ok"
    except allowed as e:
        return type(e).__name__


def worker(seed, count):
    """Run ``count`` mutants; print one line per unexpected outcome, then the tally."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    def alarm(*_):
        raise Timeout()

    signal.signal(signal.SIGALRM, alarm)
    logging.disable(logging.WARNING)  # restores of partial mutants warn: expected here
    os.fsync = lambda fd: None  # durability is not under test: keep the disk out of the time
    sys.path.insert(0, ROOT)
    import tensortrace as tf
    from tensortrace import errors
    from tensortrace.checkpoint import bundle

    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="ckpt-fuzz-")
    tally, bad = collections.Counter(), 0
    try:
        for n in range(count):
            source = os.path.join(FIXTURES, rng.choice(SOURCES))
            index = open(source + ".index", "rb").read()
            data = open(source + ".data-00000-of-00001", "rb").read()
            prefix = os.path.join(work, f"m{n}")
            kind = rng.randrange(4)
            if kind == 0:
                index = _byte_mutant(index, rng)
            elif kind == 1:
                data = _byte_mutant(data, rng)
            elif kind == 2:
                index = _structured_mutant(index, rng)
            if kind == 3 and "raw" not in source:
                bundle.write_bundle(prefix, _graph_mutant(source, index, rng))
            else:
                with open(prefix + ".index", "wb") as f:
                    f.write(index)
                with open(prefix + ".data-00000-of-00001", "wb") as f:
                    f.write(data)
            signal.setitimer(signal.ITIMER_REAL, PER_MUTANT_S)
            try:
                outcome = _exercise(prefix, tf, errors)
            except Timeout:
                outcome = "TIMEOUT"
            except BaseException as e:  # noqa: BLE001 - anything else is the finding
                outcome = f"{type(e).__name__}: {e}"[:300]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if outcome not in ("ok", "DataLossError", "NotFoundError", "ValueError", "OSError",
                               "InvalidArgumentError", "UnimplementedError"):
                bad += 1
                print(f"mutant {n} (kind {kind}, {source}): {outcome}")
            tally[outcome.split(":")[0]] += 1
            for suffix in (".index", ".data-00000-of-00001"):
                try:
                    os.remove(prefix + suffix)
                except FileNotFoundError:
                    pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("TALLY", dict(sorted(tally.items())), "BAD", bad)
    return bad


def test_checkpoint_fuzz():
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(SEED), str(COUNT)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "BAD 0" in out, out[-3000:]
    tally = eval(out.split("TALLY ", 1)[1].split(" BAD", 1)[0])  # noqa: S307 - our own output
    assert tally.get("ok", 0) > 50 and tally.get("DataLossError", 0) > 100, tally


if __name__ == "__main__":
    sys.exit(1 if worker(int(sys.argv[1]), int(sys.argv[2])) else 0)
