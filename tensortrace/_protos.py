"""TensorFlow's protocol-buffer messages and CRC32C, from the optional ``tf-formats`` extra.

TF's messages ship compiled in ``tensorboard.compat.proto`` (on ``protobuf``): ``_protos.graph_pb2``
loads that module on first use, so the core imports without the extra. The few messages
tensorboard does not ship (the SavedModel wrapper, the tensor bundle's header and entries, the
fingerprint, the checkpoint state, and ``tf.train.Example`` with its feature messages under TF's
own ``tensorflow.`` names) are built here from their field numbers (TF's wire format) with
protobuf's descriptor API, in the same pool, and are reached the same way (``_protos.SavedModel``).
Checksums are CRC32C (``google-crc32c``), masked as TF's record and bundle formats mask them.
``canonical_bytes`` gives C++'s deterministic serialization, which TF's SavedModel fingerprint
(``saved_model_fingerprint``) hashes with FarmHash.
"""

import importlib
import struct

from . import _farmhash, errors

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
# tf.train.Example and friends (TF's feature.proto and example.proto), under TF's own package
# name so their full names (``tensorflow.Example``) and text format are TF's.
_BYTES, _FLOAT = 12, 2
_EXAMPLE = [
    ("BytesList", [("value", 1, _BYTES, _MANY, None)]),
    ("FloatList", [("value", 1, _FLOAT, _MANY, None)]),
    ("Int64List", [("value", 1, _I64, _MANY, None)]),
    ("Feature", [("bytes_list", 1, _MSG, _ONE, ".tensorflow.BytesList"),
                 ("float_list", 2, _MSG, _ONE, ".tensorflow.FloatList"),
                 ("int64_list", 3, _MSG, _ONE, ".tensorflow.Int64List")]),
    ("Features", [("feature", 1, _MSG, _MANY, ".tensorflow.Features.FeatureEntry")]),
    ("FeatureList", [("feature", 1, _MSG, _MANY, ".tensorflow.Feature")]),
    ("FeatureLists", [("feature_list", 1, _MSG, _MANY,
                       ".tensorflow.FeatureLists.FeatureListEntry")]),
    ("Example", [("features", 1, _MSG, _ONE, ".tensorflow.Features")]),
    ("SequenceExample", [("context", 1, _MSG, _ONE, ".tensorflow.Features"),
                         ("feature_lists", 2, _MSG, _ONE, ".tensorflow.FeatureLists")]),
]
# The profiler's XSpace (tsl's xplane.proto), under TF's package name: what
# tf.profiler.experimental writes. Fields in a oneof carry its name last.
_XP, _U64P, _BYTESP = ".tensorflow.profiler.", 4, 12
_XPLANE = [
    ("XSpace", [("planes", 1, _MSG, _MANY, _XP + "XPlane"), ("errors", 2, _STR, _MANY, None),
                ("warnings", 3, _STR, _MANY, None), ("hostnames", 4, _STR, _MANY, None)]),
    ("XPlane", [("id", 1, _I64, _ONE, None), ("name", 2, _STR, _ONE, None),
                ("lines", 3, _MSG, _MANY, _XP + "XLine"),
                ("event_metadata", 4, _MSG, _MANY, _XP + "XPlane.EventMetadataEntry"),
                ("stat_metadata", 5, _MSG, _MANY, _XP + "XPlane.StatMetadataEntry"),
                ("stats", 6, _MSG, _MANY, _XP + "XStat")]),
    ("XLine", [("id", 1, _I64, _ONE, None), ("display_id", 10, _I64, _ONE, None),
               ("name", 2, _STR, _ONE, None), ("display_name", 11, _STR, _ONE, None),
               ("timestamp_ns", 3, _I64, _ONE, None), ("duration_ps", 9, _I64, _ONE, None),
               ("events", 4, _MSG, _MANY, _XP + "XEvent")]),
    ("XEvent", [("metadata_id", 1, _I64, _ONE, None), ("offset_ps", 2, _I64, _ONE, None, "data"),
                ("num_occurrences", 5, _I64, _ONE, None, "data"),
                ("duration_ps", 3, _I64, _ONE, None), ("stats", 4, _MSG, _MANY, _XP + "XStat")]),
    ("XStat", [("metadata_id", 1, _I64, _ONE, None),
               ("double_value", 2, _DBL, _ONE, None, "value"),
               ("uint64_value", 3, _U64P, _ONE, None, "value"),
               ("int64_value", 4, _I64, _ONE, None, "value"),
               ("str_value", 5, _STR, _ONE, None, "value"),
               ("bytes_value", 6, _BYTESP, _ONE, None, "value"),
               ("ref_value", 7, _U64P, _ONE, None, "value")]),
    ("XEventMetadata", [("id", 1, _I64, _ONE, None), ("name", 2, _STR, _ONE, None),
                        ("display_name", 4, _STR, _ONE, None), ("metadata", 3, _BYTESP, _ONE, None),
                        ("stats", 5, _MSG, _MANY, _XP + "XStat"),
                        ("child_id", 6, _I64, _MANY, None)]),
    ("XStatMetadata", [("id", 1, _I64, _ONE, None), ("name", 2, _STR, _ONE, None),
                       ("description", 3, _STR, _ONE, None)]),
]
_XPLANE_MAPS = {"XPlane": (("EventMetadataEntry", _XP + "XEventMetadata"),
                           ("StatMetadataEntry", _XP + "XStatMetadata"))}
