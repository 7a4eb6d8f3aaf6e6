"""String ops: kernels against Python references and values checked in TF 2.21, infer against
kernels, TF's errors, RE2's regex semantics and the printf formats of as_string."""

import numpy as np
import pytest

import tensortrace as tf
from tensortrace.graph.ir import Graph
from tensortrace.registry import NON_DIFFERENTIABLE, get

from .optable import Case, op_types, run_case

# TF 2.21 runs each eager op as a one-op function and names it first in a kernel's error
_EAGER = r"^\{\{function_node __wrapped__\w+_device_/\S+\}\} "


def strings(*values, shape=None):
    """An object array of bytes (str values are UTF-8 encoded)."""
    out = np.empty(len(values), object)
    out[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return out.reshape(shape if shape is not None else (len(values),))


def scalar(value):
    return np.array(value.encode() if isinstance(value, str) else value, dtype=object)


def each(fn, out_dtype=object):
    """A reference applying ``fn`` to every element of the first argument."""

    def ref(a, *args, **kwargs):
        a = np.asarray(a)
        out = np.empty(a.size, out_dtype)
        out[:] = [fn(x) for x in a.ravel().tolist()]
        return out.reshape(a.shape)

    return ref


def lit(expected):
    return lambda *args, **kwargs: expected


WORDS = strings("Hello", "  wOrld \t", "", "héllo", b"\x0b\x0cx\r", "\xa0y")
GRID = strings("a", "b", "c", "d", "e", "f", shape=(2, 3))
CUBE = strings(*[str(i) for i in range(8)], shape=(2, 2, 2))
EMPTY = np.empty((0, 3), object)

CASES = [
    Case(tf.strings.upper, (WORDS,), ref=each(bytes.upper), id="upper-ascii"),
    Case(tf.strings.upper, (WORDS,), dict(encoding="utf-8"),
         ref=each(lambda s: s.decode().upper().encode()), id="upper-utf8"),
    Case(tf.strings.lower, (WORDS,), ref=each(bytes.lower), id="lower"),
    Case(tf.strings.lower, (scalar("HÉLLO"),), dict(encoding="utf-8"), ref=lit(scalar("héllo")),
         id="lower-utf8-scalar"),
    Case(tf.strings.strip, (WORDS,), ref=lit(strings("Hello", "wOrld", "", "héllo", "x",
                                                     "\xa0y")), id="strip"),
    Case(tf.strings.strip, (EMPTY,), ref=lit(EMPTY), id="strip-empty"),
    Case(tf.strings.length, (WORDS,), ref=each(len, np.int32), id="length-bytes"),
    Case(tf.strings.length, (strings("abc", "héllo", "", b"\xff\xfe", b"\x80abc"),),
         dict(unit="UTF8_CHAR"), ref=lit(np.array([3, 5, 0, 2, 3], np.int32)), id="length-utf8"),
    Case(tf.strings.length, (scalar("abc"),), ref=lit(np.int32(3)), id="length-scalar"),
    Case(tf.strings.join, ([GRID, GRID],), dict(separator="-"),
         ref=lambda xs, separator: each(lambda s: s + b"-" + s)(xs[0]), id="join"),
    Case(tf.strings.join, ([strings("a", "b"), scalar("x")],), dict(separator=", "),
         ref=lit(strings("a, x", "b, x")), id="join-scalar"),
    Case(tf.strings.join, ([scalar("a"), scalar("b"), scalar("c")],),
         ref=lit(scalar("abc")), id="join-scalars"),
    Case(tf.strings.reduce_join, (GRID,), ref=lit(scalar("abcdef")), id="reduce_join-all"),
    Case(tf.strings.reduce_join, (GRID,), dict(axis=0, separator="|"),
         ref=lit(strings("a|d", "b|e", "c|f")), id="reduce_join-axis0"),
    Case(tf.strings.reduce_join, (GRID,), dict(axis=-1, keepdims=True),
         ref=lit(strings("abc", "def", shape=(2, 1))), id="reduce_join-keepdims"),
    Case(tf.strings.reduce_join, (GRID,), dict(axis=[0, 1], separator="|"),
         ref=lit(scalar("a|d|b|e|c|f")), id="reduce_join-order"),
    Case(tf.strings.reduce_join, (CUBE,), dict(axis=[2, 0], separator="."),
         ref=lit(strings("0.1.4.5", "2.3.6.7")), id="reduce_join-3d"),
    Case(tf.strings.reduce_join, (CUBE,), dict(axis=[2, 0], keepdims=True),
         ref=lit(strings("0145", "2367", shape=(1, 2, 1))), id="reduce_join-3d-keepdims"),
    Case(tf.strings.reduce_join, (GRID,), dict(axis=[]), ref=lit(GRID), id="reduce_join-none"),
    Case(tf.strings.reduce_join, (EMPTY,), dict(axis=0), ref=lit(strings("", "", "")),
         id="reduce_join-empty"),
    Case(tf.strings.reduce_join, (scalar("abc"),), ref=lit(scalar("abc")),
         id="reduce_join-scalar"),
    Case(tf.strings.substr, (strings("hello", "world"), 1, 3), ref=lit(strings("ell", "orl")),
         id="substr"),
    Case(tf.strings.substr, (strings("hello", "world"), np.array([0, 2], np.int32),
                             np.array([2, 10], np.int32)), ref=lit(strings("he", "rld")),
         id="substr-vectors"),
    Case(tf.strings.substr, (strings("hello"), -3, 2), ref=lit(strings("ll")), id="substr-neg-pos"),
    Case(tf.strings.substr, (strings("hello"), 1, -1), ref=lit(strings("ello")),
         id="substr-neg-len"),
    Case(tf.strings.substr, (strings("hello"), 5, 1), ref=lit(strings("")), id="substr-at-end"),
    Case(tf.strings.substr, (strings("hello", "world", shape=(2, 1)), np.array([0, 1], np.int32),
                             np.array([1, 2], np.int32)),
         ref=lit(strings("h", "el", "w", "or", shape=(2, 2))), id="substr-broadcast"),
    Case(tf.strings.substr, (strings("héllo"), 1, 2), dict(unit="UTF8_CHAR"),
         ref=lit(strings("él")), id="substr-utf8"),
    Case(tf.strings.substr, (strings("héllo"), -4, 2), dict(unit="UTF8_CHAR"),
         ref=lit(strings("él")), id="substr-utf8-neg"),
    Case(tf.strings.substr, (scalar("hello"), 0, 4), ref=lit(scalar("hell")),
         id="substr-scalar"),
    Case(tf.strings.split, (scalar("a b  c"),), ref=lit(strings("a", "b", "c")),
         dynamic_shape=True, id="split-whitespace"),
    Case(tf.strings.split, (scalar("a,b,,c"),), dict(sep=","), ref=lit(strings("a", "b", "", "c")),
         dynamic_shape=True, id="split-sep"),
    Case(tf.strings.split, (scalar("a<>b<><>c"),), dict(sep="<>", maxsplit=2),
         ref=lit(strings("a", "b", "<>c")), dynamic_shape=True, id="split-maxsplit"),
    Case(tf.strings.split, (scalar("   "),), ref=lit(np.empty(0, object)), dynamic_shape=True,
         id="split-nothing"),
    Case(tf.strings.split, (scalar(""),), dict(sep=","), ref=lit(strings("")),
         dynamic_shape=True, id="split-empty"),
    Case(tf.strings.regex_replace, (strings("hello world", "abc"), "o", "0"),
         ref=lit(strings("hell0 w0rld", "abc")), id="regex_replace"),
    Case(tf.strings.regex_replace, (strings("hello world"), "o", "0"),
         dict(replace_global=False), ref=lit(strings("hell0 world")), id="regex_replace-first"),
    Case(tf.strings.regex_replace, (strings("hello world"), r"(\w+) (\w+)", r"\2 \1 \0 \\"),
         ref=lit(strings("world hello hello world \\")), id="regex_replace-groups"),
    Case(tf.strings.regex_replace, (strings("hello"), scalar("l+"), scalar("L")),
         ref=lit(strings("heLo")), id="regex_replace-tensors"),
    Case(tf.strings.regex_replace, (scalar("abc"), "b", "x"), ref=lit(scalar("axc")),
         id="regex_replace-scalar"),
    Case(tf.strings.regex_full_match, (strings("abc", "abcd", "xabc"), "a.c"),
         ref=lit(np.array([True, False, False])), id="regex_full_match"),
    Case(tf.strings.regex_full_match, (GRID, scalar("[a-c]")),
         ref=lit(np.array([[True, True, True], [False, False, False]])),
         id="regex_full_match-tensor"),
    Case(tf.strings.to_number, (strings("1.5", " -2e3 ", "inf", "0x10", ".5"),),
         ref=lit(np.array([1.5, -2000, np.inf, 16, 0.5], np.float32)), id="to_number"),
    Case(tf.strings.to_number, (strings("0.1", "1e-400", "1e400"),), dict(out_type=tf.float64),
         ref=lit(np.array([0.1, 0.0, np.inf])), id="to_number-f64"),
    Case(tf.strings.to_number, (strings("3", " +4", "-5 ", "010"),), dict(out_type=tf.int32),
         ref=lit(np.array([3, 4, -5, 10], np.int32)), id="to_number-i32"),
    Case(tf.strings.to_number, (strings("9223372036854775807", "-9223372036854775808"),),
         dict(out_type=tf.int64), ref=lit(np.array([2**63 - 1, -2**63], np.int64)),
         id="to_number-i64"),
    Case(tf.strings.to_number, (strings("4294967295"),), dict(out_type=tf.uint32),
         ref=lit(np.array([2**32 - 1], np.uint32)), id="to_number-u32"),
    Case(tf.strings.to_number, (scalar("7"),), ref=lit(np.float32(7)), id="to_number-scalar"),
    Case(tf.strings.as_string,
         (np.array([1.5, 0.1, 1e10, 123456789.0, 1e-5, np.inf, np.nan, -0.0], np.float32),),
         ref=lit(strings("1.500000", "0.100000", "10000000000.000000", "123456792.000000",
                         "0.000010", "inf", "nan", "-0.000000")), id="as_string-float"),
    Case(tf.strings.as_string, (np.array([1.5, 1 / 3, 1e10]),), dict(shortest=True),
         ref=lit(strings("1.5", "0.333333", "1e+10")), id="as_string-shortest"),
    Case(tf.strings.as_string, (np.array([1 / 3, 123456.0]),), dict(shortest=True, precision=2),
         ref=lit(strings("0.33", "1.2e+05")), id="as_string-shortest-precision"),
    Case(tf.strings.as_string, (np.array([1.5, 1 / 3], np.float32),), dict(scientific=True),
         ref=lit(strings("1.500000e+00", "3.333333e-01")), id="as_string-scientific"),
    Case(tf.strings.as_string, (np.array([1.5], np.float32),), dict(width=10, precision=1,
                                                                    fill="0"),
         ref=lit(strings("00000001.5")), id="as_string-fill0"),
    Case(tf.strings.as_string, (np.array([1.5, 0.1], np.float16),),
         ref=lit(strings("1.500000", "0.099976")), id="as_string-half"),
    Case(tf.strings.as_string, (np.array([1, -22, 0], np.int32),), dict(width=4),
         ref=lit(strings("   1", " -22", "   0")), id="as_string-int-width"),
    Case(tf.strings.as_string, (np.array([5, -5], np.int32),), dict(width=4, fill="-"),
         ref=lit(strings("5   ", "-5  ")), id="as_string-left"),
    Case(tf.strings.as_string, (np.array([5, -5], np.int32),), dict(fill="+"),
         ref=lit(strings("+5", "-5")), id="as_string-plus"),
    Case(tf.strings.as_string, (np.array([200], np.uint8),), ref=lit(strings("200")),
         id="as_string-uint8"),
    Case(tf.strings.as_string, (np.array([2**64 - 1], np.uint64),),
         ref=lit(strings("18446744073709551615")), id="as_string-uint64"),
    Case(tf.strings.as_string, (np.array([True, False]),), dict(width=7),
         ref=lit(strings("true", "false")), id="as_string-bool"),
    Case(tf.strings.as_string, (np.array([1 + 2j], np.complex64),), dict(precision=1, width=5),
         ref=lit(strings("(  1.0,  2.0)")), id="as_string-complex"),
    Case(tf.strings.as_string, (strings("ab", "abcdef"),), dict(width=5, precision=2),
         ref=lit(strings("   ab", "   ab")), id="as_string-string"),
    Case(tf.strings.as_string, (strings("abcdef"),), dict(precision=2),
         ref=lit(strings("abcdef")), id="as_string-string-passthrough"),
    Case(tf.strings.as_string, (np.float64(-np.nan),), dict(width=6), ref=lit(scalar("  -nan")),
         id="as_string-negative-nan"),
    Case(tf.as_string, (np.int32(3),), ref=lit(scalar("3")), id="as_string-scalar"),
]

STRING_OPS = {"StringUpper", "StringLower", "StringStrip", "StringLength", "StringJoin",
              "ReduceJoin", "Substr", "StringSplitV2", "StaticRegexReplace", "RegexReplace",
              "StaticRegexFullMatch", "RegexFullMatch", "StringToNumber", "AsString"}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op_table(case):
    run_case(case)


def test_every_string_op_has_a_case():
    covered = set().union(*(op_types(c) for c in CASES))
    assert STRING_OPS <= covered


def test_registry_records():
    for name in STRING_OPS:
        assert get(name).grad is NON_DIFFERENTIABLE and not get(name).stateful


def test_scalars_stay_0d_object_arrays():
    for t in (tf.strings.upper("ab"), tf.strings.join(["a", "b"]), tf.strings.strip(" a "),
              tf.strings.reduce_join(["a", "b"]), tf.strings.as_string(1),
              tf.strings.substr("abc", 1, 1), tf.strings.regex_replace("abc", "b", "x"),
              tf.strings.as_string("x"), tf.strings.join([])):
        assert type(t._value) is np.ndarray and t._value.dtype == object and t._value.shape == ()
        assert type(t.numpy()) is bytes


def test_bytes_survive_exactly():
    assert tf.strings.join(["a", "b"], separator=b"\xff").numpy() == b"a\xffb"
    assert tf.strings.regex_replace([b"a\xffb"], "b", "X").numpy()[0] == b"a\xffX"
    assert tf.strings.upper([b"a\xff"]).numpy()[0] == b"A\xff"
    # TF decodes invalid UTF-8 as U+FFFD before changing case.
    assert tf.strings.upper([b"a\xff"], encoding="utf-8").numpy()[0] == b"A\xef\xbf\xbd"
    assert tf.strings.upper(["ß"], encoding="utf-8").numpy()[0] == b"SS"


def test_int64_and_complex128_inputs():
    # (Not in the op table: tf.as_dtype(np.dtype("int64")) fails in the core today.)
    out = tf.strings.as_string(tf.constant([1 + 2j], tf.complex128), scientific=True)
    assert out.numpy().tolist() == [b"(1.000000e+00,2.000000e+00)"]
    out = tf.strings.substr(["hello"], tf.constant(1, tf.int64), tf.constant(2, tf.int64))
    assert out.numpy().tolist() == [b"el"]
    assert tf.strings.substr(["hello"], tf.constant(1, tf.int64), 2).numpy().tolist() == [b"el"]


# --- regular expressions: RE2's semantics ---------------------------------------------------------
@pytest.mark.parametrize("text, pattern, rewrite, expected", [
    ("abc", "x*", "-", "-a-b-c-"),
    ("abc", "b*", "-", "-a-c-"),  # no empty match right after a match (Python gives -a--c-)
    ("aab", "a|", "-", "--b-"),
    ("ab\n", r"b\z", "-", "ab\n"),
    ("ab\n", r"b$", "-", "ab\n"),  # "$" is the end of the text, not before a final newline
    ("a\nb", r"(?m)a$", "-", "-\nb"),
    ("a1!B", r"[[:punct:][:digit:]]", "-", "a--B"),
    ("a]b", r"[]]", "-", "a-b"),
    ("é", ".", "x", "x"),  # "." is one UTF-8 character
    ("éa", r"\w", "x", "éx"),  # \w is ASCII
    ("a1 b2\tc", r"\d|\s", "_", "a__b__c"),
    ("<a><b>", r"<.*?>", "T", "TT"),
    ("abcb", "b", r"X\xY", "aXcX"),  # an invalid escape ends the rewrite (global replace)
    ("abcb", "b", "X\\", "aXcX"),
    ("abc", "b", r"\3", "abc"),  # a group the pattern lacks: nothing is replaced
    ("abc", "b", "\n", "a\nc"),
    ("abc", "(b)", "$1", "a$1c"),
])
def test_regex_replace_follows_re2(text, pattern, rewrite, expected):
    assert tf.strings.regex_replace([text], pattern, rewrite).numpy()[0] == expected.encode()


def test_regex_replace_first_only():
    assert tf.strings.regex_replace(["abc"], "b*", "-", replace_global=False).numpy()[0] == b"-abc"
    out = tf.strings.regex_replace(["abcb"], "b", r"X\xY", replace_global=False)
    assert out.numpy()[0] == b"abcb"  # RE2 refuses the rewrite: the string is unchanged


def test_regex_errors():
    E = tf.errors.InvalidArgumentError
    with pytest.raises(E, match=_EAGER + r"Invalid pattern: \(, error: .* \[Op:StaticRegexReplace\]$"):
        tf.strings.regex_replace(["x"], "(", "y")
    with pytest.raises(E, match=_EAGER + r"Invalid pattern: \(, error: .* \[Op:RegexFullMatch\]$"):
        tf.strings.regex_full_match(["x"], tf.constant("("))
    with pytest.raises(E, match=_EAGER + r"Pattern must be scalar, but received \[2\] "
                                r"\[Op:RegexReplace\]$"):
        tf.strings.regex_replace(["abc"], tf.constant(["b", "c"]), "x")
    with pytest.raises(E, match=_EAGER + r"Rewrite must be scalar, but received \[1\] "
                                r"\[Op:RegexReplace\]$"):
        tf.strings.regex_replace(["abc"], tf.constant("b"), tf.constant(["x"]))
    with pytest.raises(E, match=_EAGER + r"Pattern must be scalar, but received \[2\] "
                                r"\[Op:RegexFullMatch\]$"):
        tf.strings.regex_full_match(["abc"], tf.constant(["b", "c"]))


# --- to_number -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [
    ("Infinity", np.inf), ("-inf", -np.inf), ("NaN", np.nan), ("nan(1)", np.nan), ("+3", 3.0),
    ("5.", 5.0), ("1e40", np.inf), ("3.4028236e38", np.inf), ("1e-50", 0.0), ("0x1.8p1", 3.0),
    ("\t3\n", 3.0), ("-0", -0.0),
])
def test_to_number_float_grammar(text, value):
    out = tf.strings.to_number(text)
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), np.float32(value))


