"""Loader fuzzing: thousands of deterministic mutants of saved models (byte flips and truncations
of both files, and structured edits of the JSON document: swapped dtypes, reordered inputs,
wrong and huge shapes, dangling references, unicode names, format-string templates, deep
nesting, zip bombs). Each mutant must either load and run with outputs that match its declared
signature, or fail with one of TF's error types; no raw exception, no hang, no silent type
confusion.

The mutants run in worker processes (two, one per core) under a memory limit and a per-mutant
time bound; ``python tests/reliability/test_loader_fuzz.py SEED COUNT`` runs one worker by hand
and prints its tally.
"""

import collections
import copy
import hashlib
import io
import json
import os
import random
import resource
import signal
import struct
import subprocess
import sys
import zipfile
import zlib

import numpy as np

import tensortrace as tf
from tensortrace.graph.verify import GraphVerificationError
from tensortrace.saving.format import FormatError
from tensortrace.saving.save import save_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUTANTS_PER_WORKER = 1000
SEEDS = (20261125, 4242)
PER_MUTANT_S = 3.0

DTYPES = ["float32", "float64", "int32", "int64", "bool", "string", "float16", "uint8",
          "complex64", "resource", "variant", "bfloat16", "int8", "<f4", "float99", ""]
NP_DTYPES = ["<f4", "<f8", "<i4", "<i8", "|b1", "|u1", "<f2", "<c8", "<U3", "|S2", "O", "V8",
             "<i2", "object", "bfloat16"]
NAMES = ["\ufb01", "fi", "a\u00b2", "x\u00b2", "\U0001d531", "\u01c5", "\u2168", "\u0661",
         "_", "__", "def", "class", "None", "np", "_c0", "v_x", "loop_var", "return", "a b", "",
         "\u00e9", "e\u0301", "\u00df", "ss", "Mul_1", "x", "0x", "__class__", "{0}", "a:0"]
TEMPLATES = ["{0.__class__.__mro__}", "{0:999999999}", "{0:{1}}", "{}{}{}", "{1}", "{0!r:>9}",
             "{", "}", "{{0}}", "{0[0]}", "{a}", "{-1}", "{0}{0}{0}", "%s", "{0!s}", "{00}",
             "{0:>99999999999999999999}", "{0.real}", "\x00{0}\x00", "val {0}"]
HUGE = [2 ** 31, 2 ** 40, 10 ** 18, 2 ** 63, -1, -(2 ** 40), 2 ** 70]


class Timeout(BaseException):
    """A mutant ran past its time bound (BaseException: no ``except Exception`` swallows it)."""


# --- the models -----------------------------------------------------------------------------------
def build_models(parent):
    """Two models covering the loader's surface; returns their directories."""
    m = tf.Module()
    m.v = tf.Variable([1.0, 2.0, 3.0], name="v")

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
    def loop(x):
        def body(i, acc):
            return i + 1, acc * 2.0 + m.v

        _, acc = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), x])
        y = tf.cond(tf.reduce_sum(acc) > 0, lambda: acc + 1.0, lambda: acc - 1.0)
        tf.print("val", y)
        return tf.cast(y, tf.int32), y * 2.0

    m.loop = loop
    loop.get_concrete_function()
    first = os.path.join(parent, "loop")
    save_json(m, first, signatures=loop)

    n = tf.Module()
    n.k = tf.Variable(np.arange(24, dtype=np.int64).reshape(2, 3, 4), name="k")
    n.words = tf.Variable(np.array([b"alpha", b"beta", b"gamma" * 30], dtype=object))

    @tf.function(input_signature=[tf.TensorSpec([2], tf.int32, name="i"),
                                  tf.TensorSpec([], tf.string, name="s")])
    def mixed(i, s):
        r = tf.switch_case(i[0] % 2, [lambda: tf.constant(1.5), lambda: tf.constant(-2.5)])
        text = tf.strings.format("{} and {}", (i, s))
        g = tf.gather(tf.reshape(n.k, [6, 4]), i)
        z = tf.fill(tf.stack([i[1] % 3 + 1, 2]), 1.5)
        big = tf.constant(np.linspace(0, 1, 40, dtype=np.float32))
        w = tf.strings.join([tf.gather(n.words, i % 3), s], separator="-")
        return {"case": r, "text": text, "g": g, "z": z, "big": big * 2.0, "w": w}

    n.mixed = mixed
    mixed.get_concrete_function()
    second = os.path.join(parent, "mixed")
    save_json(n, second, signatures={"serving_default": mixed, "other": mixed})
    return [first, second]


