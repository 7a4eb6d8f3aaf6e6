"""The Keras-suite runner (conformance/keras_tests.py): how it splits long files into chunks, that
the chunks of a file run each of its tests once, and that a deadline stops the run with what
finished recorded."""

import importlib.util
import json
import os
import random
import threading
import time

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "conformance", "keras_tests.py")
_spec = importlib.util.spec_from_file_location("keras_tests_runner", _PATH)
kt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kt)


def _files(tmp_path, sizes):
    paths = []
    for name, size in sizes.items():
        path = tmp_path / name
        path.write_text("#" * size)
        paths.append(str(path))
    return paths


def test_plan_splits_long_files_longest_first(tmp_path):
    files = _files(tmp_path, {"a_test.py": 100, "b_test.py": 100, "c_test.py": 300})
    times = {"a_test.py": 90.0, "b_test.py": 10.0}  # c: 300 bytes at 0.5 s a byte = 150 s
    chunks = kt.plan(files, str(tmp_path), times, jobs=2)  # a chunk: 250 / 6 = 41.7 s at most
    assert [(os.path.basename(p), k, n, round(e, 2)) for p, k, n, e in chunks] == [
        ("c_test.py", 0, 4, 37.5), ("c_test.py", 1, 4, 37.5), ("c_test.py", 2, 4, 37.5),
        ("c_test.py", 3, 4, 37.5), ("a_test.py", 0, 3, 30.0), ("a_test.py", 1, 3, 30.0),
        ("a_test.py", 2, 3, 30.0), ("b_test.py", 0, 1, 10.0)]
    assert kt.makespan(chunks, 2) == [115.0, 135.0]  # c: 2 each; a: 1 and 2; b on the first
    assert kt.makespan(chunks, 3) == [75.0, 77.5, 97.5]
    assert [n for _, _, n, _ in kt.plan(files, str(tmp_path), times, jobs=1)] == [1, 1, 1]
    small = kt.plan(files[1:2], str(tmp_path), times, jobs=16)  # b: 10 s, under MIN_CHUNK
    assert [n for _, _, n, _ in small] == [1]
    assert [n for _, _, n, _ in kt.plan(files, str(tmp_path), times, 8, 0)] == [1, 1, 1]
    assert [n for _, _, n, _ in kt.plan(files, str(tmp_path), times, 8, 100.0)] == [1, 2, 2, 1]


def test_chunks_partition_a_file_whatever_the_collection_order():
    nodeids = [f"t.py::C::test_{i % 7}[{i}]" for i in range(50)]
    picked = []
    for index in range(4):
        members = kt.chunk_members(nodeids, index, 4)
        assert members == sorted(members)  # collection order kept inside a chunk
        picked.append({nodeids[i] for i in members})
    assert sorted(len(p) for p in picked) == [12, 12, 13, 13]
    assert set().union(*picked) == set(nodeids) and sum(map(len, picked)) == 50
    shuffled = random.Random(0).sample(nodeids, len(nodeids))
    assert [{shuffled[i] for i in kt.chunk_members(shuffled, k, 4)} for k in range(4)] == picked
    assert kt.chunk_members(nodeids[:2], 3, 4) == []


