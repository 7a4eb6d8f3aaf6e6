"""``tf.keras`` and its aliases ``tf.losses``, ``tf.metrics``, ``tf.optimizers``: modules standing
for Keras 3 (``keras._tf_keras.keras`` and its sub-modules) until first used, as TF 2.21's lazy
loader does, since importing Keras takes seconds. The first use binds Keras' TensorFlow backend to
tensortrace (``_tf_internal.keras``, the command-line layer that owns the ``tensorflow`` module:
reached by name, like every module loaded on first use)."""

import sys
import types

from . import PACKAGE, load


class KerasLazyLoader(types.ModuleType):
    """``tf.keras`` (or ``tf.<submodule>``): attribute access loads Keras and answers from it."""

    _tt_keras_loader = True  # the shim shows it as it is, as TF's tensorflow.keras

    def __init__(self, submodule=None):
        name = submodule or "keras"
        super().__init__(f"{PACKAGE}.{name}", f"tf.{name}: Keras 3's, loaded on first use.")
        self.__dict__["_tt_submodule"] = submodule

    def _keras(self):
        module = self.__dict__.get("_tt_module")
        if module is None:
            module = load("_tf_internal.keras").bind(sys.modules[PACKAGE])
            submodule = self.__dict__["_tt_submodule"]
            if submodule is not None:
                module = getattr(module, submodule)
            self.__dict__["_tt_module"] = module
        return module

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self._keras(), name)

    def __dir__(self):
        return dir(self._keras())

    def __repr__(self):
        loaded = "" if "_tt_module" in self.__dict__ else ", not loaded"
        return f"<KerasLazyLoader (keras_3) {self.__name__}{loaded}>"


keras = KerasLazyLoader()
losses = KerasLazyLoader("losses")
metrics = KerasLazyLoader("metrics")
optimizers = KerasLazyLoader("optimizers")
