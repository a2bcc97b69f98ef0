"""``logitgeom solvers`` and ``logitgeom demo``: environment facts and a tiny real run."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solvers", help="list usable conic solvers and solve a tiny test problem")
    p.set_defaults(func=_solvers)
    p = sub.add_parser("demo", help="a tiny end-to-end computation (set-up smoke test)")
    p.set_defaults(func=_demo)


def _solvers(args: argparse.Namespace) -> int:
    from logitgeom.convex import solvers

    for s in solvers.Solver:
        installed = solvers.is_installed(s)
        usable = s.name in solvers.available_solvers()
        note = "" if not s.needs_licence else f" (licence usable: {solvers.mosek_licensed()})"
        print(f"{s.name:9s} installed={installed} usable={usable}{note}")
    print(f"default: {solvers.default_solver()}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    import cdd.gmp  # noqa: F401 - proves exact arithmetic is available
    import cvxpy as cp

    from logitgeom.convex.solvers import solve
    from logitgeom.exact.numbers import to_matrix

    W = to_matrix([[1, "-4/5", 1], [1, "4/5", 1], [1, "11/20", "-1/2"], [1, -1, -1], [1, 1, -1]])
    print("exact input (App. H.2, W1):", [[str(x) for x in r] for r in W])
    x = cp.Variable(2)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - [1, 2])), [cp.norm(x, 2) <= 1])
    rep = solve(prob)
    print(f"tiny conic solve: solver={rep.solver} status={rep.status} value={rep.value:.6f}")
    return 0
