"""Joining strings into n-grams (the StringNGrams op; ``tf.strings.ngrams`` is in the ragged
layer) and by segment (``tf.strings.unsorted_segment_join``)."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import invalid_argument
from ...messages import shape_text
from ...registry import DtypeCheck, define_op
from ...tensor import Tensor, TensorSpec, static_value
from .._args import int_arg
from .._base import INDEX, check_index, check_out_type
from ..array.joining import concat
from ..array.ranges import range as range_
from ..array.reshaping import reshape
from ..array.shapes import shape as shape_of
from ..math.arithmetic import multiply
from ..reduce import reduce_prod
from ._common import encode, infer_strings, strings, text


# --- n-grams -------------------------------------------------------------------------------------
def _pad_width(pad_width, width):
    """The padding on each side of ``width``-grams: ``pad_width``, at most width - 1 (all of
    it when ``pad_width`` is -1)."""
    return min(width - 1 if pad_width < 0 else pad_width, width - 1)


def _count(length, width, pad_width):
    return max(0, length + 2 * _pad_width(pad_width, width) - width + 1)


def _grams(row, count, width, sep, left, right, pad_width):
    """``count`` n-grams of ``width`` items over ``row``, padded on both ends."""
    pad = _pad_width(pad_width, width)
    out = []
    for i in range(count):
        n_left = max(0, pad - i)
        n_right = max(0, pad - (count - i - 1))
        start = 0 if n_left else i - pad
        items = [left] * n_left + row[start:start + width - n_left - n_right] + [right] * n_right
        out.append(sep.join(items))
    return out


@define_op("StringNGrams")
class StringNGrams:
    """The n-grams of each row of ``data`` (cut by ``data_splits``), for each width in turn."""

    check = DtypeCheck("StringNGrams", INDEX, 1, first=1, attr="Tsplits", fixed={0: D.string})

    def infer(data, data_splits, *, separator, ngram_widths, left_pad, right_pad, pad_width,
              preserve_short_sequences):
        infer_strings("StringNGrams", (data, "data"))
        check_out_type("StringNGrams", data_splits.dtype, INDEX, "Tsplits")
        return TensorSpec([None], D.string), TensorSpec(data_splits.shape, data_splits.dtype)

    def kernel(data, data_splits, *, separator, ngram_widths, left_pad, right_pad, pad_width,
               preserve_short_sequences):
        if any(w <= 0 for w in ngram_widths):
            raise invalid_argument("ngram_widths must contain positive values")
        values, splits = np.asarray(data).ravel().tolist(), np.asarray(data_splits)
        s = splits.ravel().tolist()
        if s:
            if s[0] != 0:
                raise invalid_argument(f"First split value must be 0, got {s[0]}")
            for a, b in zip(s, s[1:]):
                if not a <= b <= len(values):
                    raise invalid_argument(f"Invalid split value {b}, must be in [{a}, "
                                           f"{len(values)}]")
            if s[-1] != len(values):
                raise invalid_argument(f"Last split value must be data size. Expected "
                                       f"{len(values)}, got {s[-1]}")
        if not values or not s:
            return np.empty(np.shape(data), object), np.zeros_like(splits)
        sep, left, right = encode(separator), encode(left_pad), encode(right_pad)
        out, out_splits = [], [0]
        for a, b in zip(s, s[1:]):
            row, before = values[a:b], len(out)
            for w in ngram_widths:
                out += _grams(row, _count(b - a, w, pad_width), w, sep, left, right, pad_width)
            if preserve_short_sequences and len(out) == before and b > a:
                if pad_width < 0:
                    raise invalid_argument("Pad width should be >= 0 when preserve_short_sequences "
                                           "is True and ngram_widths are not provided, got "
                                           f"{pad_width}")
                out += _grams(row, 1, b - a + 2 * pad_width, sep, left, right, pad_width)
            out_splits.append(len(out))
        result = np.empty(len(out), object)
        result[:] = out
        return result, np.array(out_splits, splits.dtype)


def _pads(pad_values, padding_width):
    """(left pad, right pad, pad width attr) from ngrams' arguments."""
    if pad_values is None:
        left = right = ""
    elif isinstance(pad_values, (list, tuple)):
        # as TF: the first two items are the pads (a longer tuple's others are ignored)
        if not all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left, right = pad_values[0], pad_values[1]
    elif isinstance(pad_values, (str, bytes)):
        left = right = pad_values
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None:
        padding_width = int_arg(padding_width, "padding_width")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if pad_values is None:
        width = 0
    else:
        width = -1 if padding_width is None else int(padding_width)
    return text(left), text(right), width