@pytest.mark.parametrize("text, dtype", [
    ("1_000", tf.float32), ("", tf.float32), ("abc", tf.float32), ("1.5x", tf.float32),
    ("1e", tf.float32), ("infinit", tf.float32), ("1 2", tf.float32), ("3.0", tf.int32),
    ("0x10", tf.int32), ("1e3", tf.int32), ("2147483648", tf.int32), ("1_0", tf.int32),
    ("+-3", tf.int32), ("- 3", tf.int32), ("-1", tf.uint32), ("4294967296", tf.uint32),
    ("-1", tf.uint64), ("9223372036854775808", tf.int64),
])
def test_to_number_rejects_like_tf(text, dtype):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=_EAGER + rf"StringToNumberOp could not correctly convert string: "
                             rf"{__import__('re').escape(text)} \[Op:StringToNumber\]$"):
        tf.strings.to_number(text, dtype)


def test_to_number_argument_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Value for attr 'out_type' of int8 is not in the list of allowed "
                             r"values: float, double, int32, int64, uint32, uint64"):
        tf.strings.to_number("1", tf.int8)
    with pytest.raises(TypeError, match="Cannot convert 1.0 to EagerTensor of dtype string"):
        tf.strings.to_number(1.0)
    assert tf.strings.to_number(tf.constant(np.empty(0, object))).shape == (0,)


