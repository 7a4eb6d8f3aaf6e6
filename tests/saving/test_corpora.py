"""The tracing and AutoGraph corpora (plain functions, Python control flow on tensors) through
save -> load -> call: in TF's format (the default) the same values bit for bit and the same
signatures; in tensortrace's JSON format (still loadable) also graphs that print as the
originals."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.saving.save import save_json
from tests.autograph import corpus as autograph_corpus
from tests.tracing.test_corpus import CORPUS, _tensors

CASES = [(fn, tuple(_tensors(a) for a in args), kwargs) for fn, args, kwargs in CORPUS] + \
    [(fn, tuple(tf.constant(a) for a in args), {}) for fn, args, _ in autograph_corpus.CASES]


def _flat(out):
    return [np.asarray(t) for t in tf.nest.flatten(out)]


@pytest.mark.parametrize("fn,args,kwargs", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_save_load_call(fn, args, kwargs, tmp_path):
    m = tf.Module()
    m.f = tf.function(fn)
    want = _flat(m.f(*args, **kwargs))
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    got = _flat(loaded.f(*args, **kwargs))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    (original,) = m.f.experimental_get_concrete_functions()
    (restored,) = loaded.f.concrete_functions
    assert restored.structured_input_signature == original.structured_input_signature
    save_json(m, str(tmp_path / "json"))
    (restored,) = tf.saved_model.load(str(tmp_path / "json")).f.concrete_functions
    assert str(restored.graph) == str(original.graph)
    assert restored.structured_input_signature == original.structured_input_signature
