"""Files and interruption: atomic writes, no silent overwrite, an
incomplete run is reported, ``--only`` merges, Ctrl-C ends workers at once."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from logitgeom._fsio import OutputError, check_writable, write_atomic
from logitgeom.cli.main import main as cli
from logitgeom.reproduce import reproduce
from logitgeom.reproduce.manifest import MANIFEST, RUN_RECORD

ONE = "cos-lemma-3.2"  # three translation certificates, well under a second
OTHER = "cos-lemma-3.1"


def test_write_atomic_failure_leaves_old_file_and_no_temporary(tmp_path, monkeypatch):
    p = tmp_path / "a.json"
    p.write_text("old\n")

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="No space left"):
        write_atomic(p, "new content that would be truncated\n")
    assert p.read_text() == "old\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.json"]


@pytest.mark.parametrize("make, match", [
    (lambda d: d / "missing" / "x.json", "does not exist"),
    (lambda d: d, "is a directory"),
    (lambda d: (d / "e.json", (d / "e.json").write_text("x"))[0], "exists; pass --force"),
])
def test_check_writable(tmp_path, make, match):
    with pytest.raises(OutputError, match=match):
        check_writable(make(tmp_path))


def test_only_merges_listing_and_summary(tmp_path):
    out = tmp_path / "run"
    assert reproduce(out, only=ONE, progress=False).ok
    listing = (out / MANIFEST).read_text()
    assert reproduce(out, only=OTHER, progress=False).ok
    assert (out / MANIFEST).read_text() == listing  # OTHER writes no certificate: kept
    summary = (out / "SUMMARY.md").read_text()
    assert "| Lemma 3.1 |" in summary and "| Lemma 3.2 |" in summary
    record = json.loads((out / RUN_RECORD).read_text())
    assert record["status"] == "complete" and set(record["rows"]) == {ONE, OTHER}


def test_never_overwrites_what_the_run_did_not_write(tmp_path, capsys):
    user = tmp_path / "mine"
    user.mkdir()
    (user / "SUMMARY.md").write_text("my notes\n")
    assert cli(["reproduce", "--out", str(user), "--only", ONE, "--no-progress"]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert (user / "SUMMARY.md").read_text() == "my notes\n"
    out = tmp_path / "run"
    assert cli(["reproduce", "--out", str(out), "--only", ONE, "--no-progress"]) == 0
    assert cli(["reproduce", "--out", str(out), "--only", ONE, "--no-progress"]) == 0  # rerun ok
    (out / "lemma-3.2-d2.json").write_text("edited by hand\n")
    assert cli(["reproduce", "--out", str(out), "--only", ONE, "--no-progress"]) == 2
    assert "changed since" in capsys.readouterr().err
    assert (out / "lemma-3.2-d2.json").read_text() == "edited by hand\n"
    assert cli(["reproduce", "--out", str(out), "--only", ONE, "--no-progress", "--force"]) == 0
    assert (out / "lemma-3.2-d2.json").read_text() != "edited by hand\n"


def test_interrupted_run_is_reported_incomplete(tmp_path, monkeypatch, capsys):
    from logitgeom.reproduce import registry

    def interrupted(ctx):
        ctx.write_json("results/partial.json", {"a": 1})
        raise KeyboardInterrupt

    monkeypatch.setitem(registry.CLAIMS, "zz-int", registry.Claim("zz-int", "cosine", interrupted))
    out = tmp_path / "run"
    assert reproduce(out, only=ONE, progress=False).ok
    with pytest.raises(KeyboardInterrupt):
        reproduce(out, only="zz-int", progress=False)
    record = json.loads((out / RUN_RECORD).read_text())
    assert record["status"] == "incomplete" and "results/partial.json" in record["files"]
    capsys.readouterr()
    assert cli(["check", *map(str, sorted(out.glob("*.json")))]) == 2
    assert "INCOMPLETE RUN" in capsys.readouterr().out
    assert reproduce(out, only=ONE, progress=False).ok  # resumes over its own files
    assert cli(["check", *map(str, sorted(out.glob("*.json")))]) == 0


def _sleep_then_mark(unit):
    seconds, marker = unit
    time.sleep(seconds)
    Path(marker).touch()  # only a unit that ran to its end leaves its marker
    return seconds


def test_ctrl_c_ends_pool_workers_at_once(tmp_path):
    """Ctrl-C during a pooled run ends the workers instead of waiting for their units:
    decided by which units ran to their end (no clock)."""
    from logitgeom.run.executor import process_pool, run_units

    pool = process_pool(2)
    units = [(0.05, str(tmp_path / "u0"))] + [(30.0, str(tmp_path / f"u{i}")) for i in range(1, 7)]
    it = run_units(_sleep_then_mark, units, executor=pool, progress=False)
    next(it)
    procs = list(pool._processes.values())
    with pytest.raises(KeyboardInterrupt):
        try:
            raise KeyboardInterrupt
        finally:
            it.close()
            pool.shutdown()  # during Ctrl-C: aborts instead of waiting for the 30 s units
    for proc in procs:
        proc.join()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["u0"]


def test_workers_never_nest():
    from logitgeom.run.executor import in_worker, process_pool

    with process_pool(1) as pool:
        assert pool.submit(in_worker).result() is True
    assert in_worker() is False


def test_check_json_and_output_conventions(tmp_path, capsys):
    root = Path(__file__).resolve().parent.parent
    valid = root / "certificates" / "examples" / "valid-sign-feasible.json"
    assert cli(["check", "--json", str(valid)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] == 1 and data["files"][0]["kind"] == "sign-feasible"
    out = tmp_path / "v.json"
    assert cli(["check", "--json", str(valid), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["exit_code"] == 0
    assert cli(["check", "--json", str(valid), "-o", str(out)]) == 2  # exists
    W = tmp_path / "W.csv"
    W.write_text("1,0\n0,1\n")
    for argv in (["patterns", "sign", str(W), "--no-progress"], ["count", "sign", str(W)]):
        target = tmp_path / f"{argv[0]}.json"
        assert cli([*argv, "-o", str(target)]) == 0
        assert cli([*argv, "--json", str(target)]) == 2  # the old spelling, same protection
        assert cli([*argv, "--out", str(target), "--force"]) == 0
        assert json.loads(target.read_text())["count"] == 4
    capsys.readouterr()
    assert cli(["count", "sign", str(W), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 4
