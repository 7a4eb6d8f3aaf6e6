"""Files (``tf.io``): ``read_file``/``write_file`` as ops, and ``tf.io.gfile``, TF's file API
(local paths), raising TF's errors in TF's words."""

import glob as _glob
import os
import shutil

import numpy as np

from .. import dtypes as D
from .._export import tf_export
from ..context import bind
from ..errors import (AlreadyExistsError, FailedPreconditionError, InvalidArgumentError,
                      NotFoundError, PermissionDeniedError, invalid_argument)
from ..messages import shape_text
from ..registry import DtypeCheck, define_op
from ..tensor import TensorSpec
from .strings._common import infer_scalar, infer_strings, strings


def _path(p):
    """A path argument as text (str, bytes, PathLike, scalar string array)."""
    if isinstance(p, np.ndarray):
        p = p[()]
    p = os.fspath(p)
    return p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else p


def _os_error(e, path):
    """An OSError as TF's error for ``path``."""
    if isinstance(e, FileNotFoundError):
        return NotFoundError(None, None, f"{path}; No such file or directory")
    if isinstance(e, IsADirectoryError):
        return FailedPreconditionError(None, None, f"{path}; Is a directory")
    if isinstance(e, NotADirectoryError):
        return FailedPreconditionError(None, None, f"{path}; Not a directory")
    if isinstance(e, PermissionError):
        return PermissionDeniedError(None, None, f"{path}; Permission denied")
    if isinstance(e, FileExistsError):
        return AlreadyExistsError(None, None, f"{path}; File exists")
    return FailedPreconditionError(None, None, f"{path}; {e.strerror or e}")


def _scalar_name(a, what):
    a = np.asarray(a)
    if a.ndim:
        raise invalid_argument(f"Input {what} tensor must be scalar, but had shape: "
                               f"{shape_text(a.shape)}")
    return _path(a)


# --- ops -----------------------------------------------------------------------------------------
@define_op("ReadFile")
class ReadFile:
    """The contents of the file named by a scalar string."""

    check = DtypeCheck("ReadFile", same=1, fixed=D.string)

    def infer(filename):
        infer_strings("ReadFile", (filename, "filename"))
        infer_scalar(filename, "filename", "ReadFile")
        return TensorSpec([], D.string)

    def kernel(filename):
        path = _scalar_name(filename, "filename")
        try:
            with open(path, "rb") as f:
                return np.array(f.read(), object)
        except OSError as e:
            raise _os_error(e, path) from None


@define_op("WriteFile", stateful=True)
class WriteFile:
    """Write ``contents`` to the file ``filename`` (its directories made as needed)."""

    check = DtypeCheck("WriteFile", same=1, fixed=D.string)

    def infer(filename, contents):
        infer_strings("WriteFile", (filename, "filename"), (contents, "contents"))
        infer_scalar(filename, "filename", "WriteFile")
        infer_scalar(contents, "contents", "WriteFile")
        return ()

    def kernel(filename, contents):
        path = _scalar_name(filename, "filename")
        data = np.asarray(contents)
        if data.ndim:
            raise invalid_argument(f"Contents tensor must be scalar, but had shape: "
                                   f"{shape_text(data.shape)}")
        try:
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data[()])
        except OSError as e:
            raise _os_error(e, path) from None
        return ()


@tf_export("io.read_file")
def read_file(filename, name=None):
    """The bytes of a file, as a scalar string."""
    return bind(ReadFile, strings(filename))


@tf_export("io.write_file")
def write_file(filename, contents, name=None):
    """Write a scalar string to a file, making its directories; the op in a graph."""
    op = bind(WriteFile, strings(filename), strings(contents))
    return None if op == () else op


# --- gfile ---------------------------------------------------------------------------------------
@tf_export("io.gfile.exists")
def exists(path):
    """Whether ``path`` exists."""
    return os.path.exists(_path(path))


@tf_export("io.gfile.isdir")
def isdir(path):
    """Whether ``path`` is a directory."""
    return os.path.isdir(_path(path))