# --- eager errors --------------------------------------------------------------------------------
def raises(exc, match, fn, *args, **kwargs):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_eager_errors():
    E = tf.errors.InvalidArgumentError
    raises(E, _EAGER + r"Input shapes do not match: \[2\] vs. \[2,1\] \[Op:StringJoin\]$",
           tf.strings.join, [["a", "b"], [["x"], ["y"]]])
    raises(TypeError, r"Cannot convert \[1, 2\] to EagerTensor of dtype string",
           tf.strings.join, [[1, 2]])
    raises(tf.errors.OutOfRangeError, _EAGER + r"Invalid reduction dimension 2 for input with 2 "
           r"dimension\(s\) \[Op:ReduceJoin\] name: $", tf.strings.reduce_join, [["a", "b"]],
           axis=2)
    raises(tf.errors.OutOfRangeError, "Invalid reduction dimension -3",
           tf.strings.reduce_join, [["a", "b"]], axis=-3)
    raises(E, _EAGER + r"Duplicate reduction dimension -2 \[Op:ReduceJoin\]$", tf.strings.reduce_join,
           [["a", "b"], ["c", "d"]], axis=[0, -2])
    raises(E, r"^cannot compute ReduceJoin as input #1\(zero-based\) was expected to be a int32 "
           r"tensor but is a int64 tensor \[Op:ReduceJoin\] name: $", tf.strings.reduce_join,
           [["a", "b"]], axis=tf.constant(1, tf.int64))
    raises(E, r"^Value for attr 'unit' of \"CHAR\" is not in the list of allowed values: "
           r"\"BYTE\", \"UTF8_CHAR\" \[Op:StringLength\]$", tf.strings.length, ["abc"], "CHAR")
    raises(E, r"^cannot compute StringLength as input #0\(zero-based\) was expected to be a "
           r"string tensor but is a int32 tensor \[Op:StringLength\] name: $", tf.strings.length,
           tf.constant([1]))
    raises(E, _EAGER + r"only utf-8 or '' \(no encoding\) is supported, received latin1 "
           r"\[Op:StringUpper\]$", tf.strings.upper, ["a"], "latin1")
    raises(E, _EAGER + r"pos 3 out of range for string b'hi' at index 1 \[Op:Substr\]$",
           tf.strings.substr, ["hello", "hi"], 3, 2)
    raises(E, _EAGER + r"pos -6 out of range for string b'hello' at index 0 \[Op:Substr\]$",
           tf.strings.substr, ["hello"], -6, 1)
    raises(E, _EAGER + r"pos 6 out of range for string at index 0 \[Op:Substr\]$", tf.strings.substr,
           ["héllo"], 6, 2, unit="UTF8_CHAR")
    raises(E, _EAGER + r"pos and len should have the same shape, got: \[3\] vs. \[\] \[Op:Substr\]$",
           tf.strings.substr, ["hello", "world"], [0, 1, 2], 1)
    raises(E, _EAGER + r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Substr\]$", tf.strings.substr,
           ["a", "b"], [1, 1, 1], [1, 1, 1])
    raises(E, r"^Value for attr 'T' of float is not in the list of allowed values: int32, int64 "
           r"\[Op:Substr\]$", tf.strings.substr, ["a"], 1.0, 1.0)
    # a vector splits into a RaggedTensor (TF 2.21: <tf.RaggedTensor [[b'a', b'b'], [b'c']]>)
    assert repr(tf.strings.split(["a b", "c"])) == "<tf.RaggedTensor [[b'a', b'b'], [b'c']]>"


