"""chi(t) by flat orbits over workers and resumable (issue 46, item 2): the same chi, orbit
statistics and levels (in the same order) whatever the executor; a run killed part way
resumes from its state folder with the same chi; another group never reuses a folder;
the CLI options honoured by --method orbits and refused by the methods that ignore them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.geometry import flatorbits, flatsteps
from logitgeom.geometry.chipoly import characteristic_polynomial
from logitgeom.geometry.families import (
    CATALAN,
    RESONANCE_REGIONS,
    catalan_count,
    circulant,
    deformation,
    resonance,
)
from logitgeom.run.executor import process_pool

S6 = [[1, 2, 3, 4, 5, 0], [1, 0, 2, 3, 4, 5]]  # the coordinate group S_6


def _heads():
    """Resonance n = 5 (sign), a circulant head of 8 labels (rankings), Catalan n = 6
    with S_6 given: (name, keyword arguments, regions)."""
    W, b = deformation(6, CATALAN)
    return [("resonance-5", {"W": resonance(5)}, RESONANCE_REGIONS[5]),
            ("circulant-8", {"W": circulant([3, 1, 0, -1, 2, 7, 4, 9]), "ranking": True},
             40320),
            ("catalan-6", {"W": W, "bias": b, "group": S6}, catalan_count(6))]


def _levels(monkeypatch):
    """Record every level built (least image -> closed set, restricted normals, orbit
    size), in order."""
    seen: list = []
    build = flatorbits._Run.level

    def record(self, reps, found):
        level = build(self, reps, found)
        seen.append(list(level.items()))
        return level

    monkeypatch.setattr(flatorbits._Run, "level", record)
    return seen


def _orbits(kw, **more):
    kw = dict(kw)
    return characteristic_polynomial(kw.pop("W"), method="orbits", **kw, **more)


def _same(p, q):
    assert p.coefficients == q.coefficients
    for key in ("orbits", "flats", "least_images", "group_order"):
        assert p.stats[key] == q.stats[key], key


def test_process_pool_gives_the_serial_chi_levels_and_orbits(monkeypatch):
    """Two worker processes: the same chi, orbits, orbit sizes and least-image searches,
    and every level (representatives, restricted normals, orbit sizes) in the same order
    as the serial run's."""
    seen = _levels(monkeypatch)
    with process_pool(2) as pool:
        for _, kw, regions in _heads():
            seen.clear()
            p = _orbits(kw)
            serial = list(seen)
            seen.clear()
            q = _orbits(kw, executor=pool)
            assert p.regions == regions
            _same(p, q)
            assert seen == serial and len(serial) == len(p.stats["orbits"]) + 1  # and []


def test_dask_local_cluster_gives_the_serial_chi():
    """A Dask LocalCluster of two workers: the serial chi; past the budget a refusal."""
    pytest.importorskip("distributed")
    from logitgeom.run.executor import close_executor, make_executor

    name, kw, regions = _heads()[0]
    client = make_executor(2, "local")
    try:
        p = _orbits(kw, executor=client)
        with pytest.raises(TooLarge, match="flat orbits and restrictions"):
            _orbits(kw, executor=client, budget=20)
    finally:
        close_executor(client)
    assert p.regions == regions
    _same(p, _orbits(kw))


def test_units_return_none_past_the_budget():
    """A unit past its budget returns None for the driver to raise (raised in a Dask
    worker, it would be logged there as a failed task with its traceback)."""
    from logitgeom.geometry.permchain import StabilizerChain

    chain = StabilizerChain([(1, 0, 2)], 3)
    reps = [((), [[0], [1], [2]])]
    assert flatsteps._extend_unit((chain, reps, 0, None, None))[1] == 3
    assert flatsteps._extend_unit((chain, reps, 0, 2, None)) is None
    assert flatsteps._extend_unit((chain, reps, 0, None, 1)) is None
    jobs = [(1, [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1)], 4,
             None)]
    assert flatsteps._terms_unit(("t", jobs, 5, None, None)) is not None
    assert flatsteps._terms_unit(("u", jobs, 5, 0, None)) is None


