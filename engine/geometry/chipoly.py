"""The characteristic polynomial of a head's sign or ranking arrangement, and what it counts.

``chi(t)`` of the arrangement (central or affine) is computed exactly from the
intersection lattice: by memoised deletion-restriction (:mod:`logitgeom.exact.restriction`,
the default) or by the no-broken-circuit / set-partition search of
:mod:`logitgeom.exact.lattice` (``method="nbc"``).  From it (docs/counting.md):

* regions (sign patterns, or rankings) ``= |chi(-1)|`` (Zaslavsky);
* bounded regions of an affine arrangement ``= |chi(1)|`` (Zaslavsky; relatively bounded:
  bounded modulo the directions along which every hyperplane is invariant, as for the
  braid-like deformations; 0 for a central arrangement with a hyperplane);
* Whitney numbers of the first kind ``w_i`` (the coefficient of ``t^(d-i)``) and the
  Betti numbers of the complement ``b_i = |w_i|`` (Orlik-Solomon).

``crosscheck`` recomputes ``chi`` independently: ``"nbc"`` (the other algorithm) and/or
``"field"`` (point counts over ``F_q`` at primes ``q`` above Hadamard's bound, the
finite-field method).  Every result states its method and its cross-checks.

Examples
--------
>>> p = characteristic_polynomial([[1, 0], [0, 1], [1, 1]])
>>> p.coefficients, p.regions, p.betti
((2, -3, 1), 6, (1, 3, 2))
>>> q = characteristic_polynomial([[1], [1], [1]], bias=[0, -1, -2])
>>> q.regions, q.bounded
(4, 2)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact import finite_field, restriction
from logitgeom.exact.lattice import (
    TooManyPartitions,
    arrangement_normals,
    chi_rankings,
    evaluate,
    label_vectors,
)
from logitgeom.exact.lattice import (
    characteristic_polynomial as _nbc_sign,
)
from logitgeom.exact.lattice import (
    ranking_characteristic_polynomial as _nbc_ranking,
)

__all__ = ["CharacteristicPolynomial", "characteristic_polynomial", "arrangement_normals",
           "METHODS", "CROSSCHECKS"]

METHODS = ("restriction", "nbc", "partitions", "orbits")
CROSSCHECKS = ("nbc", "field")


@dataclass(frozen=True)
class CharacteristicPolynomial:
    """``chi(t)`` of a head's arrangement with the numbers it determines.

    Attributes
    ----------
    coefficients : tuple of int
        ``c[i]`` is the coefficient of ``t**i``, ``i = 0..d``.
    dim : int
        The dimension ``d`` of the input space.
    kind : str
        ``"sign"`` or ``"ranking"``.
    affine : bool
    method : str
        The algorithm that computed it.
    checks : tuple of str
        The independent recomputations that agreed (each names its algorithm).
    stats : dict
        Work done (restrictions computed and reused, tasks).
    """

    coefficients: tuple[int, ...]
    dim: int
    kind: str
    affine: bool
    method: str
    checks: tuple[str, ...] = ()
    stats: dict = field(default_factory=dict, compare=False)

    @property
    def regions(self) -> int:
        """``|chi(-1)|``: sign patterns (or rankings)."""
        return abs(evaluate(self.coefficients, -1))

    @property
    def bounded(self) -> int | None:
        """``|chi(1)|``, the bounded regions of an affine arrangement (``None`` if central)."""
        return abs(evaluate(self.coefficients, 1)) if self.affine else None

    @property
    def whitney(self) -> tuple[int, ...]:
        """Whitney numbers of the first kind: ``w_i`` = coefficient of ``t^(d-i)``."""
        c = self.coefficients
        return tuple(c[self.dim - i] for i in range(self.dim + 1))

    @property
    def betti(self) -> tuple[int, ...]:
        """Betti numbers of the complement, ``|w_i|``, up to the last non-zero one."""
        b = [abs(w) for w in self.whitney]
        while len(b) > 1 and b[-1] == 0:
            b.pop()
        return tuple(b)

    def text(self) -> str:
        """``chi(t)`` as a polynomial in ``t``.

        Examples
        --------
        >>> characteristic_polynomial([[1, 0], [0, 1]]).text()
        't^2 - 2 t + 1'
        """
        parts = []
        for i in range(len(self.coefficients) - 1, -1, -1):
            c = self.coefficients[i]
            if c == 0:
                continue
            mag = abs(c)
            mono = "" if i == 0 else ("t" if i == 1 else f"t^{i}")
            body = str(mag) if not mono else (mono if mag == 1 else f"{mag} {mono}")
            sign = "-" if c < 0 else "+"
            parts.append(body if not parts and c > 0 else f"-{body}" if not parts
                         else f"{sign} {body}")
        return " ".join(parts) or "0"

    def to_json(self) -> dict:
        """A JSON-ready dict (integers as they are; Python ints are unbounded)."""
        return {"chi": list(self.coefficients), "chi_text": self.text(), "dim": self.dim,
                "kind": self.kind, "affine": self.affine, "regions": self.regions,
                "bounded_regions": self.bounded, "whitney": list(self.whitney),
                "betti": list(self.betti), "method": self.method, "checks": list(self.checks),
                "status": "COMPUTED", "stats": dict(self.stats)}


def _decone(coeffs: list[int]) -> list[int]:
    """chi of an affine arrangement from chi of its cone: exact division by ``t - 1``."""
    out = [0] * (len(coeffs) - 1)
    carry = 0
    for i in range(len(coeffs) - 1, 0, -1):
        carry += coeffs[i]
        out[i - 1] = carry
    if coeffs[0] + carry:  # pragma: no cover - a cone's chi vanishes at 1
        raise AssertionError("chi of a cone is not divisible by t - 1")
    return out


def _key(vecs: Sequence[tuple[int, ...]], dim: int) -> str:
    return hashlib.sha256(json.dumps([dim, [list(v) for v in vecs]]).encode()).hexdigest()[:16]


def _term(args: tuple) -> tuple[list[int], dict]:
    """One top-level restriction (any process): its chi and the work done."""
    sub, k, budget = args
    st: dict = {}
    return restriction.chi_restriction(sub, k, stats=st, budget=budget), st


def _by_restriction(vecs, dim, executor, state_dir, stats, budget=None) -> list[int]:
    terms = restriction.restriction_terms(vecs, dim)
    done: dict[int, list[int]] = {}
    folder = None
    if state_dir is not None:
        from logitgeom.run.state import kill_hook, write_json

        folder = Path(state_dir) / f"chi-{_key(vecs, dim)}"
        folder.mkdir(parents=True, exist_ok=True)
        for f in folder.glob("term-*.json"):
            rec = json.loads(f.read_text())
            done[int(rec["term"])] = [int(x) for x in rec["chi"]]
        stats["resumed_terms"] = len(done)
    todo = [i for i in range(len(terms)) if i not in done]
    if executor is None:
        cache: dict = {}
        for i in todo:
            st: dict = {}
            left = None if budget is None else budget - stats.get("computed", 0)
            done[i] = restriction.chi_restriction(terms[i][0], terms[i][1], cache=cache,
                                                  stats=st, budget=left)
            for key, val in st.items():
                stats[key] = stats.get(key, 0) + val
            if folder is not None:
                write_json(folder / f"term-{i}.json", {"term": i, "chi": done[i]})
                kill_hook("chi", len(done))
    else:
        from logitgeom.run.executor import run_units

        for r in run_units(_term, [(*terms[i], budget) for i in todo], executor=executor,
                           progress=False, desc="chi"):
            i = todo[r.index]
            done[i], st = r.value
            for key, val in st.items():
                stats[key] = stats.get(key, 0) + val
            if folder is not None:
                write_json(folder / f"term-{i}.json", {"term": i, "chi": done[i]})
                kill_hook("chi", len(done))
    stats["terms"] = len(terms)
    return restriction.combine_terms(dim, [done[i] for i in range(len(terms))])


def _by_orbits(W, bias, ranking, vecs, dim, affine, group, stats, budget, executor=None,
               state_dir=None) -> list[int]:
    """chi of the cone by flat orbits under the given or detected coordinate group."""
    from logitgeom.geometry import flatorbits, headgroup

    d = dim - 1 if affine else dim
    if group is None:
        sym = headgroup.arrangement_symmetry(W, bias=bias, ranking=ranking)
        coords = [list(c) for _, c in sym.generators]
        # and the coordinate permutations that map the hyperplanes (not the rows) onto
        # themselves: a larger group where a row goes to the negative of a row (Catalan);
        # not searched when the head's already holds every coordinate permutation (the
        # simplex ETF's), which that search (of coordinate permutations) cannot enlarge
        if not headgroup.is_full_symmetric(coords, d):
            coords += [list(c) for c in headgroup.normal_symmetry(vecs, d, affine)]
        stats["group_source"] = "detected"
        mats: object = []
    else:
        coords, mats = group, []
        if isinstance(group, dict):
            if not set(group) <= {"coordinates", "matrices"}:
                raise InvalidInput('a group is a list of coordinate permutations or '
                                   '{"coordinates": [...], "matrices": [...]}')
            coords = group.get("coordinates", [])
            mats = group.get("matrices", [])
        stats["group_source"] = "given"
    gens = headgroup.hyperplane_permutations(vecs, d, affine, coords, mats)
    try:
        chi_of = None
        if ranking and not affine:  # restrictions by the set-partition formula of blocks
            from logitgeom.geometry.rankflats import RankingRestrictions

            chi_of = RankingRestrictions(W, vecs)
        return flatorbits.chi_flat_orbits(vecs, dim, gens, stats=stats, budget=budget,
                                          executor=executor, state_dir=state_dir,
                                          chi_of=chi_of)
    except restriction.WorkBudgetExceeded:
        raise TooLarge(f"chi of this arrangement ({len(vecs)} hyperplanes in dimension "
                       f"{dim}) by flat orbits needs more than {budget:,} flat orbits and "
                       "restrictions (or 100 times as many least-image searches), the "
                       "budget") from None


def characteristic_polynomial(W: object, *, bias: object = None, ranking: bool = False,
                              method: str = "restriction", crosscheck: Sequence[str] = (),
                              primes: int = 2, executor: object = None,
                              state_dir: str | os.PathLike | None = None,
                              budget: int | None = None,
                              group: object = None) -> CharacteristicPolynomial:
    """Exact ``chi(t)`` of the sign (or ranking) arrangement of a head, with its counts.

    Parameters
    ----------
    W : array_like, k x d
        Rows are labels (anything :func:`logitgeom.exact.numbers.to_matrix` accepts).
    bias : array_like of length k, optional
        The affine arrangement ``w_i . x + b_i = 0`` (rankings: of ``W x + b``).
    ranking : bool
        The ranking arrangement ``(w_i - w_j) . x (+ b_i - b_j) = 0`` (tied labels once).
    method : {"restriction", "nbc", "partitions", "orbits"}
        Memoised deletion-restriction (default), or the no-broken-circuit search (sign) /
        set-partition formula with its fallback (ranking) of :mod:`logitgeom.exact.lattice`,
        or (ranking only) the set-partition formula alone, its search bounded by
        ``budget`` nodes instead of the fallback's small one (fast on heads without
        large affinely dependent groups of labels, such as circulant heads), or one flat
        per orbit of the arrangement's symmetry group (:mod:`logitgeom.geometry.
        flatorbits`; the group detected exactly, or ``group``).
    crosscheck : sequence of {"nbc", "field"}
        Recompute independently and require equality: ``"nbc"`` runs the other algorithm
        (the no-broken-circuit search for the restriction method, the restriction method
        for the others), ``"field"`` point
        counts over ``F_q`` at ``primes`` primes above Hadamard's bound (small
        arrangements only: about ``m q^(d-1)`` operations).
    executor : None, concurrent.futures.Executor or distributed.Client
        Spread the top-level restrictions over workers (restriction method), or each
        rank's extension and terms (orbits method).
    state_dir : path, optional
        Keep each finished top-level restriction (restriction method), or each finished
        level of flat orbits and chunk of terms or extension (orbits method), as a file
        there; a rerun after a kill resumes from them (the folder is keyed by the
        arrangement, and for the orbits method by the group too).
    budget : int, optional
        At most this many distinct restrictions computed (restriction method; with an
        executor, per top-level restriction), flat orbits and restrictions together
        (orbits method; with an executor a restriction two workers both compute counts
        twice; work read back from ``state_dir`` is free), or nodes of the partition search
        (partitions method; default 10^9): :class:`TooLarge` past it.
    group : sequence of coordinate permutations, or dict, optional
        Generators of a group of automorphisms for the orbits method: permutations of
        the ``d`` input coordinates, or ``{"coordinates": [...], "matrices": [...]}``
        with integer matrices acting on the arrangement's normals
        (:func:`logitgeom.geometry.headgroup.hyperplane_permutations`), each checked
        exactly to map the arrangement onto itself; default: the group
        :func:`logitgeom.geometry.headgroup.arrangement_symmetry` detects.

    Returns
    -------
    CharacteristicPolynomial

    Raises
    ------
    InvalidInput
        Bad matrix or bias, unknown method or cross-check.
    TooLarge
        ``budget`` ran out, or a finite-field count would be too long.
    EngineError
        A cross-check disagreed (a bug: please report the input).

    Examples
    --------
    >>> braid = [[1 if i == a else 0 for i in range(4)] for a in range(4)]
    >>> p = characteristic_polynomial(braid, ranking=True)      # t (t-1)(t-2)(t-3)
    >>> p.coefficients, p.regions
    ((0, -6, 11, -6, 1), 24)
    >>> shi = [[1, -1, 0], [1, -1, 0], [1, 0, -1], [1, 0, -1], [0, 1, -1], [0, 1, -1]]
    >>> s = characteristic_polynomial(shi, bias=[0, -1, 0, -1, 0, -1], crosscheck=["nbc", "field"])
    >>> s.regions, s.bounded, s.checks[0]                       # (n+1)^(n-1) and (n-1)^(n-1), n = 3
    (16, 4, 'nbc')
    """
    from logitgeom.errors import EngineError

    if method not in METHODS:
        raise InvalidInput(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    bad = [c for c in crosscheck if c not in CROSSCHECKS]
    if bad:
        raise InvalidInput(f"crosscheck must be among {', '.join(CROSSCHECKS)}; got {bad[0]!r}")
    if group is not None and method != "orbits":
        raise InvalidInput("a group applies to method 'orbits' only")
    if method in ("nbc", "partitions") and (executor is not None or state_dir is not None):
        raise InvalidInput("workers and resume files apply to methods 'restriction' and "
                           f"'orbits' only, not {method!r}")
    if isinstance(primes, bool) or not isinstance(primes, int) or primes < 1:
        raise InvalidInput(f"primes must be a positive integer; got {primes!r}")
    vecs, dim, affine = arrangement_normals(W, bias=bias, ranking=ranking)
    kind = "ranking" if ranking else "sign"
    stats: dict = {}

    def nbc() -> list[int]:
        return list((_nbc_ranking if ranking else _nbc_sign)(W, bias))

    if method == "partitions":
        if not ranking:
            raise InvalidInput("method 'partitions' counts rankings; use restriction or nbc "
                               "for sign patterns")
        labels, d, _ = label_vectors(W, bias)
        nodes = 10**9 if budget is None else max(1, budget)  # the search counts down to 0
        try:
            coeffs = chi_rankings(labels, d, affine, budget=nodes)
        except TooManyPartitions:
            raise TooLarge(f"the set-partition search of this head's rankings needs more "
                           f"than {nodes:,} nodes, the budget") from None
    elif method == "nbc":
        coeffs = nbc()
    elif method == "orbits":
        cone = _by_orbits(W, bias, ranking, vecs, dim, affine, group, stats, budget,
                          executor, state_dir)
        coeffs = _decone(cone) if affine else cone
    else:
        try:
            cone = _by_restriction(vecs, dim, executor, state_dir, stats, budget)
        except restriction.WorkBudgetExceeded:
            raise TooLarge(f"chi of this arrangement ({len(vecs)} hyperplanes in dimension "
                           f"{dim}) needs more than {budget:,} distinct restrictions, the "
                           "budget") from None
        coeffs = _decone(cone) if affine else cone
    checks = []
    for c in crosscheck:
        if c == "nbc" and method == "restriction":
            other = nbc()
            if other != coeffs:
                raise EngineError(f"internal error: chi by restriction {coeffs} differs from "
                                  f"chi by the no-broken-circuit search {other}; please report")
            checks.append("nbc")
        elif c == "nbc":  # the other algorithm of a non-default method: restriction
            cone = _by_restriction(vecs, dim, None, None, stats)
            other = _decone(cone) if affine else cone
            if other != coeffs:
                raise EngineError(f"internal error: chi by {method} {coeffs} differs from "
                                  f"chi by restriction {other}; please report")
            checks.append("restriction")
        if c == "field":
            for q in finite_field.good_primes(vecs, dim, primes):
                pts = finite_field.chi_at_prime(vecs, dim, q)
                want = evaluate(coeffs, q) * ((q - 1) if affine else 1)
                if pts != want:
                    raise EngineError(f"internal error: {pts} points off the arrangement over "
                                      f"F_{q}, but chi gives {want}; please report")
                checks.append(f"field q={q}")
    return CharacteristicPolynomial(tuple(coeffs), len(coeffs) - 1, kind, affine, method,
                                    tuple(checks), stats)