def test_as_string_errors():
    E = tf.errors.InvalidArgumentError
    raises(E, _EAGER + r'Fill argument not supported: "x" \[Op:AsString\]$', tf.strings.as_string, [1],
           width=4, fill="x")
    raises(E, _EAGER + r"Fill string must be one or fewer characters \[Op:AsString\]$",
           tf.strings.as_string, [1], width=4, fill="ab")
    raises(E, _EAGER + r"precision not supported for datatype int32 \[Op:AsString\]$",
           tf.strings.as_string, [1], precision=3)
    raises(E, _EAGER + r"precision not supported for datatype bool \[Op:AsString\]$",
           tf.strings.as_string, [True], precision=3)
    raises(E, _EAGER + r"scientific and shortest format not supported for datatype int32 "
           r"\[Op:AsString\]$", tf.strings.as_string, [5], scientific=True)
    raises(E, _EAGER + r"scientific and shortest format not supported for datatype bool",
           tf.strings.as_string, [True], shortest=True)
    raises(E, _EAGER + r"Cannot select both scientific and shortest notation \[Op:AsString\]$",
           tf.strings.as_string, [1.5], scientific=True, shortest=True)


# --- graph-time rules ----------------------------------------------------------------------------
def traced(fn, *specs):
    g = Graph()
    with g.as_default():
        return fn(*[g.placeholder(s, "x") for s in specs])


