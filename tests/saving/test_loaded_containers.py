"""The lists, dicts, tuples and namedtuples a saved object held come back from
tf.saved_model.load as TF 2.21's do: ListWrapper / _DictWrapper (a tuple as a ListWrapper, the
items that were not trackable as None or left out), printing, types and behaviour as TF's
(recorded by tests/fixtures/tf/make_loaded_containers.py)."""

import os
import re
import subprocess
import sys

import tensortrace as tf
from tensortrace.checkpoint import tracking
from tests.fixtures.tf import make_loaded_containers as fixture

EXPECTED = os.path.join(os.path.dirname(fixture.__file__), "loaded_containers", "expected.txt")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _expected():
    with open(EXPECTED, encoding="utf-8") as f:
        return f.read().splitlines()


def test_loaded_containers_are_tfs_wrappers(tmp_path):
    got = fixture.scenario(tf, str(tmp_path / "m"))
    no_path = lambda lines: [re.sub(r"<class '[\w.<>]+'> ", "", line) for line in lines]  # noqa
    assert no_path(got) == no_path(_expected())
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    assert type(loaded.vs) is tracking.ListWrapper and type(loaded.t) is tracking.ListWrapper
    assert type(loaded.d) is tracking._DictWrapper
    assert loaded.d._trackable_children()["a"] is loaded.d["a"]  # saveable again, as in TF
    tf.saved_model.save(loaded, str(tmp_path / "again"))
    assert tf.saved_model.load(str(tmp_path / "again")).d["b"][0].numpy() == 4.0


def test_loaded_containers_print_tfs_class_paths_under_the_runner(tmp_path):
    script = os.path.join(os.path.dirname(fixture.__file__), "make_loaded_containers.py")
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run([sys.executable, "-m", "tensortrace", script, "--print",
                          str(tmp_path / "m")], capture_output=True, text=True, timeout=120,
                         env=env, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == _expected()


def test_wrappers_pickle_under_tfs_class_paths(tmp_path):
    """Pickles name tensortrace's rebuild functions: under the runner the wrapper classes carry
    TF's module paths, which pickle cannot import back (the list's line is TF 2.21's)."""
    script = tmp_path / "pickles.py"
    script.write_text(
        "import pickle, tensorflow as tf\n"
        "m = tf.Module()\n"
        "m.l, m.d, m.t = [1, [2]], {'a': [3]}, (1, [2])\n"
        "l, d, t = (pickle.loads(pickle.dumps(x)) for x in (m.l, m.d, m.t))\n"
        "print(type(l), l)\n"
        "print(d == {'a': [3]}, t == (1, [2]))\n")
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run([sys.executable, "-m", "tensortrace", str(script)], capture_output=True,
                         text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert run.stdout == ("<class 'tensorflow.python.trackable.data_structures.ListWrapper'> "
                          "ListWrapper([1, ListWrapper([2])])\nTrue True\n")
