"""TF's tensor bundle (the V2 checkpoint format): write and read ``PREFIX.index`` and
``PREFIX.data-00000-of-00001`` as TensorFlow does.

The index is a LevelDB-format table (sorted keys, prefix-compressed data blocks with restart
points, each block followed by a type byte and a masked CRC32C, an index block of block handles
and a 48-byte footer ending in the table magic). Its key ``""`` holds the ``BundleHeaderProto``;
every other key a ``BundleEntryProto`` naming the tensor's dtype, shape, place in the data file
and masked CRC32C. Numeric tensors are stored as their raw little-endian bytes; string tensors
as varint64 lengths, a masked CRC32C of the lengths (each as a uint32), then the bytes.

    write_bundle("/tmp/ckpt", {"w": np.ones([2, 2], np.float32)})
    r = BundleReader("/tmp/ckpt"); r.keys(), r.dtype("w"), r.shape("w"), r.read("w")

The reader trusts nothing in the files: every offset, size, count and checksum is checked
before bytes are allocated or decoded; a corrupt file raises ``DataLossError``, a missing one
``NotFoundError``.
"""

import os
import struct
import uuid

import numpy as np

from .. import _protos, dtypes, errors

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # two block handles padded to 40 bytes, then the 8-byte magic
BLOCK_SIZE = 262144  # TF's table::Options defaults
RESTART_INTERVAL = 16
_TRAILER = 5  # compression type byte + masked CRC32C
_NO_COMPRESSION = 0
BUNDLE_VERSION = 1  # kTensorBundleVersion; kTensorBundleMinProducer is 0
_MAX_RANK = 254  # TensorShape's limit
_MAX_ELEMENTS = (1 << 63) - 1
_STRING, _VARIANT, _RESOURCE = 7, 21, 20


def index_filename(prefix):
    return f"{prefix}.index"


def data_filename(prefix, shard=0, num_shards=1):
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _data_loss(msg):
    return errors.DataLossError(None, None, msg)


# ---------------------------------------------------------------------------------------------
# varints


def _put_varint(out, value):
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _varint(value):
    out = bytearray()
    _put_varint(out, value)
    return bytes(out)


def _get_varint(data, pos, limit, max_bytes=10):
    """(value, new position) of the varint at ``data[pos:limit]``; None when malformed."""
    result = shift = 0
    for i in range(max_bytes):
        if pos >= limit:
            return None
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            if result >> (32 if max_bytes == 5 else 64):
                return None
            return result, pos
        shift += 7
    return None


# ---------------------------------------------------------------------------------------------
# the table (LevelDB's format as TF's lib/io writes it)


