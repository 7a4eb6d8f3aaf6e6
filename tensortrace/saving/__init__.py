"""SavedModel: save tf.Module/tf.function graphs to disk and load them without the Python source
(``tf.saved_model``): a versioned JSON document and one ``.npz``, no pickle, no stored code."""

from .._export import export_value, tf_export
from .assets import Asset  # noqa: F401 - tf.saved_model.Asset
from .graph_util import import_graph_def  # noqa: F401 - tf.graph_util.import_graph_def
from .io import contains_saved_model
from .load import load
from .save import save
from .save_context import variable_policy
from .signatures import DEFAULT_SERVING_SIGNATURE_DEF_KEY


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted for compatibility; no option changes the format."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist or []
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases or {}
        self.experimental_custom_gradients = experimental_custom_gradients
        self.extra_tags = extra_tags
        self.experimental_variable_policy = experimental_variable_policy
        variable_policy(self)  # TF's ValueError for a policy it does not know


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted for compatibility."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_load_function_aliases=False, experimental_variable_policy=None,
                 experimental_skip_checkpoint=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_load_function_aliases = experimental_load_function_aliases
        self.experimental_skip_checkpoint = experimental_skip_checkpoint


tf_export("saved_model.save")(save)
tf_export("saved_model.load")(load)
tf_export("saved_model.contains_saved_model")(contains_saved_model)
tf_export("saved_model.SaveOptions")(SaveOptions)
tf_export("saved_model.LoadOptions")(LoadOptions)
export_value(DEFAULT_SERVING_SIGNATURE_DEF_KEY, "saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY")
export_value("serve", "saved_model.SERVING")
