"""PNG as TF's libpng-based codec reads and writes it, on NumPy and zlib.

Decoding follows TF's transform setup step for step: palettes and low bit depths expanded,
``tRNS`` made alpha only when alpha is wanted, a filler alpha of ``2**bit_depth - 1`` (the
file's depth, as TF passes it) when there is none, color to gray with libpng's fixed-point
(0.299, 0.587) weights, 16-bit data cut to its high byte for uint8 and 8-bit data times 257 for
uint16. Encoding writes libpng's choices: zlib level 6 by default (``compression=-1``), the
filtered strategy, and the per-row filter with the least sum of absolute differences.
"""

import struct
import zlib

import numpy as np

from ...errors import invalid_argument

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2),
          (1, 0, 2, 1))
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # color type -> samples per pixel
# libpng's png_set_rgb_to_gray(1, 0.299, 0.587): coefficients in 1/32768
_RED, _GREEN = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_BLUE = 32768 - _RED - _GREEN


def _bad(data):
    return invalid_argument(f"Invalid PNG data, size {len(data)}")


def _chunks(data):
    """(type, payload) of each chunk, with libpng's failures as TF's errors: before the first
    IDAT (libpng's png_read_info) a failure is the decoder's initialization failing."""
    pos, out = 8, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        early = not any(k == b"IDAT" for k, _ in out)
        end = pos + 12 + length
        bad_name = not all(65 <= c <= 90 or 97 <= c <= 122 for c in kind)
        if bad_name or end > len(data):
            raise invalid_argument("Invalid PNG. Failed to initialize decoder.") \
                if early and (bad_name or kind != b"IDAT") else _bad(data)
        payload = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[end - 4:end])[0]
        if zlib.crc32(kind + payload) & 0xFFFFFFFF != crc and kind[0] & 0x20 == 0:
            raise invalid_argument("Invalid PNG. Failed to initialize decoder.") \
                if early and kind != b"IDAT" else _bad(data)
        out.append((kind, payload))
        pos = end
        if kind == b"IEND":
            break
    if not out or out[0][0] != b"IHDR" or len(out[0][1]) != 13:
        raise invalid_argument("Invalid PNG. Failed to initialize decoder.")
    return out


def _unfilter(raw, rows, row_bytes, bpp, data):
    """The filtered scanlines of one (sub)image back to bytes, (rows, row_bytes) uint8."""
    stride = row_bytes + 1
    if len(raw) < rows * stride:
        raise _bad(data)
    lines = np.frombuffer(raw, np.uint8, rows * stride).reshape(rows, stride)
    kinds, lines = lines[:, 0], lines[:, 1:].astype(np.int32)
    out = np.zeros((rows, row_bytes), np.int32)
    prev = np.zeros(row_bytes, np.int32)
    for r in range(rows):
        line, kind = lines[r], kinds[r]
        if kind == 0:
            cur = line
        elif kind == 1:  # Sub: a running sum along each byte lane
            cur = _lane_cumsum(line, bpp)
        elif kind == 2:
            cur = (line + prev) & 255
        elif kind == 3:
            cur = _average(line.tolist(), prev.tolist(), bpp)
        elif kind == 4:
            cur = _paeth(line.tolist(), prev.tolist(), bpp)
        else:
            raise _bad(data)
        out[r] = cur
        prev = out[r]
    return out.astype(np.uint8)


def _lane_cumsum(line, bpp):
    n = len(line)
    pad = (-n) % bpp
    lanes = np.concatenate([line, np.zeros(pad, np.int32)]).reshape(-1, bpp)
    return (np.cumsum(lanes, axis=0) & 255).reshape(-1)[:n]


def _average(line, prev, bpp):
    out = list(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prev[i]) >> 1)) & 255
    return np.array(out, np.int32)