#: map fields: message -> (entry name, value type)
_MAPS = {"Features": ("FeatureEntry", ".tensorflow.Feature"),
         "FeatureLists": ("FeatureListEntry", ".tensorflow.FeatureList")}
_built = {}


def _build_missing():
    descriptor_pb2 = _require("google.protobuf.descriptor_pb2")
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
    _add_file(f, _MISSING)
    f = descriptor_pb2.FileDescriptorProto(name="tensortrace/tf_example.proto",
                                           package="tensorflow", syntax="proto3")
    for name, fields in _EXAMPLE:
        m = f.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
            if name == "Feature":
                fd.oneof_index = 0
        if name == "Feature":
            m.oneof_decl.add(name="kind")
        if name in _MAPS:
            entry, value_type = _MAPS[name]
            e = m.nested_type.add(name=entry)
            e.options.map_entry = True
            e.field.add(name="key", number=1, type=_STR, label=_ONE)
            e.field.add(name="value", number=2, type=_MSG, label=_ONE, type_name=value_type)
    _add_file(f, _EXAMPLE)
    f = descriptor_pb2.FileDescriptorProto(name="tensortrace/tf_xplane.proto",
                                           package="tensorflow.profiler", syntax="proto3")
    for name, fields in _XPLANE:
        m = f.message_type.add(name=name)
        oneofs = []
        for fname, number, ftype, label, type_name, *oneof in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
            if oneof:
                if oneof[0] not in oneofs:
                    oneofs.append(oneof[0])
                    m.oneof_decl.add(name=oneof[0])
                fd.oneof_index = oneofs.index(oneof[0])
        for entry, value_type in _XPLANE_MAPS.get(name, ()):
            e = m.nested_type.add(name=entry)
            e.options.map_entry = True
            e.field.add(name="key", number=1, type=_I64, label=_ONE)
            e.field.add(name="value", number=2, type=_MSG, label=_ONE, type_name=value_type)
    _add_file(f, _XPLANE)


def _add_file(f, messages):
    """Add ``f`` to protobuf's default pool (once) and make classes for its ``messages``."""
    pool = _require("google.protobuf.descriptor_pool").Default()
    factory = _require("google.protobuf.message_factory")
    try:
        file_desc = pool.FindFileByName(f.name)
    except KeyError:
        file_desc = pool.Add(f) or pool.FindFileByName(f.name)
    for name, _ in messages:
        _built[name] = factory.GetMessageClass(file_desc.message_types_by_name[name])


def __getattr__(name):
    """``_protos.graph_pb2`` -> tensorboard's compiled module; ``_protos.SavedModel`` -> a class."""
    if name.endswith("_pb2"):
        module = _require(f"tensorboard.compat.proto.{name}")
        globals()[name] = module
        return module
    if any(name == m for m, _ in _MISSING + _EXAMPLE + _XPLANE):
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


# --- C++'s deterministic serialization and the SavedModel fingerprint ---------------------------
def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


_VARINT_TYPES = {3, 4, 5, 8, 13, 14}  # int64 uint64 int32 bool uint32 enum
_FIXED = {7: "<I", 15: "<i", 2: "<f", 6: "<Q", 16: "<q", 1: "<d"}


