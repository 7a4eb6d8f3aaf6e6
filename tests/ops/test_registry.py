"""The registry is complete: every op has a shape rule and a kernel, and every op is exercised by
some op-table case (kernel against NumPy, infer against kernel)."""

import importlib

from tensortrace import registry

from .optable import op_types

TABLE_MODULES = [
    "tests.ops.test_math", "tests.ops.test_reduce", "tests.ops.test_array",
    "tests.ops.test_indexing", "tests.ops.test_linalg", "tests.ops.test_nn",
    "tests.ops.test_nn_grad_ops",
    "tests.ops.test_random", "tests.ops.test_random_philox", "tests.ops.test_image",
    "tests.ops.test_strings", "tests.test_control_flow",
    "tests.test_tensor_array", "tests.autodiff.test_grad_ops", "tests.data.test_ops",
    "tests.utility.test_ops", "tests.ops.test_tf_sweep", "tests.summary.test_ops",
    "tests.sparse.test_ops", "tests.ops.strings.test_optable", "tests.ops.test_example_parsing",
    "tests.ops.test_keras_ops",
    "tests.ops.test_signal",
]

# Ops that exist only inside graphs or around variables, exercised by their own tests:
# tests/tracing (Const, Placeholder, variable reads/writes, prints, py_function).
GRAPH_ONLY = {"Const", "Placeholder", "ReadVariableOp", "AssignVariableOp",
              "AssignAddVariableOp", "AssignSubVariableOp", "InitializeVariableOnce",
              "VarIsInitializedOp", "PrintV2", "EagerPyFunc", "ResourceScatterNdUpdate",
              "ResourceScatterNdAdd", "ResourceScatterNdSub", "ResourceScatterNdMax",
              "ResourceScatterNdMin",
              "IndexAxis0",  # made only by the optimizer: tests/tracing/test_passes.py
              # a jit_compile function called in a trace: tests/xla/test_jit_call.py
              "PartitionedCall", "StatefulPartitionedCall",
              # lookup tables, through their resources: tests/lookup
              "HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
              "MutableDenseHashTableV2", "LookupTableFindV2", "LookupTableInsertV2",
              "LookupTableRemoveV2", "LookupTableSizeV2", "LookupTableExportV2",
              "LookupTableImportV2", "InitializeTableV2", "InitializeTableFromTextFileV2",
              # anonymous and dataset-filled tables, generic resources (a variable by handle):
              # tests/saving/test_tf_datasets.py, through SavedModels
              "AnonymousHashTable", "AnonymousMutableHashTable", "InitializeTableFromDataset",
              "VarHandleOp", "DestroyResourceOp",
              # the workers' collectives: tests/distribute/test_multi_worker_ray.py,
              # tests/distribute/test_ray_reduce_scatter.py
              "CollectiveReduceV2", "CollectiveGatherV2", "CollectiveBatchReduce"}


def test_every_op_has_infer_and_kernel():
    missing = [name for name, op in registry.all_ops().items()
               if not callable(op.infer) or not callable(op.kernel)]
    assert missing == []


def _cases():
    for name in TABLE_MODULES:
        module = importlib.import_module(name)
        yield from getattr(module, "CASES", [])


def test_every_op_appears_in_an_op_table_case():
    covered = set(GRAPH_ONLY)
    for case in _cases():
        try:
            covered |= op_types(case)
        except Exception:  # noqa: BLE001 - cases that fail to trace are reported by their module
            pass
    uncovered = sorted(set(registry.all_ops()) - covered)
    assert uncovered == [], f"ops without an op-table case: {uncovered}"