def ngrams_rows(values, splits, ngram_width, separator=" ", pad_values=None, padding_width=None,
                preserve_short_sequences=False):
    """StringNGrams over a flat vector cut by ``splits``: (n-grams, their row splits)."""
    left, right, width = _pads(pad_values, padding_width)
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    widths = [int_arg(w, "ngram_width") for w in widths]
    for w in widths:
        if w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    return bind(StringNGrams, values, splits, separator=text(separator),
                ngram_widths=[int(w) for w in widths], left_pad=left, right_pad=right,
                pad_width=width, preserve_short_sequences=bool(preserve_short_sequences))


def ngrams_dense(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
                 preserve_short_sequences=False):
    """The n-grams of the innermost dimension of a dense ``data`` (rank >= 1): a dense result."""
    _pads(pad_values, padding_width)
    data = strings(data)
    rank = data.shape.rank
    if rank is None:
        raise ValueError("Rank of data must be known.")
    if rank == 0:
        raise ValueError("Data must have rank>0")
    dims = shape_of(data, out_type=D.int64)
    rows = reduce_prod(dims[:-1])
    splits = multiply(range_(rows + 1, dtype=D.int64), dims[-1])
    out, _ = ngrams_rows(reshape(data, [-1]), splits, ngram_width, separator, pad_values,
                         padding_width, preserve_short_sequences)
    if rank == 1:
        return out
    outer = data.shape[:-1]
    new_shape = outer.as_list() + [-1] if outer.is_fully_defined() else \
        concat([dims[:-1], np.array([-1], np.int64)], 0)
    return reshape(out, new_shape)


# --- segment join --------------------------------------------------------------------------------
@define_op("UnsortedSegmentJoin")
class UnsortedSegmentJoin:
    """The strings of each segment joined in index order; ``segment_ids`` cover the leading
    dimensions of ``inputs``."""

    check = DtypeCheck("UnsortedSegmentJoin", same=1, fixed={0: D.string})

    def infer(inputs, segment_ids, num_segments, *, separator):
        infer_strings("UnsortedSegmentJoin", (inputs, "inputs"))
        check_index("UnsortedSegmentJoin", segment_ids, "segment_ids")
        check_index("UnsortedSegmentJoin", num_segments, "num_segments")
        n = static_value(num_segments)
        n = int(n) if n is not None and np.ndim(n) == 0 else None
        if inputs.shape.rank is None or segment_ids.shape.rank is None:
            return TensorSpec(None, D.string)
        return TensorSpec([n] + inputs.shape.as_list()[segment_ids.shape.rank:], D.string)

    def kernel(inputs, segment_ids, num_segments, *, separator):
        x, ids, n = np.asarray(inputs), np.asarray(segment_ids), np.asarray(num_segments)
        if n.ndim:
            raise invalid_argument(f"Number of segments cannot be a non-scalar, got shape "
                                   f"{shape_text(n.shape)}")
        n = int(n)
        if n < 0:
            raise invalid_argument(f"Number of segments must be non-negative but got {n}")
        if ids.ndim > x.ndim:
            raise invalid_argument("Segment_id rank should be less than or equal to input "
                                   "rank")
        for i, d in enumerate(ids.shape):
            if d != x.shape[i]:
                # TF's text names the input's rank where its dimension would be
                raise invalid_argument(f"Segment dimension is {d} while input dimension is "
                                       f"{x.ndim} in rank {i}")
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            raise invalid_argument("segment_ids are not allowed to exceed num_segments or to "
                                   "have negative values.")
        inner = x.shape[ids.ndim:]
        rows = x.reshape((ids.size, -1)).tolist() if x.size else []
        parts = [[] for _ in range(n)]
        for seg, row in zip(ids.ravel().tolist(), rows):
            parts[seg].append(row)
        width = int(np.prod(inner))
        sep = encode(separator)
        out = np.empty((n, width), object)
        for seg, members in enumerate(parts):
            for j in range(width):
                out[seg, j] = sep.join(r[j] for r in members)
        return out.reshape((n,) + inner)


@tf_export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Join the strings of ``inputs`` that share a segment id, in index order (segments
    without strings give ``""``)."""
    ids = segment_ids if isinstance(segment_ids, Tensor) else \
        convert_to_tensor(segment_ids, dtype_hint=D.int32)
    n = num_segments if isinstance(num_segments, Tensor) else \
        convert_to_tensor(num_segments, dtype_hint=D.int32)
    return bind(UnsortedSegmentJoin, strings(inputs), ids, n, separator=text(separator))
