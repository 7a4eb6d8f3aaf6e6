"""Gradients of the image ops, as TF's image_grad.py: the resize ops through their gradient
kernels (ScaleAndTranslate's: TF's transposed spans; ResizeArea has none in TF),
ExtractImagePatches by summing each patch entry back into its source pixel, RGBToHSV by
differentiating its piecewise formula; TF defines none for the color adjustments."""

from ... import dtypes as D
from ...context import bind
from ...convert import convert_to_tensor
from ...ops.array.creation import ones
from ...ops.array.joining import concat, stack
from ...ops.array.ranges import range as tf_range
from ...ops.array.reshaping import reshape, transpose
from ...ops.array.shapes import shape
from ...ops.image.boxes import CropAndResizeGradBoxes, CropAndResizeGradImage
from ...ops.image.patches import ExtractImagePatches
from ...ops.image.resize import (ResizeBicubicGrad, ResizeBilinearGrad,
                                 ResizeNearestNeighborGrad)
from ...ops.image.scale import ScaleAndTranslateGrad
from ...ops.image.transform import ImageProjectiveTransformV2, ImageProjectiveTransformV3
from ...ops.indexing.segment import unsorted_segment_sum
from ...ops.linalg.decompositions import inv as matrix_inverse
from ...ops.math.casting import cast
from ...ops.math.compare import equal, greater, logical_and, logical_not, logical_or
from ...ops.math.arithmetic import maximum, minimum
from ...ops.math.select import where
from ..grad_util import no_gradient, not_differentiable, register_gradients


def _resize(grad_op):
    def rule(op, dy):
        return bind(grad_op, dy, op.inputs[0], **op.attrs), None

    return rule


def _scale_and_translate(op, dy):
    images, _, scale, translation = op.inputs
    return bind(ScaleAndTranslateGrad, dy, images, scale, translation, **op.attrs), None, None, \
        None


def _crop_and_resize(op, dy):
    """TF's rule: the image's gradient for float images; the boxes' from bilinear sampling
    (also for nearest, as TF approximates it)."""
    image, boxes, box_ind, _ = op.inputs
    size = shape(image)
    grad_image = None
    if image.dtype in (D.float16, D.float32, D.float64):
        grad_image = bind(CropAndResizeGradImage, dy, boxes, box_ind, size, T=image.dtype,
                          method=op.attrs["method"])
    grad_boxes = bind(CropAndResizeGradBoxes, dy, image, boxes, box_ind)
    return grad_image, grad_boxes, None, None


def _inverse_transforms(transforms):
    n = shape(transforms)[0]
    matrices = reshape(concat([transforms, ones(stack([n, 1]), D.float32)], 1), [-1, 3, 3])
    flat = reshape(matrix_inverse(matrices), [-1, 9])
    return (flat / flat[:, 8:9])[:, :8]


def _projective(op, dy):
    """TF's rule: the gradient resampled through the inverse transforms (fill value 0)."""
    images, transforms = op.inputs[0], op.inputs[1]
    grad = bind(ImageProjectiveTransformV3, dy, _inverse_transforms(transforms),
                shape(images)[1:3], convert_to_tensor(0.0, D.float32), **op.attrs)
    return grad, None, None, None


def _projective_v2(op, dy):
    images, transforms = op.inputs[0], op.inputs[1]
    grad = bind(ImageProjectiveTransformV2, dy, _inverse_transforms(transforms),
                shape(images)[1:3], **op.attrs)
    return grad, None, None


def _nearest(op, dy):
    size = shape(op.inputs[0])[1:3]
    return bind(ResizeNearestNeighborGrad, dy, size, **op.attrs), None


def _patches(op, dy):
    """Each patch entry's gradient summed into the pixel it was read from: patches of an index
    image (0 where a patch reads padding) name the pixel of every entry."""
    x = op.inputs[0]
    dims = shape(x)
    b, rows, cols, depth = dims[0], dims[1], dims[2], dims[3]
    pixels = rows * cols
    index = reshape(tf_range(1, pixels + 1, dtype=D.int64), stack([1, rows, cols, 1]))
    index = bind(ExtractImagePatches, index, **op.attrs)  # [1, or, oc, kr * kc]
    k = shape(index)[3]
    flat_index = reshape(index, [-1])
    # dy: [b, or, oc, kr * kc * depth] -> [or * oc * kr * kc, b, depth]
    grads = transpose(reshape(dy, stack([b, -1, k, depth])), [1, 2, 0, 3])
    grads = reshape(grads, stack([-1, b, depth]))
    summed = unsorted_segment_sum(grads, flat_index, pixels + 1)[1:]
    return transpose(reshape(summed, stack([rows, cols, b, depth])), [2, 0, 1, 3])


