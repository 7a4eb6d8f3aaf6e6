"""tf.compat's text helpers, which Keras' lookup layers call (get_vocabulary): TF 2.21's values
and errors."""

import numbers
import pathlib

import numpy as np
import pytest

import tensortrace as tf


def test_text_helpers():
    assert tf.compat.as_bytes(bytearray(b"x")) == b"x"
    assert tf.compat.as_bytes("\u03b1") == b"\xce\xb1"
    assert tf.compat.as_text(b"\xce\xb1") == "\u03b1" and tf.compat.as_str(b"x") == "x"
    assert tf.compat.as_text(b"abc", "ascii") == "abc"
    assert tf.compat.as_str_any(3) == "3" and tf.compat.as_str_any(b"q") == "q"
    assert tf.compat.path_to_str(pathlib.Path("/a/b")) == "/a/b"
    assert tf.compat.path_to_str(3) == 3
    for fn in (tf.compat.as_bytes, tf.compat.as_text):
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got 3$"):
            fn(3)
    assert tf.compat.bytes_or_text_types == (bytes, str)
    assert tf.compat.integral_types == (numbers.Integral, np.integer)
    assert tf.compat.real_types == (numbers.Real, np.integer, np.floating)
    assert tf.compat.complex_types == (numbers.Complex, np.number)
