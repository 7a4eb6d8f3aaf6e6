"""TF's node names for graphs being built: unique names (case-insensitive, ``add_1``), the
name-scope stack (``s/t/add``) and the names public functions and operators give their ops.

The names come from the Python call stack, read while an op is added to a graph, so eager code
pays nothing. The public function (or operator) user code called is one *call*: its scope is its
``name`` argument, else the default registered for it here (``tf.add``: ``Add``; ``x + y``:
``add``), else the type of its first op that is not a constant (TF's generated op wrappers:
``tf.nn.relu`` gives ``Relu``). As in TF's wrappers, the call's newest op holds the scope's name
and earlier ones move under it (``Reshape``, ``Reshape/shape``), and a constant the call made for
an op's input is named after TF's input argument (``add/y``). The call is the outermost function
with a ``name`` argument or a registered default between user code and the op (wrappers
without one, AutoGraph's ``converted_call``, are looked through); ops made by no such call, or by
the machinery that made the graph the default one (tf.function's output ``Identity`` ops), get
plain type names (``Identity_1``).
"""

import functools
import json
import os
import re

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TF_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_ops.json")

_DEFAULTS = {}  # code object -> spec (see default_name)
_KINDS = {}  # code object -> _USER, _PACKAGE or _NAMEABLE_CODE (see _kind)
_NAME_PARAMS = set()  # the package's code objects taking a ``name`` argument (see _kind)


def default_name(spec, *functions):
    """Give calls of ``functions`` the scope ``spec``: a name, a tuple ``(name, bare,
    const_name)`` (``bare``: the call's op takes the scope's name, else it goes under it as TF's
    ``and/BitwiseAnd``; ``const_name``: what constants made for inputs are called instead of
    TF's argument names), or a function of the call's local variables returning such a tuple."""
    for f in functions:
        _DEFAULTS[f.__code__] = spec
        _KINDS.pop(f.__code__, None)
    return functions[0] if functions else None


def not_named(*functions):
    """Calls of ``functions`` never name ops although they take a ``name`` (the graph's own
    ``capture``, ``constant``: a variable read's capture belongs to the read)."""
    for f in functions:
        _KINDS[f.__code__] = _PACKAGE


# --- TF's unique names ------------------------------------------------------------------------
def unique_name(names, name):
    """``name``, or ``name_N`` when taken (TF's ``Graph.unique_name``: case-insensitive, and a
    name someone gave explicitly, ``add_1``, is skipped)."""
    key = name.lower()
    i = names.get(key, 0)
    names[key] = i + 1
    if i == 0:
        return name
    base = key
    while key in names:
        key = f"{base}_{i}"
        i += 1
    names[key] = 1
    return f"{name}_{i - 1}"


def _release(names, name):
    """Forget ``name`` (a provisional name just replaced) when nothing else counted on it."""
    key = name.lower()
    if names.get(key) == 1:
        del names[key]
        base, _, n = key.rpartition("_")
        if base and n.isdigit() and names.get(base) == int(n) + 1:  # the newest of its base
            names[base] -= 1


def scoped(stack, name):
    return f"{stack}/{name}" if stack else name


# TF's rules for scope names: a root scope starts as an op name does
_VALID_ROOT = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def scope_stack(stack, name, names):
    """TF's ``Graph.name_scope(name)``: the new stack and the scope text it yields."""
    if name:
        if stack and not _VALID_SCOPE.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match "
                             f"the following pattern: {_VALID_SCOPE.pattern}")
        if not stack and not _VALID_ROOT.match(name):
            raise ValueError(f"'{name}' is not a valid root scope name. A root scope name has "
                             f"to match the following pattern: {_VALID_ROOT.pattern}")
    if not name:
        return "", ""
    if name[-1] == "/":
        return name[:-1], name
    new = unique_name(names, scoped(stack, name))
    return new, new + "/"