S = tf.string


def test_graph_shapes():
    assert traced(lambda x, y: tf.strings.join([x, y]), tf.TensorSpec([None], S),
                  tf.TensorSpec([3], S)).shape.as_list() == [3]
    assert traced(lambda x, y: tf.strings.join([x, y]), tf.TensorSpec([], S),
                  tf.TensorSpec([3], S)).shape.as_list() == [3]
    assert traced(lambda x, y: tf.strings.join([x, y]), tf.TensorSpec(None, S),
                  tf.TensorSpec([3], S)).shape.as_list() == [3]
    assert traced(lambda x, p: tf.strings.substr(x, p, p), tf.TensorSpec([2, 1], S),
                  tf.TensorSpec([3], tf.int32)).shape.as_list() == [2, 3]
    assert traced(lambda x, a: tf.strings.reduce_join(x, a), tf.TensorSpec([2, 3], S),
                  tf.TensorSpec([], tf.int32)).shape.rank is None
    assert traced(lambda x, a: tf.strings.reduce_join(x, a, keepdims=True),
                  tf.TensorSpec([2, 3], S), tf.TensorSpec([], tf.int32)).shape.as_list() == [
                      None, None]
    assert traced(lambda x: tf.strings.reduce_join(x, 1), tf.TensorSpec([None, 3], S)
                  ).shape.as_list() == [None]
    assert traced(lambda x: tf.strings.split(x), tf.TensorSpec([], S)).shape.as_list() == [None]
    assert traced(lambda x: tf.strings.length(x), tf.TensorSpec([None, 2], S)).dtype == tf.int32
    assert traced(lambda x: tf.strings.as_string(x, fill="x"), tf.TensorSpec([2], tf.int32)
                  ).dtype == S  # the fill is checked when the op runs, as in TF


