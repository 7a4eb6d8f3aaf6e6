"""TensorFlow's protocol-buffer messages and CRC32C, from the optional ``tf-formats`` extra.

TF's messages ship compiled in ``tensorboard.compat.proto`` (on ``protobuf``): ``_protos.graph_pb2``
loads that module on first use, so the core imports without the extra. The few messages
tensorboard does not ship (the SavedModel wrapper, the tensor bundle's header and entries, the
fingerprint, the checkpoint state) are built here from their field numbers (TF's wire format) with
protobuf's descriptor API, in the same pool, and are reached the same way (``_protos.SavedModel``).
Checksums are CRC32C (``google-crc32c``), masked as TF's record and bundle formats mask them.
"""

import importlib

from . import errors

EXTRA = "pip install 'tensortrace[tf-formats]'"

def _require(module):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"TensorFlow's file formats (checkpoints, SavedModel, GraphDef, TensorBoard events) "
            f"need the optional 'tf-formats' extra ({module} is missing): {EXTRA}") from e


# The messages tensorboard lacks: (message, [(field, number, type, label, type name)]).
# Types and labels are FieldDescriptorProto's enums; type names are resolved in the pool.
_I64, _U64, _I32, _F32, _DBL, _STR, _MSG, _ENUM = 3, 4, 5, 7, 1, 9, 11, 14
_ONE, _MANY = 1, 3
_MISSING = [
    ("SavedModel", [("saved_model_schema_version", 1, _I64, _ONE, None),
                    ("meta_graphs", 2, _MSG, _MANY, ".tensorboard.MetaGraphDef")]),
    ("TensorSliceProto", [("extent", 1, _MSG, _MANY, ".tensortrace.TensorSliceProto.Extent")]),
    ("BundleHeaderProto", [("num_shards", 1, _I32, _ONE, None),
                           ("endianness", 2, _ENUM, _ONE,
                            ".tensortrace.BundleHeaderProto.Endianness"),
                           ("version", 3, _MSG, _ONE, ".tensorboard.VersionDef")]),
    ("BundleEntryProto", [("dtype", 1, _ENUM, _ONE, ".tensorboard.DataType"),
                          ("shape", 2, _MSG, _ONE, ".tensorboard.TensorShapeProto"),
                          ("shard_id", 3, _I32, _ONE, None), ("offset", 4, _I64, _ONE, None),
                          ("size", 5, _I64, _ONE, None), ("crc32c", 6, _F32, _ONE, None),
                          ("slices", 7, _MSG, _MANY, ".tensortrace.TensorSliceProto")]),
    ("FingerprintDef", [("saved_model_checksum", 1, _U64, _ONE, None),
                        ("graph_def_program_hash", 2, _U64, _ONE, None),
                        ("signature_def_hash", 3, _U64, _ONE, None),
                        ("saved_object_graph_hash", 4, _U64, _ONE, None),
                        ("checkpoint_hash", 5, _U64, _ONE, None),
                        ("version", 6, _MSG, _ONE, ".tensorboard.VersionDef"),
                        ("uuid", 7, _STR, _ONE, None)]),
    ("CheckpointState", [("model_checkpoint_path", 1, _STR, _ONE, None),
                         ("all_model_checkpoint_paths", 2, _STR, _MANY, None),
                         ("all_model_checkpoint_timestamps", 3, _DBL, _MANY, None),
                         ("last_preserved_timestamp", 4, _DBL, _ONE, None)]),
]
_built = {}


def _build_missing():
    descriptor_pb2 = _require("google.protobuf.descriptor_pb2")
    pool_mod = _require("google.protobuf.descriptor_pool")
    factory = _require("google.protobuf.message_factory")
    deps = [_require(f"tensorboard.compat.proto.{m}_pb2")
            for m in ("meta_graph", "versions", "types", "tensor_shape")]
    f = descriptor_pb2.FileDescriptorProto(name="tensortrace/tf_formats.proto",
                                           package="tensortrace", syntax="proto3")
    f.dependency.extend(d.DESCRIPTOR.name for d in deps)
    for name, fields in _MISSING:
        m = f.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
        if name == "TensorSliceProto":
            ext = m.nested_type.add(name="Extent")
            ext.field.add(name="start", number=1, type=_I64, label=_ONE)
            ext.field.add(name="length", number=2, type=_I64, label=_ONE, oneof_index=0)
            ext.oneof_decl.add(name="has_length")
        if name == "BundleHeaderProto":
            e = m.enum_type.add(name="Endianness")
            e.value.add(name="LITTLE", number=0)
            e.value.add(name="BIG", number=1)
    pool = pool_mod.Default()
    try:
        file_desc = pool.FindFileByName(f.name)
    except KeyError:
        file_desc = pool.Add(f) or pool.FindFileByName(f.name)
    for name, _ in _MISSING:
        _built[name] = factory.GetMessageClass(file_desc.message_types_by_name[name])


def __getattr__(name):
    """``_protos.graph_pb2`` -> tensorboard's compiled module; ``_protos.SavedModel`` -> a class."""
    if name.endswith("_pb2"):
        module = _require(f"tensorboard.compat.proto.{name}")
        globals()[name] = module
        return module
    if any(name == m for m, _ in _MISSING):
        if not _built:
            _build_missing()
        return _built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MASK_DELTA = 0xA282EAD8


def crc32c(data, value=0):
    """CRC32C of ``data`` (bytes-like), continuing from ``value``."""
    return _require("google_crc32c").extend(value, bytes(data) if isinstance(data, memoryview)
                                            else data)


def masked_crc32c(data):
    """TF's masked CRC32C (records and bundle entries store CRCs masked)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask_crc32c(masked):
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def parse(message_class, data, what):
    """Parse ``data`` into a new ``message_class``; a malformed message is DataLossError."""
    msg = message_class()
    try:
        msg.ParseFromString(bytes(data))
    except Exception as e:  # protobuf's DecodeError and friends
        raise errors.DataLossError(None, None, f"Unable to parse {what}: {e}") from None
    return msg
