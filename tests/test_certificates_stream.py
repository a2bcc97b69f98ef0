"""pattern-complete-stream: streamed completeness certificates of result directories.

The stdlib checker verifies every twin shard line by line; tampered shards, hashes,
orders, buckets and counts are rejected."""

from __future__ import annotations

import gzip
import hashlib
import json
import os

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.emit import dumps, stream_certificate
from logitgeom.geometry import enumerate_to_dir, ranking_pattern, sign_pattern
from logitgeom_certificates.api import check_file
from logitgeom_certificates.check import check
from logitgeom_certificates.check_stream import shard_of

W = [[1, 0], [0, 1], [1, 1], [2, -1]]
B = [0, 1, -1, 2]


def _cert(tmp_path, kind="sign", bias=None, buckets=3):
    d = tmp_path / "R"
    enumerate_to_dir(W, d, kind=kind, bias=bias, progress=False)
    out = tmp_path / "cert.json"
    c = stream_certificate(d, out, buckets=buckets)
    out.write_text(dumps(c))
    return c, out


def _lines(path):
    with gzip.open(path, "rt") as fh:
        return [json.loads(line) for line in fh]


def _rewrite(tmp_path, c, s, lines, fix_hash=True):
    path = tmp_path / c["shards"][s]["file"]
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                mtime=0) as gz:
        for r in lines:
            gz.write((json.dumps(r, separators=(",", ":")) + "\n").encode())
    if fix_hash:
        c["shards"][s]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        c["shards"][s]["rows"] = len(lines)
    out = tmp_path / "cert.json"
    out.write_text(dumps(c))
    return check_file(out)


@pytest.mark.parametrize("kind,bias", [("sign", None), ("sign", B), ("ranking", None),
                                       ("ranking", B)])
def test_valid_and_same_set_as_in_memory(tmp_path, kind, bias):
    c, out = _cert(tmp_path, kind, bias)
    v = check_file(out)
    assert v.ok, v
    got = {tuple(r["pattern"]) for s in c["shards"] for r in _lines(tmp_path / s["file"])}
    ref = (sign_pattern if kind == "sign" else ranking_pattern)(W, bias=bias, progress=None)
    assert got == set(ref.patterns)


