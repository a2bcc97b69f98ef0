"""``logitgeom solve``: the layer-peeled program on a target matrix file."""

from __future__ import annotations

import argparse

from engine.cli import _output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help="solve the layer-peeled program min J(WH) s.t. ||W||^2<=E_W, ||H||^2<=E_H",
        description="Solve the layer-peeled program for a target Y (m x n, columns are "
                    "probability vectors) at the logit level, with an exact-structure "
                    "reduction when one applies.",
    )
    p.add_argument("Y", help="target matrix file (.csv, .npy or .json)")
    p.add_argument("--ew", default="1", help="budget E_W on ||W||_F^2 (default 1)")
    p.add_argument("--eh", default="1", help="budget E_H on ||H||_F^2 (default 1)")
    p.add_argument("--d", type=int, default=None, help="hidden width (default min(m, n))")
    p.add_argument("--method", default="auto",
                   help="auto, full, circulant, etf or orbit (default auto)")
    p.add_argument("--group", default=None, metavar="SPEC|JSON|FILE",
                   help="a symmetry group of the labels: a spec (S3, C7, AGL5, D5, A5, "
                        "PSL(2,7), PGL(2,5), M11, M12, F(7,3), combined with + x wr), a JSON "
                        "list of generators (0-based image form) or a JSON file holding "
                        "either; the column action is derived from Y (methods etf, orbit, "
                        "auto)")
    p.add_argument("--tol", type=float, default=None,
                   help="approximate symmetry: entries closer than TOL count as equal in "
                        "detection (method orbit or auto; the deviation is reported)")
    p.add_argument("--normalize", action="store_true",
                   help="divide each column of Y by its sum instead of requiring sums of 1")
    p.add_argument("--solver", default=None, help="CLARABEL, SCS or MOSEK (default: registry)")
    _output.add_output(p, what="the full solution as JSON")
    p.set_defaults(func=_solve)


def _solve(args: argparse.Namespace) -> int:
    from engine.convex.problem import LayerPeeled
    from engine.io import read_raw
    from engine.symmetry.constructors import group_from_text

    target = _output.json_target(args)
    _output.prepare(args, target)
    problem = LayerPeeled(read_raw(args.Y), args.ew, args.eh, args.d,
                          normalize=args.normalize)
    options = {}
    if args.group is not None:
        options["group"] = group_from_text(args.group, m=problem.m)
    if args.tol is not None:
        options["tol"] = args.tol
    sol = problem.solve(method=args.method, solver=args.solver, **options)
    if target == "-":
        _output.write(args, "-", sol.to_json(indent=1) + "\n")
        return 0
    m, n = sol.Z.shape
    print(f"Y: {m} x {n}   rho = sqrt(E_W E_H) = {sol.rho:.10g}   d = {sol.d}")
    print(f"method: {sol.method}   solver: {sol.solver}   status: {sol.status}   "
          f"time: {sol.solve_time:.3f} s")
    print(f"loss: {sol.loss:.12g}   dual bound: {sol.dual_bound:.12g}   gap: {sol.gap:.3g}")
    print(f"budget active: {sol.budget_active}   rank: {sol.rank}   tight: {sol.tight}   "
          f"||Z||_*: {sol.nuclear_norm:.10g}")
    if "isotypic_blocks" in sol.info:
        blocks = ", ".join(f"{k}x{d}{'' if kind == 'real' else kind[0]}"
                           for d, k, kind in sol.info["isotypic_blocks"])
        print(f"group: order {sol.info['group_order']} ({sol.info['group_source']})   "
              f"isotypic blocks (multiplicity x dimension): {blocks}")
    if "symmetry_deviation" in sol.info:
        print(f"approximate symmetry: Y deviates from the group average by "
              f"{sol.info['symmetry_deviation']:.3g} (tol {args.tol:g})")
    for key in ("note", "solver_note"):  # d < rank (bound not attained), kept solver tier
        if key in sol.info:
            print(f"note: {sol.info[key]}")
    from engine.cli._beyond import solve_lines

    for line in solve_lines(args, problem, sol):  # rank-d bracket, stability (--tol)
        print(line)
    if target:
        _output.write(args, target, sol.to_json(indent=1) + "\n")
        print(f"solution written to {target}")
    return 0