def _scalar(fd, value):
    """One scalar value's encoding, without its tag."""
    t = fd.type
    if t in _VARINT_TYPES:
        return _varint(int(value) & 0xFFFFFFFFFFFFFFFF)
    if t in (9, 12):  # string, bytes
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        return _varint(len(data)) + data
    if t in _FIXED:
        return struct.pack(_FIXED[t], value)
    zigzag = (value << 1) ^ (value >> 63)  # sint32 / sint64
    return _varint(zigzag & 0xFFFFFFFFFFFFFFFF)


def _field_bytes(msg, fd, value):
    """One scalar (or repeated scalar) field as protobuf encodes it (proto3 packs numbers)."""
    if fd.is_repeated:
        if fd.type not in (9, 12):  # packed
            body = b"".join(_scalar(fd, v) for v in value)
            return _varint(fd.number << 3 | 2) + _varint(len(body)) + body
        tag = _varint(fd.number << 3 | 2)
        return b"".join(tag + _scalar(fd, v) for v in value)
    wire = 2 if fd.type in (9, 12) else _WIRE.get(fd.type, 0)
    if not value and not fd.has_presence:
        return b""  # proto3 leaves a default scalar out
    return _varint(fd.number << 3 | wire) + _scalar(fd, value)


_ZERO = {1: b"\0" * 8, 5: b"\0" * 4, 6: b"\0" * 4, 7: b"\0" * 4, 15: b"\0" * 4,
         16: b"\0" * 8, 2: b"\0" * 4, 9: b"\0", 12: b"\0"}  # by field type; varints: one 0
_WIRE = {1: 1, 6: 1, 16: 1, 2: 5, 7: 5, 15: 5, 9: 2, 12: 2}  # other scalar types are varints


def _entry_field(entry, fd, value):
    """A map entry's key or value: written even when it is the default (C++ always writes
    both)."""
    data = _field_bytes(entry, fd, value)
    if data:
        return data
    return _varint(fd.number << 3 | _WIRE.get(fd.type, 0)) + _ZERO.get(fd.type, b"\0")


_MAP_FREE = {}


def _map_free(descriptor):
    """Whether no message type reachable from ``descriptor`` has a map field (types recurse, so
    the answer is over all of them, cached per type)."""
    name = descriptor.full_name
    if name not in _MAP_FREE:
        todo, seen, free = [descriptor], {name}, True
        while todo and free:
            for fd in todo.pop().fields:
                sub = fd.message_type
                if sub is None:
                    continue
                if sub.GetOptions().map_entry:
                    free = False
                    break
                if sub.full_name not in seen:
                    seen.add(sub.full_name)
                    todo.append(sub)
        _MAP_FREE[name] = free
    return _MAP_FREE[name]


def _reordered(msg):
    """Whether C++'s bytes of ``msg`` may differ from upb's deterministic ones: some map below
    it has integer keys, or a string key that is a prefix of another (upb sorts it last)."""
    if _map_free(msg.DESCRIPTOR):
        return False
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if fd.message_type.GetOptions().map_entry:
            keys = sorted(value)
            if len(keys) > 1 and (not isinstance(keys[0], str) or any(
                    b.startswith(a) for a, b in zip(keys, keys[1:]))):
                return True  # upb's order of int keys is not C++'s ascending one either
            if fd.message_type.fields_by_name["value"].message_type is not None and \
                    any(_reordered(value[k]) for k in keys):
                return True
        elif not _map_free(fd.message_type):
            if any(_reordered(v) for v in (value if fd.is_repeated else [value])):
                return True
    return False


def canonical_bytes(msg):
    """``msg`` serialized as C++ protobuf serializes deterministically (the bytes TF hashes):
    fields in field-number order, map entries sorted by key as C++ sorts them (upb, Python's
    default, puts a key after its extensions: "a_1" before "a"), unknown fields last."""
    if not _reordered(msg):
        return msg.SerializeToString(deterministic=True)
    out = []
    for fd in sorted(msg.DESCRIPTOR.fields, key=lambda f: f.number):
        value = getattr(msg, fd.name)
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            key_fd, value_fd = fd.message_type.fields_by_name["key"], \
                fd.message_type.fields_by_name["value"]
            entry_cls = _require("google.protobuf.message_factory").GetMessageClass(
                fd.message_type)
            for k in sorted(value):
                entry = entry_cls(key=k)
                if value_fd.message_type is not None:
                    inner = canonical_bytes(value[k])
                    body = _entry_field(entry, key_fd, k) + _varint(16 | 2) + \
                        _varint(len(inner)) + inner
                else:
                    entry.value = value[k]
                    body = _entry_field(entry, key_fd, k) + \
                        _entry_field(entry, value_fd, value[k])
                out.append(_varint(fd.number << 3 | 2) + _varint(len(body)) + body)
        elif fd.message_type is not None:
            if fd.is_repeated:
                items = list(value)
            else:
                items = [value] if msg.HasField(fd.name) else []
            for item in items:
                inner = canonical_bytes(item)
                out.append(_varint(fd.number << 3 | 2) + _varint(len(inner)) + inner)
        elif (fd.is_repeated and len(value)) or \
                (not fd.is_repeated and _is_set(msg, fd)):
            out.append(_field_bytes(msg, fd, value))
    out.append(_unknown_bytes(msg))
    return b"".join(out)


