"""Unicode string ops: strings decoded into code points (with each character's byte offset),
code points encoded into strings, transcoding between encodings, and each code point's script.

Decoding follows TF's (ICU's) rules: an ill-formed subsequence gives one ``replacement_char``
per maximal subpart (the Unicode recommendation, which Python's decoders follow too), is
skipped (``errors="ignore"``) or fails (``"strict"``). The ops see a flat vector of strings and
give row splits, as TF's do; a scalar's results are dense here, and higher ranks give
``RaggedTensor`` s in the public functions of the ragged layer.
"""

import codecs

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...registry import DtypeCheck, define_op
from ...tensor import Tensor, TensorSpec
from .._args import int_arg
from .._base import INDEX, check_fixed, check_out_type
from ..array.joining import concat
from ..array.ranges import range as range_
from ..array.reshaping import reshape
from ..array.shapes import shape as shape_of, size
from ..math.arithmetic import multiply
from ..reduce import reduce_prod
from ._common import infer_strings, strings, text
from ._scripts import script_codes

_OUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_DECODE_ERRORS = ("strict", "replace", "ignore")
_ENCODE_ERRORS = ("ignore", "replace", "strict")  # TF's order in UnicodeEncode's OpDef
_MAX_CODE_POINT = 0x10FFFF
_CONTINUATION = bytes(range(0x80, 0xC0))


# --- attrs ---------------------------------------------------------------------------------------
def _check_choice(op_name, attr, value, allowed, eager):
    """A string attr restricted to ``allowed`` (checked when the op is built, as TF's)."""
    if value in allowed:
        return
    listed = ", ".join(f'"{a}"' for a in allowed)
    if eager:
        raise invalid_argument(f"Value for attr '{attr}' of \"{value}\" is not in the list of "
                               f"allowed values: {listed}")
    raise ValueError(f"Attr '{attr}' of '{op_name}' Op passed string '{value}' not in: "
                     f"{listed}.")


