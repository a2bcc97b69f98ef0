"""``logitgeom solve``: the layer-peeled program on a target matrix file."""

from __future__ import annotations

import argparse
import json
import math

from logitgeom.cli import _output


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
                   help="auto, full, circulant, etf or orbit (default auto); with a family "
                        "option: auto, full, two-orbit or svt")
    p.add_argument("--group", default=None, metavar="SPEC|JSON|FILE",
                   help="a symmetry group of the labels: a spec (S3, C7, AGL5, D5, A5, "
                        "PSL(2,7), PGL(2,5), M11, M12, F(7,3), combined with + x wr), a JSON "
                        "list of generators (0-based image form) or a JSON file holding "
                        "either; the column action is derived from Y (methods etf, orbit, "
                        "auto)")
    p.add_argument("--tol", type=tolerance, default=None,
                   help="approximate symmetry: entries closer than TOL count as equal in "
                        "detection (method orbit or auto; the deviation is reported)")
    p.add_argument("--allow-collapse", action="store_true",
                   help="with --tol: go on when TOL makes every entry one tolerance class or "
                        "detects only the identity (refused by default: the symmetry found "
                        "says nothing then)")
    p.add_argument("--normalize", action="store_true",
                   help="divide each column of Y by its sum instead of requiring sums of 1")
    p.add_argument("--solver", default=None, help="CLARABEL, SCS or MOSEK (default: registry)")
    add_family_arguments(p)
    _output.add_output(p, what="the full solution as JSON")
    p.set_defaults(func=_solve)


def add_family_arguments(p: argparse.ArgumentParser) -> None:
    """``--loss``, ``--weights``, ``--h-budget``, ``--equal-rows`` (the layer-peeled family,
    docs/layer-peeled-family.md); shared by ``solve`` and ``certify solve``."""
    p.add_argument("--loss", default="ce", metavar="ce|mse|bce",
                   help="loss: ce (softmax cross-entropy, default), mse (||z - y||^2 / 2) or bce "
                        "(sigmoid heads, binary cross-entropy)")
    p.add_argument("--weights", default=None, metavar="W1,W2,...|FILE",
                   help="column weights w_j > 0 of the loss (one per column of Y)")
    p.add_argument("--h-budget", default=None, metavar="B1,B2,...|FILE",
                   help="feature budget weights beta_j > 0: sum_j beta_j ||h_j||^2 <= E_H")
    p.add_argument("--equal-rows", default=None, metavar="I,J,...",
                   help="restrict to equal classifiers w_i on these labels (0-based)")


def tolerance(text: str) -> float:
    """``--tol``: a finite number >= 0 (argparse type of ``solve`` and ``certify solve``)."""
    try:
        tol = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(tol) and tol >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number >= 0 (a tolerance "
                                         "on entries of Y)")
    return tol


def _family_asked(args: argparse.Namespace) -> bool:
    return not (args.loss == "ce" and args.weights is None and args.h_budget is None
                and args.equal_rows is None)


def check_options(args: argparse.Namespace) -> None:
    """Refuse option combinations that ``solve`` or ``certify solve`` would not honour: the
    one validation of both commands (an option is honoured on every path or refused here).

    Raises
    ------
    InvalidInput
        Naming the options that do not combine.
    """
    from logitgeom.errors import InvalidInput

    def given(name: str) -> bool:
        v = getattr(args, name, None)
        return v is not None and v is not False

    if getattr(args, "solver", None) is not None:  # every path, also a closed form's
        from logitgeom.convex.solvers import resolve_solver

        resolve_solver(args.solver)
    tol = getattr(args, "tol", None)
    if tol is not None and not (math.isfinite(tol) and tol >= 0):  # the API path
        raise InvalidInput(f"--tol must be a finite number >= 0; got {tol!r}")
    if _family_asked(args):
        named = [f"--{n.replace('_', '-')}" for n in ("loss", "weights", "h_budget",
                                                        "equal_rows")
                 if (n == "loss" and args.loss != "ce") or (n != "loss" and given(n))]
        other = [f"--{n}" for n in ("normalize", "d", "tol", "y0", "bases", "allow_collapse")
                 if given(n)]
        if other:
            raise InvalidInput(f"{', '.join(named)} (the layer-peeled family) does not combine "
                               f"with {', '.join(o.replace('_', '-') for o in other)}: the "
                               "family's programs have no rank bracket, stability certificate, "
                               "normalisation or orbit form")
    if given("allow_collapse") and tol is None:
        raise InvalidInput("--allow-collapse only applies with --tol")
    certify = hasattr(args, "bases")
    if not certify:
        return
    beyond = given("d") or given("tol") or given("y0")
    if given("d") and (given("tol") or given("y0")):
        raise InvalidInput("give --d (rank bracket) or --tol/--y0 (stability), not both")
    if beyond and given("bases"):
        raise InvalidInput("--d, --tol and --y0 need a target file Y, not --bases")
    if beyond and str(args.method).lower() != "auto":
        raise InvalidInput(f"--method {args.method} does not apply to --d/--tol/--y0 (the rank "
                           "bracket and the stability certificate choose their own solves)")
    if given("d") and (given("group") or given("generators")):
        raise InvalidInput("--group/--generators do not apply to --d (a rank bracket proves "
                           "no symmetry)")
    if (given("tol") or given("y0")) and given("generators"):
        raise InvalidInput("with --tol/--y0 give the group as --group (--generators is the "
                           "plain bracket's)")
    if (given("tol") or given("y0")) and given("eps"):
        raise InvalidInput("--eps does not apply to --tol/--y0 (the stability certificate "
                           "states its own widths)")