def _arg(spec):
    """A deterministic argument for ``spec`` (unknown dimensions become 3), or None if huge."""
    shape = [3] if spec.shape.rank is None else [3 if d is None else d for d in spec.shape]
    size = int(np.prod(shape, dtype=object))
    if size > 10_000:
        return None
    dtype = spec.dtype
    if dtype == tf.string:
        value = np.full(shape, b"s", dtype=object)
    elif dtype == tf.bool:
        value = np.ones(shape, bool)
    elif dtype.is_floating or dtype.is_complex:
        value = (np.arange(size).reshape(shape) * 0.5 + 1).astype(dtype.as_numpy_dtype)
    elif dtype.is_integer:
        value = (np.arange(size).reshape(shape) % 2).astype(dtype.as_numpy_dtype)
    else:
        return None
    return tf.constant(value, dtype=dtype)


def _args(structure):
    """Arguments for a nest of specs, or None where one cannot be made."""
    out = []
    for spec in tf.nest.flatten(structure):
        if not isinstance(spec, tf.TensorSpec):
            return None
        value = _arg(spec)
        if value is None:
            return None
        out.append(value)
    return tf.nest.pack_sequence_as(structure, out)


def run_model(path):
    """Load ``path`` and call every function it holds; returns {call: outputs as (dtype, shape,
    bytes) triples}, and raises "wrong" mismatches as AssertionError."""
    loaded = tf.saved_model.load(path)
    results = {}
    calls = []
    for name in ("loop", "mixed"):
        restored = getattr(loaded, name, None)
        if restored is None:
            continue
        for i, cf in enumerate(restored.concrete_functions):
            calls.append((f"{name}[{i}]", cf, cf.structured_input_signature))
    for key in sorted(loaded.signatures):
        cf = loaded.signatures[key]
        calls.append((f"signature {key}", cf, cf.structured_input_signature))
    for label, cf, (spec_args, spec_kwargs) in calls:
        args, kwargs = _args(list(spec_args)), _args(dict(spec_kwargs))
        if args is None or kwargs is None:
            continue
        outputs = cf(*args, **kwargs)
        expected = cf.structured_outputs
        flat_out, flat_expected = tf.nest.flatten(outputs), tf.nest.flatten(expected)
        if len(flat_out) != len(flat_expected):
            raise AssertionError(f"{label}: {len(flat_out)} outputs, declared "
                                 f"{len(flat_expected)}")
        record = []
        for got, want in zip(flat_out, flat_expected):
            if not isinstance(want, tf.Tensor):
                continue
            if not isinstance(got, tf.Tensor) or got.dtype != want.dtype or \
                    not want.shape.is_compatible_with(got.shape) or \
                    np.asarray(got.numpy()).dtype != want.dtype.as_numpy_dtype and \
                    want.dtype != tf.string:
                raise AssertionError(f"{label}: output {got!r} does not match its declared "
                                     f"{want.dtype.name} {want.shape}")
            value = np.asarray(got.numpy())
            record.append((want.dtype.name, value.shape, repr(value.tolist())))
        results[label] = record
    return results


# --- mutations ------------------------------------------------------------------------------------
def _nodes(doc, path=()):
    """Every (container, key, value) in the document."""
    found = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            found.append((node, k, v))
            if isinstance(v, (dict, list)):
                stack.append(v)
    return found


def _graphs(doc):
    return [v for node, k, v in _nodes(doc) if k == "graph" and isinstance(v, dict)
            and "ops" in v]


def _ops(doc):
    return [(g, op) for g in _graphs(doc) for op in g["ops"]]


def _rename_op(graph, op, new):
    """Rename ``op`` and every reference to its outputs (a semantics-preserving edit)."""
    old = op["name"]
    op["name"] = new

    def fix(name):
        if isinstance(name, str) and name.rsplit(":", 1)[0] == old and ":" in name:
            return new + ":" + name.rsplit(":", 1)[1]
        return name

    for other in graph["ops"]:
        other["inputs"] = [fix(n) for n in other["inputs"]]
        if "control_inputs" in other:
            other["control_inputs"] = [new if c == old else c for c in other["control_inputs"]]
        for attr in other["attrs"].values():
            if isinstance(attr, dict) and isinstance(attr.get("graph"), dict):
                for pair in attr["graph"]["captures"]:
                    if "outer" in pair[0]:
                        pair[0]["outer"] = fix(pair[0]["outer"])
    graph["inputs"] = [fix(n) for n in graph["inputs"]]
    graph["outputs"] = [fix(n) for n in graph["outputs"]]
    for pair in graph["captures"]:
        pair[1] = fix(pair[1])
    for node, k, v in _nodes(graph.get("structured_outputs", {})):
        if k == "tensor":
            node[k] = fix(v)
    if isinstance(graph.get("structured_outputs"), dict) and \
            "tensor" in graph["structured_outputs"]:
        graph["structured_outputs"]["tensor"] = fix(graph["structured_outputs"]["tensor"])


