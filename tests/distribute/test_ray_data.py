"""Batch inference on Ray Data: a SavedModel's signature mapped over a ``ray.data.Dataset`` by
an actor pool, each actor loading the model once; TF's SavedModels give TF's recorded outputs,
ours the NumPy values; mistakes fail on the driver, naming what is missing."""

import json
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.distribute import ray_data
from tensortrace.tracing import concrete

ray = pytest.importorskip("ray", reason="the ray extra")
pytest.importorskip("ray.data", reason="the ray extra")

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, os.pardir, "fixtures", "tf", "savedmodels")
with open(os.path.join(MODELS, "expected.json")) as f:
    EXPECTED = json.load(f)["results"]


def _tf_call(model, call):
    for r in EXPECTED:
        if r["model"] == model and r["call"] == call:
            return r
    raise LookupError((model, call))


@pytest.fixture(scope="module")
def cluster():
    """A local Ray of 2 CPUs for this module (workers import this checkout: Ray puts the
    driver's working directory on their path)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    context = ray.data.DataContext.get_current()
    bars, context.enable_progress_bars = context.enable_progress_bars, False
    yield
    context.enable_progress_bars = bars
    if started:
        ray.shutdown()


def test_tf_savedmodel_on_two_workers_gives_tfs_outputs(cluster):
    """TF's MLP fixture over 10 rows in batches of 3 on 2 actors: TF's recorded outputs for
    the rows TF ran, softmax rows elsewhere, ids passed through in order."""
    recorded = _tf_call("mlp", "signature:serving_default")
    x = np.array(recorded["inputs"]["x"]["value"], np.float32)
    rows = np.concatenate([x, np.random.default_rng(0).normal(size=(8, 3))]).astype(np.float32)
    ds = ray.data.from_items([{"features": r, "id": i} for i, r in enumerate(rows)])
    out = ray_data.predict_batches(ds, os.path.join(MODELS, "mlp"), num_workers=2,
                                   batch_size=3, input_columns={"x": "features"},
                                   keep_columns=["id"])
    got = sorted(out.take_all(), key=lambda r: r["id"])
    assert [r["id"] for r in got] == list(range(10))
    probs = np.stack([r["output_0"] for r in got])
    np.testing.assert_allclose(probs[:2], recorded["outputs"]["output_0"]["value"], rtol=1e-6)
    np.testing.assert_allclose(probs.sum(axis=1), np.ones(10), rtol=1e-6)


def test_our_savedmodel_with_dict_outputs(cluster, tmp_path):
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, -1.0], [0.5, 2.0]])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x"),
                                      tf.TensorSpec([None], tf.int64, name="k")])
        def score(self, x, k):
            y = tf.matmul(x, self.w)
            return {"y": y, "k2": k * 2}

    model = Affine()
    tf.saved_model.save(model, str(tmp_path), signatures={"score": model.score})
    x = np.arange(12, dtype=np.float64).reshape(6, 2)  # float64 column: cast to float32
    ds = ray.data.from_items([{"x": r, "k": int(r[0])} for r in x])
    got = ray_data.predict_batches(ds, tmp_path, "score", batch_size=4).take_all()
    got.sort(key=lambda r: r["k2"])
    np.testing.assert_allclose(np.stack([r["y"] for r in got]),
                               x.astype(np.float32) @ np.array([[1, -1], [0.5, 2]], np.float32))
    assert [r["k2"] for r in got] == [0, 4, 8, 12, 16, 20]


def test_mistakes_fail_on_the_driver_naming_what_is_missing(cluster):
    ds = ray.data.from_items([{"features": np.zeros(3, np.float32)}])
    mlp = os.path.join(MODELS, "mlp")
    with pytest.raises(ValueError, match=r"takes input 'x', which the data lacks; its "
                                         r"columns: \['features'\]"):
        ray_data.predict_batches(ds, mlp)
    with pytest.raises(ValueError, match=r"has no signature 'predict'; its signatures: "
                                         r"\['serving_default'\]"):
        ray_data.predict_batches(ds, mlp, "predict", input_columns={"x": "features"})
    with pytest.raises(ValueError, match=r"keep_columns names \['id'\], which the data lacks"):
        ray_data.predict_batches(ds, mlp, input_columns={"x": "features"}, keep_columns=["id"])
    with pytest.raises(ValueError, match="`num_workers` must be a positive integer; got 0"):
        ray_data.predict_batches(ds, mlp, num_workers=0)
    with pytest.raises(OSError, match="SavedModel file does not exist at: "):
        ray_data.predict_batches(ds, os.path.join(MODELS, "absent"))
    with pytest.raises(TypeError, match="takes a ray.data.Dataset; got list"):
        ray_data.predict_batches([1], mlp)
    with pytest.raises(ValueError, match="`num_cpus` must be a positive number; got 0"):
        ray_data.predict_batches(ds, mlp, input_columns={"x": "features"}, num_cpus=0)


def test_predictor_checks_each_batch():
    """The callable class alone (no Ray): TF's conv fixture, its two outputs as columns."""
    recorded = _tf_call("conv", "signature:serving_default")
    images = np.array(recorded["inputs"]["images"]["value"], np.float32)
    predict = ray_data.SavedModelPredictor(os.path.join(MODELS, "conv"), keep_columns=["id"])
    out = predict({"images": images, "id": np.arange(len(images))})
    assert sorted(out) == ["id", "logits", "mean"]
    for name in ("logits", "mean"):
        np.testing.assert_allclose(out[name], recorded["outputs"][name]["value"], rtol=1e-5,
                                   atol=1e-6)
    with pytest.raises(ValueError, match=r"A batch of column 'images' has shape \(2, 4, 4\), "
                                         r"which input 'images' .* \(shape \(None, 4, 4, 1\)\)"):
        predict({"images": images[..., 0], "id": np.arange(2)})
    with pytest.raises(TypeError, match="Column 'images' holds complex128, which input "
                                        "'images' of signature 'serving_default' \\(float32\\)"):
        predict({"images": images.astype(complex), "id": np.arange(2)})
    with pytest.raises(TypeError, match="takes NumPy batches"):
        predict([images])
    with pytest.raises(ValueError, match=r"keep_columns names \['mean'\], which signature "
                                         "'serving_default' also outputs"):
        ray_data.SavedModelPredictor(os.path.join(MODELS, "conv"), keep_columns=["mean"])
    with pytest.raises(ValueError, match=r"input_columns names \['y'\], which signature"):
        ray_data.SavedModelPredictor(os.path.join(MODELS, "conv"), input_columns={"y": "a"})