def family_problem(args: argparse.Namespace, Y):
    """A :class:`logitgeom.convex.family.LayerPeeledFamily` when a family option is given, else
    None (the balanced cross-entropy program)."""
    if not _family_asked(args):
        return None
    from logitgeom.convex.family import LayerPeeledFamily

    check_options(args)
    return LayerPeeledFamily(Y, args.ew, args.eh, loss=args.loss,
                             weights=_list(args.weights, "weights"),
                             h_budget=_list(args.h_budget, "h_budget"),
                             equal_rows=_list(args.equal_rows, "equal-rows", int))


def _list(text: str | None, what: str, kind=str):
    """A comma-separated list, or a file holding one row/column of numbers."""
    from logitgeom.io import read_number_list

    return read_number_list(text, what, kind)


def _solve_family(args: argparse.Namespace, problem, target) -> int:
    sol = problem.solve(method=args.method, solver=args.solver)
    if target == "-":
        _output.write(args, "-", json.dumps(sol.to_dict(), sort_keys=True, indent=1) + "\n")
        return 0
    m, n = problem.shape
    print(f"Y: {m} x {n}   loss: {problem.loss.name}   rho = sqrt(E_W E_H) = {problem.rho:.10g}")
    print(f"method: {sol.method}   solver: {sol.solver}   status: {sol.status}")
    print(f"loss: {sol.loss:.12g}   dual bound: {sol.dual_bound:.12g}   gap: {sol.gap:.3g}")
    if target:
        _output.write(args, target, json.dumps(sol.to_dict(), sort_keys=True, indent=1) + "\n")
        print(f"solution written to {target}")
    return 0


def _solve(args: argparse.Namespace) -> int:
    from logitgeom.convex.problem import LayerPeeled
    from logitgeom.io import read_raw
    from logitgeom.symmetry.constructors import group_from_text

    check_options(args)
    target = _output.json_target(args)
    _output.prepare(args, target)
    family = family_problem(args, read_raw(args.Y))
    if family is not None:
        if args.group is not None:
            from logitgeom.errors import InvalidInput

            raise InvalidInput("--group does not combine with the family options (the "
                               "two-orbit structure is found by itself)")
        return _solve_family(args, family, target)
    problem = LayerPeeled(read_raw(args.Y), args.ew, args.eh, args.d,
                          normalize=args.normalize)
    options = {}
    if args.group is not None:
        options["group"] = group_from_text(args.group, m=problem.m)
    if args.tol is not None:
        options["tol"] = args.tol
    sol = problem.solve(method=args.method, solver=args.solver, **options)
    from logitgeom.cli._beyond import solve_extras

    extra_lines, extra = solve_extras(args, problem, sol)  # rank-d bracket, stability (--tol)
    doc = json.dumps({**sol.to_dict(), **extra}, sort_keys=True, indent=1,
                     allow_nan=False) + "\n"  # every figure the text shows
    if target == "-":
        _output.write(args, "-", doc)
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
    for line in extra_lines:
        print(line)
    if target:
        _output.write(args, target, doc)
        print(f"solution written to {target}")
    return 0