class _Killed(Exception):
    pass


def _kill_at(monkeypatch, spec):
    """The engine's kill hook, sending SIGUSR1 at a chosen point; this test turns the
    signal into an exception (the run stops there, as a killed one would)."""
    def handler(signum, frame):
        raise _Killed

    old = signal.signal(signal.SIGUSR1, handler)
    monkeypatch.setenv("LOGITGEOM_STORE_KILL", f"{spec}:{int(signal.SIGUSR1)}")
    return old


@pytest.mark.parametrize(("spec", "workers"), [("orbits-level:3", 1), ("orbits:5", 2)])
def test_killed_run_resumes_with_the_same_chi(tmp_path, monkeypatch, spec, workers):
    """Killed after the level of rank 3 is written (serial), or after 5 chunks of terms
    (two workers); the rerun reads them back and gives the same chi."""
    name, kw, regions = _heads()[0]
    want = _orbits(kw)
    old = _kill_at(monkeypatch, spec)
    try:
        with pytest.raises(_Killed):
            if workers == 1:
                _orbits(kw, state_dir=tmp_path)
            else:
                with process_pool(workers) as pool:
                    _orbits(kw, executor=pool, state_dir=tmp_path)
    finally:
        signal.signal(signal.SIGUSR1, old)
    monkeypatch.delenv("LOGITGEOM_STORE_KILL")
    (folder,) = tmp_path.glob("orbits-*")
    assert [p.name for p in folder.glob("level-*.json")] == ["level-3.json"]
    p = _orbits(kw, state_dir=tmp_path)
    _same(p, want)
    assert p.stats["resumed_rank"] == 3
    if spec == "orbits:5":  # 5 chunks of rank 3's terms were kept
        assert p.stats["resumed_units"] == 5
    again = _orbits(kw, state_dir=tmp_path)  # finished: the last level and its terms kept
    _same(again, want)
    assert again.stats["resumed_rank"] == len(want.stats["orbits"])


def test_killed_extension_resumes_from_its_chunks(tmp_path, monkeypatch):
    """Resonance n = 6 on two workers killed after 8 of the 11 chunks of the extension of
    rank 4 (164 representatives): the rerun (serial) reads the 8 back, extends the rest and
    gives the same chi, orbits and least-image count."""
    W = resonance(6)
    want = characteristic_polynomial(W, method="orbits")
    old = _kill_at(monkeypatch, "orbits-extend:8")
    try:
        with pytest.raises(_Killed), process_pool(2) as pool:
            characteristic_polynomial(W, method="orbits", state_dir=tmp_path, executor=pool)
    finally:
        signal.signal(signal.SIGUSR1, old)
    monkeypatch.delenv("LOGITGEOM_STORE_KILL")
    assert len(list(tmp_path.glob("orbits-*/extend-4-*.json"))) == 8
    p = characteristic_polynomial(W, method="orbits", state_dir=tmp_path)
    _same(p, want)
    assert p.stats["resumed_rank"] == 4 and p.stats["resumed_extend_units"] == 8


def test_budget_stop_keeps_work_and_is_honoured_with_workers(tmp_path):
    name, kw, regions = _heads()[0]
    with process_pool(2) as pool:
        with pytest.raises(TooLarge, match="flat orbits and restrictions"):
            _orbits(kw, executor=pool, budget=20)
        assert _orbits(kw, executor=pool, budget=200).regions == regions
    with pytest.raises(TooLarge, match="flat orbits and restrictions"):
        _orbits(kw, budget=60, state_dir=tmp_path)
    assert list(tmp_path.glob("orbits-*/level-*.json"))  # the levels found are kept
    p = _orbits(kw, state_dir=tmp_path)
    assert p.regions == regions and p.stats["resumed_rank"] > 0


