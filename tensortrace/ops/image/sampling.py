"""SampleDistortedBoundingBox(V2) and its stateless form: TF's rejection sampler of a random crop
(aspect ratio, then height, then offsets, from TF's SimplePhilox words) that covers enough of one
of the given boxes; seeded runs give TF's crops."""

import numpy as np

from ... import dtypes as D
from ..._export import tf_export
from ...context import bind
from ...convert import convert_to_tensor
from ...errors import FailedPreconditionError, invalid_argument
from ...registry import DtypeCheck, define_op
from ...shapes import TensorShape
from ...tensor import Tensor, TensorSpec
from .._base import dtypes_named
from ..random.philox import _u32_to_float
from ..random.seeds import seed_attrs, stateless_philox, stream_draw

_F = np.float32
_INTS = dtypes_named("uint8 int8 int16 int32 int64")
_DEFAULTS = dict(aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                 use_image_if_no_bounding_boxes=False)


class _Words:
    """TF's SimplePhilox: 32-bit words taken one by one from successive Philox blocks."""

    def __init__(self, gen):
        self.gen, self.block, self.buffer = gen, 0, []

    def rand32(self):
        if not self.buffer:
            self.buffer = self.gen.blocks_at(np.array([self.block], np.uint64))[0].tolist()
            self.block += 1
        return self.buffer.pop(0)

    def rand_float(self):
        return _u32_to_float(np.uint32(self.rand32()))

    def uniform(self, n):
        """TF's ExactUniformInt over [0, n): a mask for powers of two, else rejection."""
        if n == 0:
            self.rand32()
            return 0
        if n & (n - 1) == 0:
            return self.rand32() & (n - 1)
        rem = (0xFFFFFFFF % n) + 1
        while True:
            rnd = self.rand32()
            if rnd >= rem:
                return rnd % n


def _lrintf(v):
    return int(np.rint(_F(v)))


