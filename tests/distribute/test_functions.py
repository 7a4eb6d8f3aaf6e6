"""tf.distribute inside tf.function prints what TF 2.21 printed
(tests/fixtures/tf/make_distribute_functions.py recorded it): merge_call reached from a nested
tf.function or a control-flow body in a replica raises TF's RuntimeError, merge_call directly in
the replica function works, and distributed datasets iterate inside tf.function (``for x in
dist``, ``next(iter(dist))``, iterators passed in), fetching at run time."""

import contextlib
import io
import json
import os

import pytest

import tensortrace as tf

FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "tf", "distribute",
                       "functions.json")
with open(FIXTURE) as f:
    PROGRAMS = json.load(f)


def run(source, path):
    """The program's printed text; it runs from a file, as AutoGraph needs its source."""
    path.write_text(source)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(path), "exec"), {"tf": tf, "__name__": "program"})
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prints_what_tf_prints(name, tmp_path):
    assert run(PROGRAMS[name]["source"], tmp_path / "program.py") == PROGRAMS[name]["output"]


def test_a_break_ends_the_graph_loop_over_a_distributed_dataset():
    """``break`` in ``for x in dist`` inside tf.function (TF 2.21 hangs on this program; the
    loop's own test decides here): the batches up to the one that passes the bound."""
    s = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    dist = s.experimental_distribute_dataset(
        tf.data.Dataset.range(12).map(lambda i: tf.cast(i, tf.float32)).batch(4))

    @tf.function
    def until(dist, bound):
        total = tf.constant(0.0)
        for x in dist:
            total += s.reduce("SUM", s.run(tf.reduce_sum, args=(x,)), axis=None)
            if total > bound:
                break
        return total

    assert float(until(dist, tf.constant(5.0))) == 6.0  # 0+1+2+3
    assert float(until(dist, tf.constant(7.0))) == 28.0  # then 4+5+6+7
    assert float(until(dist, tf.constant(100.0))) == 66.0  # all of them
