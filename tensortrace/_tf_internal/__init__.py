"""TensorFlow's internal modules that Keras' TensorFlow backend imports
(``tensorflow.python.eager.context``, ``tensorflow.compiler.tf2xla.python.xla`` ...): small real
modules over tensortrace's objects, which the shim installs under TF's names. A name such a
module lacks, and any other internal module, is named as missing when a program reaches it."""

from ..api import load

#: TF's internal module (below ``tensorflow.``) -> "module.function": the function (of that
#: module of this package) giving its members ("" for none: the module exists, each member a
#: program uses is named missing). ``modules`` has what Keras' import reaches; ``tools`` needs
#: more of the package and is loaded only when a program reaches one of its modules.
MODULES = {
    "python.trackable.data_structures": "modules.data_structures",
    "python.eager.context": "modules.eager_context",
    "python.ops.math_ops": "modules.math_ops",
    "python.ops.linalg.sparse.sparse_csr_matrix_ops": "modules.sparse_csr_matrix_ops",
    "python.framework.config": "modules.framework_config",
    "python.framework.tensor_util": "tools.tensor_util",
    "compiler.tf2xla.python.xla": "modules.xla",
    "core.util.event_pb2": "tools.event_pb2",
    "python.lib.io.tf_record": "tools.tf_record",
}

#: The packages on the way to them (``python``, ``python.eager`` ...).
PACKAGES = frozenset(".".join(name.split(".")[:i]) for name in MODULES
                     for i in range(1, name.count(".") + 1))


def members(rel):
    """The members of internal module ``tensorflow.<rel>``: a dict, {} for a package on the way
    to one, None for a module not provided."""
    if rel in MODULES:
        module, _, maker = MODULES[rel].rpartition(".")  # loaded on first use, as tf's names are
        return getattr(load(f"_tf_internal.{module}"), maker)() if maker else {}
    return {} if rel in PACKAGES else None
