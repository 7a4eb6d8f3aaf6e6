"""tf.summary against TF 2.21: the cases of ``cases.py`` return and raise what TF's did, and the
event files they write hold TF's events (tags, steps, plugin metadata, tensors; PNGs compared by
their decoded pixels, as the encoder's filters may differ), as TensorBoard's loader reads them."""

import json
import os
import re
import socket

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.summary import writer as summary_writer

from . import cases
from .readers import decode_png, event_file, events

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf", "summary")
with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def _normal(result):
    """TF's eager error texts without what only its runtime adds (the function-node prefix, the
    empty name suffix) and without the module path of an object's repr."""
    if isinstance(result, list) and result[:1] == ["error"]:
        text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", result[2])
        text = re.sub(r" name: $", "", text)
        text = re.sub(r"<[\w.]+\._ResourceSummaryWriter", "<_ResourceSummaryWriter", text)
        return ["error", result[1], text]
    return result


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("summary")
    results = {}
    try:
        for name in cases.CASES:
            results[name] = cases.run(tf, name, str(root / name))
    finally:
        summary_writer.state.__init__()  # "writers" leaves its default writer set
    return root, results


@pytest.mark.parametrize("name", list(cases.CASES))
def test_results_and_errors_are_tfs(written, name):
    _, results = written
    assert [_normal(r) for r in results[name]] == [_normal(r) for r in EXPECTED[name]]


def _folders(root):
    return sorted(os.path.relpath(d, root) for d, _, files in os.walk(root) if files)


def _compare_value(ours, theirs):
    assert ours.tag == theirs.tag
    assert ours.metadata == theirs.metadata
    assert ours.tensor.dtype == theirs.tensor.dtype
    assert ours.tensor.tensor_shape == theirs.tensor.tensor_shape
    if theirs.metadata.plugin_data.plugin_name == "images":
        assert ours.tensor.string_val[:2] == theirs.tensor.string_val[:2]  # width, height
        for png, tf_png in zip(ours.tensor.string_val[2:], theirs.tensor.string_val[2:]):
            np.testing.assert_array_equal(decode_png(png), decode_png(tf_png))
    else:
        assert ours.tensor == theirs.tensor
    if theirs.HasField("simple_value"):
        assert ours.simple_value == theirs.simple_value


@pytest.mark.parametrize("name", list(cases.CASES))
def test_event_files_hold_tfs_events(written, name):
    root, _ = written
    folders = _folders(os.path.join(FIXTURES, name))
    assert _folders(root / name) == folders
    for folder in folders:
        ours, theirs = events(root / name / folder), events(os.path.join(FIXTURES, name, folder))
        assert len(ours) == len(theirs)
        assert ours[0].file_version == theirs[0].file_version == "brain.Event:2"
        assert ours[0].source_metadata == theirs[0].source_metadata
        for mine, tfs in zip(ours[1:], theirs[1:]):
            assert mine.step == tfs.step
            assert mine.WhichOneof("what") == tfs.WhichOneof("what")
            assert len(mine.summary.value) == len(tfs.summary.value)
            for value, tf_value in zip(mine.summary.value, tfs.summary.value):
                _compare_value(value, tf_value)
            assert abs(mine.wall_time - os.path.getmtime(event_file(root / name / folder))) < 60


def test_file_names_are_tfs(written):
    root, _ = written
    pattern = (r"events\.out\.tfevents\.\d{10}\." + re.escape(socket.gethostname()) +
               rf"\.{os.getpid()}\.(\d+)")
    names = {case: os.path.basename(event_file(root / case)) for case in ("scalars", "generic")}
    scalars = re.fullmatch(pattern + r"\.v2", names["scalars"])
    generic = re.fullmatch(pattern + r"\.custom", names["generic"])
    assert scalars and generic
    assert int(generic.group(1)) > int(scalars.group(1))  # the process-wide writer number
