"""tf.signal (Fourier transforms, windows, frame, overlap_and_add, stft, inverse_stft) and
tf.math.erfinv/ndtri/bessel_i0e against TF 2.21's records (tests/fixtures/tf/make_signal.py)."""

import json
import pathlib

import numpy as np
import pytest

import tensortrace as tf

from .optable import Case, rand, run_case

HERE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "tf" / "signal"
REC = np.load(HERE / "signal.npz")
ERRORS = json.loads((HERE / "records.json").read_text())["errors"]
X = np.array([[1., 2., 3., 4., 5.], [0., -1., 2., 0.5, 3.]], np.float32)
C = (X + 1j * X[::-1]).astype(np.complex64)
SIG = np.arange(10, dtype=np.float32)


def _cases():
    st = tf.signal.stft(SIG, 4, 2)
    return {
        "fft": lambda: tf.signal.fft(C), "ifft": lambda: tf.signal.ifft(C),
        "fft_c128": lambda: tf.signal.fft(tf.constant(C, tf.complex128)),
        "fft2d": lambda: tf.signal.fft2d(C), "ifft2d": lambda: tf.signal.ifft2d(C),
        "fft3d": lambda: tf.signal.fft3d(C[None]), "ifft3d": lambda: tf.signal.ifft3d(C[None]),
        "rfft": lambda: tf.signal.rfft(X), "rfft_8": lambda: tf.signal.rfft(X, [8]),
        "rfft_3": lambda: tf.signal.rfft(X, [3]),
        "rfft_f64": lambda: tf.signal.rfft(tf.constant(X, tf.float64)),
        "irfft": lambda: tf.signal.irfft(C), "irfft_5": lambda: tf.signal.irfft(C, [5]),
        "irfft_12": lambda: tf.signal.irfft(C, [12]),
        "rfft2d": lambda: tf.signal.rfft2d(X), "rfft2d_3x4": lambda: tf.signal.rfft2d(X, [3, 4]),
        "irfft2d": lambda: tf.signal.irfft2d(C), "rfft3d": lambda: tf.signal.rfft3d(X[None]),
        "irfft3d": lambda: tf.signal.irfft3d(C[None]),
        "fftshift": lambda: tf.signal.fftshift(X),
        "fftshift_ax1": lambda: tf.signal.fftshift(X, axes=1),
        "ifftshift": lambda: tf.signal.ifftshift(X),
        "hann5": lambda: tf.signal.hann_window(5), "hann6": lambda: tf.signal.hann_window(6),
        "hann6_sym": lambda: tf.signal.hann_window(6, periodic=False),
        "hann1": lambda: tf.signal.hann_window(1),
        "hann4_f64": lambda: tf.signal.hann_window(4, dtype=tf.float64),
        "hamming7": lambda: tf.signal.hamming_window(7),
        "hamming8": lambda: tf.signal.hamming_window(8),
        "kaiser6": lambda: tf.signal.kaiser_window(6),
        "kaiser5_b3": lambda: tf.signal.kaiser_window(5, beta=3.0),
        "vorbis6": lambda: tf.signal.vorbis_window(6),
        "kbd6": lambda: tf.signal.kaiser_bessel_derived_window(6),
        "frame": lambda: tf.signal.frame(SIG, 4, 3),
        "frame_pad": lambda: tf.signal.frame(SIG, 4, 3, pad_end=True, pad_value=-1),
        "frame_axis0": lambda: tf.signal.frame(np.arange(12.).reshape(6, 2), 3, 2, axis=0),
        "frame_short": lambda: tf.signal.frame(SIG[:2], 4, 3),
        "frame_short_pad": lambda: tf.signal.frame(SIG[:2], 4, 3, pad_end=True),
        "ola": lambda: tf.signal.overlap_and_add(tf.reshape(tf.range(12.), [3, 4]), 2),
        "ola_batch": lambda: tf.signal.overlap_and_add(tf.reshape(tf.range(24.), [2, 3, 4]), 3),
        "stft": lambda: st,
        "stft_fl8": lambda: tf.signal.stft(SIG, 5, 2, fft_length=8, pad_end=True),
        "stft_nowin": lambda: tf.signal.stft(SIG, 3, 2, window_fn=None),
        "istft": lambda: tf.signal.inverse_stft(st, 4, 2),
        "istft_win": lambda: tf.signal.inverse_stft(
            st, 4, 2, window_fn=tf.signal.inverse_stft_window_fn(2)),
        "istft_3": lambda: tf.signal.inverse_stft(st, 3, 2, fft_length=4),
        "istft_6": lambda: tf.signal.inverse_stft(st, 6, 2, fft_length=4),
        "iwin": lambda: tf.signal.inverse_stft_window_fn(3)(8, dtype=tf.float32),
        "iwin_hamming": lambda: tf.signal.inverse_stft_window_fn(
            2, forward_window_fn=tf.signal.hamming_window)(5, dtype=tf.float64),
        "erfinv": lambda: tf.math.erfinv([-1., -0.5, 0., 0.3, 0.999, 1., 2., 1e-10, 1e-5,
                                          0.99999]),
        "erfinv_f64": lambda: tf.math.erfinv(tf.constant([-0.9, 0.1, 0.7, 1e-10], tf.float64)),
        "ndtri": lambda: tf.math.ndtri([0., 0.1, 0.5, 0.975, 1., 1e-30, 1.5]),
        "bessel_i0e": lambda: tf.math.bessel_i0e([0., 1., -2., 10., 800.]),
    }


