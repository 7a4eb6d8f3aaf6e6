"""Hostile and corrupt models: type confusions the loader must refuse (a constant of another
dtype, a loop whose sub-graphs do not fit it, graph inputs and outputs that do not fit the
signature), archives that would expand past their size, format-string templates, names Python
would normalize or reject, and claims a graph does not keep, which fail the call as TF's
InvalidArgumentError instead of returning a mistyped tensor."""

import json
import os
import struct
import zipfile

import numpy as np
import pytest

import tensortrace as tf
from tensortrace import registry as tf_registry
from tensortrace.saving import io
from tensortrace.saving.save import save_json

from ..reliability.test_loader_fuzz import make_bomb
from .test_errors import _edit


def _save(tmp_path, fn, name="m"):
    m = tf.Module()
    m.f = fn
    fn.get_concrete_function()
    path = str(tmp_path / name)
    save_json(m, path)
    return path


def _graph(document):
    (doc,) = [d for d in document["functions"].values() if not d["signature"]]
    return doc["graph"]


def _ops(graph, op_type):
    return [op for op in graph["ops"] if op["type"] == op_type]


def _refused(path, message, error=ValueError):
    with pytest.raises(error, match=message):
        tf.saved_model.load(path)


# --- type confusion -------------------------------------------------------------------------------
def test_constant_holding_another_dtype_is_refused(tmp_path):
    path = _save(tmp_path, tf.function(lambda x: x + 1, input_signature=[
        tf.TensorSpec([], tf.int32)]))

    def confuse(d):
        (const,) = _ops(_graph(d), "Const")
        const["attrs"]["value"]["scalar"]["dtype"] = "<f4"  # the same 4 bytes, as float32

    _edit(path, confuse)
    _refused(path, r"op 'add/y' \(Const\): declares dtype int32 but holds float32 values")


def _loop(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def loop(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                             [tf.constant(0), x])

    return _save(tmp_path, loop)


def test_while_with_reordered_inputs_is_refused(tmp_path):
    path = _loop(tmp_path)

    def reorder(d):
        (op,) = [o for o in _graph(d)["ops"] if o["type"] in ("While", "StatelessWhile")]
        op["inputs"].reverse()

    _edit(path, reorder)
    _refused(path, r"loop variable 'x:0' is float32 \(\), the op declares int32 \(\)")


def test_while_body_returning_another_dtype_is_refused(tmp_path):
    path = _loop(tmp_path)

    def confuse(d):
        (op,) = [o for o in _graph(d)["ops"] if o["type"] in ("While", "StatelessWhile")]
        body = op["attrs"]["body"]["graph"]
        body["outputs"].reverse()
        body["structured_outputs"] = {"tuple": [{"tensor": n} for n in body["outputs"]]}

    _edit(path, confuse)
    _refused(path, r"body returns '\w+:0' as float32 \(\), the op declares int32 \(\)")


def test_if_branch_returning_another_dtype_is_refused(tmp_path):
    path = _save(tmp_path, tf.function(
        lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x),
        input_signature=[tf.TensorSpec([], tf.float32)]))

    def confuse(d):
        (op,) = [o for o in _graph(d)["ops"] if o["type"] in ("If", "StatelessIf")]
        op["attrs"]["Tout"] = {"tuple": [{"dtype": "float64"}]}
        for o in _graph(d)["ops"]:
            if o is op or o["type"] == "Identity":
                o["outputs"][0]["dtype"] = "float64"

    _edit(path, confuse)
    _refused(path, r"then_branch returns '\w+:0' as float32 \(\), the op declares float64")


@pytest.mark.parametrize("change,message", [
    (lambda g: g["inputs"].clear(), "its signature has 1 tensor inputs, its graph 0"),
    (lambda g: g["outputs"].append(g["outputs"][0]), "its structured outputs hold"),
    (lambda g: g["outputs"].reverse(), "its structured outputs hold"),
    (lambda g: g.update(inputs=["add/y:0"]), "not a Placeholder of this graph"),
])
def test_graph_inputs_and_outputs_must_fit_the_signature(tmp_path, change, message):
    path = _save(tmp_path, tf.function(lambda x: (x + 1, x * 2), input_signature=[
        tf.TensorSpec([], tf.int32)]))
    _edit(path, lambda d: change(_graph(d)))
    _refused(path, message)


def test_an_unfed_placeholder_is_refused(tmp_path):
    v = tf.Variable(1.0)
    path = _save(tmp_path, tf.function(lambda: v * 2.0, input_signature=[]))
    _edit(path, lambda d: _graph(d)["captures"].clear())
    _refused(path, "never feeds this placeholder")


