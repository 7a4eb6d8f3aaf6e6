"""``python -m tensortrace SCRIPT.py [args]``: run an unchanged TensorFlow program on tensortrace.

The script runs as Python would run it (``__name__ == "__main__"``, ``sys.argv`` from the command
line, its directory first on ``sys.path``), except that ``import tensorflow`` gives tensortrace
(see ``shim.py``). Using a TensorFlow API tensortrace lacks stops the script with one line naming
the API and the script's line, and exit status 2.
"""

import builtins
import importlib.machinery
import io
import os
import sys
import types

import tensortrace

from . import shim

USAGE = "usage: python -m tensortrace SCRIPT.py [args ...]"
EXIT_MISSING_API = 2  # as for other usage errors: the program asked for something not there


def main(argv=None):
    """Entry point of ``python -m tensortrace`` and the ``tensortrace`` command.

    Returns:
        The exit status: 0, 1 on an uncaught exception, 2 on a usage error or a missing API.
        A ``sys.exit`` in the script propagates as it would without tensortrace.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"tensortrace {tensortrace.version.TENSORTRACE_VERSION}")
        return 0
    path = argv[0]
    if not os.path.isfile(path):
        print(f"tensortrace: can't open file {os.path.abspath(path)!r}: "
              "[Errno 2] No such file or directory", file=sys.stderr)
        return 2
    shim.install(tensortrace)
    return run_script(path, argv)


def run_script(path, argv):
    """Run the script at ``path`` as ``__main__`` with ``sys.argv = argv``; returns the status."""
    filename = os.path.abspath(path)  # what Python itself gives the main script's code (3.9+)
    with io.open_code(filename) as f:
        source = f.read()
    module = _main_module(filename)
    sys.modules["__main__"] = module
    sys.argv[:] = argv
    if not getattr(sys.flags, "safe_path", False):  # python -P keeps the script dir off sys.path
        sys.path[0] = os.path.dirname(filename)
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - reported like Python reports it
        missing = shim.explain(e)
        if missing is not None:
            sys.stdout.flush()
            print(missing.summary, file=sys.stderr)
            return EXIT_MISSING_API
        e = e.with_traceback(_user_traceback(e.__traceback__))
        sys.excepthook(type(e), e, e.__traceback__)
        return 1
    return 0


def _main_module(filename):
    module = types.ModuleType("__main__")
    module.__dict__.update(
        __file__=filename, __cached__=None, __package__=None, __spec__=None,
        __loader__=importlib.machinery.SourceFileLoader("__main__", filename),
        __builtins__=builtins)
    return module


def _user_traceback(tb):
    """``tb`` without the frames of this runner and of the shim, so it starts at the script's
    ``<module>`` and a bad ``tf.<name>`` ends at the user's line, as it does with TensorFlow."""
    hidden = (__file__, shim.__file__)
    frames = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename not in hidden:
            frames.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    for frame, lasti, lineno in reversed(frames):
        tb = types.TracebackType(tb, frame, lasti, lineno)
    return tb


if __name__ == "__main__":
    sys.exit(main())
