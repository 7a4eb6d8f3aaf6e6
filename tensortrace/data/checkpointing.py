"""Iterator state in checkpoints: ``tf.train.Checkpoint(iterator=iter(ds))`` saves where the
iterator is and restores it there.

TF saves a ``variant`` tensor holding each dataset kernel's own state. tensortrace's datasets are
Python generators, so the state saved (a string tensor under TF's key
``<path>/.ATTRIBUTES/ITERATOR_STATE``) is a position: the number of elements given, the random
seeds the iteration drew (shuffle buffers, sampling) and a description of the dataset. Restoring
replays the dataset from its start with those seeds up to that position, which gives the same
elements for deterministic pipelines (costing the replayed elements' work, and repeating side
effects of user functions, such as ``tf.py_function`` or global random ops, during the replay).
The state is not interchangeable with TF's: a TF checkpoint's iterator state cannot be restored
here, nor ours in TF.
"""

import json

import numpy as np

from .. import dtypes as D
from .. import errors
from . import structure

ATTRIBUTE = "ITERATOR_STATE"
_FORMAT = "tensortrace-iterator-state-1"


def _kind(dataset):
    name = type(dataset).__name__.lstrip("_")
    return name[:-len("Dataset")] if name.endswith("Dataset") else name


def _chain(dataset):
    """TF's iterator prefix: ``Iterator::Root::Map::Range`` (outermost first)."""
    kinds = []
    while dataset is not None:
        kinds.append(_kind(dataset))
        dataset = dataset._inputs[0] if dataset._inputs else None
    return "::".join(["Iterator", "Root"] + kinds)


def _describe(dataset):
    """The kinds of the datasets (as a tree) and the element structure: what must match for a
    saved position to mean the same elements."""
    def tree(ds):
        inner = ",".join(tree(d) for d in ds._inputs)
        return f"{_kind(ds)}({inner})"
    return f"{tree(dataset)} {structure.structure_text(dataset.element_spec)}"


def serialize(iterator_state):
    """The state of an iterator as ``(value, dtype)`` for the checkpoint's bundle."""
    state = {"format": _FORMAT, "dataset": _describe(iterator_state.dataset),
             "position": iterator_state.count, "seeds": iterator_state.rng.seeds}
    return np.array(json.dumps(state).encode("utf-8"), dtype=object), D.string


def restore(iterator_state, value):
    """Put ``iterator_state`` at the saved position ``value`` (bytes from ``serialize``)."""
    chain = _chain(iterator_state.dataset)
    try:
        state = json.loads(bytes(value).decode("utf-8"))
        ok = state.get("format") == _FORMAT
    except (TypeError, ValueError, AttributeError):
        ok = False
    if not ok or state["dataset"] != _describe(iterator_state.dataset):
        raise errors.NotFoundError(
            None, None, f"Failed to restore dataset iterator from checkpoint: {chain}. Make sure "
            f"the dataset definition has not changed between the process that saved the "
            f"checkpoint and the process that is restoring it. [Op:DeserializeIterator]")
    iterator_state.restore(int(state["position"]), state["seeds"])