def test_worker_env_keeps_the_path_and_the_callers_settings(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/site-a", "/site-b"]))
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setattr(kt.os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    env = kt.worker_env(jobs=4)
    assert env["PYTHONPATH"].split(os.pathsep) == [kt.REPO, "/site-a", "/site-b"]
    assert (env["OMP_NUM_THREADS"], env["OPENBLAS_NUM_THREADS"], env["KERAS_BACKEND"],
            env["JAX_PLATFORMS"], env["PYTHONHASHSEED"]) == ("3", "4", "tensorflow", "cpu", "0")
    assert kt.worker_env(jobs=16)["OPENBLAS_NUM_THREADS"] == "1"
    assert kt.threads_per_job(32) == 1


def test_report_counts_cut_chunks_and_missing_torch_apart():
    results = {"ops/a_test.py": {
        "ops/a_test.py::test_1": ("passed", None),
        "ops/a_test.py::test_2": ("failed", "ValueError: bad shape (#, #)"),
        "ops/a_test.py::test_3": ("failed", "ModuleNotFoundError: No module named 'torch'"),
        "ops/a_test.py::test_4": ("skipped", None),
        "ops/a_test.py::<rest of chunk 2/3>": ("cut", "stopped at the --deadline")}}
    text = kt.report(results, "", top=5, examples=1, depth=1)
    lines = text.splitlines()
    assert lines[2].split() == ["ops", "1", "1", "1", "1", "33.33%", "1"]
    assert "4 tests in 1 files; of the 3 Keras does not skip, 1 pass: 33.33%" in lines
    assert "without the 1 that need PyTorch (missing here): 1/2 = 50.00%" in lines
    assert lines[lines.index("failures by cause (a collection error or a timeout counts once "
                             "per chunk):") + 1].split() == ["1", "ValueError:", "bad",
                                                             "shape", "(#,", "#)"]
    assert any(line.startswith("cut: 1 chunks stopped") for line in lines)


_TESTS = '''
import time, pytest

@pytest.mark.parametrize("i", range(9))
def test_value(i):
    assert i != 4

def test_skipped():
    pytest.skip("no")

def test_slow():
    import os
    open(os.environ["RUNNER_TEST_MARK"], "w").close()
    time.sleep(float(os.environ["RUNNER_TEST_SLEEP"]))
'''


def _pool(tmp_path, monkeypatch, sleep, kill_at=None, jobs=2):
    monkeypatch.setenv("RUNNER_TEST_SLEEP", str(sleep))
    monkeypatch.setenv("RUNNER_TEST_MARK", str(tmp_path / "slow-started"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "x_test.py").write_text(_TESTS)
    work = tmp_path / "work"
    work.mkdir()
    pool = kt.Pool(jobs, 60, 0, str(work), str(src), json_path=str(tmp_path / "r.json"),
                   kill_at=kill_at, preload=())  # these tests need no Keras
    return pool, kt.plan([str(src / "x_test.py")], str(src), {"x_test.py": 30}, jobs, 10.0)


def test_chunks_of_a_file_run_each_test_once(tmp_path, monkeypatch):
    pool, chunks = _pool(tmp_path, monkeypatch, sleep=0)
    assert len(chunks) == 3
    results = pool.run(chunks)
    outcomes = {n.split("::")[1]: o for n, (o, _) in results[str(tmp_path / "src/x_test.py")]
                .items()}
    assert outcomes == {**{f"test_value[{i}]": "passed" for i in range(9) if i != 4},
                        "test_value[4]": "failed", "test_skipped": "skipped",
                        "test_slow": "passed"}
    assert pool.mismatches() == []
    pool.results[str(tmp_path / "src/x_test.py")].pop("x_test.py::test_slow")  # a lost test
    assert pool.mismatches() == ["x_test.py: chunks collected [11] tests, ran 11, recorded 10"]
    assert sorted(n for _, n in pool.counts[
        str(tmp_path / "src/x_test.py")]) == [3, 4, 4]
    saved = json.loads((tmp_path / "r.json").read_text())["x_test.py"]
    assert (saved["chunks"], saved["chunks_done"], len(saved["tests"])) == (3, 3, 11)
    pool.save_times(str(tmp_path / "t.json"), {"y_test.py": 2.0})
    table = json.loads((tmp_path / "t.json").read_text())
    assert list(table) == ["x_test.py", "y_test.py"] and table["y_test.py"] == 2.0
    assert table["x_test.py"] == round(sum(pool.seconds[str(tmp_path / "src/x_test.py")]), 1)


def test_deadline_stops_running_chunks_and_keeps_what_finished(tmp_path, monkeypatch):
    pool, chunks = _pool(tmp_path, monkeypatch, sleep=60, kill_at=time.time() + 100, jobs=1)
    pool.last_start = 0

    def deadline_once_test_slow_runs():  # as a --deadline falling then, however loaded the host
        while not (tmp_path / "slow-started").exists():
            time.sleep(0.05)
        pool.kill_at = time.time()

    threading.Thread(target=deadline_once_test_slow_runs, daemon=True).start()
    start = time.time()
    results = pool.run(chunks)[str(tmp_path / "src/x_test.py")]
    assert time.time() - start < 50  # test_slow would sleep 60 s
    # Chunk 1 of 3 runs whole; chunk 2 (test_slow's) is stopped with the tests before test_slow
    # kept; chunk 3 never starts.
    assert {n.split("::")[1]: o for n, (o, _) in results.items()} == {
        "test_skipped": "skipped", "test_value[1]": "passed", "test_value[4]": "failed",
        "test_value[7]": "passed", "test_value[2]": "passed", "test_value[5]": "passed",
        "test_value[8]": "passed", "<rest of chunk 2/3>": "cut",
        "<not started: chunk 3/3>": "cut"}
    assert results["x_test.py::<rest of chunk 2/3>"][1] == "stopped at the --deadline"
    assert (pool.done, pool.cut, len(pool.unstarted)) == (2, 1, 1)
    saved = json.loads((tmp_path / "r.json").read_text())["x_test.py"]
    assert (saved["chunks_done"], len(saved["tests"])) == (2, 9)
    pool.save_times(str(tmp_path / "t.json"), {"x_test.py": 30.0})  # a cut file keeps its time
    assert json.loads((tmp_path / "t.json").read_text()) == {"x_test.py": 30.0}


def test_a_worker_that_dies_is_named_with_its_last_words(tmp_path, monkeypatch):
    pool, chunks = _pool(tmp_path, monkeypatch, sleep=0, jobs=1)
    (tmp_path / "src" / "x_test.py").write_text(
        "import faulthandler\n\ndef test_dies():\n    faulthandler._sigsegv()\n")
    results = pool.run(chunks[:1])[str(tmp_path / "src/x_test.py")]
    assert results == {"x_test.py::<rest of chunk 1/3>": (
        "error", "worker died (exit status -11): Fatal Python error: Segmentation fault")}
    assert (pool.done, pool.cut) == (1, 0)
