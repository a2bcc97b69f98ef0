"""Streamed enumeration (logitgeom.geometry.stream): same answers as memory, any executor,
resumable after a kill, certified from the directory, tampering detected."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from logitgeom.errors import InvalidInput
from logitgeom.exact.lattice import count_regions_exact
from logitgeom.geometry import ranking_pattern, search, sign_pattern
from logitgeom.geometry.arrangement import exact as ex
from logitgeom.geometry.arrangement import float_ as fl
from logitgeom.geometry.stream import enumerate_to_dir, open_result

ROOT = Path(__file__).resolve().parents[1]
#: the killed runs import the code under test: the caller's path (a worktree's
#: build/typing), else the checkout (an installed package)
_PATH = os.environ.get("PYTHONPATH", str(ROOT))


def resonance(d: int) -> list[list[int]]:
    return [[int(c) for c in format(i, f"0{d}b")] for i in range(1, 2**d)]


def shard_bytes(res) -> list[bytes]:
    return [p.read_bytes() for p in res.shards()]


@pytest.mark.parametrize("seed", range(6))
def test_directory_equals_memory(tmp_path, seed):
    rng = np.random.default_rng(seed)
    k, d = int(rng.integers(2, 7)), int(rng.integers(1, 5))
    W = rng.integers(-2, 3, size=(k, d)).tolist()
    W[0] = [0] * d  # a zero row
    if k > 2:
        W[2] = list(W[1])  # a tie
    b = rng.integers(-2, 3, size=k).tolist() if seed % 2 else None
    for kind, f in (("sign", sign_pattern), ("ranking", ranking_pattern)):
        ref = f(W, bias=b)
        r = enumerate_to_dir(W, tmp_path / kind, kind=kind, bias=b, progress=False,
                             shard_rows=5)
        got = sorted(r)
        assert [p for p, _ in got] == list(ref.patterns)
        assert [w for _, w in got] == list(ref.witnesses)  # the same canonical witnesses
        assert r.count == len(r) == ref.count == r.exact_count and r.complete
        for p, w in zip(ref.patterns, ref.witnesses, strict=True):
            assert r.lookup(p) == w
        sample = r.sample(min(3, r.count), seed=1)
        assert all(r.lookup(p) == w for p, w in sample)


def test_finer_units_same_regions(tmp_path):
    W = resonance(5)
    coarse = enumerate_to_dir(W, tmp_path / "a", progress=False, shard_rows=2000)
    fine = enumerate_to_dir(W, tmp_path / "b", units=300, progress=False, shard_rows=2000)
    assert len(fine.manifest["units"]) >= 300
    assert max(len(p) for p in fine.manifest["units"]) >= 2  # split below the first level
    assert fine.count == coarse.count == 11292 and fine.certify()["ok"]
    assert [p for p, _ in sorted(fine)] == [p for p, _ in sorted(coarse)]
    durations = [v["seconds"] for v in fine.manifest["units_done"].values()]
    assert len(durations) == len(fine.manifest["units"]) and min(durations) >= 0


def test_constrained_regions_are_the_filtered_regions():
    rng = np.random.default_rng(3)
    for _ in range(20):
        rows = search.reduce_rows(rng.integers(-2, 3, size=(8, 5)).tolist()).hyperplanes
        if len(rows) < 3 or len(rows[0]) < 4:
            continue
        D = len(rows[0])
        A = ex.normals(rows)
        full = ex.dedupe(ex.fit(ex.regions(rows, D)), A)[1]
        assert len(full) == count_regions_exact(rows)
        cons = ((0, 1), (2, -1))
        part = ex.dedupe(ex.fit(ex.regions(rows, D, cons)), A)[1]
        want = {tuple(s) for s in full.tolist() if s[0] == 1 and s[2] == -1}
        assert {tuple(s) for s in part.tolist()} == want
        fpart = fl.regions(rows, D, cons)  # proposals: real regions once checked exactly
        S = ex.sign_matrix(np.rint(fpart * 2.0**52).astype(np.int64), A)
        kept = {tuple(s) for s in S.tolist() if 0 not in s and s[0] == 1 and s[2] == -1}
        assert kept <= want and len(kept) >= len(want) // 2


def test_unit_plans_cover_every_region():
    rng = np.random.default_rng(4)
    for target in (1, 10, 60):
        rows = search.reduce_rows(rng.integers(-3, 4, size=(10, 6)).tolist()).hyperplanes
        plan = search.plan_units(rows, target)
        assert plan == sorted(set(plan))
        seen = set()
        for path in plan:
            seen |= {tuple(s) for s in search._unit_job((rows, path, True))[1].tolist()}
        assert len(seen) == count_regions_exact(rows)


def test_bounded_memory_unit_rows_equal_the_unit_job():
    """The streamed units' rows (blocked lifts, packed de-duplication, blocked shrink with
    packed signs) are the in-memory unit job's rows, in the same order."""
    from logitgeom.geometry.arrangement import pack_signs

    rng = np.random.default_rng(5)
    old = (search.ROW_BLOCK, search.LIFT_BLOCK)
    try:
        search.ROW_BLOCK = search.LIFT_BLOCK = 7  # many blocks even on small units
        for _ in range(6):
            rows = search.reduce_rows(rng.integers(-3, 4, size=(11, 5)).tolist()).hyperplanes
            for path in search.plan_units(rows, 30)[::3]:
                for exact in (True, False):
                    P, S = search._unit_job((rows, path, exact))
                    Q, K = search.unit_rows(rows, path, exact)
                    assert np.array_equal(P, Q) and np.array_equal(pack_signs(S), K)
                    if P.dtype == np.int64 and len(P):
                        A = ex.normals(rows)
                        assert np.array_equal(search.shrink(P, S, A), search.shrink(P, K, A))
    finally:
        search.ROW_BLOCK, search.LIFT_BLOCK = old