@functools.cache
def _tf_inputs(op_type):
    """TF's input argument names of ``op_type``, or None where a list argument makes the
    positions differ from ours (tf_ops.json: the signatures graph/tf_attrs.py reads)."""
    doc = _signatures().get(op_type)
    if doc is None:
        return None
    args = [a.split(":")[0] for a in doc["in"]]
    if any("*" in a or "list(" in a for a in doc["in"]):
        return None
    return args


@functools.cache
def _signatures():
    with open(_TF_OPS, encoding="utf-8") as f:
        return json.load(f)


# --- calls ----------------------------------------------------------------------------------
class _Call:
    """One call of a public function or operator: the ops it made in one graph."""

    __slots__ = ("frame", "scope", "bare", "const_name", "holder", "made", "named")

    def __init__(self, frame, scope, bare, const_name):
        self.frame = frame  # held so that its id cannot be reused while the call is tracked
        self.scope = scope  # the full unique scope, or None until the first non-constant op
        self.bare = bare
        self.const_name = const_name
        self.holder = None  # the op holding the scope's own name
        self.made = []  # constants and captures made for inputs, not yet named after one
        self.named = {}  # id(op) -> [(input it was made for, TF's argument name)]


_USER, _PACKAGE, _NAMEABLE_CODE = 0, 1, 2


def _kind(code):
    """User code, package code, or package code whose calls name ops (a registered default or
    a ``name`` argument); cached per code object."""
    kind = _KINDS.get(code)
    if kind is None:
        fn = code.co_filename
        if not (fn.startswith(_PACKAGE_DIR) or fn.startswith("<tensortrace")):
            kind = _USER
        else:
            params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
            if "name" in params:
                _NAME_PARAMS.add(code)
            kind = _NAMEABLE_CODE if code in _DEFAULTS or "name" in params else _PACKAGE
        _KINDS[code] = kind
    return kind


def name_op(graph, op, name, f):
    """Set the name of ``op``, just added to ``graph`` by the function running ``f`` (``name``
    when given, else from its call); returns the innermost user frame that made it, or None."""
    owner = graph._owner_frames[-1] if graph._owner_frames else None
    calls = graph._calls
    top = calls[-1].frame if calls else None
    api = user = candidate = None
    start, top_live = f, top is None
    while f is not None:
        if f is top:
            top_live = True
        kind = _KINDS.get(f.f_code)
        if kind is None:
            kind = _kind(f.f_code)
        if kind == _USER:
            user, api = f, candidate
            break
        if kind == _NAMEABLE_CODE:  # the outermost one user code reached (via wrappers)
            candidate = f
        if f is owner:
            break
        f = f.f_back
    if not top_live:  # the newest call may have finished (it is not under the user's frame)
        above = graph._live_above
        if user is None:
            above = ()
        elif above is None or above[0] is not user or above[1] is not owner:
            above = _live_above(graph, user, owner)
        else:
            above = above[2]
        if id(top) not in above:
            calls.pop()
            while calls and id(calls[-1].frame) not in above and \
                    not _on_stack(start, calls[-1].frame, f):
                calls.pop()
    call = None
    if name is None and api is not None:
        call = calls[-1] if calls and calls[-1].frame is api else _new_call(graph, api)
    if call is None:
        op.name = unique_name(graph._names, scoped(graph._name_stack, name or op.type))
        if name is None and op.type == "Placeholder":  # a capture: named after its reader
            graph._loose.append(op)
        elif graph._loose:
            _name_loose(graph, op)
    else:
        _name_in_call(graph, call, op)
    return user


def _on_stack(f, frame, last):
    """Whether ``frame`` is ``f`` or a caller of it up to ``last``."""
    while f is not None:
        if f is frame:
            return True
        if f is last:
            return False
        f = f.f_back
    return False


FRESH_FRAMES = 0x20 | 0x80 | 0x200  # generator, coroutine, async generator: callers vary


