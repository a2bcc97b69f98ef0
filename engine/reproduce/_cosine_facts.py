"""Side facts of the cosine paper ("What Cosine Similarity of Label Representations Can and
Cannot Tell us") that the tool gets right but no other row shows: Prop. E.2 with the
SVD-truncation remark, and the counting facts of Sec. 5.  All decided exactly (complete
enumerations certified by the Zaslavsky count); small instances get certificates.

Labels are 0-based in the artifacts.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from logitgeom.exact.linalg import column_basis, det, rank
from logitgeom.geometry import ranking_pattern, sign_pattern
from logitgeom.reproduce._artifacts import Context
from logitgeom.reproduce.registry import Row, Status, claim

__all__: list[str] = []

EXACT = "exact rational arithmetic (complete enumeration, Zaslavsky-certified)"


def _ints(seed: int, shape: tuple[int, int], lo: int = -5, hi: int = 5) -> list[list[int]]:
    return np.random.default_rng(seed).integers(lo, hi + 1, size=shape).tolist()


def _mul(A, B) -> list[list[Fraction]]:
    return [[sum((Fraction(a) * Fraction(b) for a, b in zip(r, c, strict=True)), Fraction(0))
             for c in zip(*B, strict=True)] for r in A]


def _status(ok: bool) -> Status:
    return Status.PASS if ok else Status.FAIL


@claim("cos-prop-e.2", "cosine")
def prop_e2(ctx: Context) -> Row:
    """Prop. E.2: S(W) is the set of orthants the column space meets, so it depends on the
    column space only; truncating an SVD at the rank loses nothing."""
    B, C = _ints(52, (6, 3)), _ints(53, (3, 5))
    Wp = _mul(B, C)  # 6 x 5 of rank 3: more columns than rank
    r = rank(Wp)
    cols = column_basis(Wp)
    Wb = [[row[c] for c in cols] for row in Wp]  # 6 x 3, same column space
    A = _ints(54, (5, 5), -2, 2)
    while det(A) == 0:  # pragma: no cover - the seed gives an invertible A
        A[0][0] += 1
    WA = _mul(Wp, A)  # same column space (A invertible)
    U, s, _ = np.linalg.svd(np.array(Wp, float))
    trunc = U[:, :r] * s[:r]  # top-r principal directions (float64, taken as exact binary)
    S = [sign_pattern(M, progress=False) for M in (Wp, Wb, WA, trunc)]
    same = all(x.patterns == S[0].patterns for x in S[1:])
    orthants = all(tuple(int(np.sign(float(v[0]))) for v in _mul(Wp, [[x] for x in w]))
                   == tuple(p) for p, w in zip(S[0].patterns, S[0].witnesses, strict=True))
    cert = ctx.write_certificate("prop-e.2-column-space.json", S[1].certificate())
    res = ctx.write_json("results/prop-e.2.json", {
        "W_prime": Wp, "rank": r, "column_basis": list(cols), "A": A,
        "sign_count": S[0].count, "equal_for": ["W'", "W'[:, basis]", "W' A", "SVD top-r"]})
    ok = same and orthants and r == 3
    return Row("Prop. E.2 (column space; SVD truncation)",
               f"W' = B C (6 x 5, rank {r}); W'[:, {list(cols)}] (6 x 3); W' A (A invertible "
               "5 x 5); U_3 S_3 from float64 SVD",
               EXACT + "; pattern-complete certificate for the 6 x 3 basis",
               f"S identical for all four ({S[0].count} sign patterns): S(W) depends only on "
               "colspan(W), each pattern is an orthant met by colspan(W); truncating the SVD "
               "to the rank keeps S. Deviation: the SVD factor is float64 (its exact binary "
               "values are enumerated), the other three are exact", (cert, res), _status(ok))


@claim("cos-sec-5-counts", "cosine")
def sec_5_counts(ctx: Context) -> Row:
    """Sec. 5: rank(W) = k gives all 2^k label sets; centred rank k - 1 gives all k!
    rankings; R(I_k) = k!; below those ranks sets are missing."""
    k = 5
    full = _ints(55, (k, k + 1))           # rank k
    low = _ints(56, (k, 3))                # rank 3 < k
    cen = _ints(57, (k, k - 1))            # centred rank k - 1
    flat = _ints(58, (k, 2))               # centred rank 2 < k - 1
    eye = [[int(i == j) for j in range(k)] for i in range(k)]

    def centred_rank(W) -> int:
        mean = [sum(Fraction(x) for x in c) / len(W) for c in zip(*W, strict=True)]
        return rank([[Fraction(x) - m for x, m in zip(r, mean, strict=True)] for r in W])

    s_full, s_low = (sign_pattern(W, progress=False) for W in (full, low))
    r_cen, r_flat, r_eye = (ranking_pattern(W, progress=False) for W in (cen, flat, eye))
    ok = (rank(full) == k and s_full.count == 2 ** k and s_low.count < 2 ** k
          and centred_rank(cen) == k - 1 and r_cen.count == math.factorial(k)
          and centred_rank(flat) < k - 1 and r_flat.count < math.factorial(k)
          and r_eye.count == math.factorial(k))
    arts = (ctx.write_certificate("sec-5-rank-k-all-label-sets.json", s_full.certificate()),
            ctx.write_certificate("sec-5-identity-all-rankings.json", r_eye.certificate()),
            ctx.write_json("results/sec-5-counts.json", {
                "k": k, "rank_k": {"W": full, "sign_count": s_full.count},
                "rank_3": {"W": low, "sign_count": s_low.count},
                "centred_rank_k_minus_1": {"W": cen, "ranking_count": r_cen.count},
                "centred_rank_2": {"W": flat, "ranking_count": r_flat.count},
                "identity": {"ranking_count": r_eye.count}}))
    return Row("Sec. 5 (counting facts)",
               f"k = {k}: random integer W of rank k (5 x 6) and rank 3; centred rank k-1 "
               "(5 x 4) and 2 (5 x 2); I_5",
               EXACT + "; pattern-complete certificates for rank k and I_k",
               f"|S(W)| = {s_full.count} = 2^5 at rank k, {s_low.count} at rank 3; |R(W)| = "
               f"{r_cen.count} = 5! at centred rank k-1, {r_flat.count} at centred rank 2; "
               f"|R(I_5)| = {r_eye.count} = 5!", arts, _status(ok))