def _unknown_bytes(msg):
    """The fields of ``msg`` its schema does not know (newer TF fields), as parsed: they follow
    the known ones, as C++ and Python's pure implementation write them."""
    rest = type(msg)()
    rest.CopyFrom(msg)
    for fd, _ in rest.ListFields():
        rest.ClearField(fd.name)
    return rest.SerializeToString()


def _is_set(msg, fd):
    if fd.has_presence:
        return msg.HasField(fd.name)
    return bool(getattr(msg, fd.name))  # proto3: a default scalar is not written


def _regularized_graph(graph_def):
    """TF's ``SimpleDelete``: call nodes' function names without their UID suffix and without
    ``config_proto``, string constants' values cleared, the library and versions emptied."""
    g = type(graph_def)()
    g.CopyFrom(graph_def)
    for node in g.node:
        if node.op in ("PartitionedCall", "StatefulPartitionedCall"):
            name = node.attr["f"].func.name
            uid = _suffix_uid(name)
            if uid is not None and name.endswith(str(uid)):
                node.attr["f"].func.name = name[:-len(str(uid))]
            if "config_proto" in node.attr:
                node.attr["config_proto"].s = b""
        if node.op == "Const" and node.attr["dtype"].type == 7:  # DT_STRING
            node.attr["value"].ClearField("value")
    # C++ clears the messages in place: they stay present (and serialized) empty
    g.ClearField("library")
    g.library.SetInParent()
    g.ClearField("versions")
    g.versions.SetInParent()
    return g


def _suffix_uid(name):
    """The integer after a function name's last ``_`` (TF's ``GetSuffixUID``), or None."""
    tail = name.rsplit("_", 1)[-1].strip()
    try:
        return int(tail)
    except ValueError:
        return None


def saved_model_fingerprint(saved_model, checkpoint_index):
    """TF's ``fingerprint.pb`` (producer 4) for a SavedModel message and the bytes of its
    ``variables.index`` (None when there is none): FarmHash Fingerprint64 of the model, of its
    regularized graph, signatures and concrete functions, and of the checkpoint index."""
    fp64, cat = _farmhash.fingerprint64_one, _farmhash.fingerprint_cat64
    mg = saved_model.meta_graphs[0]
    fp = __getattr__("FingerprintDef")()
    fp.saved_model_checksum = fp64(canonical_bytes(saved_model))
    fp.graph_def_program_hash = fp64(canonical_bytes(_regularized_graph(mg.graph_def)))
    signatures = 0
    for key in sorted(mg.signature_def):
        signatures = cat(signatures, fp64(key.encode("utf-8")))
        signatures = cat(signatures, fp64(canonical_bytes(mg.signature_def[key])))
    fp.signature_def_hash = signatures
    functions = mg.object_graph_def.concrete_functions
    by_uid = {}
    for name in functions:
        uid = _suffix_uid(name)
        if uid is None:
            raise ValueError(f"Function name: `{name}` does not end in an integer.")
        by_uid.setdefault(uid, name)
    objects = 0
    for uid in sorted(by_uid):
        name = by_uid[uid]
        stripped = name[:-len(str(uid))] if name.endswith(str(uid)) else name
        objects = cat(objects, fp64(stripped.encode("utf-8")))
        objects = cat(objects, fp64(canonical_bytes(functions[name])))
    fp.saved_object_graph_hash = objects
    fp.checkpoint_hash = 0 if checkpoint_index is None else fp64(checkpoint_index)
    fp.version.producer = 4
    return fp
