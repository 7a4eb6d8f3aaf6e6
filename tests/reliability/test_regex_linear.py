"""The regex ops run in bounded time on patterns a backtracking engine takes exponential time on,
and keep RE2's semantics (TF's engine), with RE2 and with the fallback (Python's ``re``, and a
linear-time matcher for the patterns ``re`` could take exponential time on)."""

import json
import subprocess
import sys

import pytest

import tensortrace as tf
from tensortrace.ops.strings import _regex_engine

ENGINES = ["re2", "fallback"]

# (pattern, text): each takes a backtracking engine about 2**30 steps.
CATASTROPHIC = [
    ("(a+)+$", "a" * 30 + "b"),
    ("(a|aa)+$", "a" * 30 + "b"),
    ("(a*)*b", "a" * 30),
    (r"(\w+\s?)*$", "a" * 30 + "!"),
    ("(.*a){12}", "a" * 30),
]

SAFE_LONG = "ab" * 50_000 + "c"
SAFE = [("(?:ab)+c", SAFE_LONG), ("[ab]*c$", SAFE_LONG), ("(?:x|y)*c", SAFE_LONG), ("a(b)", "xab")]

# Runs in a fresh process, so that a regression to exponential time cannot hang the suite.
_PROBE = r"""
import json, sys, time
import tensortrace as tf
from tensortrace.ops.strings import _regex_engine
have_re2 = _regex_engine._binding() is not None
results = {}
for engine, cases in json.loads(sys.stdin.read()):
    if engine == "re2" and not have_re2:
        continue
    if engine != "re2":
        _regex_engine._re2 = None
    out = results.setdefault(engine, [])
    for pattern, text in cases:
        t = time.perf_counter()
        try:
            full = bool(tf.strings.regex_full_match(text, pattern).numpy())
            repl = tf.strings.regex_replace(text, pattern, "<\\0>").numpy().decode()
            out.append([full, repl, None, time.perf_counter() - t])
        except tf.errors.InvalidArgumentError as e:
            out.append([None, None, e.message, time.perf_counter() - t])
print(json.dumps(results))
"""


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "re2":
        pytest.importorskip("re2")  # the re2 extra (in the test extra)
    else:
        monkeypatch.setattr(_regex_engine, "_re2", None)
    return request.param


