"""The guide runner's comparison (conformance/guides.py) and its MNIST stand-in: Keras'
progress bars compare as a terminal shows them, their times as values; the stand-in has MNIST's
shapes, dtypes and value ranges, is the same every time and is learnable."""

import importlib.util
import os
import sys
import types

import numpy as np

CONFORMANCE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "conformance")


def _guides():
    spec = importlib.util.spec_from_file_location("guides", os.path.join(CONFORMANCE,
                                                                          "guides.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Keras 3's progress bar as TF 2.21 wrote it to a pipe (ANSI codes, \r frames, \b erasing).
_BOLD, _GREEN, _GREY, _END = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"
_DONE = f"{_BOLD}63/63{_END} {_GREEN}━━━━{_END} {_BOLD}2s{_END} 7ms/step - loss: 1.0"
_EPOCH_2 = f"{_BOLD}63/63{_END} {_GREEN}━━━━{_END} {_BOLD}1s{_END} 7ms/step - loss: 0.2"
_FIRST = f"{_BOLD} 1/63{_END} {_GREY}━━━━{_END} {_BOLD}1:40{_END} 2s/step - loss: 2.3\x08\x08\x08"
_BAR = f"Epoch 1/2\n\r{_FIRST}\r{_DONE}\nEpoch 2/2\n\r{_EPOCH_2}\n"


def test_progress_bars_compare_as_a_terminal_shows_them():
    guides = _guides()
    assert guides.render(_BAR) == f"Epoch 1/2\n{_DONE}\nEpoch 2/2\n{_EPOCH_2}\n"
    assert guides.render("ab\x08c") == "ac" and guides.render("plain\n") == "plain\n"
    # fewer redraws and other step times (a unit change too) are values, other text is not
    ours = _BAR.replace("7ms/step", "850us/step").replace(f"{_BOLD}2s", f"{_BOLD}0s")
    ours = ours.replace(f"\r{_FIRST}", "")
    tf_rec, our_rec = {"status": "ok", "output": _BAR}, {"status": "ok", "output": ours}
    assert guides.compare([tf_rec], [our_rec]) == ["values"]
    assert guides.compare([tf_rec], [{"status": "ok", "output": ours.replace("loss", "acc")}]) \
        == ["different"]
    assert guides.compare([tf_rec], [{"status": "ok", "output": _BAR[:-1] + "\x08\x08\n"}]) \
        == ["identical"]


def test_mnist_standin(monkeypatch):
    mnist = types.SimpleNamespace(load_data=None)
    fake = types.SimpleNamespace(keras=types.SimpleNamespace(
        datasets=types.SimpleNamespace(mnist=mnist)))
    monkeypatch.setitem(sys.modules, "tensorflow", fake)
    with open(os.path.join(CONFORMANCE, "_mnist_standin.py")) as f:
        exec(compile(f.read(), "_mnist_standin.py", "exec"), {})  # noqa: S102 - the cell itself
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    assert x_train.shape == (2000, 28, 28) and x_test.shape == (500, 28, 28)
    assert y_train.shape == (2000,) and y_test.shape == (500,)
    assert {a.dtype for a in (x_train, y_train, x_test, y_test)} == {np.dtype(np.uint8)}
    assert x_train.min() == 0 and x_train.max() == 255 and set(y_train) == set(range(10))
    (again, _), _ = mnist.load_data()
    np.testing.assert_array_equal(again, x_train)
    # learnable: the nearest class mean (from the train split) labels most test images right
    flat = x_train.reshape(len(x_train), -1).astype(np.float64)
    means = np.stack([flat[y_train == k].mean(0) for k in range(10)])
    test = x_test.reshape(len(x_test), -1).astype(np.float64)
    nearest = np.argmin(((test[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (nearest == y_test).mean() > 0.8
