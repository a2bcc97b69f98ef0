"""The real-model rows on spaCy's en_core_web_sm (the ``spacy`` extra), and their skip line."""

from __future__ import annotations

import pytest

from logitgeom.reproduce import Status, reproduce


def test_without_the_extra_the_rows_are_skipped_with_a_clear_line(tmp_path, monkeypatch):
    import logitgeom.models.spacy_heads as sh

    monkeypatch.setattr(sh, "spacy_package", lambda: None)
    rep = reproduce(tmp_path / "r", only="real-spacy", progress=False, log=False)
    assert rep.ok and [r.status for r in rep.rows] == [Status.NEEDS_WEIGHTS] * 3
    assert all("skipped: the optional 'spacy' extra is not installed" in r.result
               for r in rep.rows)


@pytest.mark.slow
def test_spacy_rows_run_and_are_byte_identical(tmp_path):
    pytest.importorskip("spacy")
    from logitgeom.models.spacy_heads import spacy_layers, spacy_package

    if spacy_package() is None:
        pytest.skip("en_core_web_sm is not installed (the 'spacy' extra)")
    _, _, layers = spacy_layers()
    shapes = {L.name: (L.W.shape, L.H.shape[1], L.agrees) for L in layers}
    assert shapes == {"tagger": ((50, 96), 96, True), "parser": ((106, 64), 64, True),
                      "ner": ((74, 64), 64, True)}
    a = reproduce(tmp_path / "a", only="real-spacy", progress=False, log=False)
    reproduce(tmp_path / "b", only="real-spacy", progress=False, log=False)
    assert a.ok and a.certificates_checked == 3 and not a.certificates_invalid
    assert all(r.status is Status.MEASURED and "(real model)" in r.claim for r in a.rows)
    names = [p.name for p in (tmp_path / "a").rglob("*") if p.is_file()]
    assert len(names) > 8
    for p in (tmp_path / "a").rglob("*"):
        if p.is_file():
            q = tmp_path / "b" / p.relative_to(tmp_path / "a")
            assert p.read_bytes() == q.read_bytes(), p.name