def test_another_group_does_not_reuse_a_state(tmp_path):
    W = resonance(5)
    p = characteristic_polynomial(W, method="orbits", state_dir=tmp_path)
    q = characteristic_polynomial(W, method="orbits", state_dir=tmp_path,
                                  group=[[1, 2, 3, 4, 0]])
    assert q.stats["resumed_rank"] == 0 and q.stats["resumed_units"] == 0
    assert q.stats["group_order"] == 5 and p.stats["group_order"] == 120
    assert q.coefficients == p.coefficients
    assert len(list(tmp_path.glob("orbits-*"))) == 2
    r = characteristic_polynomial(W, method="orbits", state_dir=tmp_path,
                                  group=[[1, 2, 3, 4, 0]])
    assert r.stats["resumed_rank"] > 0 and r.coefficients == p.coefficients


def test_a_damaged_state_file_is_refused_by_name(tmp_path):
    W = resonance(4)
    characteristic_polynomial(W, method="orbits", state_dir=tmp_path)
    (level,) = tmp_path.glob("orbits-*/level-*.json")
    level.write_text('{"rank": 4}')
    with pytest.raises(InvalidInput, match=f"{level.name} is not a state file of this count"):
        characteristic_polynomial(W, method="orbits", state_dir=tmp_path)


def test_one_run_at_a_time_writes_a_state_folder(tmp_path):
    from logitgeom._fsio import OutputError, folder_lock

    W = resonance(4)
    characteristic_polynomial(W, method="orbits", state_dir=tmp_path)
    (f,) = tmp_path.glob("orbits-*")
    with folder_lock(f), pytest.raises(OutputError, match="another logitgeom run"):
        characteristic_polynomial(W, method="orbits", state_dir=tmp_path)


def test_worker_options_refused_where_not_honoured():
    for method, ranking in (("nbc", False), ("partitions", True)):
        with pytest.raises(InvalidInput, match="'restriction' and 'orbits' only"):
            characteristic_polynomial(resonance(3), method=method, ranking=ranking,
                                      state_dir="x")


