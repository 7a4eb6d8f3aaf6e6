"""Files: replace a model directory so that a crash at any instant leaves the old or the new model
at its path, and read a model back checked before anything is decoded.

A save writes the new model into a temporary sibling ``.NAME.saving-PID-TOKEN`` (held locked
while its writer lives), then swaps it with the old directory in one step (Linux's
``renameat2(RENAME_EXCHANGE)``) and deletes the old one. Where no exchange exists, the old
directory is renamed aside (``.NAME.replaced-PID-TOKEN``) and the new one renamed into place:
``load`` reads the aside copy while that window is open, and puts it back when its writer died
in it. Temporaries of a dead writer are removed by the next save or load of the path; those of
a live one never are. Nothing here depends on the files inside the directory.

    replace_dir(export_dir, fill)      # fill(path) writes the new model's files
    document, npz = read(export_dir)
"""

import contextlib
import ctypes
import errno
import hashlib
import json
import math
import os
import shutil
import struct
import sys
import time
import zipfile

import numpy as np

from .. import errors
from .format import ARRAYS, DOCUMENT, FORMAT, SUPPORTED_VERSIONS, FormatError
from .tf_files import SAVED_MODEL

try:
    import fcntl
except ImportError:  # not POSIX: liveness falls back to the owner's process id and age
    fcntl = None

_NEW, _OLD = "saving", "replaced"
# the members of an archive may expand to this many times its size (np.savez stores arrays
# uncompressed, so a saved model's ratio is 1; a zip bomb's is about a thousand) ...
_MAX_EXPANSION = 64
_MAX_SMALL = 1 << 24  # ... or to this many bytes, whatever the archive's size


def _exchange_function():
    """``exchange(a, b)``: swap two paths atomically with renameat2(RENAME_EXCHANGE), or None
    where the C library has no such call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2

    def exchange(a, b):
        if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange):
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), a, None, b)

    return exchange


_EXCHANGE = _exchange_function()
# a filesystem or kernel without the exchange answers one of these: use the portable scheme
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM}


# --- writing --------------------------------------------------------------------------------------
def write(export_dir, document, arrays):
    """Write ``document`` (JSON) and ``arrays`` (the .npz) as the directory ``export_dir``,
    replacing any model there in one step once the new one is complete."""

    def fill(staging):
        npz_path = os.path.join(staging, ARRAYS)
        with open(npz_path, "wb") as f:
            np.savez(f, **arrays)
            _sync(f)
        text = json.dumps(dict(document, npz_sha256=_sha256(npz_path)), allow_nan=False,
                          separators=(",", ":"))
        with open(os.path.join(staging, DOCUMENT), "w", encoding="utf-8") as f:
            f.write(text)
            _sync(f)

    replace_dir(export_dir, fill)


def replace_dir(export_dir, fill):
    """Make ``export_dir`` the directory ``fill(path)`` writes, atomically: at every instant the
    path holds the old directory or the new one (``load`` recovers the portable scheme's
    window). A failing ``fill`` leaves the old directory as it was and no temporary behind.

    Raises:
        FailedPreconditionError: when ``export_dir`` exists and is not a directory.
    """
    target = os.path.abspath(os.fspath(export_dir))
    if os.path.exists(target) and not os.path.isdir(target):
        raise errors.FailedPreconditionError(None, None, f"{export_dir} is not a directory")
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    _recover(target)
    staging = _Temporary.create(parent, name, _NEW)
    try:
        fill(staging.path)
        _sync_dir(staging.path)
        _install(staging.path, target)
    except BaseException:
        shutil.rmtree(staging.path, ignore_errors=True)
        raise
    finally:
        staging.release()
    _sync_dir(parent)


def _install(staging, target):
    """Put the complete ``staging`` directory at ``target``; the old one is deleted after."""
    try:
        os.rename(staging, target)  # no model there yet (or an empty directory)
        return
    except OSError as e:
        if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
    exchange = _EXCHANGE
    if exchange is not None:
        try:
            exchange(staging, target)  # one step: ``target`` is the new model, ``staging`` old
        except OSError as e:
            if e.errno not in _NO_EXCHANGE:
                raise
        else:
            shutil.rmtree(staging, ignore_errors=True)
            return
    _install_portable(staging, target)


def _install_portable(staging, target):
    """Rename the old directory aside, the new one into place, then delete the old one; between
    the two renames ``load`` reads the old one aside (and puts it back if this process dies)."""
    parent, name = os.path.split(target)
    aside = _Temporary.name(parent, name, _OLD)
    os.rename(target, aside)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


class _Temporary:
    """A sibling directory named for its writer's process and locked while the writer lives."""

    def __init__(self, path, fd):
        self.path = path
        self.fd = fd

    @staticmethod
    def name(parent, name, kind):
        return os.path.join(parent, f".{name}.{kind}-{os.getpid()}-{os.urandom(6).hex()}")

    @classmethod
    def create(cls, parent, name, kind):
        path = cls.name(parent, name, kind)
        os.mkdir(path, 0o700)
        fd = None
        if fcntl is not None:
            fd = os.open(path, os.O_RDONLY)
            fcntl.flock(fd, fcntl.LOCK_EX)
        return cls(path, fd)

    def release(self):
        if self.fd is not None:
            os.close(self.fd)  # the lock goes with the descriptor
            self.fd = None


