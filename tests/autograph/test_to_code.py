"""tf.autograph.to_code: the generated source in TF's form (``with ag__.FunctionScope(...) as
fscope:``, ``do_return``/``retval_``, ``ag__.ld`` loads, returns as ``try:``/``except:``, TF's
helper names get_state, set_state, if_body, else_body, loop_body, loop_test); the form is
compared with TF's own in tests/tracing/test_tf_fidelity.py."""

import pytest

import tensortrace as tf

from . import corpus


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def test_if_statement_golden():
    assert tf.autograph.to_code(simple_relu) == """\
def tf__simple_relu(x):
    with ag__.FunctionScope('simple_relu', 'fscope', ag__.ConversionOptions(recursive=True,\
 user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:
        do_return = False
        retval_ = ag__.UndefinedReturnValue()

        def get_state():
            return (do_return, retval_)

        def set_state(vars_):
            nonlocal do_return, retval_
            do_return, retval_ = vars_

        def if_body():
            nonlocal do_return, retval_
            try:
                do_return = True
                retval_ = ag__.ld(x)
            except:
                do_return = False
                raise

        def else_body():
            nonlocal do_return, retval_
            try:
                do_return = True
                retval_ = 0
            except:
                do_return = False
                raise
        ag__.if_stmt(ag__.converted_call(ag__.ld(tf).greater, (ag__.ld(x), 0), None, fscope),\
 if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)
        return fscope.ret(retval_, do_return)
"""


def test_for_loop_with_break_golden():
    assert tf.autograph.to_code(corpus.sum_until_negative) == """\
def tf__sum_until_negative(xs):
    with ag__.FunctionScope('sum_until_negative', 'fscope',\
 ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(),\
 internal_convert_user_code=True)) as fscope:
        do_return = False
        retval_ = ag__.UndefinedReturnValue()
        s = 0.0
        break_ = False

        def get_state_2():
            return (break_, s)

        def set_state_2(vars_):
            nonlocal break_, s
            break_, s = vars_

        def loop_body(itr):
            nonlocal break_, s
            v = itr
            continue_ = False

            def get_state():
                return (break_, continue_)

            def set_state(vars_):
                nonlocal break_, continue_
                break_, continue_ = vars_

            def if_body():
                nonlocal break_, continue_
                break_ = True
                continue_ = True

            def else_body():
                nonlocal break_, continue_
                pass
            ag__.if_stmt(ag__.ld(v) < 0, if_body, else_body, get_state, set_state, ('break_',\
 'continue_'), 2)

            def get_state_1():
                return (s,)

            def set_state_1(vars_):
                nonlocal s
                s, = vars_

            def if_body_1():
                nonlocal s
                s = ag__.ld(s)
                s += v

            def else_body_1():
                nonlocal s
                pass
            ag__.if_stmt(ag__.not_(continue_), if_body_1, else_body_1, get_state_1, set_state_1,\
 ('s',), 1)

        def extra_test():
            nonlocal break_, s
            return ag__.not_(break_)
        ag__.for_stmt(ag__.ld(xs), extra_test, loop_body, get_state_2, set_state_2, ('break_',\
 's'), {'iterate_names': 'v'})
        try:
            do_return = True
            retval_ = ag__.ld(s)
        except:
            do_return = False
            raise
        return fscope.ret(retval_, do_return)
"""


@pytest.mark.parametrize("fn, constructs", [
    (corpus.abs_if, ["ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body"]),
    (corpus.while_sum, ["def loop_test():", "ag__.while_stmt(loop_test, loop_body",
                        "s = ag__.ld(s)\n            s += i"]),
    (corpus.for_range, ["for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, "
                        "fscope), None, loop_body",
                        "def loop_body(itr):", "i = itr"]),
    (corpus.logical, ["ag__.and_(lambda: ag__.ld(a) > 0, lambda: ag__.ld(b) > 0)",
                      "ag__.not_("]),
    (corpus.conditional_expression, ["ag__.if_exp(ag__.ld(x) > 0, lambda: ag__.ld(x) * 2, "
                                     "lambda: ag__.ld(x) - 1"]),
    (corpus.early_return, ["retval_ = -ag__.ld(x)", "retval_ = ag__.ld(x) * 2",
                           "except:\n"]),
    (corpus.collatz_steps, ["ag__.while_stmt", "ag__.if_stmt(ag__.ld(n) % 2 == 0"]),
])
def test_generated_code_contains_the_converted_constructs(fn, constructs):
    code = tf.autograph.to_code(fn)
    assert code.startswith(f"def tf__{fn.__name__}(")
    for construct in constructs:
        assert construct in code
    name = fn.__name__
    assert code.splitlines()[1] == (
        f"    with ag__.FunctionScope('{name}', 'fscope', ag__.ConversionOptions(recursive=True, "
        "user_requested=True, optional_features=(), internal_convert_user_code=True)) as "
        "fscope:")
    assert code.splitlines()[2:4] == ["        do_return = False",
                                      "        retval_ = ag__.UndefinedReturnValue()"]
    assert code.splitlines()[-1] == "        return fscope.ret(retval_, do_return)"


