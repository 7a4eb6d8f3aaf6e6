"""Files: write a model into a temporary sibling directory and rename it into place (a crash never
leaves a half-written model where a good one was); read and check the files before decoding.

    write(export_dir, document, arrays)
    document, npz = read(export_dir)
"""

import hashlib
import json
import os
import shutil
import tempfile
import zipfile

import numpy as np

from .. import errors
from .format import ARRAYS, DOCUMENT, FORMAT, SUPPORTED_VERSIONS, FormatError


def write(export_dir, document, arrays):
    """Write ``document`` (JSON) and ``arrays`` (the .npz) as the directory ``export_dir``,
    replacing any model there only once the new one is complete."""
    target = os.path.abspath(os.fspath(export_dir))
    if os.path.exists(target) and not os.path.isdir(target):
        raise errors.FailedPreconditionError(None, None, f"{export_dir} is not a directory")
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}.saving-", dir=parent)
    try:
        npz_path = os.path.join(staging, ARRAYS)
        with open(npz_path, "wb") as f:
            np.savez(f, **arrays)
            _sync(f)
        document = dict(document, npz_sha256=_sha256(npz_path))
        text = json.dumps(document, allow_nan=False, separators=(",", ":"))
        with open(os.path.join(staging, DOCUMENT), "w", encoding="utf-8") as f:
            f.write(text)
            _sync(f)
        _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _sync_dir(parent)


def _swap(staging, target):
    """Rename ``staging`` to ``target``; an existing ``target`` is moved aside first and deleted
    only after the new directory is in place (put back if that rename fails)."""
    if not os.path.exists(target):
        os.rename(staging, target)
        return
    aside = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}.replaced-",
                             dir=os.path.dirname(target))
    os.rename(target, aside)  # onto the empty directory just made: atomic on POSIX
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


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


def contains_saved_model(export_dir):
    """Whether ``export_dir`` holds a saved model document."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), DOCUMENT))


def read(export_dir):
    """The checked document and the .npz members of the model in ``export_dir``.

    Raises:
        OSError: when a file is missing or cannot be parsed.
        ValueError: for another format or version, or arrays that do not belong to the document.
    """
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, DOCUMENT)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {path}")
    try:
        with open(path, "rb") as f:
            document = json.loads(f.read().decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise OSError(f"Cannot parse file {path}: {e}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise FormatError(f"{path} is not a tensortrace SavedModel document (its \"format\" "
                          f"field is not {FORMAT!r}).")
    version = document.get("version")
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        raise FormatError(f"{path} has format version {version!r}; this tensortrace reads "
                          f"version(s) {', '.join(map(str, SUPPORTED_VERSIONS))}.")
    return document, _read_arrays(export_dir, document.get("npz_sha256"))


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _read_arrays(export_dir, digest):
    path = os.path.join(export_dir, ARRAYS)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel variables file does not exist at: {path}")
    if _sha256(path) != digest:
        raise FormatError(f"{path} does not match {DOCUMENT} (checksum mismatch): the two files "
                          "come from different saves, or one of them was altered.")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise OSError(f"Cannot read {path}: {e}") from None
