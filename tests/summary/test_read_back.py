"""What tf.summary wrote, read back with TensorBoard's EventAccumulator and checked against
NumPy: scalar values and steps, histogram buckets, image pixels, text, audio samples; several
calls of a tf.function writing several steps; record_if; the default-writer stack; the writer's
queue; errors."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.summary import writer as summary_writer

from .readers import accumulator, decode_png, decode_wav, events, tensors


@pytest.fixture(autouse=True)
def _fresh_state():
    summary_writer.state.__init__()
    yield
    summary_writer.state.__init__()


def test_scalars_read_back_with_steps(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        for step, loss in enumerate([0.345, 0.234, 0.123]):
            assert tf.summary.scalar("loss", loss, step=step + 1).numpy() is np.True_
    acc = accumulator(str(tmp_path))
    assert acc.Tags()["tensors"] == ["loss"]
    got = tensors(acc, "loss")
    assert [s for s, _ in got] == [1, 2, 3]
    np.testing.assert_array_equal([v for _, v in got], np.float32([0.345, 0.234, 0.123]))
    assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"


def _numpy_histogram(data, k):
    data = np.asarray(data, np.float64).reshape(-1)
    edges = np.linspace(data.min(), data.max(), k + 1)
    counts, _ = np.histogram(data, bins=edges)  # the last bucket includes the maximum
    return edges, counts


@pytest.mark.parametrize("k", [1, 7, 30])
def test_histogram_buckets_match_numpy(tmp_path, k):
    data = np.random.RandomState(k).standard_t(3, size=(40, 25))
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=3):
        tf.summary.histogram("t", data, buckets=k)
    ((step, buckets),) = tensors(accumulator(str(tmp_path)), "t")
    edges, counts = _numpy_histogram(data, k)
    assert step == 3 and buckets.shape == (k, 3) and buckets.dtype == np.float64
    np.testing.assert_allclose(buckets[:, 0], edges[:-1], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(buckets[:, 1], edges[1:], rtol=1e-15, atol=1e-15)
    assert buckets[-1, 1] == data.max()
    np.testing.assert_array_equal(buckets[:, 2], counts)
    assert buckets[:, 2].sum() == data.size


def test_histogram_edge_cases(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=0):
        tf.summary.histogram("same", tf.fill([5], 2.5), buckets=3)
        tf.summary.histogram("empty", tf.zeros([0, 3]), buckets=3)
        tf.summary.histogram("negative", [1.0, 2.0], buckets=-2)
    acc = accumulator(str(tmp_path))
    np.testing.assert_array_equal(tensors(acc, "same")[0][1],
                                  [[2.5, 2.5, 0], [2.5, 2.5, 0], [2.5, 2.5, 5]])
    np.testing.assert_array_equal(tensors(acc, "empty")[0][1], np.zeros((3, 3)))
    assert tensors(acc, "negative")[0][1].shape == (0, 3)


def test_images_decode_to_the_pixels(tmp_path):
    rng = np.random.RandomState(5)
    floats = rng.uniform(-0.2, 1.2, size=(4, 6, 5, 3)).astype(np.float32)
    rgba = rng.randint(0, 256, size=(2, 3, 7, 4)).astype(np.uint8)
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=9):
        assert tf.summary.image("floats", floats, max_outputs=3).numpy()
        assert tf.summary.image("rgba", tf.constant(rgba))
    acc = accumulator(str(tmp_path))
    ((step, value),) = tensors(acc, "floats")
    assert step == 9 and value.shape == (2 + 3,)
    assert list(value[:2]) == [b"5", b"6"]  # width, height
    expected = np.clip(floats * np.float32(255.5), 0, 255).astype(np.uint8)  # saturating cast
    for i in range(3):
        np.testing.assert_array_equal(decode_png(value[2 + i]), expected[i])
    value = tensors(acc, "rgba")[0][1]
    assert list(value[:2]) == [b"7", b"3"]
    for i in range(2):
        np.testing.assert_array_equal(decode_png(value[2 + i]), rgba[i])
    assert acc.SummaryMetadata("rgba").plugin_data.plugin_name == "images"


def test_text_reads_back(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.text("first_text", "hello world!", step=0)
        tf.summary.text("first_text", "nice to meet you!", step=1)
        tf.summary.text("table", [["| a |", "b"], ["c", "\u00e9"]], step=0)
    acc = accumulator(str(tmp_path))
    assert [(s, v.item()) for s, v in tensors(acc, "first_text")] == [
        (0, b"hello world!"), (1, b"nice to meet you!")]
    np.testing.assert_array_equal(tensors(acc, "table")[0][1],
                                  [[b"| a |", b"b"], [b"c", "\u00e9".encode()]])
    assert acc.SummaryMetadata("table").plugin_data.plugin_name == "text"


def test_audio_decodes_to_the_samples(tmp_path):
    data = np.random.RandomState(2).uniform(-1.2, 1.2, size=(3, 50, 2)).astype(np.float32)
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=1):
        tf.summary.audio("clips", data, 22050, max_outputs=2)
    ((_, value),) = tensors(accumulator(str(tmp_path)), "clips")
    assert value.shape == (2, 2) and list(value[:, 1]) == [b"", b""]
    x = data.astype(np.float64) * 32768
    expected = np.clip(np.sign(x) * np.floor(np.abs(x) + 0.5), -32768, 32767)
    for i in range(2):
        rate, samples = decode_wav(value[i, 0])
        assert rate == 22050
        np.testing.assert_array_equal(samples, expected[i])


def test_a_function_writes_on_every_call(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train(x):
        with w.as_default(step=step):
            tf.summary.scalar("x", x)
            with tf.summary.record_if(lambda: tf.equal(step % 3, 0)):
                tf.summary.histogram("h", tf.stack([x, 2 * x, 4 * x]), buckets=2)
        step.assign_add(1)

    for i in range(7):
        train(tf.constant(float(i)))
    assert train.experimental_get_tracing_count() == 1
    types = [op.type for op in train.get_concrete_function(tf.constant(0.0)).graph
             .get_operations()]
    assert types.count("WriteSummary") == 1 and "If" in types
    assert "FlushSummaryWriter" in types
    acc = accumulator(str(tmp_path))
    assert [(s, float(v)) for s, v in tensors(acc, "x")] == [(i, float(i)) for i in range(7)]
    hist = tensors(acc, "h")
    assert [s for s, _ in hist] == [0, 3, 6]
    np.testing.assert_array_equal(hist[1][1], [[3, 7.5, 2], [7.5, 12, 1]])


def test_record_if_tensor_condition_inside_a_function(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f(x, on):
        with w.as_default(step=tf.cast(x, tf.int64)):
            with tf.summary.record_if(on):
                return tf.summary.scalar("v", x)

    results = [bool(f(tf.constant(float(i)), tf.constant(i % 2 == 1))) for i in range(4)]
    assert results == [False, True, False, True]
    assert [s for s, _ in tensors(accumulator(str(tmp_path)), "v")] == [1, 3]


def test_record_if_false_at_trace_time_adds_no_write(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f(x):
        with w.as_default(step=1), tf.summary.record_if(False):
            return tf.summary.scalar("v", x)

    assert not f(tf.constant(1.0))
    types = [op.type for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
    assert "WriteSummary" not in types
    assert len(events(str(tmp_path))) == 1  # the version event only


def test_default_writer_stack_and_steps(tmp_path):
    a = tf.summary.create_file_writer(str(tmp_path / "a"))
    b = tf.summary.create_file_writer(str(tmp_path / "b"))
    with a.as_default(step=10) as entered:
        assert entered is a
        tf.summary.scalar("tag", 1.0)
        with b.as_default(step=20):
            tf.summary.scalar("tag", 2.0)
            assert tf.summary.experimental.get_step() == 20
        tf.summary.scalar("tag", 3.0)
        assert tf.summary.experimental.get_step() == 10
    assert tf.summary.experimental.get_step() is None
    assert not tf.summary.should_record_summaries()
    got_a = tensors(accumulator(str(tmp_path / "a")), "tag")
    got_b = tensors(accumulator(str(tmp_path / "b")), "tag")
    assert [(s, float(v)) for s, v in got_a] == [(10, 1.0), (10, 3.0)]
    assert [(s, float(v)) for s, v in got_b] == [(20, 2.0)]


def test_step_variable_is_read_when_writing(tmp_path):
    step = tf.Variable(5, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    assert tf.summary.experimental.get_step() is step
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.scalar("s", 1.0)
        step.assign(8)
        tf.summary.scalar("s", 2.0)
    assert [s for s, _ in tensors(accumulator(str(tmp_path)), "s")] == [5, 8]


def test_state_is_per_thread(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    seen = []
    with w.as_default(step=1):
        t = threading.Thread(target=lambda: seen.append(
            (bool(tf.summary.scalar("s", 1.0)), tf.summary.experimental.get_step())))
        t.start()
        t.join()
    assert seen == [(False, None)]


def test_queue_is_written_when_full_or_flushed(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=2, flush_millis=10**9)
    w.set_as_default(step=0)
    counts = []
    for i in range(4):
        tf.summary.scalar("s", float(i))
        counts.append(len(events(str(tmp_path))))
    assert counts == [1, 1, 4, 4]  # TF writes the queue once it holds more than max_queue
    tf.summary.flush()
    assert len(events(str(tmp_path))) == 5
    w.close()
    assert w.flush() is None and w.close() is None  # closed eagerly: nothing to do


def test_closed_writer_errors(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def f():
        with w.as_default(step=1):
            return tf.summary.scalar("s", 1.0)

    assert f()
    w.close()
    with pytest.raises(RuntimeError, match=r"SummaryWriter <.*> is already closed"):
        w.as_default()
    with pytest.raises(RuntimeError, match="already closed"):
        w.set_as_default()
    with pytest.raises(tf.errors.NotFoundError,
                       match="SummaryWriterInterfaceE does not exist"):
        f()


def test_writer_argument_errors(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(tf.errors.FailedPreconditionError, match="Not a directory"):
        tf.summary.create_file_writer(str(tmp_path / "file"))
    with pytest.raises(ValueError, match="`logdir` cannot be None"):
        tf.summary.create_file_writer(None)

    @tf.function
    def make(logdir):
        return tf.summary.create_file_writer(logdir)

    with pytest.raises(ValueError, match="Invalid graph Tensor argument 'logdir=.*inside an "
                                         "@tf.function"):
        make(tf.constant(str(tmp_path)))
    assert os.listdir(tmp_path) == ["file"]


def test_writer_created_inside_a_function_is_lifted(tmp_path):
    @tf.function
    def f():
        w = tf.summary.create_file_writer(str(tmp_path))
        with w.as_default(step=2):
            tf.summary.scalar("s", 3.0)
        return 0

    f()
    assert [(s, float(v)) for s, v in tensors(accumulator(str(tmp_path)), "s")] == [(2, 3.0)]


def test_import_loads_no_tf_formats_and_a_missing_extra_names_it(tmp_path):
    code = ("import sys; import tensortrace as tf\n"
            "loaded = [m for m in sys.modules if m.startswith(('tensorboard', 'google.protobuf'))]\n"
            "assert not loaded, loaded\n"
            "sys.modules['tensorboard'] = None\n"
            "w = tf.summary.create_file_writer(sys.argv[1])\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "logs")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert "pip install 'tensortrace[tf-formats]'" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("ImportError")
    assert not os.path.exists(tmp_path / "logs")  # nothing half-done


def test_summary_scope_tags_are_tfs():
    # TF 2.21, eagerly: (tag, scope) under the active name scopes; invalid characters dropped
    # from the scope only
    scope = tf.summary.experimental.summary_scope
    with scope("a b", "dflt") as got:
        assert got == ("a b", "ab/")
    with scope("", "dflt") as got:
        assert got == ("dflt", "dflt/")
    with tf.name_scope("outer"):
        with scope("x/y", "dflt") as got:
            assert got == ("outer/x/y", "outer/x/y/")
            with scope("inner") as inner:
                assert inner == ("outer/x/y/inner", "outer/x/y/inner/")
