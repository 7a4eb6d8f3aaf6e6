"""The tensor bundle: TF's files read value for value, our files byte-identical to TF's."""

import os
import shutil
import struct

import numpy as np
import pytest

from tensortrace import dtypes, errors
from tensortrace.checkpoint import bundle

from ._fixtures import DIR, EXPECTED, assert_same, decode


def test_reads_tf_files_of_every_dtype():
    reader = bundle.BundleReader(str(DIR / "dtypes" / "ckpt"))
    expected = EXPECTED["dtypes"]["values"]
    assert reader.keys() == sorted(list(expected) + ["_CHECKPOINTABLE_OBJECT_GRAPH"])
    for key, rec in expected.items():
        assert key in reader
        assert reader.dtype(key).name == rec["tf_dtype"]
        assert reader.shape(key) == tuple(rec["shape"])
        assert_same(reader.read(key), rec)


def test_writes_the_bytes_tf_writes(tmp_path):
    """SaveV2 of sorted keys gives the same .index and .data files as write_bundle."""
    tensors = {k: decode(rec) for k, rec in EXPECTED["raw"].items()}
    prefix = str(tmp_path / "bundle")
    bundle.write_bundle(prefix, tensors)
    for suffix in (".index", ".data-00000-of-00001"):
        ours = open(prefix + suffix, "rb").read()
        theirs = (DIR / "raw" / ("bundle" + suffix)).read_bytes()
        assert ours == theirs, suffix
    reader = bundle.BundleReader(prefix)
    assert reader.keys() == sorted(tensors)
    for k, rec in EXPECTED["raw"].items():
        assert_same(reader.read(k), rec)
    assert not [n for n in os.listdir(tmp_path) if "tempstate" in n]


def test_round_trip_many_blocks(tmp_path, monkeypatch):
    """Small blocks: many data blocks, index separators and restart points."""
    monkeypatch.setattr(bundle, "BLOCK_SIZE", 64)
    tensors = {f"k/{i:04d}/{'x' * (i % 7)}": np.full([i % 3], i, np.int64) for i in range(300)}
    tensors["s"] = (np.array([["a", "bb"], ["", "\u00e9"]], dtype=object), dtypes.string)
    bundle.write_bundle(str(tmp_path / "b"), tensors)
    reader = bundle.BundleReader(str(tmp_path / "b"))
    assert reader.keys() == sorted(tensors)
    for k, v in tensors.items():
        if k == "s":
            assert reader.read(k).tolist() == [[b"a", b"bb"], [b"", "\u00e9".encode()]]
        else:
            np.testing.assert_array_equal(reader.read(k), v)
            assert reader.read(k).dtype == np.int64


