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
    prefix = _copy(tmp_path)
    index = bytearray(open(prefix + ".index", "rb").read())
    index[-1] ^= 1
    open(prefix + ".index", "wb").write(index)
    with pytest.raises(errors.DataLossError, match="bad magic number"):
        bundle.BundleReader(prefix)
    index[-1] ^= 1
    index[20] ^= 0x40
    open(prefix + ".index", "wb").write(index)
    with pytest.raises(errors.DataLossError, match="block checksum mismatch"):
        bundle.BundleReader(prefix)
    open(prefix + ".index", "wb").write(index[:30])
    with pytest.raises(errors.DataLossError, match="too short"):
        bundle.BundleReader(prefix)


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
