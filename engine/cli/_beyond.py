"""CLI glue for the programs beyond the symmetry paper (docs/beyond-symmetry.md): the
rank-constrained bracket (``--d``) and approximate symmetry (``--tol`` / ``--y0``) of
``logitgeom solve`` and ``logitgeom certify solve``.  No mathematics here."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import Any

#: ``solve --d`` runs the rank-d search (several full-size conic solves) up to this m n
RANK_SEARCH_MAX = 20_000


def solve_lines(args: argparse.Namespace, problem: Any, sol: Any) -> list[str]:
    """Extra report lines of ``logitgeom solve``: the rank-d bracket when d < rank, the
    stability figures when ``--tol`` found an approximate symmetry."""
    return solve_extras(args, problem, sol)[0]


def solve_extras(args: argparse.Namespace, problem: Any, sol: Any) -> tuple[list[str], dict]:
    """The extra figures of ``logitgeom solve`` as report lines and as JSON fields (the same
    figures: ``--json`` and ``-o`` carry every one the text shows): ``rank_bracket`` (the
    rank-d bracket when d < rank, or why the search was skipped) and ``stability`` (when
    ``--tol`` found an approximate symmetry)."""
    out: list[str] = []
    fields: dict[str, Any] = {}
    if args.d is not None and not sol.tight and problem.m * problem.n > RANK_SEARCH_MAX:
        out.append(f"rank-{args.d} search skipped: m n = {problem.m * problem.n:,} entries > "
                   f"{RANK_SEARCH_MAX:,} (each candidate is a full-size conic solve); "
                   "logitgeom.convex.rank_constrained runs it on request")
        fields["rank_bracket"] = {"d": args.d, "skipped": out[-1]}
    elif args.d is not None and not sol.tight:
        from logitgeom.convex.lowrank import rank_constrained

        r = rank_constrained(problem, args.d, sol=sol, solver=args.solver)
        out.append(f"rank-{args.d} program: J*_d in [{r.convex_lower:.12g}, {r.loss:.12g}] "
                   f"(relaxation gap <= {r.gap:.3g}; best point: {r.construction}; "
                   "certify: logitgeom certify solve --d)")
        fields["rank_bracket"] = {"d": args.d, "lower": float(r.convex_lower),
                                  "upper": float(r.loss), "gap": float(r.gap),
                                  "construction": r.construction}
    plan = getattr(getattr(sol, "reduction", None), "plan", None)
    if args.tol is not None and "symmetry_deviation" in sol.info and plan is not None:
        from logitgeom.convex.stability import stability_report

        rep = stability_report(problem.entries, problem.E_W_exact, problem.E_H_exact,
                               plan.group, solver=args.solver, tol=args.tol,
                               allow_collapse=args.allow_collapse)
        out += rep.lines()
        fields["stability"] = rep.as_dict()
    return out, fields


def certify_beyond(args: argparse.Namespace, Y: Any, eps: Any, prov: dict,
                   report: dict | None = None) -> dict | None:
    """The ``certify solve`` certificate for ``--d`` (a rank bracket) or ``--tol``/``--y0``
    (a stability certificate), checked under ``--max-work`` (its metered work in
    ``report["work"]``); None when neither was asked for."""
    from logitgeom.convex.problem import LayerPeeled
    from logitgeom.errors import InvalidInput

    if args.d is not None and (args.tol is not None or args.y0 is not None):
        raise InvalidInput("give --d (rank bracket) or --tol/--y0 (stability), not both")
    if args.d is not None:
        from logitgeom.convex.lowrank import rank_certificate

        problem = LayerPeeled(Y, args.ew, args.eh, args.d, normalize=args.normalize)
        return rank_certificate(problem, args.d, eps=eps, solver=args.solver, provenance=prov,
                                max_work=args.max_work, report=report)
    if args.tol is None and args.y0 is None:
        return None
    from logitgeom.convex.stability import stability_certificate
    from logitgeom.io import read_matrix
    from logitgeom.symmetry.constructors import group_from_text

    tol = 1e-6 if args.tol is None else args.tol
    Y0 = read_matrix(args.y0, what="Y0") if args.y0 is not None else None
    problem = LayerPeeled(Y, args.ew, args.eh, normalize=args.normalize)
    if args.group is not None:
        group = group_from_text(args.group, m=problem.m)
    else:
        _, verdict = problem.choose("orbit", tol=tol)
        group = verdict.plan.group
    return stability_certificate(Y, args.ew, args.eh, group, Y0=Y0, tol=tol,
                                 solver=args.solver, normalize=args.normalize, provenance=prov,
                                 allow_collapse=args.allow_collapse,
                                 max_work=args.max_work, report=report)


def say(cert: dict) -> None:
    """What a rank or stability certificate proves, on stdout (after it was written)."""
    if cert["kind"] == "layer-peeled-rank-bracket":
        lo, up = Fraction(cert["lower"]), Fraction(cert["upper"])
        print(f"J*_d in [{float(lo):.12g}, {float(up):.12g}] for d = {cert['d']} "
              f"(relaxation {cert['relaxation']}; width {float(up - lo):.3g})")
    else:
        b1, b0 = cert["brackets"]
        print(f"J*(Y) in [{float(Fraction(b1['lower'])):.12g}, "
              f"{float(Fraction(b1['upper'])):.12g}], J*(Y0) in "
              f"[{float(Fraction(b0['lower'])):.12g}, {float(Fraction(b0['upper'])):.12g}], "
              f"|J*(Y) - J*(Y0)| <= {float(Fraction(cert['stability'])):.6g}, "
              f"||C (Z0 - Z*)||_F <= {float(Fraction(cert['distance2'])) ** 0.5:.6g}")
    print(cert["statement"], file=sys.stdout)