def test_tf_multi_output_signature_compiles_once_for_full_and_partial_batches(monkeypatch):
    """TF's ``scaled`` signature (two outputs) over full batches and a partial last one: TF's
    recorded rows, and one compiled graph for all of them (a loaded signature never retraces)."""
    compiled = []
    real = concrete.compile_graph
    monkeypatch.setattr(concrete, "compile_graph", lambda *a: compiled.append(a) or real(*a))
    recorded = _tf_call("multi", "signature:scaled")
    x = np.array(recorded["inputs"]["x"]["value"], np.float32)
    want = {k: np.array(v["value"], np.float32) for k, v in recorded["outputs"].items()}
    predict = ray_data.SavedModelPredictor(os.path.join(MODELS, "multi"), "scaled")
    for rows in (slice(0, 2), slice(0, 2), slice(1, 2), slice(0, 1)):
        out = predict({"x": x[rows]})
        assert sorted(out) == ["output_0", "output_1"]
        for name in out:
            np.testing.assert_array_equal(out[name], want[name][rows])
    assert len(compiled) == 1


def test_read_only_batches_are_fed_without_a_copy(tmp_path):
    """A zero-copy batch (read-only, as Ray Data gives) reaches the signature as a tensor on
    the column's memory; a writable one, or one of another dtype, is converted (copied) by the
    call. The values are the same, and the batch is left as it was."""
    class Double(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": x * 2.0, "s": tf.reduce_sum(x, axis=1)}

    tf.saved_model.save(Double(), str(tmp_path))
    predict = ray_data.SavedModelPredictor(tmp_path)
    fed = []
    signature = predict._fn
    predict._fn = lambda **feeds: fed.append(feeds["x"]) or signature(**feeds)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    frozen = x.copy()
    frozen.flags.writeable = False
    for batch in (frozen, frozen, frozen[:1], x, x.astype(np.float64)):
        out = predict({"x": batch})
        np.testing.assert_array_equal(out["y"], np.asarray(batch, np.float32) * 2)
        np.testing.assert_array_equal(out["s"], np.asarray(batch, np.float32).sum(axis=1))
        assert out["y"].flags.writeable and not np.shares_memory(out["y"], batch)
    assert [isinstance(f, tf.Tensor) for f in fed] == [True, True, True, False, False]
    assert all(np.shares_memory(np.asarray(f), frozen) for f in fed[:3])
    np.testing.assert_array_equal(frozen, np.arange(8).reshape(4, 2))
