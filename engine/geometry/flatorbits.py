"""chi(t) from the orbits of flats under a group of automorphisms of the arrangement.

Every point of ``Q^d`` lies in exactly one flat ``X`` of the central arrangement ``A`` off
the hyperplanes not containing ``X`` (its flat is the intersection of the hyperplanes
through it), so over ``F_q`` for good primes, and hence as polynomials,

    t^d = sum_X chi_{A^X}(t),   chi_A(t) = t^d - sum_{X != V} chi_{A^X}(t),

``A^X`` the restriction of ``A`` to ``X`` (docs/counting.md, section 6).  An automorphism
``g`` (a linear map permuting the hyperplanes) maps ``A^X`` onto ``A^(gX)``, so the sum may
be taken over one flat per orbit, times the orbit's size.

Flats are kept as *closed sets* (the sorted indices of the hyperplanes containing the
flat), on which the group acts through its permutations of the hyperplanes; the orbit of
a closed set is identified by its least image under the group and its size is
``|G| / |Stab|`` (:meth:`logitgeom.geometry.permchain.StabilizerChain.least_image`, exact).
The flats of rank ``r + 1`` are the closures ``X cup {H}`` of the flats ``X`` of rank
``r``: every one is a group image of the closure of a representative of rank ``r`` with
one more hyperplane, so running over the representatives' children finds every orbit.  A
representative carries its restriction in coordinates (each hyperplane not containing it
reduced to a primitive normal in ``Q^(d - r)``, as :mod:`logitgeom.exact.restriction`
does); hyperplanes with the same reduced normal close to the same child.  Each orbit's
``chi_{A^X}`` is computed by :func:`logitgeom.exact.restriction.chi_restriction` with one
shared table.

With an executor, each rank's two stages are split into units (contiguous chunks of the
representatives, or of the orbits' terms) run on the workers: the children found by the
chunks are merged in chunk order, first occurrence kept, which is the serial order, and the
terms' partial sums are added in chunk order, so the result and the orbit statistics do not
depend on the workers (the steps are in :mod:`logitgeom.geometry.flatsteps`).  Each
worker keeps its own table of restrictions for the run.  With a state folder each finished
level, chunk of terms and chunk of an extension is kept on disk
(:mod:`logitgeom.geometry.orbitstate`) and a rerun resumes from them.

The largest restrictions, to flats of rank 1 and 2, are not computed: with ``f(X)`` the
sum of the Moebius values of the flats of rank at most 2 below ``X`` (``1 - a(X) + sum
(c(Z) - 1)``, ``a(X)`` the hyperplanes through ``X``, the sum over the rank-2 flats ``Z``
through ``X`` on ``c(Z)`` hyperplanes each), Moebius inversion on the flats of rank 3 and
up gives ``chi_A(t) = t^d - m t^(d-1) + sum_{rank Z = 2} (c(Z) - 1) t^(d-2) -
sum_{rank X >= 3} f(X) chi_{A^X}(t)`` (``low=2``, the default; ``low=0`` is the plain
formula above).

Examples
--------
>>> normals = [(1, 0), (0, 1), (1, 1), (1, -1)]           # four lines through 0
>>> swap = (1, 0, 2, 3)                                     # x <-> y permutes them
>>> chi_flat_orbits(normals, 2, [swap])
[3, -4, 1]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from logitgeom._fsio import folder_lock
from logitgeom.exact import restriction
from logitgeom.geometry import orbitstate
from logitgeom.geometry.flatsteps import (
    _WORKER_CACHE,
    _chunks,
    _extend,
    _extend_unit,
    _level,
    _level_unit,
    _merge,
    _pair_flats,
    _rank2_sum,
    _terms,
    _terms_unit,
)
from logitgeom.geometry.permchain import StabilizerChain

__all__ = ["chi_flat_orbits", "SEARCHES_PER_UNIT", "TERM_UNITS", "SMALL_TERM_UNITS",
           "EXTEND_UNITS", "EXTEND_CHUNK"]

#: least-image searches allowed per unit of ``budget`` (a representative has a child per
#: hyperplane class off it, each one search)
SEARCHES_PER_UNIT = 100
#: at most this many chunks of terms per rank (fixed by the number of orbits alone, so a
#: resumed run splits a rank as the killed one did, whatever its workers)
TERM_UNITS = 64
#: at most this many for restrictions of dimension 3 and less (closed forms: each a few
#: microseconds, so many small units would cost more in round trips than in work)
SMALL_TERM_UNITS = 8
#: chunks of representatives when extending a rank with a state folder: this many, or four
#: per worker if more, but none of fewer than :data:`EXTEND_CHUNK` representatives (kept
#: chunks are reused when a rerun splits the rank the same way); without one, four per
#: worker
EXTEND_UNITS = 64
EXTEND_CHUNK = 16

Vec = tuple[int, ...]
Level = orbitstate.Level


class _Run:
    """One count's state: the counters, the budget spent by this run, the executor and the
    state folder."""

    def __init__(self, chain: StabilizerChain, dim: int, low: int, pairs: object, memo: dict,
                 budget: int | None, progress: Callable | None, executor: object,
                 folder: Path | None, token: str, chi_of: Callable | None = None) -> None:
        self.chain, self.dim, self.low, self.pairs, self.memo = chain, dim, low, pairs, memo
        self.chi_of = chi_of
        self.budget, self.progress, self.executor = budget, progress, executor
        self.folder, self.token = folder, token
        self.searches = self.found = self.computed = 0  # this run's, for the budget
        self.kept_searches = 0  # searches of kept chunks of an extension
        self.units = 0  # chunks of terms finished (kept ones included)
        self.st: dict = {}

    def _left(self) -> int | None:
        """Restrictions this run may still compute."""
        return None if self.budget is None else self.budget - self.found - self.computed

    def _over(self) -> None:
        if self.budget is not None and (self.searches > SEARCHES_PER_UNIT * self.budget or
                                        self.found + self.computed > self.budget):
            raise restriction.WorkBudgetExceeded

    def extend(self, level: Level, rank: int) -> Level:
        """The orbits of rank ``rank + 1`` from the representatives of rank ``rank``."""
        reps = [(c, imgs) for c, imgs, _ in level.values()]
        classes = []  # the hyperplanes off each representative by restricted normal
        for c, imgs in reps:
            groups: dict[Vec, list[int]] = {}
            for j, v in imgs.items():
                groups.setdefault(v, []).append(j)
            classes.append((c, list(groups.values())))
        b = self.budget
        s_left = None if b is None else SEARCHES_PER_UNIT * b - self.searches
        o_left = None if b is None else b - self.found - self.computed
        if self.executor is None and self.folder is None:
            found, s = _extend(self.chain, classes, 0, s_left, o_left, self.progress, rank,
                               len(reps))
            self.searches += s
        else:
            found = self._extend_chunks(classes, rank, s_left, o_left)
        nxt = self.level(reps, found)
        self.found += len(nxt)
        self._over()
        return nxt

    def level(self, reps: list, found: dict) -> Level:
        """The level of the children ``found`` (their restrictions computed on the
        executor in chunks, in order, if there is one)."""
        if self.executor is None:
            return _level(self.chain, reps, found)
        from logitgeom.run.executor import worker_count

        rows = [(key, child, stab, i, j) for key, (child, stab, i, j) in found.items()]
        bounds = _chunks(len(rows), 4 * worker_count(self.executor))
        units = [(self.chain.order, {i: reps[i][1] for _, _, _, i, _ in rows[a:z]},
                  rows[a:z]) for a, z in bounds]
        parts: list = [None] * len(bounds)
        with closing(self._units(_level_unit, units, "restrictions")) as runs:
            for i, part in runs:
                parts[i] = part
        return {key: (child, sub, n) for part in parts for key, child, sub, n in part}

    def _extend_chunks(self, classes: list, rank: int, s_left: int | None,
                       o_left: int | None) -> dict:
        """The children of ``classes`` from consecutive chunks, run on the executor (or
        here) and kept in the state folder, merged in chunk order."""
        from logitgeom.run.executor import worker_count

        n = len(classes)
        k = 4 * worker_count(self.executor)
        if self.folder is not None:
            k = min(max(EXTEND_UNITS, k), -(-n // EXTEND_CHUNK))
        bounds = _chunks(n, k)
        parts: dict[int, dict] = {}
        if self.folder is not None:
            parts, kept = orbitstate.load_extend(self.folder, rank, len(bounds))
            self.st["resumed_extend_units"] = self.st.get("resumed_extend_units", 0) + \
                len(parts)
            self.kept_searches += kept
        todo = [c for c in range(len(bounds)) if c not in parts]
        done = sum(bounds[c][1] - bounds[c][0] for c in parts)
        if self.executor is None:
            for c in todo:
                a, z = bounds[c]
                part, s = _extend(self.chain, classes[a:z], a, s_left, o_left, self.progress,
                                  rank, n)
                self._extended(rank, c, len(bounds), part, s, parts)
        else:
            units = [(self.chain, classes[a:z], a, s_left, o_left)
                     for a, z in (bounds[c] for c in todo)]
            with closing(self._units(_extend_unit, units, f"rank {rank + 1}")) as runs:
                for i, (part, s) in runs:
                    c = todo[i]
                    self._extended(rank, c, len(bounds), part, s, parts)
                    done += bounds[c][1] - bounds[c][0]
                    if self.progress is not None:
                        self.progress("extend", rank, done, n)
        return _merge([parts[c] for c in range(len(bounds))])

    def _units(self, fn: Callable, units: list, desc: str) -> Iterator[tuple[int, Any]]:
        """``(position in units, value)`` of each unit of ``fn`` on the executor as it
        finishes; a unit past its budget (``None``) stops the count, and closing this
        (a stop) cancels the pending units."""
        from logitgeom.run.executor import run_units

        runs: Any = run_units(fn, units, executor=self.executor, progress=False, desc=desc)
        try:
            for r in runs:
                if r.value is None:
                    raise restriction.WorkBudgetExceeded
                yield r.index, r.value
        finally:
            runs.close()

    def _extended(self, rank: int, c: int, chunks: int, part: dict, searches: int,
                  parts: dict[int, dict]) -> None:
        parts[c] = part
        self.searches += searches
        self._over()
        if self.folder is not None:
            from logitgeom.run.state import kill_hook

            orbitstate.save_extend(self.folder, rank, c, chunks, part, searches)
            kill_hook("orbits-extend", len(parts))

    def restrict(self, level: Level, rank: int, out: list[int]) -> None:
        """Add the terms of the orbits of rank ``rank`` to ``out``."""
        dim, low, progress = self.dim, self.low, self.progress
        entries = list(level.values())
        if rank <= low:  # Moebius values: -1 on a hyperplane, c - 1 on a rank-2 flat
            for i, (closed, _, n) in enumerate(entries):
                if progress is not None:
                    progress("restrict", rank, i, len(entries))
                if rank == 1:
                    out[dim - 1] -= n
                else:
                    out[dim - 2] += n * (len(closed) - 1)
            return
        jobs = []
        for closed, imgs, n in entries:
            f = 1  # the sum of mu over the flats of rank <= low through this one
            if low >= 1:
                f -= len(closed)
            if low >= 2:
                f += _rank2_sum(self.pairs, closed)
            jobs.append((n * f, list(imgs.values()), dim - rank,
                         closed if self.chi_of is not None else None))
        bounds = _chunks(len(jobs), TERM_UNITS if dim - rank > 3 else SMALL_TERM_UNITS)
        done: dict[int, list[int]] = {}
        if self.folder is not None:
            done, kept = orbitstate.load_terms(self.folder, rank, len(bounds))
            self.st["resumed_units"] = self.st.get("resumed_units", 0) + len(done)
            self._count(kept)
            self.units += len(done)
        todo = [c for c in range(len(bounds)) if c not in done]
        if self.executor is None:
            for c in todo:
                a, z = bounds[c]
                vec, st = _terms(jobs[a:z], dim + 1, self.memo, self._left(), progress, rank,
                                 a, len(jobs), self.chi_of)
                self._finished(rank, c, len(bounds), vec, st, done)
        else:
            limit = self._left()  # each unit's; the sum is checked as they finish
            units = [(self.token, jobs[a:z], dim + 1, limit, self.chi_of) for a, z in
                     (bounds[c] for c in todo)]
            with closing(self._units(_terms_unit, units, f"terms {rank}")) as runs:
                for i, (vec, st) in runs:
                    self._finished(rank, todo[i], len(bounds), vec, st, done)
                    self._over()
                    if progress is not None:
                        progress("restrict", rank, len(done), len(bounds))
        for c in range(len(bounds)):  # a fixed order, whatever finished first
            for e, x in enumerate(done[c]):
                out[e] += x

    def _count(self, st: dict) -> None:
        for k, v in st.items():
            self.st[k] = self.st.get(k, 0) + v

    def _finished(self, rank: int, c: int, chunks: int, vec: list[int], st: dict,
                  done: dict[int, list[int]]) -> None:
        done[c] = vec
        self._count(st)
        self.units += 1
        self.computed += st.get("computed", 0)
        if self.folder is not None:
            from logitgeom.run.state import kill_hook

            orbitstate.save_terms(self.folder, rank, c, chunks, vec, st)
            kill_hook("orbits", self.units)


def chi_flat_orbits(vecs: Sequence[Sequence[int]], dim: int,
                    generators: Sequence[Sequence[int]], *,
                    cache: dict | None = None, stats: dict | None = None,
                    budget: int | None = None, low: int = 2,
                    progress: Callable[[str, int, int, int], None] | None = None,
                    executor: object = None, state_dir: str | os.PathLike | None = None,
                    chi_of: Callable[[tuple[int, ...], int], list[int]] | None = None
                    ) -> list[int]:
    """chi(t) of the central arrangement ``vecs`` in ``Q^dim``, one flat per orbit.

    Parameters
    ----------
    vecs : sequence of integer vectors of length ``dim``
        Distinct, non-parallel, non-zero normals (as :func:`~logitgeom.exact.restriction.
        normal_set` returns); hyperplane ``i`` is ``vecs[i]``.
    dim : int
    generators : sequence of permutations of ``range(len(vecs))``
        Automorphisms of the arrangement as permutations of its hyperplanes (``g[i]`` is
        the image of hyperplane ``i``).  They are trusted to be automorphisms (of the
        intersection lattice): the caller checks them.
    cache : dict, optional
        The table of restrictions shared with :func:`~logitgeom.exact.restriction.
        chi_restriction` (serial work; each worker keeps its own).
    stats : dict, optional
        Receives ``orbits`` (flat orbits by rank), ``flats`` (flats by rank: the orbit
        sizes summed), ``least_images`` (searches run), ``group_order``, the restriction
        counters, and with a state folder ``resumed_rank`` (the rank of the level a rerun
        started from, 0 for none), ``resumed_units`` (chunks of terms read back) and
        ``resumed_extend_units`` (chunks of extensions read back).
    budget : int, optional
        At most this many flat orbits found and restrictions computed together by this
        call (work read back from a state folder is free), and ``SEARCHES_PER_UNIT``
        times as many least-image searches:
        :class:`~logitgeom.exact.restriction.WorkBudgetExceeded` past it.  With an
        executor a restriction that two workers both compute counts twice, and the units
        already running when the budget runs out finish first.
    low : {0, 1, 2}
        The flats of rank at most ``low`` enter through their Moebius values (``-1`` for
        a hyperplane, ``c - 1`` for a flat of rank 2 on ``c`` hyperplanes) and the flats
        above through ``f(X) chi_{A^X}``, ``f(X)`` the sum of those Moebius values below
        ``X`` (module docstring): 2 (default) never computes a restriction to a flat of
        rank 1 or 2, the largest ones; 0 is the plain formula.
    progress : callable, optional
        Called as ``progress("extend", rank, done, of)`` before each representative of
        rank ``rank`` is extended to the next rank, and ``progress("restrict", rank, done,
        of)`` before each orbit's term of rank ``rank`` is computed (``done`` of ``of``
        so far); with an executor, after each finished unit instead (representatives
        done of ``of``, or chunks of terms done of ``of``); it may raise to stop the count.
    executor : None, concurrent.futures.Executor or distributed.Client, optional
        Run each rank's extension (in chunks of representatives) and its terms (in at
        most :data:`TERM_UNITS` chunks of orbits, :data:`SMALL_TERM_UNITS` for
        restrictions of dimension 3 and less) on these workers
        (:func:`logitgeom.run.executor.run_units`); the result is the same.
    state_dir : path, optional
        Keep each finished level and chunk of terms in a folder under it keyed by the
        arrangement, the generators and ``low`` (:mod:`logitgeom.geometry.orbitstate`); a
        rerun after a kill resumes from them.
    chi_of : callable, optional
        ``chi_of(closed, k)``: ``chi_{A^X}`` of the flat ``X`` of the closed set ``closed``
        (dimension ``k``), or ``None`` to leave it to the restriction computed in
        coordinates through the table ``cache``; it must be picklable to run on an
        executor.  For the ranking
        arrangement of a central head, :class:`logitgeom.geometry.rankflats.
        RankingRestrictions` (the set-partition formula of the flat's blocks, no table).

    Returns
    -------
    list of int
        ``c[i]`` is the coefficient of ``t**i``.

    Examples
    --------
    >>> cube = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    >>> chi_flat_orbits(cube, 3, [(1, 2, 0)])          # (t - 1)^3
    [-1, 3, -3, 1]
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as ex:
    ...     chi_flat_orbits(cube, 3, [(1, 2, 0)], executor=ex)
    [-1, 3, -3, 1]
    """
    normals: list[Vec] = [tuple(int(x) for x in v) for v in vecs]
    m = len(normals)
    if low not in (0, 1, 2):
        raise ValueError(f"low must be 0, 1 or 2; got {low!r}")
    chain = StabilizerChain(generators, m)
    gens = [list(g) for g in chain.generators]
    token = orbitstate.key(normals, dim, gens, low)
    folder = None if state_dir is None else orbitstate.folder(state_dir, normals, dim, gens,
                                                              low)
    run = _Run(chain, dim, low, _pair_flats(normals) if low >= 2 else None,
               {} if cache is None else cache, budget, progress, executor, folder, token,
               chi_of)
    out = [0] * (dim + 1)
    out[dim] = 1
    level: Level = {(): ((), dict(enumerate(normals)), 1)}
    rank = 0
    counters: dict = {"orbits": [], "flats": [], "least_images": 0}
    with folder_lock(folder):  # one run at a time writes a state folder
        kept = None if folder is None else orbitstate.load_level(folder)
        if kept is not None:  # the level of this rank is extended; its terms come next
            rank, level, out, counters = kept
        resumed, fresh = rank, kept is None
        before = counters["least_images"]  # the searches of the runs that built the kept level
        try:
            while True:
                if fresh:
                    level = run.extend(level, rank)
                    rank += 1
                    if not level:
                        break
                    counters["orbits"].append(len(level))
                    counters["flats"].append(sum(n for _, _, n in level.values()))
                    counters["least_images"] = before + run.searches + run.kept_searches
                    if folder is not None:
                        from logitgeom.run.state import kill_hook

                        orbitstate.save_level(folder, rank, level, out, counters)
                        kill_hook("orbits-level", rank)
                fresh = True
                run.restrict(level, rank, out)
        finally:
            _WORKER_CACHE.clear()  # a thread executor's table lives in this process
    if stats is not None:
        for k, v in run.st.items():
            stats[k] = stats.get(k, 0) + v
        stats["orbits"] = counters["orbits"]
        stats["flats"] = counters["flats"]
        stats["least_images"] = (stats.get("least_images", 0) + before + run.searches +
                                 run.kept_searches)
        stats["group_order"] = chain.order
        if folder is not None:
            stats["resumed_rank"] = resumed
            stats.setdefault("resumed_units", 0)
            stats.setdefault("resumed_extend_units", 0)
    return out