@pytest.mark.parametrize("key", sorted(_cases()))
def test_signal_values_match_tf(key):
    got = _cases()[key]()
    want = REC[key]
    assert got.dtype.as_numpy_dtype == want.dtype.type, key
    assert tuple(got.shape) == want.shape, key
    rtol = 1e-12 if want.dtype in (np.float64, np.complex128) else 2e-6
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol * 4)


def test_signal_in_a_function_with_unknown_shapes():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def roundtrip(x):
        s = tf.signal.stft(x, 4, 2)
        return s, tf.signal.inverse_stft(s, 4, 2, tf.constant(4),
                                         window_fn=tf.signal.inverse_stft_window_fn(2))

    s, back = roundtrip(SIG[None])
    assert s.shape == (1, 4, 3) and back.shape == (1, 10)
    np.testing.assert_allclose(s.numpy()[0], REC["stft"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(back.numpy()[0], REC["istft_win"], rtol=1e-6, atol=1e-6)
    spec = roundtrip.get_concrete_function().structured_outputs[0]
    assert spec.shape.as_list() == [None, None, 3] and spec.dtype == tf.complex64


def test_frame_and_overlap_add_differentiate():
    x = tf.Variable(np.arange(10.))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.signal.frame(x, 4, 3) * 2.0)
    # samples 0..9 in frames [0-3], [3-6], [6-9]: 3 and 6 are in two frames
    np.testing.assert_array_equal(tf.convert_to_tensor(tape.gradient(y, x)).numpy(),
                                  [2, 2, 2, 4, 2, 2, 4, 2, 2, 2])


@pytest.mark.parametrize("key, call", [
    ("fft_float", lambda: tf.signal.fft(tf.constant(X))),
    ("rfft_int", lambda: tf.signal.rfft(tf.constant([1, 2, 3]))),
    ("irfft_float", lambda: tf.signal.irfft(tf.constant([1.0, 2.0]))),
    ("hann_int", lambda: tf.signal.hann_window(4, dtype=tf.int32)),
    ("erfinv_int", lambda: tf.math.erfinv(tf.constant([1]))),
])
def test_signal_errors_are_tfs(key, call):
    kind, message = ERRORS[key]
    with pytest.raises(getattr(tf.errors, kind, None) or getattr(__builtins__, kind,
                                                                 ValueError)) as info:
        call()
    assert type(info.value).__name__ == kind
    assert str(info.value).startswith(message)


def test_fft_rank_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"rank of at least 1 but got: \[\]"):
        tf.signal.fft(tf.complex(1.0, 2.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"at least 2 but got: \[5\]"):
        tf.signal.fft2d(C[0])


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(tf.constant(up)).numpy() - f(tf.constant(down)).numpy()) / (2 * eps)
    return g


RNG = np.random.RandomState(0)
W = RNG.rand(4, 6)
SQUARE = RNG.rand(4, 4) + np.eye(4)


