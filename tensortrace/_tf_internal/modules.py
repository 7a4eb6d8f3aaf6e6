"""The members of the internal modules Keras' import reaches: tensortrace's objects under TF's
internal names, and the few functions TF defines only there. (``tools`` has those of the modules
only Keras' tests and utilities import, which need more of the package.)"""

from .. import config
from ..checkpoint import tracking
from ..context import state
from ..convert import convert_to_tensor
from ..ops.array.creation import ones_like
from ..ops.array.joining import stack
from ..ops.array.padding import pad
from ..ops.array.shapes import shape
from ..ops.math.casting import cast
from ..ops.math.clip import clip_by_value
from ..ops.math.compare import is_nan
from ..ops.math.select import where
from ..ops.sparse import csr


def data_structures():
    return {name: getattr(tracking, name) for name in (
        "ListWrapper", "_DictWrapper", "_TupleWrapper", "NoDependency", "wrap_or_unwrap",
        "sticky_attribute_assignment")}


class _EagerContext:
    """TF's eager context object (``context.context()``), as far as its users ask it."""

    def executing_eagerly(self):
        return state.graph is None

    def clear_kernel_cache(self):
        """Eager ops here are NumPy calls: there is no kernel cache to clear."""

    def async_wait(self):
        """Eager ops here finish before they return: nothing is pending."""


_context = _EagerContext()


# tf.config's settings that live in TF's eager context (a new context starts from these)
_CONTEXT_SWITCHES = {"soft_device_placement": True, "inter_op": 0, "intra_op": 0}


def _reset_context():
    """TF's test helper: a new eager context, as if the runtime had not started: the logical
    device configuration, placement, threading and JIT settings back to their defaults, and
    logical devices configurable again."""
    config._virtual_devices.clear()
    config._runtime_started[0] = False
    config._jit[0] = False
    config._SWITCHES.update(_CONTEXT_SWITCHES)


def eager_context():
    return {"context": lambda: _context, "executing_eagerly": _context.executing_eagerly,
            "async_wait": _context.async_wait, "_reset_context": _reset_context}


def math_ops():
    return {"is_nan": is_nan}


def framework_config():
    return {"is_op_determinism_enabled": config._op_determinism_enabled,
            "enable_op_determinism": config._enable_op_determinism,
            "disable_op_determinism": lambda: config._set_op_determinism(False)}


def dynamic_update_slice(operand, update, indices, name=None):
    """``operand`` with ``update`` written at ``indices`` (XLA's DynamicUpdateSlice: each start
    clamped so that the update fits)."""
    operand, update = convert_to_tensor(operand), convert_to_tensor(update)
    indices = convert_to_tensor(indices)
    room = shape(operand, out_type=indices.dtype) - shape(update, out_type=indices.dtype)
    starts = clip_by_value(indices, 0, room)
    paddings = stack([starts, room - starts], axis=1)
    mask = cast(pad(ones_like(update, dtype="int8"), paddings), "bool")
    return where(mask, pad(update, paddings), operand)


def xla():
    return {"dynamic_update_slice": dynamic_update_slice}


def sparse_csr_matrix_ops():
    """TF's CSR sparse matrix functions Keras' sparse-sparse matmul calls."""
    return {name: getattr(csr, name) for name in (
        "sparse_tensor_to_csr_sparse_matrix", "csr_sparse_matrix_to_sparse_tensor",
        "sparse_matrix_sparse_mat_mul")}
