"""Bounding boxes: non-max suppression (NonMaxSuppressionV3/V4/V5, WithOverlaps), CropAndResize
and its two gradient kernels, DrawBoundingBoxesV2 -- TF's CPU kernels step for step in float32.
"""

import heapq

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import OutOfRangeError, invalid_argument
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec, static_value
from .._base import dtypes_named

_F = np.float32
_NMS_T = dtypes_named("float16 float32")
_REAL = dtypes_named("uint8 uint16 int8 int16 int32 int64 float16 float32 float64")


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# --- non-max suppression -------------------------------------------------------------------------
def _iou_matrix(boxes):
    """TF's IOU(i, j) for every pair, in float32."""
    b = np.asarray(boxes).astype(_F)
    ymin, ymax = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    xmin, xmax = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    iy = np.maximum(np.minimum(ymax[:, None], ymax[None]) - np.maximum(ymin[:, None], ymin[None]),
                    _F(0))
    ix = np.maximum(np.minimum(xmax[:, None], xmax[None]) - np.maximum(xmin[:, None], xmin[None]),
                    _F(0))
    inter = iy * ix
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    bad = (area[:, None] <= 0) | (area[None] <= 0)
    return np.where(bad, _F(0), iou).astype(_F)


def _suppress(similarity, scores, max_output, threshold, score_threshold, sigma, pad):
    """TF's DoNonMaxSuppressionOp: greedy selection by score (ties: lower index first), hard
    suppression above ``threshold`` or Gaussian soft suppression when ``sigma`` > 0."""
    dtype = scores.dtype.type
    if max_output < 0:
        raise invalid_argument("output size must be non-negative")
    heap = [(-s, i, 0, dtype(s)) for i, s in enumerate(scores.tolist())
            if dtype(s) > score_threshold]
    heapq.heapify(heap)
    soft = sigma > 0
    scale = dtype(-0.5) / dtype(sigma) if soft else dtype(0)
    selected, selected_scores = [], []
    while len(selected) < max_output and heap:
        _, index, begin, score = heapq.heappop(heap)
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = dtype(similarity(index, selected[j]))
            weight = dtype(np.exp(np.float64(dtype(scale * sim * sim))))
            score = dtype(score * (weight if soft or sim <= threshold else dtype(0)))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if not hard:
            if score == original:
                selected.append(index)
                selected_scores.append(score)
                continue
            if score > score_threshold:
                heapq.heappush(heap, (-float(score), index, len(selected), score))
    valid = len(selected)
    if pad:
        selected += [0] * (max_output - valid)
        selected_scores += [0] * (max_output - valid)
    return (np.array(selected, np.int32), np.array(selected_scores, scores.dtype),
            np.int32(valid))


def _nms_checks(boxes, scores, max_output_size, scalars):
    m = np.asarray(max_output_size)
    if m.ndim:
        raise invalid_argument(f"max_output_size must be 0-D, got shape {_dims(m.shape)}")
    for name, value in scalars:
        if np.ndim(value):
            raise invalid_argument(f"{name} must be 0-D, got shape {_dims(np.shape(value))}")
    b, s = np.asarray(boxes), np.asarray(scores)
    if b.ndim != 2:
        raise invalid_argument(f"boxes must be 2-D{_dims(b.shape)} (Shape must be rank 2 but is "
                               f"rank {b.ndim})")
    if b.shape[1] != 4:
        raise invalid_argument(f"boxes must have 4 columns (Dimension must be 4 but is "
                               f"{b.shape[1]})")
    if s.ndim != 1:
        raise invalid_argument(f"scores must be 1-D{_dims(s.shape)} (Shape must be rank 1 but "
                               f"is rank {s.ndim})")
    if s.shape[0] != b.shape[0]:
        raise invalid_argument(f"scores has incompatible shape (Dimensions must be equal, but "
                               f"are {b.shape[0]} and {s.shape[0]})")
    return int(m), s


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, sigma=0.0,
         pad=False):
    m, s = _nms_checks(boxes, scores, max_output_size,
                       [("iou_threshold", iou_threshold), ("score_threshold", score_threshold)])
    t = s.dtype.type
    thr = t(np.asarray(iou_threshold))
    if not (thr >= 0 and thr <= 1):
        raise invalid_argument("iou_threshold must be in [0, 1]")
    iou = _iou_matrix(boxes)
    return _suppress(lambda i, j: iou[i, j], s, m, thr, t(np.asarray(score_threshold)),
                     t(sigma), pad)


