"""The tf.summary cases run both by TF 2.21 (``tests/fixtures/tf/make_summary.py`` records its
event files and results) and by tensortrace (the tests compare). Each case takes the ``tf``
module and a log directory, writes there, and returns what its calls returned or raised (as
JSON values: bools, numbers, ``["error", type name, message]``)."""

import struct

import numpy as np

# A SummaryMetadata {plugin_data {plugin_name: "custom" content: "xyz"}}, serialized by hand so
# that the cases need no protobuf module
CUSTOM_METADATA = b"\x0a\x0d\x0a\x06custom\x12\x03xyz"
# A Summary {value {tag: "raw_pb" simple_value: 2.5}}
RAW_SUMMARY = b"\x0a\x0d\x0a\x06raw_pb\x15" + struct.pack("<f", 2.5)


def call(f):
    try:
        result = f()
    except Exception as e:  # the cases record TF's errors
        return ["error", type(e).__name__, str(e)]
    if hasattr(result, "numpy"):
        result = result.numpy().item()
    return result


def scalars(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    out = []
    with w.as_default():
        out.append(call(lambda: tf.summary.scalar("loss", 0.5, step=1)))
        out.append(call(lambda: tf.summary.scalar("loss", 3, step=2)))
        out.append(call(lambda: tf.summary.scalar("loss", tf.constant(0.25, tf.float64),
                                                  step=np.int64(3))))
        out.append(call(lambda: tf.summary.scalar("flag", True, step=1, description="a *flag*")))
        with tf.name_scope("outer"):
            out.append(call(lambda: tf.summary.scalar("inner", 1.5, step=0)))
        tf.summary.experimental.set_step(7)
        out.append(call(lambda: tf.summary.scalar("implicit", -2.0)))
        out.append(call(lambda: tf.summary.experimental.get_step()))
        tf.summary.experimental.set_step(None)
        out.append(call(lambda: tf.summary.scalar("bad", [1.0, 2.0], step=1)))
        out.append(call(lambda: tf.summary.scalar("bad", "a", step=1)))
        out.append(call(lambda: tf.summary.scalar("bad", 1.0)))
        out.append(call(lambda: tf.summary.scalar("bad", 1.0, step=[1, 2])))
    out.append(call(lambda: tf.summary.scalar("no_writer", 1.0, step=1)))
    w.close()
    return out


def histograms(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    data = np.random.RandomState(0).normal(size=200)
    out = []
    with w.as_default(step=4):
        out.append(call(lambda: tf.summary.histogram("small", [1.0, 2, 2, 3, 10])))
        out.append(call(lambda: tf.summary.histogram("normal", data, buckets=7)))
        out.append(call(lambda: tf.summary.histogram("ints", tf.range(17), buckets=4)))
        out.append(call(lambda: tf.summary.histogram("same", [3.0, 3.0, 3.0], buckets=4)))
        out.append(call(lambda: tf.summary.histogram("empty", tf.zeros([0]))))
        out.append(call(lambda: tf.summary.histogram("no_buckets", [1.0, 2.0], buckets=0)))
        out.append(call(lambda: tf.summary.histogram("matrix", [[0.5, 1.5], [2.5, -1.0]],
                                                     buckets=3, description="2-D")))
        out.append(call(lambda: tf.summary.histogram("bad", [1.0], buckets=2.5)))
        out.append(call(lambda: tf.summary.histogram("bad", [1.0], buckets=[1, 2])))
    w.close()
    return out


def images(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    rng = np.random.RandomState(1)
    floats = rng.uniform(size=(3, 5, 4, 3)).astype(np.float32)
    rgba = rng.randint(0, 256, size=(1, 2, 3, 4)).astype(np.uint8)
    gray = np.linspace(-0.5, 1.5, 16, dtype=np.float32).reshape(1, 4, 4, 1)
    ints = np.array([0, 2**24, 2**30, 2**31 - 1], np.int32).reshape(1, 2, 2, 1)
    gray_alpha = rng.uniform(size=(2, 3, 2, 2))
    out = []
    with w.as_default(step=2):
        out.append(call(lambda: tf.summary.image("floats", floats, max_outputs=2)))
        out.append(call(lambda: tf.summary.image("rgba", rgba)))
        out.append(call(lambda: tf.summary.image("gray", gray)))
        out.append(call(lambda: tf.summary.image("ints", ints)))
        out.append(call(lambda: tf.summary.image("gray_alpha", gray_alpha)))
        out.append(call(lambda: tf.summary.image("none", floats, max_outputs=0)))
        out.append(call(lambda: tf.summary.image("listed", [floats[0], floats[1]])))
        out.append(call(lambda: tf.summary.image("bad", floats[0])))
    w.close()
    return out


def texts(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    out = []
    with w.as_default(step=0):
        out.append(call(lambda: tf.summary.text("hello", "hello world!")))
        out.append(call(lambda: tf.summary.text("table", [["a", "b"], ["*c*", "d"]])))
        out.append(call(lambda: tf.summary.text("unicode", "h\u00e9llo \u2713", step=3)))
        out.append(call(lambda: tf.summary.text("bad", 3)))
    w.close()
    return out


def audios(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    clip = np.array([0.5, -1.0, 1.0, 0.25, 3e-5, 1.5, -1.5, -0.3, 0.7, 1 / 3], np.float32)
    data = np.stack([np.stack([clip, -clip], 1), np.stack([clip * 0.5, clip], 1)])
    out = []
    with w.as_default(step=1):
        out.append(call(lambda: tf.summary.audio("stereo", data, 8000, max_outputs=1)))
        out.append(call(lambda: tf.summary.audio("both", data, 44100, encoding="wav")))
        out.append(call(lambda: tf.summary.audio("mono", data[:, :, :1], 16000)))
        out.append(call(lambda: tf.summary.audio("bad", data, 8000, encoding="mp3")))
        out.append(call(lambda: tf.summary.audio("bad", data[0], 8000)))
    w.close()
    return out


def generic(tf, logdir):
    w = tf.summary.create_file_writer(logdir, filename_suffix=".custom")
    out = []
    with w.as_default():
        out.append(call(lambda: tf.summary.write("raw", [1, 2], step=5)))
        out.append(call(lambda: tf.summary.write("meta", tf.constant(2.5, tf.float64), step=6,
                                                 metadata=CUSTOM_METADATA)))
        out.append(call(lambda: tf.summary.write("lazy", lambda: tf.ones([2, 2]), step=7)))
        out.append(call(lambda: tf.summary.experimental.write_raw_pb(RAW_SUMMARY, step=8)))
        out.append(call(lambda: tf.summary.write("bad", 1, step=1, metadata=3)))
    out.append(call(lambda: tf.summary.write("no_writer", 1, step=1)))
    w.close()
    return out


def function(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f(x):
        with w.as_default(step=step):
            tf.summary.scalar("x", x)
            with tf.summary.record_if(lambda: step % 2 == 0):
                r = tf.summary.scalar("even", x * 2)
            tf.summary.histogram("hist", tf.stack([x, x + 1, x * 3]), buckets=3)
            tf.summary.image("img", tf.fill([1, 2, 2, 1], x / 4))
        step.assign_add(1)
        return r

    return [call(lambda: f(tf.constant(float(i)))) for i in range(4)]


def recording(tf, logdir):
    w = tf.summary.create_file_writer(logdir)
    out = [call(lambda: tf.summary.should_record_summaries())]
    with w.as_default(step=1):
        out.append(call(lambda: tf.summary.should_record_summaries()))
        for cond in (False, True, tf.constant(False), lambda: False, lambda: tf.constant(True)):
            with tf.summary.record_if(cond):
                out.append(call(lambda: tf.summary.should_record_summaries()))
                out.append(call(lambda: tf.summary.scalar("s", 1.0)))
        with tf.summary.record_if(False):
            out.append(call(lambda: tf.summary.scalar("s", 1.0, step=[1, 2])))
            out.append(call(lambda: tf.summary.scalar("s", 1.0, step=None)))
    return out


def writers(tf, logdir):
    a = tf.summary.create_file_writer(logdir + "/a")
    b = tf.summary.create_file_writer(logdir + "/b", max_queue=2, flush_millis=1000)
    out = []
    with a.as_default(step=10):
        out.append(call(lambda: tf.summary.scalar("tag", 1.0)))
        with b.as_default(step=20):
            out.append(call(lambda: tf.summary.scalar("tag", 2.0)))
        out.append(call(lambda: tf.summary.scalar("tag", 3.0)))
        out.append(call(lambda: tf.summary.experimental.get_step()))
    out.append(call(lambda: tf.summary.experimental.get_step()))
    b.set_as_default(step=30)
    out.append(call(lambda: tf.summary.scalar("tag", 4.0)))
    out.append(call(lambda: tf.summary.flush()))
    out.append(call(lambda: tf.summary.flush(a)))
    out.append(call(lambda: tf.summary.flush(3)))
    noop = tf.summary.create_noop_writer()
    with noop.as_default(step=5):
        out.append(call(lambda: tf.summary.scalar("tag", 5.0)))
    noop.set_as_default()
    out.append(call(lambda: [noop.flush(), noop.close(), noop.init()]))
    out.append(call(lambda: a.init()))
    a.close()
    b.close()
    out.append(call(lambda: a.close()))
    out.append(call(lambda: a.flush()))
    out.append(call(lambda: tf.summary.create_file_writer(None)))
    out.append(call(lambda: tf.summary.create_file_writer(3)))
    out.append(call(lambda: tf.summary.graph(3)))
    try:
        a.as_default()
        out.append("no error")
    except RuntimeError as e:
        out.append(["error", "RuntimeError", str(e).split(" object at ")[0]])
    return out


# "writers" leaves a closed default writer behind (TF has no way to unset it): it runs last
CASES = {"scalars": scalars, "histograms": histograms, "images": images, "texts": texts,
         "audios": audios, "generic": generic, "function": function, "recording": recording,
         "writers": writers}


def run(tf, name, logdir):
    return CASES[name](tf, logdir)