def test_graph_time_errors():
    raises(TypeError, "Input 'input' of 'StringLength' Op has type int32 that does not match "
           "expected type of string.", traced, tf.strings.length, tf.TensorSpec([2], tf.int32))
    raises(ValueError, "Attr 'unit' of 'StringLength' Op passed string 'X' not in: \"BYTE\", "
           "\"UTF8_CHAR\".", traced, lambda x: tf.strings.length(x, unit="X"),
           tf.TensorSpec([2], S))
    raises(ValueError, r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are "
           r"\[2\] and \[3\].", traced, lambda x, y: tf.strings.join([x, y]),
           tf.TensorSpec([2], S), tf.TensorSpec([3], S))
    raises(ValueError, r"pos and len shapes must match: \[3\] vs. \[2\]", traced,
           lambda x, p: tf.strings.substr(x, p, [1, 2]), tf.TensorSpec([2, 1], S),
           tf.TensorSpec([3], tf.int32))
    raises(ValueError, "Dimensions must be equal, but are 2 and 3", traced,
           lambda x, p: tf.strings.substr(x, p, p), tf.TensorSpec([2], S),
           tf.TensorSpec([3], tf.int32))
    raises(ValueError, "Invalid reduction dimension 2 for input with 2 dimensions", traced,
           lambda x: tf.strings.reduce_join(x, 2), tf.TensorSpec([2, 3], S))
    raises(TypeError, "Value passed to parameter 'out_type' has DataType int8 not in list of "
           "allowed values: float32, float64, int32, int64, uint32, uint64", traced,
           lambda x: tf.strings.to_number(x, tf.int8), tf.TensorSpec([2], S))
    raises(ValueError, "statically-known rank", traced, tf.strings.split, tf.TensorSpec(None, S))