def _infer_indices(boxes, scores, pad, max_output_size):
    n = static_value(max_output_size) if pad else None
    return TensorSpec(TensorShape([None if n is None else int(n)]), D.int32)


@define_op("NonMaxSuppressionV3")
class NonMaxSuppressionV3:
    """Indices of the boxes greedy IoU suppression keeps, best score first."""

    check = DtypeCheck("NonMaxSuppressionV3", _NMS_T, 2,
                       fixed={2: D.int32})

    def infer(boxes, scores, max_output_size, iou_threshold, score_threshold):
        return _infer_indices(boxes, scores, False, max_output_size)

    def kernel(boxes, scores, max_output_size, iou_threshold, score_threshold):
        return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold)[0]


@define_op("NonMaxSuppressionV4")
class NonMaxSuppressionV4:
    """NonMaxSuppressionV3 with the count of valid indices, optionally padded with zeros."""

    check = DtypeCheck("NonMaxSuppressionV4", _NMS_T, 2, fixed={2: D.int32})

    def infer(boxes, scores, max_output_size, iou_threshold, score_threshold, *,
              pad_to_max_output_size=False):
        return (_infer_indices(boxes, scores, pad_to_max_output_size, max_output_size),
                TensorSpec(TensorShape([]), D.int32))

    def kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, *,
               pad_to_max_output_size=False):
        out = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                   pad=pad_to_max_output_size)
        return out[0], out[2]


@define_op("NonMaxSuppressionV5")
class NonMaxSuppressionV5:
    """Soft-NMS: indices, their (decayed) scores and the valid count."""

    check = DtypeCheck("NonMaxSuppressionV5", _NMS_T, 2, fixed={2: D.int32})

    def infer(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, *,
              pad_to_max_output_size=False):
        idx = _infer_indices(boxes, scores, pad_to_max_output_size, max_output_size)
        return idx, TensorSpec(idx.shape, scores.dtype), TensorSpec(TensorShape([]), D.int32)

    def kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, *,
               pad_to_max_output_size=False):
        sigma = np.asarray(soft_nms_sigma)
        if sigma.ndim:
            raise invalid_argument(f"soft_nms_sigma must be 0-D, got shape {_dims(sigma.shape)}")
        if not sigma >= 0:
            raise invalid_argument("soft_nms_sigma_val must be >= 0")
        return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, sigma,
                    pad_to_max_output_size)


