"""Functions exercising Python's statements (loops with break/continue/else, returns anywhere,
try/with, closures, nonlocal/global, comprehensions, generators, classes, super, match ...),
run with Python values: converted, they must behave exactly like the originals. No test logic
here (see test_python_semantics.py)."""
import functools

G = 10

def nested_loops(n):
    out = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            out.append((i, j))
        else:
            out.append("else")
    return out

def while_else(n):
    i = 0
    while i < n:
        i += 1
        if i == 7:
            break
    else:
        return "no break", i
    return "break", i

def returns_everywhere(x):
    for i in range(10):
        if i == x:
            return "found", i
        while True:
            if i > 3:
                return "big"
            break
    return None

def no_return_at_end(x):
    if x > 0:
        return x

def try_blocks(x):
    result = []
    for i in range(x):
        try:
            if i == 2:
                raise ValueError("two")
            result.append(i)
        except ValueError as e:
            result.append(str(e))
            continue
        finally:
            result.append("f")
    return result

def closures(x):
    def inner(y):
        return x + y
    total = 0
    for k in range(3):
        total += inner(k)
    return total, (lambda z: z * x)(2)  # noqa: PLC3002

def nonlocal_counter(n):
    count = 0
    def bump():
        nonlocal count
        count += 1
    for _ in range(n):
        bump()
    return count

def uses_global(n):
    global G
    for i in range(n):
        if i % 2:
            G += 1
    return G

def comprehension(xs):
    ys = [x * 2 for x in xs if x > 1 and x < 10]
    d = {k: v for k, v in zip(xs, ys)}
    return ys, d, sum(x for x in xs if not x % 2)

def defaults(a, b=2, *args, c=3, **kw):
    if args:
        return a + b + sum(args) + c + len(kw)
    return a * b * c

def walrus(xs):
    if (n := len(xs)) > 2:
        return n
    return -n

def deletes(x):
    y = x
    if x:
        del y
        y = "re"
    return y

def with_stmt(x):
    import contextlib
    log = []
    @contextlib.contextmanager
    def cm():
        log.append("in")
        yield 5
        log.append("out")
    for i in range(x):
        with cm() as v:
            if i == 1:
                continue
            log.append(v + i)
    return log

def ifexp_and_or(x, y):
    a = x if x > y else y  # noqa: FURB136
    b = x and y
    c = x or y
    d = not x
    e = x > 0 and y > 0 or x < -5
    return a, b, c, d, e

def gen_inside(n):
    def gen():
        for i in range(n):
            if i % 2:
                yield i
    return list(gen())

class Base:
    def f(self, x):
        return x + 1

class Child(Base):
    def f(self, x):
        if x > 0:
            return super().f(x) * 2
        return super().f(x)

def method_call(x):
    return Child().f(x)

def possibly_undefined(flag):
    if flag:
        v = 1
    if not flag:
        v = 2
    return v

def loop_var_after(n):
    for i in range(n):
        pass
    return i

def augassign_in_if(x):
    s = 0
    if x > 0:
        s += x
    else:
        s -= x
    return s

def multiple_targets(n):
    a = b = 0
    for i, j in zip(range(n), range(n, 0, -1)):
        a, b = a + i, b + j
    return a, b

def recursion(n):
    if n <= 1:
        return 1
    return n * recursion(n - 1)

def star_args(*xs, **kw):
    total = 0
    for x in xs:
        if x < 0:
            continue
        total += x
    return total, sorted(kw)

def kwargs_call(x):
    return defaults(x, b=4, c=5)

def class_in_function(x):
    class Local:
        def __init__(self, v):
            self.v = v
        def get(self):
            if self.v > 0:
                return self.v
            return -self.v
    return Local(x).get()

def partial_call(x):
    p = functools.partial(defaults, b=3)
    return p(x)

def attr_state(obj, n):
    for i in range(n):
        if i % 2:
            obj.count += i
    return obj.count

def string_ops(s):
    out = ""
    for ch in s:
        if ch.isdigit():
            continue
        out += ch.upper()
    return out

def nested_def_with_control(n):
    def helper(k):
        if k % 3 == 0:
            return "fizz"
        elif k % 5 == 0:
            return "buzz"
        return k
    return [helper(i) for i in range(n)]

def shadowed_builtin(n):
    len = lambda x: 42
    return len([1, 2])

def break_in_while_true(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i

def for_else_return(xs, t):
    for x in xs:
        if x == t:
            break
    else:
        return "missing"
    return "found"

def assert_python(x):
    assert x > 0, "x must be positive"
    assert x < 100
    return x

def raise_in_branch(x):
    if x < 0:
        raise ValueError("negative")
    return x

def match_stmt(x):
    match x:
        case 0:
            return "zero"
        case [a, b]:
            return a + b
        case _:
            return "other"

def early_return_nested(x):
    if x > 0:
        if x > 10:
            return "big"
        y = "small"
    else:
        y = "neg"
    return y

def chained_compare(x):
    return 0 < x < 10

def while_with_complex_cond(n):
    i, j = 0, n
    while i < j and not (i == 3):  # noqa: SIM201
        i += 1
        j -= 1
    return i, j

def walrus_conditions(xs):
    it = iter(xs)
    out = []
    while (item := next(it, None)) is not None:
        if (double := item * 2) > 4 and (triple := item * 3):
            out.append((double, triple))
    return out, item
