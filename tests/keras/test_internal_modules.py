"""TF's internal modules Keras' tests import through the shim: ``context._reset_context``,
``tensorflow.core.util.event_pb2`` and ``tensorflow.python.lib.io.tf_record``. Expected values
are TF 2.21's."""

import contextlib
import sys

import pytest

import tensortrace as tf
from tensortrace import shim


@contextlib.contextmanager
def _shim():
    saved = {k: v for k, v in sys.modules.items()
             if k == "tensorflow" or k.startswith("tensorflow.")}
    try:
        shim.install(tf)
        yield
    finally:
        for k in [k for k in sys.modules if k == "tensorflow" or k.startswith("tensorflow.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def test_reset_context_makes_logical_devices_configurable_again():
    with _shim():
        from tensorflow.python.eager import context
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.threading.set_inter_op_parallelism_threads(3)
        tf.config.set_soft_device_placement(False)
        tf.config.optimizer.set_jit(True)
        tf.constant(1.0)  # the runtime has started
        with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
            tf.config.set_logical_device_configuration(
                cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        assert context._reset_context() is None
        # TF 2.21 after the reset: 0 True '' None
        assert tf.config.threading.get_inter_op_parallelism_threads() == 0
        assert tf.config.get_soft_device_placement() is True
        assert tf.config.optimizer.get_jit() == ""
        assert tf.config.get_logical_device_configuration(cpu) is None
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
        assert [d.name for d in tf.config.list_logical_devices()] == [
            "/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
        context._reset_context()
        assert [d.name for d in tf.config.list_logical_devices()] == ["/device:CPU:0"]
    finally:
        tf.config.set_soft_device_placement(True)
        tf.config.threading.set_inter_op_parallelism_threads(0)


def test_tf_record_iterator_and_event_messages(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path, "GZIP") as w:
        for record in (b"one", b"", b"three"):
            w.write(record)
    with _shim():
        from tensorflow.core.util import event_pb2
        from tensorflow.python.lib.io import tf_record
        got = list(tf_record.tf_record_iterator(path, tf.io.TFRecordOptions("GZIP")))
        assert got == [b"one", b"", b"three"]
        assert list(tf_record.tf_record_iterator(path, "GZIP")) == got
        with pytest.raises(ValueError, match='Not a valid compression_type: "LZ4"'):
            tf_record.tf_record_iterator(path, "LZ4")  # at the call, as TF
        with pytest.raises(tf.errors.NotFoundError):
            tf_record.tf_record_iterator(str(tmp_path / "none"))
        event = event_pb2.Event(step=3, wall_time=1.5)
        event.summary.value.add(tag="loss", simple_value=0.25)
        again = event_pb2.Event.FromString(event.SerializeToString())
        assert (again.step, again.summary.value[0].tag) == (3, "loss")
        assert event_pb2.Event is tf.compat.v1.Event


def test_distributed_value_types():
    from tensortrace.distribute import values

    per = values.PerReplica((tf.constant(1.0), tf.constant(2.0)))
    assert isinstance(per, tf.types.experimental.distributed.PerReplica)
    assert isinstance(per, tf.distribute.DistributedValues)
    assert not isinstance(tf.constant(1.0), tf.types.experimental.distributed.PerReplica)
    assert tf.types.experimental.distributed.Mirrored.__name__ == "Mirrored"


def test_eager_name_scopes_are_per_thread():
    import threading

    seen = []
    with tf.name_scope("a"):
        assert tf.Variable(1.0, name="x").name == "a/x:0"
        worker = threading.Thread(target=lambda: seen.append(
            (tf.Variable(1.0, name="y").name, tf.get_current_name_scope())))
        worker.start()
        worker.join()
        assert tf.get_current_name_scope() == "a"
    assert seen == [("y:0", "")]  # TF 2.21: a new thread starts at the top level
