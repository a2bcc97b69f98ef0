"""chi(t) by flat orbits under a group (issue 46, symmetry-aware counting): the least
image and stabiliser order against brute force over the group, the orbit count against
the no-group count and against enumeration, given groups checked and refused."""

from __future__ import annotations

import json
import random

import pytest

from logitgeom.errors import InvalidInput
from logitgeom.exact.restriction import chi_restriction
from logitgeom.geometry import ranking_pattern, sign_pattern
from logitgeom.geometry.chipoly import arrangement_normals, characteristic_polynomial
from logitgeom.geometry.families import RESONANCE_REGIONS, circulant, resonance, simplex_etf
from logitgeom.geometry.flatorbits import chi_flat_orbits
from logitgeom.geometry.headgroup import hyperplane_permutations
from logitgeom.geometry.permchain import StabilizerChain


def _closure(gens, m):
    e = tuple(range(m))
    G, todo = {e}, [e]
    while todo:
        g = todo.pop()
        for h in gens:
            x = tuple(h[g[p]] for p in range(m))
            if x not in G:
                G.add(x)
                todo.append(x)
    return G


def test_least_image_is_an_exact_orbit_invariant_with_the_stabiliser_order():
    """Brute force over every element of random small groups: equal keys exactly for sets
    in one orbit, and the stabiliser order times the orbit size is the group order."""
    rng = random.Random("permchain")
    for _ in range(120):
        m = rng.randint(2, 8)
        gens = []
        for _ in range(rng.randint(0, 3)):
            sub = rng.sample(range(m), rng.randint(2, m))
            g = list(range(m))
            for a, b in zip(sub, sub[1:] + sub[:1], strict=True):
                g[a] = b
            gens.append(tuple(g))
        G = _closure(gens, m)
        chain = StabilizerChain(gens, m)
        assert chain.order == len(G)
        keys = {}
        for _ in range(8):
            S = rng.sample(range(m), rng.randint(0, m))
            orbit = frozenset(tuple(sorted(g[x] for x in S)) for g in G)
            key, stab = chain.least_image(S)
            assert stab * len(orbit) == len(G)
            assert stab == sum(1 for g in G if sorted(g[x] for x in S) == sorted(S))
            assert keys.setdefault(key, orbit) == orbit
        assert len(set(keys.values())) == len(keys)


def test_least_image_in_a_large_group():
    """S_16 on the 120 pairs (the simplex-ETF head's ranking hyperplanes): the stabiliser
    of the flat of blocks 3, 3, 2, 2 has order 3! 3! 2 * 2! 2! 2 * 6! = 414,720."""
    from itertools import combinations

    pairs = list(combinations(range(16), 2))
    idx = {p: k for k, p in enumerate(pairs)}

    def act(sigma):
        return [idx[tuple(sorted((sigma[i], sigma[j])))] for i, j in pairs]

    chain = StabilizerChain([act([1, 0] + list(range(2, 16))), act(list(range(1, 16)) + [0])],
                            120)
    assert chain.order == 20922789888000
    rng = random.Random(5)
    keys = set()
    for _ in range(2):
        lab = rng.sample(range(16), 16)
        blocks = [lab[:3], lab[3:6], lab[6:8], lab[8:10]]
        S = [idx[tuple(sorted(p))] for b in blocks for p in combinations(b, 2)]
        key, stab = chain.least_image(S)
        assert stab == 414720
        keys.add(key)
    assert len(keys) == 1


def _both(W, ranking=False, bias=None):
    p = characteristic_polynomial(W, bias=bias, ranking=ranking, method="orbits")
    q = characteristic_polynomial(W, bias=bias, ranking=ranking)
    assert p.coefficients == q.coefficients
    return p


@pytest.mark.parametrize("n", [3, 4, 5])
def test_resonance_by_orbits_equals_the_other_counts(n):
    p = _both(resonance(n))
    assert p.regions == RESONANCE_REGIONS[n] and p.stats["group_order"] > 1
    if n <= 4:
        assert p.regions == sign_pattern(resonance(n)).count


def test_symmetric_heads_by_orbits_equal_enumeration():
    v = [3, 1, 0, -1, 2, 7]
    for W in (circulant(v), simplex_etf(5)):
        s = _both(W)
        r = _both(W, ranking=True)
        assert s.stats["group_order"] > 1 and r.stats["group_order"] > 1
        assert s.regions == sign_pattern(W).count
        assert r.regions == ranking_pattern(W).count


