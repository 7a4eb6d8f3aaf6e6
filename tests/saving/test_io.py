"""Crash-safe replacement of a model directory: the atomic exchange, the portable rename-aside
scheme and the window ``load`` reads through, recovery from a writer killed mid-save, and the
cleanup of stale temporaries that never touches a live writer's."""

import errno
import fcntl
import os
import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.saving import io, tf_load
from tensortrace.saving.save import save_json


def _model(scale):
    m = tf.Module()
    m.v = tf.Variable(scale, name="v")
    m.f = tf.function(lambda: m.v * 1.0, input_signature=[])
    m.f.get_concrete_function()
    return m


def _value(path):
    return float(tf.saved_model.load(path).f().numpy())


def _siblings(path):
    parent, name = os.path.split(path)
    return sorted(n for n in os.listdir(parent) if n != name)


def _dead_pid():
    """The id of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_replace_dir_works_for_any_directory_content(tmp_path):
    path = str(tmp_path / "d")

    def fill(files):
        def write(staging):
            for name, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(staging, name)), exist_ok=True)
                with open(os.path.join(staging, name), "w") as f:
                    f.write(text)
        return write

    io.replace_dir(path, fill({"saved_model.pb": "one", "variables/variables.index": "i"}))
    io.replace_dir(path, fill({"other.txt": "two"}))
    assert os.listdir(path) == ["other.txt"] and _siblings(path) == []
    with open(os.path.join(path, "other.txt")) as f:
        assert f.read() == "two"


def test_linux_replaces_with_one_atomic_exchange(tmp_path, monkeypatch):
    assert (io._EXCHANGE is not None) == sys.platform.startswith("linux")
    if io._EXCHANGE is None:
        return
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    calls, renames, exchange, rename = [], [], io._EXCHANGE, os.rename

    def spy(a, b):
        assert os.path.isdir(b)  # the path holds a model before and after the one step
        calls.append((os.path.basename(a), os.path.basename(b)))
        exchange(a, b)
        assert _value(b) == 2.0 and os.path.isdir(a)

    monkeypatch.setattr(io, "_EXCHANGE", spy)
    monkeypatch.setattr(io.os, "rename", lambda a, b: (renames.append(b), rename(a, b))[1])
    tf.saved_model.save(_model(2.0), path)
    assert len(calls) == 1 and calls[0][0].startswith(".m.saving-") and calls[0][1] == "m"
    assert renames == [path]  # only the first try (no model there), refused: never aside
    assert _value(path) == 2.0 and _siblings(path) == []


def test_portable_scheme_window_loads_the_old_model(tmp_path, monkeypatch):
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    monkeypatch.setattr(io, "_EXCHANGE", None)
    rename, seen = os.rename, []

    def rename_in_window(src, dst):
        if dst == path and ".saving-" in src and not os.path.exists(path):
            seen.append(_value(path))  # between the two renames: the old model, set aside
            assert not os.path.exists(path)  # read in place: the live writer's copy stays
        return rename(src, dst)

    monkeypatch.setattr(io.os, "rename", rename_in_window)
    tf.saved_model.save(_model(2.0), path)
    assert seen == [1.0] and _value(path) == 2.0 and _siblings(path) == []


@pytest.mark.parametrize("error", [errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP])
def test_filesystem_without_exchange_uses_the_portable_scheme(tmp_path, monkeypatch, error):
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)

    def unsupported(a, b):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(io, "_EXCHANGE", unsupported)
    tf.saved_model.save(_model(2.0), path)
    assert _value(path) == 2.0 and _siblings(path) == []


def test_failed_exchange_keeps_the_old_model(tmp_path, monkeypatch):
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)

    def failing(a, b):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(io, "_EXCHANGE", failing)
    with pytest.raises(OSError, match="I/O error"):
        tf.saved_model.save(_model(2.0), path)
    assert _value(path) == 1.0 and _siblings(path) == []


def test_failed_portable_rename_puts_the_old_model_back(tmp_path, monkeypatch):
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    monkeypatch.setattr(io, "_EXCHANGE", None)
    rename = os.rename

    def failing(src, dst):
        if ".saving-" in src and not os.path.exists(dst):  # the new model moving into place
            raise OSError("rename failed")
        return rename(src, dst)

    monkeypatch.setattr(io.os, "rename", failing)
    with pytest.raises(OSError, match="rename failed"):
        tf.saved_model.save(_model(2.0), path)
    monkeypatch.undo()
    assert _value(path) == 1.0 and _siblings(path) == []


def _killed_in_window(tmp_path):
    """The state a writer killed between the portable scheme's two renames leaves: no model at
    the path, the old one aside, the new one complete in its temporary."""
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    new = str(tmp_path / "new")
    tf.saved_model.save(_model(2.0), new)
    pid = _dead_pid()
    os.rename(path, str(tmp_path / f".m.replaced-{pid}-aaaa"))
    os.rename(new, str(tmp_path / f".m.saving-{pid}-bbbb"))
    return path


def test_load_recovers_a_replacement_its_writer_died_in(tmp_path):
    path = _killed_in_window(tmp_path)
    assert not os.path.exists(path)
    assert _value(path) == 1.0  # the old model, put back
    assert os.path.isdir(path) and _siblings(path) == []
    assert tf.saved_model.contains_saved_model(path)


def test_save_recovers_then_replaces(tmp_path):
    path = _killed_in_window(tmp_path)
    tf.saved_model.save(_model(3.0), path)
    assert _value(path) == 3.0 and _siblings(path) == []


def test_only_stale_temporaries_are_removed(tmp_path):
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    dead = _dead_pid()
    stale = tmp_path / f".m.saving-{dead}-0001"
    live = tmp_path / f".m.saving-{os.getpid()}-0002"  # this process: a live writer
    locked = tmp_path / f".m.saving-{dead}-0003"  # a writer whose id we cannot see, locking it
    other = tmp_path / f".other.saving-{dead}-0004"  # another model's
    for d in (stale, live, locked, other):
        d.mkdir()
        (d / "partial").write_bytes(b"x")
    fd = os.open(locked, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        tf.saved_model.save(_model(2.0), path)
        assert _siblings(path) == sorted([live.name, locked.name, other.name])
    finally:
        os.close(fd)
    tf.saved_model.load(path)  # the lock is gone: a load cleans it up
    assert _siblings(path) == sorted([live.name, other.name])


def test_a_reader_sees_one_save_whole(tmp_path, monkeypatch):
    """A document and its arrays (tensortrace's JSON format) are read from one directory
    instance even when a save replaces the directory between the two reads (the reader
    retries the new one)."""
    path = str(tmp_path / "m")
    save_json(_model(1.0), path)
    read_arrays, swapped = io._read_arrays, []

    def swap_first(f, shown, digest):
        if not swapped:
            swapped.append(True)
            save_json(_model(2.0), path)  # replaced after the document was read
        return read_arrays(f, shown, digest)

    monkeypatch.setattr(io, "_read_arrays", swap_first)
    _, npz = io.read(path)
    values = [np.asarray(a).reshape(-1)[0] for a in npz.values()]
    assert swapped and values == [1.0]


def test_a_tf_format_load_sees_one_save_whole(tmp_path, monkeypatch):
    """saved_model.pb and the variables are read from one save even when a save replaces the
    directory between the two reads: the load reads the new directory again."""
    path = str(tmp_path / "m")
    tf.saved_model.save(_model(1.0), path)
    reader, swapped = tf_load.BundleReader, []

    def swap_first(prefix):
        if not swapped:
            swapped.append(True)
            tf.saved_model.save(_model(2.0), path)  # replaced after saved_model.pb was read
        return reader(prefix)

    monkeypatch.setattr(tf_load, "BundleReader", swap_first)
    loaded = tf.saved_model.load(path)
    assert swapped and loaded.v.numpy() == 2.0
