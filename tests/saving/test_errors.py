"""Save and load errors: what cannot be saved is refused at save time naming the op and the
function; a model with unknown ops, a bad version, malformed or missing files is refused at load
time naming what is wrong, before anything runs; a failing save never damages the model that
was already there."""

import json
import os

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.saving import io
from tensortrace.saving.save import save_json


def _model(scale=2.0):
    m = tf.Module()
    m.v = tf.Variable(scale, name="v")
    m.f = tf.function(lambda x: x * m.v + 1.0, input_signature=[tf.TensorSpec([None])])
    m.f.get_concrete_function()
    return m


def _save(tmp_path, name="m", model=None):
    path = str(tmp_path / name)
    save_json(model or _model(), path)
    return path


def _edit(path, change):
    """Rewrite the model's JSON document through ``change(document)``."""
    file = os.path.join(path, "saved_model.json")
    with open(file) as f:
        document = json.load(f)
    change(document)
    with open(file, "w") as f:
        json.dump(document, f)


def _function(document):
    (doc,) = [d for d in document["functions"].values() if d["function_name"] == "<lambda>"]
    return doc


def _op(document, op_type):
    return next(op for op in _function(document)["graph"]["ops"] if op["type"] == op_type)


def _leftovers(tmp_path):
    return [n for n in os.listdir(tmp_path) if n.startswith(".")]


