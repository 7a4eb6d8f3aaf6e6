"""Reading back what tf.summary wrote, independently of tensortrace: events through TensorBoard's
own loaders, PNG and WAV files decoded here from their specifications."""

import os
import struct
import zlib

import numpy as np
from tensorboard.backend.event_processing import event_accumulator, event_file_loader
from tensorboard.util import tensor_util


def event_file(folder):
    (name,) = [f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))]
    return os.path.join(folder, name)


def events(folder):
    """The events of the one event file in ``folder``, read by TensorBoard's loader."""
    return list(event_file_loader.EventFileLoader(event_file(folder)).Load())


def accumulator(folder):
    """TensorBoard's EventAccumulator over ``folder``, everything kept."""
    acc = event_accumulator.EventAccumulator(folder, size_guidance={
        event_accumulator.TENSORS: 0, event_accumulator.GRAPH: 1})
    acc.Reload()
    return acc


def tensors(acc, tag):
    """``[(step, ndarray)]`` of a tensor summary."""
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode_png(data):
    """The pixels ``[height, width, channels]`` (uint8) of an 8-bit, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), np.int64)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        prev = out[y - 1] if y else np.zeros(stride, np.int64)
        row = out[y]
        for x in range(stride):
            a = row[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            predictor = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
            row[x] = (line[x] + predictor) % 256
    return out.astype(np.uint8).reshape(height, width, channels)


def decode_wav(data):
    """``(sample_rate, samples [frames, channels] int16)`` of a 16-bit PCM WAV file."""
    assert data[:4] == b"RIFF" and data[8:16] == b"WAVEfmt "
    size, = struct.unpack("<I", data[4:8])
    assert size == len(data) - 8
    fmt, channels, rate, byte_rate, align, bits = struct.unpack("<HHIIHH", data[20:36])
    assert (fmt, bits, align, byte_rate) == (1, 16, 2 * channels, rate * 2 * channels)
    assert data[36:40] == b"data"
    n, = struct.unpack("<I", data[40:44])
    return rate, np.frombuffer(data[44:44 + n], "<i2").reshape(-1, channels)