@tf_export("io.gfile.listdir")
def listdir(path):
    """The names in directory ``path`` (without ``.`` and ``..``)."""
    path = _path(path)
    if not os.path.isdir(path):
        raise NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


@tf_export("io.gfile.glob")
def glob(pattern):
    """The paths matching ``pattern`` (or any of a list of patterns)."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    out = []
    for p in patterns:
        out += _glob.glob(_path(p))
    return out


@tf_export("io.gfile.mkdir")
def mkdir(path):
    """Make the directory ``path`` (its parent must exist; an existing one is kept)."""
    path = _path(path)
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        raise _os_error(e, path) from None


@tf_export("io.gfile.makedirs")
def makedirs(path):
    """Make ``path`` and its missing parents (an existing directory is kept)."""
    path = _path(path)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise _os_error(e, path) from None


@tf_export("io.gfile.remove")
def remove(path):
    """Delete the file ``path``."""
    path = _path(path)
    try:
        os.remove(path)
    except OSError as e:
        raise _os_error(e, path) from None


@tf_export("io.gfile.rmtree")
def rmtree(path):
    """Delete the directory ``path`` and everything under it."""
    path = _path(path)
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path} not found")
    try:
        shutil.rmtree(path)
    except OSError as e:
        raise _os_error(e, path) from None


@tf_export("io.gfile.rename")
def rename(src, dst, overwrite=False):
    """Move ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless ``overwrite``)."""
    src, dst = _path(src), _path(dst)
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(src, dst)
    except OSError as e:
        raise _os_error(e, src) from None


@tf_export("io.gfile.copy")
def copy(src, dst, overwrite=False):
    """Copy the file ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless
    ``overwrite``)."""
    src, dst = _path(src), _path(dst)
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise _os_error(e, src) from None


@tf_export("io.gfile.walk")
def walk(top, topdown=True, onerror=None):
    """(directory, subdirectories, files) for each directory under ``top``, as ``os.walk``."""
    yield from os.walk(_path(top), topdown=topdown, onerror=onerror)


@tf_export("io.gfile.join")
def join(path, *paths):
    """Path components joined with ``/``."""
    return os.path.join(_path(path), *[_path(p) for p in paths])


class FileStatistics:
    """What ``stat`` gives: ``length`` (bytes), ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


@tf_export("io.gfile.stat")
def stat(path):
    """The size, modification time and kind of ``path``."""
    path = _path(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise _os_error(e, path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


_MODES = ("r", "w", "a", "r+", "w+", "a+")


@tf_export("io.gfile.GFile")
class GFile:
    """A file opened on first use, as TF's: text (str) unless the mode has ``b``."""

    def __init__(self, name, mode="r"):
        self.name, self.mode = _path(name), mode
        self._binary = "b" in mode
        self._file = None

    def _open(self, reading):
        plain = self.mode.replace("b", "")
        if plain not in _MODES:
            raise InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or "
                                                   "'w+' or 'a+'")
        if reading and not (plain.startswith("r") or "+" in plain):
            raise PermissionDeniedError(None, None, "File isn't open for reading")
        if not reading and plain == "r":
            raise PermissionDeniedError(None, None, "File isn't open for writing")
        if self._file is None:
            try:
                self._file = open(self.name, plain + "b")
            except OSError as e:
                raise _os_error(e, self.name) from None
        return self._file

    def _out(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        """``n`` bytes (all that is left when -1), str in text mode."""
        return self._out(self._open(True).read(n))

    def readline(self):
        return self._out(self._open(True).readline())

    def readlines(self):
        return [self._out(line) for line in self._open(True).readlines()]

    def __iter__(self):
        return iter(self.readlines())

    def write(self, file_content):
        """Write str (as UTF-8) or bytes."""
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        self._open(False).write(bytes(file_content))

    def seek(self, offset=None, whence=0, position=None):
        self._open(True).seek(position if offset is None else offset, whence)

    def tell(self):
        return self._file.tell() if self._file is not None else 0

    def size(self):
        return os.path.getsize(self.name)

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def seekable(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
