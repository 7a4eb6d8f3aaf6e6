"""Keras 3 on tensortrace: ``tf.keras`` is ``keras._tf_keras.keras`` (as TF 2.21's loader makes
it), with Keras' TensorFlow backend importing the shim's ``tensorflow``, so that every backend call
lands in tensortrace.

In a program run by ``python -m tensortrace`` the shim is already ``tensorflow``. A program that
imports tensortrace itself gets the shim installed as ``tensorflow`` when it first uses
``tf.keras`` (in this process only: an installed TensorFlow is untouched on disk), unless a real
TensorFlow is already imported, which Keras would then be bound to: that is an ImportError.

Keras' import makes some 150,000 objects that live as long as the program: the cyclic garbage
collector is paused while it runs (its passes over them found next to nothing to free and took a
good part of the import) and the objects are then frozen (``gc.freeze``), so that later full
collections, in ``fit`` too, skip them, as long-running servers do after their imports.
"""

import contextlib
import gc
import importlib
import importlib.util
import os
import sys

from .. import shim

INSTALL_HINT = "pip install 'tensortrace[keras]'"


def keras_dir():
    """The folder holding ``keras/_tf_keras`` (``tensorflow.keras`` is loaded from it, as in TF),
    or None when Keras is not installed; Keras itself is not imported."""
    try:
        spec = importlib.util.find_spec("keras")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "_tf_keras")


@contextlib.contextmanager
def collector_paused():
    """Run the block (an import of long-lived modules) with the cyclic garbage collector off,
    then freeze every object it made; the collector is on again afterwards only if it was on
    before, also when the block raises (then nothing is frozen: the half-made modules are
    garbage)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
    gc.freeze()


class _PausedCollectorLoader:
    """Keras' own loader, run with the collector paused (``collector_paused``)."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__spec__.loader = module.__loader__ = self._loader  # Keras sees its own loader
        with collector_paused():
            self._loader.exec_module(module)
        trainer = sys.modules.get("keras.src.backend.tensorflow.trainer")
        if trainer is not None:  # `import keras` on the TF backend (python -m tensortrace)
            _average_scalars_over_workers(trainer)

    def __getattr__(self, name):  # get_source, get_filename ...: Keras' own loader's
        return getattr(self._loader, name)


def keras_spec(fullname, path, target, finder):
    """The spec of Keras' top-level package ``keras`` as the meta-path finders after ``finder``
    (the shim's) find it, its import run by ``_PausedCollectorLoader``; None when not found."""
    for other in sys.meta_path:
        if other is not finder and hasattr(other, "find_spec"):
            spec = other.find_spec(fullname, path, target)
            if spec is not None:
                break
    else:
        return None
    if spec.loader is not None:
        spec.loader = _PausedCollectorLoader(spec.loader)
    return spec


def missing_keras():
    """The error for ``tf.keras`` without Keras installed."""
    return ImportError(f"tf.keras needs Keras 3, which is not installed: {INSTALL_HINT}")


def bind(package):
    """``keras._tf_keras.keras`` with Keras' TensorFlow backend on ``package`` (tensortrace).

    Raises:
        ImportError: Keras is not installed or not Keras 3, or a real TensorFlow is imported.
    """
    current = sys.modules.get("tensorflow")
    if current is not None and not isinstance(current, shim.Namespace):
        raise ImportError("tf.keras: TensorFlow itself is already imported in this process, and "
                          "Keras' TensorFlow backend would run on it rather than on tensortrace; "
                          "use tf.keras before importing TensorFlow, or run the program with "
                          "`python -m tensortrace`")
    if keras_dir() is None:
        raise missing_keras()
    if current is None:
        shim.install(package)
    import keras
    if not keras.__version__.startswith("3."):
        raise ImportError(f"tf.keras needs Keras 3 (TF 2.21's tf.keras); found Keras "
                          f"{keras.__version__}: {INSTALL_HINT}")
    module = importlib.import_module("keras._tf_keras.keras")
    _average_scalars_over_workers(importlib.import_module("keras.src.backend.tensorflow.trainer"))
    return module


def _average_scalars_over_workers(trainer):
    """Let Keras' ``fit``/``evaluate`` run under a multi-worker MultiWorkerMirroredStrategy.

    Done once, whichever way Keras is imported (``tf.keras`` or ``import keras`` under the shim).
    Keras 3's ``reduce_per_replica`` averages the workers' outputs with
    ``strategy.reduce("MEAN", v, axis=0)``, which TF rejects for the scalar metrics a train
    step returns, so ``fit`` fails in TF 2.21 itself (tensorflow/tensorflow#72388). Scalars are
    averaged over the workers instead (Keras' metric variables aggregate by SUM: every worker
    holds the global value already); other values go to Keras' own function."""
    original = trainer.reduce_per_replica
    if getattr(original, "_tt_scalars_over_workers", False):
        return

    def reduce_per_replica(values, strategy, reduction):
        if reduction not in ("auto", "mean") or \
                not trainer._collective_all_reduce_multi_worker(strategy):
            return original(values, strategy, reduction)

        def one(value):
            local = strategy.experimental_local_results(value)[0]
            if getattr(getattr(local, "shape", None), "rank", None) == 0:
                return strategy.reduce("MEAN", value, axis=None)
            return original(value, strategy, reduction)

        return trainer.tree.map_structure(one, values)

    reduce_per_replica._tt_scalars_over_workers = True
    trainer.reduce_per_replica = reduce_per_replica