def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (TF's table builder's FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _short_successor(key):
    """A short key >= ``key`` (FindShortSuccessor)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


class _BlockBuilder:
    def __init__(self):
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def add(self, key, value):
        shared = 0
        if self.counter < RESTART_INTERVAL:
            n = min(len(self.last_key), len(key))
            while shared < n and self.last_key[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        for v in (shared, len(key) - shared, len(value)):
            _put_varint(self.buf, v)
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.counter += 1

    def size_estimate(self):
        return len(self.buf) + 4 * len(self.restarts) + 4

    def empty(self):
        return not self.buf

    def finish(self):
        out = bytes(self.buf) + struct.pack(f"<{len(self.restarts) + 1}I", *self.restarts,
                                            len(self.restarts))
        self.__init__()
        return out


def build_table(items):
    """The bytes of a table holding ``items`` ((key bytes, value bytes), keys sorted)."""
    out = bytearray()
    data, index = _BlockBuilder(), _BlockBuilder()

    def write_block(contents):
        handle = _varint(len(out)) + _varint(len(contents))
        trailer = bytes([_NO_COMPRESSION])
        crc = _protos.crc32c(trailer, _protos.crc32c(contents))
        out.extend(contents + trailer + struct.pack("<I", _mask(crc)))
        return handle

    pending = None  # the handle of the last data block, waiting for the next key
    last_key = b""
    for key, value in items:
        if pending is not None:
            index.add(_shortest_separator(last_key, key), pending)
            pending = None
        data.add(key, value)
        last_key = key
        if data.size_estimate() >= BLOCK_SIZE:
            pending = write_block(data.finish())
    if not data.empty():
        pending = write_block(data.finish())
    metaindex = write_block(_BlockBuilder().finish())
    if pending is not None:
        index.add(_short_successor(last_key), pending)
    index_handle = write_block(index.finish())
    footer = (metaindex + index_handle).ljust(40, b"\0")
    out.extend(footer + struct.pack("<II", TABLE_MAGIC & 0xFFFFFFFF, TABLE_MAGIC >> 32))
    return bytes(out)


def _mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _read_block(data, handle_bytes):
    """The contents of the block a handle names, its trailer checked."""
    parsed = _get_varint(handle_bytes, 0, len(handle_bytes))
    parsed2 = parsed and _get_varint(handle_bytes, parsed[1], len(handle_bytes))
    if not parsed2:
        raise _data_loss("bad block handle")
    offset, size = parsed[0], parsed2[0]
    if offset + size + _TRAILER > len(data):
        raise _data_loss("truncated block read")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    actual = _protos.crc32c(data[offset:offset + size + 1])
    if _protos.unmask_crc32c(stored) != actual:
        raise _data_loss("block checksum mismatch")
    if kind != _NO_COMPRESSION:
        raise _data_loss(f"bad block type {kind} (only uncompressed blocks are read)")
    return contents


def _block_entries(block):
    """The (key, value) pairs of a block, every length checked against the block."""
    if len(block) < 4:
        raise _data_loss("bad block contents")
    num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    if num_restarts > (len(block) - 4) // 4:
        raise _data_loss("bad block contents")
    limit = len(block) - 4 * (num_restarts + 1)
    pos, key, out = 0, b"", []
    while pos < limit:
        fields = []
        for _ in range(3):
            got = _get_varint(block, pos, limit, 5)
            if got is None:
                raise _data_loss("bad entry in block")
            fields.append(got[0])
            pos = got[1]
        shared, non_shared, value_len = fields
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise _data_loss("bad entry in block")
        key = key[:shared] + bytes(block[pos:pos + non_shared])
        pos += non_shared
        out.append((key, bytes(block[pos:pos + value_len])))
        pos += value_len
    return out


def read_table(data, what):
    """Every (key, value) of the table in ``data`` (bytes) read from file ``what``, in file
    order; a malformed table is DataLossError with TF's message."""
    if len(data) < FOOTER_SIZE:
        raise _data_loss("file is too short to be an sstable")
    footer = data[-FOOTER_SIZE:]
    lo, hi = struct.unpack_from("<II", footer, 40)
    if (hi << 32) | lo != TABLE_MAGIC:
        raise _data_loss("not an sstable (bad magic number)")
    first = _get_varint(footer, 0, 40)
    second = first and _get_varint(footer, first[1], 40)
    third = second and _get_varint(footer, second[1], 40)
    fourth = third and _get_varint(footer, third[1], 40)
    if not fourth:
        raise _data_loss("bad block handle")
    body = data  # as TF's reads: a block handle may reach into the footer
    index_handle = footer[second[1]:fourth[1]]
    entries = []
    for _, handle in _block_entries(_read_block(body, index_handle)):
        try:
            entries.extend(_block_entries(_read_block(body, handle)))
        except errors.DataLossError as e:  # TF meets it seeking the header: its wording
            raise _data_loss(_corrupt(what, "failed to seek to header entry") + ": "
                             + e.message) from None
    return entries


def _corrupt(path, detail):
    return (f"Unable to read file ({path}). Perhaps the file is corrupt or was produced by a "
            f"newer version of TensorFlow with format changes ({detail})")


# ---------------------------------------------------------------------------------------------
# tensors <-> bytes


def _np_dtype(dtype):
    np_dtype = dtype._np  # the NumPy dtype behind the DType (None for resource/variant)
    if np_dtype is None:
        raise errors.UnimplementedError(
            None, None, f"Checkpoint tensors of dtype {dtype.name} are not supported")
    return np_dtype


def _as_bytes(s):
    if isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytearray, memoryview, np.bytes_)):
        return bytes(s)
    raise TypeError(f"A string tensor element must be bytes or str, got {type(s).__name__}")


