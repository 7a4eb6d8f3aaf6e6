"""TF's narrow ml_dtypes types (float8_e4m3fn, float8_e5m2, int4, ...): DType properties, TF's
CPU Cast kernels to and from them (values, printing, refusals) and that the math ops refuse them
as TF does, against TF 2.21's records (tests/fixtures/tf/make_signal.py)."""

import json
import pathlib
import subprocess
import sys

import pytest

import tensortrace as tf
from tensortrace import dtypes as D

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "signal"
RECORDS = json.loads((HERE / "records.json").read_text())
NARROW = RECORDS["float8"]
VALUES = {"float": [1.3, 400., -1e9, 0.1, -2.0, 3.0], "int": [1, -2, 3, 0, 7, 100],
          "bool": [True, False, True, True, False, True]}


def _outcome(fn):
    try:
        return ["ok", str(fn())]
    except Exception as e:  # noqa: BLE001 - compared with TF's error
        return [type(e).__name__, str(e).splitlines()[0]]


def _same(got, want):
    if want[0] == "ok":
        return got == want
    # TF's eager message starts with its function node; the text after it is the kernel's
    return got[0] == want[0] and want[1].split("}} ")[-1].split(" [Op:")[0] in got[1]


@pytest.mark.parametrize("name", sorted(NARROW))
def test_narrow_dtype_properties(name):
    rec, dt = NARROW[name], getattr(D, name)
    assert dt.as_datatype_enum == rec["enum"] and D.as_dtype(rec["enum"]) is dt
    assert (str(dt), repr(dt)) == (rec["str_dtype"], rec["repr_dtype"])
    assert (float(dt.min), float(dt.max), dt.size) == (rec["min"], rec["max"], rec["size"])
    assert (dt.is_floating, dt.is_integer, dt.is_unsigned, dt.is_numeric) == (
        rec["is_floating"], rec["is_integer"], rec["is_unsigned"], rec["is_numeric"])
    assert D.as_dtype(dt.as_numpy_dtype) is dt
    assert getattr(tf.dtypes.experimental, name) is dt and getattr(tf.experimental, name) is dt


@pytest.mark.parametrize("name", sorted(NARROW))
def test_casts_match_tf_kernels(name):
    rec, dt = NARROW[name], getattr(D, name)
    for wide, want in rec["to"].items():
        kind = "bool" if wide == "bool" else "int" if "int" in wide else "float"
        src = tf.constant(VALUES[kind], getattr(tf, wide))
        assert _same(_outcome(lambda: tf.cast(src, dt)), want), (name, wide)
    made = next((w for w in rec["to"] if rec["to"][w][0] == "ok"), None)
    if made is None:
        return
    narrow = tf.cast(tf.constant(VALUES["int" if "int" in made else "float"], getattr(tf, made)),
                     dt)
    for other, want in rec["from"].items():
        assert _same(_outcome(lambda: tf.cast(narrow, getattr(D, other))), want), (name, other)


def test_float8_math_ops_refuse_as_tf():
    x = tf.cast([1.0], D.float8_e4m3fn)
    kind, message = RECORDS["errors"]["f8_add"]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        x + x
    assert str(info.value).startswith(message)
    y = tf.cast([[1.0]], D.float8_e5m2)
    kind, message = RECORDS["errors"]["f8_matmul"]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.matmul(y, y)
    assert str(info.value).startswith(message)


def test_float8_moves_through_layout_ops_and_functions():
    x = tf.cast(tf.constant([[1.5, -2.0], [3.0, 0.25]]), D.float8_e4m3fn)
    assert repr(x) == ("<tf.Tensor: shape=(2, 2), dtype=float8_e4m3fn, numpy=\n"
                       "array([[1.5, -2],\n       [3, 0.25]], dtype='float8_e4m3fn')>")
    got = tf.function(lambda a: tf.reshape(tf.transpose(a), [4]))(x)
    assert str(got) == "tf.Tensor([1.5 3 -2 0.25], shape=(4,), dtype=float8_e4m3fn)"


def test_without_ml_dtypes_the_core_imports_and_names_the_extra():
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import tensortrace as tf\n"
            "assert tf.constant([1.0]).dtype == tf.float32 and tf.bfloat16 is None\n"
            "try:\n    tf.as_dtype('float8_e4m3fn')\n"
            "except TypeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=pathlib.Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert "pip install 'tensortrace[float8]'" in out.stdout
