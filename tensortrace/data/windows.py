"""``window``: datasets of windows of elements, iterated eagerly or read by ``flat_map``."""

from ..context import state
from . import structure
from .dataset import Dataset, DatasetSpec, UnaryDataset, int_arg, int_value, positive, tensors_of
from .ops import UNKNOWN


class _WindowDataset(UnaryDataset):
    """Windows of ``size`` elements (every ``stride``-th) starting every ``shift`` elements;
    each element is a structure of datasets, one per component. Iterated eagerly or read by
    ``flat_map``."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        self._size = int_arg(size, "size")
        self._shift = self._size if shift is None else int_arg(shift, "shift")
        self._stride = int_arg(stride, "stride")
        for value, what in ((self._size, "size"), (self._shift, "shift"),
                            (self._stride, "stride")):
            positive(value, f"Window {what} must be greater than zero.", "WindowDataset")
        self._drop = bool(drop_remainder)
        self._tensors = tensors_of(self._size, self._shift, self._stride)
        self._components = input_dataset.element_spec
        flat = [DatasetSpec(sp) for sp in structure.flatten(self._components)]
        super().__init__(input_dataset, structure.pack(self._components, flat))

    def _iterate(self, env):
        """Yields one tuple per window: for each component, the list of its values."""
        size, shift, stride = (int_value(v, env) for v in (self._size, self._shift,
                                                             self._stride))
        source = self._input._iterate(env)
        buf, base, start, done = [], 0, 0, False
        while True:
            last = start + (size - 1) * stride
            while not done and base + len(buf) <= last:
                element = next(source, None)
                if element is None:
                    done = True
                else:
                    buf.append(element)
            picked = [buf[i - base] for i in range(start, last + 1, stride)
                      if i - base < len(buf)]
            if not picked or (self._drop and len(picked) < size):
                return
            yield tuple(list(column) for column in zip(*picked))
            start += shift
            drop = min(start - base, len(buf))
            del buf[:drop]
            base += drop

    def _cardinality(self, env=None):
        n = self._input._cardinality(env)
        if n < 0:
            return n
        size, shift, stride = (int_value(v, env) for v in (self._size, self._shift,
                                                             self._stride))
        if self._drop:
            return max(0, (n - (size - 1) * stride - 1) // shift + 1)
        return -(-n // shift)

    def __iter__(self):
        if state.graph is not None:
            raise TypeError("Iterating over a dataset of datasets inside a tf.function is not "
                            "supported; use flat_map.")
        flat_specs = structure.flatten(self._components)
        for window in self._iterate({}):
            yield structure.pack(self._components, [
                _WindowElement(spec, column) for spec, column in zip(flat_specs, window)])


def has_dataset_elements(dataset):
    return any(isinstance(sp, DatasetSpec) for sp in structure.flatten(dataset.element_spec))


class _WindowElement(Dataset):
    """One component of one window: its values given (eagerly) or read from ``env`` (by the
    dataset ``flat_map``'s function built on it)."""

    def __init__(self, spec, values=None):
        self._values = values
        super().__init__(spec)

    def _iterate(self, env):
        values = self._values if self._values is not None else env[id(self)]
        for v in values:
            yield (v,)

    def _cardinality(self, env=None):
        return len(self._values) if self._values is not None else UNKNOWN


_WindowElement.__name__ = _WindowElement.__qualname__ = "_VariantDataset"
# a window's component reached through another dataset (window(2).take(1)) is a dataset too
structure.ELEMENT_WRAPPERS[DatasetSpec] = lambda spec, values: _WindowElement(
    spec.element_spec, values)


class _WindowFlatMapDataset(Dataset):
    """``flat_map`` over ``window``: ``map_func`` runs once on placeholder datasets; each
    window's values are fed to them through ``env``."""

    def __init__(self, windows, map_func):
        specs = windows.element_spec
        flat = [_WindowElement(sp.element_spec) for sp in structure.flatten(specs)]
        arg = structure.pack(specs, flat)
        ds = map_func(*arg) if isinstance(arg, tuple) and not hasattr(arg, "_fields") \
            else map_func(arg)
        if not isinstance(ds, Dataset):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. "
                            f"Got {type(ds)!r}.")
        self._placeholders, self._inner = flat, ds
        self._inputs = (windows, ds)
        super().__init__(ds.element_spec)

    def _iterate(self, env):
        for window in self._inputs[0]._iterate(env):
            fed = dict(env or {})
            fed.update((id(p), column) for p, column in zip(self._placeholders, window))
            yield from self._inner._iterate(fed)

    def _cardinality(self, env=None):
        return UNKNOWN


_WindowFlatMapDataset.__name__ = _WindowFlatMapDataset.__qualname__ = "_FlatMapDataset"