# --- save-time errors -----------------------------------------------------------------------------
def test_py_function_cannot_be_saved_and_names_op_and_function(tmp_path):
    m = tf.Module()

    def doubled(x):
        return tf.py_function(lambda a: a * 2, [x], tf.float32)

    m.double = tf.function(doubled, input_signature=[tf.TensorSpec([], tf.float32)])
    with pytest.raises(ValueError, match=r"^Cannot save function 'doubled' \(__inference_doubled"
                       r"_\d+\): op 'EagerPyFunc' \(EagerPyFunc\) cannot be saved because "
                       r"tf.py_function/tf.numpy_function calls a Python callable"):
        save_json(m, str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m") and _leftovers(tmp_path) == []


def test_python_dataset_cannot_be_saved(tmp_path):
    ds = tf.data.Dataset.range(3)

    def total():
        s = tf.constant(0, tf.int64)
        for x in ds:
            s += x
        return s

    m = tf.Module()
    m.total = tf.function(total)
    assert m.total().numpy() == 3
    with pytest.raises(ValueError, match="op 'PythonDataset' .* a tf.data pipeline is a Python "
                       "object"):
        save_json(m, str(tmp_path / "m"))


def test_only_trackable_objects_can_be_saved(tmp_path):
    for obj in (object(), 3, tf.function(lambda: 1)):
        with pytest.raises(ValueError, match="^Expected an object of type `Trackable`, such as "
                           "`tf.Module` or a subclass of the `Trackable` class, for export. Got "):
            save_json(obj, str(tmp_path / "m"))


def test_save_into_a_file_path_is_failed_precondition(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(tf.errors.FailedPreconditionError, match="file is not a directory"):
        save_json(_model(), str(tmp_path / "file"))


def test_save_creates_missing_parent_directories(tmp_path):
    path = _save(tmp_path, "a/b/c")
    assert tf.saved_model.load(path).f([1.0]).numpy() == [3.0]


def test_traces_taking_python_objects_are_left_out(tmp_path):
    class Config:
        factor = 2.0

    m = tf.Module()
    m.f = tf.function(lambda x, config: x * config.factor)
    m.f(tf.constant(1.0), Config())
    loaded = tf.saved_model.load(_save(tmp_path, model=m))
    with pytest.raises(ValueError, match="^Found zero restored functions for caller function"):
        loaded.f(tf.constant(1.0), Config())  # TF drops such traces too


# --- atomicity ------------------------------------------------------------------------------------
def _assert_intact(path, scale=2.0):
    np.testing.assert_array_equal(tf.saved_model.load(path).f([1.0]).numpy(), [scale + 1.0])


def test_failing_save_leaves_the_existing_model_intact(tmp_path):
    path = _save(tmp_path)
    bad = _model(5.0)
    bad.p = tf.function(lambda: tf.py_function(lambda: 1.0, [], tf.float32), input_signature=[])
    with pytest.raises(ValueError, match="EagerPyFunc"):
        save_json(bad, path)
    _assert_intact(path)
    assert _leftovers(tmp_path) == []


def test_crash_while_writing_leaves_the_existing_model_intact(tmp_path, monkeypatch):
    path = _save(tmp_path)

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(io.json, "dumps", crash)  # after the .npz, before the document
    with pytest.raises(OSError, match="disk full"):
        save_json(_model(5.0), path)
    monkeypatch.undo()
    _assert_intact(path)
    assert _leftovers(tmp_path) == []


def test_failed_rename_puts_the_existing_model_back(tmp_path, monkeypatch):
    path = _save(tmp_path)
    rename = os.rename

    def failing(src, dst):
        if ".saving-" in os.path.basename(src):  # the new model moving into place
            raise OSError("rename failed")
        return rename(src, dst)

    monkeypatch.setattr(io.os, "rename", failing)
    with pytest.raises(OSError, match="rename failed"):
        save_json(_model(5.0), path)
    monkeypatch.undo()
    _assert_intact(path)
    assert _leftovers(tmp_path) == []


def test_overwrite_replaces_the_model_whole(tmp_path):
    path = _save(tmp_path)
    (tmp_path / "m" / "stale.txt").write_text("from an older save")
    save_json(_model(5.0), path)
    _assert_intact(path, 5.0)
    assert sorted(os.listdir(path)) == ["saved_model.json", "variables.npz"]
    assert _leftovers(tmp_path) == []


# --- load-time errors -----------------------------------------------------------------------------
def test_missing_model_is_os_error(tmp_path):
    # TF 2.21's text: it names TF's two file names
    with pytest.raises(OSError, match=r"^SavedModel file does not exist at: .*nothing/"
                       r"\{saved_model\.pbtxt\|saved_model\.pb\}$"):
        tf.saved_model.load(str(tmp_path / "nothing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.saved_model.load(str(tmp_path / "empty"))


def test_unparsable_document_is_os_error(tmp_path):
    path = _save(tmp_path)
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        f.write("{not json")
    with pytest.raises(OSError, match="^Cannot parse file .*saved_model.json"):
        tf.saved_model.load(path)
    with open(os.path.join(path, "saved_model.json"), "w") as f:
        f.write('{"format": "tensortrace.saved_model", "version": NaN}')
    with pytest.raises(OSError, match="non-standard JSON constant NaN"):
        tf.saved_model.load(path)


@pytest.mark.parametrize("field,value,message", [
    ("format", "tensorflow", "is not a tensortrace SavedModel document"),
    ("version", 2, "has format version 2; this tensortrace reads version"),
    ("version", "1", "has format version '1'"),
])
def test_wrong_format_or_version_is_value_error(tmp_path, field, value, message):
    path = _save(tmp_path)
    _edit(path, lambda d: d.update({field: value}))
    with pytest.raises(ValueError, match=message):
        tf.saved_model.load(path)


def test_unknown_op_type_is_value_error_naming_op_and_function(tmp_path):
    path = _save(tmp_path)
    _edit(path, lambda d: _op(d, "Mul").update(type="FancyMul"))
    with pytest.raises(ValueError, match=r"uses op types that are not registered: 'FancyMul' "
                       r"\(in __inference_<lambda>_\d+\)"):
        tf.saved_model.load(path)


def test_unknown_op_inside_a_sub_graph_is_found(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x),
                      input_signature=[tf.TensorSpec([])])
    path = _save(tmp_path, model=m)

    def change(d):
        branch = _op(d, "If" if any(o["type"] == "If" for o in _function(d)["graph"]["ops"])
                     else "StatelessIf")["attrs"]["then_branch"]["graph"]
        next(op for op in branch["ops"] if op["type"] == "Mul")["type"] = "Unheard"

    _edit(path, change)
    with pytest.raises(ValueError, match="not registered: 'Unheard'"):
        tf.saved_model.load(path)


def test_arrays_file_missing_or_from_another_save(tmp_path):
    path, other = _save(tmp_path), _save(tmp_path, "other", _model(7.0))
    os.replace(os.path.join(other, "variables.npz"), os.path.join(path, "variables.npz"))
    with pytest.raises(ValueError, match="variables.npz does not match saved_model.json "
                       r"\(checksum mismatch\)"):
        tf.saved_model.load(path)
    os.remove(os.path.join(path, "variables.npz"))
    with pytest.raises(OSError, match="SavedModel variables file does not exist"):
        tf.saved_model.load(path)


def test_corrupt_arrays_file_is_os_error(tmp_path):
    path = _save(tmp_path)
    npz = os.path.join(path, "variables.npz")
    with open(npz, "wb") as f:
        f.write(b"PK\x03\x04 not a zip")
    _edit(path, lambda d: d.update(npz_sha256=io._sha256(npz)))
    with pytest.raises(OSError, match="Cannot read .*variables.npz"):
        tf.saved_model.load(path)


def _use_before_definition(d):
    ops = _function(d)["graph"]["ops"]
    add = next(op for op in ops if op["type"] == "AddV2")
    ops.remove(add)
    ops.insert(next(i for i, op in enumerate(ops) if op["type"] == "Mul"), add)


@pytest.mark.parametrize("change,message", [
    (lambda d: _op(d, "Mul")["inputs"].__setitem__(0, "nowhere:0"),
     r"op 'mul' \(Mul\): input 'nowhere:0' is not defined before it is used"),
    (_use_before_definition, "input 'mul:0' is not defined before it is used"),
    (lambda d: _op(d, "Mul")["outputs"][0].update(dtype="int32"),
     "output 'mul:0' of Mul has dtype int32, its shape rule gives float32"),
    (lambda d: _op(d, "Mul")["outputs"][0].update(shape=[2, 2]),
     r"output 'mul:0' of Mul has shape \(2, 2\), its shape rule gives \(None,\)"),
    (lambda d: _op(d, "Mul")["attrs"].update(hook={"pickle": "gASV"}),
     "attr 'hook': unknown value kind 'pickle'"),
    (lambda d: _op(d, "Mul")["attrs"].update(bad={"dtype": "float99"}),
     "unknown dtype 'float99'"),
    (lambda d: _op(d, "Mul")["attrs"].update(extra=1),
     r"op 'mul' \(Mul\) does not accept its inputs and attrs: TypeError"),
    (lambda d: _op(d, "Const")["attrs"]["value"]["scalar"].update(dtype="V8"),
     "unsupported array dtype 'V8'"),
    (lambda d: _op(d, "Const")["attrs"]["value"]["scalar"].update(dtype="O"),
     "unsupported array dtype 'O'"),
    (lambda d: _op(d, "Const")["attrs"]["value"]["scalar"].update(b64="AAAAAAAA"),
     "inline array of shape \\[\\] and dtype float32 holds 6 bytes"),
    (lambda d: _function(d)["graph"]["outputs"].__setitem__(0, "Missing:0"),
     "graph output 'Missing:0' is not defined"),
    (lambda d: _function(d)["parameters"][0].update(name="x; import os"),
     "invalid parameter name 'x; import os'"),
    (lambda d: _function(d)["parameters"][0].update(kind="EVERYTHING"),
     "invalid parameter kind 'EVERYTHING'"),
    (lambda d: d["variables"][0].update(dtype="int32"),
     "variable 'v' declares int32 \\(\\) but holds float32 \\(\\)"),
    (lambda d: d["objects"][0]["children"].append(["ghost", 99]), "object #99 does not exist"),
    (lambda d: d["signatures"].update(serving_default="__inference_nothing_1"),
     "function '__inference_nothing_1' is not in the function table"),
    (lambda d: d.pop("objects"), "objects: expected list, got None"),
    (lambda d: _function(d).update(specs={"namedtuple": {"name": "os.system", "fields": [],
                                                         "values": []}}),
     "invalid namedtuple 'os.system'"),
])
def test_malformed_document_is_value_error_naming_the_problem(tmp_path, change, message):
    path = _save(tmp_path)
    _edit(path, change)
    with pytest.raises(ValueError, match=message) as info:
        tf.saved_model.load(path)
    assert str(info.value).startswith(f"Cannot load the SavedModel at {path}: ")


def test_loading_runs_nothing(tmp_path, capfd):
    m = tf.Module()
    m.n = tf.Variable(0)

    def noisy(x):
        tf.print("ran with", x)
        m.n.assign_add(1)
        return x + 1

    m.noisy = tf.function(noisy, input_signature=[tf.TensorSpec([], tf.int32)])
    path = _save(tmp_path, model=m)
    capfd.readouterr()
    loaded = tf.saved_model.load(path)
    assert capfd.readouterr().err == "" and loaded.n.numpy() == 0
    _edit(path, lambda d: d["variables"][0].update(dtype="float32"))  # broken after the graphs
    with pytest.raises(ValueError):
        tf.saved_model.load(path)
    assert capfd.readouterr().err == ""
    assert loaded.noisy(tf.constant(4)).numpy() == 5
    assert capfd.readouterr().err == "ran with 4\n" and loaded.n.numpy() == 1