@pytest.fixture(scope="module")
def probe():
    """Every timed case, in one child process (its import is most of the cost)."""
    cases = [("re2", CATASTROPHIC), ("fallback", CATASTROPHIC), ("fallback-safe", SAFE)]
    proc = subprocess.run([sys.executable, "-c", _PROBE], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


# RE2's answers (leftmost-first matches, as TF gives them) for CATASTROPHIC.
EXPECTED = [
    (False, "a" * 30 + "b"),  # no run of a's ends the text: nothing to replace
    (False, "a" * 30 + "b"),
    (False, "a" * 30),
    (False, "a" * 30 + "!<>"),  # only the empty match at the very end
    (True, "<" + "a" * 30 + ">"),
]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_catastrophic_patterns_run_in_linear_time(probe, engine_name):
    if engine_name == "re2":
        pytest.importorskip("re2")
    results = probe[engine_name]
    assert len(results) == len(CATASTROPHIC)
    for (full, repl, error, seconds), want, case in zip(results, EXPECTED, CATASTROPHIC):
        assert error is None, case
        assert (full, repl) == want, case
        assert seconds < 1.0, case


def test_fallback_still_runs_safe_patterns_on_long_text(probe):
    results = probe["fallback-safe"]
    text = SAFE_LONG
    assert [r[:3] for r in results] == [
        [True, f"<{text}>", None], [True, f"<{text}>", None], [False, text[:-1] + "<c>", None],
        [False, "x<ab>", None]]
    assert all(r[3] < 1.0 for r in results)


@pytest.mark.parametrize("pattern, error", [
    (r"(a)\1", r"invalid escape sequence: \1"),
    ("(?=a)", "invalid perl operator: (?="),
    ("(?<!a)b", "invalid perl operator: (?<!"),
    ("(?P<n>a)(?P=n)", "invalid perl operator: (?P"),
    ("a*+", "bad repetition operator: *+"),
    ("a{2}+", "bad repetition operator: {2}+"),
    (r"a\Z", r"invalid escape sequence: \Z"),
    ("a{1001}", "invalid repetition size: {1001}"),
    ("(a{10}){101}", "invalid repetition size: {101}"),  # nested counts multiply: 1010 > 1000
    ("(?:x{2}){3}{2}", "bad repetition operator: {3}{2}"),
])
def test_syntax_re2_refuses_is_tfs_invalid_argument(engine, pattern, error):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.strings.regex_full_match(["a"], pattern)
    assert info.value.message == (
        "{{function_node __wrapped__StaticRegexFullMatch_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
        f"Invalid pattern: {pattern}, error: {error} "
                                  "[Op:StaticRegexFullMatch]")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^\{\{function_node __wrapped__RegexReplace_.*\}\} Invalid pattern: .*RegexReplace"):
        tf.strings.regex_replace(["a"], tf.constant(pattern), "x")


@pytest.mark.parametrize("text, pattern, rewrite, expected", [
    ("hello world", r"(\w+) (\w+)", r"\2 \1", "world hello"),
    ("abc", "b", r"[\0]", "a[b]c"),
    ("abc", "(b)", r"\g<1>", "ac"),  # \g is no rewrite escape in RE2: the rewrite stops there
    ("abc", "(b)", r"x\\y", r"ax\yc"),
    ("aaa", "a*?", "-", "-a-a-a-"),
    ("é", "", "-", "-é-"),  # an empty match after a match skips one whole UTF-8 character
    ("a.b", r"\.", "!", "a!b"),
    ("xAy", "(?i)a", "-", "x-y"),
    ("a\nb", "(?s)a.b", "-", "-"),
    ("a\nb", "a.b", "-", "a\nb"),  # "." skips newlines unless (?s)
])
def test_replace_follows_re2(engine, text, pattern, rewrite, expected):
    out = tf.strings.regex_replace([text], pattern, rewrite).numpy()[0]
    assert out == expected.encode()


def test_first_replace_and_bytes(engine):
    assert tf.strings.regex_replace("aXbX", "X", r"<\0>", replace_global=False).numpy() == \
        b"a<X>bX"
    assert tf.strings.regex_replace(b"a\xffb\xff", b"b", b"B").numpy() == b"a\xffB\xff"
    assert tf.strings.regex_replace(b"\xff", "", "-").numpy() == b"-\xff-"
    assert tf.strings.regex_full_match([b"caf\xc3\xa9", "café", b"cafe"], "caf.").numpy().tolist() \
        == [True, True, True]
    assert tf.strings.regex_full_match([b"caf\xc3\xa9"], "caf..").numpy().tolist() == [False]


def test_pattern_tensor_runs_in_the_engine(engine):
    @tf.function
    def f(x, p):
        return tf.strings.regex_full_match(x, p)

    out = f(tf.constant(["a" * 30 + "b", "aaa"]), tf.constant("(?:a|b)+"))
    assert out.numpy().tolist() == [True, True]


# Patterns and texts on which the fallback's linear-time matcher must agree with RE2 itself.
VM_PATTERNS = [r"(a*)*b", r"(a?)*c", r"(a*)+", r"(a|)+b", r"(a*?)*?b", r"((a)|(b))*", r"(a+?)+b",
               r"(a|ab)(c|bcd)(d*)", r"(\w+\s?)*$", r"(.*a){3}", r"(?i)(a|b)+c", r"(?m)^(x|y)+$",
               r"(a{0,2})*b", r"(?s)(a.)+", r"\b(\w+)*\b"]
VM_TEXTS = ["", "b", "ab", "aab", "abcd", "ac", "aaaab", "a\nx\ny", "ab ab!", "AbBaC", "xyx\ny"]


def test_linear_matcher_agrees_with_re2():
    binding = _regex_engine._binding()
    if binding is None:
        pytest.importorskip("re2")
    options = binding.RE2.Options()
    options.log_errors = False
    anchor = binding.RE2.Anchor
    for pattern in VM_PATTERNS:
        re2 = binding.RE2(pattern.encode(), options)
        tree = _regex_engine.parse(_regex_engine._translate_regex(pattern))
        vm = _regex_engine.compile_tree(tree)
        for text in VM_TEXTS:
            data = text.encode()
            for pos in range(len(text) + 1):
                spans = re2.Match(anchor.UNANCHORED, data, pos, len(data))
                want = None if spans[0][0] < 0 else [tuple(s) for s in spans]
                assert vm.run(text, pos, False, False) == want, (pattern, text, pos)
            full = re2.Match(anchor.ANCHOR_BOTH, data, 0, len(data))[0][0] >= 0
            assert (vm.run(text, 0, True, True) is not None) == full, (pattern, text)