@define_op("NonMaxSuppressionWithOverlaps")
class NonMaxSuppressionWithOverlaps:
    """Greedy suppression by a given [n, n] overlap matrix."""

    check = DtypeCheck("NonMaxSuppressionWithOverlaps", (D.float32,), 2, fixed={2: D.int32})

    def infer(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        return TensorSpec(TensorShape([None]), D.int32)

    def kernel(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        o = np.asarray(overlaps, _F)
        m = np.asarray(max_output_size)
        if m.ndim:
            raise invalid_argument(f"max_output_size must be 0-D, got shape {_dims(m.shape)}")
        if o.ndim != 2:
            raise invalid_argument(f"overlaps must be 2-D{_dims(o.shape)}")
        if o.shape[1] != o.shape[0]:
            raise invalid_argument(f"overlaps must be square{_dims(o.shape)}")
        s = np.asarray(scores, _F)
        if s.ndim != 1 or s.shape[0] != o.shape[0]:
            raise invalid_argument(f"scores has incompatible shape (Dimensions must be equal, "
                                   f"but are {o.shape[0]} and {s.shape[0] if s.ndim else 0})")
        return _suppress(lambda i, j: o[i, j], s, int(m), _F(overlap_threshold),
                         _F(score_threshold), _F(0), False)[0]


def _scalar(value, dtype):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype)


def _nms_args(boxes, scores, max_output_size, iou_threshold, score_threshold):
    boxes, scores = convert_to_tensor(boxes), convert_to_tensor(scores)
    return (boxes, scores, _scalar(max_output_size, D.int32),
            _scalar(iou_threshold, scores.dtype), _scalar(score_threshold, scores.dtype))


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices (int32) of at most ``max_output_size`` boxes, best score first, none overlapping
    a better one by more than ``iou_threshold``."""
    return bind(NonMaxSuppressionV3, *_nms_args(boxes, scores, max_output_size, iou_threshold,
                                                 score_threshold))


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """(indices, scores): with ``soft_nms_sigma`` > 0, overlapping boxes' scores decay by
    exp(-iou**2 / (2 sigma)) instead of being dropped (Soft-NMS)."""
    args = _nms_args(boxes, scores, max_output_size, iou_threshold, score_threshold)
    sigma = _scalar(soft_nms_sigma, args[1].dtype)
    indices, kept, _ = bind(NonMaxSuppressionV5, *args, sigma, pad_to_max_output_size=False)
    return indices, kept


@tf_export("image.non_max_suppression_overlaps")
def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy suppression with a precomputed overlap matrix."""
    return bind(NonMaxSuppressionWithOverlaps, convert_to_tensor(overlaps, D.float32),
                convert_to_tensor(scores, D.float32), _scalar(max_output_size, D.int32),
                _scalar(overlap_threshold, D.float32), _scalar(score_threshold, D.float32))


@define_op("CombinedNonMaxSuppression")
class CombinedNonMaxSuppression:
    """Per-class greedy NMS over a batch, then the best ``max_total_size`` detections of each
    image (boxes clipped to [0, 1] when ``clip_boxes``), zero-padded. Equal scores keep box
    order (TF's heap and std::sort leave their order to the implementation)."""

    check = DtypeCheck("CombinedNonMaxSuppression", (D.float32,), 2,
                       fixed={2: D.int32, 3: D.int32, 4: D.float32, 5: D.float32})

    def infer(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
              score_threshold, *, pad_per_class=False, clip_boxes=True):
        total, per_class = static_value(max_total_size), static_value(max_output_size_per_class)
        classes = scores.shape.dims[2] if scores.shape.rank == 3 else None
        size = None if total is None else int(total)
        if pad_per_class and size is not None:
            size = None if per_class is None or classes is None else \
                min(size, int(per_class) * classes)
        batch = boxes.shape.dims[0] if boxes.shape.rank else None
        return (TensorSpec(TensorShape([batch, size, 4]), D.float32),
                TensorSpec(TensorShape([batch, size]), D.float32),
                TensorSpec(TensorShape([batch, size]), D.float32),
                TensorSpec(TensorShape([batch]), D.int32))

    def kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
               score_threshold, *, pad_per_class=False, clip_boxes=True):
        b, s = np.asarray(boxes, _F), np.asarray(scores, _F)
        if b.ndim != 4:
            raise invalid_argument(f"boxes must be 4-D [batch, num_boxes, q, 4], got shape "
                                   f"{_dims(b.shape)}")
        if s.ndim != 3:
            raise invalid_argument(f"scores must be 3-D [batch, num_boxes, num_classes], got "
                                   f"shape {_dims(s.shape)}")
        num_boxes, classes, q = b.shape[1], s.shape[2], b.shape[2]
        if q not in (1, classes):
            raise invalid_argument("third dimension of boxes must be either 1 or num classes")
        if b.shape[3] != 4:
            raise invalid_argument("boxes must have 4 columns")
        if s.shape[1] != num_boxes:
            raise invalid_argument("scores has incompatible shape")
        if b.shape[0] != s.shape[0]:
            raise invalid_argument("boxes and scores must have same batch size")
        for name, value in (("max_size_per_class", max_output_size_per_class),
                            ("max_total_size", max_total_size), ("iou_threshold", iou_threshold),
                            ("score_threshold", score_threshold)):
            if np.ndim(value):
                raise invalid_argument(f"{name} must be 0-D, got shape "
                                       f"{_dims(np.shape(value))}")
        per_class, total = int(max_output_size_per_class), int(max_total_size)
        if per_class <= 0:
            raise invalid_argument("max_size_per_class must be positive")
        if total <= 0:
            raise invalid_argument("max_total_size must be > 0")
        iou_thr, score_thr = _F(iou_threshold), _F(score_threshold)
        if not (iou_thr >= 0 and iou_thr <= 1):
            raise invalid_argument("iou_threshold must be in [0, 1]")
        size_per_class = min(per_class, num_boxes)
        out_size = min(total, per_class * classes) if pad_per_class else total
        out_boxes = np.zeros((b.shape[0], out_size, 4), _F)
        out_scores = np.zeros((b.shape[0], out_size), _F)
        out_classes = np.zeros((b.shape[0], out_size), _F)
        valid = np.zeros(b.shape[0], np.int32)
        for n in range(b.shape[0]):
            found = []  # (score, slot, class, box) in TF's candidate-vector order
            for c in range(classes):
                class_boxes = b[n, :, c if q > 1 else 0]
                iou = _iou_matrix(class_boxes)
                order = sorted((i for i in range(num_boxes) if s[n, i, c] > score_thr),
                               key=lambda i: -s[n, i, c])
                chosen = []
                for i in order:
                    if len(chosen) >= size_per_class:
                        break
                    if all(iou[i, j] <= iou_thr for j in reversed(chosen)):
                        found.append((s[n, i, c], c * size_per_class + len(chosen), c,
                                      class_boxes[i]))
                        chosen.append(i)
            found.sort(key=lambda r: (-r[0], r[1]))
            count = min(len(found), out_size if pad_per_class else total)
            valid[n] = count
            for k, (score, _, c, box) in enumerate(found[:count]):
                out_boxes[n, k] = np.clip(box, 0, 1) if clip_boxes else box
                out_scores[n, k], out_classes[n, k] = score, c
        return out_boxes, out_scores, out_classes, valid


