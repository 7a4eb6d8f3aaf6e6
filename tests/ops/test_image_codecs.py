"""Image codecs against TF 2.21's records (tests/fixtures/tf/make_images.py): PNG, GIF and BMP
pixels exact, PNG bytes identical to TF's, JPEG pixels exact for every DCT / upsampling /
ratio option, JPEG bytes identical, TF's errors; graph shapes; the read_file -> decode ->
resize pipeline in Dataset.map."""

import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf

pytest.importorskip("simplejpeg", reason="the images extra")
pytest.importorskip("PIL", reason="the images extra")

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "images"
REC = np.load(HERE / "codecs.npz")
META = json.load(open(HERE / "cases.json"))
CASES, SHAPES = META["cases"], META["shapes"]


def data(key):
    return REC[key].tobytes()


def tf_error(name):
    kind, message = CASES[name]
    return getattr(tf.errors, kind), message.split("}} ")[-1].split(" [Op:")[0]


def check_error(name, fn):
    kind, message = tf_error(name)
    with pytest.raises(kind) as info:
        fn()
    assert message in str(info.value)


def same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


PNG_KEYS = sorted({k.rsplit("_", 2)[0][4:] for k in REC.files if k.startswith("png_")
                   and not k.startswith(("png_in", "png_src", "png_enc"))})


@pytest.mark.parametrize("key", PNG_KEYS)
def test_decode_png_matches_tf(key):
    for name in [k for k in REC.files if k.startswith(f"png_{key}_")
                 and k.count("_") == key.count("_") + 3]:
        ch, dt = name.rsplit("_", 2)[1:]
        same(tf.io.decode_png(data(f"png_in_{key}"), channels=int(ch), dtype=dt), REC[name])


def test_decode_png_channels_2_is_tfs_error():
    for name in [k for k in CASES if k.startswith("png_") and k.endswith(("_2_uint8",))]:
        key = name[4:].rsplit("_", 2)[0]
        check_error(name, lambda: tf.io.decode_png(data(f"png_in_{key}"), channels=2))


@pytest.mark.parametrize("c", [1, 2, 3, 4])
@pytest.mark.parametrize("dt", ["uint8", "uint16"])
def test_encode_png_bytes_are_tfs(c, dt):
    src = REC[f"png_src_tf{c}_{dt}"]
    assert tf.io.encode_png(src).numpy() == data(f"png_in_tf{c}_{dt}")
    assert tf.image.encode_png(src, compression=9).numpy() == data(f"png_enc9_tf{c}_{dt}")
    same(tf.io.decode_png(tf.io.encode_png(src), dtype=dt), src)


def test_encode_png_round_trips_large_and_empty():
    rng = np.random.default_rng(3)
    big = rng.integers(0, 256, (70, 90, 3), np.uint8)  # over 16 KiB of rows: full zlib window
    same(tf.io.decode_png(tf.io.encode_png(big)), big)
    wide = rng.integers(0, 65536, (5, 3, 2), np.uint16)
    same(tf.io.decode_png(tf.io.encode_png(wide), dtype=tf.uint16), wide)


@pytest.mark.parametrize("name", ["png_err_empty", "png_err_junk", "png_err_trunc",
                                  "png_err_badcrc", "png_err_channels"])
def test_decode_png_errors(name):
    src = {"empty": b"", "junk": b"not an image", "trunc": data("png_in_RGB")[:60],
           "badcrc": data("png_in_RGB")[:40] + b"\0" + data("png_in_RGB")[41:],
           "channels": data("png_in_RGB")}[name[8:]]
    check_error(name, lambda: tf.io.decode_png(src, channels=5 if name.endswith("ls") else 0))


def test_encode_png_errors():
    check_error("encode_png_rank", lambda: tf.io.encode_png(np.zeros((2, 2), np.uint8)))
    check_error("encode_png_channels", lambda: tf.io.encode_png(np.zeros((2, 2, 5), np.uint8)))
    check_error("encode_png_level",
                lambda: tf.io.encode_png(np.zeros((2, 2, 3), np.uint8), compression=10))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of float"):
        tf.io.encode_png(np.zeros((2, 2, 3), np.float32))


JPEG_KEYS = ["420", "444", "422p", "gray"]


@pytest.mark.parametrize("key", JPEG_KEYS)
def test_decode_jpeg_matches_tf_for_every_option(key):
    names = [k for k in REC.files if k.startswith(f"jpeg_{key}_")]
    assert len(names) == (16 if key == "420" else 4)
    for name in names:
        parts = name.split("_")
        ch, dct, fancy, ratio = parts[2], "_".join(parts[3:-2]), parts[-2], parts[-1]
        same(tf.io.decode_jpeg(data(f"jpeg_in_{key}"), channels=int(ch), dct_method=dct,
                               fancy_upscaling=fancy == "1", ratio=int(ratio)), REC[name])
    same(tf.io.extract_jpeg_shape(data(f"jpeg_in_{key}")), REC[f"jpeg_shape_{key}"])


