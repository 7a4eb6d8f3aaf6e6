"""Plain functions with Python control flow, written to run on Python numbers and on tensors
alike: with Python arguments their conditions are Python values, with tensor arguments they
are tensors. No test logic here (see test_corpus.py)."""

import tensortrace as tf


def abs_if(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def if_without_else(x):
    y = x
    if x > 10:
        y = x - 10
    return y


def elif_chain(x):
    if x < 0:
        kind = -1
    elif x == 0:
        kind = 0
    elif x < 10:
        kind = 1
    else:
        kind = 2
    return kind * 10 + x


def early_return(x):
    if x < 0:
        return -x
    return x * 2


def nested_ifs(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        r = 0 * x
    return r


def while_sum(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s


def while_break(n):
    i = 0
    s = 0
    while i < n:
        if s > 10:
            break
        s += i
        i += 1
    return s, i


def while_else(n):
    i = 0
    while i < n:
        i += 1
    else:  # noqa: PLW0120 - the construct under test
        i += 100
    return i


def for_range(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def for_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        s += i
    return s


def nested_loops(n):
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if (i + j) % 2 == 0:
                total += i * j
            j += 1
    return total


def return_in_loop(n):
    for i in range(n):
        if i * i > 10:
            return i
    return -1


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def logical(a, b):
    both = a > 0 and b > 0
    either = a > 0 or b > 0
    neither = not (a > 0 or b > 0)
    return both, either, neither


def conditional_expression(x):
    return x * 2 if x > 0 else x - 1


def sum_until_negative(xs):
    s = 0.0
    for v in xs:
        if v < 0:
            break
        s += v
    return s


def any_negative(xs):
    for v in xs:
        if v < 0:
            return True
    return False


def clip_both(x, lo, hi):
    if x < lo:
        x, clipped = lo, 1
    elif x > hi:
        x, clipped = hi, 1
    else:
        clipped = 0
    return x, clipped


def count_fizzbuzz(n):
    fizz = buzz = both = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            both += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
    return fizz, buzz, both


def tensor_ops_in_branches(x):
    if tf.reduce_sum(x) > 0:
        y = tf.abs(x) * 2
    else:
        y = tf.square(x)
    return y


#: (function, arguments as Python values, control flow ops expected with tensor arguments)
CASES = [
    (abs_if, (3,), {"If"}),
    (abs_if, (-4,), {"If"}),
    (if_without_else, (15,), {"If"}),
    (if_without_else, (5,), {"If"}),
    (elif_chain, (-3,), {"If"}),
    (elif_chain, (0,), {"If"}),
    (elif_chain, (7,), {"If"}),
    (elif_chain, (12,), {"If"}),
    (early_return, (-5,), {"If"}),
    (early_return, (5,), {"If"}),
    (nested_ifs, (2, 3), {"If"}),
    (nested_ifs, (2, -3), {"If"}),
    (nested_ifs, (-2, 3), {"If"}),
    (while_sum, (6,), {"While"}),
    (while_sum, (0,), {"While"}),
    (while_break, (10,), {"While"}),
    (while_break, (3,), {"While"}),
    (while_else, (4,), {"While"}),
    (for_range, (5,), {"While"}),
    (for_range, (0,), {"While"}),
    (for_continue, (10,), {"While"}),
    (nested_loops, (6,), {"While"}),
    (return_in_loop, (10,), {"If", "While"}),
    (return_in_loop, (3,), {"If", "While"}),
    (collatz_steps, (27,), {"While"}),
    (gcd, (48, 36), {"While"}),
    (fibonacci, (10,), {"While"}),
    (logical, (1, 2), {"If"}),
    (logical, (1, -2), {"If"}),
    (logical, (-1, -2), {"If"}),
    (conditional_expression, (4,), {"If"}),
    (conditional_expression, (-4,), {"If"}),
    (sum_until_negative, ([1.0, 2.5, -1.0, 4.0],), {"While"}),
    (sum_until_negative, ([1.0, 2.0],), {"While"}),
    (any_negative, ([1.0, -2.0, 3.0],), {"If", "While"}),
    (any_negative, ([1.0, 2.0],), {"If", "While"}),
    (clip_both, (5, 0, 3), {"If"}),
    (clip_both, (-5, 0, 3), {"If"}),
    (clip_both, (2, 0, 3), {"If"}),
    (count_fizzbuzz, (31,), {"While"}),
]