def _codec(encoding):
    """Python's codec for an input encoding name (ICU's aliases: "UTF8", "utf-16-be" ...)."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):
        raise invalid_argument(f"Could not create converter for input encoding: {encoding}")
    return info.name


def _valid(cp):
    return 0 <= cp <= _MAX_CODE_POINT and not 0xD800 <= cp <= 0xDFFF


# --- decoding ------------------------------------------------------------------------------------
def _code_points(chunk):
    return np.frombuffer(chunk.encode("utf-32-le", "surrogatepass"), "<u4").tolist()


def _starts(chunk, data, pos, codec):
    """Byte offsets of the characters of ``chunk``, a valid stretch of ``data`` from ``pos``."""
    if codec == "utf-8":
        raw = data[pos:pos + len(chunk.encode("utf-8"))] if chunk else b""
        lead = np.frombuffer(raw, np.uint8)
        return (np.flatnonzero((lead < 0x80) | (lead >= 0xC0)) + pos).tolist()
    out, p = [], pos
    for ch in chunk:
        out.append(p)
        p += len(ch.encode(codec, "surrogatepass"))
    return out


def _decode_one(data, codec, errors, rc, control, offsets):
    """(code points, byte offsets or None) of one string."""
    cps, starts, pos = [], [] if offsets else None, 0
    while True:
        try:
            chunk, bad = data[pos:].decode(codec), None
        except UnicodeDecodeError as e:
            chunk, bad = data[pos:pos + e.start].decode(codec), (pos + e.start, pos + e.end)
        cps += _code_points(chunk)
        if offsets:
            starts += _starts(chunk, data, pos, codec)
        if bad is None:
            break
        _on_error(errors, cps, starts, rc, bad[0])
        pos = bad[1]
    if control and any(c < 0x20 for c in cps):
        # C0 controls are replaced, or dropped under errors="ignore" (never an error, as TF)
        old_cps, old_starts = cps, starts or [None] * len(cps)
        cps, starts = [], [] if offsets else None
        for c, st in zip(old_cps, old_starts):
            if c < 0x20:
                _on_error("ignore" if errors == "ignore" else "replace", cps, starts, rc, st)
            else:
                cps.append(c)
                if offsets:
                    starts.append(st)
    return cps, starts


def _on_error(errors, cps, starts, rc, start):
    """An ill-formed sequence at byte ``start``: fail, or append the replacement (or nothing)."""
    if errors == "strict":
        raise invalid_argument("Invalid formatting on input string")
    if errors == "replace":
        cps.append(rc)
        if starts is not None:
            starts.append(start)


def _decode_all(strings_, input_encoding, errors, replacement_char, replace_control_characters,
                offsets):
    """Decode a flat list of strings: (row splits, code points, byte offsets or None)."""
    if not 0 <= replacement_char <= _MAX_CODE_POINT:
        raise invalid_argument("replacement_char out of unicode codepoint range")
    codec = _codec(input_encoding)
    splits, values, starts = [0], [], [] if offsets else None
    for s in strings_:
        cps, st = _decode_one(s, codec, errors, replacement_char, replace_control_characters,
                              offsets)
        values += cps
        if offsets:
            starts += st
        splits.append(len(values))
    return splits, values, starts


def _decode_infer(op_name, input, errors, Tsplits):
    infer_strings(op_name, (input, "input"))
    _check_choice(op_name, "errors", errors, _DECODE_ERRORS, eager=False)
    check_out_type(op_name, Tsplits, INDEX, "Tsplits")
    n = input.shape.num_elements()
    return TensorSpec([None if n is None else n + 1], Tsplits), TensorSpec([None], D.int32)


def _decode_kernel(op_name, input, offsets, attrs):
    _check_choice(op_name, "errors", attrs["errors"], _DECODE_ERRORS, eager=True)
    splits, values, starts = _decode_all(
        np.asarray(input).ravel().tolist(), attrs["input_encoding"], attrs["errors"],
        attrs["replacement_char"], attrs["replace_control_characters"], offsets)
    out = (np.array(splits, attrs["Tsplits"].as_numpy_dtype), np.array(values, np.int32))
    return out + (np.array(starts, np.int64),) if offsets else out


_DECODE_ATTRS = dict(errors="replace", replacement_char=0xFFFD,
                     replace_control_characters=False, Tsplits=D.int64)


@define_op("UnicodeDecode")
class UnicodeDecode:
    """Each string's code points: (row_splits, char_values) over the flattened input."""

    check = DtypeCheck("UnicodeDecode", same=1, fixed=D.string)

    def infer(input, *, input_encoding, errors="replace", replacement_char=0xFFFD,
              replace_control_characters=False, Tsplits=D.int64):
        return _decode_infer("UnicodeDecode", input, errors, Tsplits)

    def kernel(input, *, input_encoding, **attrs):
        attrs = {**_DECODE_ATTRS, **attrs, "input_encoding": input_encoding}
        return _decode_kernel("UnicodeDecode", input, False, attrs)


@define_op("UnicodeDecodeWithOffsets")
class UnicodeDecodeWithOffsets:
    """UnicodeDecode, and the byte offset where each character starts (int64)."""

    check = DtypeCheck("UnicodeDecodeWithOffsets", same=1, fixed=D.string)

    def infer(input, *, input_encoding, errors="replace", replacement_char=0xFFFD,
              replace_control_characters=False, Tsplits=D.int64):
        splits, values = _decode_infer("UnicodeDecodeWithOffsets", input, errors, Tsplits)
        return splits, values, TensorSpec([None], D.int64)

    def kernel(input, *, input_encoding, **attrs):
        attrs = {**_DECODE_ATTRS, **attrs, "input_encoding": input_encoding}
        return _decode_kernel("UnicodeDecodeWithOffsets", input, True, attrs)


