"""Reproduce rows say what kind of evidence they are: CERTIFIED only with checked files."""

from __future__ import annotations

import json

import pytest

from logitgeom.reproduce import CLAIMS, Row, Status, reproduce
from logitgeom.reproduce.registry import claim


@pytest.fixture
def fake_claims():
    added = []

    def register(key, func):
        claim(key, "cosine", "test claim")(func)
        added.append(key)

    yield register
    for k in added:
        CLAIMS.pop(k, None)


def test_rows_resolve_to_evidence_kinds(tmp_path, fake_claims):
    from logitgeom import emit

    def with_cert(ctx):
        name = ctx.write_certificate("t-ok.json",
                                     emit.translation_certificate([[2, 1], [1, 3]], 0, 1, -1))
        return Row("with a file", "-", "exact", "ok", (name,), Status.PASS)

    def without(ctx):
        return Row("no file", "-", "float64, tolerance 1e-9", "ok", (), Status.PASS)

    def tampered(ctx):
        cert = emit.translation_certificate([[2, 1], [1, 3]], 0, 1, -1)
        cert["v"] = ["1", "0"]
        name = ctx.write_certificate("t-bad.json", cert)
        return Row("bad file", "-", "exact", "ok", (name,), Status.PASS)

    def measured(ctx):
        return Row("experiment", "-", "training", "delta 0.2", (), Status.MEASURED)

    for key, fn in (("zz-test-cert", with_cert), ("zz-test-none", without),
                    ("zz-test-bad", tampered), ("zz-test-measured", measured)):
        fake_claims(key, fn)
    rep = reproduce(tmp_path / "r", only="zz-test-", progress=False, log=False)
    got = {r.claim: r.status for r in rep.rows}
    assert got == {"with a file": Status.CERTIFIED, "no file": Status.COMPUTED,
                   "bad file": Status.FAIL, "experiment": Status.MEASURED}
    summary = (tmp_path / "r" / "SUMMARY.md").read_text()
    assert "4 rows: 1 CERTIFIED, 1 COMPUTED, 1 MEASURED, 1 FAIL" in summary
    assert "| PASS |" not in summary and "Statuses: CERTIFIED = " in summary


def test_no_certified_row_without_a_checked_file(tmp_path):
    rep = reproduce(tmp_path / "r", only="cos-lemma-3.2,cos-app-c.2,sym-deltas-planted,"
                    "sym-fig4-weekdays-gpt-oss-20b", progress=False, log=False)
    assert rep.ok
    allowed = {Status.CERTIFIED, Status.COMPUTED, Status.MEASURED, Status.NEEDS_WEIGHTS}
    record = json.loads((tmp_path / "r" / ".logitgeom-run").read_text())
    for key, r in zip(("cos-lemma-3.2", "cos-app-c.2", "sym-deltas-planted",
                       "sym-fig4-weekdays-gpt-oss-20b"), rep.rows, strict=True):
        assert r.status in allowed, r
        certs = record["rows"][key]["certificates"]
        assert (r.status is Status.CERTIFIED) == bool(certs), (key, r.status, certs)
        assert all(c in r.artifacts for c in certs)
    assert [r.status for r in rep.rows] == [Status.CERTIFIED, Status.CERTIFIED,
                                            Status.COMPUTED, Status.NEEDS_WEIGHTS]


def test_rows_of_optional_extras_are_skipped_with_a_line(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    rep = reproduce(tmp_path / "r", only="sym-trained-lm,sym-layer-peeled-gd", progress=False,
                    log=False)
    assert rep.ok and [r.status for r in rep.rows] == [Status.NEEDS_WEIGHTS] * 2
    assert all("skipped: the optional 'models' extra is not installed (torch missing"
               in r.result for r in rep.rows)
