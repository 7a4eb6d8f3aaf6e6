"""The pieces under the converters: templates, activity (bound/read names) and liveness."""

import ast
import textwrap

import pytest

from tensortrace.autograph import templates
from tensortrace.autograph.analysis import activity, liveness
from tensortrace.autograph.transformer import Namer


def _fn(source):
    return ast.parse(textwrap.dedent(source)).body[0]


def _text(stmts):
    return ast.unparse(ast.fix_missing_locations(ast.Module(stmts, [])))


# --- templates ----------------------------------------------------------------------------------
def test_template_replaces_names_expressions_and_statement_lists():
    body = [ast.parse("y = 1").body[0]]
    stmts = templates.replace(
        "def name(arg):\n    nonlocal shared\n    body\n    return value",
        name="if_body", arg="itr", shared=("a", "b"), body=body,
        value=ast.parse("x + 1", mode="eval").body)
    assert _text(stmts) == "def if_body(itr):\n    nonlocal a, b\n    y = 1\n    return x + 1"
    assert _text(templates.replace("names = vars_", names=("a", "b"))) == "a, b = vars_"


def test_template_checks_its_placeholders():
    with pytest.raises(ValueError, match=r"placeholders \['missing'\] not found"):
        templates.replace("x = 1", missing="y")
    with pytest.raises(TypeError, match="statement list"):
        templates.replace("x = body", body=[ast.Pass()])


def test_template_does_not_rewrite_inserted_user_code():
    user = ast.parse("test = body").body  # user names that look like placeholders
    stmts = templates.replace("if test:\n    body", test="flag", body=user)
    assert _text(stmts) == "if flag:\n    test = body"


# --- activity -----------------------------------------------------------------------------------
def test_bound_and_read_names():
    stmts = ast.parse(textwrap.dedent("""
        a = b + c
        d += e
        f.g = h[i]
        for j, k in items:
            del m
        def inner(p=default):
            return q + p
        [r for r in rs if r > s]
        import os.path as op, json
    """)).body
    assert activity.bound(stmts) == {"a", "d", "j", "k", "m", "inner", "op", "json"}
    assert activity.read(stmts) == {"b", "c", "d", "e", "f", "h", "i", "items", "default", "q",
                                    "rs", "s"}


def test_scope_helpers():
    fn = _fn("""
        def f(a, *b, c=1, **d):
            global g
            e = 1
            def inner():
                nonlocal e
                return a + e
            g = inner
    """)
    assert activity.parameters(fn) == {"a", "b", "c", "d"}
    assert activity.local_names(fn) == {"a", "b", "c", "d", "e", "inner"}
    assert activity.declared(fn, ast.Global) == {"g"}
    assert activity.captured(fn) == {"a", "e"}
    assert activity.free_names(fn.body[2]) == {"a", "e"}


# --- liveness and definedness -------------------------------------------------------------------
def test_liveness_and_definedness_annotations():
    fn = _fn("""
        def f(x, n):
            s = 0
            while s < n:
                t = s * 2
                s = t + x
            if x > 0:
                y = s
            else:
                z = 1
            return y
    """)
    liveness.resolve(fn)
    loop, branch = fn.body[1], fn.body[2]
    assert loop.ag_live_in == {"s", "n", "x", "y"}  # y: read after the if, which may skip it
    assert loop.ag_live_out == {"s", "x", "y"}
    assert loop.ag_must_define == {"x", "n", "s"}
    assert branch.ag_live_out == {"y"}
    assert branch.ag_may_define == {"x", "n", "s", "t"}
    read_y = fn.body[3].value
    assert getattr(read_y, "ag_maybe_undefined", False)  # y is set on one path only
    assert not getattr(loop.test.left, "ag_maybe_undefined", False)


def test_for_loop_head_liveness_counts_the_target_and_extra_test():
    fn = _fn("""
        def f(xs):
            last = None
            for v in xs:
                last = v
            return last, v
    """)
    liveness.resolve(fn)
    loop = fn.body[1]
    assert loop.ag_live_out == {"last", "v"}
    assert "v" in loop.ag_live_in  # live after the loop: it must be carried


def test_namer_avoids_existing_names():
    namer = Namer(_fn("def f(if_body):\n    get_state = 1\n"))
    assert namer.new("if_body") == "if_body_1"
    assert namer.new("if_body") == "if_body_2"
    assert namer.new("get_state") == "get_state_1"
    assert namer.new("loop_body") == "loop_body"
