"""TF's new type promotion ("all" and "safe" dtype conversion modes): result dtypes, weak flags,
values and errors of operators, API functions and tnp functions over grids of input kinds, as
TF 2.21 recorded them (tests/fixtures/tf/make_tnp_promotion.py); WeakTensor's printing; weak
tensors through tf.function; switching modes within a process."""

import ast
import importlib.util
import json
import os

import numpy as np
import pytest

import tensortrace as tf
import tensortrace.experimental.numpy as tnp
from tensortrace.tensor import Tensor
from tensortrace.tnp import _behavior
from tensortrace.tnp._weak import WeakTensor

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf")
_spec = importlib.util.spec_from_file_location(
    "make_tnp_promotion", os.path.join(HERE, "make_tnp_promotion.py"))
MAKER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(MAKER)


def _load(name):
    with open(os.path.join(HERE, "tnp_promotion", name), encoding="utf-8") as f:
        recorded = json.load(f)
    return {"all": recorded["all"], "safe": _undiff(recorded["all"], recorded["safe"])}


def _undiff(base, diff):
    if diff == 0:
        return base
    if isinstance(diff, dict):
        return {k: _undiff(base.get(k), v) for k, v in diff.items()}
    if isinstance(diff, list) and isinstance(base, list):
        return [_undiff(b, d) for b, d in zip(base, diff)]
    return diff


LATTICE, BINARY, CASES = _load("lattice.json"), _load("binary.json"), _load("cases.json")
NAMES = {"tf": tf, "tnp": tnp, "np": np}


@pytest.fixture(params=["all", "safe"])
def mode(request):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=request.param)
    try:
        yield request.param
    finally:
        _behavior._disable()


def short(r):
    """What the fixture script records of a result, for ours."""
    if isinstance(r, (Tensor, WeakTensor)):
        v = np.asarray(r.numpy())
        text = str(v.tolist()) if v.dtype.kind != "c" else repr(v.tolist())
        return f"{r.dtype.name}{'*' if isinstance(r, WeakTensor) else ''}|{text}"
    if isinstance(r, tf.DType):
        return f"dtype {r.name}"
    return f"{type(r).__name__} {r!r}"


def run(expr, env=None, fn=short, full=False):
    try:
        return fn(eval(expr, dict(NAMES, **(env or {}))))  # noqa: S307 - the fixture's texts
    except Exception as e:  # noqa: BLE001 - the error is compared
        return MAKER._error(e, full)


