"""TFRecord files: tf.io.TFRecordWriter writes TF's bytes (TF 2.21 wrote the same three records
as ``TF_BYTES``), tf.data.TFRecordDataset reads them back, compressed or not, with TF's errors;
parse_example over a TFRecord dataset in Dataset.map."""

import numpy as np
import pytest

import tensortrace as tf

RECORDS = [b"rec0", b"rec1rec1", b"rec2rec2rec2"]
TF_BYTES = bytes.fromhex(
    "040000000000000042455204726563305ae2a4d90800000000000000ff86240f72656331726563313e950d7c"
    "0c00000000000000f4c8fe0a72656332726563327265633280f45f42")


def _write(path, records, options=None):
    with tf.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def test_writer_writes_tf_bytes(tmp_path):
    _write(tmp_path / "a", RECORDS)
    assert (tmp_path / "a").read_bytes() == TF_BYTES
    (tmp_path / "b").write_bytes(TF_BYTES)
    assert list(tf.data.TFRecordDataset(str(tmp_path / "b")).as_numpy_iterator()) == RECORDS


@pytest.mark.parametrize("options", ["GZIP", "ZLIB", tf.io.TFRecordOptions("GZIP")])
def test_compressed_round_trip(tmp_path, options):
    _write(tmp_path / "c", RECORDS, options)
    assert (tmp_path / "c").read_bytes() != TF_BYTES
    name = tf.io.TFRecordOptions.get_compression_type_string(options)
    ds = tf.data.TFRecordDataset([str(tmp_path / "c")] * 2, compression_type=name)
    assert list(ds.as_numpy_iterator()) == RECORDS * 2
    assert ds.element_spec == tf.TensorSpec((), tf.string)


def test_tf_errors(tmp_path):
    cases = {"trunc": (TF_BYTES[:-3], "truncated record at 44' failed with Read less bytes than "
                       "requested"),
             "crc": (TF_BYTES[:13] + bytes([TF_BYTES[13] ^ 1]) + TF_BYTES[14:],
                     "corrupted record at 12"),
             "hdr": (TF_BYTES[:8] + bytes([TF_BYTES[8] ^ 1]) + TF_BYTES[9:],
                     "corrupted record at 0 (Is this even a TFRecord file?)")}
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(tf.errors.DataLossError, match=message.replace("(", r"\(")
                           .replace(")", r"\)").replace("?", r"\?")):
            list(tf.data.TFRecordDataset(str(tmp_path / name)))
    (tmp_path / "short").write_bytes(TF_BYTES[:5])
    assert list(tf.data.TFRecordDataset(str(tmp_path / "short"))) == []  # as TF
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        list(tf.data.TFRecordDataset(str(tmp_path / "nope")))
    with pytest.raises(ValueError, match='Not a valid compression_type: "BZ2"'):
        tf.io.TFRecordWriter(str(tmp_path / "w"), "BZ2")
    writer = tf.io.TFRecordWriter(str(tmp_path / "closed"))
    writer.close()
    with pytest.raises(ValueError):
        writer.write(b"x")


def _example(i):
    feature = {"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
               "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t"] * i)),
               "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2, -i])),
               "x2": tf.train.Feature(float_list=tf.train.FloatList(value=[i] * i))}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_parse_in_dataset_map(tmp_path):
    _write(tmp_path / "e", [_example(i) for i in range(4)])
    spec = {"id": tf.io.FixedLenFeature([], tf.int64), "tags": tf.io.VarLenFeature(tf.string),
            "x": tf.io.FixedLenFeature([2], tf.float32),
            "r": tf.io.RaggedFeature(tf.float32, value_key="x2")}
    ds = tf.data.TFRecordDataset(str(tmp_path / "e")).map(
        lambda s: tf.io.parse_single_example(s, spec))
    items = list(ds)
    assert [int(e["id"]) for e in items] == [0, 1, 2, 3]
    np.testing.assert_array_equal(items[3]["x"].numpy(), np.array([1.5, -3], np.float32))
    assert items[2]["tags"].dense_shape.numpy().tolist() == [2]
    assert items[2]["r"].numpy().tolist() == [2, 2]
    batched = tf.data.TFRecordDataset(str(tmp_path / "e")).batch(3).map(
        lambda s: tf.io.parse_example(s, spec))
    first = next(iter(batched))
    assert first["r"].to_list() == [[], [1], [2, 2]]
    assert first["tags"].dense_shape.numpy().tolist() == [3, 2]
    assert first["x"].shape == (3, 2)