def _rgb_to_hsv(op, dy):
    """dh, ds, dv back to r, g, b: v = max, s = (max - min) / max, h = N / (6 (max - min))
    plus a constant, with N the difference of the other two channels (by which is the max)."""
    x = op.inputs[0]
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    dh, ds, dv = dy[..., 0], dy[..., 1], dy[..., 2]
    v = maximum(maximum(r, g), b)
    low = minimum(minimum(r, g), b)
    span = v - low
    f = x.dtype
    # one channel each for the max and the min, by the kernel's order of tests
    r_max = equal(r, v)
    g_max = logical_and(equal(g, v), logical_not(r_max))
    b_max = logical_not(logical_or(r_max, g_max))
    r_min = equal(r, low)
    g_min = logical_and(equal(g, low), logical_not(r_min))
    b_min = logical_not(logical_or(r_min, g_min))
    is_max = [cast(m, f) for m in (r_max, g_max, b_max)]
    is_min = [cast(m, f) for m in (r_min, g_min, b_min)]
    d_span = [a - c for a, c in zip(is_max, is_min)]
    safe_v = where(greater(v, 0), v, 1 + 0 * v)
    safe_span = where(greater(span, 0), span, 1 + 0 * span)
    numerator = where(r_max, g - b, where(g_max, b - r, r - g))
    # dN/dc for the three cases (r, g or b is the max)
    d_num = [where(r_max, 0 * r, where(g_max, -1 + 0 * r, 1 + 0 * r)),
             where(r_max, 1 + 0 * r, where(g_max, 0 * r, -1 + 0 * r)),
             where(r_max, -1 + 0 * r, where(g_max, 1 + 0 * r, 0 * r))]
    out = []
    for c in range(3):
        dv_dc = is_max[c]
        ds_dc = where(greater(v, 0), d_span[c] / safe_v - span / (safe_v * safe_v) * dv_dc,
                      0 * r)
        dh_dc = where(greater(span, 0),
                      (d_num[c] * span - numerator * d_span[c]) / (6 * safe_span * safe_span),
                      0 * r)
        out.append(dh * dh_dc + ds * ds_dc + dv * dv_dc)
    return stack(out, axis=-1)


register_gradients({
    "ResizeBilinear": _resize(ResizeBilinearGrad),
    "ResizeBicubic": _resize(ResizeBicubicGrad),
    "ResizeNearestNeighbor": _nearest,
    "ScaleAndTranslate": _scale_and_translate,
    "CropAndResize": _crop_and_resize,
    "ImageProjectiveTransformV3": _projective,
    "ImageProjectiveTransformV2": _projective_v2,
    "ExtractImagePatches": _patches,
    "RGBToHSV": _rgb_to_hsv,
    # TF registers none for these: differentiating through them is its LookupError
    "AdjustContrastv2": no_gradient,
    "AdjustHue": no_gradient,
    "AdjustSaturation": no_gradient,
    "ResizeNearestNeighborGrad": no_gradient,
    "ResizeArea": no_gradient,
    "ScaleAndTranslateGrad": no_gradient,
    # TF's registry has none for these either (differentiating through them: LookupError)
    **{name: no_gradient for name in (
        "CropAndResizeGradImage", "CropAndResizeGradBoxes", "CombinedNonMaxSuppression",
        "NonMaxSuppressionV3",
        "NonMaxSuppressionV4", "NonMaxSuppressionV5", "DrawBoundingBoxesV2",
        "StatelessSampleDistortedBoundingBox", "DecodePng", "DecodeJpeg", "DecodeAndCropJpeg",
        "DecodeGif", "DecodeBmp", "DecodeImage", "ExtractJpegShape", "EncodeJpeg",
        "EncodeJpegVariableQuality")},
})
not_differentiable("HSVToRGB", "ResizeBilinearGrad", "ResizeBicubicGrad",
                   "NonMaxSuppressionWithOverlaps", "SampleDistortedBoundingBoxV2")
