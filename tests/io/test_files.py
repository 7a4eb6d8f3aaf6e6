"""tf.io.read_file/write_file and tf.io.gfile on a temporary directory: results and TF 2.21's
errors (types and messages as TF raises them for the same calls)."""

import subprocess
import sys

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import errors


def test_write_then_read(tmp_path):
    path = str(tmp_path / "a" / "b" / "c.txt")
    assert tf.io.write_file(path, "hi") is None  # parent directories are made
    got = tf.io.read_file(path)
    assert got.dtype == tf.string and got.shape == [] and got.numpy() == b"hi"

    @tf.function
    def roundtrip(p):
        tf.io.write_file(p, tf.strings.join([tf.io.read_file(p), "!"]))

    roundtrip(tf.constant(path))
    assert tf.io.read_file(path).numpy() == b"hi!"


def test_read_file_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match=r"nope; No such file or directory "
                                                   r"\[Op:ReadFile\]$"):
        tf.io.read_file(str(tmp_path / "nope"))
    with pytest.raises(errors.FailedPreconditionError, match="; Is a directory"):
        tf.io.read_file(str(tmp_path))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Input filename tensor must be scalar, but had shape: \[1\]"):
        tf.io.read_file([str(tmp_path / "x")])


def test_gfile_directories(tmp_path):
    d = str(tmp_path)
    tf.io.write_file(d + "/a/b/c.txt", "x")
    assert tf.io.gfile.exists(d + "/a") and not tf.io.gfile.exists(d + "/q")
    assert tf.io.gfile.isdir(d + "/a") and not tf.io.gfile.isdir(d + "/a/b/c.txt")
    assert tf.io.gfile.listdir(d + "/a") == ["b"]
    assert tf.io.gfile.glob(d + "/a/*/*.txt") == [d + "/a/b/c.txt"]
    assert tf.io.gfile.glob(d + "/q*") == []
    assert tf.io.gfile.join(d, "a", "b") == d + "/a/b"
    tf.io.gfile.mkdir(d + "/m")
    tf.io.gfile.mkdir(d + "/m")  # an existing directory is fine, as TF
    tf.io.gfile.makedirs(d + "/x/y")
    tf.io.gfile.makedirs(d + "/x/y")
    assert tf.io.gfile.stat(d + "/a/b/c.txt").length == 1
    assert tf.io.gfile.stat(d + "/x").is_directory
    assert sorted(w[0] for w in tf.io.gfile.walk(d + "/x")) == [d + "/x", d + "/x/y"]
    tf.io.gfile.rename(d + "/a/b/c.txt", d + "/c2.txt")
    tf.io.write_file(d + "/c3.txt", "y")
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        tf.io.gfile.rename(d + "/c2.txt", d + "/c3.txt")
    tf.io.gfile.rename(d + "/c2.txt", d + "/c3.txt", overwrite=True)
    assert tf.io.read_file(d + "/c3.txt").numpy() == b"x"
    tf.io.gfile.copy(d + "/c3.txt", d + "/c4.txt")
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        tf.io.gfile.copy(d + "/c3.txt", d + "/c4.txt")
    tf.io.gfile.remove(d + "/c4.txt")
    tf.io.gfile.rmtree(d + "/x")
    assert not tf.io.gfile.exists(d + "/x")


@pytest.mark.parametrize("call, error, message", [
    (lambda d: tf.io.gfile.listdir(d + "/zz"), errors.NotFoundError,
     "Could not find directory {d}/zz"),
    (lambda d: tf.io.gfile.mkdir(d + "/x/y"), errors.NotFoundError,
     "{d}/x/y; No such file or directory"),
    (lambda d: tf.io.gfile.remove(d + "/nope"), errors.NotFoundError,
     "{d}/nope; No such file or directory"),
    (lambda d: tf.io.gfile.remove(d), errors.FailedPreconditionError, "{d}; Is a directory"),
    (lambda d: tf.io.gfile.rename(d + "/nope", d + "/c"), errors.NotFoundError,
     "{d}/nope; No such file or directory"),
    (lambda d: tf.io.gfile.rmtree(d + "/nope"), errors.NotFoundError, "{d}/nope not found"),
    (lambda d: tf.io.gfile.GFile(d + "/nope").read(), errors.NotFoundError,
     "{d}/nope; No such file or directory"),
])
def test_gfile_errors(tmp_path, call, error, message):
    d = str(tmp_path)
    with pytest.raises(error) as info:
        call(d)
    assert str(info.value) == message.format(d=d)


def test_gfile_read_write(tmp_path):
    path = str(tmp_path / "g.txt")
    with tf.io.gfile.GFile(path, "w") as f:
        f.write("line1\nline2\n")
        f.write("ü")
    with tf.io.gfile.GFile(path) as f:
        assert f.read() == "line1\nline2\nü"
    with tf.io.gfile.GFile(path, "r") as f:
        assert f.readlines() == ["line1\n", "line2\n", "ü"]
    with tf.io.gfile.GFile(path, "rb") as f:
        assert f.read() == b"line1\nline2\n\xc3\xbc"
    with tf.io.gfile.GFile(path) as f:
        assert (f.read(3), f.readline(), f.tell()) == ("lin", "e1\n", 6)
    with tf.io.gfile.GFile(path) as f:
        assert list(f) == ["line1\n", "line2\n", "ü"]
    with tf.io.gfile.GFile(path, "a") as f:
        f.write(b"X")
    assert tf.io.read_file(path).numpy() == b"line1\nline2\n\xc3\xbcX"
    assert tf.io.gfile.GFile(path).size() == 15
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"^mode is not 'r' or 'w' or 'a' or 'r\+' or 'w\+' or 'a\+'$"):
        tf.io.gfile.GFile(path, "z").read()
    with pytest.raises(errors.PermissionDeniedError, match="^File isn't open for writing$"):
        tf.io.gfile.GFile(path, "r").write("x")
    with pytest.raises(errors.PermissionDeniedError, match="^File isn't open for reading$"):
        tf.io.gfile.GFile(str(tmp_path / "w.txt"), "w").read()


def test_tensor_bytes_roundtrip_through_a_file(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    path = str(tmp_path / "t.pb")
    tf.io.write_file(path, tf.io.serialize_tensor(x))
    back = tf.io.parse_tensor(tf.io.read_file(path), tf.float32)
    np.testing.assert_array_equal(back.numpy(), x)
    raw = tf.io.decode_raw(tf.io.read_file(path), tf.uint8)
    assert raw.numpy().tobytes() == tf.io.serialize_tensor(x).numpy()


_NO_PROTOBUF = r"""
import sys
for name in ("google.protobuf", "tensorboard"):
    sys.modules[name] = None
import tensortrace as tf
print(tf.io.decode_base64(tf.io.encode_base64("ok")).numpy().decode())
try:
    tf.io.serialize_tensor([1.0])
except ImportError as e:
    print(e)
"""


def test_serialization_needs_the_extra():
    out = subprocess.run([sys.executable, "-c", _NO_PROTOBUF], capture_output=True, text=True,
                         timeout=60)
    lines = out.stdout.splitlines()
    assert lines[0] == "ok", out.stderr
    assert "pip install 'tensortrace[tf-formats]'" in lines[1]
