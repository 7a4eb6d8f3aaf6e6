"""The non-Keras ``tf.summary`` code of TensorBoard's guides (migrate.ipynb, graphs.ipynb) and of
the ``tf.summary`` docstrings, run as written, and what TensorBoard reads back."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.summary import graphs as summary_graphs
from tensortrace.summary import writer as summary_writer

from .readers import accumulator, decode_png, tensors


@pytest.fixture(autouse=True)
def _fresh_state():
    summary_writer.state.__init__()
    yield
    summary_writer.state.__init__()
    summary_graphs.trace_off()


def test_migrate_eager_cell(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "eager"))
    with writer.as_default():
        for step in range(100):
            # other model code would go here
            tf.summary.scalar("my_metric", 0.5, step=step)
            writer.flush()
    got = tensors(accumulator(str(tmp_path / "eager")), "my_metric")
    assert [s for s, _ in got] == list(range(100))
    assert {float(v) for _, v in got} == {0.5}


def test_migrate_tf_function_cell(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "tf_function"))

    @tf.function
    def my_func(step):
        with writer.as_default():
            # other model code would go here
            tf.summary.scalar("my_metric", 0.5, step=step)

    for step in tf.range(100, dtype=tf.int64):
        my_func(step)
        writer.flush()
    assert my_func.experimental_get_tracing_count() == 1
    got = tensors(accumulator(str(tmp_path / "tf_function")), "my_metric")
    assert [s for s, _ in got] == list(range(100))


def test_graphs_guide_cell_without_the_profiler(tmp_path):
    @tf.function
    def my_func(x, y):
        # A simple hand-rolled layer.
        return tf.nn.relu(tf.matmul(x, y))

    logdir = str(tmp_path / "func")
    writer = tf.summary.create_file_writer(logdir)
    x = tf.random.uniform((3, 3))
    y = tf.random.uniform((3, 3))
    tf.summary.trace_on(graph=True)
    z = my_func(x, y)
    with writer.as_default():
        tf.summary.trace_export(name="my_func_trace", step=0)
    np.testing.assert_allclose(z.numpy(), np.maximum(x.numpy() @ y.numpy(), 0), rtol=1e-6)
    acc = accumulator(logdir)
    assert acc.SummaryMetadata("my_func_trace").plugin_data.plugin_name == \
        "graph_run_metadata_graph"


def test_docstring_examples(tmp_path):
    test_summary_writer = tf.summary.create_file_writer(str(tmp_path))
    with test_summary_writer.as_default():
        tf.summary.scalar("loss", 0.345, step=1)
        tf.summary.scalar("loss", 0.234, step=2)
        tf.summary.scalar("loss", 0.123, step=3)
        tf.summary.histogram("activations", tf.random.uniform([100, 50]), step=0)
        tf.summary.histogram("initial_weights", tf.random.normal([1000]), step=0)
        image1 = tf.random.uniform(shape=[8, 8, 1])
        image2 = tf.random.uniform(shape=[8, 8, 1])
        tf.summary.image("grayscale_noise", [image1, image2], step=0)
        rgb_image_float = tf.constant([[[1000, 0, 0], [0, 500, 1000]]]) / 1000
        tf.summary.image("picture", [rgb_image_float], step=0)
        rgb_image_uint8 = tf.constant([[[1, 1, 0], [0, 0, 1]]], dtype=tf.uint8) * 255
        tf.summary.image("picture", [rgb_image_uint8], step=1)
        tf.summary.text("first_text", "hello world!", step=0)
        tf.summary.text("first_text", "nice to meet you!", step=1)
        text_data = """
              | *hello* | *there* |
              |---------|---------|
              | this    | is      |
              | a       | table   |
        """
        text_data = "\n".join(line.strip() for line in text_data.splitlines())
        tf.summary.text("markdown_text", text_data, step=0)
    acc = accumulator(str(tmp_path))
    assert sorted(acc.Tags()["tensors"]) == [
        "activations", "first_text", "grayscale_noise", "initial_weights", "loss",
        "markdown_text", "picture"]
    histogram = tensors(acc, "activations")[0][1]
    assert histogram.shape == (30, 3) and histogram[:, 2].sum() == 5000
    noise = tensors(acc, "grayscale_noise")[0][1]
    assert len(noise) == 4
    expected = (image1.numpy() * np.float32(255.5)).astype(np.uint8)
    np.testing.assert_array_equal(decode_png(noise[2]), expected)
    (_, float_picture), (_, uint8_picture) = tensors(acc, "picture")
    np.testing.assert_array_equal(decode_png(float_picture[2]), [[[255, 0, 0], [0, 127, 255]]])
    np.testing.assert_array_equal(decode_png(uint8_picture[2]), [[[255, 255, 0], [0, 0, 255]]])
    assert tensors(acc, "markdown_text")[0][1].item().decode() == text_data
