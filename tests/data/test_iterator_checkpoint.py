"""tf.data iterators in tf.train checkpoints: a restored iterator continues where the saved one
was (TF 2.21's behaviour, as the data guide shows it), for every kind of dataset; restoring
into an iterator over another dataset raises TF's NotFoundError."""

import numpy as np
import pytest

import tensortrace as tf

ds_ = tf.data.Dataset


def _take(it, n):
    out = []
    for _ in range(n):
        e = next(it)
        out.append(tf.nest.map_structure(lambda t: np.asarray(t).tolist(), e))
    return out


PIPELINES = {
    "range": lambda: ds_.range(20),
    "slices": lambda: ds_.from_tensor_slices({"a": np.arange(12), "b": np.arange(12) * 2.0}),
    "map_batch": lambda: ds_.range(60).map(lambda v: v * 3).batch(4),
    "shuffle_seeded": lambda: ds_.range(40).shuffle(7, seed=3),
    "shuffle_unseeded_repeat": lambda: ds_.range(9).shuffle(5).repeat(3),
    "take_skip_filter": lambda: ds_.range(100).skip(3).filter(lambda w: w % 3 == 0).take(12),
    "zip_concat": lambda: ds_.zip((ds_.range(8), ds_.range(8).map(lambda y: -y))).concatenate(
        ds_.zip((ds_.range(100, 108), ds_.range(8)))),
    "prefetch_unbatch": lambda: ds_.range(24).batch(5).unbatch().prefetch(2),
    "sample": lambda: ds_.sample_from_datasets([ds_.range(10), ds_.range(50, 60)]),
    "interleave": lambda: ds_.range(4).interleave(lambda x: ds_.range(x * 10, x * 10 + 3),
                                                  cycle_length=2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_restore_continues_where_saved(tmp_path, name):
    dataset = PIPELINES[name]()
    it = iter(dataset)
    ckpt = tf.train.Checkpoint(iterator=it)
    _take(it, 5)
    path = ckpt.write(str(tmp_path / "ckpt"))
    after = _take(it, 6)
    ckpt.read(path)
    assert _take(it, 6) == after  # the same iterator, moved back
    fresh = iter(dataset)  # a new iterator over the same dataset
    tf.train.Checkpoint(iterator=fresh).read(path)
    assert _take(fresh, 6) == after


def test_the_data_guide_cell_with_a_checkpoint_manager(tmp_path):
    range_ds = ds_.range(20)
    iterator = iter(range_ds)
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)
    first = [next(iterator).numpy() for _ in range(5)]
    save_path = manager.save()
    second = [next(iterator).numpy() for _ in range(5)]
    ckpt.restore(manager.latest_checkpoint)
    third = [next(iterator).numpy() for _ in range(5)]
    # TF 2.21 prints these three lines
    assert [repr(x) for x in first] == [f"np.int64({i})" for i in range(5)]
    assert second == third == list(range(5, 10))
    assert dict(tf.train.list_variables(save_path))["iterator/.ATTRIBUTES/ITERATOR_STATE"] == []


def test_an_iterator_advanced_inside_a_function(tmp_path):
    it = iter(ds_.range(10))
    step = tf.function(lambda: next(it))
    [step() for _ in range(3)]
    path = tf.train.Checkpoint(it=it).write(str(tmp_path / "c"))
    assert [int(step()) for _ in range(2)] == [3, 4]
    tf.train.Checkpoint(it=it).read(path)
    assert int(step()) == 3


def test_an_exhausted_iterator_stays_exhausted(tmp_path):
    it = iter(ds_.range(3))
    _take(it, 3)
    path = tf.train.Checkpoint(it=it).write(str(tmp_path / "c"))
    fresh = iter(ds_.range(3))
    tf.train.Checkpoint(it=fresh).read(path)
    with pytest.raises(StopIteration):
        next(fresh)


def test_restoring_into_another_dataset_raises_tf_error(tmp_path):
    it = iter(ds_.range(20))
    next(it)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    other = iter(ds_.range(20).map(lambda x: x + 1))
    next(other)
    with pytest.raises(tf.errors.NotFoundError) as info:
        tf.train.Checkpoint(iterator=other).read(path)
    assert info.value.message == (
        "Failed to restore dataset iterator from checkpoint: Iterator::Root::Map::Range. Make "
        "sure the dataset definition has not changed between the process that saved the "
        "checkpoint and the process that is restoring it. [Op:DeserializeIterator]")
    assert int(next(other)) == 2  # left where it was
