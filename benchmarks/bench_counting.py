"""Exact counts (Zaslavsky, logitgeom.exact.lattice): time table and the two headline goals.

Run:  .venv/bin/python benchmarks/bench_counting.py [--quick]
      .venv/bin/python benchmarks/bench_counting.py --chi [--resonance 3,4,5,6]
          [--deformations 6,8] [--circulant 8,10] [--etf 16] [--cap 180] [--key both]
      .venv/bin/python benchmarks/bench_counting.py --partial 8 [--cpu-limit 150]
      .venv/bin/python benchmarks/bench_counting.py --chi --method orbits [--resonance 6,7]
      .venv/bin/python benchmarks/bench_counting.py --orbits-partial 8 [--cpu-limit 150]

``--chi`` (issue 46) times the characteristic polynomial (memoised deletion-restriction,
logitgeom.geometry.chipoly) on the heads with known counts: the resonance arrangement
(against its published region counts, R_9 = 1,955,230,985,997,140), the Shi, Catalan,
Linial and semiorder deformations (against their formulas), a circulant head (sign:
against the no-broken-circuit count; ranking: by the set-partition formula, against the
deletion-restriction count up to m = 10) and the simplex-ETF head (against m!).  Each
case runs in its own child process: CPU seconds of the count (not of the reference
algorithm it is compared with, which runs after) and the peak resident memory; a
case is skipped once the previous size of its family took more than ``--cap`` / 8 CPU s
(the next size costs roughly 5-10 times more).  ``--key`` chooses the restriction cache's
key for the resonance and deformation cases: ``canonical`` (the default of the library:
the canonical form under signed coordinate permutations, logitgeom.exact.canonical),
``cheap`` (column invariants only, ties in place: the algorithm before it) or ``both``
(one row each, the restrictions computed side by side).

``--partial N`` runs the resonance arrangement of ``R^N`` term by term (the top-level
restrictions ``B_q`` of logitgeom.exact.restriction, one shared cache) until
``--cpu-limit`` CPU seconds, printing after every 16th term (and the last) the terms done,
the distinct restrictions computed so far, the CPU seconds and the peak memory: the cost
curve of a size too large to finish here.  If it finishes it prints the count and how many
distinct characteristic polynomials the computed restrictions have: a lower bound on the
restrictions any isomorphism test on the cache key could get down to.

``--method orbits`` runs the ``--chi`` cases through the flats-by-orbits count under the
detected group (logitgeom.geometry.flatorbits: the head's label-and-coordinate group and
the coordinate permutations mapping the hyperplanes onto themselves, ``S_n`` for the
Catalan and semiorder arrangements, trivial for Shi and Linial) and prints the group's
order, the flat orbits and the least-image searches;
``--orbits-partial N [--full-group]`` runs the resonance arrangement of ``R^N`` that
way (``--full-group``: under ``S_(N+1)``, the detected ``S_N`` and the matrix of
``x_N <-> x_(N+1) = -(x_1 + ... + x_N)``, as ``--group`` takes it) until
``--cpu-limit`` CPU s, printing as it goes (at each new stage and every 15 CPU s) the
stage (``extend``: the representatives of a rank extended to the next rank; ``restrict``:
the terms of a rank's orbits computed), how many of how many are done, CPU seconds and
peak memory (the cost curve of a size too large to finish here).

Goals: ``count_rankings`` for a generic k = 10, d = 6 head (557,640 rankings) in
<= 1 s; ``count_regions`` for a generic k = 20, d = 5 head (10,072 regions).  "Generic"
heads are seeded random integers in [-10^6, 10^6]; each count is checked against the
general-position formula (Cover 1965 / Cover 1967, Good-Tideman) so a non-generic draw
would show.  Times are wall seconds and process CPU seconds (the machine is shared, CPU is
the fairer figure), best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import sys
import time
from math import factorial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.exact import restriction  # noqa: E402
from logitgeom.exact.lattice import evaluate  # noqa: E402
from logitgeom.geometry import (  # noqa: E402
    affine_generic_count,
    count_rankings,
    count_regions,
    cover_count,
    ranking_count_generic,
    ranking_count_generic_affine,
)
from logitgeom.geometry.chipoly import (  # noqa: E402
    arrangement_normals,
    characteristic_polynomial,
)
from logitgeom.geometry.families import (  # noqa: E402
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

DEFORMATIONS = {"shi": (SHI, shi_count), "catalan": (CATALAN, catalan_count),
                "linial": (LINIAL, linial_count), "semiorder": (SEMIORDER, semiorder_count)}


def _head(k, d, seed):
    rng = random.Random(f"bench-counting/{k}/{d}/{seed}")
    W = [[rng.randint(-(10**6), 10**6) for _ in range(d)] for _ in range(k)]
    b = [rng.randint(-(10**6), 10**6) for _ in range(k)]
    return W, b


def _time(fn, repeat):
    best_w, best_c, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_w = min(best_w, time.perf_counter() - w0)
        best_c = min(best_c, time.process_time() - c0)
    return out, best_w, best_c


def _ints(text):
    return [int(x) for x in text.split(",") if x.strip()]


class _Cheap:
    """The count by the cheap-key cache (``canonical=False``), shaped like a result."""

    def __init__(self, vecs, dim, affine):
        st: dict = {}
        chi = restriction.chi_restriction(vecs, dim, stats=st, canonical=False)
        self.regions = abs(evaluate(chi, -1)) // (2 if affine else 1)
        self.stats = st


def _orbits_case(family, n):
    """(count, expected, how) of one case by flat orbits under the detected group."""
    if family in DEFORMATIONS:
        shifts, formula = DEFORMATIONS[family]
        W, b = deformation(n, shifts)
        return characteristic_polynomial(W, bias=b, method="orbits"), formula(n), "formula"
    if family == "resonance":
        W, ranking, ref, how = resonance(n), False, RESONANCE_REGIONS.get(n), "published"
    elif family.startswith("circulant"):
        W = circulant([(7 * i * i + 3 * i + 1) % 11 - 5 for i in range(n)])
        ranking = family.endswith("ranking")
        ref, how = (lambda: characteristic_polynomial(W, ranking=ranking).regions), \
            "restriction method (no group)"
        if ranking and n > 10:  # the restriction method takes minutes there
            ref, how = (lambda: characteristic_polynomial(
                W, ranking=True, method="partitions").regions), "set-partition formula (no group)"
    else:
        W, ranking = simplex_etf(n), family.endswith("ranking")
        ref, how = (factorial(n), "m!") if ranking else (
            (lambda: characteristic_polynomial(W).regions), "restriction method (no group)")
    return characteristic_polynomial(W, ranking=ranking, method="orbits"), ref, how


def _chi_case(family, n, key="canonical"):
    """(count, expected or None, what the expectation is) of one chi benchmark case."""
    if key == "orbits":
        return _orbits_case(family, n)
    if family == "resonance":
        p = (characteristic_polynomial(resonance(n)) if key == "canonical"
             else _Cheap(resonance(n), n, False))
        return p, RESONANCE_REGIONS.get(n), "published"
    if family in DEFORMATIONS:
        shifts, formula = DEFORMATIONS[family]
        W, b = deformation(n, shifts)
        if key == "canonical":
            return characteristic_polynomial(W, bias=b), formula(n), "formula"
        vecs, dim, _ = arrangement_normals(W, bias=b)
        return _Cheap(vecs, dim, True), formula(n), "formula"
    if family.startswith("circulant"):
        W = circulant([(7 * i * i + 3 * i + 1) % 11 - 5 for i in range(n)])
        if not family.endswith("ranking"):
            p = characteristic_polynomial(W)
            return p, lambda: characteristic_polynomial(W, method="nbc").regions, \
                "no-broken-circuit count"
        p = characteristic_polynomial(W, ranking=True, method="partitions")
        if n <= 10:  # the other algorithm: memoised deletion-restriction
            return p, lambda: characteristic_polynomial(W, ranking=True).regions, \
                "restriction method"
        return p, None, "(restriction method not run: too long)"
    ranking = family.endswith("ranking")
    p = characteristic_polynomial(simplex_etf(n), ranking=ranking)
    return p, factorial(n) if ranking else None, "m!" if ranking else ""


def _child(family, n, key, conn):
    c0 = time.process_time()
    p, ref, how = _chi_case(family, n, key)
    cpu = time.process_time() - c0  # the count only: a reference algorithm runs after
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if callable(ref):
        ref = ref()
    if key == "orbits":
        how = (f"group {p.stats['group_order']:,}; {sum(p.stats['orbits']):,} flat orbits; "
               f"{p.stats['least_images']:,} least images; " + how)
    conn.send((p.regions, ref, how, cpu, peak, p.stats.get("computed", 0)))
    conn.close()


def _run_child(family, n, key="canonical"):
    ctx = multiprocessing.get_context("fork")
    a, b = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(family, n, key, b))
    proc.start()
    out = a.recv()
    proc.join()
    return out


def chi_table(args) -> int:
    cases = [("resonance", n) for n in _ints(args.resonance)]
    for fam in DEFORMATIONS:
        cases += [(fam, n) for n in _ints(args.deformations)]
    cases += [(f"circulant-{k}", n) for k in ("sign", "ranking") for n in _ints(args.circulant)]
    cases += [(f"etf-{k}", n) for k in ("sign", "ranking") for n in _ints(args.etf)]
    if args.families:
        keep = set(args.families.split(","))
        cases = [(f, n) for f, n in cases if f in keep]
    keys = ("canonical", "cheap") if args.key == "both" else (args.key,)
    if args.method == "orbits":
        keys = ("orbits",)
    print(f"{'family':>18} {'n':>3} {'regions':>22} {'expected':>22} {'equal':>6} "
          f"{'CPU s':>8} {'peak MB':>8} {'restrictions':>12} {'key':>9}")
    last: dict[tuple[str, str], float] = {}
    bad = 0
    for fam, n in cases:
        for key in keys if (fam == "resonance" or fam in DEFORMATIONS
                            or args.method == "orbits") else ("canonical",):
            if last.get((fam, key), 0.0) > args.cap / 8:
                print(f"{fam:>18} {n:>3} {'skipped: the previous size took':>22} "
                      f"{last[fam, key]:.1f} CPU s (> --cap / 8)")
                continue
            regions, ref, how, cpu, peak, work = _run_child(fam, n, key)
            last[fam, key] = cpu
            eq = "-" if ref is None else str(regions == ref)
            bad += ref is not None and regions != ref
            print(f"{fam:>18} {n:>3} {regions:>22,} {'' if ref is None else f'{ref:,}':>22} "
                  f"{eq:>6} {cpu:>8.2f} {peak:>8.0f} {work:>12,} {key:>9}  {how}", flush=True)
    return 1 if bad else 0


def partial(n: int, cpu_limit: float) -> int:
    """The resonance arrangement of ``R^n`` term by term, until ``cpu_limit`` CPU s."""
    c0 = time.process_time()
    terms = restriction.restriction_terms(resonance(n), n)
    cache: dict = {}
    st: dict = {}
    parts = []
    print(f"resonance n = {n}: {len(terms)} top-level terms; --cpu-limit {cpu_limit:g} CPU s")
    print(f"{'terms done':>10} {'restrictions':>12} {'CPU s':>8} {'peak MB':>8}")
    for q, (sub, k) in enumerate(terms):
        parts.append(restriction.chi_restriction(sub, k, cache=cache, stats=st))
        cpu = time.process_time() - c0
        if (q + 1) % 16 == 0 or q + 1 == len(terms) or cpu > cpu_limit:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{q + 1:>10} {st.get('computed', 0):>12,} {cpu:>8.1f} {peak:>8.0f}",
                  flush=True)
        if cpu > cpu_limit and q + 1 < len(terms):
            print(f"stopped at the CPU limit after {q + 1} of {len(terms)} terms")
            return 0
    # computed entries are essential (chi(0) != 0); the others are shifted copies
    distinct = len({tuple(c) for c in cache.values() if c[0]})
    print(f"distinct chi among the {st.get('computed', 0):,} restrictions computed: "
          f"{distinct:,} (a key with any isomorphism test computes at least this many)")
    regions = abs(evaluate(restriction.combine_terms(n, parts), -1))
    ref = RESONANCE_REGIONS.get(n)
    print(f"regions {regions:,}; published {ref:,}; equal {regions == ref}" if ref else
          f"regions {regions:,}")
    return 0 if ref is None or regions == ref else 1


class _Stop(Exception):
    pass


def resonance_swap(n: int) -> list[list[int]]:
    """The matrix of ``x_n <-> x_(n+1) = -(x_1 + ... + x_n)`` on the resonance arrangement's
    normals (``v -> v M``): with ``S_n`` it generates ``S_(n+1)``."""
    return [[1 if i == j else 0 for j in range(n)] if i < n - 1 else [-1] * n
            for i in range(n)]


def orbits_partial(n: int, cpu_limit: float, full: bool = False) -> int:
    """The resonance arrangement of ``R^n`` by flat orbits, until ``cpu_limit`` CPU s
    (``full``: under ``S_(n+1)``, the detected ``S_n`` and :func:`resonance_swap`)."""
    from logitgeom.geometry.flatorbits import chi_flat_orbits
    from logitgeom.geometry.headgroup import arrangement_symmetry, hyperplane_permutations

    c0 = time.process_time()
    W = resonance(n)
    vecs, dim, _ = arrangement_normals(W)
    sym = arrangement_symmetry(W)
    gens = hyperplane_permutations(vecs, n, False, [list(c) for _, c in sym.generators],
                                   [resonance_swap(n)] if full else [])
    what = (f"S_{n + 1} (the detected group of order {sym.order:,} and the matrix "
            "of x_n <-> x_(n+1))" if full else f"detected group of order {sym.order:,}")
    print(f"resonance n = {n}: {len(vecs)} hyperplanes, {what}; --cpu-limit "
          f"{cpu_limit:g} CPU s")
    print(f"{'stage':>8} {'rank':>4} {'done':>17} {'CPU s':>8} {'peak MB':>8}")
    seen = {"at": ("", -1), "tick": 0.0}

    def report(stage, rank, done, of):
        cpu = time.process_time() - c0
        if (stage, rank) != seen["at"] or cpu - seen["tick"] > 15 or cpu > cpu_limit:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{stage:>8} {rank:>4} {f'{done:,} of {of:,}':>17} {cpu:>8.1f} "
                  f"{peak:>8.0f}", flush=True)
            seen["at"], seen["tick"] = (stage, rank), cpu
        if cpu > cpu_limit:
            raise _Stop

    st: dict = {}
    try:
        chi = chi_flat_orbits(vecs, dim, gens, stats=st, progress=report)
    except _Stop:
        print("stopped at the CPU limit")
        return 0
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    regions = abs(evaluate(chi, -1))
    ref = RESONANCE_REGIONS.get(n)
    print(f"flat orbits by rank {st['orbits']}; flats by rank {st['flats']}; "
          f"{st['least_images']:,} least images; {st.get('computed', 0):,} restrictions")
    print(f"regions {regions:,}; published {ref:,}; equal {regions == ref}; "
          f"{cpu:.1f} CPU s, peak {peak:.0f} MB" if ref else f"regions {regions:,}")
    return 0 if ref is None or regions == ref else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="only the two headline goals")
    ap.add_argument("--chi", action="store_true",
                    help="the characteristic-polynomial table of issue 46 instead")
    ap.add_argument("--resonance", default="3,4,5,6", metavar="N1,N2",
                    help="--chi: resonance sizes (default 3,4,5,6; 7 is about a minute)")
    ap.add_argument("--deformations", default="6,8", metavar="N1,N2",
                    help="--chi: Shi/Catalan/Linial/semiorder sizes (default 6,8)")
    ap.add_argument("--circulant", default="8,10", metavar="M1,M2",
                    help="--chi: circulant head sizes (default 8,10)")
    ap.add_argument("--etf", default="16", metavar="M1,M2",
                    help="--chi: simplex-ETF head sizes (default 16)")
    ap.add_argument("--families", default="", metavar="F1,F2",
                    help="--chi: only these families (resonance, shi, catalan, linial, "
                    "semiorder, circulant-sign, circulant-ranking, etf-sign, etf-ranking)")
    ap.add_argument("--cap", type=float, default=180.0, metavar="S",
                    help="--chi: skip a size once the previous one took over S/8 CPU s")
    ap.add_argument("--key", choices=("canonical", "cheap", "both"), default="canonical",
                    help="--chi: the restriction cache's key for resonance and deformations")
    ap.add_argument("--partial", type=int, default=0, metavar="N",
                    help="the resonance arrangement of R^N term by term (cost curve)")
    ap.add_argument("--cpu-limit", type=float, default=150.0, metavar="S",
                    help="--partial, --orbits-partial: stop once past S CPU s")
    ap.add_argument("--method", choices=("restriction", "orbits"), default="restriction",
                    help="--chi: the count's method (orbits: one flat per orbit of the "
                    "detected group)")
    ap.add_argument("--orbits-partial", type=int, default=0, metavar="N",
                    help="the resonance arrangement of R^N by flat orbits (cost curve)")
    ap.add_argument("--full-group", action="store_true",
                    help="--orbits-partial: the symmetric group on n + 1 letters (a "
                    "coordinate group and one matrix) instead of the detected S_n")
    args = ap.parse_args()
    if args.orbits_partial:
        return orbits_partial(args.orbits_partial, args.cpu_limit, args.full_group)
    if args.partial:
        return partial(args.partial, args.cpu_limit)
    if args.chi:
        return chi_table(args)

    print("headline goals")
    W, _ = _head(10, 6, 0)
    n, w, c = _time(lambda: count_rankings(W), args.repeat)
    ok = n == ranking_count_generic(10, 6)
    print(
        f"  count_rankings k=10 d=6: {n:,} (generic formula {ok}); wall {w:.3f} s, "
        f"CPU {c:.3f} s; goal <= 1 s: {'met' if c <= 1 else 'MISSED'}"
    )
    W, _ = _head(20, 5, 0)
    n, w, c = _time(lambda: count_regions(W), args.repeat)
    ok = n == cover_count(20, 5)
    print(f"  count_regions  k=20 d=5: {n:,} (Cover formula {ok}); wall {w:.3f} s, CPU {c:.3f} s")
    if args.quick:
        return 0

    rows = []
    for kind, ks, ds in (
        ("regions", (10, 20, 30, 40), (3, 4, 5, 6)),
        ("regions+bias", (10, 20, 30), (3, 4, 5)),
        ("rankings", (6, 8, 10, 11), (2, 3, 4, 5, 6)),
        ("rankings+bias", (6, 8, 10), (2, 3, 4, 5)),
    ):
        for k in ks:
            for d in ds:
                W, b = _head(k, d, 1)
                if kind == "regions":
                    fn, ref = (lambda W=W: count_regions(W)), cover_count(k, d)
                elif kind == "regions+bias":
                    fn, ref = (
                        (lambda W=W, b=b: count_regions(W, bias=b)),
                        affine_generic_count(k, d),
                    )
                elif kind == "rankings":
                    fn, ref = (lambda W=W: count_rankings(W)), ranking_count_generic(k, d)
                else:
                    fn = lambda W=W, b=b: count_rankings(W, bias=b)  # noqa: E731
                    ref = ranking_count_generic_affine(k, d)
                n, w, c = _time(fn, 1 if k >= 11 else args.repeat)
                rows.append((kind, k, d, n, n == ref, w, c))
    print()
    print(
        f"{'kind':>14} {'k':>3} {'d':>2} {'count':>12} {'=formula':>8} {'wall s':>8} "
        f"{'CPU s':>8} {'us/region':>9}"
    )
    for kind, k, d, n, ok, w, c in rows:
        print(
            f"{kind:>14} {k:>3} {d:>2} {n:>12,} {ok!s:>8} {w:>8.3f} {c:>8.3f} {1e6 * c / n:>9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