def test_cli_workers_state_and_refusals(tmp_path, capsys):
    from logitgeom.cli.main import main

    w = tmp_path / "w.json"
    w.write_text(json.dumps(resonance(5)))
    state = tmp_path / "state"
    argv = ["count", "sign", str(w), "--method", "orbits", "--workers", "2", "--state",
            str(state)]
    assert main(argv + ["--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == RESONANCE_REGIONS[5]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("11292 sign patterns") and "resumed from" in out
    assert main(argv[:-2] + ["--max-work", "20"]) == 2  # honoured with workers
    assert "flat orbits and restrictions" in capsys.readouterr().err
    for method in ("nbc", "partitions"):
        assert main(["count", "ranking", str(w), "--method", method, "--workers", "2"]) == 2
        err = capsys.readouterr().err
        assert f"apply to --method restriction or orbits, not {method}" in err
        assert len(err.strip().splitlines()) == 1


def test_cli_killed_by_sigkill_resumes(tmp_path):
    """A real kill (SIGKILL from the kill hook, workers dying with the parent) after the
    second chunk of terms; the rerun says what it read back and gives the count."""
    w = tmp_path / "w.json"
    w.write_text(json.dumps(resonance(5)))
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "logitgeom", "count", "sign", str(w), "--method", "orbits",
            "--workers", "2", "--state", str(state)]
    env = dict(os.environ, LOGITGEOM_STORE_KILL=f"orbits:2:{int(signal.SIGKILL)}")
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == -signal.SIGKILL
    assert len(list(state.glob("orbits-*/terms-3-*.json"))) == 2
    second = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("11292 sign patterns")
    assert "the orbits of rank 3, 2 chunks of their terms and 0 of their extension were " \
        "read back" in second.stdout


def test_chunked_extension_merges_to_the_serial_level():
    """Every split of a level's representatives into consecutive chunks (1 to 9 of them),
    extended apart and merged, gives the serial children in the serial order, with the
    same parents, stabiliser orders and search count (resonance 5 under S_5, rank 2 to 3,
    and a circulant ranking head under its cyclic group, rank 3 to 4)."""
    from logitgeom.geometry.chipoly import arrangement_normals
    from logitgeom.geometry.headgroup import hyperplane_permutations
    from logitgeom.geometry.permchain import StabilizerChain

    for W, ranking, rank in ((resonance(5), False, 2),
                             (circulant([3, 1, 0, -1, 2, 7, 4, 9]), True, 3)):
        vecs, dim, _ = arrangement_normals(W, ranking=ranking)
        d = len(W[0])
        gens = hyperplane_permutations(vecs, d, False, [list(range(1, d)) + [0]])
        chain = StabilizerChain(gens, len(vecs))
        run = flatorbits._Run(chain, dim, 2, None, {}, None, None, None, None, "t")
        level = {(): ((), dict(enumerate(vecs)), 1)}
        for r in range(rank):
            level = run.extend(level, r)
        classes = []
        for c, imgs, _ in level.values():
            groups: dict = {}
            for j, v in imgs.items():
                groups.setdefault(v, []).append(j)
            classes.append((c, list(groups.values())))
        serial, searches = flatsteps._extend(chain, classes, 0, None, None)
        assert len(serial) > 10
        for k in range(1, 10):
            parts = [flatsteps._extend(chain, classes[a:z], a, None, None)
                     for a, z in flatsteps._chunks(len(classes), k)]
            assert list(flatsteps._merge([p for p, _ in parts]).items()) == \
                list(serial.items())
            assert sum(s for _, s in parts) == searches


def test_chunks_are_fixed_by_the_orbits_alone():
    assert flatsteps._chunks(5, 64) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    b = flatsteps._chunks(130, 64)
    assert len(b) == 64 and b[0][0] == 0 and b[-1][1] == 130
    assert all(x[1] == y[0] for x, y in zip(b, b[1:], strict=False))


@pytest.mark.parametrize("low", [0, 1, 2])
def test_every_low_rank_formula_on_workers(low):
    """The plain formula and both low-rank ones give the serial chi over workers (threads
    here: the chunking, not the processes, is what is tested)."""
    from concurrent.futures import ThreadPoolExecutor

    from logitgeom.exact.restriction import chi_restriction
    from logitgeom.geometry.chipoly import arrangement_normals
    from logitgeom.geometry.headgroup import hyperplane_permutations

    vecs, dim, _ = arrangement_normals(resonance(5))
    gens = hyperplane_permutations(vecs, 5, False, [[1, 2, 3, 4, 0], [1, 0, 2, 3, 4]])
    with ThreadPoolExecutor(2) as ex:
        got = flatorbits.chi_flat_orbits(vecs, dim, gens, low=low, executor=ex)
    assert got == chi_restriction(vecs, dim)


def test_progress_stops_a_run_on_workers():
    """``progress`` is called after each finished unit with an executor, and raising in it
    stops the count (the pending units cancelled)."""
    from concurrent.futures import ThreadPoolExecutor

    from logitgeom.geometry.chipoly import arrangement_normals
    from logitgeom.geometry.headgroup import hyperplane_permutations

    vecs, dim, _ = arrangement_normals(resonance(5))
    gens = hyperplane_permutations(vecs, 5, False, [[1, 2, 3, 4, 0]])
    calls = []

    def progress(stage, rank, done, of):
        calls.append((stage, rank, done, of))
        if stage == "extend" and rank == 2:
            raise _Killed

    with ThreadPoolExecutor(2) as ex, pytest.raises(_Killed):
        flatorbits.chi_flat_orbits(vecs, dim, gens, executor=ex, progress=progress)
    assert calls[0][0] == "extend" and calls[-1][:2] == ("extend", 2)
    assert all(done <= of for _, _, done, of in calls)
