"""Image codecs: ``tf.io.decode_*``/``encode_*`` (and their ``tf.image`` names), ``decode_image``,
``is_jpeg``, ``extract_jpeg_shape``, ``decode_and_crop_jpeg``, ``adjust_jpeg_quality``.

PNG, GIF and BMP are read and written here on NumPy and zlib. JPEG needs libjpeg-turbo, from the
``images`` extra: simplejpeg decodes (it exposes libjpeg's fast integer DCT, TF's default, which
Pillow cannot select) and Pillow encodes (its options give TF's bytes). As in TF, every decode
op sniffs the format, so ``decode_jpeg`` reads a PNG too.
"""

import importlib
import io

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_fn_error, shape_text
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._base import check_out_type, dtypes_named
from ..math.compare import equal
from ..strings._common import infer_strings, strings, text
from ..strings.elementwise import substr
from . import gif_bmp, png
from .color import convert_image_dtype

_PNG_T = dtypes_named("uint8 uint16")
_IMAGE_T = dtypes_named("uint8 uint16 float32")
_UNKNOWN = ("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.")
_UNCOMPRESS = "jpeg::Uncompress failed. Invalid JPEG data or crop window."
_DCT = {"": True, "INTEGER_FAST": True, "INTEGER_ACCURATE": False}


def _extra(module):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"JPEG images need {module!r}: pip install 'tensortrace[images]'") \
            from None


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == png.SIGNATURE:
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


def _scalar(contents, op):
    a = np.asarray(contents)
    if a.ndim != 0:
        raise invalid_argument(f"`contents` must be scalar but got shape{list(a.shape)}"
                               .replace("shape[", "shape[").replace(", ", ","), op)
    data = a.item()
    if not data:
        raise invalid_argument("Input is empty.")
    return data


