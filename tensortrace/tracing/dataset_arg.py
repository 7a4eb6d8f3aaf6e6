"""A ``tf.data.Dataset`` argument inside a trace: the dataset fed at call time through a variant
placeholder, so datasets of one element spec share a trace (as in TF)."""

from ..data.dataset import Dataset


class DatasetArgument(Dataset):
    """Stands for whichever dataset the call passes; reads it from the placeholder's value."""

    def __init__(self, placeholder, element_spec):
        super().__init__(element_spec)
        self._placeholder = placeholder
        self._tensors = (placeholder,)

    def _fed(self, env):
        if env is None:
            raise LookupError("symbolic value")
        return env[id(self._placeholder)]  # a DatasetValue

    def _iterate(self, env):
        value = self._fed(env)
        return value.dataset._iterate(value.env)

    def _cardinality(self, env=None):
        value = self._fed(env)  # unknown while tracing: computed when the graph runs
        return value.dataset._cardinality(value.env)

    def __repr__(self):
        return f"<DatasetArgument element_spec={self._element_spec!r}>"