@tf_export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections) of a detector's batched
    boxes [batch, n, q, 4] and class scores [batch, n, classes]."""
    return tuple(bind(CombinedNonMaxSuppression, convert_to_tensor(boxes, D.float32),
                      convert_to_tensor(scores, D.float32),
                      _scalar(max_output_size_per_class, D.int32),
                      _scalar(max_total_size, D.int32), _scalar(iou_threshold, D.float32),
                      _scalar(score_threshold, D.float32), pad_per_class=bool(pad_per_class),
                      clip_boxes=bool(clip_boxes)))


# --- crop and resize -----------------------------------------------------------------------------
def _sample_points(y1, y2, out, size):
    """TF's in_y for every crop row (float32, or its double midpoint for one row)."""
    if out > 1:
        scale = (y2 - y1) * _F(size - 1) / _F(out - 1)
        return y1 * _F(size - 1) + np.arange(out, dtype=_F) * scale
    return np.array([_F(0.5 * (float(y1) + float(y2)) * (size - 1))], _F)


def _check_crop(image, boxes, box_index, method):
    if method not in ("bilinear", "nearest"):
        raise invalid_argument(f"Value for attr 'method' of \"{method}\" is not in the list of "
                               "allowed values: \"bilinear\", \"nearest\"")
    b, idx = np.asarray(boxes, _F), np.asarray(box_index)
    if b.ndim != 2 or b.shape[1] != 4:
        raise invalid_argument(f"boxes must be 2-D [num_boxes, 4]: {_dims(b.shape)}")
    if idx.shape != (b.shape[0],):
        raise invalid_argument("box_index has incompatible shape")
    if ((idx < 0) | (idx >= np.shape(image)[0])).any():
        raise OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")
    if not np.isfinite(b).all():
        raise invalid_argument("Boxes contains at least one element that is not finite")
    return b, idx