def encode_tensor(array, dtype):
    """(stored bytes, unmasked CRC32C) of one tensor."""
    if dtype.as_datatype_enum == _STRING:
        elems = [_as_bytes(s) for s in np.asarray(array, dtype=object).reshape(-1)]
        lengths = bytearray()
        for e in elems:
            _put_varint(lengths, len(e))
        crc = _protos.crc32c(_length_words([len(e) for e in elems]))
        length_checksum = struct.pack("<I", _mask(crc))
        crc = _protos.crc32c(length_checksum, crc)
        payload = b"".join(elems)
        crc = _protos.crc32c(payload, crc)
        return bytes(lengths) + length_checksum + payload, crc
    raw = np.ascontiguousarray(array, dtype=_np_dtype(dtype).newbyteorder("<")).tobytes()
    return raw, _protos.crc32c(raw)


def _length_words(lengths):
    """The bytes TF checksums for string lengths: each as a uint32 (a uint64 past 2**32-1)."""
    return b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)


def _shape_proto(shape):
    proto = _protos.tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add(size=int(d))
    return proto


def _infer_dtype(value):
    if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
        return dtypes.string
    if isinstance(value, (bytes, str)):
        return dtypes.string
    return dtypes.as_dtype(np.asarray(value).dtype)


def write_bundle(prefix, tensors):
    """Write ``tensors`` (key -> NumPy array or ``(array, DType)``) as a bundle at ``prefix``;
    the data file holds them in the given order.

    The data file and the index are written to temporaries and renamed into place (the data
    file first): a reader sees the old bundle or the complete new one, never a part.
    """
    items = []
    for key in tensors:
        k = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        if not k:
            raise ValueError("The empty key is reserved for the bundle header")
        value = tensors[key]
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dtypes.DType):
            value, dtype = value
        else:
            dtype = _infer_dtype(value)
        items.append((k, np.asarray(value, dtype=object if dtype.as_datatype_enum == _STRING
                                    else _np_dtype(dtype)), dtype))
    seen = set()
    for k, _, _ in items:
        if k in seen:
            raise ValueError(f"Duplicate key in the bundle: {k.decode('utf-8', 'replace')}")
        seen.add(k)
    # the data file keeps the given order (TF's saver writes its tensors in object-graph
    # order), the index is sorted by key
    entries, chunks, offset = [], [], 0
    entry_cls = _protos.BundleEntryProto
    for k, array, dtype in items:
        raw, crc = encode_tensor(array, dtype)
        entry = entry_cls(dtype=dtype.as_datatype_enum, shape=_shape_proto(array.shape),
                          shard_id=0, offset=offset, size=len(raw), crc32c=_mask(crc))
        entries.append((k, entry.SerializeToString()))
        chunks.append(raw)
        offset += len(raw)
    entries.sort(key=lambda e: e[0])
    header = _protos.BundleHeaderProto(num_shards=1, endianness=0)
    header.version.producer = BUNDLE_VERSION
    table = build_table([(b"", header.SerializeToString())] + entries)
    parent = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(parent, exist_ok=True)
    token = uuid.uuid4().hex
    data_path, index_path = data_filename(prefix), index_filename(prefix)
    data_tmp, index_tmp = f"{data_path}.tempstate{token}", f"{index_path}.tempstate{token}"
    try:
        with open(data_tmp, "wb") as f:
            for c in chunks:
                f.write(c)
            f.flush()
            os.fsync(f.fileno())
        with open(index_tmp, "wb") as f:
            f.write(table)
            f.flush()
            os.fsync(f.fileno())
        os.replace(data_tmp, data_path)
        os.replace(index_tmp, index_path)
    finally:
        for tmp in (data_tmp, index_tmp):
            if os.path.exists(tmp):
                os.remove(tmp)
    return prefix


# ---------------------------------------------------------------------------------------------
# the reader


def _key_text(k):
    return k.decode("utf-8", "surrogateescape")


