"""``tf.config``: the switches tensortrace honours, and the device queries scripts make."""

from ._export import tf_export

_run_eagerly = [False]


@tf_export("config.run_functions_eagerly")
def run_functions_eagerly(run_eagerly):
    """Make every ``tf.function`` call its Python function directly (for debugging)."""
    _run_eagerly[0] = bool(run_eagerly)


@tf_export("config.functions_run_eagerly")
def functions_run_eagerly():
    return _run_eagerly[0]


tf_export("config.experimental_run_functions_eagerly")(run_functions_eagerly)
tf_export("config.experimental_functions_run_eagerly")(functions_run_eagerly)


class PhysicalDevice:
    def __init__(self, name, device_type):
        self.name, self.device_type = name, device_type

    def __repr__(self):
        return f"PhysicalDevice(name='{self.name}', device_type='{self.device_type}')"


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


@tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type=None):
    """Only the CPU exists: NumPy runs there."""
    return [_CPU] if device_type in (None, "CPU") else []


@tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type=None):
    return [PhysicalDevice("/device:CPU:0", "CPU")] if device_type in (None, "CPU") else []
