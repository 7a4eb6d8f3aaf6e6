"""Errors raised while converted code runs name the user's code: the message gains TF's
"in user code:" header listing the user's frames (file, line, function, source line)."""

import linecache
import os

from ..errors import OpError
from . import conversion, rules

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "ag_error_metadata"
# call-dispatch frames between two user frames that do not end a run of them
_TRANSPARENT = {os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
                for name in ("api.py", "conversion.py")}


def annotate(error):
    """Prefix ``error``'s message with the user frames of its traceback (once)."""
    if getattr(error, MARK, False) or not _rewritable(error):
        return
    frames = _user_frames(error.__traceback__)
    if not frames:
        return
    lines = ["in user code:", ""]
    for filename, lineno, name, converted in frames:
        lines.append(f'    File "{filename}", line {lineno}, in {name}{"  *" if converted else ""}')
        source = linecache.getline(filename, lineno).strip()
        if source:
            lines.append(f"        {source}")
    lines.append("")  # TF: no blank line between frames, one after the last
    message = _message(error).replace("\n", "\n    ")  # TF indents the whole message
    lines.append(f"    {type(error).__name__}: {message}")
    _set_message(error, "\n".join(lines) + "\n")
    try:
        setattr(error, MARK, True)
    except AttributeError:
        pass


def _rewritable(error):
    if isinstance(error, OpError):
        return True
    if isinstance(error, (KeyError, StopIteration, GeneratorExit)):
        return False
    return not error.args or (len(error.args) == 1 and isinstance(error.args[0], str))


def _message(error):
    if isinstance(error, OpError):
        return error.message
    return error.args[0] if error.args else ""


def _set_message(error, text):
    if isinstance(error, OpError):
        error._message = text
    error.args = (text,)


def _user_frames(tb):
    """(filename, line, function, converted) for the innermost run of converted or other user
    frames: as in TF, library frames in between (control flow, tf.cond, map_fn, ...) end a run,
    so a loop or if header is not listed above the body line that failed."""
    frames = []
    seen_converted = broken = False
    while tb is not None:
        code = tb.tb_frame.f_code
        name = conversion.CONVERTED_CODES.get(code)
        if name is not None:
            seen_converted = True
            entry = (code.co_filename, tb.tb_lineno, name, True)
        elif seen_converted and _is_user_file(code.co_filename):
            entry = (code.co_filename, tb.tb_lineno, code.co_name, False)
        else:
            entry = None
            broken = broken or (bool(frames) and code.co_filename not in _TRANSPARENT)
        if entry is not None:
            if broken:
                frames, broken = [], False
            if not frames or frames[-1][:3] != entry[:3]:
                frames.append(entry)
        tb = tb.tb_next
    return frames


def _is_user_file(filename):
    return not filename.startswith(_PACKAGE_DIR) and not rules._is_stdlib_file(filename)