def test_random_integer_head_with_a_symmetry():
    """Rows closed under swapping coordinates 0 and 1 (and a bias that respects it): the
    detected group is non-trivial, and the orbit count equals enumeration."""
    rng = random.Random("sym-head")
    for _ in range(3):
        W, b = [], []
        for _ in range(3):
            r = [rng.randint(-3, 3) for _ in range(4)]
            c = rng.randint(-2, 2)
            W += [r, [r[1], r[0]] + r[2:]]
            b += [c, c]
        p = _both(W, bias=b)
        assert p.stats["group_order"] >= 2
        assert p.regions == sign_pattern(W, bias=b).count
        q = _both(W, ranking=True)
        assert q.regions == ranking_pattern(W).count


def test_given_group_is_checked_and_used():
    W = resonance(4)
    cyc = characteristic_polynomial(W, method="orbits", group=[[1, 2, 3, 0]])
    assert cyc.stats["group_order"] == 4 and cyc.stats["group_source"] == "given"
    assert cyc.coefficients == characteristic_polynomial(W).coefficients
    triv = characteristic_polynomial(W, method="orbits", group=[])
    assert triv.stats["group_order"] == 1 and triv.regions == RESONANCE_REGIONS[4]
    assert sum(triv.stats["flats"]) == sum(cyc.stats["flats"])
    with pytest.raises(InvalidInput, match="does not map the arrangement onto itself"):
        characteristic_polynomial([[1, 0], [1, 2]], method="orbits", group=[[1, 0]])
    with pytest.raises(InvalidInput, match="not a permutation"):
        characteristic_polynomial(W, method="orbits", group=[[0, 0, 1, 2]])
    with pytest.raises(InvalidInput, match="method 'orbits' only"):
        characteristic_polynomial(W, group=[[1, 2, 3, 0]])


def test_chi_flat_orbits_directly():
    vecs, dim, _ = arrangement_normals(resonance(4))
    gens = hyperplane_permutations(vecs, 4, False, [[1, 0, 2, 3], [1, 2, 3, 0]])
    st = {}
    assert chi_flat_orbits(vecs, dim, gens, stats=st) == chi_restriction(vecs, dim)
    assert st["group_order"] == 24 and st["orbits"] == [4, 7, 7, 1]


