"""Loader fuzzing of TF's SavedModel format: deterministic mutants of TF-made SavedModels (byte
flips, truncations and splices of saved_model.pb and of the variables' index and data files;
structured edits of the protos: op types, dtypes, shapes, inputs, attrs, object-graph ids,
bound inputs, signatures, checkpoint entries; tf.data pipelines' nodes, iterators, tracked
dataset resources and anonymous or dataset-initialized lookup tables). Each mutant must load (and its functions run or
fail as TF's calls fail) or be refused with one of the loader's errors: no raw exception, no
hang, no crash.

One worker process runs mutants for a fixed time under a memory limit and a per-mutant alarm;
``python tests/reliability/test_savedmodel_tf_fuzz.py SEED SECONDS`` runs it by hand and prints
the tally.
"""

import collections
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "tf", "savedmodels")
DATASETS = os.path.join(ROOT, "tests", "fixtures", "tf", "datasets")
MODELS = {"multi": os.path.join(FIXTURES, "multi"), "loop": os.path.join(FIXTURES, "loop"),
          "mlp": os.path.join(FIXTURES, "mlp"), "datasets": os.path.join(DATASETS, "tf_model"),
          "tables": os.path.join(DATASETS, "tf_tables"),
          "resource": os.path.join(DATASETS, "tf_resource")}
SEED = 20261126
SECONDS = 4.0
PER_MUTANT_S = 2.0
SLOW_MODELS = {"datasets": 8.0, "tables": 8.0, "resource": 8.0}  # loads trace pipelines' functions: slower
PIPELINE_MUTANTS = 10  # the pipelines' run: at least this many mutants, however slow
OP_TYPES = ["AddV2", "MatMul", "Const", "Placeholder", "NoOp", "While", "If", "ReadVariableOp",
            "Identity", "StatefulPartitionedCall", "Unknown", "", "Reshape", "Sum", "IdentityN",
            "TensorSliceDataset", "MapDataset", "ReduceDataset", "ScanDataset", "BatchDatasetV2",
            "AnonymousIteratorV3", "MakeIterator", "IteratorGetNext", "ZipDataset",
            "AnonymousHashTable", "InitializeTableFromDataset", "DummySeedGenerator"]
DATASET_ATTRS = ("output_types", "Toutput_types", "output_shapes", "Targuments", "Tstate", "N")
DTYPES = [0, 1, 2, 3, 7, 9, 10, 14, 18, 20, 21, 23, 101, 999, -1]
HUGE = [0, -1, -2, 2 ** 31, 2 ** 40, 2 ** 62, 7]


class Timeout(BaseException):
    """A mutant ran past its time bound (BaseException: no ``except Exception`` swallows it)."""


def _alarm(signum, frame):
    raise Timeout


# --- mutations ------------------------------------------------------------------------------------
def _bytes(rng, data):
    data = bytearray(data)
    kind = rng.randrange(4)
    if kind == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return "flip", bytes(data)
    if kind == 1:
        return "truncate", bytes(data[:rng.randrange(len(data) + 1)])
    if kind == 2 and data:
        i = rng.randrange(len(data))
        return "splice", bytes(data[:i] + data[rng.randrange(len(data)):])
    return "garbage", bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64))) + bytes(data)


