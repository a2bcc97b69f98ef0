"""chi(t) of sign and ranking arrangements (issue 46): both algorithms, the finite-field
method, enumeration, the published formulas, resume after a stop, and the command line."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from math import comb, factorial

import pytest

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.finite_field import chi_at_prime, good_primes
from logitgeom.exact.lattice import evaluate
from logitgeom.exact.restriction import chi_restriction
from logitgeom.geometry import count_rankings, count_regions, ranking_pattern, sign_pattern
from logitgeom.geometry.chipoly import arrangement_normals, characteristic_polynomial
from logitgeom.geometry.families import (
    CATALAN,
    LINIAL,
    RESONANCE_REGIONS,
    SEMIORDER,
    SHI,
    catalan_count,
    circulant,
    deformation,
    linial_count,
    resonance,
    semiorder_count,
    shi_count,
    simplex_etf,
)


def _heads(seed, count=12):
    rng = random.Random(f"chipoly/{seed}")
    for _ in range(count):
        k, d = rng.randint(2, 6), rng.randint(1, 4)
        W = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(k)]
        b = [rng.randint(-2, 2) for _ in range(k)] if rng.random() < 0.5 else None
        yield W, b


@pytest.mark.parametrize("ranking", [False, True])
def test_both_algorithms_agree_and_equal_the_count(ranking):
    for W, b in _heads(int(ranking)):
        p = characteristic_polynomial(W, bias=b, ranking=ranking, crosscheck=["nbc"])
        q = characteristic_polynomial(W, bias=b, ranking=ranking, method="nbc",
                                      crosscheck=["nbc"])
        assert p.coefficients == q.coefficients and p.checks == ("nbc",)
        assert q.checks == ("restriction",)
        assert p.regions == (count_rankings if ranking else count_regions)(W, bias=b)
        assert p.coefficients[-1] == 1 and len(p.coefficients) == len(W[0]) + 1


def test_counts_equal_the_enumeration():
    for W, b in _heads(7, 8):
        assert characteristic_polynomial(W, bias=b).regions == sign_pattern(W, bias=b).count
        assert (characteristic_polynomial(W, bias=b, ranking=True).regions
                == ranking_pattern(W, bias=b).count)


def test_finite_field_method_agrees():
    done = 0
    for W, b in _heads(3, 30):
        if len(W[0]) + (b is not None) > 3:
            continue  # the point count costs about m q^(d-1)
        p = characteristic_polynomial(W, bias=b, crosscheck=["field"], primes=2)
        assert len(p.checks) == 2 and all(c.startswith("field q=") for c in p.checks)
        done += 1
    assert done >= 5
    vecs, dim, _ = arrangement_normals(resonance(4))
    q = good_primes(vecs, dim, 1)[0]
    assert chi_at_prime(vecs, dim, q) == evaluate(chi_restriction(vecs, dim), q)
    with pytest.raises(InvalidInput, match="prime above"):
        chi_at_prime(vecs, dim, 4)


def test_whitney_betti_bounded():
    # n generic lines in the plane: chi = t^2 - n t + C(n, 2); bounded = C(n - 1, 2)
    W = [[1, 0], [0, 1], [1, 1], [1, 2], [2, 1]]
    p = characteristic_polynomial(W, bias=[0, -1, -3, -7, -19])
    assert p.coefficients == (10, -5, 1) and p.whitney == (1, -5, 10)
    assert p.betti == (1, 5, 10) and p.bounded == comb(4, 2) and p.regions == 16
    central = characteristic_polynomial([[1, 0, 0], [0, 1, 0]])
    assert central.bounded is None and central.betti == (1, 2, 1)
    assert central.text() == "t^3 - 2 t^2 + t"
    js = p.to_json()
    assert js["status"] == "COMPUTED" and js["chi"] == [10, -5, 1] and js["bounded_regions"] == 6


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_braid_deformations_equal_their_formulas(n):
    for shifts, formula in ((SHI, shi_count), (CATALAN, catalan_count),
                            (LINIAL, linial_count), (SEMIORDER, semiorder_count)):
        W, b = deformation(n, shifts)
        assert characteristic_polynomial(W, bias=b).regions == formula(n), (shifts, n)
    W, b = deformation(n, SHI)  # relatively bounded regions of Shi: (n - 1)^(n - 1)
    assert characteristic_polynomial(W, bias=b).bounded == (n - 1) ** (n - 1)


def test_resonance_small():
    for n in range(1, 6):
        assert characteristic_polynomial(resonance(n)).regions == RESONANCE_REGIONS[n]


def test_symmetric_heads():
    assert characteristic_polynomial(simplex_etf(8), ranking=True).regions == factorial(8)
    W = circulant([3, 1, 0, -1, 2])
    for ranking in (False, True):
        p = characteristic_polynomial(W, ranking=ranking, crosscheck=["nbc"])
        assert p.regions == (count_rankings if ranking else count_regions)(W)


def test_workers_and_resume(tmp_path):
    W = resonance(5)  # (three dimensions close in closed form: resonance(4) has no budget)
    want = characteristic_polynomial(W).coefficients
    with ThreadPoolExecutor(2) as ex:
        assert characteristic_polynomial(W, executor=ex).coefficients == want
    with pytest.raises(TooLarge, match="budget"):  # stopped part way, some terms kept
        characteristic_polynomial(W, state_dir=tmp_path, budget=3)
    kept = list(tmp_path.glob("chi-*/term-*.json"))
    assert 0 < len(kept) < 31
    p = characteristic_polynomial(W, state_dir=tmp_path)
    assert p.coefficients == want and p.stats["resumed_terms"] == len(kept)
    again = characteristic_polynomial(W, state_dir=tmp_path)
    assert again.stats["resumed_terms"] == 31 and again.coefficients == want


def test_detected_symmetry_and_orbits(tmp_path, capsys):
    from logitgeom.cli.main import main
    from logitgeom.geometry.headgroup import arrangement_symmetry

    s = arrangement_symmetry(resonance(4))
    assert s.order == 24 and s.complete and s.orbit_sizes == (6, 4, 4, 1)
    c = arrangement_symmetry(circulant([3, 1, 0, -1, 2, 7]), ranking=True)
    assert c.order == 6 and sum(c.orbit_sizes) == 15
    W, b = deformation(3, CATALAN)
    assert arrangement_symmetry(W, bias=b).orbit_sizes == (1,) * 10
    w = tmp_path / "w.csv"
    w.write_text("\n".join(",".join(map(str, r)) for r in simplex_etf(5)) + "\n")
    assert main(["count", "ranking", str(w), "--symmetry", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 120 and data["symmetry"]["order"] == 120
    assert data["symmetry"]["orbit_sizes"] == [10]


def test_killed_run_resumes(tmp_path):
    """A count killed (SIGKILL) after 20 of resonance-6's 63 top-level restrictions resumes
    from its files (the engine's kill hook: a deterministic point, not a timer)."""
    import os
    import signal
    import subprocess
    import sys

    w = tmp_path / "w.csv"
    w.write_text("\n".join(",".join(map(str, r)) for r in resonance(6)) + "\n")
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "logitgeom", "count", "sign", str(w), "--state", str(state),
            "--json", "-"]
    env = dict(os.environ, LOGITGEOM_STORE_KILL=f"chi:20:{int(signal.SIGKILL)}")
    first = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == -signal.SIGKILL
    assert len(list(state.glob("chi-*/term-*.json"))) == 20
    second = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    data = json.loads(second.stdout)
    assert data["count"] == RESONANCE_REGIONS[6]
    assert data["characteristic_polynomial"]["stats"]["resumed_terms"] == 20


