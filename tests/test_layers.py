"""The package's shape, read from its source with ``ast`` (nothing is imported): one layer order,
imports only downward, no import cycles, all imports at module top, small files.

ARCHITECTURE.md explains the layers; this file is their enforcement.
"""

import ast
import collections
import pathlib

import pytest

PACKAGE = "tensortrace"
ROOT = pathlib.Path(__file__).resolve().parent.parent / PACKAGE

#: Each module (or package, covering everything under it) and its layer. A module may import
#: its own layer or lower ones; upper layers reach lower ones only by registering into them.
LAYERS = {
    0: ("errors", "dtypes", "shapes", "config", "registry", "_export", "_logging", "numerics",
        "messages", "_version", "_protos", "_farmhash"),
    1: ("tensor", "nest", "composite"),
    2: ("context",),
    3: ("graph",),
    4: ("passes", "executor"),
    5: ("convert",),
    6: ("ops", "xla"),  # xla lowers op records (and reuses ops' shape helpers)
    7: ("variables", "module", "random_generator", "ragged", "sparse", "parsing"),
    8: ("autodiff",),
    9: ("tracing",),
    10: ("autograph",),
    11: ("data", "saving", "initializers", "summary", "checkpoint", "distribute", "lookup",
         "profiler", "testing"),
    # "" is the package's own __init__: the public surface; tnp is tf.experimental.numpy
    12: ("api", "", "tnp"),
    # the command line: runs scripts on the package; _tf_internal: TF's internal modules it gives
    13: ("shim", "__main__", "saved_model_cli", "_tf_internal"),
}

#: Modules allowed to import the package root: ``python -m tensortrace`` runs the package as a
#: program, so its entry point needs the whole public surface (nothing inside the package may).
ROOT_IMPORTERS = {"__main__"}

MAX_CYCLE = 3  # modules in one import cycle, function-local imports included
MAX_LOCAL_IMPORTS = 15  # function-local imports of package modules, each with a reason
MAX_OPS_LINES = 700
MAX_LINES = 800


class Module:
    """One source file: its dotted name (without the package prefix), path and parse tree."""

    def __init__(self, path):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        self.is_package = parts[-1] == "__init__"
        if self.is_package:
            parts.pop()
        self.name = ".".join(parts)  # "" for the package root
        self.path = path
        self.source = path.read_text()
        self.tree = ast.parse(self.source)
        self.lines = self.source.splitlines()

    def resolve(self, node):
        """The package-internal modules an import statement names ('' is the root)."""
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
            return [_internal(n) for n in names if _internal(n) is not None]
        if node.level == 0:
            base = _internal(node.module)
            if base is None:
                return []
        else:
            here = self.name.split(".") if self.name else []
            if not self.is_package:
                here = here[:-1]
            up = node.level - 1
            if up > len(here):
                return []
            base = ".".join(here[:len(here) - up] if up else here)
            if node.module:
                base = f"{base}.{node.module}" if base else node.module
        found = []
        for alias in node.names:  # "from . import x" imports the submodule x when there is one
            candidate = f"{base}.{alias.name}" if base else alias.name
            found.append(candidate if candidate in MODULES else base)
        return found


def _internal(dotted):
    if dotted == PACKAGE:
        return ""
    if dotted.startswith(PACKAGE + "."):
        return dotted[len(PACKAGE) + 1:]
    return None


MODULES = {m.name: m for m in map(Module, sorted(ROOT.rglob("*.py")))}


def _owner(name):
    """The nearest module or package of ``name`` that exists (``ops.math.add`` -> ``ops.math``)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name if name in MODULES else ""


def layer_of(name):
    best, layer = -1, None
    for level, prefixes in LAYERS.items():
        for p in prefixes:
            if (p == "" and name == "") or (p and (name == p or name.startswith(p + "."))):
                if len(p) > best:
                    best, layer = len(p), level
    return layer


class Import:
    def __init__(self, module, target, node, local):
        self.module, self.target, self.node, self.local = module, target, node, local

    def __repr__(self):
        kind = "function-local " if self.local else ""
        return (f"{self.module.path.relative_to(ROOT.parent)}:{self.node.lineno}: {kind}import "
                f"of {PACKAGE}{'.' if self.target else ''}{self.target}")


def _imports():
    found = []
    for m in MODULES.values():
        top = set(map(id, _module_level(m.tree.body)))
        for node in ast.walk(m.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in m.resolve(node):
                    target = _owner(target) if target else ""
                    if target != m.name:
                        found.append(Import(m, target, node, id(node) not in top))
    return found


def _module_level(body):
    """Statements that run at import time: the module body and its if/try blocks."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, getattr(node, "finalbody", []),
                          *[h.body for h in getattr(node, "handlers", [])]):
                yield from _module_level(block)


IMPORTS = _imports()


def test_every_module_has_a_layer():
    missing = sorted(n or "(root)" for n in MODULES if layer_of(n) is None)
    assert not missing, f"modules with no layer in LAYERS: {missing}"


def test_imports_point_downward():
    upward = [f"{i} (layer {layer_of(i.module.name)} -> {layer_of(i.target)})" for i in IMPORTS
              if i.module.name not in ROOT_IMPORTERS and i.target != ""
              and layer_of(i.target) > layer_of(i.module.name)]
    assert not upward, "imports pointing up the layer order:\n" + "\n".join(upward)


def test_nothing_inside_imports_the_root():
    offenders = [str(i) for i in IMPORTS if i.target == "" and i.module.name not in ROOT_IMPORTERS]
    assert not offenders, "the package root imported from inside:\n" + "\n".join(offenders)


def test_import_cycles_are_small():
    graph = collections.defaultdict(set)
    for i in IMPORTS:
        graph[i.module.name].add(i.target)
    big = [sorted(c) for c in _strongly_connected(graph) if len(c) > MAX_CYCLE]
    assert not big, f"import cycles over {MAX_CYCLE} modules: {big}"


def test_function_local_imports_are_few_and_explained():
    local = [i for i in IMPORTS if i.local]
    unexplained = [str(i) for i in local if "#" not in i.module.lines[i.node.lineno - 1]]
    assert not unexplained, "function-local imports without a reason beside them:\n" + \
        "\n".join(unexplained)
    assert len({id(i.node) for i in local}) <= MAX_LOCAL_IMPORTS, "\n".join(map(str, local))


def test_imports_come_before_code():
    late = []
    for m in MODULES.values():
        seen_code = False
        for node in m.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                seen_code = True
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and seen_code:
                late.append(f"{m.path.relative_to(ROOT.parent)}:{node.lineno}")
    assert not late, "imports after the first def or class:\n" + "\n".join(late)


@pytest.mark.parametrize("module", sorted(MODULES.values(), key=lambda m: m.name),
                         ids=lambda m: m.name or "(root)")
def test_files_are_small(module):
    limit = MAX_OPS_LINES if module.name.startswith("ops.") or module.name == "ops" else MAX_LINES
    assert len(module.lines) <= limit, f"{module.path} has {len(module.lines)} lines (> {limit})"


def _strongly_connected(graph):
    """Tarjan's algorithm, iteratively."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    nodes = set(graph) | {t for ts in graph.values() for t in ts}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(component)
    return found