def _structured(rng, proto):
    """Edit one field of a parsed SavedModel in place; returns the edit's name."""
    mg = proto.meta_graphs[0]
    functions = list(mg.graph_def.library.function)
    graph = mg.object_graph_def
    fdef = rng.choice(functions)
    nodes = list(fdef.node_def)
    node = rng.choice(nodes) if nodes else None
    kind = rng.randrange(15)
    if kind == 0 and node is not None:
        node.op = rng.choice(OP_TYPES)
        return "op type"
    if kind == 1 and node is not None:
        for attr in node.attr.values():
            if attr.WhichOneof("value") == "type":
                attr.type = rng.choice(DTYPES)
                return "attr dtype"
    if kind == 2 and node is not None and node.input:
        i = rng.randrange(len(node.input))
        node.input[i] = rng.choice([node.input[0], "nope:output:0", "^" + node.name, "a:b:c:d",
                                    rng.choice(nodes).name + ":z:0", ""])
        return "input"
    if kind == 3 and node is not None and node.op == "Const":
        t = node.attr["value"].tensor
        if t.tensor_shape.dim:
            t.tensor_shape.dim[0].size = rng.choice(HUGE)
        else:
            t.tensor_shape.dim.add(size=rng.choice(HUGE))
        return "const shape"
    if kind == 4 and node is not None and node.op == "Const":
        node.attr["value"].tensor.dtype = rng.choice(DTYPES)
        return "const dtype"
    if kind == 5:
        n = rng.choice(list(graph.nodes))
        if n.children:
            rng.choice(list(n.children)).node_id = rng.choice([0, 1, len(graph.nodes), -1,
                                                               2 ** 31 - 1])
            return "child id"
    if kind == 6 and graph.concrete_functions:
        saved = graph.concrete_functions[rng.choice(sorted(graph.concrete_functions))]
        if saved.bound_inputs:
            saved.bound_inputs[0] = rng.choice([0, 2, len(graph.nodes) + 3, 1])
        else:
            saved.bound_inputs.append(rng.randrange(len(graph.nodes)))
        return "bound input"
    if kind == 7:
        variables = [n for n in graph.nodes if n.WhichOneof("kind") == "variable"]
        if variables:
            v = rng.choice(variables).variable
            if rng.random() < 0.5:
                v.dtype = rng.choice(DTYPES)
            else:
                v.shape.dim.add(size=rng.choice(HUGE))
            return "variable"
    if kind == 8 and graph.concrete_functions:
        saved = graph.concrete_functions[rng.choice(sorted(graph.concrete_functions))]
        target = rng.choice([saved.canonicalized_input_signature, saved.output_signature])
        stack = [target]
        while stack:
            v = stack.pop()
            if v.WhichOneof("kind") == "tensor_spec_value":
                spec = v.tensor_spec_value
                if rng.random() < 0.5:
                    spec.dtype = rng.choice(DTYPES)
                else:
                    spec.shape.dim.add(size=rng.choice(HUGE))
                return "signature spec"
            for field in ("tuple_value", "list_value"):
                if v.WhichOneof("kind") == field:
                    stack.extend(getattr(v, field).values)
            if v.WhichOneof("kind") == "dict_value":
                stack.extend(v.dict_value.fields.values())
        target.Clear()
        return "signature cleared"
    if kind == 9:
        del mg.graph_def.library.function[rng.randrange(len(functions))]
        return "function removed"
    if kind == 10 and fdef.ret:
        fdef.ret[rng.choice(sorted(fdef.ret))] = rng.choice(["nope:output:0", "x", ""])
        return "ret"
    if kind == 11 and fdef.signature.input_arg:
        fdef.signature.input_arg[rng.randrange(len(fdef.signature.input_arg))].type = \
            rng.choice(DTYPES)
        return "arg dtype"
    if kind == 12 and graph.concrete_functions:
        saved = graph.concrete_functions[rng.choice(sorted(graph.concrete_functions))]
        deep = saved.canonicalized_input_signature
        for _ in range(rng.choice([3, 200])):
            deep = deep.tuple_value.values.add()
        return "deep signature"
    if kind == 13 and node is not None:
        for attr in node.attr.values():
            if attr.WhichOneof("value") == "func":
                attr.func.name = rng.choice([f.signature.name for f in functions] + ["nope"])
                return "func attr"
            if attr.WhichOneof("value") == "list" and attr.list.type:
                attr.list.type.append(rng.choice(DTYPES))
                return "type list"
    if kind == 14:
        return _dataset_edit(rng, functions)
    node = rng.choice(list(graph.nodes))
    node.Clear()
    return "object cleared"