def test_partitions_method_for_rankings():
    for W, b in _heads(11, 8):
        p = characteristic_polynomial(W, bias=b, ranking=True, method="partitions",
                                      crosscheck=["nbc"])
        assert p.checks == ("restriction",) and p.regions == count_rankings(W, bias=b)
    W = circulant([(7 * i * i + 3 * i + 1) % 11 - 5 for i in range(8)])
    assert characteristic_polynomial(W, ranking=True, method="partitions").regions == 40320
    with pytest.raises(InvalidInput, match="counts rankings"):
        characteristic_polynomial(W, method="partitions")
    with pytest.raises(TooLarge, match="budget"):
        characteristic_polynomial(W, ranking=True, method="partitions", budget=10)


def test_degenerate_heads():
    # one tie class (affine ranking), a constant row, two labels that never tie
    for W, b, ranking in (([[1, 2]], [3], True), ([[0, 0]], [1], False),
                          ([[1, 2], [1, 2]], [0, 1], True), ([[1, 2], [1, 2]], None, True)):
        for method in ("restriction", "nbc"):
            p = characteristic_polynomial(W, bias=b, ranking=ranking, method=method,
                                          crosscheck=["nbc", "field"])
            assert p.coefficients == (0, 0, 1) and p.regions == 1


def test_bad_arguments():
    with pytest.raises(InvalidInput, match="method"):
        characteristic_polynomial([[1]], method="magic")
    with pytest.raises(InvalidInput, match="crosscheck"):
        characteristic_polynomial([[1]], crosscheck=["coin"])
    with pytest.raises(InvalidInput, match="primes"):
        characteristic_polynomial([[1]], primes=0)


def test_cli_prints_chi_and_json(tmp_path, capsys):
    from logitgeom.cli.main import main

    w = tmp_path / "w.csv"
    w.write_text("1,0\n0,1\n1,1\n")
    b = tmp_path / "b.csv"
    b.write_text("0\n-1\n2\n")
    assert main(["count", "sign", str(w), "--bias", str(b), "--crosscheck", "nbc,field"]) == 0
    out = capsys.readouterr().out
    assert "chi(t) = t^2 - 3 t + 3" in out and "bounded regions |chi(1)| = 1" in out
    assert "COMPUTED by restriction; cross-checked: nbc, field q=" in out
    assert main(["count", "ranking", str(w), "--json", "-", "--workers", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 6 and data["characteristic_polynomial"]["chi"] == [2, -3, 1]
    assert main(["count", "sign", str(w), "--crosscheck", "coin"]) == 2
    assert "--crosscheck takes" in capsys.readouterr().err
    assert main(["count", "sign", str(w), "--method", "nbc", "--state", str(tmp_path)]) == 2
    assert "restriction or orbits, not nbc" in capsys.readouterr().err
    big = tmp_path / "k30.csv"  # refused at once by every method, from the bound
    rng = random.Random(0)
    big.write_text("\n".join(",".join(str(rng.randint(-9, 9)) for _ in range(10))
                             for _ in range(30)) + "\n")
    for method in ("restriction", "partitions"):
        assert main(["count", "ranking", str(big), "--method", method]) == 2
        assert "general-position bound" in capsys.readouterr().err
