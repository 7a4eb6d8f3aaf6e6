"""GIF and BMP as TF's decoders read them, on NumPy.

GIF: every frame is painted over a copy of the previous one (disposal methods are ignored, as in
TF), a first frame smaller than the screen starts from black, and a frame's transparent index
keeps what is under it. BMP: the pixel array as stored (BGR(A) to RGB(A); 8-bit files give their
palette indices), then channels added or dropped.
"""

import struct

import numpy as np

from ...errors import invalid_argument


# --- GIF -----------------------------------------------------------------------------------------
class _GifError(Exception):
    pass


def _lzw(data, min_size, count):
    """``count`` color indices from GIF's variable-width LZW codes."""
    if not 1 <= min_size <= 11:
        raise _GifError("Image is defective, decoding aborted")
    clear, end = 1 << min_size, (1 << min_size) + 1
    table = [bytes([i]) for i in range(clear)] + [b"", b""]
    size, out, prev = min_size + 1, bytearray(), None
    bits = int.from_bytes(data, "little")
    pos, total = 0, len(data) * 8
    while len(out) < count:
        if pos + size > total:
            raise _GifError("Image is defective, decoding aborted")
        code = (bits >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            table, size, prev = table[:clear + 2], min_size + 1, None
            continue
        if code == end:
            break
        if code < len(table):
            entry = table[code]
            if prev is not None:
                table.append(prev + entry[:1])
        elif code == len(table) and prev is not None:
            entry = prev + prev[:1]
            table.append(entry)
        else:
            raise _GifError("Image is defective, decoding aborted")
        out += entry
        prev = entry
        if len(table) == (1 << size) and size < 12:
            size += 1
    if len(out) < count:
        raise _GifError("Image is defective, decoding aborted")
    return np.frombuffer(bytes(out[:count]), np.uint8)


def _sub_blocks(data, pos):
    out = bytearray()
    while True:
        if pos >= len(data):
            raise _GifError("Failed to read from given file")
        n = data[pos]
        pos += 1
        if n == 0:
            return bytes(out), pos
        out += data[pos:pos + n]
        pos += n


def _color_table(data, pos, flags):
    if not flags & 0x80:
        return None, pos
    n = 3 << ((flags & 7) + 1)
    if pos + n > len(data):
        raise _GifError("Failed to read from given file")
    return np.frombuffer(data[pos:pos + n], np.uint8).reshape(-1, 3), pos + n


def _deinterlace(rows):
    h = len(rows)
    order = [r for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for r in range(start, h, step)]
    out = np.empty_like(rows)
    out[order] = rows
    return out


def decode_gif(data):
    """All frames of a GIF as (frames, height, width, 3) uint8."""
    if len(data) < 13 or data[:6] not in (b"GIF87a", b"GIF89a"):
        raise invalid_argument(f"Invalid GIF data (size {len(data)}), failed to open gif file: "
                               "Data is not in GIF format" if len(data) >= 6 and
                               not data.startswith(b"GIF") else
                               f"Invalid GIF data (size {len(data)}), failed to open gif file: "
                               "No screen descriptor detected")
    width, height, flags = struct.unpack("<HHB", data[6:11])
    try:
        screen_map, pos = _color_table(data, 13, flags)
    except _GifError:
        raise invalid_argument(f"Invalid GIF data (size {len(data)}), failed to open gif file: "
                               "No screen descriptor detected") from None
    frames, transparent = [], -1
    try:
        while True:
            if pos >= len(data):
                raise _GifError("Failed to read from given file")
            tag = data[pos]
            if tag == 0x3B:
                break
            if tag == 0x21:
                label = data[pos + 1]
                block, pos = _sub_blocks(data, pos + 2)
                if label == 0xF9 and len(block) >= 4:
                    transparent = block[3] if block[0] & 1 else -1
                continue
            if tag != 0x2C:
                raise _GifError("Wrong record type detected")
            left, top, w, h, iflags = struct.unpack("<HHHHB", data[pos + 1:pos + 10])
            local_map, pos = _color_table(data, pos + 10, iflags)
            min_size = data[pos]
            codes, pos = _sub_blocks(data, pos + 1)
            raster = _lzw(codes, min_size, w * h).reshape(h, w)
            if iflags & 0x40:
                raster = _deinterlace(raster)
            frames.append((left, top, w, h, raster, local_map, transparent))
            transparent = -1
    except _GifError as e:
        raise invalid_argument(f"Invalid GIF data (size {len(data)}), failed to slurp gif "
                               f"file: {e}") from None
    if not frames:
        raise invalid_argument("Got zero frames from the GIF")  # nothing painted
    out = np.zeros((len(frames), height, width, 3), np.uint8)
    for k, (left, top, w, h, raster, local_map, transparent) in enumerate(frames):
        if k:
            out[k] = out[k - 1]
        cmap = local_map if local_map is not None else screen_map
        if cmap is None:
            raise invalid_argument("missing color map")
        y1, x1 = min(top + h, height), min(left + w, width)
        if y1 <= top or x1 <= left:
            continue
        index = raster[:y1 - top, :x1 - left]
        keep = index == transparent
        painted = index[~keep]
        if painted.size and painted.max() >= len(cmap):
            raise invalid_argument(f"found color index {int(painted.max())} outside of color "
                                   f"map range {len(cmap)}")
        region = out[k, top:y1, left:x1]
        region[~keep] = cmap[painted]
    return out


# --- BMP -----------------------------------------------------------------------------------------
def decode_bmp(data, channels):
    """A BMP's pixels as (height, width, channels) uint8, channels 0 (the file's), 3 or 4."""
    if channels == 1:
        raise invalid_argument(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    if len(data) < 32:
        raise invalid_argument("Incomplete bmp content, requires at least 32 bytes to find the "
                               f"header size, width, height, and bpp, got {len(data)} bytes")
    offset, = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<h", data[28:30])
    native = bpp // 8
    if native not in (1, 3, 4):
        raise invalid_argument("Number of channels inherited from bpp field must be 1, 3 or 4, "
                               f"was {native}")
    if width <= 0:
        raise invalid_argument("Width must be positive")
    if height == 0:
        raise invalid_argument("Height must be nonzero")
    if offset < 0:
        raise invalid_argument("header size must be nonnegative")
    rows = abs(height)
    if width * rows >= (2 ** 31 - 1) // 8:
        raise invalid_argument("Total possible pixel bytes must be less than 2^30")
    row_size = (native * width + 3) // 4 * 4
    needed = offset + (rows - 1) * row_size + (width - 1) * native + native
    if needed > len(data):
        raise invalid_argument(f"Incomplete bmp content, requires at least {needed} bytes, got "
                               f"{len(data)} bytes")
    flat = np.frombuffer(data, np.uint8, count=len(data) - offset, offset=offset)
    padded = np.zeros(rows * row_size, np.uint8)
    padded[:min(flat.size, padded.size)] = flat[:padded.size]
    px = padded.reshape(rows, row_size)[:, :width * native].reshape(rows, width, native)
    if height > 0:  # bottom-up rows
        px = px[::-1]
    if native >= 3:
        px = np.concatenate([px[..., 2::-1], px[..., 3:]], axis=-1)
    want = channels or native
    if native == 1 and want > 1:
        px = np.repeat(px, 3, axis=-1)
    if want == 4 and px.shape[-1] == 3:
        px = np.concatenate([px, np.full(px.shape[:-1] + (1,), 255, np.uint8)], axis=-1)
    return np.ascontiguousarray(px[..., :want])
