"""TF's CTC decoders: CTCGreedyDecoder (the best class of each frame, blanks dropped, repeats
optionally merged) and CTCBeamSearchDecoder (TF's prefix beam search over label sequences with
the blank as the last class), each giving its paths as (indices, values, dense_shape) triples."""

import math

import numpy as np

from ... import dtypes as D
from ... import errors
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec

_FLOATS = (D.float32, D.float64)
_LOG_ZERO = -math.inf


def _validate(inputs, sequence_length):
    """TF's CTCDecodeHelper checks: (frames, batch, classes, lengths)."""
    x = np.asarray(inputs)
    if x.ndim != 3:
        raise errors.invalid_argument("inputs is not a 3-Tensor")
    if x.size == 0:
        raise errors.invalid_argument("inputs must not be empty")
    frames, batch, _ = x.shape
    lengths = np.asarray(sequence_length)
    if lengths.ndim != 1:
        raise errors.invalid_argument("sequence_length is not a vector")
    if lengths.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  "
                        f"{lengths.shape[0]} batch_size: {batch}")
    for b, n in enumerate(lengths.tolist()):
        if not n <= frames:
            raise errors.FailedPreconditionError(None, None, f"sequence_length({b}) <= {frames}")
    return x, lengths


def _sparse_paths(paths, batch):
    """One path per batch entry -> TF's (indices [n, 2], values [n], dense_shape [2]), int64."""
    indices = [(b, t) for b, path in enumerate(paths) for t in range(len(path))]
    values = [v for path in paths for v in path]
    longest = max((len(p) for p in paths), default=0)
    return (np.asarray(indices, np.int64).reshape(-1, 2), np.asarray(values, np.int64),
            np.asarray([batch, longest], np.int64))


def _decoder_specs(inputs, paths, scores):
    batch = inputs.shape.dims[1] if inputs.shape.rank == 3 else None
    if inputs.shape.rank not in (None, 3):
        raise ValueError(f"Shape must be rank 3 but is rank {inputs.shape.rank}")
    specs = [TensorSpec([None, 2], D.int64) for _ in range(paths)]
    specs += [TensorSpec([None], D.int64) for _ in range(paths)]
    specs += [TensorSpec([2], D.int64) for _ in range(paths)]
    return tuple(specs) + (TensorSpec([batch, scores], inputs.dtype),)


@define_op("CTCGreedyDecoder")
class CTCGreedyDecoder:
    """Best-path decoding: per frame the first maximal class; ``log_probability`` is minus the
    sum of those maxima (the logits are not normalized)."""

    check = DtypeCheck("CTCGreedyDecoder", _FLOATS, 1, fixed={1: D.int32})

    def infer(inputs, sequence_length, *, merge_repeated=False, blank_index=-1):
        return _decoder_specs(inputs, 1, 1)

    def kernel(inputs, sequence_length, *, merge_repeated=False, blank_index=-1):
        x, lengths = _validate(inputs, sequence_length)
        _, batch, classes = x.shape
        blank = blank_index + classes if blank_index < 0 else blank_index
        if not 0 <= blank < classes:
            raise errors.invalid_argument(f"blank_index expected to be between {-classes} and "
                                          f"{classes - 1} but was {blank_index}")
        score = np.zeros((batch, 1), x.dtype)
        paths = []
        for b in range(batch):
            n = int(lengths[b])
            best = np.argmax(x[:n, b], axis=1)
            score[b, 0] = -np.sum(x[np.arange(n), b, best], dtype=x.dtype)
            path, prev = [], -1
            for c in best.tolist():
                if c != blank and not (merge_repeated and c == prev):
                    path.append(c)
                prev = c
            paths.append(path)
        indices, values, shape = _sparse_paths(paths, batch)
        return indices, values, shape, score