def _roundf(v):
    """C's roundf of non-negative floats (halves up), without float32 rounding of v + 0.5."""
    low = np.floor(v)
    return (low + (v - low >= 0.5)).astype(np.int64)


def _taps(b, n, crop_h, crop_w, height, width):
    """Rows, columns, lerps and in-image masks of box ``n``."""
    ys = _sample_points(b[n, 0], b[n, 2], crop_h, height)
    xs = _sample_points(b[n, 1], b[n, 3], crop_w, width)
    y_ok, x_ok = (ys >= 0) & (ys <= height - 1), (xs >= 0) & (xs <= width - 1)
    ysafe, xsafe = np.where(y_ok, ys, 0), np.where(x_ok, xs, 0)
    top, left = np.floor(ysafe).astype(np.int64), np.floor(xsafe).astype(np.int64)
    bottom, right = np.ceil(ysafe).astype(np.int64), np.ceil(xsafe).astype(np.int64)
    return (ysafe, xsafe, top, bottom, left, right, (ysafe - top).astype(_F),
            (xsafe - left).astype(_F), y_ok, x_ok)


@define_op("CropAndResize")
class CropAndResize:
    """Crops of ``image`` at normalized ``boxes``, each resampled to ``crop_size`` (float32)."""

    check = DtypeCheck("CropAndResize", _REAL, 1, fixed={1: D.float32, 2: D.int32, 3: D.int32})

    def infer(image, boxes, box_ind, crop_size, *, method="bilinear", extrapolation_value=0.0):
        size = static_value(crop_size)
        hw = [None, None] if size is None else [int(v) for v in size]
        n = boxes.shape.dims[0] if boxes.shape.rank else None
        depth = image.shape.dims[3] if image.shape.rank == 4 else None
        return TensorSpec(TensorShape([n] + hw + [depth]), D.float32)

    def kernel(image, boxes, box_ind, crop_size, *, method="bilinear", extrapolation_value=0.0):
        x = np.asarray(image)
        if x.ndim != 4:
            raise invalid_argument(f"input image must be 4-D{_dims(x.shape)}")
        b, idx = _check_crop(x, boxes, box_ind, method)
        crop_h, crop_w = (int(v) for v in np.asarray(crop_size))
        if crop_h <= 0 or crop_w <= 0:
            raise invalid_argument("crop dimensions must be positive")
        _, height, width, depth = x.shape
        out = np.empty((len(b), crop_h, crop_w, depth), _F)
        for n in range(len(b)):
            img = x[idx[n]].astype(_F)
            ys, xs, top, bottom, left, right, ly, lx, y_ok, x_ok = _taps(
                b, n, crop_h, crop_w, height, width)
            if method == "bilinear":
                lx3 = lx[None, :, None]
                tl, tr = img[top][:, left], img[top][:, right]
                bl, br = img[bottom][:, left], img[bottom][:, right]
                top_row = tl + (tr - tl) * lx3
                bottom_row = bl + (br - bl) * lx3
                val = top_row + (bottom_row - top_row) * ly[:, None, None]
            else:
                val = img[_roundf(ys)][:, _roundf(xs)]
            ok = y_ok[:, None, None] & x_ok[None, :, None]
            out[n] = np.where(ok, val, _F(extrapolation_value))
        return out