def test_a_shape_claim_the_graph_does_not_keep_fails_the_call(tmp_path):
    path = _save(tmp_path, tf.function(lambda x: x * 2, input_signature=[
        tf.TensorSpec([None], tf.int32)]))
    _edit(path, lambda d: _ops(_graph(d), "Identity")[0]["outputs"][0].update(shape=[5]))
    loaded = tf.saved_model.load(path)  # a more specific shape is a claim (set_shape's)
    assert loaded.f(tf.constant([1, 2, 3, 4, 5])).numpy().tolist() == [2, 4, 6, 8, 10]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"output #0 is int32 \[3\], but "
                       r"the SavedModel declares int32 \(5,\)"):
        loaded.f(tf.constant([1, 2, 3]))


# --- names ----------------------------------------------------------------------------------------
def test_names_python_normalizes_alike_stay_apart(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32, name="\ufb01"),
                                  tf.TensorSpec([], tf.float32, name="fi")])
    def sub(a, b):
        return a - b

    assert sub(tf.constant(5.0), tf.constant(1.0)).numpy() == 4.0
    path = _save(tmp_path, sub)  # placeholders 'ﬁ' and 'fi': one Python name, if not ASCII
    loaded = tf.saved_model.load(path)
    assert loaded.f(tf.constant(5.0), tf.constant(1.0)).numpy() == 4.0
    serving = loaded.signatures["serving_default"]
    # a dict: written as keywords, Python would read both as fi=
    out = serving(**{"\ufb01": tf.constant(5.0), "fi": tf.constant(1.0)})  # noqa: PIE804
    assert out["output_0"].numpy() == 4.0


def test_names_python_rejects_become_ascii_identifiers(tmp_path):
    f = tf.function(lambda x: x * 2.0, input_signature=[
        tf.TensorSpec([], tf.float32, name="a\u00b2")])
    assert f(tf.constant(3.0)).numpy() == 6.0
    assert "def __inference__lambda__" in f.get_concrete_function().code
    path = _save(tmp_path, f)
    loaded = tf.saved_model.load(path)
    assert loaded.f(tf.constant(3.0)).numpy() == 6.0
    serving = loaded.signatures["serving_default"]
    assert list(serving.structured_input_signature[1]) == ["a_"]
    assert serving(a_=tf.constant(4.0))["output_0"].numpy() == 8.0


@pytest.mark.parametrize("name", ["", "1x", "def", "_c0", "np", "__builtins__", "x\u00b2"])
def test_any_graph_name_compiles(tmp_path, name):
    path = _save(tmp_path, tf.function(
        lambda x: tf.cond(x > 0, lambda: x * 2.0, lambda: -x),
        input_signature=[tf.TensorSpec([], tf.float32)]))

    def rename(d):
        (op,) = [o for o in _graph(d)["ops"] if o["type"] in ("If", "StatelessIf")]
        op["attrs"]["then_branch"]["graph"]["name"] = name
        op["attrs"]["else_branch"]["graph"]["name"] = name

    _edit(path, rename)
    loaded = tf.saved_model.load(path)
    assert loaded.f(tf.constant(3.0)).numpy() == 6.0
    assert loaded.f(tf.constant(-3.0)).numpy() == 3.0


def test_namedtuple_fields_python_would_merge_are_refused(tmp_path):
    path = _save(tmp_path, tf.function(lambda x: x + 1, input_signature=[
        tf.TensorSpec([], tf.int32)]))

    def fields(d):
        (doc,) = [f for f in d["functions"].values() if not f["signature"]]
        doc["specs"] = {"tuple": [{"namedtuple": {
            "name": "P", "fields": ["\ufb01", "fi"],
            "values": [doc["specs"]["tuple"][0], None]}}]}

    _edit(path, fields)
    _refused(path, "invalid namedtuple 'P' with fields \\['\ufb01', 'fi'\\]")