def _temporaries(parent, name, kind):
    """Paths and owner ids of ``name``'s temporaries of ``kind`` in ``parent``."""
    prefix = f".{name}.{kind}-"
    try:
        entries = os.listdir(parent)
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.startswith(prefix):
            pid = entry[len(prefix):].split("-", 1)[0]
            if pid.isdigit():
                found.append((os.path.join(parent, entry), int(pid)))
    return found


def _owned(path, pid):
    """Whether a live writer owns the temporary ``path`` (its process lives, or it holds the
    directory's lock); a temporary whose owner is gone is stale."""
    if fcntl is None:  # no locks, and no safe liveness probe: an hour without change is stale
        try:
            return time.time() - os.stat(path).st_mtime < 3600
        except OSError:
            return False
    try:
        os.kill(pid, 0)
        return True  # its process lives (or a process reused its id: keep it, to be safe)
    except PermissionError:
        return True
    except OSError:
        pass
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _recover(target):
    """Undo what a writer killed mid-save left: a model it moved aside while none is at
    ``target`` goes back; its other temporaries are deleted. Best effort (read-only
    directories are left as they are)."""
    parent, name = os.path.split(target)
    for path, pid in _temporaries(parent, name, _OLD):
        if _owned(path, pid):
            continue
        if not os.path.lexists(target):
            try:
                os.rename(path, target)
                continue
            except OSError:
                pass
        shutil.rmtree(path, ignore_errors=True)
    for path, pid in _temporaries(parent, name, _NEW):
        if not _owned(path, pid):
            shutil.rmtree(path, ignore_errors=True)


def _sync(f):
    f.flush()
    os.fsync(f.fileno())


def _sync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot sync directories
        pass
    finally:
        os.close(fd)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# --- reading --------------------------------------------------------------------------------------
def contains_saved_model(export_dir):
    """Whether ``export_dir`` holds a saved model: TF's ``saved_model.pb`` or the JSON document
    of tensortrace's earlier format."""
    directory = resolve(export_dir)
    return any(os.path.isfile(os.path.join(directory, name)) for name in (DOCUMENT, SAVED_MODEL))


def resolve(export_dir):
    """The directory to read the model at ``export_dir`` from: the path itself, or, while a
    writer's replacement is in flight, the old model it moved aside. Stale temporaries of dead
    writers are cleaned up first (an interrupted replacement is undone)."""
    target = os.path.abspath(os.fspath(export_dir))
    _recover(target)
    if not os.path.lexists(target):
        parent, name = os.path.split(target)
        for path, _ in sorted(_temporaries(parent, name, _OLD)):
            if os.path.isdir(path):
                return path
    return target


def read(export_dir):
    """The checked document and the .npz members of the model in ``export_dir``.

    Raises:
        OSError: when a file is missing or cannot be parsed.
        ValueError: for another format or version, or arrays that do not belong to the document.
    """
    for attempt in range(3):
        directory = resolve(export_dir)
        with _Directory(directory) as opener:
            try:
                return _read(export_dir, opener)
            except (OSError, FormatError):
                # a writer replaced the directory while it was read: read the new one
                if attempt == 2 or opener.inode == _inode(resolve(export_dir)):
                    raise
    raise AssertionError("unreachable")


def read_whole(export_dir, read, retry=(OSError, FormatError)):
    """``read(directory)`` of the model at ``export_dir``, from one save: when a writer replaced
    the directory while it was read (its inode changed), the new one is read again."""
    for attempt in range(3):
        directory = resolve(export_dir)
        before = _inode(directory)
        try:
            result = read(directory)
        except retry:
            if attempt == 2 or _inode(resolve(export_dir)) == before:
                raise
            continue
        if _inode(resolve(export_dir)) == before or attempt == 2:
            return result
    raise AssertionError("unreachable")