def _values(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def same(ours, theirs):
    """Equal results: errors by type ("safe" refusals exactly), tensors by dtype and weak flag
    and values (floats to 1e-6 relative), other values by their text."""
    if theirs is None:
        return ours is None
    if theirs.startswith("!"):
        return ours.startswith("!") and ours.split(":")[0] == theirs.split(":")[0]
    if "|" in theirs and "|" in ours:
        (od, ov), (td, tv) = ours.split("|", 1), theirs.split("|", 1)
        if od != td:
            return False
        ov, tv = _values(ov), _values(tv)
        try:
            return np.allclose(np.asarray(ov, dtype=complex), np.asarray(tv, dtype=complex),
                               rtol=1e-6, atol=0, equal_nan=True)
        except (TypeError, ValueError):
            return ov == tv
    return ours == theirs


#: Where tensortrace still differs from TF (mode, what) -> why; each test asserts that exactly
#: these of its cases differ, so a fixed one must leave the list.
KNOWN = {
    ("safe", "tf.math.less(x, y) with x=tf.constant(3), y=2.0"):
        "TF's op conversion of a Python value next to a weak tensor asks the safe mode; ours "
        "converts as TF does without one (TypeError: Cannot convert 2.0 ...)",
    ("safe", "tf.math.less(x, y) with x=2.0, y=tf.constant(3)"): "as above",
    ("safe", "x + y with x=tf.constant(1, tf.bfloat16), y=np.int16(1)"):
        "after the safe refusal, NumPy's scalar operator answers here (TF: the refusal)",
    ("safe", "x + y with x=tf.constant(1, tf.bfloat16), y=np.float16(1)"): "as above",
    ("all", "tnp.isinf([np.inf, 1.0])"): "TF raises AttributeError for a list (its bug)",
    ("all", "tnp.isneginf([-np.inf, np.inf])"): "as above",
    ("all", "tnp.isposinf([-np.inf, np.inf])"): "as above",
    ("safe", "tnp.isinf([np.inf, 1.0])"): "as above",
    ("safe", "tnp.isneginf([-np.inf, np.inf])"): "as above",
    ("safe", "tnp.isposinf([-np.inf, np.inf])"): "as above",
}


def _mismatches(pairs, mode):
    """The cases that differ from TF's record, less the known ones; a known one that now
    matches is reported too."""
    bad = [(what, ours, theirs) for what, ours, theirs in pairs if not same(ours, theirs)]
    known = {what for (m, what) in KNOWN if m == mode}
    fixed = [what for what, _, _ in pairs if what in known]
    fixed = sorted(set(fixed) - {what for what, _, _ in bad})
    return [b for b in bad if b[0] not in known] + [("fixed, drop from KNOWN", w) for w in fixed]


def test_the_lattice_of_plus_and_tf_add(mode):
    """Every pair of input kinds (tensors of every dtype, weak tensors, Python and NumPy
    values, lists, variables) through ``x + y`` and ``tf.add(x, y)``."""
    built = {}
    for a in MAKER.KINDS:
        try:
            built[a] = eval(a, dict(NAMES))  # noqa: S307 - the fixture's kinds
        except TypeError:
            built[a] = None
    found = []
    for op, key in (("x + y", "+"), ("tf.add(x, y)", "tf.add")):
        for i, a in enumerate(MAKER.KINDS):
            for j, b in enumerate(MAKER.KINDS):
                theirs = LATTICE[mode]["lattice"][key][i][j]
                ours = None if built[a] is None or built[b] is None else \
                    run(op, {"x": built[a], "y": built[b]})
                found.append((f"{op} with x={a}, y={b}", ours, theirs))
    assert _mismatches(found, mode) == []


def test_binary_operators_and_functions(mode):
    found = []
    for op, rows in BINARY[mode]["binary"].items():
        for i, a in enumerate(MAKER.SMALL):
            for j, b in enumerate(MAKER.SMALL):
                env = {"x": eval(a, dict(NAMES)), "y": eval(b, dict(NAMES))}  # noqa: S307
                found.append((f"{op} with x={a}, y={b}", run(op, env), rows[i][j]))
    assert _mismatches(found, mode) == []


def test_unary_functions_and_constructors(mode):
    found = []
    for op, row in CASES[mode]["unary"].items():
        for a, theirs in zip(MAKER.UNARY_ARGS, row):
            found.append((f"{op} with x={a}", run(op, {"x": eval(a, dict(NAMES))}), theirs))
    assert _mismatches(found, mode) == []


def test_constants_variables_and_guide_expressions(mode):
    found = [(e, run(e, full=True), theirs) for e, theirs in CASES[mode]["other"].items()]
    assert _mismatches(found, mode) == []
    messages = [(e, run(e, full=True), theirs) for e, theirs in CASES[mode]["other"].items()
                if theirs.startswith(("!TypeError", "!OverflowError"))]
    assert [(e, o) for e, o, t in messages if o != t] == []


def test_weak_tensors_print_as_tf_prints_them(mode):
    found = [(e, run(e, fn=repr, full=True), theirs)
             for e, theirs in CASES[mode]["repr"].items()]
    assert [(e, o, t) for e, o, t in found if o != t] == []


def test_tnp_functions_and_tensor_methods(mode):
    found = [(e, run(e), theirs) for e, theirs in CASES[mode]["tnp"].items()]
    assert _mismatches(found, mode) == []


def test_weak_tensors_through_tf_function_and_gradient_tape(mode):
    env = dict(NAMES)
    try:
        exec(MAKER.FUNCTION_SOURCE, env)  # noqa: S102 - the fixture's source
    except TypeError as e:
        pytest.fail(f"tf.function: {e}")
    theirs = CASES[mode]["function"]
    ours = env["out"]
    assert ours == theirs  # f(3): the Python results (x + 1 is 4) come back weak


def test_safe_mode_refusal_message():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    try:
        with pytest.raises(TypeError) as e:
            tf.constant(10, dtype=tf.int32) + tf.constant(5.0, dtype=tf.float32)
    finally:
        _behavior._disable()
    assert str(e.value) == (
        "In promotion mode PromoMode.SAFE, implicit dtype promotion between (tf.int32, "
        "weak=False) and (tf.float32, weak=False) is disallowed. You need to explicitly specify "
        "the dtype in your op, or relax your dtype promotion rules (such as from SAFE mode to "
        "ALL mode).".replace("tf.int32", "<dtype: 'int32'>").replace(
            "tf.float32", "<dtype: 'float32'>"))


def test_modes_switch_within_a_process_and_off_restores_the_plain_operators():
    plain_add, plain_constant = Tensor.__add__, tf.constant
    x = tf.constant(1, tf.int32)
    y = tf.constant(1.5, tf.float32)
    for mode_name, dtype in (("all", tf.float32), ("legacy", tf.float64), ("safe", None),
                             ("all", tf.float32)):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode_name)
        if dtype is None:
            with pytest.raises(TypeError):
                x + y
        else:
            assert (x + y).dtype == dtype
    weak = tf.constant(2)
    assert isinstance(weak, WeakTensor)
    _behavior._disable()
    assert Tensor.__add__ is plain_add and tf.constant is plain_constant
    assert type(tf.constant(2)) is type(x)
    out = weak + 1  # a weak tensor made earlier acts as its plain tensor
    assert type(out) is type(x) and out.numpy() == 3
    with pytest.raises(tf.errors.InvalidArgumentError):
        x + y