def _dataset_edit(rng, functions):
    """Edit a pipeline's node: its element types or shapes, its function, an input dropped or
    another dataset op's type."""
    found = [n for f in functions for n in f.node_def
             if n.op.endswith("Dataset") or "Iterator" in n.op or "Table" in n.op]
    if not found:
        return "no dataset node"
    node = rng.choice(found)
    kind = rng.randrange(5)
    keys = [k for k in DATASET_ATTRS if k in node.attr]
    if kind == 0 and keys:
        attr = node.attr[rng.choice(keys)]
        if attr.list.type or attr.WhichOneof("value") == "list" and not attr.list.shape:
            attr.list.type.append(rng.choice(DTYPES))
        elif attr.list.shape:
            attr.list.shape[rng.randrange(len(attr.list.shape))].dim.add(size=rng.choice(HUGE))
        else:
            attr.i = rng.choice(HUGE)
        return "dataset element spec"
    if kind == 1 and node.input:
        del node.input[rng.randrange(len(node.input))]
        return "dataset input dropped"
    if kind == 2:
        for attr in node.attr.values():
            if attr.WhichOneof("value") == "func":
                attr.func.name = rng.choice([f.signature.name for f in functions] + ["nope"])
                return "dataset function"
    if kind == 3 and len(node.input) > 1:
        node.input[0], node.input[-1] = node.input[-1], node.input[0]
        return "dataset inputs swapped"
    node.op = rng.choice([t for t in OP_TYPES if "Dataset" in t or "Iterator" in t])
    return "dataset op type"


def _checkpoint(rng, prefix):
    """Rewrite the bundle at ``prefix`` with one entry changed (dtype, shape or a missing key)."""
    from tensortrace.checkpoint.bundle import BundleReader, write_bundle

    reader = BundleReader(prefix)
    tensors = {k: reader.read(k) for k in reader}
    keys = sorted(k for k in tensors if not k.startswith("_")) or sorted(tensors)
    key = rng.choice(keys)  # a model without variables: its object graph entry
    kind = rng.randrange(3)
    if kind == 0 and np.asarray(tensors[key]).dtype == object:  # a string: now numbers
        tensors[key] = np.zeros(np.shape(tensors[key]), np.int32)
    elif kind == 0:
        tensors[key] = np.asarray(tensors[key]).astype(rng.choice([np.int32, np.float64,
                                                                   np.bool_]))
    elif kind == 1:
        tensors[key] = np.zeros([rng.choice([1, 5, 7])] + list(np.shape(tensors[key])),
                                np.float32)
    else:
        del tensors[key]
    write_bundle(prefix, tensors)
    return "checkpoint entry"


# --- the worker -----------------------------------------------------------------------------------
def _calls(tf, name, m):
    x3 = np.array([[1.0, -2.0, 0.5]], np.float32)
    if name == "multi":
        return [lambda: m.add(np.ones(3, np.float32), np.ones(3, np.float32)),
                lambda: m.scaled(x3), lambda: m.poly(np.array([3.0, -1.0], np.float32)),
                lambda: m.signatures["add"](a=np.ones(3, np.float32), b=np.ones(3, np.float32))]
    if name == "mlp":
        return [lambda: m(x3), lambda: m.signatures["serving_default"](x=x3)]
    if name == "datasets":  # pipelines over their input alone (no count a flip makes huge)
        x = np.array([1.0, 2.0, 3.0], np.float32)
        return [lambda: m.map_batch_sum(x), lambda: m.iterate(x),
                lambda: m.captured_map(x, np.float32(2.0))]
    if name == "tables":
        return [lambda: m.f(np.array(["a", "x", "p"], object))]
    if name == "resource":
        return [lambda: m.step(np.float32(2.0))]
    return []  # the loop model only loads: a mutated loop bound may run forever, as in TF


