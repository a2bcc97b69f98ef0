"""How much exact work checking a certificate takes, estimated from the file before checking.

The estimate refuses a file early; the bound itself is enforced while checking: the kernel
charges every exact step to the budget before doing it (:func:`certificates.kernel.charge`),
including the work on referenced files (shards, heads) and group orders, which the estimate
cannot see, so no file is checked beyond its budget.

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
410527832
>>> estimate({"kind": "sign-feasible", "W": [["1", "0"], ["0", "1"]]}) < 100
True
"""

from __future__ import annotations

from math import comb

__all__ = ["DEFAULT_MAX_WORK", "estimate"]

#: Default budget of one certificate, in units (at most about 5 CPU seconds of checking).
DEFAULT_MAX_WORK = 20_000_000


def _shape(M) -> tuple[int, int]:
    ok = isinstance(M, list) and M and isinstance(M[0], list)
    return (len(M), len(M[0])) if ok else (0, 0)


def _longest(obj, depth=0) -> int:
    """Longest number string in the object (bounded recursion)."""
    if depth > 64:
        return 0
    if isinstance(obj, str):  # numbers only: not hashes, file names or words
        return len(obj) if obj.lstrip("-").replace("/", "", 1).isdigit() else 0
    if isinstance(obj, dict):
        return max((_longest(v, depth + 1) for k, v in obj.items()
                    if k not in ("statement", "provenance", "sha256", "source")), default=0)
    if isinstance(obj, list):
        return max((_longest(v, depth + 1) for v in obj), default=0)
    return 0


def _units(obj, depth=0) -> int:
    if not isinstance(obj, dict) or depth > 64:
        return 1
    kind = obj.get("kind")
    if kind in ("layer-peeled-bracket", "layer-peeled-orbit-bracket"):  # check_bracket.py
        m, n = _shape(obj.get("Y")) if "Y" in obj else _shape(obj.get("bases"))[::-1]
        d, p = _shape(obj.get("W"))[1], obj.get("precision")
        log = 120 + (p if type(p) is int and p < 1000 else 1000) ** 2 // 40  # one exp / log
        return (2 * m * n + n) * log + m * n * (d + m + 4) + 4 * m ** 3 + 1
    if kind in ("theorem", "layer-peeled-theorem"):
        parts = obj.get("parts")
        return 1 + sum(_units(p, depth + 1) for p in parts) if isinstance(parts, list) else 1
    if kind in ("same-chirotope", "cosine-equal", "pattern-differs"):
        k, d = map(max, _shape(obj.get("W1")), _shape(obj.get("W2")))
        if kind == "same-chirotope":
            return 2 * comb(k, d) * (d**3 + d * d + d + 1) if d <= k else 1
        if kind == "cosine-equal":
            return k ** 2 * (3 * d + 8)
        return (k ** 2 + 1) * (d + 1) * 2
    if kind == "argmax-audit":  # a witness: k - 1 margins of d terms; a never-proof: <= d + 2
        k, d, doms = obj.get("rows"), obj.get("cols"), obj.get("domains")
        if not (type(k) is int and type(d) is int and isinstance(doms, list)):
            return 1
        # the stated counts (compared with the records at the end; the work is metered too)
        counts = obj.get("counts") if isinstance(obj.get("counts"), dict) else {}
        got = [c for c in counts.values() if isinstance(c, dict)]
        wit, nev = (sum(c[v] for c in got if type(c.get(v)) is int)
                    for v in ("argmaxable", "never"))
        return wit * k * (d + 2) + nev * (d + 3) * (d + 1) * 2 + k * d + 1
    k, d = _shape(obj.get("W"))
    if kind in ("pattern-complete", "pattern-complete-stream"):  # streamed: the stated rows
        n = k * (k - 1) // 2 if obj.get("pattern") == "ranking" else k
        pats, sh, lat = obj.get("patterns"), obj.get("shards"), obj.get("lattice")
        P = len(pats) if isinstance(pats, list) else sum(
            s["rows"] for s in sh if isinstance(s, dict) and type(s.get("rows")) is int
            and s["rows"] > 0) if isinstance(sh, list) else 0
        L = len(lat) if isinstance(lat, list) else 0
        return P * n * (d + 1) + L * n * (d + 1) ** 2 + L * L // 64 + 1
    return (k * k + 1) * (d + 1)  # single claims, translation: chain rows and dot products


def estimate(obj) -> int:
    """Estimated exact work (units) of checking ``obj``; never raises.

    Long numbers cost more: the count is scaled by ``(digits / 20) ** 1.6`` for the longest
    number in the file (Karatsuba multiplication) when it exceeds 20 digits.  An astronomical
    count (a dict in memory, whose integers no file limits) stays a huge estimate, never an
    overflow:

    >>> estimate({"kind": "argmax-audit", "rows": 10 ** 400, "cols": 1, "domains": ["all"],
    ...           "records": [{"all": {"verdict": "argmaxable"}}]}) > 10 ** 300
    True
    """
    try:
        units = _units(obj)
        digits = _longest(obj)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return 1
    scale = max(1.0, digits / 20) ** 1.6
    return int(min(units, 10 ** 300) * scale)  # a float product: bounded, never overflows