def _random_crop(width, height, min_area_frac, max_area_frac, aspect, words):
    """TF's GenerateRandomCrop: (x, y, w, h) or None."""
    if max_area_frac <= 0 or aspect <= 0 or width <= 0 or height <= 0 or \
            min_area_frac > max_area_frac:
        return None
    min_area = _F(_F(min_area_frac * _F(width)) * _F(height))
    max_area = _F(_F(max_area_frac * _F(width)) * _F(height))
    h = _lrintf(np.sqrt(_F(min_area / aspect)))
    max_h = _lrintf(np.sqrt(_F(max_area / aspect)))
    if _lrintf(_F(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(_F(0.0000001))) / float(aspect))
        if _lrintf(_F(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += words.uniform(max_h - h + 1)
    w = _lrintf(_F(h) * aspect)
    area = _F(w * h)
    if area < min_area:
        h += 1
        w = _lrintf(_F(h) * aspect)
        area = _F(w * h)
    if area > max_area:
        h -= 1
        w = _lrintf(_F(h) * aspect)
        area = _F(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = words.uniform(height - h) if h < height else 0
    x = words.uniform(width - w) if w < width else 0
    return x, y, x + w, y + h


def _area(r):
    return _F((r[2] - r[0]) * (r[3] - r[1]))


def _covers(crop, minimum, boxes):
    if _area(crop) < 1:
        return False
    for box in boxes:
        object_area = _area(box)
        if object_area < 1:
            continue
        x0, y0 = max(crop[0], box[0]), max(crop[1], box[1])
        x1, y1 = min(crop[2], box[2]), min(crop[3], box[3])
        inter = (0, 0, 0, 0) if x0 > x1 or y0 > y1 else (x0, y0, x1, y1)
        if _F(_area(inter) / object_area) >= minimum:
            return True
    return False


def _sample(image_size, boxes, min_covered, words, aspect_ratio_range, area_range,
            max_attempts, use_image_if_no_bounding_boxes):
    size = np.asarray(image_size)
    if size.ndim != 1:
        raise invalid_argument(f"image_size must be 1-dimensional{list(size.shape)}")
    if size.shape[0] != 3:
        raise invalid_argument(f"image_size must contain 3 elements[{size.shape[0]}]")
    height, width = int(size[0]), int(size[1])
    b = np.asarray(boxes, _F)
    if b.ndim != 3:
        raise invalid_argument("input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                               f"[{','.join(str(d) for d in b.shape)}]")
    if b.shape[-1] != 4:
        raise invalid_argument("bounding boxes must have shape [4] or [*, 4], got "
                               f"[{','.join(str(d) for d in b.shape)}]")
    if min_covered < 0:
        raise invalid_argument(f"Min object covered must be non-negative: {min_covered:g}")
    rects = []
    for row in b.reshape(-1, 4):
        for v in row:
            if not 0.0 <= v <= 1.0:
                raise invalid_argument(f"All bounding box coordinates must be in [0.0, 1.0]: "
                                       f"{float(v):g}")
        rects.append((int(row[1] * _F(width)), int(row[0] * _F(height)),
                      int(row[3] * _F(width)), int(row[2] * _F(height))))
    image_rect = (0, 0, width, height)
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise invalid_argument("No bounding boxes provided as input. One must enable "
                                   "use_image_if_no_bounding_boxes if you wish to not provide "
                                   "any bounding boxes.")
        rects.append(image_rect)
    lo_aspect, hi_aspect = _F(aspect_ratio_range[0]), _F(aspect_ratio_range[1])
    crop = image_rect
    for _ in range(max_attempts):
        aspect = _F(words.rand_float() * (hi_aspect - lo_aspect) + lo_aspect)
        found = _random_crop(width, height, _F(area_range[0]), _F(area_range[1]), aspect, words)
        if found is not None and _covers(found, _F(min_covered), rects):
            crop = found
            break
    tw, th = crop[2] - crop[0], crop[3] - crop[1]
    if width < tw + crop[0] or height < th + crop[1]:
        raise FailedPreconditionError(None, None, "crop outside the image")
    dtype = size.dtype
    begin = np.array([crop[1], crop[0], 0], dtype)
    extent = np.array([th, tw, -1], dtype)
    bbox = np.array([[[_F(crop[1]) / _F(height), _F(crop[0]) / _F(width),
                       _F(crop[3]) / _F(height), _F(crop[2]) / _F(width)]]], _F)
    return begin, extent, bbox


def _check_attrs(aspect_ratio_range, area_range, max_attempts, **_):
    if len(aspect_ratio_range) != 2:
        raise invalid_argument("Aspect ratio range field must specify 2 dimensions")
    if not (aspect_ratio_range[0] > 0 and aspect_ratio_range[1] > 0):
        raise invalid_argument(f"Aspect ratio range must be non-negative: "
                               f"[{aspect_ratio_range[0]:g}, {aspect_ratio_range[1]:g}]")
    if len(area_range) != 2:
        raise invalid_argument("Area range field must specify 2 dimensions")
    if not (area_range[0] > 0 and area_range[1] > 0):
        raise invalid_argument(f"Area range must be non-negative: [{area_range[0]:g}, "
                               f"{area_range[1]:g}]")
    if not (area_range[0] <= 1 and area_range[1] <= 1):
        raise invalid_argument(f"Area range must be less then or equal to 1.0: "
                               f"[{area_range[0]:g}, {area_range[1]:g}]")
    if max_attempts <= 0:
        raise invalid_argument(f"Max attempts must be non-negative: {max_attempts}")


def _specs(image_size):
    return (TensorSpec(TensorShape([3]), image_size.dtype),
            TensorSpec(TensorShape([3]), image_size.dtype),
            TensorSpec(TensorShape([1, 1, 4]), D.float32))


@define_op("SampleDistortedBoundingBoxV2", stateful=True)
class SampleDistortedBoundingBoxV2:
    """(begin, size, bboxes) of a random crop covering ``min_object_covered`` of a box."""

    check = DtypeCheck("SampleDistortedBoundingBoxV2", _INTS, 1,
                       fixed={1: D.float32, 2: D.float32})

    def infer(image_size, bounding_boxes, min_object_covered, *, seed=0, seed2=0, _stream=0,
              **attrs):
        return _specs(image_size)

    def kernel(image_size, bounding_boxes, min_object_covered, *, seed=0, seed2=0, _stream=0,
               **attrs):
        attrs = {**_DEFAULTS, **attrs}
        _check_attrs(**attrs)
        covered = np.asarray(min_object_covered)
        if covered.ndim:
            raise invalid_argument("min_object_covered must be 0-D, got shape "
                                   f"[{','.join(str(d) for d in covered.shape)}]")
        # TF reserves 4 words per attempt: max_attempts Philox counters
        gen = stream_draw(("SampleDistortedBoundingBoxV2",), seed, seed2, _stream, 0,
                          counters=attrs["max_attempts"])
        return _sample(image_size, bounding_boxes, float(covered), _Words(gen), **attrs)


@define_op("StatelessSampleDistortedBoundingBox")
class StatelessSampleDistortedBoundingBox:
    """SampleDistortedBoundingBoxV2 drawn from a shape-[2] ``seed``."""

    check = DtypeCheck("StatelessSampleDistortedBoundingBox", _INTS, 1,
                       fixed={1: D.float32, 2: D.float32})

    def infer(image_size, bounding_boxes, min_object_covered, seed, **attrs):
        return _specs(image_size)

    def kernel(image_size, bounding_boxes, min_object_covered, seed, **attrs):
        attrs = {**_DEFAULTS, **attrs}
        _check_attrs(**attrs)
        covered = np.asarray(min_object_covered)
        return _sample(image_size, bounding_boxes, float(covered), _Words(stateless_philox(seed)),
                       **attrs)


def _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    given = dict(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                 max_attempts=max_attempts,
                 use_image_if_no_bounding_boxes=use_image_if_no_bounding_boxes)
    out = {**_DEFAULTS, **{k: v for k, v in given.items() if v is not None}}
    out["aspect_ratio_range"] = tuple(float(v) for v in out["aspect_ratio_range"])
    out["area_range"] = tuple(float(v) for v in out["area_range"])
    out["max_attempts"] = int(out["max_attempts"])
    out["use_image_if_no_bounding_boxes"] = bool(out["use_image_if_no_bounding_boxes"])
    return out


def _inputs(image_size, bounding_boxes, min_object_covered):
    size = image_size if isinstance(image_size, Tensor) else convert_to_tensor(image_size)
    return (size, convert_to_tensor(bounding_boxes, D.float32),
            convert_to_tensor(min_object_covered, D.float32))


@tf_export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes): a random crop for ``tf.slice``, covering at least
    ``min_object_covered`` of one of ``bounding_boxes``. ``seed=0`` is nondeterministic (as
    in TF, even under a global seed)."""
    seeds = seed_attrs(seed) if seed else {"seed": 0, "seed2": 0}
    attrs = _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)
    return bind(SampleDistortedBoundingBoxV2,
                *_inputs(image_size, bounding_boxes, min_object_covered), **seeds, **attrs)


@tf_export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """``sample_distorted_bounding_box`` drawn from ``seed`` (the same crop every call)."""
    attrs = _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)
    return bind(StatelessSampleDistortedBoundingBox,
                *_inputs(image_size, bounding_boxes, min_object_covered),
                convert_to_tensor(seed, D.int64) if not isinstance(seed, Tensor) else seed,
                **attrs)