def test_cli_orbits_and_group_file(tmp_path, capsys):
    from logitgeom.cli.main import main

    w = tmp_path / "w.json"
    w.write_text(json.dumps(resonance(4)))
    g = tmp_path / "g.json"
    g.write_text(json.dumps({"coordinates": [[1, 0, 2, 3]]}))
    assert main(["count", "sign", str(w), "--method", "orbits", "--group", str(g),
                 "--crosscheck", "nbc"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("370 sign patterns") and "cross-checked: restriction" in out
    assert "group of order 2 (given) used" in out
    assert main(["count", "sign", str(w), "--group", str(g)]) == 2
    assert "--group applies to --method orbits only" in capsys.readouterr().err
    g.write_text("[[1, 2]]")
    assert main(["count", "sign", str(w), "--method", "orbits", "--group", str(g)]) == 2
    assert "not a permutation of the 4 coordinates" in capsys.readouterr().err
    g.write_text("{not json")
    assert main(["count", "sign", str(w), "--method", "orbits", "--group", str(g)]) == 2
    assert "is not JSON" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([[1, 0, 0], [0, 1, 2]]))
    g.write_text("[[1, 0, 2]]")
    assert main(["count", "sign", str(bad), "--method", "orbits", "--group", str(g)]) == 2
    assert "does not map the arrangement onto itself" in capsys.readouterr().err


def test_budget_counts_orbits_and_refuses(tmp_path, capsys):
    from logitgeom.cli.main import main
    from logitgeom.errors import TooLarge

    with pytest.raises(TooLarge, match="flat orbits and restrictions"):
        characteristic_polynomial(resonance(5), method="orbits", budget=20)
    p = characteristic_polynomial(resonance(5), method="orbits", budget=200)
    assert p.regions == RESONANCE_REGIONS[5]
    w = tmp_path / "w.json"
    w.write_text(json.dumps(resonance(5)))
    assert main(["count", "sign", str(w), "--method", "orbits", "--max-work", "20"]) == 2
    assert "flat orbits and restrictions" in capsys.readouterr().err


def _swap_last(n):
    """The resonance arrangement's extra symmetry: x_n <-> x_(n+1) = -(x_1 + ... + x_n),
    on normals v -> v M (M: the identity with its last row all -1)."""
    return [[1 if i == j else 0 for j in range(n)] if i < n - 1 else [-1] * n
            for i in range(n)]


@pytest.mark.parametrize("n", [4, 5, 6])
def test_matrix_generators_give_the_larger_group(n):
    """S_(n+1) on the resonance arrangement (a coordinate permutation and one matrix):
    fewer orbits, the same count."""
    cyc = [list(range(1, n)) + [0], [1, 0] + list(range(2, n))]
    p = characteristic_polynomial(resonance(n), method="orbits",
                                  group={"coordinates": cyc, "matrices": [_swap_last(n)]})
    from math import factorial

    assert p.stats["group_order"] == factorial(n + 1)
    assert p.regions == RESONANCE_REGIONS[n]
    q = characteristic_polynomial(resonance(n), method="orbits")
    assert sum(p.stats["orbits"]) < sum(q.stats["orbits"])
    assert sum(p.stats["flats"]) == sum(q.stats["flats"])


def test_bad_matrices_are_refused(tmp_path, capsys):
    from logitgeom.cli.main import main

    W = resonance(3)
    for mats, msg in (([[[1, 0], [0, 1]]], "not a 3 x 3 matrix"),
                      ([[[1, 0, 0], [0, 1, 0], [0, 0, 0]]], "singular"),
                      ([[[1, 1, 0], [0, 1, 0], [0, 0, 1]]], "does not map the arrangement"),
                      ([[[1, 0, 0], [0, 1, 0], [0, 0, 1.5]]], "matrix of integers")):
        with pytest.raises(InvalidInput, match=msg):
            characteristic_polynomial(W, method="orbits", group={"matrices": mats})
    w = tmp_path / "w.json"
    w.write_text(json.dumps(resonance(4)))
    g = tmp_path / "g.json"
    g.write_text(json.dumps({"coordinates": [[1, 2, 3, 0]], "matrices": [_swap_last(4)]}))
    assert main(["count", "sign", str(w), "--method", "orbits", "--group", str(g)]) == 0
    assert "group of order 120 (given) used" in capsys.readouterr().out
    g.write_text(json.dumps({"matrix": []}))
    assert main(["count", "sign", str(w), "--method", "orbits", "--group", str(g)]) == 2
    assert "must be a list of coordinate permutations or" in capsys.readouterr().err


@pytest.mark.parametrize("low", [0, 1, 2])
def test_low_rank_formula_equals_the_plain_one(low):
    """The Moebius values of flats of rank <= low in place of their restrictions: the same
    chi for every low (resonance 5 under S_5, a circulant ranking head under its group)."""
    for W, ranking in ((resonance(5), False), (circulant([3, 1, 0, -1, 2, 7]), True)):
        vecs, dim, _ = arrangement_normals(W, ranking=ranking)
        d = len(W[0])
        gens = hyperplane_permutations(vecs, d, False, [list(range(1, d)) + [0]])
        assert chi_flat_orbits(vecs, dim, gens, low=low) == chi_restriction(vecs, dim)


def test_given_group_on_an_affine_head():
    """A coordinate swap given for a head with a bias: it acts on the cone's normals with
    the bias coordinate fixed; the count equals enumeration."""
    W = [[1, 2, 0], [2, 1, 0], [0, 0, 1], [1, 1, 1], [3, -1, 2], [-1, 3, 2]]
    b = [0, 0, -1, 2, 1, 1]
    p = characteristic_polynomial(W, bias=b, method="orbits", group=[[1, 0, 2]])
    assert p.stats["group_order"] == 2 and p.affine
    assert p.regions == sign_pattern(W, bias=b).count
    assert p.coefficients == characteristic_polynomial(W, bias=b).coefficients
    with pytest.raises(InvalidInput, match="does not map the arrangement onto itself"):
        characteristic_polynomial(W, bias=b, method="orbits", group=[[0, 2, 1]])
