"""Every corpus module saved, loaded (in this process, and in a fresh one that cannot import the
defining code) and called: the loaded model reproduces the original's results exactly and it can
be saved again; saved in tensortrace's JSON format (which load still reads), its graphs also
print exactly as the originals."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.saving.save import save_json
from tensortrace.saving.signatures import canonicalize
from tensortrace.tracing.concrete import ConcreteFunction

from . import corpus, runner

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _prepared(entry, path, save=tf.saved_model.save):
    """Build and warm up ``entry``'s module, save it to ``path``; returns the module and the
    signature functions (built the same way as the saved ones) to call on the original."""
    module = entry.build()
    runner.run_calls(tf, module, {}, entry.warmup)
    signatures = entry.signatures(module) if entry.signatures else None
    save(module, path, signatures=signatures)
    return module, canonicalize(signatures)


def assert_same(got, want, where="result"):
    """Exact equality of nested results: same structure, types, dtypes, shapes and bits."""
    if isinstance(want, (np.ndarray, np.generic)):
        assert type(got) is type(want), (where, type(got), type(want))
        assert got.dtype == want.dtype and got.shape == want.shape, (where, got, want)
        np.testing.assert_array_equal(got, want, err_msg=where)
        if want.dtype.kind == "f":  # -0.0 and NaN payloads too
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), where
    elif isinstance(want, tuple) and hasattr(want, "_fields"):
        assert type(got).__name__ == type(want).__name__ and got._fields == want._fields, where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}.{want._fields[i]}")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (where, got, want)
        for k in want:
            assert_same(got[k], want[k], f"{where}[{k!r}]")
    else:
        assert got == want, (where, got, want)


def _graph_texts(obj):
    """``name -> printed graph`` of every concrete function reachable from ``obj``."""
    texts, seen = {}, set()

    def walk(value, path):
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, ConcreteFunction):
            texts[path] = str(value.graph)
        elif hasattr(value, "experimental_get_concrete_functions"):
            for i, cf in enumerate(sorted(value.experimental_get_concrete_functions(),
                                          key=lambda c: c.pretty_printed_signature())):
                texts[f"{path}#{i}"] = str(cf.graph)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]")
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{path}[{k!r}]")
        elif hasattr(value, "__dict__") and not isinstance(value, tf.Variable):
            for k, v in sorted(vars(value).items()):
                walk(v, f"{path}.{k}")
            for k in dir(type(value)):
                if k not in vars(value) and hasattr(getattr(type(value), k, None),
                                                    "experimental_get_concrete_functions"):
                    walk(getattr(value, k), f"{path}.{k}")

    walk(obj, "root")
    return texts


@pytest.mark.parametrize("entry", corpus.ENTRIES, ids=[e.name for e in corpus.ENTRIES])
def test_loaded_model_reproduces_the_original(entry, tmp_path):
    path = str(tmp_path / entry.name)
    module, signatures = _prepared(entry, path)
    loaded = tf.saved_model.load(path)
    assert sorted(loaded.signatures) == sorted(signatures)
    want = runner.run_calls(tf, module, signatures, entry.calls)
    got = runner.run_calls(tf, loaded, loaded.signatures, entry.calls)
    assert_same(got, want, entry.name)


@pytest.mark.parametrize("entry", corpus.ENTRIES, ids=[e.name for e in corpus.ENTRIES])
def test_loaded_graphs_print_as_the_originals(entry, tmp_path):
    path = str(tmp_path / entry.name)
    module, _ = _prepared(entry, path, save_json)
    want = _graph_texts(module)
    got = {k: v for k, v in _graph_texts(tf.saved_model.load(path)).items()
           if not k.startswith("root.signatures")}
    assert got == want


@pytest.mark.parametrize("entry", corpus.ENTRIES, ids=[e.name for e in corpus.ENTRIES])
def test_loaded_model_saves_again(entry, tmp_path):
    module, signatures = _prepared(entry, str(tmp_path / "first"))
    loaded = tf.saved_model.load(str(tmp_path / "first"))
    tf.saved_model.save(loaded, str(tmp_path / "second"), signatures=dict(loaded.signatures))
    again = tf.saved_model.load(str(tmp_path / "second"))
    want = runner.run_calls(tf, module, signatures, entry.calls)
    assert_same(runner.run_calls(tf, again, again.signatures, entry.calls), want, entry.name)


def test_fresh_process_without_the_source_reproduces_every_model(tmp_path):
    expected = {}
    for entry in corpus.ENTRIES:
        module, signatures = _prepared(entry, str(tmp_path / entry.name))
        expected[entry.name] = runner.run_calls(tf, module, signatures, entry.calls)
    runner.write(str(tmp_path / "calls"), {e.name: e.calls for e in corpus.ENTRIES})
    script = os.path.join(REPO, "tests", "saving", "runner.py")
    env = dict(os.environ, PYTHONPATH=REPO)
    done = subprocess.run([sys.executable, script, str(tmp_path)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    got = runner.read(str(tmp_path / "results"))
    for name, want in expected.items():
        assert_same(got[name], want, name)
