"""``tf.saved_model.experimental.TrackableResource``: an object owning a resource tensor that it
creates (``_create_resource``), fills (``_initialize``) and frees (``_destroy_resource``).
Checkpoints walk its tracked children; a SavedModel saves the three methods as functions of no
arguments, as TF does, and recreates the resource by calling them (lookup tables are TF's
``resource`` nodes; other resources are saved through TF's Trackable protocol).

    class Table(TrackableResource):
        def _create_resource(self): return <a resource tensor>
"""

from .._export import tf_export
from ..convert import convert_to_tensor
from ..ops import core
from ..tracing.function import function


@tf_export("saved_model.experimental.TrackableResource")
class TrackableResource:
    """A resource owner: the handle is made on first use, eagerly (under ``init_scope``)."""

    def __init__(self, device=""):
        self._resource_handle_value = None
        self._resource_device = device
        self.__dict__.setdefault("_tracked_children", {})  # a subclass may track before this

    def _create_resource(self):
        """A new resource tensor."""
        raise NotImplementedError("TrackableResource._create_resource not implemented.")

    def _initialize(self):
        """Fill the resource (nothing by default)."""

    def _destroy_resource(self):
        """Free the resource (Python's collector frees ours)."""

    @property
    def resource_handle(self):
        """The resource tensor, created on first use."""
        if self._resource_handle_value is None:
            with core.init_scope():
                self._resource_handle_value = self._create_resource()
        return self._resource_handle_value

    @resource_handle.setter
    def resource_handle(self, value):
        self._resource_handle_value = value

    _resource_handle = resource_handle

    @property
    def _resource_device_name(self):
        return self._resource_device

    def _track_trackable(self, value, name):
        """Track ``value`` as the child ``name`` (checkpoints and SavedModels reach it)."""
        self._tracked_children[name] = value
        return value

    def _checkpoint_children(self):
        return list(self._tracked_children.items())

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        """TF's Trackable protocol: the tracked children, and for a SavedModel the three
        methods as argument-less functions."""
        children = dict(self._tracked_children)
        if save_type == "savedmodel":
            children.update(self._saved_functions())
        return children

    def _saved_functions(self):
        """``_create_resource``, ``_initialize`` and ``_destroy_resource`` as TF saves them
        (the last two return a dummy 1), made once per resource."""
        made = self.__dict__.get("_saved_resource_functions")
        if made is None:
            def creator():
                return self._create_resource()

            def initializer():
                self._initialize()
                return convert_to_tensor(1)

            def destroyer():
                self._destroy_resource()
                return convert_to_tensor(1)

            made = [(name, function(fn, input_signature=[], autograph=False)) for name, fn in (
                ("_create_resource", creator), ("_initialize", initializer),
                ("_destroy_resource", destroyer))]
            self.__dict__["_saved_resource_functions"] = made
        return made
