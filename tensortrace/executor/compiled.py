"""Executable graphs, the one way a graph runs: ``compile_graph`` optimizes it and compiles
generated source under a ``linecache`` name (so tracebacks and debuggers show it), keeps it as
``.code``, and maps a failing line back to its op and to the user's source line. The
``linecache`` entry lives as long as the compiled graph: evicted traces leave nothing behind.

    exe = compile_graph(graph, "f")
    exe(x_value, *capture_values)       # -> [output values]
"""

import itertools
import linecache
import weakref

import numpy as np

from .. import errors
from ..graph.ir import source_stack
from ..passes.pipeline import optimize
from ..registry import get as get_op
from . import codegen, interpreter

_counter = itertools.count(1)

#: "codegen" (default) or "interpreter" (the reference); tests flip it to compare the two.
default_executor = "codegen"


def compile_graph(graph, name):
    """``graph`` optimized and compiled with the default executor."""
    return CompiledGraph(optimize(graph), name, default_executor)


class CompiledGraph:
    """A graph compiled to a Python function of its feeds (inputs, then captures).

    ``fn(*feeds)`` returns what a kernel returns: the one output, or a tuple of them;
    ``exe(*feeds)`` a list of outputs, failures raised as TF's errors naming the op.
    """

    def __init__(self, graph, name, executor="codegen"):
        self.graph = graph
        self.name = name
        self.feeds = list(graph.inputs) + [ph for _, ph in graph.captures]
        self.executor = executor
        if executor == "codegen":
            gen = codegen.generate(graph, _python_name(name), self.feeds)
            self.filename = f"<tensortrace {name} #{next(_counter)}>"
            linecache.cache[self.filename] = (len(gen.source), None,
                                              gen.source.splitlines(True), self.filename)
            weakref.finalize(self, linecache.cache.pop, self.filename, None)
            exec(compile(gen.source, self.filename, "exec"), gen.namespace)
            self.code = gen.source
            self.fn = gen.namespace[gen.name]
            self._line_ops = gen.line_ops
        else:
            self.code = None
            if len(graph.outputs) == 1:
                self.fn = lambda *feeds: interpreter.run(graph, feeds)[0]
            else:
                self.fn = lambda *feeds: tuple(interpreter.run(graph, feeds))
        self.single = len(graph.outputs) == 1

    def __call__(self, *feeds):
        """Run on NumPy values; returns the output values as a list."""
        try:
            out = self.fn(*feeds)
        except Exception as e:  # noqa: BLE001 - every runtime failure is reported as TF does
            raise self.runtime_error(e) from None
        return [out] if self.single else list(out)

    def runtime_error(self, e):
        """Turn an exception raised inside the graph into TF's error, naming op and user line."""
        op = self._failing_op(e)
        message = e.message if isinstance(e, errors.OpError) else _describe(e)
        if op is not None and not isinstance(e, errors.OpError):
            reword = get_op(op.type).reword  # an expr's NumPy error, in TF's words
            message = (reword and reword(e, op)) or message
        where = ""
        if op is not None:
            where = f"\n\nDetected at node {op.name}"
            if op.source:
                where += " defined at (most recent call last):\n" + "".join(
                    f"  File \"{file}\", line {line}"
                    + ("" if code is None else f", in {frame_name(code)}") + "\n\n"
                    for file, line, code in source_stack(op.source))[:-2]
        node = op.name if op else "?"
        text = (f"Graph execution error:{where}\n\n{message}\n\t [[{{{{node {node}}}}}]] "
                f"[Op:{self.name}]")
        cls = type(e) if isinstance(e, errors.OpError) else errors.InvalidArgumentError
        return cls(None, None, text)

    def _failing_op(self, e):
        if self.executor != "codegen":
            return None
        tb = e.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        return self._line_ops.get(line)


def _frame_name(code):
    return code.co_name


#: How a frame of an op's definition stack is named (AutoGraph names its generated functions
#: after the user's, as TF does)
frame_name = _frame_name


def _describe(e):
    msg = str(e)
    if isinstance(e, (ValueError, IndexError, TypeError, np.linalg.LinAlgError)):
        return msg
    return f"{type(e).__name__}: {msg}"


def _python_name(name):
    return codegen.function_name(name)