# --- templates ------------------------------------------------------------------------------------
def _printer(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
    def show(x):
        tf.print("x is", x)
        return x + 1

    return _save(tmp_path, show)


@pytest.mark.parametrize("template", ["{0.__class__.__mro__}", "{0:999999999}", "{1}", "{}",
                                      "{0[0]}", "{0!r}", "{", "}", "{x}", "{-1}"])
def test_print_templates_are_data_not_format_strings(tmp_path, template):
    path = _printer(tmp_path)
    _edit(path, lambda d: _ops(_graph(d), "PrintV2")[0]["attrs"].update(template=template))
    _refused(path, "invalid template .*only text and {N} fields naming one of its 1 inputs")


def test_valid_print_templates_still_print(tmp_path, capfd):
    path = _printer(tmp_path)
    _edit(path, lambda d: _ops(_graph(d), "PrintV2")[0]["attrs"].update(
        template="{{x}} = {0} ({0})"))
    loaded = tf.saved_model.load(path)
    capfd.readouterr()
    assert loaded.f(tf.constant([1, 2])).numpy().tolist() == [2, 3]
    assert capfd.readouterr().err == "{x} = [1 2] ([1 2])\n"


def test_print_kernel_substitutes_and_never_formats(capfd):
    """Even past the loader's check, PrintV2's kernel only substitutes {N}: no attribute walk,
    no width, no conversion."""
    kernel = tf_registry.get("PrintV2").kernel
    kernel(np.array([1, 2]), template="{0.__class__} {0:9} {{0}} {0}", end="\n",
           output_stream="stderr", summarize=3)
    assert capfd.readouterr().err == "{0.__class__} {0:9} {0} [1 2]\n"


# --- archives and documents -----------------------------------------------------------------------
def _variable_model(tmp_path):
    v = tf.Variable(np.zeros([4], np.float32), name="v")
    return _save(tmp_path, tf.function(lambda: v + 1.0, input_signature=[]))


def _replace_npz(path, data, shape=None):
    npz = os.path.join(path, "variables.npz")
    with open(npz, "wb") as f:
        f.write(data)

    def change(d):
        d["npz_sha256"] = io._sha256(npz)
        if shape is not None:
            var = d["variables"][0]
            var["shape"] = var["value"]["shape"] = list(shape)

    _edit(path, change)


def _npy_header(shape, descr="<f4"):
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode()
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header


def test_an_archive_expanding_a_thousandfold_is_refused_before_decompressing(tmp_path):
    path = _variable_model(tmp_path)
    data, _ = make_bomb(1 << 28)  # 1 GiB of zeros in about 1 MB
    assert len(data) < 1100 * 1024
    _replace_npz(path, data, shape=[1 << 28])
    _refused(path, r"members expand to more than \d+ bytes from a \d+-byte file \(member "
             r"'a0.npy' declares 1073741952 bytes\): refusing to decompress it")


@pytest.mark.parametrize("shape,descr,message", [
    ((1 << 40,), "<f4",
     r"declares shape \[1099511627776\] of float32 \(4398046511104 bytes\) in 16"),
    ((3,), "|O", "holds object values, which a SavedModel never stores"),
])
def test_npy_headers_must_fit_their_member(tmp_path, shape, descr, message):
    path = _variable_model(tmp_path)
    out = zipfile.ZipFile(os.path.join(tmp_path, "x.npz"), "w")
    out.writestr("a0.npy", _npy_header(shape, descr) + np.zeros(4, np.float32).tobytes())
    out.close()
    with open(os.path.join(tmp_path, "x.npz"), "rb") as f:
        _replace_npz(path, f.read())
    _refused(path, message)


def test_unsupported_compression_is_a_format_error(tmp_path):
    path = _variable_model(tmp_path)
    buffer = os.path.join(tmp_path, "x.npz")
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_BZIP2) as out:
        out.writestr("a0.npy", _npy_header((4,)) + np.zeros(4, np.float32).tobytes())
    with open(buffer, "rb") as f:
        _replace_npz(path, f.read())
    _refused(path, "uses compression method 12, which a SavedModel never uses")


def test_deep_nesting_is_refused(tmp_path):
    path = _save(tmp_path, tf.function(lambda x: x + 1, input_signature=[
        tf.TensorSpec([], tf.int32)]))
    file = os.path.join(path, "saved_model.json")
    with open(file) as f:
        text = f.read()
    with open(file, "w") as f:
        f.write(text.replace('"constants":[]', '"constants":' + "[" * 200_000 + "]" * 200_000))
    _refused(path, "Cannot parse file .*saved_model.json", OSError)
    document = json.loads(text)
    for depth in (3000, 30_000):
        deep = "[" * depth + "]" * depth
        with open(file, "w") as f:
            f.write(json.dumps(document).replace('"specs": ', f'"specs": {deep}, "x": ', 1))
        with pytest.raises((ValueError, OSError), match="Cannot (load|parse)"):
            tf.saved_model.load(path)
