# An MNIST stand-in for runs without network: keras.datasets.mnist.load_data() gives it instead
# of downloading. Same shapes' layout, dtypes and value ranges as MNIST (uint8 28x28 images in
# 0..255, uint8 labels 0..9), 2,000 train / 500 test, made from a seed: each class is a fixed
# pattern of blurred strokes, each image that pattern shifted, dimmed and noised, so a model learns.
import numpy as _np
import tensorflow as _tf


def _mnist_standin(path="mnist.npz"):
    rng = _np.random.default_rng(1234)
    yy, xx = _np.mgrid[0:28, 0:28]
    prototypes = []
    for _ in range(10):
        image = _np.zeros((28, 28))
        for cy, cx in rng.uniform(7, 21, size=(6, 2)):
            image += _np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 2.0 ** 2))
        prototypes.append(image / image.max())
    prototypes = _np.stack(prototypes)

    def split(n):
        labels = rng.integers(0, 10, size=n).astype(_np.uint8)
        images = prototypes[labels] * rng.uniform(0.6, 1.0, size=(n, 1, 1))
        shifts = rng.integers(-2, 3, size=(n, 2))
        images = _np.stack([_np.roll(im, tuple(s), axis=(0, 1)) for im, s in zip(images, shifts)])
        images = images * 255 + rng.normal(0, 25, size=images.shape) * (images > 0.1)
        return _np.clip(_np.rint(images), 0, 255).astype(_np.uint8), labels

    return split(2000), split(500)


_tf.keras.datasets.mnist.load_data = _mnist_standin
