"""tf.compat's text helpers (``as_bytes``, ``as_text``, ``as_str_any``, ``path_to_str``) and its
type tuples, as TF 2 keeps them for code such as Keras' lookup layers."""

import numbers

import numpy as np

from .._export import export_value, tf_export


def _type_error(value):
    return TypeError(f"Expected binary or unicode string, got {value!r}")


@tf_export("compat.as_bytes")
def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as bytes (text encoded with ``encoding``)."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise _type_error(bytes_or_text)


@tf_export("compat.as_text", "compat.as_str")
def as_text(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as text (bytes decoded with ``encoding``)."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise _type_error(bytes_or_text)


@tf_export("compat.as_str_any")
def as_str_any(value, encoding="utf-8"):
    """Bytes decoded, anything else as ``str(value)``."""
    if isinstance(value, bytes):
        return as_text(value, encoding)
    return str(value)


@tf_export("compat.path_to_str")
def path_to_str(path):
    """A path-like object's path as text; anything else as it is."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


export_value((bytes, str), "compat.bytes_or_text_types")
export_value((numbers.Integral, np.integer), "compat.integral_types")
export_value((numbers.Real, np.integer, np.floating), "compat.real_types")
export_value((numbers.Complex, np.number), "compat.complex_types")
