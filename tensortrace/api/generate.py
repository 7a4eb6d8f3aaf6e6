"""Writes ``_table.py``: imports the whole package once, noting which module was executing when
each public name was exported, each op registered, each gradient rule set and each Tensor
operator installed. Run it after adding or moving any of those:

    python -m tensortrace.api.generate          # rewrites tensortrace/api/_table.py
    python -m tensortrace.api.generate --check  # exit status 1 when the table is out of date
"""

import os
import sys
import types

from .. import _export
from . import NAMESPACES, load, load_everything

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_table.py")
PACKAGE = __package__.rpartition(".")[0]

HEADER = '''"""Where each public name, op type, gradient rule and Tensor operator of tensortrace is
defined, so that it loads on first use. Generated from a full import by
``python -m tensortrace.api.generate``; do not edit (tests/test_import.py checks it is current).
"""

# {namespace: {module: "names"}}: the tf_export'ed names ("" is tf itself; module "" is loaded
# with the package).
'''


def _origin():
    """The module whose top-level code is running (the one defining what is registered)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name[len(PACKAGE) + 1:] if name.startswith(PACKAGE + ".") else ""


def _record():
    """Patch the registration points; returns the dicts they fill."""
    seen = {"exports": {}, "ops": {}, "grads": {}, "operators": {}, "clashes": []}
    for ns, names in _export._EXPORTS.items():
        for name in names:
            seen["exports"][ns, name] = ""
    tf_export = _export.tf_export

    def recording_export(*names):
        wrap = tf_export(*names)
        origin = _origin()

        def record(fn):
            for full in names:
                ns, _, name = full.rpartition(".")
                before = seen["exports"].get((ns, name))
                if before is not None and before != origin and \
                        _export._EXPORTS[ns].get(name) is not fn:
                    seen["clashes"].append(f"{full}: {before} and {origin}")
                seen["exports"][ns, name] = origin
            return wrap(fn)

        return record

    _export.tf_export = recording_export
    registry = load("registry")  # after the patch above: anything they export is seen
    register = registry.register

    def recording_register(opdef):
        seen["ops"][opdef.name] = _origin()
        return register(opdef)

    registry.register = recording_register
    rule_set = registry._GradRule.__set__

    def recording_set(self, opdef, rule):
        if rule is not None:
            seen["grads"][opdef.name] = _origin()
        rule_set(self, opdef, rule)

    registry._GradRule.__set__ = recording_set
    tensor = load("tensor")
    override = tensor.Tensor._override_operator.__func__

    def recording_override(cls, operator, func):
        seen["operators"][operator] = _origin()
        override(cls, operator, func)

    tensor.Tensor._override_operator = classmethod(recording_override)
    return seen


def _grouped(mapping):
    """{key: module} -> {module: "key key ..."}, sorted."""
    groups = {}
    for key, module in sorted(mapping.items()):
        groups.setdefault(module, []).append(key)
    return {module: " ".join(keys) for module, keys in sorted(groups.items())}


def _copies(root):
    """Namespaces sharing an engine module's name, and that module's public names."""
    found = {}
    for ns in NAMESPACES:
        path = os.path.join(root, *ns.split("."))
        if os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py")):
            module = sys.modules[f"{PACKAGE}.{ns}"]
            found[ns] = " ".join(sorted(
                k for k, v in vars(module).items()
                if not k.startswith("_") and not isinstance(v, types.ModuleType)))
    return found


def _engine(package):
    """The package's own modules that a full import leaves as its attributes."""
    return " ".join(sorted(
        k for k, v in vars(package).items()
        if isinstance(v, types.ModuleType) and not k.startswith("_")
        and v.__name__ == f"{PACKAGE}.{k}" and k not in NAMESPACES))


def _wrapped(text, indent):
    """A long string of names as adjacent literals of lines <= 100 characters."""
    words, lines, line = text.split(), [], ""
    width = 100 - indent - 5
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    if len(lines) == 1:
        return repr(lines[0])
    pad = " " * indent
    return "(" + f"\n{pad} ".join(repr(x) for x in lines) + ")"


def _dict_source(name, mapping, indent=4, nested=False):
    out = [f"{name} = {{"]
    for key, value in mapping.items():
        if nested:
            out.append(f"{' ' * indent}{key!r}: {{")
            for k, v in value.items():
                prefix = f"{' ' * (indent * 2)}{k!r}: "
                out.append(prefix + _wrapped(v, len(prefix)) + ",")
            out.append(f"{' ' * indent}}},")
        else:
            prefix = f"{' ' * indent}{key!r}: "
            out.append(prefix + _wrapped(value, len(prefix)) + ",")
    out.append("}")
    return "\n".join(out)


def generate():
    """The source of ``_table.py`` for the package as it is now (run in a fresh interpreter)."""
    package = sys.modules[PACKAGE]
    seen = _record()
    load_everything()
    if seen["clashes"]:
        raise SystemExit("names exported twice: " + "; ".join(seen["clashes"]))
    exports = {}
    for (ns, name), module in sorted(seen["exports"].items()):
        exports.setdefault(ns, {})[name] = module
    root = os.path.dirname(package.__file__)
    parts = [
        HEADER + _dict_source("EXPORTS", {ns: _grouped(names) for ns, names in exports.items()},
                              nested=True),
        "# {namespace: names}: namespaces that are an engine module of their name, and its\n"
        "# public names (tf.data is tensortrace.data).\n"
        + _dict_source("COPIES", _copies(root)),
        ("# The package's modules that are its attributes (tf.ops ...).\n"
         f"ENGINE = {_wrapped(_engine(package), 9)}"),
        "# {module: op types}: where each op is registered.\n"
        + _dict_source("OPS", _grouped(seen["ops"])),
        "# {module: op types}: where each op's gradient rule is set.\n"
        + _dict_source("GRADS", _grouped(seen["grads"])),
        "# {module: operators}: where each Tensor operator is installed.\n"
        + _dict_source("OPERATORS", _grouped(seen["operators"])),
    ]
    return "\n\n".join(parts) + "\n"


def main(argv):
    source = generate()
    with open(TABLE, encoding="utf-8") as f:
        current = f.read()
    if "--check" in argv:
        if current != source:
            print(f"{TABLE} is out of date: run python -m tensortrace.api.generate",
                  file=sys.stderr)
            return 1
        return 0
    if current != source:
        with open(TABLE, "w", encoding="utf-8") as f:
            f.write(source)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