def _inode(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class _Directory:
    """Opens files of one directory instance: relative to a descriptor of it where the platform
    allows, so a document and its arrays always come from the same save."""

    def __init__(self, path):
        self.path = path
        self.fd = None
        if os.open in os.supports_dir_fd:
            with contextlib.suppress(OSError):
                self.fd = os.open(path, os.O_RDONLY)
        if self.fd is not None:
            st = os.fstat(self.fd)
            self.inode = st.st_dev, st.st_ino
        else:
            self.inode = _inode(path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)

    def __call__(self, name, flags):
        if self.fd is None:
            return os.open(os.path.join(self.path, name), flags)
        return os.open(name, flags, dir_fd=self.fd)


def _read(export_dir, opener):
    path = os.path.join(os.fspath(export_dir), DOCUMENT)
    try:
        with open(DOCUMENT, "rb", opener=opener) as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        # neither format is there: TF's message (which names TF's files)
        raise OSError(f"SavedModel file does not exist at: {os.fspath(export_dir)}"
                      "/{saved_model.pbtxt|saved_model.pb}") from None
    try:
        document = json.loads(text.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise OSError(f"Cannot parse file {path}: {e}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise FormatError(f"{path} is not a tensortrace SavedModel document (its \"format\" "
                          f"field is not {FORMAT!r}).")
    version = document.get("version")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        raise FormatError(f"{path} has format version {version!r}; this tensortrace reads "
                          f"version(s) {', '.join(map(str, SUPPORTED_VERSIONS))}.")
    shown = os.path.join(os.fspath(export_dir), ARRAYS)
    try:
        f = open(ARRAYS, "rb", opener=opener)  # noqa: SIM115 - closed below
    except (FileNotFoundError, NotADirectoryError):
        raise OSError(f"SavedModel variables file does not exist at: {shown}") from None
    with f:
        return document, _read_arrays(f, shown, document.get("npz_sha256"))


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _read_arrays(f, shown, digest):
    """The .npz members, each checked against its zip and .npy headers before it is read."""
    h = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
    if h.hexdigest() != digest:
        raise FormatError(f"{shown} does not match {DOCUMENT} (checksum mismatch): the two files "
                          "come from different saves, or one of them was altered.")
    size = f.tell()
    f.seek(0)
    try:
        return _members(f, size, shown)
    except FormatError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, NotImplementedError,
            OverflowError, KeyError, IndexError, TypeError, MemoryError, RuntimeError,
            struct.error) as e:
        raise OSError(f"Cannot read {shown}: {type(e).__name__}: {e}") from None


def _members(f, size, shown):
    archive = zipfile.ZipFile(f)
    limit = max(_MAX_SMALL, _MAX_EXPANSION * size)
    total = 0
    arrays = {}
    for info in archive.infolist():
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise FormatError(f"{shown}: member {info.filename!r} uses compression method "
                              f"{info.compress_type}, which a SavedModel never uses")
        total += info.file_size
        if total > limit:
            raise FormatError(f"{shown}: its members expand to more than {limit} bytes from a "
                              f"{size}-byte file (member {info.filename!r} declares "
                              f"{info.file_size} bytes): refusing to decompress it")
        if not info.filename.endswith(".npy"):
            raise FormatError(f"{shown}: member {info.filename!r} is not an .npy array")
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
            else:
                raise FormatError(f"{shown}: member {info.filename!r} has .npy version "
                                  f"{version}")
            if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
                raise FormatError(f"{shown}: member {info.filename!r} holds {dtype} values, "
                                  "which a SavedModel never stores")
            size = math.prod(shape) * dtype.itemsize
            if member.tell() + size != info.file_size:
                raise FormatError(f"{shown}: member {info.filename!r} declares shape "
                                  f"{list(shape)} of {dtype} ({size} bytes) in "
                                  f"{info.file_size - member.tell()} bytes of data")
            raw = np.empty(size, np.uint8)
            if member.readinto(raw) != size:
                raise FormatError(f"{shown}: member {info.filename!r} is truncated")
            arrays[info.filename[:-4]] = raw.view(dtype).reshape(shape,
                                                                 order="F" if fortran else "C")
    return arrays