def test_byte_identical(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    c1, o1 = _cert(tmp_path / "a")
    c2, o2 = _cert(tmp_path / "b")
    assert o1.read_bytes() == o2.read_bytes()
    assert [(tmp_path / "a" / s["file"]).read_bytes() for s in c1["shards"]] == \
        [(tmp_path / "b" / s["file"]).read_bytes() for s in c2["shards"]]


def test_tampered(tmp_path):
    c, out = _cert(tmp_path)
    s = next(i for i, sh in enumerate(c["shards"]) if sh["rows"] >= 2)
    lines = _lines(tmp_path / c["shards"][s]["file"])
    # a changed witness, hash not updated: rejected (witness or file hash)
    bad = [dict(lines[0], witness=["1", "1"])] + lines[1:]
    assert not _rewrite(tmp_path, json.loads(json.dumps(c)), s, bad, fix_hash=False).ok
    # a wrong witness with a consistent hash
    v = _rewrite(tmp_path, json.loads(json.dumps(c)), s,
                 [dict(lines[0], witness=["0", "0"])] + lines[1:])
    assert v.failed_check == "witness"
    # a duplicated line
    v = _rewrite(tmp_path, json.loads(json.dumps(c)), s, [lines[0]] + lines)
    assert v.failed_check == "duplicate-pattern"
    # out of order
    v = _rewrite(tmp_path, json.loads(json.dumps(c)), s, lines[::-1])
    assert v.failed_check == "order"
    # a dropped line: the count no longer matches the Zaslavsky count
    v = _rewrite(tmp_path, json.loads(json.dumps(c)), s, lines[1:])
    assert v.failed_check == "count"
    # a line moved to another shard
    t = (s + 1) % len(c["shards"])
    other = _lines(tmp_path / c["shards"][t]["file"])
    assert shard_of(lines[0]["pattern"], len(c["shards"])) == s
    c2 = json.loads(json.dumps(c))
    _rewrite(tmp_path, c2, s, lines[1:])
    v = _rewrite(tmp_path, c2, t, sorted(other + [lines[0]],
                                         key=lambda r: tuple(r["pattern"])))
    assert v.failed_check == "shard"
    # fewer rows stated than the (untouched) shard holds
    (tmp_path / "f").mkdir()
    c3, out3 = _cert(tmp_path / "f")
    c3["shards"][0]["rows"] -= 1
    out3.write_text(dumps(c3))
    assert check_file(out3).failed_check == "count"


def test_missing_shard_and_schema(tmp_path):
    c, out = _cert(tmp_path)
    os.remove(tmp_path / c["shards"][0]["file"])
    assert check_file(out).failed_check == "file"
    assert check(dict(c, buckets=2)).failed_check == "shape"
    assert check(dict(c, extra=1)).failed_check == "schema"


def test_cli_from_dir(tmp_path):
    wf = tmp_path / "W.csv"
    wf.write_text("\n".join(",".join(map(str, r)) for r in W) + "\n")
    assert cli(["patterns", "ranking", str(wf), "--out", str(tmp_path / "R")]) == 0
    cert = tmp_path / "c.json"
    assert cli(["certify", "pattern", "--from", str(tmp_path / "R"), "-o", str(cert)]) == 0
    assert check_file(cert).ok
    assert cli(["check", str(cert)]) == 0


def test_certificate_outside_the_run_folder_is_refused_at_once(tmp_path, capsys):
    """The checker reads shards only inside the certificate's folder: a certificate written
    beside (not above) the run is refused before anything is written, not emitted and then
    reported as a bug by its own self-check."""
    wf = tmp_path / "W.csv"
    wf.write_text("\n".join(",".join(map(str, r)) for r in W) + "\n")
    assert cli(["patterns", "sign", str(wf), "--out", str(tmp_path / "R")]) == 0
    (tmp_path / "other").mkdir()
    capsys.readouterr()
    assert cli(["certify", "pattern", "--from", str(tmp_path / "R"), "-o",
                str(tmp_path / "other" / "c.json")]) == 2
    err = capsys.readouterr().err
    assert "inside its own folder" in err and "report" not in err
    assert not (tmp_path / "other" / "c.json").exists()
    inside = tmp_path / "R" / "c.json"  # in the run folder itself: fine
    assert cli(["certify", "pattern", "--from", str(tmp_path / "R"), "-o", str(inside)]) == 0
    assert check_file(inside).ok


def test_tampered_directory_is_not_called_a_bug(tmp_path, capsys):
    """A witness changed in a result directory's shard: certify --from refuses with a
    message naming the directory, never 'please report this bug'."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    wf = tmp_path / "W.csv"
    wf.write_text("\n".join(",".join(map(str, r)) for r in W) + "\n")
    assert cli(["patterns", "sign", str(wf), "--out", str(tmp_path / "R")]) == 0
    shard = sorted((tmp_path / "R" / "shards").glob("*.parquet"))[0]
    t = pq.read_table(shard)
    w = t.column("witness").to_pylist()
    w[0] = [-v for v in w[0]]  # the opposite region's witness
    t = t.set_column(t.schema.get_field_index("witness"), "witness",
                     pa.array(w, type=t.schema.field("witness").type))
    pq.write_table(t, shard)
    capsys.readouterr()
    cert = tmp_path / "c.json"
    assert cli(["certify", "pattern", "--from", str(tmp_path / "R"), "-o", str(cert)]) == 1
    err = capsys.readouterr().err
    assert "does not certify" in err and "please report" not in err
    assert not cert.exists()


def test_sample_and_workers_and_default_budget(tmp_path, capsys):
    """--sample N checks every line's structure and N witnesses (and says so); --workers 2
    gives the same verdict; the default budget accepts, a tiny explicit one does not."""
    c, out = _cert(tmp_path)
    from logitgeom_certificates.check import main

    assert main([str(out), "--workers", "2"]) == 0
    assert main([str(out), "--sample", "2"]) == 0
    assert "witnesses of 2 of" in capsys.readouterr().out
    assert main([str(out), "--max-work", "100"]) == 2
    # a wrong witness is found by the full check and by a sample that draws it
    s = next(i for i, sh in enumerate(c["shards"]) if sh["rows"] >= 1)
    lines = _lines(tmp_path / c["shards"][s]["file"])
    v = _rewrite(tmp_path, json.loads(json.dumps(c)), s,
                 [dict(lines[0], witness=["0", "0"])] + lines[1:])
    assert v.failed_check == "witness"
    assert main([str(tmp_path / "cert.json"), "--workers", "2"]) == 1
    total = sum(sh["rows"] for sh in c["shards"])
    assert main([str(tmp_path / "cert.json"), "--sample", str(total)]) == 1


def test_manifest_points_to_certify_from(tmp_path):
    d = tmp_path / "R"
    enumerate_to_dir(W, d, progress=False)
    v = check_file(d / "manifest.json")
    assert v.failed_check == "unsupported-format" and "certify pattern --from" in v.message


def test_self_check_bounds_the_work_of_a_full_check(tmp_path):
    """certify --from checks a sample of witnesses; the --max-work it would print bounds
    the metered work of the full check (sign vectors with an affine bias, and rankings)."""
    import json

    from logitgeom.certify.common import SelfCheck
    from logitgeom.certify.stream import self_check, stream_certificate
    from logitgeom.geometry import enumerate_to_dir
    from logitgeom_certificates.api import check_file

    W = [[3, -1, 2], [1, 4, -2], [-2, 1, 5], [5, 2, 1], [1, -3, -1]]
    for name, kw in (("s", {"bias": [1, -2, 0, 3, -1]}), ("r", {"kind": "ranking"})):
        r = enumerate_to_dir(W, tmp_path / name, progress=False, **kw)
        info: dict = {}
        path = tmp_path / f"{name}.json"
        cert = stream_certificate(r, path, report=info)
        path.write_text(json.dumps(cert))
        got: dict = {}
        v, bound = self_check(path, cert, info["witness_bits"], SelfCheck(0, 3), got)
        full = check_file(path, 1 << 62)
        assert v.ok and full.ok and got["sample"] == 3
        assert full.work <= bound
        assert v.work <= full.work
        v, bound = self_check(path, cert, info["witness_bits"], report=got)  # small: in full
        assert got["sample"] is None and v.ok and v.work == bound == full.work


def test_one_self_check_policy_for_audits_and_streams():
    """Issue 42: the audit and the streamed-set builders read the one policy record (no
    constants of their own), and it decides by the witnesses' checker work."""
    import inspect

    from logitgeom.audit import run
    from logitgeom.certify import stream
    from logitgeom.certify.common import SELF_CHECK, SelfCheck

    for module in (run, stream):
        src = inspect.getsource(module)
        assert "SELF_CHECK" in src and "SELF_CHECK_SAMPLE" not in src
        assert "SELF_CHECK_FULL" not in src
    assert inspect.signature(stream.self_check).parameters["policy"].default is SELF_CHECK
    p = SelfCheck(full_work=100, sample=8)
    assert p.witnesses(10, 10) is None and p.witnesses(11, 10) == 8
    assert p.witnesses(0, 10 ** 9) is None
    assert SelfCheck(full_work=0, sample=8).witnesses(5, 1) == 5
