"""tf.autograph.to_code: readable generated source with TF's helper names (get_state,
set_state, if_body, else_body, loop_body, loop_test) and none of TF's machinery noise."""

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
    retval_ = ag__.UndefinedReturnValue()

    def get_state():
        return (retval_,)

    def set_state(vars_):
        nonlocal retval_
        retval_, = vars_

    def if_body():
        nonlocal retval_
        retval_ = x

    def else_body():
        nonlocal retval_
        retval_ = 0
    ag__.if_stmt(tf.greater(x, 0), if_body, else_body, get_state, set_state, ('retval_',), 1)
    return retval_
"""


def test_for_loop_with_break_golden():
    assert tf.autograph.to_code(corpus.sum_until_negative) == """\
def tf__sum_until_negative(xs):
    s = 0.0
    break_ = False

    def get_state_2():
        return (break_, s)

    def set_state_2(vars_):
        nonlocal break_, s
        break_, s = vars_

    def loop_body(v):
        nonlocal break_, s
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
        ag__.if_stmt(v < 0, if_body, None, get_state, set_state, ('break_', 'continue_'), 2)

        def get_state_1():
            return (s,)

        def set_state_1(vars_):
            nonlocal s
            s, = vars_

        def if_body_1():
            nonlocal s
            s += v
        ag__.if_stmt(ag__.not_(continue_), if_body_1, None, get_state_1, set_state_1, ('s',), 1)

    def extra_test():
        return ag__.not_(break_)
    ag__.for_stmt(xs, extra_test, loop_body, get_state_2, set_state_2, ('break_', 's'), \
{'iterate_names': 'v'})
    return s
"""


@pytest.mark.parametrize("fn, constructs", [
    (corpus.abs_if, ["ag__.if_stmt(x > 0, if_body, else_body"]),
    (corpus.while_sum, ["def loop_test():", "ag__.while_stmt(loop_test, loop_body"]),
    (corpus.for_range, ["for_stmt(ag__.range_(n), None, loop_body"]),
    (corpus.logical, ["ag__.and_(lambda: a > 0, lambda: b > 0)", "ag__.not_("]),
    (corpus.conditional_expression, ["ag__.if_exp(x > 0, lambda: x * 2, lambda: x - 1"]),
    (corpus.early_return, ["retval_ = -x", "retval_ = x * 2", "return retval_"]),
    (corpus.collatz_steps, ["ag__.while_stmt", "ag__.if_stmt(n % 2 == 0"]),
])
def test_generated_code_contains_the_converted_constructs(fn, constructs):
    code = tf.autograph.to_code(fn)
    assert code.startswith(f"def tf__{fn.__name__}(")
    for construct in constructs:
        assert construct in code
    for noise in ("FunctionScope", "ConversionOptions", "fscope", "ag__.ld(", "try:"):
        assert noise not in code


def test_possibly_unbound_reads_are_checked():
    def maybe(flag):
        if flag:
            y = 1
        return y

    code = tf.autograph.to_code(maybe)
    assert "y = ag__.Undefined('y')" in code and "return ag__.ld(y)" in code


def test_user_function_calls_are_converted_calls():
    def outer(x):
        return corpus.abs_if(x) + tf.abs(x)

    code = tf.autograph.to_code(outer)
    assert "ag__.converted_call(corpus.abs_if, (x,), None) + tf.abs(x)" in code


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
        "tf__lam = lambda x: ag__.if_exp(x > 0, lambda: x * x, lambda: 0, 'x > 0')\n"


def test_to_code_rejects_what_it_cannot_convert():
    with pytest.raises(ValueError, match="AutoGraph can only convert functions"):
        tf.autograph.to_code(3)
    namespace = {}
    exec("def no_source(x):\n    return x\n", namespace)  # noqa: S102
    with pytest.raises(ValueError, match="AutoGraph could not convert"):
        tf.autograph.to_code(namespace["no_source"])