def test_float_proposals_for_wide_integer_heads(tmp_path):
    """Entries of many bits in many dimensions: phase 1 proposes points in float64 (the
    exact twin's points outgrow int64), every sign and witness still exact."""
    W = np.random.default_rng(2).integers(-9, 10, size=(9, 5)).tolist()
    r = enumerate_to_dir(W, tmp_path, units=12, progress=False, shard_rows=50)
    assert r.manifest["mode"] == "float" and r.complete
    assert r.count == count_regions_exact(W) and r.certify()["ok"]
    assert {p for p, _ in r} == set(sign_pattern(W).patterns)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_serial_pool_and_dask_give_identical_bytes(tmp_path, dask_client):
    W = resonance(5)
    opts = {"units": 80, "shard_rows": 3000, "progress": False}
    serial = enumerate_to_dir(W, tmp_path / "serial", **opts)
    with ProcessPoolExecutor(2) as pool:
        pooled = enumerate_to_dir(W, tmp_path / "pool", executor=pool, **opts)
    dask = enumerate_to_dir(W, tmp_path / "dask", executor=dask_client, **opts)
    assert serial.manifest["buckets"] >= 3
    assert shard_bytes(serial) == shard_bytes(pooled) == shard_bytes(dask)
    assert sorted(serial) == sorted(dask)
    # the in-memory path accepts a Dask client too
    assert sign_pattern(resonance(4), executor=dask_client) == sign_pattern(resonance(4))


_KILLED_RUN = """
import signal
import sys
import time
# Ctrl-C as in a terminal, even when the test runner was started with SIGINT ignored (a
# background job of a non-interactive shell): the child would inherit SIG_IGN
signal.signal(signal.SIGINT, signal.default_int_handler)
from logitgeom.geometry.stream import enumerate_to_dir
W = [[int(c) for c in format(i, "06b")] for i in range(1, 64)][:KILL_ROWS]
enumerate_to_dir(W, sys.argv[1], units=KILL_UNITS, shard_rows=100_000, progress=False)
"""
#: The killed run: the first 36 hyperplanes of the resonance arrangement in R^6 (72,894
#: regions, about 6 s of CPU in about 200 units), big enough to be killed mid-run, small
#: enough that the two kill tests and their reference run take well under a minute.
KILL_ROWS, KILL_UNITS = 36, 200
_KILLED_RUN = _KILLED_RUN.replace("KILL_ROWS", str(KILL_ROWS)).replace("KILL_UNITS",
                                                                       str(KILL_UNITS))


