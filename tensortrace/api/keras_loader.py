"""``tf.keras``: a module standing for Keras 3 (``keras._tf_keras.keras``) until first used, as
TF 2.21's lazy loader does, since importing Keras takes seconds. Its first use binds Keras'
TensorFlow backend to tensortrace (``_tf_internal.keras``, the command-line layer that owns the
``tensorflow`` module: reached by name, like every module loaded on first use)."""

import sys
import types

from . import PACKAGE, load


class KerasLazyLoader(types.ModuleType):
    """``tf.keras``: attribute access loads Keras and answers from it."""

    def __init__(self):
        super().__init__(f"{PACKAGE}.keras", "tf.keras: Keras 3, loaded on first use.")

    def _keras(self):
        module = self.__dict__.get("_tt_module")
        if module is None:
            module = load("_tf_internal.keras").bind(sys.modules[PACKAGE])
            self.__dict__["_tt_module"] = module
        return module

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self._keras(), name)

    def __dir__(self):
        return dir(self._keras())

    def __repr__(self):
        loaded = "_tt_module" in self.__dict__
        return f"<KerasLazyLoader (keras_3) keras{'' if loaded else ', not loaded'}>"


keras = KerasLazyLoader()
