"""Every engine result that makes a discrete claim emits a certificate the checker accepts,
and the checker rejects it once the claim is changed."""

from __future__ import annotations

import copy

from logitgeom.geometry import argmaxable, ranking_pattern, sign_pattern
from logitgeom.geometry.grid import check_cell
from logitgeom_certificates.check import check

W = [[5, 0], [4, 4], [0, 2], [-4, 4], [-5, 0], [-4, -4], [4, -4]]  # Thm 5.5's W' (label 2 short)


def test_argmax_certificate_checks_and_tamper_is_rejected():
    res = argmaxable(W)
    assert 2 not in res.labels
    cert = res.certificate()
    assert check(cert).ok
    bad = copy.deepcopy(cert)
    part = bad["parts"][2]  # the part proving label 2 is never ranked first
    assert part["kind"] == "ranking-infeasible"
    part["W"][2] = ["0", "5"]  # label 2 back at full length: it can be ranked first again
    assert not check(bad).ok


def test_pattern_certificates_check():
    for res in (sign_pattern(W), ranking_pattern(W[:4]), ranking_pattern(W[:4], top=2)):
        assert check(res.certificate()).ok


def test_grid_cell_certificates_check_and_tamper_is_rejected():
    cell = check_cell([[1, 2], [-3, 1], [2, -1], [0, 1]])
    for claim in ("lemma-5.3", "thm-5.6"):
        cert = cell.certificate(claim)
        assert check(cert).ok, claim
        bad = copy.deepcopy(cert)
        bad["parts"][0]["W"][0][0] = "7"
        assert not check(bad).ok, claim