@define_op("CropAndResizeGradImage")
class CropAndResizeGradImage:
    """The gradient of CropAndResize with respect to the image."""

    check = DtypeCheck("CropAndResizeGradImage", same=1, fixed={0: D.float32, 1: D.float32,
                                                                2: D.int32, 3: D.int32})

    def infer(grads, boxes, box_ind, image_size, *, T=D.float32, method="bilinear"):
        size = static_value(image_size)
        dims = [None] * 4 if size is None else [int(v) for v in np.asarray(size)]
        return TensorSpec(TensorShape(dims), T)

    def kernel(grads, boxes, box_ind, image_size, *, T=D.float32, method="bilinear"):
        g = np.asarray(grads, _F)
        batch, height, width, depth = (int(v) for v in np.asarray(image_size))
        b, idx = _check_crop(np.zeros((batch, 1)), boxes, box_ind, method)
        out = np.zeros((batch, height, width, depth), _F)
        _, crop_h, crop_w, _ = g.shape
        for n in range(len(b)):
            ys, xs, top, bottom, left, right, ly, lx, y_ok, x_ok = _taps(
                b, n, crop_h, crop_w, height, width)
            yy, xx = np.nonzero(y_ok[:, None] & x_ok[None, :])
            gv = g[n, yy, xx]
            if method == "bilinear":
                wy, wx = ly[yy][:, None], lx[xx][:, None]
                dtop, dbottom = (1 - wy) * gv, wy * gv
                parts = [(top[yy], left[xx], (1 - wx) * dtop), (top[yy], right[xx], wx * dtop),
                         (bottom[yy], left[xx], (1 - wx) * dbottom),
                         (bottom[yy], right[xx], wx * dbottom)]
                # TF adds the four corners pixel by pixel: interleave them in that order
                rows = np.stack([p[0] for p in parts], 1).ravel()
                cols = np.stack([p[1] for p in parts], 1).ravel()
                vals = np.stack([p[2] for p in parts], 1).reshape(-1, depth)
                np.add.at(out[idx[n]], (rows, cols), vals)
            else:
                np.add.at(out[idx[n]], (_roundf(ys[yy]), _roundf(xs[xx])), gv)
        return out.astype(T.as_numpy_dtype)


@define_op("CropAndResizeGradBoxes")
class CropAndResizeGradBoxes:
    """The gradient of CropAndResize with respect to the boxes (bilinear sampling's)."""

    check = DtypeCheck("CropAndResizeGradBoxes", _REAL, 1, first=1,
                       fixed={0: D.float32, 2: D.float32, 3: D.int32})

    def infer(grads, image, boxes, box_ind, *, method="bilinear"):
        return TensorSpec(boxes.shape, D.float32)

    def kernel(grads, image, boxes, box_ind, *, method="bilinear"):
        g, x = np.asarray(grads, _F), np.asarray(image)
        b, idx = _check_crop(x, boxes, box_ind, "bilinear")
        _, crop_h, crop_w, depth = g.shape
        _, height, width, _ = x.shape
        out = np.zeros((len(b), 4), _F)
        h_ratio = _F(height - 1) / _F(crop_h - 1) if crop_h > 1 else _F(0)
        w_ratio = _F(width - 1) / _F(crop_w - 1) if crop_w > 1 else _F(0)
        for n in range(len(b)):
            img = x[idx[n]].astype(_F)
            ys, xs, top, bottom, left, right, ly, lx, y_ok, x_ok = _taps(
                b, n, crop_h, crop_w, height, width)
            yy, xx = np.nonzero(y_ok[:, None] & x_ok[None, :])
            tl, tr = img[top[yy], left[xx]], img[top[yy], right[xx]]
            bl, br = img[bottom[yy], left[xx]], img[bottom[yy], right[xx]]
            wx, wy = lx[xx][:, None], ly[yy][:, None]
            gy = ((1 - wx) * (bl - tl) + wx * (br - tr)) * g[n, yy, xx]
            gx = ((1 - wy) * (tr - tl) + wy * (br - bl)) * g[n, yy, xx]
            yf, xf = yy.astype(_F)[:, None], xx.astype(_F)[:, None]
            if crop_h > 1:
                d0, d2 = gy * (_F(height - 1) - yf * h_ratio), gy * (yf * h_ratio)
            else:
                d0 = d2 = (gy * _F(0.5)) * _F(height - 1)
            if crop_w > 1:
                d1, d3 = gx * (_F(width - 1) - xf * w_ratio), gx * (xf * w_ratio)
            else:
                d1 = d3 = (gx * _F(0.5)) * _F(width - 1)
            for k, d in enumerate((d0, d1, d2, d3)):  # TF's running float sums, in order
                out[n, k] = np.cumsum(np.concatenate([[_F(0)], d.ravel()]), dtype=_F)[-1]
        return out


