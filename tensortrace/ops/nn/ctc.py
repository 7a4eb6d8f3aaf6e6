"""TF's CTCLoss op: the connectionist temporal classification loss of time-major logits
against sparse label sequences (blank = the last class), with its gradient with respect to the
logits, by the forward-backward algorithm in log space (Graves et al., 2006)."""

import numpy as np

from ... import dtypes as D
from ... import errors
from ...registry import DtypeCheck, define_op
from ...tensor import TensorSpec

_FLOATS = (D.float32, D.float64)


def _logsumexp(a, axis=None):
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def _one(log_probs, label, merge_repeated):
    """(-log p(label), d loss / d logits) for one sequence of log-softmax rows."""
    frames, classes = log_probs.shape
    blank = classes - 1
    ext = np.full(2 * len(label) + 1, blank, np.int64)
    ext[1::2] = label
    states = ext.size
    skip = np.zeros(states, bool)  # s-2 -> s allowed: a label differing from the one before
    skip[3::2] = ext[3::2] != ext[1:-2:2] if merge_repeated else True
    alpha = np.full((frames, states), -np.inf)
    beta = np.full((frames, states), -np.inf)
    emit = log_probs[:, ext]
    alpha[0, :2] = emit[0, :2]
    for t in range(1, frames):
        prev = alpha[t - 1]
        stay = prev
        step = np.concatenate([[-np.inf], prev[:-1]])
        jump = np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)
        alpha[t] = _logsumexp(np.stack([stay, step, jump]), axis=0) + emit[t]
    beta[-1, -2:] = emit[-1, -2:]
    for t in range(frames - 2, -1, -1):
        nxt = beta[t + 1]
        stay = nxt
        step = np.concatenate([nxt[1:], [-np.inf]])
        jump = np.concatenate([np.where(skip[2:], nxt[2:], -np.inf), [-np.inf, -np.inf]])
        beta[t] = _logsumexp(np.stack([stay, step, jump]), axis=0) + emit[t]
    log_p = _logsumexp(alpha[-1, -2:])
    occupancy = alpha + beta - emit  # log of the probability of each state at each frame
    grad = np.exp(log_probs)
    if np.isfinite(log_p):
        for s in range(states):
            grad[:, ext[s]] -= np.exp(occupancy[:, s] - log_p)
    return -log_p, grad


@define_op("CTCLoss")
class CTCLoss:
    """Per-sequence CTC loss of ``inputs`` ([max_time, batch, classes] logits, softmax taken
    here) against the SparseTensor labels (indices, values), and its gradient."""

    check = DtypeCheck("CTCLoss", _FLOATS, 1, fixed={1: D.int64, 2: D.int32, 3: D.int32})

    def infer(inputs, labels_indices, labels_values, sequence_length,
              preprocess_collapse_repeated=False, ctc_merge_repeated=True,
              ignore_longer_outputs_than_inputs=False):
        batch = inputs.shape.dims[1] if inputs.shape.rank == 3 else None
        return TensorSpec([batch], inputs.dtype), TensorSpec(inputs.shape, inputs.dtype)

    def kernel(inputs, labels_indices, labels_values, sequence_length,
               preprocess_collapse_repeated=False, ctc_merge_repeated=True,
               ignore_longer_outputs_than_inputs=False):
        x = np.asarray(inputs)
        if x.ndim != 3:
            raise errors.invalid_argument("inputs is not a 3-Tensor")
        frames, batch, classes = x.shape
        lengths = np.asarray(sequence_length).reshape(-1)
        if lengths.size != batch:
            raise errors.invalid_argument(f"len(sequence_length) != batch_size.  "
                                          f"len(sequence_length):  {lengths.size} batch_size: "
                                          f"{batch}")
        idx, vals = np.asarray(labels_indices).reshape(-1, 2), np.asarray(labels_values)
        labels = [[] for _ in range(batch)]
        for (b, _), v in zip(idx.tolist(), vals.tolist()):
            labels[b].append(v)
        loss = np.zeros(batch, np.float64)
        grad = np.zeros(x.shape, np.float64)
        for b in range(batch):
            label, length = labels[b], int(lengths[b])
            if length > frames:
                raise errors.invalid_argument(f"sequence_length({b}) <= {frames}")
            if preprocess_collapse_repeated:
                label = [v for i, v in enumerate(label) if i == 0 or v != label[i - 1]]
            if any(v < 0 or v >= classes for v in label):
                raise errors.invalid_argument(
                    f"Labels must be in range [0, num_classes), saw label "
                    f"{next(v for v in label if v < 0 or v >= classes)} in batch {b}")
            repeats = sum(1 for i in range(1, len(label)) if label[i] == label[i - 1]) \
                if ctc_merge_repeated else 0
            if len(label) + repeats > length:
                if ignore_longer_outputs_than_inputs:
                    continue
                raise errors.invalid_argument(
                    f"Not enough time for target transition sequence (required: "
                    f"{len(label) + repeats}, available: {length})"
                    f"{b}You can turn this error into a warning by using the flag "
                    f"ignore_longer_outputs_than_inputs")
            if length == 0:
                continue
            logits = x[:length, b].astype(np.float64)
            log_probs = logits - _logsumexp(logits, axis=1)[:, None]
            loss[b], grad[:length, b] = _one(log_probs, np.asarray(label, np.int64),
                                             ctc_merge_repeated)
        return loss.astype(x.dtype), grad.astype(x.dtype)