def _deep(depth, kind):
    if kind == 0:
        return "[" * depth + "]" * depth
    return '{"tuple": [' * depth + "]}" * depth


class Mutator:
    """Deterministic mutations of a saved model's two files."""

    def __init__(self, rng, bomb):
        self.rng = rng
        self.bomb = bomb

    def mutate(self, doc_text, npz):
        """(kind, document bytes, npz bytes, preserving): a mutant; ``preserving`` says it must
        compute what the original computes."""
        r = self.rng
        kind = r.choice(["dtype", "reorder", "shape", "huge", "dangling", "rename", "rename",
                         "template", "nesting", "type", "delete", "dup", "graph_io", "const",
                         "attr", "attr", "swap_graphs", "json_bytes", "npz_bytes", "npz_header",
                         "bomb", "spec_name", "control_flow", "control_flow", "collide"])
        doc = json.loads(doc_text)
        preserving = False
        raw = None
        if kind == "dtype":
            self._set_random(doc, lambda k, v: k == "dtype" and isinstance(v, str),
                             lambda v: r.choice(DTYPES + NP_DTYPES))
        elif kind == "reorder" or kind == "control_flow":
            ops = [(g, op) for g, op in _ops(doc) if len(op["inputs"]) >= 2]
            if kind == "control_flow":
                ops = [(g, op) for g, op in ops if op["type"] in (
                    "While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase")]
                if ops and r.random() < 0.5:
                    g, op = r.choice(ops)
                    self._control_flow_edit(op)
                    ops = []
            if ops:
                g, op = r.choice(ops)
                before = list(op["inputs"])
                while op["inputs"] == before:
                    r.shuffle(op["inputs"])
        elif kind in ("shape", "huge"):
            def change(v):
                dims = list(v) if isinstance(v, list) else []
                if kind == "huge":
                    if not dims:
                        return [r.choice(HUGE)]
                    dims[r.randrange(len(dims))] = r.choice(HUGE)
                    return dims
                choice = r.randrange(4)
                if choice == 0 and dims:
                    dims[r.randrange(len(dims))] = r.choice([0, 1, 2, 5, None])
                elif choice == 1:
                    dims.append(r.choice([1, 2, None]))
                elif choice == 2 and dims:
                    dims.pop()
                else:
                    return None
                return dims
            self._set_random(doc, lambda k, v: k == "shape" and (v is None or isinstance(
                v, list)), change)
        elif kind == "dangling":
            self._set_random(doc, lambda k, v: isinstance(v, str) and ":" in v and
                             not v.startswith("/"),
                             lambda v: r.choice(["ghost:0", v.split(":")[0] + ":7", v + "x",
                                                 "x:0", "Const:0", "While:1", ":0", "a:b:0"]))
        elif kind == "rename":
            ops = _ops(doc)
            picks = r.sample(ops, min(len(ops), r.choice([1, 2, 3])))
            names = r.sample(NAMES[:20], len(picks))
            preserving = True
            for (g, op), name in zip(picks, names):
                taken = {o["name"] for o in g["ops"]}
                if name in taken or not name:
                    preserving = False
                _rename_op(g, op, name)
        elif kind == "collide":  # names Python would normalize into one identifier
            g = r.choice([g for g in _graphs(doc) if len(g["ops"]) >= 2])
            a, b = r.sample(g["ops"], 2)
            pair = r.choice([("\ufb01", "fi"), ("\u2168", "IX"), ("\u00c5", "A\u030a"),
                             ("x\u00b2", "x2")])
            preserving = not {o["name"] for o in g["ops"]} & set(pair)
            _rename_op(g, a, pair[0])
            _rename_op(g, b, pair[1])
        elif kind == "spec_name":
            self._set_random(doc, lambda k, v: k == "name" and isinstance(v, str),
                             lambda v: r.choice(NAMES))
        elif kind == "template":
            prints = [op for _, op in _ops(doc) if op["type"] in ("PrintV2", "StringFormat")]
            if prints:
                op = r.choice(prints)
                op["attrs"]["template"] = r.choice(TEMPLATES)
                if r.random() < 0.3:
                    op["attrs"]["placeholder"] = r.choice(["", "{", "{0}", "x"])
                if r.random() < 0.2:
                    op["attrs"]["summarize"] = r.choice([-5, 10 ** 9, "3", None])
        elif kind == "nesting":
            nodes = _nodes(doc)
            node, k, _ = r.choice(nodes)
            node[k] = "\x00DEEP\x00"
            raw = json.dumps(doc).replace('"\\u0000DEEP\\u0000"',
                                          _deep(r.choice([50, 900, 5000, 200_000]), r.randrange(2)))
        elif kind == "type":
            node, k, _ = r.choice(_nodes(doc))
            node[k] = r.choice([None, 0, -1, 2 ** 64, "x", [], {}, True, 1.5, {"tuple": 1},
                                {"graph": {}}, {"array": {"dtype": "<f4", "shape": [2 ** 40]}},
                                {"pickle": "gASV"}, {"float": "nan"},
                                {"namedtuple": {"name": "P", "fields": ["\ufb01", "fi"],
                                                "values": [1, 2]}}])
        elif kind == "delete":
            node, k, _ = r.choice(_nodes(doc))
            del node[k]
        elif kind == "dup":
            lists = [(node, k, v) for node, k, v in _nodes(doc) if isinstance(v, list) and v]
            node, k, v = r.choice(lists)
            v.insert(r.randrange(len(v) + 1), copy.deepcopy(r.choice(v)))
        elif kind == "graph_io":
            g = r.choice(_graphs(doc))
            key = r.choice(["inputs", "outputs"])
            items = g[key]
            choice = r.randrange(4)
            if choice == 0 and items:
                items.pop(r.randrange(len(items)))
            elif choice == 1 and items:
                items.append(r.choice(items))
            elif choice == 2 and len(items) >= 2:
                r.shuffle(items)
            else:
                names = [o["name"] + ":0" for o in g["ops"] if o["outputs"]]
                if names:
                    items.insert(r.randrange(len(items) + 1), r.choice(names))
        elif kind == "const":
            consts = [op for _, op in _ops(doc) if op["type"] == "Const"]
            op = r.choice(consts)
            value = op["attrs"]["value"]
            inner = next(iter(value.values()))
            same_size = {"<f4": ["<i4", "<u4"], "<i4": ["<f4", "<u4"], "<f8": ["<i8"],
                         "<i8": ["<f8"], "|b1": ["|u1", "|i1"]}
            if r.random() < 0.7 and inner.get("dtype") in same_size:
                inner["dtype"] = r.choice(same_size[inner["dtype"]])
            else:
                op["attrs"]["dtype"] = {"dtype": r.choice(DTYPES[:8])}
                if r.random() < 0.5:
                    op["outputs"][0]["dtype"] = op["attrs"]["dtype"]["dtype"]
        elif kind == "attr":
            attrs = [(op, k) for _, op in _ops(doc) for k in op["attrs"]]
            op, k = r.choice(attrs)
            op["attrs"][k] = r.choice([
                None, 0, -1, 10 ** 9, 2 ** 70, True, "x", [], {"tuple": []},
                {"tuple": [{"dtype": "float64"}]}, {"dtype": "float64"}, {"shape": [2 ** 40]},
                {"tuple": [{"tuple": []}, {"tuple": [None]}, {"tuple": [1]}]},
                {"array": {"dtype": "<f4", "shape": [1], "b64": "AACAPw=="}},
                {"scalar": {"dtype": "<f8", "shape": [], "b64": "AAAAAAAA8D8="}},
                {"shape": [None, 3]}, {"tuple": [1, 2, 3]}])
        elif kind == "swap_graphs":
            holders = [op for _, op in _ops(doc) if any(
                isinstance(v, dict) and "graph" in v for v in op["attrs"].values())]
            graphs = [(op, k) for op in holders for k, v in op["attrs"].items()
                      if isinstance(v, dict) and "graph" in v]
            if len(graphs) >= 2:
                (a, ka), (b, kb) = r.sample(graphs, 2)
                a["attrs"][ka], b["attrs"][kb] = b["attrs"][kb], a["attrs"][ka]
        elif kind == "json_bytes":
            data = bytearray(json.dumps(doc).encode())
            if r.random() < 0.3:
                data = data[:r.randrange(len(data))]
            for _ in range(r.choice([1, 1, 2, 8])):
                i = r.randrange(len(data))
                data[i] = r.choice([data[i] ^ (1 << r.randrange(8)), r.randrange(256)])
            return kind, bytes(data), npz, False
        elif kind == "npz_bytes":
            data = bytearray(npz)
            if r.random() < 0.3:
                data = data[:r.randrange(len(data))]
            else:
                for _ in range(r.choice([1, 2, 8])):
                    i = r.randrange(len(data))
                    data[i] ^= 1 << r.randrange(8)
            npz = bytes(data)
            if r.random() < 0.7:  # a consistent checksum: the corruption reaches the reader
                doc["npz_sha256"] = _sha(npz)
        elif kind == "npz_header":
            npz = self._npz_header(npz)
            doc["npz_sha256"] = _sha(npz)
        elif kind == "bomb":
            npz, shape = self.bomb
            variables = doc.get("variables") or []
            for v in variables:
                if v["value"].get("npz") == "a0":
                    v["shape"] = list(shape)
                    v["value"]["shape"] = list(shape)
                    v["value"]["dtype"] = "<f4"
                    v["dtype"] = "float32"
            doc["npz_sha256"] = _sha(npz)
        text = raw if raw is not None else json.dumps(doc)
        return kind, text.encode(), npz, preserving

    def _set_random(self, doc, match, change):
        nodes = [(node, k, v) for node, k, v in _nodes(doc) if match(k, v)]
        if nodes:
            node, k, v = self.rng.choice(nodes)
            node[k] = change(v)

    def _control_flow_edit(self, op):
        r = self.rng
        attrs = op["attrs"]
        if "T" in attrs or "Tout" in attrs:
            key = "T" if "T" in attrs else "Tout"
            items = attrs[key].get("tuple") if isinstance(attrs[key], dict) else None
            if items and len(items) >= 2 and r.random() < 0.5:
                items.reverse()
            elif items:
                items[r.randrange(len(items))] = {"dtype": r.choice(["float64", "int64",
                                                                     "string"])}
        graphs = [v["graph"] for v in attrs.values() if isinstance(v, dict) and "graph" in v]
        if graphs and r.random() < 0.5:
            g = r.choice(graphs)
            if len(g["outputs"]) >= 2:
                g["outputs"].reverse()
            elif g["inputs"]:
                g["inputs"].reverse()
                ops = {o["name"]: o for o in g["ops"]}
                name = g["inputs"][0].split(":")[0]
                if name in ops:
                    ops[name]["attrs"]["dtype"] = {"dtype": "float64"}
                    ops[name]["outputs"][0]["dtype"] = "float64"

    def _npz_header(self, npz):
        """Rewrite one member's .npy header: another shape or dtype, sizes left as they were."""
        r = self.rng
        src = zipfile.ZipFile(io.BytesIO(npz))
        out = io.BytesIO()
        victim = r.choice(src.namelist())
        with zipfile.ZipFile(out, "w") as dst:
            for name in src.namelist():
                data = src.read(name)
                if name == victim:
                    descr = r.choice(["<f4", "<f8", "|O", "<i8", "|u1", "<U4", "|V3", "<c16"])
                    shape = r.choice([(2 ** 40,), (0,), (3,), (2, 2), (), (10 ** 6,),
                                      (2 ** 62, 2 ** 62)])
                    header = repr({"descr": descr, "fortran_order": r.random() < 0.2,
                                   "shape": shape}).encode()
                    header += b" " * (-(len(header) + 11) % 64) + b"\n"
                    data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + \
                        data[data.index(b"\n") + 1:]
                dst.writestr(name, data)
        return out.getvalue()


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def make_bomb(elements=1 << 20):
    """A .npz whose member ``a0.npy`` is ``elements`` float32 zeros deflated: a small file that
    expands a thousandfold (the deflate stream repeats one flushed block, so it costs nothing to
    build). Returns (bytes, shape)."""
    header = repr({"descr": "<f4", "fortran_order": False, "shape": (elements,)}).encode()
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = 1 << 20
    stream = comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(b"\0" * chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    nbytes = elements * 4
    stream += block * (nbytes // chunk) + comp.flush()
    size = len(head) + nbytes
    name = b"a0.npy"
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, 0, len(stream), size,
                        len(name), 0) + name
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, 0, len(stream),
                          size, len(name), 0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(stream), 0)
    return local + stream + central + end, (elements,)