def test_half_bool_and_bfloat16(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    t = {"h": np.array([1.5, -0.0], np.float16), "b": np.array([True, False]),
         "bf": np.array([1.0, 3.5], ml_dtypes.bfloat16)}
    bundle.write_bundle(str(tmp_path / "b"), t)
    r = bundle.BundleReader(str(tmp_path / "b"))
    assert [r.dtype(k).name for k in ("b", "bf", "h")] == ["bool", "bfloat16", "float16"]
    for k, v in t.items():
        assert r.read(k).dtype == v.dtype and r.read(k).tobytes() == v.tobytes()


def test_missing_and_unknown_keys(tmp_path):
    with pytest.raises(errors.NotFoundError, match="Failed to find any matching files for"):
        bundle.BundleReader(str(tmp_path / "nope"))
    r = bundle.BundleReader(str(DIR / "raw" / "bundle"))
    with pytest.raises(errors.NotFoundError, match="^Key zz not found in checkpoint$"):
        r.read("zz")
    assert "zz" not in r


def _copy(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(DIR / "raw" / ("bundle" + suffix), tmp_path / ("b" + suffix))
    return str(tmp_path / "b")


def test_corrupt_data_is_data_loss(tmp_path):
    prefix = _copy(tmp_path)
    data = bytearray(open(prefix + ".data-00000-of-00001", "rb").read())
    data[0] ^= 1  # the first tensor ("a/float")
    open(prefix + ".data-00000-of-00001", "wb").write(data)
    r = bundle.BundleReader(prefix)
    with pytest.raises(errors.DataLossError, match="Checksum does not match: stored"):
        r.read("a/float")
    np.testing.assert_array_equal(r.read("b/double"), decode(EXPECTED["raw"]["b/double"]))


def test_corrupt_index_is_data_loss(tmp_path):
    """TF 2.21's messages for these corruptions (its Python reader raises them as OpError; the
    C++ status, and ours, is DATA_LOSS)."""
    prefix = _copy(tmp_path)
    good = open(prefix + ".index", "rb").read()
    cases = {
        "short": (good[:20], "file is too short to be an sstable"),
        "magic": (good[:-1] + bytes([good[-1] ^ 0x40]), "not an sstable (bad magic number)"),
        "block": (good[:20] + bytes([good[20] ^ 0x40]) + good[21:],
                  f"Unable to read file ({prefix}.index). Perhaps the file is corrupt or was "
                  f"produced by a newer version of TensorFlow with format changes (failed to "
                  f"seek to header entry): block checksum mismatch"),
        "trunc": (good[:-60] + good[-48:], "block checksum mismatch"),
    }
    for name, (data, message) in cases.items():
        open(prefix + ".index", "wb").write(data)
        with pytest.raises(errors.DataLossError) as e:
            bundle.BundleReader(prefix)
        assert str(e.value) == message, name


def test_not_a_bundle(tmp_path):
    """A prefix naming a file or directory (no .index): TF's 'Unable to open table file'."""
    (tmp_path / "notckpt").write_text("hello")
    tail = ("perhaps your file is in a different file format and you need to use a different "
            "restore operator?")
    with pytest.raises(errors.DataLossError) as e:
        bundle.BundleReader(str(tmp_path / "notckpt"))
    assert str(e.value) == (f"Unable to open table file {tmp_path}/notckpt: DATA_LOSS: file is "
                            f"too short to be an sstable: {tail}")
    with pytest.raises(errors.DataLossError) as e:
        bundle.BundleReader(str(tmp_path))
    assert str(e.value) == (f"Unable to open table file {tmp_path}: FAILED_PRECONDITION: "
                            f"{tmp_path}; Is a directory: {tail}")


def test_truncated_data_file(tmp_path):
    prefix = _copy(tmp_path)
    with open(prefix + ".data-00000-of-00001", "r+b") as f:
        f.truncate(10)
    r = bundle.BundleReader(prefix)
    with pytest.raises(errors.DataLossError, match="runs past the end"):
        r.read("d/strings")


def test_huge_sizes_are_refused_before_allocating(tmp_path):
    """An entry claiming 2**60 elements is refused from its size field, nothing allocated."""
    from tensortrace import _protos
    entry = _protos.BundleEntryProto(dtype=1, size=4 * (1 << 60), crc32c=0)
    entry.shape.dim.add(size=1 << 60)
    header = _protos.BundleHeaderProto(num_shards=1)
    table = bundle.build_table([(b"", header.SerializeToString()),
                                (b"big", entry.SerializeToString())])
    open(tmp_path / "b.index", "wb").write(table)
    open(tmp_path / "b.data-00000-of-00001", "wb").write(b"\0" * 16)
    r = bundle.BundleReader(str(tmp_path / "b"))
    assert r.shape("big") == (1 << 60,)
    with pytest.raises(errors.DataLossError, match="runs past the end"):
        r.read("big")


def test_block_format_details():
    table = bundle.build_table([(b"", b"h"), (b"abc", b"1"), (b"abd", b"2")])
    lo, hi = struct.unpack("<II", table[-8:])
    assert (hi << 32 | lo) == 0xDB4775248B80FB57 and len(table) > bundle.FOOTER_SIZE
    assert bundle.read_table(table, "t") == [(b"", b"h"), (b"abc", b"1"), (b"abd", b"2")]
    # the second key shares two bytes with the first: prefix compression
    assert b"\x02\x01\x01d2" in table


def test_write_bundle_arguments(tmp_path):
    """Tensors, NumPy values and (array, DType) pairs are accepted; bad input fails before a
    file is written."""
    import tensortrace as tf
    prefix = str(tmp_path / "b")
    bundle.write_bundle(prefix, {"a": tf.constant([1.0, 2.0]), "s": tf.constant(["x", "yy"]),
                                 "h": tf.constant(1.5, tf.float16),
                                 "i": (np.array([1, 2]), dtypes.int32)})
    r = bundle.BundleReader(prefix)
    assert [(k, r.dtype(k).name) for k in r.keys()] == [
        ("a", "float32"), ("h", "float16"), ("i", "int32"), ("s", "string")]
    assert r.read("s").tolist() == [b"x", b"yy"] and r.read("i").dtype == np.int32
    for bad, kind, message in [
            ({"": np.ones(1)}, ValueError, "The empty key is reserved for the bundle header"),
            ({"a": np.ones(1), b"a": np.ones(2)}, ValueError, "Duplicate key in the bundle: a"),
            ({"o": np.array([object()], dtype=object)}, TypeError,
             "A string tensor element must be bytes or str, got object")]:
        with pytest.raises(kind, match=f"^{message}$"):
            bundle.write_bundle(str(tmp_path / "bad"), bad)
    assert sorted(os.listdir(tmp_path)) == ["b.data-00000-of-00001", "b.index"]


def test_dtypes_tensortrace_lacks(tmp_path):
    """A quantized TF dtype is Unimplemented (named); a number TF does not know is DataLoss."""
    from tensortrace import _protos
    header = _protos.BundleHeaderProto(num_shards=1)
    entries = [(b"", header.SerializeToString())]
    for key, enum in ((b"q", 11), (b"z", 999)):
        entries.append((key, _protos.BundleEntryProto(dtype=enum, size=1).SerializeToString()))
    open(tmp_path / "b.index", "wb").write(bundle.build_table(entries))
    r = bundle.BundleReader(str(tmp_path / "b"))
    with pytest.raises(errors.UnimplementedError, match="^Key q has dtype DT_QINT8, which "
                                                        "tensortrace does not support$"):
        r.dtype("q")
    with pytest.raises(errors.DataLossError, match="^Invalid dtype 999 for key z$"):
        r.read("z")
