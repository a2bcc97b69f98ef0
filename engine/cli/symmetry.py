"""``logitgeom symmetry``: detect the symmetry of a target, build orbit targets, show the
predicted Gram pattern.  Thin: parsing and printing only (the work is logitgeom.symmetry)."""

from __future__ import annotations

import argparse
import json

_MAX_WORK = "refuse at once when the estimated work exceeds N units (engine/limits.py)"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("symmetry", help="permutation symmetries of targets (detect, orbit "
                                        "targets, predicted Gram pattern)")
    ss = p.add_subparsers(dest="symmetry_command", metavar="ACTION")
    d = ss.add_parser("detect", help="the group of (row, column) permutations preserving Y")
    d.add_argument("Y", help="target matrix file (.csv, .npy or .json)")
    d.add_argument("--max-order", type=int, default=10_000,
                   help="stop after this many automorphisms (default 10000)")
    from logitgeom.cli.solve import tolerance

    d.add_argument("--tol", type=tolerance, default=0.0,
                   help="approximate symmetry: entries closer than TOL count as equal; the "
                        "group found is verified on Y and its largest deviation reported")
    d.add_argument("--json", action="store_true", help="print JSON (sorted keys)")
    d.add_argument("-o", "--out", default=None, metavar="PATH",
                   help="write the JSON to PATH (implies --json)")
    d.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    d.add_argument("--max-work", type=int, default=None, metavar="N", help=_MAX_WORK)
    d.set_defaults(func=_detect)
    t = ss.add_parser("target", help="orbit target Y = [g o y : g in G] as CSV of p/q values")
    t.add_argument("group", help="e.g. S3, C7, AGL5, D5, A5, PSL(2,7), M11, F(7,3), S2+S3, "
                                 "S2xS3, S3wrS2, a JSON list of generators or a JSON file")
    t.add_argument("y", nargs="+", help="base vector entries (p/q); a '|' argument starts "
                                        "another base vector (multi-block Y)")
    t.add_argument("-o", "--out", default="-", metavar="PATH",
                   help="output CSV path ('-': stdout)")
    t.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    t.add_argument("--max-work", type=int, default=None, metavar="N", help=_MAX_WORK)
    t.set_defaults(func=_target)
    g = ss.add_parser("gram", help="predicted pattern of W W^T (symmetrised orbitals)")
    g.add_argument("group", help="e.g. S3, S2+S3, S2xS3, S3wrS2, PSL(2,7), a JSON list of "
                                 "generators or a JSON file")
    g.add_argument("--max-work", type=int, default=None, metavar="N", help=_MAX_WORK)
    g.set_defaults(func=_gram)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _detect(args: argparse.Namespace) -> int:
    from logitgeom.cli import _output
    from logitgeom.io import read_raw
    from logitgeom.limits import check_detect
    from logitgeom.symmetry import detect_symmetry

    _output.prepare(args, args.out)
    Y = read_raw(args.Y)
    check_detect(Y, tol=args.tol, limit=args.max_work)  # refusal bound (logitgeom.limits)
    r = detect_symmetry(Y, max_order=args.max_order, tol=args.tol)
    if args.json or args.out:
        out = {"order": r.order, "row_order": r.row_order, "complete": r.complete,
               "tol": r.tol, "deviation": r.deviation,
               "trivial": r.is_trivial, "summary": str(r),
               "generators": [{"rows": list(a), "columns": list(b)}
                              for a, b in r.action.generators],
               "duplicate_column_classes": [list(c) for c in r.column_classes if len(c) > 1]}
        _output.write(args, args.out or "-", json.dumps(out, sort_keys=True) + "\n")
        return 0
    print(r)
    print(f"order: {r.order}   order on rows: {r.row_order}   complete: {r.complete}")
    for a, b in r.action.generators:
        print(f"generator: rows {list(a)} columns {list(b)}")
    return 0


def _target(args: argparse.Namespace) -> int:
    from logitgeom.cli import _output
    from logitgeom.exact.numbers import fraction_to_str
    from logitgeom.limits import check_group
    from logitgeom.symmetry import orbit_targets
    from logitgeom.symmetry.constructors import group_from_text

    _output.prepare(args, args.out)
    blocks, cur = [], []
    for tok in args.y:
        if tok == "|":
            blocks.append(cur)
            cur = []
        else:
            cur.append(tok)
    blocks.append(cur)
    G = group_from_text(args.group)
    # |G| is computed first (logitgeom.limits)
    check_group(G, args.max_work, what="symmetry target")
    T = orbit_targets(G, blocks)
    from logitgeom._fsio import csv_text

    text = csv_text(None, ([fraction_to_str(x) for x in row] for row in T.exact_Y()))
    if not _output.write(args, args.out, text):
        print(f"{T.Y.shape[0]} x {T.Y.shape[1]} orbit target of {T.action.name} "
              f"(|G| = {T.action.order}) written to {args.out}")
    return 0


def _gram(args: argparse.Namespace) -> int:
    from logitgeom.limits import check_group
    from logitgeom.symmetry import predicted_gram_structure
    from logitgeom.symmetry.constructors import group_from_text

    G = group_from_text(args.group)
    check_group(G, args.max_work)  # refusal bound (logitgeom.limits)
    S = predicted_gram_structure(G)
    print(f"{G.name}: |G| = {G.order}, m = {G.m}, {S.n_classes} classes of equal entries")
    for row in S.labels.tolist():
        print(" ".join(f"{x:>2}" for x in row))
    return 0