# --- encoding ------------------------------------------------------------------------------------
def _encode_one(cps, codec, errors, rc):
    chars = []
    for c in cps:
        if _valid(c):
            chars.append(chr(c))
        elif errors == "strict":
            raise invalid_argument("Code point is out of range for Unicode, or is a surrogate.")
        elif errors == "replace":
            chars.append(chr(rc) if _valid(rc) else "\ufffd")
    return "".join(chars).encode(codec)


@define_op("UnicodeEncode")
class UnicodeEncode:
    """One string per row of code points (``input_values`` cut by ``input_splits``)."""

    check = DtypeCheck("UnicodeEncode", INDEX, 1, first=1, attr="Tsplits",
                       fixed={0: D.int32})

    def infer(input_values, input_splits, *, output_encoding, errors="replace",
              replacement_char=0xFFFD):
        check_fixed("UnicodeEncode", (input_values,), ("input_values",), D.int32)
        check_out_type("UnicodeEncode", input_splits.dtype, INDEX, "Tsplits")
        _check_choice("UnicodeEncode", "errors", errors, _ENCODE_ERRORS, eager=False)
        _check_choice("UnicodeEncode", "output_encoding", output_encoding, _OUT_ENCODINGS,
                      eager=False)
        n = input_splits.shape.num_elements()
        return TensorSpec([None if n is None else max(n - 1, 0)], D.string)

    def kernel(input_values, input_splits, *, output_encoding, errors="replace",
               replacement_char=0xFFFD):
        _check_choice("UnicodeEncode", "errors", errors, _ENCODE_ERRORS, eager=True)
        _check_choice("UnicodeEncode", "output_encoding", output_encoding, _OUT_ENCODINGS,
                      eager=True)
        values, splits = np.asarray(input_values), np.asarray(input_splits)
        if values.ndim != 1:
            raise invalid_argument("Input values must be a vector")
        if splits.ndim != 1 or splits.size < 1:
            raise invalid_argument("Input splits must be a vector with at least one element")
        s = splits.tolist()
        if s[0] != 0 or s[-1] != values.size or any(a > b for a, b in zip(s, s[1:])):
            raise invalid_argument("Input splits must start with 0, be non-decreasing and end "
                                   f"with the number of values, {values.size}")
        codec = _codec(output_encoding)
        flat = values.tolist()
        out = np.empty(len(s) - 1, object)
        out[:] = [_encode_one(flat[a:b], codec, errors, replacement_char)
                  for a, b in zip(s, s[1:])]
        return out


@define_op("UnicodeTranscode")
class UnicodeTranscode:
    """Each string decoded from ``input_encoding`` and encoded in ``output_encoding``."""

    check = DtypeCheck("UnicodeTranscode", same=1, fixed=D.string)

    def infer(input, *, input_encoding, output_encoding, errors="replace",
              replacement_char=0xFFFD, replace_control_characters=False):
        infer_strings("UnicodeTranscode", (input, "input"))
        _check_choice("UnicodeTranscode", "errors", errors, _DECODE_ERRORS, eager=False)
        _check_choice("UnicodeTranscode", "output_encoding", output_encoding, _OUT_ENCODINGS,
                      eager=False)
        return TensorSpec(input.shape, D.string)

    def kernel(input, *, input_encoding, output_encoding, errors="replace",
               replacement_char=0xFFFD, replace_control_characters=False):
        _check_choice("UnicodeTranscode", "errors", errors, _DECODE_ERRORS, eager=True)
        _check_choice("UnicodeTranscode", "output_encoding", output_encoding, _OUT_ENCODINGS,
                      eager=True)
        a = np.asarray(input)
        splits, values, _ = _decode_all(a.ravel().tolist(), input_encoding, errors,
                                        replacement_char, replace_control_characters, False)
        codec = _codec(output_encoding)
        out = np.empty(a.size, object)
        out[:] = [_encode_one(values[x:y], codec, "replace", replacement_char)
                  for x, y in zip(splits, splits[1:])]
        return out.reshape(a.shape)