def test_possibly_unbound_reads_are_checked():
    def maybe(flag):
        if flag:
            y = 1
        return y

    code = tf.autograph.to_code(maybe)
    assert "y = ag__.Undefined('y')" in code and "retval_ = ag__.ld(y)" in code


def test_user_function_calls_are_converted_calls():
    def outer(x):
        return corpus.abs_if(x) + tf.abs(x)

    code = tf.autograph.to_code(outer)
    assert ("ag__.converted_call(ag__.ld(corpus).abs_if, (ag__.ld(x),), None, fscope) + "
            "ag__.converted_call(ag__.ld(tf).abs, (ag__.ld(x),), None, fscope)") in code


def test_to_code_of_functions_methods_and_lambdas():
    assert tf.autograph.to_code(tf.function(corpus.abs_if)) == \
        tf.autograph.to_code(corpus.abs_if)

    class Counter:
        def count(self, n):
            while n > 0:
                n -= 1
            return n

    assert tf.autograph.to_code(Counter().count).startswith("def tf__count(self, n):")
    square = lambda x: x * x if x > 0 else 0
    assert tf.autograph.to_code(square) == \
        ("tf__lam = lambda x: ag__.if_exp(ag__.ld(x) > 0, lambda: ag__.ld(x) * ag__.ld(x), "
         "lambda: 0, 'x > 0')\n")


def test_to_code_rejects_what_it_cannot_convert():
    with pytest.raises(ValueError, match="AutoGraph can only convert functions"):
        tf.autograph.to_code(3)
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)  # noqa: S102
    with pytest.raises(ValueError, match="AutoGraph could not convert"):
        tf.autograph.to_code(namespace["no_source"])


# --- calls in TF's form (the texts are TF 2.21's to_code of the same source) --------------------
def scale(v, k=1):
    return v * k


class _Base:
    def value(self, x):
        return x + 1


class Child(_Base):
    def value(self, x, *args, **kw):
        while x < 10:
            x = super().value(x)
        double = lambda t: scale(t, k=2)
        return double(len(args)) + scale(x, *args, **kw)

    def store(self, x):
        def keep(y):
            self.kept = abs(y)
        keep(x)


def test_calls_are_converted_calls_in_tfs_form():
    """Every call goes through ag__.converted_call (builtins, library functions, super()), its
    arguments as TF packs them; functions without a return get no return variables; functions
    and lambdas defined inside are autograph artifacts with TF's ag__.STD options."""
    assert tf.autograph.to_code(Child.value) == VALUE_CODE
    assert tf.autograph.to_code(Child.store) == STORE_CODE


def test_calls_in_tfs_form_run_as_the_original():
    child = Child()
    f = tf.function(child.value)
    assert f(tf.constant(3)).numpy() == 10  # super() inside the generated loop body
    assert f(3, 2).numpy() == 22 and f(3, k=3).numpy() == 30
    assert tf.autograph.to_graph(Child.value)(child, 3, 2) == child.value(3, 2) == 22
    tf.function(child.store)(tf.constant(-4))
    assert child.kept.shape == () and child.kept.dtype == tf.int32  # abs overloaded for tensors
    tf.autograph.to_graph(Child.store)(child, -5)
    assert child.kept == 5


VALUE_CODE = """\
def tf__value(self, x, *args, **kw):
    with ag__.FunctionScope('value', 'fscope', ag__.ConversionOptions(recursive=True,\
 user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:
        do_return = False
        retval_ = ag__.UndefinedReturnValue()

        def get_state():
            return (x,)

        def set_state(vars_):
            nonlocal x
            x, = vars_

        def loop_body():
            nonlocal x
            x = ag__.converted_call(ag__.converted_call(ag__.ld(super), (), None,\
 fscope).value, (ag__.ld(x),), None, fscope)

        def loop_test():
            return ag__.ld(x) < 10
        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), {})
        double = ag__.autograph_artifact(lambda t: ag__.converted_call(ag__.ld(scale),\
 (ag__.ld(t),), dict(k=2), fscope))
        try:
            do_return = True
            retval_ = ag__.converted_call(ag__.ld(double), (ag__.converted_call(ag__.ld(len),\
 (ag__.ld(args),), None, fscope),), None, fscope) + ag__.converted_call(ag__.ld(scale),\
 (ag__.ld(x),) + tuple(ag__.ld(args)), dict(**ag__.ld(kw)), fscope)
        except:
            do_return = False
            raise
        return fscope.ret(retval_, do_return)
"""

STORE_CODE = """\
def tf__store(self, x):
    with ag__.FunctionScope('store', 'fscope', ag__.ConversionOptions(recursive=True,\
 user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:

        @ag__.autograph_artifact
        def keep(y):
            with ag__.FunctionScope('keep', 'fscope_1', ag__.STD) as fscope_1:
                ag__.ld(self).kept = ag__.converted_call(ag__.ld(abs), (ag__.ld(y),), None,\
 fscope_1)
        ag__.converted_call(ag__.ld(keep), (ag__.ld(x),), None, fscope)
"""
