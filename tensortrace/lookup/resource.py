"""TF's ``TrackableResource``: an object owning a resource tensor that it creates
(``_create_resource``), fills (``_initialize``) and frees (``_destroy_resource``). Checkpoints
walk its tracked children; a SavedModel saves the three methods as functions and recreates the
resource by calling them.

    class Table(TrackableResource):
        def _create_resource(self): return <a resource tensor>
"""

from ..ops import core


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

    def _track_trackable(self, value, name):
        """Track ``value`` as the child ``name`` (checkpoints and SavedModels reach it)."""
        self._tracked_children[name] = value
        return value

    def _checkpoint_children(self):
        return list(self._tracked_children.items())