def _kill_head() -> list[list[int]]:
    return resonance(6)[:KILL_ROWS]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("fresh")
    return enumerate_to_dir(_kill_head(), out, units=KILL_UNITS, shard_rows=5_000,
                            progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("step", ["phase1", "phase2", "certify"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_killed_run_resumes_to_the_same_result(tmp_path, sig, step, uninterrupted):
    out = tmp_path / "run"
    # the run kills itself once one task of the step are recorded (a deterministic point)
    env = {**os.environ, "PYTHONPATH": _PATH, "LOGITGEOM_STORE_KILL": f"{step}:1:{sig}"}
    proc = subprocess.run([sys.executable, "-c", _KILLED_RUN.replace("100_000", "5_000"),
                           str(out)], env=env, capture_output=True, timeout=300)
    assert proc.returncode != 0
    before = json.loads((out / "manifest.json").read_text())
    assert not before["complete"]
    if step == "phase1":
        recorded = before["units_done"]
        assert 0 < len(recorded) < len(before["units"]) and before["rows_written"] is None
    elif step == "phase2":
        recorded = before["buckets_done"]
        assert 0 < len(recorded) < before["buckets"] and before["rows_written"] is None
    else:
        recorded = before["certified"]
        assert 0 < len(recorded) < before["buckets"] and before["rows_written"] == 72894
    resumed = enumerate_to_dir(_kill_head(), out, units=KILL_UNITS, shard_rows=5_000,
                               progress=False)
    done = {"phase1": "units_done", "phase2": "buckets_done", "certify": "certified"}[step]
    for i, v in recorded.items():  # recorded tasks were not run again
        assert resumed.manifest[done][i] == v
    assert resumed.count == resumed.exact_count == 72894 and resumed.complete
    assert shard_bytes(resumed) == shard_bytes(uninterrupted)
    assert not (out / "work").exists()


_WAVE_RUN = _KILLED_RUN.replace("100_000", "5_000").replace(
    "from logitgeom.geometry.stream import enumerate_to_dir",
    "import logitgeom.geometry.stream.plan as P\nP.WAVE_REGIONS = 20_000\n"
    "from logitgeom.geometry.stream import enumerate_to_dir")


@pytest.mark.slow
@pytest.mark.parametrize("kill", ["merge:1", "merge:3", "phase1:5"])
def test_killed_wave_run_resumes_to_the_same_result(tmp_path, kill, uninterrupted,
                                                    monkeypatch):
    """Phase 1 in waves (each wave's files merged into the earlier waves' merged files and
    deleted before the next wave): killed inside a merge or in a later wave, resumed, the
    same shards as an uninterrupted run in one wave."""
    import logitgeom.geometry.stream.plan as plan

    monkeypatch.setattr(plan, "WAVE_REGIONS", 20_000)
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": _PATH, "LOGITGEOM_STORE_KILL": f"{kill}:9"}
    proc = subprocess.run([sys.executable, "-c", _WAVE_RUN, str(out)], env=env,
                          capture_output=True, timeout=300)
    assert proc.returncode != 0
    before = json.loads((out / "manifest.json").read_text())
    assert len(before["waves"]) == 5 and not before["complete"]
    for lo, hi in before["waves"][:before["waves_merged"]]:  # merged waves: files gone
        assert not any((out / "work" / f"b{i:06d}.bin").exists() for i in range(lo, hi))
    resumed = enumerate_to_dir(_kill_head(), out, units=KILL_UNITS, shard_rows=5_000,
                               progress=False)
    assert resumed.manifest["waves_merged"] == 4
    assert resumed.count == resumed.exact_count == 72894 and resumed.complete
    assert shard_bytes(resumed) == shard_bytes(uninterrupted)
    assert not (out / "work").exists()


def test_resume_of_a_finished_run_does_nothing(tmp_path):
    W = resonance(4)
    a = enumerate_to_dir(W, tmp_path, progress=False)
    stamp = [p.stat().st_mtime_ns for p in a.shards()]
    b = enumerate_to_dir(W, tmp_path, progress=False)
    assert [p.stat().st_mtime_ns for p in b.shards()] == stamp and b.count == 370
    with pytest.raises(InvalidInput, match="another input"):
        enumerate_to_dir([[1, 0], [0, 1]], tmp_path, progress=False)


def _rewrite(path: Path, fn) -> None:
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


def test_certify_rejects_tampered_directories(tmp_path):
    W = resonance(4)
    good = enumerate_to_dir(W, tmp_path / "d", progress=False, shard_rows=100)
    assert good.certify()["ok"]
    shard = good.shards()[0]
    orig = shard.read_bytes()

    def bad_witness(t):
        w = t.column("witness").combine_chunks()
        vals = w.values.to_numpy().copy()
        vals[0] = -vals[0] if vals[0] else 1
        return t.set_column(1, "witness", pa.FixedSizeListArray.from_arrays(
            pa.array(vals), w.type.list_size))

    for fn, why in ((bad_witness, "witness"), (lambda t: t.slice(1), "count"),
                    (lambda t: pa.concat_tables([t, t.slice(0, 1)]), "increasing")):
        _rewrite(shard, fn)
        v = open_result(tmp_path / "d").certify()
        assert not v["ok"] and why in v["failed"], (why, v)
        shard.write_bytes(orig)
    assert open_result(tmp_path / "d").certify()["ok"]
    shard.unlink()
    assert "missing" in open_result(tmp_path / "d").certify()["failed"]


def test_resuming_a_tampered_directory_says_so(tmp_path):
    """A run directory changed after the run started (its recorded count, or a shard of a
    run not yet certified) is reported as changed or damaged, never as an engine bug."""
    import json

    from logitgeom.errors import InvalidInput

    W = resonance(4)
    enumerate_to_dir(W, tmp_path / "d", progress=False, shard_rows=100)
    mpath = tmp_path / "d" / "manifest.json"
    man = json.loads(mpath.read_text())
    man.update(complete=False, completeness=None, certified={},
               exact_count=man["exact_count"] + 1)
    mpath.write_text(json.dumps(man))
    with pytest.raises(InvalidInput, match="changed or damaged") as exc:
        enumerate_to_dir(W, tmp_path / "d", progress=False, shard_rows=100)
    assert "please report" not in str(exc.value)
    enumerate_to_dir(W, tmp_path / "e", progress=False, shard_rows=100)
    mpath = tmp_path / "e" / "manifest.json"
    man = json.loads(mpath.read_text())
    man.update(complete=False, completeness=None, certified={})
    mpath.write_text(json.dumps(man))
    shard = open_result(tmp_path / "e").shards()[0]
    _rewrite(shard, lambda t: t.slice(1))
    with pytest.raises(InvalidInput, match="changed or damaged") as exc:
        enumerate_to_dir(W, tmp_path / "e", progress=False, shard_rows=100)
    assert "please report" not in str(exc.value)


def test_cli_out(tmp_path):
    np.savetxt(tmp_path / "W.csv", np.array(resonance(3)), fmt="%d", delimiter=",")
    cmd = [sys.executable, "-m", "logitgeom.cli.main", "patterns", "sign", str(tmp_path / "W.csv"),
           "--out", str(tmp_path / "o"), "--workers", "2", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "count: 32" in p.stdout and "complete: True" in p.stdout
    r = open_result(tmp_path / "o")
    assert r.count == 32 and r.certify()["ok"]
    bad = subprocess.run(cmd[:4] + ["ranking", str(tmp_path / "W.csv"), "--top", "1",
                                    "--out", str(tmp_path / "p")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "--top" in bad.stderr


def test_in_memory_results_are_compact():
    W = resonance(5)
    r = sign_pattern(W)
    assert "patterns" not in vars(r) and "witnesses" not in vars(r)  # nothing built yet
    assert r.pattern_source.nbytes / r.count <= 64  # 8: one uint64 word per region
    assert r.witness_source.words.nbytes / r.count <= 8
    assert r.pattern_array().shape == (11292, 31) and len(r.patterns) == r.count
    rk = ranking_pattern(np.eye(6, dtype=int).tolist())
    assert rk.pattern_source.labels.dtype == np.uint8 and rk.count == 720
    assert rk.patterns[0] == (0, 1, 2, 3, 4, 5)


@pytest.mark.slow
def test_dask_scheduler_and_worker_on_localhost(tmp_path):
    """A `dask scheduler` and a `dask worker` started as processes on 127.0.0.1: the same
    bytes as a serial run, and both stop cleanly (no worker killed after a timeout)."""
    distributed = pytest.importorskip("distributed")
    dask_cli = Path(sys.executable).with_name("dask")
    if not dask_cli.exists():
        pytest.skip("no dask command next to this Python")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sfile = tmp_path / "scheduler.json"
    sched = subprocess.Popen([str(dask_cli), "scheduler", "--host", "127.0.0.1", "--port", "0",
                              "--no-dashboard", "--scheduler-file", str(sfile)],
                             env=env, stdout=subprocess.DEVNULL,
                             stderr=open(tmp_path / "scheduler.log", "w"))
    worker = None
    try:
        for _ in range(600):
            if sfile.exists() and sfile.stat().st_size:
                break
            time.sleep(0.1)
        worker = subprocess.Popen([str(dask_cli), "worker", "--scheduler-file", str(sfile),
                                   "--host", "127.0.0.1", "--nworkers", "2", "--nthreads", "1",
                                   "--no-dashboard"],
                                  env=env, stdout=subprocess.DEVNULL,
                                  stderr=open(tmp_path / "worker.log", "w"))
        client = distributed.Client(scheduler_file=str(sfile), timeout=120)
        try:
            client.wait_for_workers(2, timeout=120)
            W = resonance(5)
            opts = {"units": 40, "shard_rows": 3000, "progress": False}
            remote = enumerate_to_dir(W, tmp_path / "remote", executor=client, **opts)
            serial = enumerate_to_dir(W, tmp_path / "serial", **opts)
            assert shard_bytes(remote) == shard_bytes(serial) and remote.complete
        finally:
            client.close()
        worker.send_signal(signal.SIGTERM)  # what a cluster manager sends: a clean stop
        worker.wait(120)
        sched.send_signal(signal.SIGTERM)
        sched.wait(120)
        logs = (tmp_path / "scheduler.log").read_text() + (tmp_path / "worker.log").read_text()
        assert "still alive" not in logs and "Traceback" not in logs
    finally:
        for p in (worker, sched):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_blocked_float_and_exact_dedupe_equal_the_whole_product(monkeypatch):
    """``dedupe_with`` in blocks of rows (bounded memory) keeps the same rows, in the same
    order, with the same signs, as one product of the whole point set (both twins)."""
    from logitgeom.geometry.arrangement import _common

    rng = np.random.default_rng(11)
    for _ in range(5):
        rows = search.reduce_rows(rng.integers(-3, 4, size=(9, 4)).tolist()).hyperplanes
        P = np.concatenate([fl.regions(rows, 4)] * 3)  # duplicates across blocks
        P = np.concatenate([P, np.zeros((2, 4))])  # points on every hyperplane
        for tw, X in ((fl, P), (ex, np.rint(P * 64).astype(np.int64))):
            A = tw.normals(rows)
            monkeypatch.setattr(_common, "DEDUPE_BLOCK", 1 << 20)
            whole = tw.dedupe(X, A)
            monkeypatch.setattr(_common, "DEDUPE_BLOCK", 5)
            blocked = tw.dedupe(X, A)
            assert all(np.array_equal(a, b) for a, b in zip(whole, blocked, strict=True))


def test_small_flushes_and_task_memory(tmp_path, monkeypatch):
    """A batch flushed in slices smaller than a unit writes other frames but the same
    shards; every step records the peak memory of its tasks."""
    import logitgeom.geometry.stream.plan as plan

    W = resonance(5)
    a = enumerate_to_dir(W, tmp_path / "a", units=12, progress=False)
    monkeypatch.setattr(plan, "FLUSH_ROWS", 7)
    b = enumerate_to_dir(W, tmp_path / "b", units=12, progress=False)
    assert shard_bytes(a) == shard_bytes(b) and b.complete
    for step in ("phase1", "phase2", "certify"):
        assert b.manifest["steps"][step]["max_task_rss_mb"] > 0
    assert all(v["maxrss_kb"] > 0 for v in b.manifest["certified"].values())
    # in worker processes each task's peak is its own: at least its start, recorded
    from logitgeom.run.executor import process_pool

    with process_pool(2) as pool:
        c = enumerate_to_dir(W, tmp_path / "c", units=12, progress=False, executor=pool)
    assert shard_bytes(c) == shard_bytes(a)
    for v in c.manifest["batches_done"].values():
        assert v["maxrss_mb"] > 0 and 0 <= v["added_mb"] <= v["maxrss_mb"]
    assert c.manifest["steps"]["phase1"]["max_task_added_mb"] >= 0
