"""How much exact work checking a certificate takes, estimated from the file before checking.

Standard library only.  The checker refuses a certificate whose estimate exceeds its budget
(``--max-work``, default :data:`DEFAULT_MAX_WORK`) with the verdict ``work-budget`` ("not
checked"), so a small file can never make it run for hours: a ``same-chirotope``
certificate needs one determinant per set of d rows (C(k, d) of them), a ``cosine-equal``
one a comparison per pair of labels, a ``pattern-complete`` one a rank computation per
listed flat and a Moebius sum over pairs of flats.  One unit is about one exact arithmetic
step on small numbers (roughly 0.1-0.3 microseconds here); steps on long numbers count more
(see docs/limits.md).

Examples
--------
>>> estimate({"kind": "same-chirotope", "W1": [["1"] * 10] * 20, "W2": [["1"] * 10] * 20})
369881512
>>> estimate({"kind": "sign-feasible", "W": [["1", "0"], ["0", "1"]]}) < 100
True
"""

from __future__ import annotations

from math import comb

__all__ = ["DEFAULT_MAX_WORK", "estimate"]

#: Default budget of one certificate, in units (seconds, not minutes, of checking).
DEFAULT_MAX_WORK = 20_000_000


def _shape(M) -> tuple[int, int]:
    if not isinstance(M, list) or not M or not isinstance(M[0], list):
        return 0, 0
    return len(M), len(M[0])


def _longest(obj, depth=0) -> int:
    """Longest number string in the object (bounded recursion)."""
    if depth > 64:
        return 0
    if isinstance(obj, str):
        return len(obj)
    if isinstance(obj, dict):
        return max((_longest(v, depth + 1) for k, v in obj.items()
                    if k not in ("statement", "provenance")), default=0)
    if isinstance(obj, list):
        return max((_longest(v, depth + 1) for v in obj), default=0)
    return 0


def _units(obj, depth=0) -> int:
    if not isinstance(obj, dict) or depth > 64:
        return 1
    kind = obj.get("kind")
    if kind in ("layer-peeled-bracket", "layer-peeled-orbit-bracket"):  # check_bracket.py
        m, n = _shape(obj.get("Y")) if "Y" in obj else _shape(obj.get("bases"))[::-1]
        d = _shape(obj.get("W"))[1]
        return m * n * (d + 200) + m * m * n + m ** 3 + 1  # an exp / log ~ 200 units
    if kind in ("theorem", "layer-peeled-theorem"):
        parts = obj.get("parts")
        return 1 + sum(_units(p, depth + 1) for p in parts) if isinstance(parts, list) else 1
    if kind in ("same-chirotope", "cosine-equal", "pattern-differs"):
        k, d = _shape(obj.get("W1"))
        k2, d2 = _shape(obj.get("W2"))
        d = max(d, d2)
        if kind == "same-chirotope":
            return 2 * comb(max(k, k2), d) * (d**3 + 1) if d <= max(k, k2) else 1
        if kind == "cosine-equal":
            return max(k, k2) ** 2 * (3 * d + 8)
        return (max(k, k2) ** 2 + 1) * (d + 1) * 2
    if kind == "argmax-audit":  # a witness: n - 1 margins of d + 1 terms per label and domain
        n, d, runs = obj.get("rows"), obj.get("cols"), obj.get("labels")
        if not (isinstance(n, int) and isinstance(d, int) and isinstance(runs, list)):
            return 1
        labels = sum(r[1] - r[0] + 1 for r in runs
                     if isinstance(r, list) and len(r) == 2 and all(isinstance(v, int) for v in r))
        doms = obj.get("domains")
        return max(1, labels) * (len(doms) if isinstance(doms, list) else 1) * n * (d + 1)
    k, d = _shape(obj.get("W"))
    if kind == "pattern-complete":
        ranking = obj.get("pattern") == "ranking"
        n = k * (k - 1) // 2 if ranking else k
        pats = obj.get("patterns")
        lat = obj.get("lattice")
        P = len(pats) if isinstance(pats, list) else 0
        L = len(lat) if isinstance(lat, list) else 0
        return P * n * (d + 1) + L * n * (d + 1) ** 2 + L * L // 64 + 1
    return (k * k + 1) * (d + 1)  # single claims, translation: chain rows and dot products


def estimate(obj) -> int:
    """Estimated exact work (units) of checking ``obj``; never raises.

    Long numbers cost more: the count is scaled by ``(digits / 20) ** 1.6`` for the longest
    number in the file (Karatsuba multiplication) when it exceeds 20 digits.
    """
    try:
        units = _units(obj)
        digits = _longest(obj)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return 1
    scale = max(1.0, digits / 20) ** 1.6
    return int(units * scale)