def _paeth(line, prev, bpp):
    out = list(line)
    for i in range(min(bpp, len(out))):
        out[i] = (out[i] + prev[i]) & 255
    for i in range(bpp, len(out)):
        a, b, c = out[i - bpp], prev[i], prev[i - bpp]
        pa, pb, pc = b - c, a - c, a + b - c - c  # p - a, p - b, p - c with p = a + b - c
        pa, pb, pc = (pa if pa >= 0 else -pa), (pb if pb >= 0 else -pb), (pc if pc >= 0 else -pc)
        out[i] = (out[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
    return np.array(out, np.int32)


def _samples(rows, width, depth, spp):
    """Unfiltered bytes as (rows, width, spp) samples (uint8 or uint16)."""
    if depth == 16:
        return rows.view(">u2").reshape(len(rows), -1)[:, :width * spp].astype(
            np.uint16).reshape(len(rows), width, spp)
    if depth == 8:
        return rows[:, :width * spp].reshape(len(rows), width, spp)
    bits = np.unpackbits(rows, axis=1).reshape(len(rows), -1, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    values = (bits * weights).sum(axis=2).astype(np.uint8)
    return values[:, :width * spp].reshape(len(rows), width, spp)


def _pixels(ihdr, raw, data):
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", ihdr)
    spp = _SAMPLES[color]
    bpp = max(1, spp * depth // 8)

    def rows_of(w):
        return (w * spp * depth + 7) // 8

    if not interlace:
        return _samples(_unfilter(raw, height, rows_of(width), bpp, data), width, depth, spp)
    out = np.zeros((height, width, spp), np.uint16 if depth == 16 else np.uint8)
    pos = 0
    for y0, x0, dy, dx in _ADAM7:
        h, w = len(range(y0, height, dy)), len(range(x0, width, dx))
        if h == 0 or w == 0:
            continue
        size = h * (rows_of(w) + 1)
        sub = _unfilter(raw[pos:pos + size], h, rows_of(w), bpp, data)
        out[y0::dy, x0::dx] = _samples(sub, w, depth, spp)
        pos += size
    return out


def decode(data, channels, want16):
    """``data`` (PNG bytes) as a (height, width, channels) uint8 (uint16 when ``want16``)."""
    chunks = _chunks(data)
    ihdr = chunks[0][1]
    width, height, depth, color, comp, filt, interlace = struct.unpack(">IIBBBBB", ihdr)
    if color not in _SAMPLES or width == 0 or height == 0 or comp or filt or interlace > 1:
        raise invalid_argument("Invalid PNG. Failed to initialize decoder.")
    found = dict(chunks)
    try:
        raw = zlib.decompress(b"".join(p for k, p in chunks if k == b"IDAT"))
    except zlib.error:
        raise _bad(data) from None
    px = _pixels(ihdr, raw, data)
    trns = found.get(b"tRNS")
    has_alpha = bool(color & 4)
    if channels == 0:
        channels = (4 if trns is not None else 3) if color == 3 else _SAMPLES[color]
    # expansion: palette to RGB, gray of 1/2/4 bits to 8 (libpng scales them up)
    alpha = None
    if color == 3:
        palette = np.frombuffer(found.get(b"PLTE", b""), np.uint8).reshape(-1, 3)
        index = px[..., 0]
        if index.size and index.max() >= len(palette):
            palette = np.concatenate([palette, np.zeros((256 - len(palette), 3), np.uint8)])
        rgb = palette[index]
        if trns is not None:
            table = np.full(256, 255, np.uint8)
            table[:len(trns)] = np.frombuffer(trns, np.uint8)
            alpha = table[index][..., None]
        px, depth_out = rgb, 8
    else:
        depth_out = max(depth, 8)
        if has_alpha:
            px, alpha = px[..., :-1], px[..., -1:]
        elif trns is not None:
            key = np.frombuffer(trns, ">u2").astype(np.uint16)
            alpha = np.where((px == key[:px.shape[-1]]).all(-1, keepdims=True),
                             0, (1 << depth_out) - 1).astype(px.dtype)
        if depth < 8:
            px = (px.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)
    want_alpha = channels % 2 == 0
    if channels < 3:
        if px.shape[-1] == 3:
            px = _to_gray(px, depth_out)
    elif px.shape[-1] == 1:
        px = np.repeat(px, 3, axis=-1)
    if depth_out == 16 and not want16:
        px = (px >> 8).astype(np.uint8)
        alpha = None if alpha is None else (alpha >> 8).astype(np.uint8)
    if want_alpha:
        if alpha is None:
            filler = (1 << depth) - 1
            alpha = np.full(px.shape[:-1] + (1,), filler & (0xFFFF if px.dtype == np.uint16
                                                            else 0xFF), px.dtype)
        px = np.concatenate([px, alpha.astype(px.dtype)], axis=-1)
    if want16 and px.dtype == np.uint8:
        px = px.astype(np.uint16) * np.uint16(257)
    return np.ascontiguousarray(px)


def _to_gray(rgb, depth):
    v = rgb.astype(np.int64)
    r, g, b = v[..., 0], v[..., 1], v[..., 2]
    mixed = _RED * r + _GREEN * g + _BLUE * b
    gray = (mixed + 16384) >> 15 if depth == 16 else mixed >> 15
    same = (r == g) & (r == b)  # libpng keeps exact grays as they are
    return np.where(same, r, gray)[..., None].astype(rgb.dtype)


def shape_of(data):
    """(height, width, channels in the file) of PNG bytes, for TF's channels=0."""
    ihdr = _chunks(data)[0][1]
    width, height, _, color = struct.unpack(">IIBB", ihdr[:10])
    return height, width, _SAMPLES.get(color, 0)


# --- encoding ------------------------------------------------------------------------------------
def _chunk(kind, payload):
    return (struct.pack(">I", len(payload)) + kind + payload +
            struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def _filtered(lines, bpp):
    """Each row filtered as libpng's default heuristic picks: the filter whose output, read as
    signed bytes, has the least sum of magnitudes (ties go to the lower filter type)."""
    x = lines.astype(np.int32)
    up = np.vstack([np.zeros((1, x.shape[1]), np.int32), x[:-1]])
    left = np.hstack([np.zeros((x.shape[0], bpp), np.int32), x[:, :-bpp]])
    up_left = np.hstack([np.zeros((x.shape[0], bpp), np.int32), up[:, :-bpp]])
    p = left + up - up_left
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - up_left)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
    candidates = np.stack([x, x - left, x - up, x - ((left + up) >> 1), x - paeth]) & 255
    signed = np.where(candidates > 127, 256 - candidates, candidates).sum(axis=2)
    best = np.argmin(signed, axis=0)
    rows = candidates[best, np.arange(x.shape[0])]
    return np.hstack([best[:, None], rows]).astype(np.uint8)


def encode(image, compression):
    """PNG bytes of a (height, width, channels) uint8 or uint16 array."""
    h, w, c = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    lines = (image.astype(">u2") if depth == 16 else image).reshape(h, -1).view(np.uint8)
    lines = lines.reshape(h, -1)
    bpp = c * depth // 8
    level = 6 if compression < 0 else compression
    if lines.size:
        body = _filtered(lines, bpp).tobytes()
    else:
        body = b"\0" * h
    # libpng shrinks the window to the data (a window of 256 bytes is zlib's 512 with the
    # header saying 256)
    bits = 15 if len(body) > 16384 else min(max(8, (len(body) - 1).bit_length()), 15)
    packer = zlib.compressobj(level, zlib.DEFLATED, max(bits, 9), 8, zlib.Z_FILTERED)
    idat = packer.compress(body) + packer.flush()
    cmf = ((bits - 8) << 4) | 8
    flg = idat[1] & 0xE0
    flg |= 31 - (cmf * 256 + flg) % 31 if (cmf * 256 + flg) % 31 else 0
    idat = bytes([cmf, flg]) + idat[2:]
    return (SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))
