"""``import tensortrace``: it pulls in nothing but NumPy and the standard library, and is quick."""

import json
import os
import subprocess
import sys
import sysconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ml_dtypes provides bfloat16 when the optional "bfloat16" extra is installed.
ALLOWED = {"numpy", "tensortrace", "ml_dtypes"}
IMPORT_MS_LIMIT = 500

PROBE = """
import json, sys, time
import numpy
before = set(sys.modules)
start = time.perf_counter()
import tensortrace
ms = (time.perf_counter() - start) * 1000
new = sorted(set(sys.modules) - before)
files = {name: getattr(sys.modules[name], "__file__", None) for name in new}
print(json.dumps({"ms": ms, "new": new, "files": files}))
"""


def probe(pycache=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    if pycache:  # byte-code cached as after an install, not compiled on every run
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def is_stdlib(name, file):
    """In the standard library by name, or by where its file lies (``_sysconfigdata_*``)."""
    if name.split(".")[0] in sys.stdlib_module_names:
        return True
    paths = sysconfig.get_paths()
    stdlib = tuple(os.path.join(paths[k], "") for k in ("stdlib", "platstdlib"))
    return bool(file) and file.startswith(stdlib) and "site-packages" not in file


def test_import_uses_only_numpy_and_the_standard_library():
    found = probe()
    assert "tensortrace" in found["new"]
    foreign = sorted(
        name for name in found["new"]
        if name.split(".")[0] not in ALLOWED
        and not name.lstrip("_").startswith("cython_")  # the runtime of NumPy's Cython parts
        and not is_stdlib(name, found["files"][name]))
    assert foreign == []
    assert "tensorflow" not in found["new"]


def test_import_does_not_load_the_runner():
    new = probe()["new"]
    assert "tensortrace.shim" not in new and "tensortrace.__main__" not in new


def test_import_is_quick(tmp_path):
    probe(tmp_path)  # writes the byte-code cache
    ms = min(probe(tmp_path)["ms"] for _ in range(3))  # NumPy's own import time is not counted
    print(f"import tensortrace: {ms:.0f} ms")
    assert ms < IMPORT_MS_LIMIT