class BundleReader:
    """Reads a bundle written by TF or by ``write_bundle``; every key's entry is checked when
    it is read."""

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        path = index_filename(self.prefix)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            self._no_index()
        entries = read_table(data, path)
        if not entries or entries[0][0] != b"":
            raise _data_loss(_corrupt(path, "failed to seek to header entry"))
        header = _protos.parse(_protos.BundleHeaderProto, entries[0][1],
                               f"the bundle header of {path}")
        self._check_header(header, path)
        self._num_shards = header.num_shards
        self._entries = {}
        for k, v in entries[1:]:
            self._entries[_key_text(k)] = v
        self._keys = sorted(self._entries, key=lambda s: s.encode("utf-8", "surrogateescape"))
        self._parsed = {}

    def _no_index(self):
        """No ``PREFIX.index``: TF then reads ``PREFIX`` itself as an old-format table."""
        p = self.prefix
        tail = "perhaps your file is in a different file format and you need to use a " \
            "different restore operator?"
        if os.path.isdir(p):
            raise _data_loss(f"Unable to open table file {p}: FAILED_PRECONDITION: {p}; Is a "
                             f"directory: {tail}")
        if os.path.isfile(p):
            with open(p, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - FOOTER_SIZE))
                footer = f.read()
            problem = "file is too short to be an sstable" if size < FOOTER_SIZE else \
                "not an sstable (bad magic number)" if struct.unpack_from(
                    "<Q", footer, 40)[0] != TABLE_MAGIC else "only V2 checkpoints are read"
            raise _data_loss(f"Unable to open table file {p}: DATA_LOSS: {problem}: {tail}")
        raise errors.NotFoundError(
            None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
            f"matching files for {p}")

    @staticmethod
    def _check_header(header, path):
        v = header.version
        if v.producer < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint producer version {v.producer} below min producer 0 "
                f"supported by TensorFlow 2.21.0.  Please regenerate your checkpoint.")
        if v.min_consumer > BUNDLE_VERSION:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint min consumer version {v.min_consumer} above current "
                f"version {BUNDLE_VERSION} for TensorFlow 2.21.0.  Please upgrade TensorFlow.")
        if BUNDLE_VERSION in v.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint disallows consumer version {BUNDLE_VERSION}.  Please "
                f"upgrade TensorFlow: this version is likely buggy.")
        if header.endianness != 0:
            raise errors.UnimplementedError(
                None, None, f"{path}: big-endian tensor bundles are not supported")
        if header.num_shards < 1:
            raise _data_loss(f"{path}: invalid number of shards {header.num_shards}")

    def keys(self):
        """Every tensor key, sorted as TF sorts them (bytewise)."""
        return list(self._keys)

    def __contains__(self, key):
        return key in self._entries

    def __iter__(self):
        return iter(self._keys)

    def __len__(self):
        return len(self._keys)

    def entry(self, key):
        """The checked ``BundleEntryProto`` of ``key``."""
        got = self._parsed.get(key)
        if got is not None:
            return got
        raw = self._entries.get(key)
        if raw is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        entry = _protos.parse(_protos.BundleEntryProto, raw, f"the entry for key {key}")
        if len(entry.shape.dim) > _MAX_RANK or entry.shape.unknown_rank or any(
                d.size < 0 for d in entry.shape.dim):
            raise _data_loss(f"Invalid tensor shape: {key} {_short(entry.shape)}")
        n = 1
        for d in entry.shape.dim:
            n *= d.size
        if n > _MAX_ELEMENTS:
            raise _data_loss(f"Invalid tensor shape: {key} {_short(entry.shape)}")
        try:
            dtypes.as_dtype(entry.dtype)
        except TypeError:
            raise _unknown_dtype(entry.dtype, key) from None
        if entry.slices:
            raise errors.UnimplementedError(
                None, None, f"Key {key} is a partitioned (sliced) tensor; only whole tensors "
                f"are read")
        self._parsed[key] = entry
        return entry

    def dtype(self, key):
        return dtypes.as_dtype(self.entry(key).dtype)

    def shape(self, key):
        return tuple(d.size for d in self.entry(key).shape.dim)

    def read(self, key):
        """The tensor stored under ``key`` as a NumPy array (strings: an object array of bytes)."""
        entry = self.entry(key)
        dtype = dtypes.as_dtype(entry.dtype)
        shape = tuple(d.size for d in entry.shape.dim)
        n = int(np.prod(shape, dtype=object)) if shape else 1
        if entry.shard_id < 0 or entry.shard_id >= self._num_shards:
            raise _data_loss(f"Invalid shard {entry.shard_id} in bundle entry: key {key}")
        if dtype.as_datatype_enum == _STRING:
            if entry.size < n:
                raise _data_loss(f"Invalid size in bundle entry: key {key}; stored size "
                                 f"{entry.size}; expected size is at least {n}")
        else:
            expected = n * _np_dtype(dtype).itemsize
            if entry.size != expected:
                raise _data_loss(f"Invalid size in bundle entry: key {key}; stored size "
                                 f"{entry.size}; expected size {expected}")
        raw = self._read_bytes(entry, key)
        if dtype.as_datatype_enum == _STRING:
            value, crc = self._decode_strings(raw, n, key)
            value = value.reshape(shape)
        else:
            crc = _protos.crc32c(raw)
            value = np.frombuffer(raw, dtype=_np_dtype(dtype).newbyteorder("<")).astype(
                _np_dtype(dtype), copy=True).reshape(shape)
        stored = _protos.unmask_crc32c(entry.crc32c)
        if stored != crc:
            raise _data_loss(
                f"TensorBundle at {self.prefix} shard {entry.shard_id} ({entry.size} bytes): "
                f"Checksum does not match: stored {stored:08d} vs. calculated on the restored "
                f"bytes {crc}")
        return value

    def _read_bytes(self, entry, key):
        path = data_filename(self.prefix, entry.shard_id, self._num_shards)
        try:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if entry.offset < 0 or entry.offset + entry.size > size:
                    raise _data_loss(
                        f"Bundle entry for key {key} (offset {entry.offset}, size "
                        f"{entry.size}) runs past the end of {path} ({size} bytes)")
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
        if len(raw) != entry.size:
            raise _data_loss(f"Truncated read of {path} for key {key}")
        return raw

    @staticmethod
    def _decode_strings(raw, n, key):
        lengths, pos = [], 0
        for _ in range(n):
            got = _get_varint(raw, pos, len(raw))
            if got is None:
                raise _data_loss(f"Bad string length in bundle entry: key {key}")
            length, pos = got
            lengths.append(length)
        crc = _protos.crc32c(_length_words(lengths))
        if pos + 4 + sum(lengths) != len(raw):
            raise _data_loss(f"String lengths do not match the stored size of key {key}")
        stored = struct.unpack_from("<I", raw, pos)[0]
        if _protos.unmask_crc32c(stored) != crc:
            raise _data_loss(f"The length checksum does not match: expected "
                             f"{_protos.unmask_crc32c(stored):08d} but actual is {crc:08d}")
        crc = _protos.crc32c(raw[pos:pos + 4], crc)
        pos += 4
        out = np.empty(n, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = raw[pos:pos + length]
            pos += length
        crc = _protos.crc32c(raw[pos - sum(lengths):pos], crc) if n else crc
        return out, crc


def _unknown_dtype(enum, key):
    """A dtype tensortrace lacks: TF's own (bfloat16 without its extra, quantized types) is
    Unimplemented; a number TF does not know is a corrupt entry."""
    if enum == 14:
        return errors.UnimplementedError(
            None, None, f"Key {key} is bfloat16, which needs the optional 'bfloat16' extra: "
            f"pip install 'tensortrace[bfloat16]'")
    names = _protos.types_pb2.DataType
    if enum in names.values() and enum != 0:
        return errors.UnimplementedError(
            None, None, f"Key {key} has dtype {names.Name(enum)}, which tensortrace does not "
            f"support")
    return _data_loss(f"Invalid dtype {enum} for key {key}")


def _short(shape_proto):
    if shape_proto.unknown_rank:
        return "unknown_rank: true"
    return " ".join(f"dim {{ size: {d.size} }}" for d in shape_proto.dim)