@tf_export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """For each box ([y1, x1, y2, x2], normalized) of image ``box_indices[i]``, a crop resampled
    to ``crop_size``; samples outside the image take ``extrapolation_value``."""
    return bind(CropAndResize, convert_to_tensor(image), convert_to_tensor(boxes, D.float32),
                convert_to_tensor(box_indices, D.int32), convert_to_tensor(crop_size, D.int32),
                method=method, extrapolation_value=float(extrapolation_value))


# --- drawing -------------------------------------------------------------------------------------
_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
           [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


@define_op("DrawBoundingBoxesV2")
class DrawBoundingBoxesV2:
    """``images`` with each box's outline drawn in the color table's colors, in turn."""

    check = DtypeCheck("DrawBoundingBoxesV2", dtypes_named("float32 float16"), 2,
                       fixed={2: D.float32})

    def infer(images, boxes, colors):
        return TensorSpec(images.shape, images.dtype)

    def kernel(images, boxes, colors):
        x = np.array(images)
        if x.ndim != 4:
            raise invalid_argument(f"The rank of the images should be 4{_dims(x.shape)}")
        _, height, width, depth = x.shape
        if depth not in (1, 3, 4):
            raise invalid_argument("Channel depth should be either 1 (GRY), 3 (RGB), or 4 "
                                   "(RGBA)")
        c = np.asarray(colors, _F)
        if c.size:
            if c.ndim != 2:
                raise invalid_argument(f"colors must be a 2-D matrix{_dims(c.shape)}")
            if c.shape[1] < depth:
                raise invalid_argument(f"colors must have equal or more channels than the "
                                       f"image provided: {_dims(c.shape)}")
            table = c.tolist()
        else:
            table = [list(row) for row in _COLORS]
            if depth == 1:
                for row in table:
                    row[0] = 1
        bx = np.asarray(boxes)
        for n in range(x.shape[0]):
            for k in range(bx.shape[1]):
                color = np.asarray(table[k % len(table)][:depth], x.dtype)
                edges = (_F(bx[n, k, 0]) * _F(height - 1), _F(bx[n, k, 2]) * _F(height - 1),
                         _F(bx[n, k, 1]) * _F(width - 1), _F(bx[n, k, 3]) * _F(width - 1))
                r0, r1, c0, c1 = (int(v) for v in edges)  # C's truncation toward zero
                if r0 > r1 or c0 > c1 or r0 >= height or r1 < 0 or c0 >= width or c1 < 0:
                    continue
                rows = slice(max(r0, 0), min(r1, height - 1) + 1)
                cols = slice(max(c0, 0), min(c1, width - 1) + 1)
                if r0 >= 0:
                    x[n, r0, cols] = color
                if r1 < height:
                    x[n, r1, cols] = color
                if c0 >= 0:
                    x[n, rows, c0] = color
                if c1 < width:
                    x[n, rows, c1] = color
        return x


@tf_export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, colors, name=None):
    """Box outlines ([y_min, x_min, y_max, x_max], normalized) drawn on a batch of images."""
    images = convert_to_tensor(images)
    return bind(DrawBoundingBoxesV2, images, convert_to_tensor(boxes, images.dtype),
                convert_to_tensor(colors if colors is not None else np.zeros([0, 0]), D.float32))