# --- the worker -----------------------------------------------------------------------------------
def _alarm(signum, frame):
    raise Timeout


# what a bad file may raise: TF's OSError for unreadable files, the loader's ValueErrors naming
# what is malformed, and TF's runtime errors from a call
ALLOWED = (OSError, FormatError, GraphVerificationError, tf.errors.OpError)


def worker(seed, count, workdir):
    """Run ``count`` mutants; returns {"tally": {class: n}, "examples": {class: [text]}}."""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved_stderr = os.dup(2)
    os.dup2(devnull, 2)  # the models print
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    bases = []
    for path in build_models(os.path.join(workdir, "bases")):
        with open(os.path.join(path, "saved_model.json"), "rb") as f:
            text = f.read().decode()
        with open(os.path.join(path, "variables.npz"), "rb") as f:
            npz = f.read()
        bases.append((text, npz, run_model(path)))
    rng = random.Random(seed)
    mutator = Mutator(rng, make_bomb())
    tally, examples = collections.Counter(), collections.defaultdict(list)
    target = os.path.join(workdir, "mutant")
    os.makedirs(target, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    for i in range(count):
        text, npz, expected = bases[i % len(bases)]
        kind, doc_bytes, npz_bytes, preserving = mutator.mutate(text, npz)
        with open(os.path.join(target, "saved_model.json"), "wb") as f:
            f.write(doc_bytes)
        with open(os.path.join(target, "variables.npz"), "wb") as f:
            f.write(npz_bytes)
        outcome, detail = "ok", ""
        signal.setitimer(signal.ITIMER_REAL, PER_MUTANT_S)
        try:
            try:
                got = run_model(target)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if preserving and got != expected:
                outcome, detail = "wrong", f"values differ: {got} != {expected}"
        except Timeout:
            outcome = "hang"
        except AssertionError as e:
            outcome, detail = "wrong", str(e)
        except ALLOWED as e:
            outcome, detail = "rejected", f"{type(e).__name__}: {e}"
            if type(e).__name__ == "InvalidArgumentError" and any(
                    f"{name}:" in str(e) for name in ("KeyError", "StopIteration", "NameError",
                                                      "SyntaxError", "RecursionError",
                                                      "MemoryError", "UnboundLocalError")):
                # the loader's own structures broke inside a call (a kernel refusing an
                # ill-typed attr is TF's InvalidArgumentError naming the node, as in TF)
                outcome = "raw"
        except BaseException as e:  # noqa: BLE001 - what the fuzzer counts
            outcome, detail = f"raw {type(e).__name__}", f"{type(e).__name__}: {str(e)[:300]}"
        tally[f"{kind} {outcome}" if outcome not in ("ok", "rejected") else outcome] += 1
        tally[f"all {outcome.split()[0]}"] += 1
        if outcome not in ("ok", "rejected") and len(examples[outcome]) < 4:
            examples[outcome].append(f"#{i} {kind}: {detail[:400]}")
    os.dup2(saved_stderr, 2)
    return {"tally": dict(tally), "examples": dict(examples)}


def run_workers(root, tmp_path, count=MUTANTS_PER_WORKER, seeds=SEEDS, timeout=400):
    """Run one worker per seed in parallel under ``root``'s tensortrace; merged results."""
    procs = []
    for seed in seeds:
        workdir = os.path.join(str(tmp_path), f"w{seed}")
        os.makedirs(workdir)
        env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), str(seed), str(count), workdir],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    tally, examples = collections.Counter(), {}
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # per-mutant bounds did not hold: a hang
            proc.kill()
            out, err = proc.communicate()
            tally["worker timed out"] += 1
            continue
        if proc.returncode != 0:
            tally["worker crashed"] += 1
            examples.setdefault("worker crashed", []).append(err.decode()[-2000:])
            continue
        result = json.loads(out.decode().strip().splitlines()[-1])
        tally.update(result["tally"])
        for k, v in result["examples"].items():
            examples.setdefault(k, []).extend(v)
    return tally, examples


def test_loader_fuzz(tmp_path):
    tally, examples = run_workers(ROOT, tmp_path)
    bad = {k: v for k, v in tally.items() if not k.startswith("all") and
           k not in ("ok", "rejected")}
    assert not bad, (dict(sorted(tally.items())), examples)
    total = len(SEEDS) * MUTANTS_PER_WORKER
    assert tally["ok"] + tally["rejected"] == total
    # the fuzzer reaches past the parser: many mutants load, many are refused by the checks
    assert tally["ok"] > total // 10 and tally["rejected"] > total // 2


if __name__ == "__main__":
    print(json.dumps(worker(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])))