class _Beam:
    """A prefix in the beam search tree: its last label, parent, children, and the log
    probabilities of the prefix ending in a blank / in its label, now and one frame before."""

    __slots__ = ("label", "parent", "children", "old", "new")

    def __init__(self, label, parent):
        self.label, self.parent, self.children = label, parent, {}
        self.old = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]  # blank, label, total
        self.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]

    def active(self):
        return self.new[2] != _LOG_ZERO

    def child(self, label):
        found = self.children.get(label)
        if found is None:
            found = self.children[label] = _Beam(label, self)
        return found

    def labels(self, merge_repeated):
        seq, node, prev = [], self, -1
        while node.parent is not None:
            if not (merge_repeated and node.label == prev):
                seq.append(node.label)
            prev = node.label
            node = node.parent
        return seq[::-1]


def _log_sum_exp(a, b):
    if a == _LOG_ZERO:
        return b
    if b == _LOG_ZERO:
        return a
    top = max(a, b)
    return top + math.log1p(math.exp(-abs(a - b)))


def _ranked(leaves):
    return sorted(leaves, key=lambda e: e.new[2], reverse=True)


def _beam_step(leaves, log_probs, beam_width):
    """One frame of TF's CTCBeamSearchDecoder::Step on a row of log-probabilities."""
    blank = len(log_probs) - 1
    branches = _ranked(leaves)
    for b in branches:
        b.old = list(b.new)
    leaves = []
    for b in branches:
        if b.parent is not None:
            if b.parent.active():
                prev = b.parent.old[0] if b.label == b.parent.label else b.parent.old[2]
                b.new[1] = _log_sum_exp(b.new[1], prev)
            b.new[1] += log_probs[b.label]
        b.new[0] = b.old[2] + log_probs[blank]
        b.new[2] = _log_sum_exp(b.new[0], b.new[1])
        leaves.append(b)

    def candidate(total):
        return total > _LOG_ZERO and (len(leaves) < beam_width or
                                      total > min(e.new[2] for e in leaves))

    for b in branches:
        if not candidate(b.old[2]):
            continue
        for label in range(blank):
            c = b.child(label)
            if c.active():
                continue
            c.new[0] = _LOG_ZERO
            prev = b.old[0] if label == b.label else b.old[2]
            c.new[1] = c.new[2] = log_probs[label] + prev
            if candidate(c.new[2]):
                if len(leaves) == beam_width:  # the bottom leaves the beam
                    bottom = min(leaves, key=lambda e: e.new[2])
                    bottom.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]
                    leaves.remove(bottom)
                leaves.append(c)
            else:
                c.old = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]
                c.new = [_LOG_ZERO, _LOG_ZERO, _LOG_ZERO]
    return leaves


@define_op("CTCBeamSearchDecoder")
class CTCBeamSearchDecoder:
    """The ``top_paths`` most probable label sequences of each batch entry by beam search
    (``beam_width`` prefixes kept per frame), and their log probabilities."""

    check = DtypeCheck("CTCBeamSearchDecoder", _FLOATS, 1, fixed={1: D.int32})

    def infer(inputs, sequence_length, *, beam_width, top_paths, merge_repeated=True):
        return _decoder_specs(inputs, top_paths, top_paths)

    def kernel(inputs, sequence_length, *, beam_width, top_paths, merge_repeated=True):
        x, lengths = _validate(inputs, sequence_length)
        _, batch, _ = x.shape
        scores = np.zeros((batch, top_paths), x.dtype)
        per_path = [[] for _ in range(top_paths)]
        for b in range(batch):
            root = _Beam(-1, None)
            root.new = [0.0, _LOG_ZERO, 0.0]
            leaves = [root]
            rows = x[:int(lengths[b]), b].astype(np.float64)
            for row in rows:
                top = row.max()
                log_probs = row - (top + np.log(np.sum(np.exp(row - top))))
                leaves = _beam_step(leaves, log_probs.tolist(), beam_width)
            if top_paths > beam_width:
                raise errors.invalid_argument("requested more paths than the beam width.")
            if top_paths > len(leaves):
                raise errors.invalid_argument("Less leaves in the beam search than requested.")
            for p, leaf in enumerate(_ranked(leaves)[:top_paths]):
                per_path[p].append(leaf.labels(merge_repeated))
                scores[b, p] = leaf.new[2]
        triples = [_sparse_paths(paths, batch) for paths in per_path]
        return (tuple(t[0] for t in triples) + tuple(t[1] for t in triples)
                + tuple(t[2] for t in triples) + (scores,))
