"""TF's messages from the tf-formats extra: tensorboard's compiled modules, the ones built here
(wire-compatible with TF's field numbers), masked CRC32C, and the error naming the extra."""

import pytest

from tensortrace import _protos, errors


def test_tensorboard_modules_load_on_first_use():
    assert _protos.graph_pb2.GraphDef.DESCRIPTOR.name == "GraphDef"
    assert _protos.event_pb2.Event().wall_time == 0


def test_built_messages_use_tf_field_numbers():
    # BundleEntryProto{dtype=DT_FLOAT(1), shape{dim{size:3}}, offset=8(field 4), crc32c(fixed32 6)}
    entry = _protos.BundleEntryProto(dtype=1, offset=8, crc32c=0x01020304)
    entry.shape.dim.add(size=3)
    assert entry.SerializeToString() == b"\x08\x01\x12\x04\x12\x02\x08\x03\x20\x08\x35\x04\x03\x02\x01"
    header = _protos.BundleHeaderProto(num_shards=1)
    header.version.producer = 1
    assert header.SerializeToString() == b"\x08\x01\x1a\x02\x08\x01"
    model = _protos.SavedModel(saved_model_schema_version=1)
    model.meta_graphs.add().meta_info_def.tags.append("serve")
    again = _protos.parse(_protos.SavedModel, model.SerializeToString(), "saved_model.pb")
    assert list(again.meta_graphs[0].meta_info_def.tags) == ["serve"]
    state = _protos.CheckpointState(model_checkpoint_path="ckpt-2")
    state.all_model_checkpoint_paths.extend(["ckpt-1", "ckpt-2"])
    assert state.SerializeToString() == b"\n\x06ckpt-2\x12\x06ckpt-1\x12\x06ckpt-2"
    fp = _protos.FingerprintDef(saved_model_checksum=7, uuid="u")
    assert fp.SerializeToString() == b"\x08\x07:\x01u"


def test_crc32c_and_tf_mask():
    assert _protos.crc32c(b"123456789") == 0xE3069283  # the CRC32C check value
    assert _protos.crc32c(b"6789", _protos.crc32c(b"12345")) == 0xE3069283
    for data in (b"", b"abc", bytes(range(256))):
        masked = _protos.masked_crc32c(data)
        assert masked != _protos.crc32c(data) or data == b""
        assert _protos.unmask_crc32c(masked) == _protos.crc32c(data)
    # TF's mask: rotate right by 15 and add 0xa282ead8
    assert _protos.masked_crc32c(b"") == 0xA282EAD8


def test_malformed_message_is_data_loss():
    with pytest.raises(errors.DataLossError, match="Unable to parse saved_model.pb"):
        _protos.parse(_protos.SavedModel, b"\xff\xff", "saved_model.pb")


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "tensorboard.compat.proto.nope_pb2", None)
    with pytest.raises(ImportError, match=r"pip install 'tensortrace\[tf-formats\]'"):
        _protos.nope_pb2