@define_op("UnicodeScript")
class UnicodeScript:
    """ICU's UScriptCode of each code point (-1 outside Unicode's range)."""

    check = DtypeCheck("UnicodeScript", same=1, fixed=D.int32)

    def infer(input):
        check_fixed("UnicodeScript", (input,), ("input",), D.int32)
        return TensorSpec(input.shape, D.int32)

    def kernel(input):
        return script_codes(np.asarray(input))


# --- public functions ----------------------------------------------------------------------------
def decode_flat(input, input_encoding, errors, replacement_char, replace_control_characters,
                with_offsets):
    """The decode op over ``input`` flattened: (row_splits, char_values[, offsets]) tensors."""
    op = UnicodeDecodeWithOffsets if with_offsets else UnicodeDecode
    flat = reshape(input, [-1]) if input.shape.rank != 1 else input
    return bind(op, flat, input_encoding=text(input_encoding), errors=errors,
                replacement_char=int_arg(replacement_char, "replacement_char"),
                replace_control_characters=bool(replace_control_characters), Tsplits=D.int64)


def encode_rows(values, splits, output_encoding, errors, replacement_char):
    """The encode op: one string per row of ``values`` cut by ``splits``."""
    return bind(UnicodeEncode, values, splits, output_encoding=text(output_encoding),
                errors=errors, replacement_char=int_arg(replacement_char, "replacement_char"))


def string_input(input):
    """A string tensor argument of known rank."""
    input = strings(input)
    if input.shape.rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    return input


def decode_scalar(input, input_encoding, errors, replacement_char, replace_control_characters,
                  with_offsets):
    """Code points (and offsets) of a scalar string: dense 1-D tensors."""
    out = decode_flat(input, input_encoding, errors, replacement_char,
                      replace_control_characters, with_offsets)
    return (out[1], out[2]) if with_offsets else out[1]


def _row_splits(rows, width):
    """The row splits of ``rows`` rows of ``width`` values each (int64 tensors or ints)."""
    return multiply(range_(rows + 1, dtype=D.int64), width)


def split_chars(values, input_encoding, errors, replacement_char):
    """Each code point of a flat vector encoded on its own (TF's unicode_split)."""
    splits = _row_splits(size(values, out_type=D.int64), np.int64(1))
    return encode_rows(values, splits, input_encoding, errors, replacement_char)


def encode_dense(input, output_encoding, errors="replace", replacement_char=0xFFFD):
    """The strings whose code points are the innermost rows of a dense ``input`` (rank >= 1)."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input)
    rank = input.shape.rank
    if rank is None:
        raise ValueError("Rank of input_tensor must be statically known.")
    if rank == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    dims = shape_of(input, out_type=D.int64)
    if rank == 1:
        splits = concat([np.zeros([1], np.int64), dims], 0)
        return reshape(encode_rows(input, splits, output_encoding, errors, replacement_char), [])
    splits = _row_splits(reduce_prod(dims[:-1]), dims[-1])
    out = encode_rows(reshape(input, [-1]), splits, output_encoding, errors, replacement_char)
    outer = input.shape[:-1]
    return reshape(out, outer.as_list() if outer.is_fully_defined() else dims[:-1])


@tf_export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",
                      replacement_char=0xFFFD, replace_control_characters=False, name=None):
    """Each string re-encoded from ``input_encoding`` into ``output_encoding``."""
    return bind(UnicodeTranscode, strings(input), input_encoding=text(input_encoding),
                output_encoding=text(output_encoding), errors=errors,
                replacement_char=int_arg(replacement_char, "replacement_char"),
                replace_control_characters=bool(replace_control_characters))


def script_dense(input):
    """ICU's script code (UScriptCode) of each int32 code point of a dense tensor."""
    if not isinstance(input, Tensor):
        input = convert_to_tensor(input, dtype_hint=D.int32)
    return bind(UnicodeScript, input)
