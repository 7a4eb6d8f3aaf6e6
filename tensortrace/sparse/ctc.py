"""``tf.nn.ctc_loss`` and the CTC decoders (their paths as SparseTensors). The CTC loss of
logits against dense (zero-padded, with lengths) or sparse label sequences, through TF's CTCLoss
op (its blank is the last class: another blank index moves that class last and shifts the
labels, as TF's sparse-label path does). Dense labels give TF's values wherever an alignment
exists; a label sequence too long for its frames raises the op's InvalidArgumentError, where
TF's dense path returns a large finite loss; and a dense label equal to the blank gets TF's
loss, but its gradient on the blank class differs."""

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..convert import convert_to_tensor
from ..ops._args import int_attr
from ..ops.array.creation import fill
from ..ops.array.joining import concat
from ..ops.array.ranges import range as tf_range
from ..ops.array.reshaping import transpose
from ..ops.array.shapes import shape as tf_shape
from ..ops.indexing.gathering import boolean_mask
from ..ops.math.casting import cast
from ..ops.math.compare import equal, less
from ..ops.math.select import where
from ..ops.nn.ctc import CTCLoss
from ..ops.nn.ctc_decode import CTCBeamSearchDecoder, CTCGreedyDecoder
from .sparse_tensor import SparseTensor


def _dense_to_sparse(labels, label_length):
    """The first ``label_length[b]`` labels of each row, as a SparseTensor."""
    labels = convert_to_tensor(labels)
    lengths = cast(convert_to_tensor(label_length), D.int64)
    columns = tf_range(tf_shape(labels, out_type=D.int64)[1])
    keep = less(columns[None, :], lengths[:, None])
    return SparseTensor(where(keep), boolean_mask(labels, keep),
                        tf_shape(labels, out_type=D.int64))


@tf_export("nn.ctc_loss")
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
             blank_index=None, name=None):
    """Per-sequence CTC loss: ``-log p(labels | logits)``, the softmax over classes taken here.

    Raises:
        ValueError: sparse ``labels`` without ``blank_index``.
    """
    logits = convert_to_tensor(logits)
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a "
                             "`SparseTensor`.")
        sparse = labels
    else:
        sparse = _dense_to_sparse(labels, label_length)
        if blank_index is None:
            blank_index = 0
    if not logits_time_major:
        logits = transpose(logits, [1, 0, 2])
    known = logits.shape.dims[2] if logits.shape.rank == 3 else None
    classes = known if known is not None else tf_shape(logits)[2]
    if blank_index < 0:
        blank_index += classes
    if known is None or blank_index != known - 1:  # the op's blank is the last class
        logits = concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                         logits[:, :, blank_index:blank_index + 1]], axis=2)
        values = where(less(sparse.values, blank_index), sparse.values, sparse.values - 1)
        if not isinstance(labels, SparseTensor):  # a dense label equal to the blank stays it
            values = where(equal(sparse.values, blank_index),
                           fill(tf_shape(values), cast(classes - 1, values.dtype)), values)
        sparse = SparseTensor(sparse.indices, values, sparse.dense_shape)
    loss, _ = bind(CTCLoss, logits, cast(sparse.indices, D.int64), cast(sparse.values, D.int32),
                   cast(convert_to_tensor(logit_length), D.int32),
                   preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                   ignore_longer_outputs_than_inputs=False)
    return loss


def _int_attr(value, name, minimum):
    """An int attr of CTCBeamSearchDecoder with TF's minimum."""
    value = int_attr(value, name)
    if value < minimum:
        raise ValueError(f"Attr '{name}' of 'CTCBeamSearchDecoder' Op passed {value} less than "
                         f"minimum {minimum}.")
    return value


@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding of time-major logits: ``([decoded], neg_sum_logits)``; the blank is
    ``blank_index`` (default the last class, negative ones count from the end)."""
    ix, val, shape, neg_sum_logits = bind(
        CTCGreedyDecoder, convert_to_tensor(inputs), convert_to_tensor(sequence_length, D.int32),
        merge_repeated=bool(merge_repeated), blank_index=-1 if blank_index is None
        else int(blank_index))
    return [SparseTensor(ix, val, shape)], neg_sum_logits


def _beam_search(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    top_paths = _int_attr(top_paths, "top_paths", 1)
    outputs = bind(CTCBeamSearchDecoder, convert_to_tensor(inputs),
                   convert_to_tensor(sequence_length, D.int32),
                   beam_width=_int_attr(beam_width, "beam_width", 1), top_paths=top_paths,
                   merge_repeated=bool(merge_repeated))
    ixs, vals, shapes = (outputs[i * top_paths:(i + 1) * top_paths] for i in range(3))
    return [SparseTensor(*parts) for parts in zip(ixs, vals, shapes)], outputs[-1]


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search over label sequences (blank = the last class, repeats kept):
    ``(decoded, log_probabilities)``, ``decoded`` a list of ``top_paths`` SparseTensors."""
    return _beam_search(inputs, sequence_length, beam_width, top_paths, False)