@pytest.mark.parametrize("key", JPEG_KEYS)
def test_decode_and_crop_jpeg(key):
    got = tf.io.decode_and_crop_jpeg(data(f"jpeg_in_{key}"), [3, 5, 12, 17]).numpy()
    want = REC[f"jpeg_crop_{key}"]
    if key in ("444", "gray"):
        same(got, want)
    else:  # known gap: libjpeg's cropped decode upsamples the crop's last column as an edge
        np.testing.assert_array_equal(got[:, :-1], want[:, :-1])
        assert np.abs(got[:, -1].astype(int) - want[:, -1]).max() <= 2


def test_jpeg_errors():
    check_error("jpeg_err_empty", lambda: tf.io.decode_jpeg(b""))
    check_error("jpeg_err_junk", lambda: tf.io.decode_jpeg(b"not an image"))
    check_error("jpeg_err_trunc", lambda: tf.io.decode_jpeg(data("jpeg_in_420")[:300]))
    check_error("jpeg_err_ratio", lambda: tf.io.decode_jpeg(data("jpeg_in_420"), ratio=3))
    check_error("jpeg_err_channels", lambda: tf.io.decode_jpeg(data("jpeg_in_420"), channels=2))
    check_error("jpeg_err_dct",
                lambda: tf.io.decode_jpeg(data("jpeg_in_420"), dct_method="FLOAT"))
    check_error("jpeg_err_crop",
                lambda: tf.io.decode_and_crop_jpeg(data("jpeg_in_420"), [30, 5, 20, 17]))
    check_error("jpeg_err_shape_junk", lambda: tf.io.extract_jpeg_shape(b"junk"))
    # TF's decode ops sniff the format: decode_jpeg reads a PNG
    same(tf.io.decode_jpeg(data("png_in_RGB")), REC["png_RGB_0_uint8"])


def test_is_jpeg():
    got = [tf.io.is_jpeg(data("jpeg_in_420")), tf.image.is_jpeg(data("png_in_RGB")),
           tf.io.is_jpeg(b"")]
    assert [bool(g.numpy()) for g in got] == REC["is_jpeg"].tolist()
    assert got[0].dtype == tf.bool


def _picture():
    y, x = np.mgrid[0:21, 0:27]
    base = (x / 26 * 0.6 + y / 20 * 0.3)[..., None] * 255
    noise = np.random.default_rng(7).random((21, 27, 3)) * 255 * 0.2
    return np.clip(base + noise + np.arange(3)[None, None, :] * 25.5, 0, 255).astype(np.uint8)


def test_encode_jpeg_bytes_are_tfs():
    pic = _picture()
    for name in [k for k in REC.files if k.startswith("jpeg_enc_")]:
        src = pic if name.startswith("jpeg_enc_rgb_") else pic[..., :1]
        kw = {}
        opts = name[len("jpeg_enc_rgb_"):] if name.startswith("jpeg_enc_rgb_") else \
            name[len("jpeg_enc_gray_"):]
        for pair in filter(None, opts.replace("_x_", ",x_").replace("_y_", ",y_").split(",")):
            k, v = pair.split("=")
            kw[k] = int(v) if v.isdigit() else (v == "True" if v in ("True", "False") else v)
        assert tf.io.encode_jpeg(src, **kw).numpy() == data(name), name
    check_error("encode_jpeg_channels",
                lambda: tf.io.encode_jpeg(np.zeros((2, 2, 2), np.uint8)))
    check_error("encode_jpeg_quality", lambda: tf.io.encode_jpeg(pic, quality=101))
    check_error("encode_jpeg_format", lambda: tf.io.encode_jpeg(pic, format="grayscale"))


def test_adjust_jpeg_quality():
    same(tf.image.adjust_jpeg_quality(_picture(), 40), REC["adjust_jpeg_quality"])
    got = tf.image.adjust_jpeg_quality(_picture()[:8] / 255.0, 40)
    assert got.dtype == tf.float64
    np.testing.assert_array_equal(got.numpy(), REC["adjust_jpeg_quality_f"])


@pytest.mark.parametrize("key", ["anim", "one", "transp"])
def test_decode_gif(key):
    same(tf.io.decode_gif(data(f"gif_in_{key}")), REC[f"gif_{key}"])


def test_gif_errors():
    check_error("gif_err_junk", lambda: tf.io.decode_gif(b"GIF89a junk"))
    check_error("gif_err_trunc", lambda: tf.io.decode_gif(data("gif_in_anim")[:40]))


