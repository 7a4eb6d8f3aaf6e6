"""Our checkpoints are TF's: the same program saved by TF 2.21 and by tensortrace gives the same
bytes (index, data and state file), and the files TF checked by hand read back here."""

import json

import pytest

import tensortrace as tf

from . import ours_for_tf
from ._fixtures import DIR, assert_same


def test_same_bytes_as_tf(tmp_path):
    if getattr(tf, "bfloat16", None) is None:
        pytest.skip("bfloat16 needs ml_dtypes (the bfloat16 extra)")
    ours_for_tf.write(str(tmp_path))
    for name in ("mlp/ckpt-1.index", "mlp/ckpt-1.data-00000-of-00001", "mlp/checkpoint",
                 "dtypes/ckpt.index", "dtypes/ckpt.data-00000-of-00001"):
        assert (tmp_path / name).read_bytes() == (DIR / name).read_bytes(), name
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert expected["manager"]["checkpoints"] == ["manager/model-2", "manager/model-3"]
    assert sorted(p.name for p in (tmp_path / "manager").iterdir()) == [
        "checkpoint", "model-2.data-00000-of-00001", "model-2.index",
        "model-3.data-00000-of-00001", "model-3.index"]
    reader = tf.train.load_checkpoint(str(tmp_path / "blocks" / "bundle"))
    for key, rec in expected["blocks"]["values"].items():
        assert_same(reader.get_tensor(key), rec)
    assert not [p for p in tmp_path.rglob("*") if "tmp" in p.name or "tempstate" in p.name]