# --- JPEG ----------------------------------------------------------------------------------------
def _jpeg_decode(data, channels, ratio, fancy, dct, try_recover, crop=None):
    sj = _extra("simplejpeg")
    try:
        height, width, space, _ = sj.decode_jpeg_header(data)
    except ValueError:
        raise invalid_argument(_UNCOMPRESS) from None
    if channels == 0:
        channels = 1 if space == "Gray" else (4 if space == "CMYK" else 3)
    kw = dict(fastdct=_DCT[dct], fastupsample=not fancy, min_factor=1,
              min_height=-(-height // ratio), min_width=-(-width // ratio))
    try:
        if space == "CMYK":
            px = sj.decode_jpeg(data, colorspace="CMYK", strict=not try_recover, **kw)
        else:
            px = sj.decode_jpeg(data, colorspace="GRAY" if channels == 1 else "RGB",
                                strict=not try_recover, **kw)
    except ValueError:
        raise invalid_argument(_UNCOMPRESS) from None
    if crop is not None:
        y, x, h, w = crop
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > px.shape[0] or x + w > px.shape[1]:
            raise invalid_argument(_UNCOMPRESS)
        px = px[y:y + h, x:x + w]
    return np.ascontiguousarray(px)


def _jpeg_attrs(channels, ratio, dct):
    if channels not in (0, 1, 3, 4):
        raise invalid_argument(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    if ratio not in (1, 2, 4, 8):
        raise invalid_argument(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    if dct not in _DCT:
        raise invalid_argument("dct_method must be one of {'', 'INTEGER_FAST', "
                               "'INTEGER_ACCURATE'}")


# --- one decoder for every op (TF's DecodeImageV2 kernel) ---------------------------------------
def _decode(data, op, channels=0, dtype=D.uint8, expand_animations=True, ratio=1, fancy=True,
            dct="", try_recover=False):
    kind = _format(data)
    if kind is None:
        raise invalid_argument(_UNKNOWN)
    if kind == "jpeg":
        if channels == 4 and op == "DecodeImage":
            raise invalid_argument("JPEG does not support 4 channels")
        px = _jpeg_decode(data, channels, ratio, fancy, dct, try_recover)
    elif kind == "png":
        if channels not in (0, 1, 3, 4):
            raise invalid_argument(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
        px = png.decode(data, channels, dtype != D.uint8)
    elif kind == "gif":
        if channels not in (0, 3):
            raise invalid_argument(f"channels must be 0 or 3 for GIF, got {channels}")
        px = gif_bmp.decode_gif(data)
        if not (op == "DecodeGif" or op == "DecodeImage" and expand_animations):
            px = px[0]
    else:
        px = gif_bmp.decode_bmp(data, channels)
    if kind == "png" and dtype == D.float32:  # PNGs decode at 16 bits for floats
        px = png.decode(data, channels, True)
    if dtype == D.uint16 and px.dtype == np.uint8:  # PNG's 8 -> 16 bits is libpng's * 257
        px = px.astype(np.uint16) << np.uint16(8)
    elif dtype == D.float32:
        top = np.float32(65535 if px.dtype == np.uint16 else 255)
        px = px.astype(np.float32) * (np.float32(1) / top)
    return px


def _infer_image(op, contents, dims, dtype=D.uint8):
    infer_strings(op, (contents, "contents"))
    if contents.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {contents.shape.rank} for "
                         f"'{{{{node {op}}}}}' = {op}[]")
    return TensorSpec(TensorShape(dims), dtype)


@define_op("DecodePng")
class DecodePng:
    """A PNG (or any supported format) as a [height, width, channels] uint8/uint16 image."""

    check = DtypeCheck("DecodePng", same=1, fixed=D.string)

    def infer(contents, *, channels=0, dtype=D.uint8):
        check_out_type("DecodePng", dtype, _PNG_T, "dtype")
        return _infer_image("DecodePng", contents, [None, None, channels or None], dtype)

    def kernel(contents, *, channels=0, dtype=D.uint8):
        return _decode(_scalar(contents, "DecodePng"), "DecodePng", channels, dtype)


@define_op("DecodeJpeg")
class DecodeJpeg:
    """A JPEG (or any supported format) as a [height, width, channels] uint8 image."""

    check = DtypeCheck("DecodeJpeg", same=1, fixed=D.string)

    def infer(contents, *, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
              acceptable_fraction=1.0, dct_method=""):
        return _infer_image("DecodeJpeg", contents, [None, None, channels or None])

    def kernel(contents, *, channels=0, ratio=1, fancy_upscaling=True,
               try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
        _jpeg_attrs(channels, ratio, dct_method)
        return _decode(_scalar(contents, "DecodeJpeg"), "DecodeJpeg", channels, D.uint8,
                       ratio=ratio, fancy=fancy_upscaling, dct=dct_method,
                       try_recover=try_recover_truncated)


@define_op("DecodeAndCropJpeg")
class DecodeAndCropJpeg:
    """The ``crop_window`` [y, x, height, width] of a decoded JPEG."""

    check = DtypeCheck("DecodeAndCropJpeg", same=1, fixed={0: D.string, 1: D.int32})

    def infer(contents, crop_window, *, channels=0, ratio=1, fancy_upscaling=True,
              try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
        window = static_value(crop_window)
        hw = [None, None] if window is None else [int(window[2]), int(window[3])]
        return _infer_image("DecodeAndCropJpeg", contents, hw + [channels or None])

    def kernel(contents, crop_window, *, channels=0, ratio=1, fancy_upscaling=True,
               try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
        _jpeg_attrs(channels, ratio, dct_method)
        data = _scalar(contents, "DecodeAndCropJpeg")
        if _format(data) != "jpeg":
            raise invalid_argument(_UNKNOWN if _format(data) is None else _UNCOMPRESS)
        window = [int(v) for v in np.asarray(crop_window).ravel()]
        if len(window) != 4:
            raise invalid_argument(f"crop_window must have four elements {len(window)}")
        return _jpeg_decode(data, channels, ratio, fancy_upscaling, dct_method,
                            try_recover_truncated, crop=window)


@define_op("DecodeGif")
class DecodeGif:
    """Every frame of a GIF as a [frames, height, width, 3] uint8 tensor."""

    check = DtypeCheck("DecodeGif", same=1, fixed=D.string)

    def infer(contents):
        return _infer_image("DecodeGif", contents, [None, None, None, 3])

    def kernel(contents):
        return _decode(_scalar(contents, "DecodeGif"), "DecodeGif")


@define_op("DecodeBmp")
class DecodeBmp:
    """A BMP as a [height, width, channels] uint8 image."""

    check = DtypeCheck("DecodeBmp", same=1, fixed=D.string)

    def infer(contents, *, channels=0):
        return _infer_image("DecodeBmp", contents, [None, None, None])

    def kernel(contents, *, channels=0):
        return _decode(_scalar(contents, "DecodeBmp"), "DecodeBmp", channels)


@define_op("DecodeImage")
class DecodeImage:
    """Any supported image; GIFs as 4-D frames when ``expand_animations``."""

    check = DtypeCheck("DecodeImage", same=1, fixed=D.string)

    def infer(contents, *, channels=0, dtype=D.uint8, expand_animations=True):
        check_out_type("DecodeImage", dtype, _IMAGE_T, "dtype")
        spec = _infer_image("DecodeImage", contents, [None, None, channels or None], dtype)
        return TensorSpec(TensorShape(None), dtype) if expand_animations else spec

    def kernel(contents, *, channels=0, dtype=D.uint8, expand_animations=True):
        return _decode(_scalar(contents, "DecodeImage"), "DecodeImage", channels, dtype,
                       expand_animations)


@define_op("ExtractJpegShape")
class ExtractJpegShape:
    """[height, width, channels] of a JPEG, read from its header."""

    check = DtypeCheck("ExtractJpegShape", same=1, fixed=D.string)

    def infer(contents, *, output_type=D.int32):
        check_out_type("ExtractJpegShape", output_type, dtypes_named("int32 int64"),
                       "output_type")
        return _infer_image("ExtractJpegShape", contents, [3], output_type)

    def kernel(contents, *, output_type=D.int32):
        data = np.asarray(contents).item()
        try:
            if _format(data) != "jpeg":
                raise ValueError
            h, w, space, _ = _extra("simplejpeg").decode_jpeg_header(data)
        except ValueError:
            raise invalid_argument(f"Invalid JPEG data, size {len(data)}") from None
        c = 1 if space == "Gray" else (4 if space == "CMYK" else 3)
        return np.array([h, w, c], output_type.as_numpy_dtype)


# --- encoders ------------------------------------------------------------------------------------
@define_op("EncodePng")
class EncodePng:
    """PNG-encode images ``[..., height, width, channels]`` (uint8 or uint16): one string per
    image, TF's libpng bytes."""

    check = DtypeCheck("EncodePng", _PNG_T, 1)

    def infer(image, *, compression=-1):
        if image.shape.rank is not None and image.shape.rank < 3:
            raise shape_fn_error("EncodePng", f"Shape must be at least rank 3 but is rank "
                                 f"{image.shape.rank}", image.dtype,
                                 {"compression": compression}, [image], ["image"])
        check_out_type("EncodePng", image.dtype, _PNG_T, "image")
        return TensorSpec(image.shape[:-3], D.string)

    def kernel(image, *, compression=-1):
        a = np.asarray(image)
        if a.ndim < 3:
            raise invalid_argument(f"images must be at least rank 3{shape_text(a.shape)}")
        if not -1 <= compression <= 9:
            raise invalid_argument(f"compression should be in [-1,9], got {compression}")
        if a.shape[-1] not in (1, 2, 3, 4):
            raise invalid_argument(f"image must have 1, 2, 3, or 4 channels, got {a.shape[-1]}")
        if a.shape[-3] == 0 or a.shape[-2] == 0:
            raise invalid_argument("image must have positive height and width, got shape "
                                   f"{shape_text(a.shape)}")
        batch = a.reshape((-1,) + a.shape[-3:])
        out = np.empty(len(batch), dtype=object)
        for i, one in enumerate(batch):
            out[i] = png.encode(one, compression)
        return out.reshape(a.shape[:-3])


_ENCODE_ATTRS = dict(format="", quality=95, progressive=False, optimize_size=False,
                     chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                     xmp_metadata="")


def _jpeg_encode(a, quality, attrs):
    fmt = attrs["format"]
    channels = a.shape[2] if a.ndim == 3 else 0
    if a.ndim != 3:
        raise invalid_argument(f"image must be 3-dimensional{list(a.shape)}".replace(", ", ","))
    if fmt == "" and channels not in (1, 3):
        raise invalid_argument(f"image must have 1 or 3 channels, got {_shape(a)}")
    if fmt and channels != {"grayscale": 1, "rgb": 3}[fmt]:
        raise invalid_argument(f"format {fmt} expects {1 if fmt == 'grayscale' else 3} "
                               f"channels, got {_shape(a)}")
    if not 0 <= quality <= 100:
        raise invalid_argument(f"quality must be in [0,100], got {quality}")
    image = _extra("PIL.Image")
    buf = io.BytesIO()
    pic = image.fromarray(a[..., 0] if channels == 1 else a, "L" if channels == 1 else "RGB")
    subsampling = 2 if attrs["chroma_downsampling"] and channels == 3 else 0
    kw = dict(quality=int(quality), progressive=bool(attrs["progressive"]),
              optimize=bool(attrs["optimize_size"]), subsampling=subsampling,
              dpi=(attrs["x_density"], attrs["y_density"]))
    if attrs["xmp_metadata"]:
        kw["xmp"] = attrs["xmp_metadata"].encode()
    pic.save(buf, format="JPEG", **kw)
    out = bytearray(buf.getvalue())
    if attrs["density_unit"] == "cm" and out[6:11] == b"JFIF\0":
        out[13] = 2  # TF's JFIF density unit; Pillow always writes inches
    return bytes(out)


def _shape(a):
    return "[" + ",".join(str(d) for d in a.shape) + "]"


@define_op("EncodeJpeg")
class EncodeJpeg:
    """A [height, width, 1 or 3] uint8 image as JPEG bytes (TF's libjpeg-turbo bytes)."""

    check = DtypeCheck("EncodeJpeg", same=1, fixed=D.uint8)

    def infer(image, **attrs):
        return TensorSpec(TensorShape([]), D.string)

    def kernel(image, **attrs):
        attrs = {**_ENCODE_ATTRS, **attrs}
        return np.array(_jpeg_encode(np.asarray(image), attrs["quality"], attrs), object)


@define_op("EncodeJpegVariableQuality")
class EncodeJpegVariableQuality:
    """EncodeJpeg with the quality as an int32 tensor."""

    check = DtypeCheck("EncodeJpegVariableQuality", same=1, fixed={0: D.uint8, 1: D.int32})

    def infer(images, quality):
        return TensorSpec(TensorShape([]), D.string)

    def kernel(images, quality):
        return np.array(_jpeg_encode(np.asarray(images), int(np.asarray(quality)),
                                     _ENCODE_ATTRS), object)


# --- public functions ----------------------------------------------------------------------------
@tf_export("io.decode_png", "image.decode_png")
def decode_png(contents, channels=0, dtype=D.uint8, name=None):
    """PNG bytes as a [height, width, channels] uint8 (or uint16) image."""
    return bind(DecodePng, strings(contents), channels=int(channels), dtype=D.as_dtype(dtype))


@tf_export("io.decode_jpeg", "image.decode_jpeg")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """JPEG bytes as a [height, width, channels] uint8 image (TF's libjpeg-turbo pixels)."""
    return bind(DecodeJpeg, strings(contents), channels=int(channels), ratio=int(ratio),
                fancy_upscaling=bool(fancy_upscaling),
                try_recover_truncated=bool(try_recover_truncated),
                acceptable_fraction=float(acceptable_fraction), dct_method=text(dct_method))


@tf_export("io.decode_and_crop_jpeg", "image.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """The ``crop_window`` [y, x, height, width] of a JPEG, decoded."""
    window = crop_window if isinstance(crop_window, Tensor) else \
        convert_to_tensor(crop_window, D.int32)
    return bind(DecodeAndCropJpeg, strings(contents), window, channels=int(channels),
                ratio=int(ratio), fancy_upscaling=bool(fancy_upscaling),
                try_recover_truncated=bool(try_recover_truncated),
                acceptable_fraction=float(acceptable_fraction), dct_method=text(dct_method))


@tf_export("io.decode_gif", "image.decode_gif")
def decode_gif(contents, name=None):
    """A GIF's frames as a [frames, height, width, 3] uint8 tensor."""
    return bind(DecodeGif, strings(contents))


@tf_export("io.decode_bmp", "image.decode_bmp")
def decode_bmp(contents, channels=0, name=None):
    """A BMP as a [height, width, channels] uint8 image."""
    return bind(DecodeBmp, strings(contents), channels=int(channels))


@tf_export("io.decode_image", "image.decode_image")
def decode_image(contents, channels=None, dtype=D.uint8, name=None, expand_animations=True):
    """Any of JPEG, PNG, GIF, BMP by its first bytes; other dtypes than uint8, uint16 and
    float32 come from uint16 through ``convert_image_dtype`` (as TF)."""
    dtype = D.as_dtype(dtype)
    channels = 0 if channels is None else int(channels)
    wanted = dtype if dtype in _IMAGE_T else D.uint16
    out = bind(DecodeImage, strings(contents), channels=channels, dtype=wanted,
               expand_animations=bool(expand_animations))
    return out if wanted == dtype else convert_image_dtype(out, dtype)


@tf_export("io.extract_jpeg_shape", "image.extract_jpeg_shape")
def extract_jpeg_shape(contents, output_type=D.int32, name=None):
    """[height, width, channels] of a JPEG, without decoding it."""
    return bind(ExtractJpegShape, strings(contents), output_type=D.as_dtype(output_type))


@tf_export("io.is_jpeg", "image.is_jpeg")
def is_jpeg(contents, name=None):
    """True where ``contents`` starts with JPEG's magic bytes (TF's substr comparison)."""
    return equal(substr(strings(contents), 0, 3), b"\xff\xd8\xff")


@tf_export("io.encode_png", "image.encode_png")
def encode_png(image, compression=-1, name=None):
    """A [height, width, channels] uint8/uint16 image as PNG bytes."""
    return bind(EncodePng, convert_to_tensor(image), compression=int(compression))


@tf_export("io.encode_jpeg", "image.encode_jpeg")
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """A [height, width, 1 or 3] uint8 image as JPEG bytes."""
    return bind(EncodeJpeg, convert_to_tensor(image), format=text(format), quality=int(quality),
                progressive=bool(progressive), optimize_size=bool(optimize_size),
                chroma_downsampling=bool(chroma_downsampling), density_unit=text(density_unit),
                x_density=int(x_density), y_density=int(y_density),
                xmp_metadata=text(xmp_metadata))


@tf_export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """``image`` through a JPEG encode at ``jpeg_quality`` and a decode, in its own dtype."""
    image = convert_to_tensor(image)
    original = image.dtype
    quality = jpeg_quality if isinstance(jpeg_quality, Tensor) else \
        convert_to_tensor(jpeg_quality, D.int32)
    pixels = convert_image_dtype(image, D.uint8, saturate=True)
    encoded = bind(EncodeJpegVariableQuality, pixels, quality)
    decoded = decode_jpeg(encoded, channels=image.shape.dims[-1] if image.shape.rank else 0,
                          dct_method=dct_method)
    return convert_image_dtype(decoded, original, saturate=True)