@pytest.mark.parametrize("key", ["rgb", "rgba", "gray", "odd"])
def test_decode_bmp(key):
    for ch in (0, 3, 4):
        same(tf.io.decode_bmp(data(f"bmp_in_{key}"), channels=ch), REC[f"bmp_{key}_{ch}"])
    check_error(f"bmp_{key}_1", lambda: tf.io.decode_bmp(data(f"bmp_in_{key}"), channels=1))
    check_error("bmp_err_junk", lambda: tf.io.decode_bmp(b"BMjunk"))


IMG_KEYS = {"png": "png_in_RGBA", "jpeg": "jpeg_in_420", "gif": "gif_in_anim",
            "bmp": "bmp_in_rgb"}


@pytest.mark.parametrize("kind", sorted(IMG_KEYS))
def test_decode_image(kind):
    for ch, dt, anim in ((0, "uint8", 1), (0, "uint8", 0), (3, "float32", 1),
                         (1, "uint16", 0), (4, "uint8", 1), (0, "int32", 1)):
        name = f"img_{kind}_{ch}_{dt}_{anim}"
        call = lambda: tf.io.decode_image(data(IMG_KEYS[kind]), channels=ch,  # noqa: E731
                                          dtype=getattr(tf, dt), expand_animations=bool(anim))
        if name in CASES:
            check_error(name, call)
        else:
            same(call(), REC[name])
    check_error("img_err_junk", lambda: tf.image.decode_image(b"junk data here"))


def test_graph_shapes():
    spec = tf.TensorSpec([], tf.string)
    fns = {"decode_png": lambda s: tf.io.decode_png(s, channels=3),
           "decode_png0": lambda s: tf.io.decode_png(s),
           "decode_jpeg": lambda s: tf.io.decode_jpeg(s, channels=1),
           "decode_gif": tf.io.decode_gif, "decode_bmp": tf.io.decode_bmp,
           "decode_image": lambda s: tf.io.decode_image(s, channels=3),
           "decode_image_noanim": lambda s: tf.io.decode_image(s, expand_animations=False),
           "decode_and_crop": lambda s: tf.io.decode_and_crop_jpeg(s, [0, 0, 2, 2], 3),
           "extract_jpeg_shape": tf.io.extract_jpeg_shape}
    for name, fn in fns.items():
        got = tf.function(fn).get_concrete_function(spec).structured_outputs.shape
        assert str(got) == SHAPES[name], name
    f = tf.function(lambda s: tf.io.decode_png(s, channels=3))
    same(f(tf.constant(data("png_in_RGB"))), REC["png_RGB_3_uint8"])


def test_read_decode_resize_in_dataset_map(tmp_path):
    paths = []
    for i, key in enumerate(["jpeg_in_420", "jpeg_in_444"]):
        p = tmp_path / f"{i}.jpg"
        p.write_bytes(data(key))
        paths.append(str(p))

    def load(path):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return tf.image.resize(image, [8, 8])

    got = [x.numpy() for x in tf.data.Dataset.from_tensor_slices(paths).map(load)]
    for g, key in zip(got, ["420", "444"]):
        want = tf.image.resize(REC[f"jpeg_{key}_0__1_1"], [8, 8]).numpy()
        np.testing.assert_array_equal(g, want)
        assert g.shape == (8, 8, 3)


def test_missing_images_extra_names_the_install(monkeypatch):
    from tensortrace.ops.image import codecs

    real = codecs.importlib.import_module

    def without_extra(name, *args):
        if name in ("simplejpeg", "PIL.Image"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(codecs.importlib, "import_module", without_extra)
    with pytest.raises(ImportError, match=r"pip install 'tensortrace\[images\]'"):
        tf.io.decode_jpeg(data("jpeg_in_420"))
    with pytest.raises(ImportError, match=r"pip install 'tensortrace\[images\]'"):
        tf.io.encode_jpeg(np.zeros((2, 2, 3), np.uint8))
    # PNG, GIF and BMP need nothing beyond NumPy and zlib
    same(tf.io.decode_png(data("png_in_RGB")), REC["png_RGB_0_uint8"])
    same(tf.io.decode_gif(data("gif_in_anim")), REC["gif_anim"])


def test_truncated_jpeg_recovery_known_gap():
    """try_recover_truncated decodes what libjpeg-turbo recovers without the missing data.
    Known gap: TF's pixels from the block where the data ends onward differ (TF feeds libjpeg
    its own end-of-data marker); the blocks before it are TF's."""
    cut = data("jpeg_in_444")[:len(data("jpeg_in_444")) * 2 // 3]
    got = tf.io.decode_jpeg(cut, try_recover_truncated=True, acceptable_fraction=0.1).numpy()
    want = REC["jpeg_trunc_recover"]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got[:8, :24], want[:8, :24])
    np.testing.assert_array_equal(got[16:, 8:], want[16:, 8:])
