"""TFRecord files: ``tf.io.TFRecordWriter`` and ``tf.io.TFRecordOptions``, TF's framing (length,
masked CRC32C of the length, data, masked CRC32C of the data; GZIP or ZLIB compressed) and the
reader ``tf.data.TFRecordDataset`` iterates with, checking every CRC as TF does."""

import gzip
import os
import struct
import zlib

from .. import _protos
from .._export import tf_export
from .._logging import logger
from ..errors import DataLossError, NotFoundError

_HEADER = struct.Struct("<Q")
_CRC = struct.Struct("<I")
COMPRESSIONS = ("", "ZLIB", "GZIP")


def compression_name(options):
    """TF's compression name (``""``, ``"ZLIB"``, ``"GZIP"``) of options (TFRecordOptions, a
    name or None); anything else is TF's ValueError."""
    if not options:
        return ""
    if isinstance(options, TFRecordOptions):
        return compression_name(options.compression_type)
    if options in COMPRESSIONS:
        return options
    raise ValueError(f'Not a valid compression_type: "{options}"')


def reader_compression(compression_type):
    """A dataset's ``compression_type``: TF's reader logs an unknown one and reads the files
    uncompressed."""
    name = "" if compression_type is None else str(compression_type)
    if name not in COMPRESSIONS:
        logger.error(f"Unsupported compression_type:{name}. No compression will be used.")
        return ""
    return name


def frame(record):
    """One record in TF's framing."""
    header = _HEADER.pack(len(record))
    return (header + _CRC.pack(_protos.masked_crc32c(header)) + record +
            _CRC.pack(_protos.masked_crc32c(record)))


def read_records(path, compression_type=""):
    """The records of the file at ``path`` (bytes), CRCs checked (TF's DataLossError)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression_type == "GZIP":
        data = gzip.decompress(data)
    elif compression_type == "ZLIB":
        data = zlib.decompress(data)
    pos = 0
    while pos < len(data):
        if pos + 12 > len(data):
            return  # TF's reader ends quietly at a partial header
        header = data[pos:pos + 8]
        if _CRC.unpack_from(data, pos + 8)[0] != _protos.masked_crc32c(header):
            hint = " (Is this even a TFRecord file?)" if pos == 0 else ""
            raise DataLossError(None, None, f"corrupted record at {pos}{hint}")
        length = _HEADER.unpack(header)[0]
        start = pos + 12
        if start + length + 4 > len(data):
            raise DataLossError(None, None, f"truncated record at {pos}' failed with Read less "
                                "bytes than requested")
        record = data[start:start + length]
        if _CRC.unpack_from(data, start + length)[0] != _protos.masked_crc32c(record):
            raise DataLossError(None, None, f"corrupted record at {start}")
        yield record
        pos = start + length + 4


@tf_export("io.TFRecordOptions")
class TFRecordOptions:
    """Options of a TFRecord file: its compression (``"ZLIB"``, ``"GZIP"`` or ``""``) and the
    zlib settings TF accepts (the level is used; the others are buffer tuning)."""

    compression_type_map = {"ZLIB": "ZLIB", "GZIP": "GZIP", "": ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        compression_name(compression_type)  # checked; kept as given (TF's compatibility)
        self.compression_type = compression_type
        self.flush_mode, self.input_buffer_size = flush_mode, input_buffer_size
        self.output_buffer_size, self.window_bits = output_buffer_size, window_bits
        self.compression_level, self.compression_method = compression_level, compression_method
        self.mem_level, self.compression_strategy = mem_level, compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """The compression name of ``options`` (TFRecordOptions, a name or None)."""
        return compression_name(options)


@tf_export("io.TFRecordWriter")
class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file at ``path``; a context manager.

        with tf.io.TFRecordWriter(path) as writer:
            writer.write(example.SerializeToString())
    """

    def __init__(self, path, options=None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(options)
        self._path = os.fspath(path)
        self._options = options
        self._compression = compression_name(options)
        level = options.compression_level
        try:
            raw = open(self._path, "wb")
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{self._path}; No such file or directory") from None
        if self._compression == "GZIP":
            self._file = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                       compresslevel=6 if level in (None, -1) else level)
            self._raw = raw
        elif self._compression == "ZLIB":
            self._zlib = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION if level is None else level)
            self._file, self._raw = raw, raw
        else:
            self._file, self._raw = raw, raw
        self._closed = False

    def write(self, record):
        """Append one record (bytes or str)."""
        if self._closed:
            raise ValueError("Writer is closed.")
        data = frame(record.encode("utf-8") if isinstance(record, str) else bytes(record))
        if self._compression == "ZLIB":
            data = self._zlib.compress(data)
        self._file.write(data)

    def flush(self):
        """Write what is buffered to the file."""
        if not self._closed:
            self._file.flush()

    def close(self):
        """Finish the file (compressed streams get their trailer)."""
        if self._closed:
            return
        self._closed = True
        if self._compression == "ZLIB":
            self._file.write(self._zlib.flush())
        self._file.close()
        if self._raw is not self._file:
            self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