def _live_above(graph, user, owner):
    """The ids of ``user``'s frame and those above it up to ``owner``: the same for every op
    made while that frame runs, so ``name_op`` keeps them for the newest user frame (a
    generator's callers vary)."""
    live = set()
    f = user
    while f is not None:
        live.add(id(f))
        if f is owner:
            break
        f = f.f_back
    if not user.f_code.co_flags & FRESH_FRAMES:
        graph._live_above = (user, owner, live)
    return live


def _name_loose(graph, op):
    """Captures made for ``op`` outside any call: ``ReadVariableOp/resource``."""
    args = _tf_inputs(op.type)
    for i, t in enumerate(op.inputs):
        if t.op in graph._loose:
            graph._loose.remove(t.op)
            _release(graph._names, t.op.name)
            arg = args[i] if args and i < len(args) else "Placeholder"
            t.op.name = unique_name(graph._names, f"{op.name}/{arg}")
    graph._loose.clear()  # what it did not read keeps its name


def _new_call(graph, frame):
    code = frame.f_code
    spec = _DEFAULTS.get(code)
    if callable(spec):
        spec = spec(frame.f_locals)
    scope, bare, const_name = (spec, True, None) if spec is None or isinstance(spec, str) \
        else spec
    given = frame.f_locals.get("name") if code in _NAME_PARAMS else None
    if isinstance(given, str) and given:
        scope = given
    if scope is not None:
        scope = unique_name(graph._names, scoped(graph._name_stack, scope))
    call = _Call(frame, scope, bare, const_name)
    graph._calls.append(call)
    return call


# what TF's wrappers make from their arguments: constants, captures, packed lists, variable reads
_MADE = ("Const", "Placeholder", "Pack", "ReadVariableOp")


def _name_in_call(graph, call, op):
    names = graph._names
    if call.made and op.inputs:
        _claim_inputs(call, op)
    if call.scope is None:
        if op.type in _MADE:  # TF's wrappers name the op before converting: wait for it
            op.name = unique_name(names, scoped(graph._name_stack, op.type))
            call.made.append(op)
            return
        call.scope = unique_name(names, scoped(graph._name_stack, op.type))
    scope = call.scope
    if not call.bare:
        op.name = unique_name(names, f"{scope}/{op.type}")
    else:
        holder = call.holder
        if holder is not None:  # the earlier op goes under the scope, TF's inner op
            holder.name = unique_name(names, f"{scope}/{holder.type}")
            if call.named:
                _name_inputs(names, call, holder)
        op.name = scope
        call.holder = op
    if call.named:
        _name_inputs(names, call, op)
    if op.type in _MADE:
        call.made.append(op)


def _claim_inputs(call, op):
    """Note the inputs made for ``op`` (constants, captures, packed lists, reads) with the names
    TF gives them: its input argument's (``y``), an element's index in a packed list (``1``), a
    variable read's type (``mul/ReadVariableOp``)."""
    args = _tf_inputs(op.type)
    for i, t in enumerate(op.inputs):
        made = t.op
        if made.type in _MADE and made in call.made:
            call.made.remove(made)
            if made is call.holder:
                call.holder = None
            if op.type == "Pack":
                arg = str(i)
            elif made.type == "ReadVariableOp":  # a variable converted: TF's inner read
                arg = made.type
            else:
                arg = call.const_name or (args[i] if args and i < len(args) else made.type)
            call.named.setdefault(id(op), []).append((made, arg))


def _name_inputs(names, call, op):
    """Name the inputs made for ``op`` after it: ``add/y``, ``mul/ReadVariableOp/resource``,
    ``Reshape/shape/1``."""
    for made, arg in call.named.get(id(op), ()):
        if made.name != call.scope:  # the scope's own name stays taken
            _release(names, made.name)
        made.name = unique_name(names, f"{op.name}/{arg}")
        _name_inputs(names, call, made)
