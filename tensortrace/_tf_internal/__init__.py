"""TensorFlow's internal modules that Keras' TensorFlow backend imports
(``tensorflow.python.eager.context``, ``tensorflow.compiler.tf2xla.python.xla`` ...): small real
modules over tensortrace's objects, which the shim installs under TF's names. A name such a
module lacks, and any other internal module, is named as missing when a program reaches it."""

from ..api import load

#: TF's internal module (below ``tensorflow.``) -> the function of ``modules`` giving its
#: members ("" for none: the module exists, each member a program uses is named missing).
MODULES = {
    "python.trackable.data_structures": "data_structures",
    "python.eager.context": "eager_context",
    "python.ops.math_ops": "math_ops",
    "python.ops.linalg.sparse.sparse_csr_matrix_ops": "sparse_csr_matrix_ops",
    "python.framework.config": "framework_config",
    "python.framework.tensor_util": "tensor_util",
    "compiler.tf2xla.python.xla": "xla",
    "core.util.event_pb2": "event_pb2",
    "python.lib.io.tf_record": "tf_record",
}

#: The packages on the way to them (``python``, ``python.eager`` ...).
PACKAGES = frozenset(".".join(name.split(".")[:i]) for name in MODULES
                     for i in range(1, name.count(".") + 1))


def members(rel):
    """The members of internal module ``tensorflow.<rel>``: a dict, {} for a package on the way
    to one, None for a module not provided."""
    if rel in MODULES:
        maker = MODULES[rel]  # its module loads on first use, as the package's names do
        return getattr(load("_tf_internal.modules"), maker)() if maker else {}
    return {} if rel in PACKAGES else None
