"""``tf.saved_model.experimental.TrackableResource``: the base of objects owning a resource
(lookup tables ...). A subclass says how to make the resource (``_create_resource``), fill it
(``_initialize``) and free it (``_destroy_resource``); ``resource_handle`` makes it on first
use. Saved in TF's format as a ``resource`` node whose three children are those methods as
functions of no arguments, as TF saves them."""

from .._export import tf_export
from ..tracing.function import function


@tf_export("saved_model.experimental.TrackableResource")
class TrackableResource:
    """An object holding one resource, made lazily on ``device``."""

    def __init__(self, device=""):
        self._resource_device = device
        self._resource_handle_value = None
        self._self_saved_functions = None

    def _create_resource(self):
        """A new resource handle (subclasses say how)."""
        raise NotImplementedError("TrackableResource._create_resource not implemented.")

    def _initialize(self):
        """Fill the resource just made (nothing by default)."""

    def _destroy_resource(self):
        """Free the resource (nothing by default)."""

    @property
    def resource_handle(self):
        """The resource's handle, made (and initialized) on first use."""
        if self._resource_handle_value is None:
            self._resource_handle_value = self._create_resource()
            self._initialize()
        return self._resource_handle_value

    _resource_handle = resource_handle

    @property
    def _resource_device_name(self):
        return self._resource_device

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """A SavedModel saves the resource's three methods as functions of no arguments."""
        if save_type != "savedmodel":
            return {}
        if self._self_saved_functions is None:
            self._self_saved_functions = {
                name: function(getattr(self, name), input_signature=[], autograph=False)
                for name in ("_create_resource", "_initialize", "_destroy_resource")}
        return dict(self._self_saved_functions)