def worker(seed, seconds, workdir, names=("multi", "loop", "mlp"), minimum=0):
    """Run mutants for ``seconds``; returns {"tally": {outcome: n}, "examples": {...}}."""
    import time

    sys.path.insert(0, ROOT)
    import tensortrace as tf
    from tensortrace import _protos
    from tensortrace.graph.verify import GraphVerificationError
    from tensortrace.saving.format import FormatError

    allowed = (OSError, FormatError, GraphVerificationError, ValueError, tf.errors.OpError)
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(seed)
    tally, examples = collections.Counter(), collections.defaultdict(list)
    names = list(names)
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end or i < minimum:
        name = names[i % len(names)]
        target = os.path.join(workdir, f"m{i % 2}")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(MODELS[name], target)
        pb = os.path.join(target, "saved_model.pb")
        prefix = os.path.join(target, "variables", "variables")
        which = rng.randrange(5)
        if which < 2:
            proto = _protos.SavedModel()
            with open(pb, "rb") as f:
                proto.ParseFromString(f.read())
            kind = _structured(rng, proto)
            with open(pb, "wb") as f:
                f.write(proto.SerializeToString())
        elif which == 2:
            kind = _checkpoint(rng, prefix)
        else:
            path = rng.choice([pb, prefix + ".index", prefix + ".data-00000-of-00001"])
            with open(path, "rb") as f:
                kind, data = _bytes(rng, f.read())
            kind = f"{kind} {os.path.basename(path)}"
            with open(path, "wb") as f:
                f.write(data)
        outcome, detail = "ok", ""
        signal.setitimer(signal.ITIMER_REAL, SLOW_MODELS.get(name, PER_MUTANT_S))
        try:
            try:
                loaded = tf.saved_model.load(target)
                outcome = "loaded"
                for call in _calls(tf, name, loaded):
                    try:
                        call()
                    except (tf.errors.OpError, TypeError, ValueError, AttributeError, KeyError):
                        pass  # a call failing as TF's calls fail (an edited object graph may
                        # put an object where a function was, drop a signature, ...)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Timeout:
            outcome = "hang"
        except allowed as e:
            outcome, detail = "rejected", f"{type(e).__name__}: {e}"
        except BaseException as e:  # noqa: BLE001 - what the fuzzer counts
            outcome, detail = "raw", f"{type(e).__name__}: {str(e)[:300]}"
        tally[outcome] += 1
        if outcome in ("hang", "raw") and len(examples[outcome]) < 4:
            examples[outcome].append(f"#{i} {name} {kind}: {detail[:400]}")
        i += 1
    return {"tally": dict(tally), "examples": dict(examples)}


def test_savedmodel_tf_fuzz(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(SEED), str(SECONDS),
                           str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    tally = result["tally"]
    assert not tally.get("raw") and not tally.get("hang"), result
    # mutants reach past the parsers: some load (and run), many are refused by the checks
    assert tally.get("loaded", 0) >= 5 and tally.get("rejected", 0) >= 20, result


def test_savedmodel_tf_fuzz_pipelines_and_resources(tmp_path):
    """Mutants of TF's SavedModels holding tf.data pipelines (map, batch, scan, reduce,
    iterators), tracked dataset and table resources and a generic resource."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(SEED + 2), "0",
                           str(tmp_path), "datasets,tables,resource", str(PIPELINE_MUTANTS)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=150, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    tally = result["tally"]
    assert not tally.get("raw") and not tally.get("hang"), result
    assert sum(tally.values()) == PIPELINE_MUTANTS, result
    assert tally.get("loaded", 0) >= 1 and tally.get("rejected", 0) >= 1, result


if __name__ == "__main__":
    picked = sys.argv[4].split(",") if len(sys.argv) > 4 else ("multi", "loop", "mlp")
    least = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    print(json.dumps(worker(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], picked, least)))
