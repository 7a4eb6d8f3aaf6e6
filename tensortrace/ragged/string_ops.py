"""The ``tf.strings`` functions whose results (or inputs) may be ragged: Unicode decoding and
splitting (a string's characters are a ragged row), encoding rows of code points, script codes
and n-grams, over the string ops' records."""

from .. import dtypes as D
from .._export import tf_export
from ..ops.strings import ngrams as _ngrams, unicode as _unicode
from ..tensor import Tensor
from .ragged_tensor import RaggedTensor


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters,
            with_offsets):
    """TF's _unicode_decode: a scalar's results dense, higher ranks' ragged."""
    if isinstance(input, RaggedTensor):
        flat = input.flat_values
        if flat.shape.rank is not None and flat.shape.rank > 1:
            flat = RaggedTensor.from_tensor(flat, ragged_rank=flat.shape.rank - 1)
            input = input.with_flat_values(flat)
            flat = input.flat_values
        outer, rank = input, None
    else:
        flat = _unicode.string_input(input)
        rank = flat.shape.rank
        if rank == 0:
            return _unicode.decode_scalar(flat, input_encoding, errors, replacement_char,
                                          replace_control_characters, with_offsets)
        outer = RaggedTensor.from_tensor(flat, ragged_rank=rank - 1) if rank > 1 else None
    out = _unicode.decode_flat(flat, input_encoding, errors, replacement_char,
                               replace_control_characters, with_offsets)
    splits = out[0]
    parts = [RaggedTensor.from_row_splits(v, splits, validate=False) for v in out[1:]]
    if outer is not None:
        parts = [outer.with_flat_values(p) for p in parts]
    return tuple(parts) if with_offsets else parts[0]


@tf_export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=0xFFFD,
                   replace_control_characters=False, name=None):
    """The code points (int32) of each string: a Tensor for a scalar, else a RaggedTensor
    ``[D1...DN, (num_chars)]``."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters,
                   False)


@tf_export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=0xFFFD,
                                replace_control_characters=False, name=None):
    """(code points, start byte offsets (int64)) of each string."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters,
                   True)


def _split(codepoints, input_encoding, errors, replacement_char):
    """Each code point encoded on its own (TF encodes ``expand_dims(codepoints, -1)``)."""
    if isinstance(codepoints, RaggedTensor):
        return codepoints.with_flat_values(_unicode.split_chars(
            codepoints.flat_values, input_encoding, errors, replacement_char))
    return _unicode.split_chars(codepoints, input_encoding, errors, replacement_char)


@tf_export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=0xFFFD, name=None):
    """The characters of each string, each a string in ``input_encoding`` (ragged for rank >=
    1)."""
    codepoints = _decode(input, input_encoding, errors, replacement_char, False, False)
    return _split(codepoints, input_encoding, errors, replacement_char)


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=0xFFFD,
                               name=None):
    """(characters, start byte offsets) of each string."""
    codepoints, offsets = _decode(input, input_encoding, errors, replacement_char, False, True)
    return _split(codepoints, input_encoding, errors, replacement_char), offsets


@tf_export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=0xFFFD, name=None):
    """The string each innermost row of code points encodes: ``[D1...DN, num_chars]`` (dense or
    ragged) gives ``[D1...DN]`` strings."""
    if isinstance(input, RaggedTensor):
        if input.flat_values.shape.rank is not None and input.flat_values.shape.rank > 1:
            return input.with_flat_values(_unicode.encode_dense(
                input.flat_values, output_encoding, errors, replacement_char))
        if input.ragged_rank > 1:
            return input.with_values(unicode_encode(input.values, output_encoding, errors,
                                                    replacement_char))
        return _unicode.encode_rows(input.values, input.row_splits, output_encoding, errors,
                                    replacement_char)
    return _unicode.encode_dense(input, output_encoding, errors, replacement_char)


@tf_export("strings.unicode_script")
def unicode_script(input, name=None):
    """ICU's script code (UScriptCode) of each int32 code point (dense or ragged)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_unicode.script_dense(input.flat_values))
    return _unicode.script_dense(input)


@tf_export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of the innermost dimension of ``data``: for each width, every run of that
    many items joined by ``separator``, padded with ``pad_values`` when given. Dense data gives
    a dense result, ragged data a ragged one."""
    if not isinstance(data, RaggedTensor):
        return _ngrams.ngrams_dense(data, ngram_width, separator, pad_values, padding_width,
                                    preserve_short_sequences)
    if data.flat_values.dtype != D.string:
        raise TypeError(f"data must be a string tensor, got {data.flat_values.dtype.name}")
    if data.ragged_rank > 1:
        return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                       padding_width, preserve_short_sequences))
    values = data.values
    if isinstance(values, Tensor) and values.shape.rank is not None and values.shape.rank > 1:
        raise ValueError("ngrams of a RaggedTensor with dense inner dimensions is not "
                         "supported; pass RaggedTensor.from_tensor(...) of its values.")
    out, splits = _ngrams.ngrams_rows(values, data.row_splits, ngram_width, separator,
                                      pad_values, padding_width, preserve_short_sequences)
    return RaggedTensor.from_row_splits(out, splits, validate=False)