@pytest.mark.parametrize("name, f, x", [
    ("rfft_pad", lambda x: tf.reduce_sum(tf.math.real(
        tf.signal.rfft(x, [8]) * tf.cast(tf.complex(W[:, :5], W[:, 1:]), tf.complex128))),
     RNG.rand(4, 6)),
    ("rfft_crop", lambda x: tf.reduce_sum(tf.math.imag(tf.signal.rfft(x, [4])) * W[:, :3]),
     RNG.rand(4, 6)),
    ("rfft2d", lambda x: tf.reduce_sum(tf.math.imag(tf.signal.rfft2d(x)) * W[:, :4]),
     RNG.rand(4, 6)),
    ("irfft", lambda x: tf.reduce_sum(tf.signal.irfft(tf.complex(x, x * 0.5)) * W),
     RNG.rand(4, 4)),
    ("irfft_odd", lambda x: tf.reduce_sum(tf.signal.irfft(tf.complex(x, x * 0.3), [5])
                                          * W[:, :5]), RNG.rand(4, 4)),
    ("irfft2d", lambda x: tf.reduce_sum(tf.signal.irfft2d(tf.complex(x, x * 0.5)) * W),
     RNG.rand(4, 4)),
    ("fft", lambda x: tf.reduce_sum(tf.math.real(tf.signal.fft(tf.complex(x, x * 0.2)))
                                    * W[:, :4]), RNG.rand(4, 4)),
    ("ifft2d", lambda x: tf.reduce_sum(tf.math.imag(tf.signal.ifft2d(tf.complex(x, x * 0.2)))
                                       * W[:, :4]), RNG.rand(4, 4)),
    ("erfinv", lambda x: tf.reduce_sum(tf.math.erfinv(x)), RNG.rand(5) * 0.9),
    ("ndtri", lambda x: tf.reduce_sum(tf.math.ndtri(x)), RNG.rand(5) * 0.9 + 0.05),
    ("bessel_i0e", lambda x: tf.reduce_sum(tf.math.bessel_i0e(x)), RNG.randn(5) * 3),
    ("bessel_i1e", lambda x: tf.reduce_sum(tf.math.bessel_i1e(x)), RNG.randn(5) * 3),
    ("lu", lambda x: tf.reduce_sum(tf.linalg.lu(x)[0] * W[:, :4]), SQUARE),
    ("eigvals", lambda x: tf.reduce_sum(tf.math.real(tf.linalg.eigvals(x)) ** 2), SQUARE[:3, :3]),
    ("eig", lambda x: tf.reduce_sum(tf.math.real(tf.linalg.eig(x)[1] * tf.math.conj(
        tf.linalg.eig(x)[1])) * np.arange(9.).reshape(3, 3)), SQUARE[:3, :3]),
])
def test_gradients_match_finite_differences(name, f, x):
    v = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = f(v)
    got = tf.convert_to_tensor(tape.gradient(y, v)).numpy()
    np.testing.assert_allclose(got, _numeric_grad(f, x), atol=1e-6)


_C = rand(4, 6, 8, dtype=np.complex64)
_R = rand(4, 6, 8, dtype=np.float32)
# the FFT ops against NumPy's (the op-table coverage of tests/ops/test_registry.py)
CASES = [
    Case(tf.signal.fft, (_C,), ref=np.fft.fft, rtol=1e-4, atol=1e-4),
    Case(tf.signal.ifft, (_C,), ref=np.fft.ifft, rtol=1e-4, atol=1e-5),
    Case(tf.signal.fft2d, (_C,), ref=np.fft.fft2, rtol=1e-4, atol=1e-4),
    Case(tf.signal.ifft2d, (_C,), ref=np.fft.ifft2, rtol=1e-4, atol=1e-5),
    Case(tf.signal.fft3d, (_C,), ref=lambda x: np.fft.fftn(x, axes=(-3, -2, -1)), rtol=1e-4,
         atol=1e-3),
    Case(tf.signal.ifft3d, (_C,), ref=lambda x: np.fft.ifftn(x, axes=(-3, -2, -1)), rtol=1e-4,
         atol=1e-5),
    Case(tf.signal.rfft, (_R,), ref=np.fft.rfft, rtol=1e-4, atol=1e-4),
    Case(tf.signal.irfft, (_C[..., :5],), ref=np.fft.irfft, rtol=1e-4, atol=1e-5),
    Case(tf.signal.rfft2d, (_R,), ref=np.fft.rfft2, rtol=1e-4, atol=1e-4),
    Case(tf.signal.irfft2d, (_C[..., :5],), ref=np.fft.irfft2, rtol=1e-4, atol=1e-5),
    Case(tf.signal.rfft3d, (_R,), ref=lambda x: np.fft.rfftn(x, axes=(-3, -2, -1)), rtol=1e-4,
         atol=1e-3),
    Case(tf.signal.irfft3d, (_C[..., :5],), ref=lambda x: np.fft.irfftn(x, axes=(-3, -2, -1)),
         rtol=1e-4, atol=1e-5),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_fft_ops_match_numpy(case):
    run_case(case)
