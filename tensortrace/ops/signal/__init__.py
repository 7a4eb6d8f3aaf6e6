"""Signal processing (tf.signal): Fourier transforms, windows, framing and the short-time
Fourier transform; importing this package registers the ops."""

from . import fft, spectral  # noqa: F401  (registers the ops)
