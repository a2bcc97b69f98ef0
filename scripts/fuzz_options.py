"""Every option of every command, and every public API name, against bad input.

The CLI half walks the argparse parsers of ``logitgeom`` (``engine/cli/*.py`` build them):
:data:`BAD` holds, for each command and each of its options (and positionals), the bad
inputs to try; ``tests/test_fuzz_options.py`` fails when an option has no entry (a new
option must come with its bad-input case) or an entry names an option that no longer
exists.  Each case appends the bad option to a small valid call of the command
(:data:`BASE`) and runs in a forked child (``scripts/fuzz_battery.py``'s ``run_case``), so
an accepted bad value runs the command to its end and is seen as an exit 0.

The API half (:func:`api_cases`) calls every public callable of ``logitgeom.__all__`` with
a working set of arguments (:data:`API_BASE`) in which one argument at a time is replaced
by a wrong type or value (:data:`API_BAD`): an ``EngineError`` (or a normal return) is
fine, any other exception is a raw exception.

Outcome kinds (``fuzz_battery``): ``clear`` (refused with a short message), ``ok`` (exit 0),
``traceback``, ``hang``, ``wrong`` (exit 0 on input that must fail).

Usage::

    python scripts/fuzz_options.py [--full] [--timeout S] [--api]

prints one line per bad outcome and the totals; exit code 1 when any is bad.  The fast form
(the first bad input of each option, the API with four bad values) runs in the default test
suite; ``--full`` (every bad input, the API with all of :data:`API_BAD`) is the slow test.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import fuzz_battery as fb  # noqa: E402

#: a flag given a value: argparse refuses it (every store_true flag has at least this)
FLAG = "=x"

#: the small valid call each bad option is appended to (placeholders: see _files)
BASE: dict[str, list[str]] = {
    "certify pattern": ["{W}"],
    "certify differs": ["{W}", "{W2}"],
    "certify translation": ["{W}", "--labels", "0", "1", "--cos", "-1"],
    "certify argmax": ["{W}"],
    "certify solve": ["{Y}", "--ew", "1", "--eh", "1"],
    "certify paper": ["--no-progress", "-o", "{out}"],
    "check": ["{cert}"],
    "solve": ["{Y}"],
    "inspect": ["{Wnpy}", "--tokens", "0,1,2"],
    "patterns sign": ["{W}", "--no-progress"],
    "patterns ranking": ["{W}", "--no-progress"],
    "count sign": ["{W}"],
    "count ranking": ["{W}"],
    "verify-grid": ["--n", "3", "--seeds", "1", "--d-max", "2", "--no-progress"],
    "reproduce": ["--only", "cos-lemma-3.1", "--no-progress", "-o", "{out}"],
    "symmetry detect": ["{Y}"],
    "symmetry target": ["S3", "1/2", "1/4", "1/4"],
    "symmetry gram": ["S3"],
    "audit-argmax": ["{W}", "-o", "{out}", "--no-progress"],
    "occupancy": ["{W}", "{X}", "-o", "{out}", "--no-progress"],
    "export coq": ["{cert}", "-o", "{out}"],
    "check-coq": ["{missing_v}"],
}

# A key starting with "-" is an option: its entries are appended to BASE (an entry holds
# the option itself, so "=x" forms and combinations are written out).  Any other key is a
# positional: its entries replace BASE entirely.  The first entry of each is the fast form.
_OUT = [["-o", "{nested}"]]
_FORCE = [["--force" + FLAG]]
_JSON_PATH = [["--json", "{nested}"]]
_MAXREG = [["--max-regions", "abc"], ["--max-regions", "-1"], ["--max-regions", "1e400"]]
_MAXWORK = [["--max-work", "abc"], ["--max-work", "-1"], ["--max-work", "0"]]
_WORKERS = [["--workers", "0"], ["--workers", "abc"], ["--workers", "-2"]]
_NOPROG = [["--no-progress" + FLAG]]
_BUDGET = ["-1", "nan", "abc", "1e400", "0", "inf"]
#: --allow-collapse without the --tol it qualifies; a value; with a family option
_COLLAPSE = [["--allow-collapse"], ["--allow-collapse" + FLAG],
             ["--tol", "0.1", "--allow-collapse", "--loss", "mse"]]

BAD: dict[str, dict[str, list[list[str]]]] = {
    "certify pattern": {
        "W": [["{missing}"], ["{junk}"], ["{dir}"]],
        "--from": [["--from", "{missing}"], ["--from", "{W}"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        "--ranking": [["--ranking" + FLAG]],
        "--top": [["--ranking", "--top", "abc"], ["--ranking", "--top", "0"],
                  ["--ranking", "--top", "-1"]],
        "--max-regions": _MAXREG,
        "--out": _OUT,
        "--output": [["--output", "{nested}"]],
        "--force": _FORCE,
    },
    "certify differs": {
        "W1": [["{missing}", "{W}"]],
        "W2": [["{W}", "{junk}"]],
        "--ranking": [["--ranking" + FLAG]],
        "--max-regions": _MAXREG,
        "--out": _OUT,
        "--output": [["--output", "{nested}"]],
        "--force": _FORCE,
    },
    "certify translation": {
        "W": [["{missing}", "--labels", "0", "1", "--cos", "-1"]],
        "--labels": [["--labels", "0", "0"], ["--labels", "0", "9"], ["--labels", "a", "b"]],
        "--cos": [["--cos", "0"], ["--cos", "2"]],
        "--out": _OUT,
        "--output": [["--output", "{nested}"]],
        "--force": _FORCE,
    },
    "certify argmax": {
        "W": [["{missing}"], ["{junk}"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        "--max-work": _MAXWORK,
        "--out": _OUT,
        "--output": [["--output", "{nested}"]],
        "--force": _FORCE,
    },
    "certify solve": {
        "Y": [["{missing}"], ["{junk}"]],
        "--bases": [["--bases", "{missing}", "--group", "S3"]],
        "--ew": [["--ew", v] for v in _BUDGET],
        "--eh": [["--eh", v] for v in _BUDGET],
        "--method": [["--method", "bogus"]],
        "--solver": [["--solver", "bogus"]],
        "--eps": [["--eps", "-1"], ["--eps", "abc"], ["--eps", "nan"]],
        "--group": [["--group", "NotAGroup"], ["--group", "S7"]],
        "--generators": [["--generators", "[[0, 0, 1]]"], ["--generators", "abc"]],
        "--normalize": [["--normalize" + FLAG]],
        "--d": [["--d", "0"], ["--d", "-1"], ["--d", "abc"]],
        "--tol": [["--tol", "-1"], ["--tol", "nan"], ["--tol", "inf"]],
        "--allow-collapse": _COLLAPSE,
        "--y0": [["--group", "S3", "--y0", "{missing}"]],
        "--out": [["--out", "{nested}"]],
        "--max-work": _MAXWORK,
        "--loss": [["--loss", "hinge"]],
        "--weights": [["--weights", "-1,1,1"], ["--weights", "1,1"], ["--weights", "1e300,1,1"]],
        "--h-budget": [["--h-budget", "0,1,1"], ["--h-budget", "1e-300,1,1"]],
        "--equal-rows": [["--equal-rows", "0,9"], ["--equal-rows", "a"]],
    },
    "certify paper": {
        "--out": [["-o", "{nested}"]],
        "--force": _FORCE,
        "--no-progress": _NOPROG,
    },
    "check": {
        "files": [["{missing}"], ["{junk}"], ["{dir}"]],
        "--explain": [["--explain" + FLAG]],
        "--latex": [["--latex" + FLAG]],
        "--one-based": [["--one-based" + FLAG]],
        "--zero-based": [["--zero-based" + FLAG], ["--zero-based", "--one-based"]],
        "--max-work": _MAXWORK,
        "--sample": [["--sample", "-1"], ["--sample", "abc"]],
        "--seed": [["--seed", "abc"]],
        "--workers": _WORKERS,
        "--out": _OUT,
        "--force": _FORCE,
        "--json": [["--json" + FLAG]],
    },
    "solve": {
        "Y": [["{missing}"], ["{junk}"]],
        "--ew": [["--ew", v] for v in _BUDGET],
        "--eh": [["--eh", v] for v in _BUDGET],
        "--d": [["--d", "0"], ["--d", "-1"], ["--d", "abc"]],
        "--method": [["--method", "bogus"]],
        "--group": [["--group", "NotAGroup"], ["--group", "S7"]],
        "--tol": [["--tol", "-1"], ["--tol", "nan"], ["--tol", "inf"], ["--tol", "1e400"]],
        "--allow-collapse": _COLLAPSE,
        "--normalize": [["--normalize" + FLAG]],
        "--solver": [["--solver", "bogus"]],
        "--loss": [["--loss", "hinge"]],
        "--weights": [["--weights", "-1,1,1"], ["--weights", "1,1"], ["--weights", "1e300,1,1"]],
        "--h-budget": [["--h-budget", "0,1,1"], ["--h-budget", "1e-300,1,1"]],
        "--equal-rows": [["--equal-rows", "0,9"], ["--equal-rows", "a"]],
        "--out": _OUT,
        "--force": _FORCE,
        "--json": _JSON_PATH,
    },
    "inspect": {
        "model": [["{missing}", "--tokens", "0,1,2"], ["{junk}", "--tokens", "0,1,2"]],
        "--tokens": [["--tokens", "0,1,99"], ["--tokens", ""], ["--tokens", "-1,0"]],
        "--tensor": [["--tensor", "no.such.tensor"]],
        "--bias": [["--bias", "{missing}"]],
        "--transpose": [["--transpose" + FLAG]],
        "--tokenizer": [["--tokenizer", "{missing}"]],
        "--space": [["--space", "bogus"]],
        "--prompt": [["--prompt", "no slot here"]],
        "--contexts": [["--contexts", "{missing}"]],
        "--device": [["--device", "bogus"]],
        "--dtype": [["--dtype", "bogus"]],
        "--trust-remote-code": [["--trust-remote-code" + FLAG]],
        "--dim": [["--dim", "0"], ["--dim", "-1"], ["--dim", "abc"]],
        "--pair": [["--pair", "0,0"], ["--pair", "0,99"], ["--pair", "a,b"]],
        "--group": [["--group", "bogus"]],
        "--out": _OUT,
        "--force": _FORCE,
        "--json": _JSON_PATH,
        "--cert": [["--cert", "{nested}"]],
        "--plot": [["--plot", "{nested_png}"], ["--plot", "{tmp}/plot.xyz"]],
        "--no-progress": _NOPROG,
    },
    **{f"patterns {k}": {
        "W": [["{missing}", "--no-progress"], ["{junk}", "--no-progress"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        **({"--top": [["--top", "abc"], ["--top", "0"], ["--top", "-1"]]}
           if k == "ranking" else {}),
        "--out": _OUT,
        "--force": _FORCE,
        "--json": _JSON_PATH,
        "--max-regions": _MAXREG,
        "--no-progress": _NOPROG,
        "--workers": _WORKERS,
        "--scheduler": [["--scheduler", "bogus://x"]],
        "--units": [["--units", "0"], ["--units", "-1"], ["--units", "abc"]],
        "--shard-rows": [["-o", "{out}", "--shard-rows", "0"], ["--shard-rows", "abc"]],
        "--restart": [["--restart" + FLAG]],
    } for k in ("sign", "ranking")},
    **{f"count {k}": {
        "W": [["{missing}"], ["{junk}"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        "--out": _OUT,
        "--force": _FORCE,
        "--json": _JSON_PATH,
        "--max-regions": _MAXREG,
        "--method": [["--method", "bogus"],
                     *([["--method", "partitions"]] if k == "sign" else [])],
        "--max-work": _MAXWORK,
        "--crosscheck": [["--crosscheck", "bogus"], ["--crosscheck", "nbc,bogus"]],
        "--primes": [["--crosscheck", "field", "--primes", "0"], ["--primes", "abc"],
                     ["--primes", "3"]],
        "--workers": _WORKERS,
        "--scheduler": [["--scheduler", "bogus://x"]],
        "--state": [["--state", "{nested}"], ["--state", "{W}"]],
        "--symmetry": [["--symmetry" + FLAG]],
        "--group": [["--group", "{W}"], ["--method", "orbits", "--group", "{missing}"],
                    ["--method", "orbits", "--group", "{junk}"],
                    ["--method", "orbits", "--group", "{W}"]],
    } for k in ("sign", "ranking")},
    "verify-grid": {
        "--n": [["--n", "abc"], ["--n", "1"], ["--n", "0"]],
        "--seeds": [["--seeds", "-1"], ["--seeds", "abc"]],
        "--d-max": [["--d-max", "0"], ["--d-max", "abc"]],
        "--out": _OUT,
        "--force": _FORCE,
        "--json": _JSON_PATH,
        "--method": [["--method", "bogus"]],
        "--workers": _WORKERS,
        "--timings": [["--timings" + FLAG]],
        "--certificates": [["--certificates", "{missing}"], ["--certificates", "{W}"]],
        "--no-progress": _NOPROG,
    },
    "reproduce": {
        "--out": [["-o", "{nested}"]],
        "--force": _FORCE,
        "--only": [["--only", "no-such-claim"]],
        "--list": [["--list" + FLAG]],
        "--no-progress": _NOPROG,
        "--models": [["--models", "{missing}"], ["--models", "{W}"]],
        "--device": [["--device", "bogus"]],
        "--dtype": [["--dtype", "bogus"]],
        "--trust-remote-code": [["--trust-remote-code" + FLAG]],
    },
    "symmetry detect": {
        "Y": [["{missing}"], ["{junk}"]],
        "--max-order": [["--max-order", "0"], ["--max-order", "abc"]],
        "--tol": [["--tol", "-1"], ["--tol", "nan"], ["--tol", "inf"]],
        "--json": [["--json" + FLAG]],
        "--out": _OUT,
        "--force": _FORCE,
        "--max-work": _MAXWORK,
    },
    "symmetry target": {
        "group": [["NotAGroup", "1/2", "1/2"]],
        "y": [["S3", "abc", "1", "1"], ["S3", "1/2", "1/2"]],
        "--out": [["-o", "{nested}"]],
        "--force": _FORCE,
        "--max-work": _MAXWORK,
    },
    "symmetry gram": {
        "group": [["NotAGroup"]],
        "--max-work": _MAXWORK,
    },
    "audit-argmax": {
        "source": [["{missing}", "-o", "{out}"], ["{junk}", "-o", "{out}"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        "--tokens": [["--tokens", "99999"], ["--tokens", "2-0"]],
        "--radius": [["--radius", "-1"], ["--radius", "abc"], ["--radius", "nan"]],
        "--out": [["-o", "{nested}"]],
        "--labels": [["--labels", "{missing}"]],
        "--label-seconds": [["--label-seconds", "-1"], ["--label-seconds", "nan"]],
        "--scheduler": [["--scheduler", "bogus://x"]],
        "--workers": _WORKERS,
        "--tensor": [["--tensor", "no.such.tensor"]],
        "--transpose": [["--transpose" + FLAG]],
        "--rows-are-labels": [["--rows-are-labels", "--transpose"]],
        "--tokenizer": [["--tokenizer", "{missing}"]],
        "--block-size": [["--block-size", "0"], ["--block-size", "abc"]],
        "--no-shared-supports": [["--no-shared-supports" + FLAG], ["--shared-supports" + FLAG]],
        "--no-progress": _NOPROG,
    },
    "occupancy": {
        "head": [["{missing}", "{X}", "-o", "{out}"]],
        "inputs": [["{W}", "{missing}", "-o", "{out}"]],
        "--bias": [["--bias", "{missing}"], ["--bias", "{junk}"]],
        "--top": [["--top", "0"], ["--top", "a"]],
        "--out": [["-o", "{nested}"]],
        "--chunk-rows": [["--chunk-rows", "0"], ["--chunk-rows", "1.5"]],
        "--no-audit": [["--no-audit" + FLAG]],
        "--no-count": [["--no-count" + FLAG]],
        "--scheduler": [["--scheduler", "bogus://x"]],
        "--workers": _WORKERS,
        "--tensor": [["--tensor", "no.such.tensor"]],
        "--transpose": [["--transpose" + FLAG]],
        "--rows-are-labels": [["--rows-are-labels", "--transpose"]],
        "--device": [["--device", "bogus"]],
        "--dtype": [["--dtype", "bogus"]],
        "--trust-remote-code": [["--trust-remote-code" + FLAG]],
        "--no-progress": _NOPROG,
    },
    "check-coq": {
        "files": [["{missing_v}"], ["{junk}"], ["{dir}"]],
        "--quiet": [["--quiet" + FLAG]],
    },
    "export coq": {
        "certificates": [["{missing}", "-o", "{out}"], ["{junk}", "-o", "{out}"]],
        "--out": [["-o", "{nested}"]],
        "--compile": [["--compile" + FLAG]],
        "--no-witnesses": [["--no-witnesses" + FLAG]],
    },
}


# ------------------------------------------------------------------------ the parsers
def parser_options() -> dict[str, set[str]]:
    """command ("certify solve") -> its options (longest spelling) and positionals (dest),
    read from the argparse parsers ``logitgeom`` builds."""
    from logitgeom.cli.main import build_parser

    out: dict[str, set[str]] = {}

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, (*path, name))
            elif not isinstance(a, argparse._HelpAction | argparse._VersionAction):
                key = max(a.option_strings, key=len) if a.option_strings else a.dest
                out.setdefault(" ".join(path), set()).add(key)

    walk(build_parser(), ())
    return out


def missing_cases() -> list[str]:
    """Options (and positionals) of the parsers without a bad-input case, and entries of
    BAD that name no option (both must be empty)."""
    have = parser_options()
    miss = [f"{c} {o}" for c, opts in sorted(have.items()) for o in sorted(opts)
            if not BAD.get(c, {}).get(o)]
    stale = [f"{c} {o}" for c, opts in sorted(BAD.items()) for o in sorted(opts)
             if o not in have.get(c, set())]
    return miss + [f"stale: {s}" for s in stale]


# -------------------------------------------------------------------------- the cases
def _files(d: Path) -> dict[str, str]:
    import numpy as np

    d.mkdir(parents=True, exist_ok=True)
    (d / "adir").mkdir(exist_ok=True)
    W = [[1, 0], [0, 1], [1, 1]]
    np.save(d / "W.npy", np.array(W, dtype=float))
    np.save(d / "X.npy", np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]]))
    cert = ROOT / "certificates" / "examples" / "valid-sign-feasible.json"
    shutil.copy(cert, d / "cert.json")
    return {
        "W": fb._w(d / "W.csv", "1,0\n0,1\n1,1\n"),
        "W2": fb._w(d / "W2.csv", "1,0\n0,1\n-1,1\n"),
        "Wnpy": str(d / "W.npy"),
        "X": str(d / "X.npy"),
        "Y": fb._w(d / "Y.csv", "1/2,1/4,1/4\n1/4,1/2,1/4\n1/4,1/4,1/2\n"),
        "cert": str(d / "cert.json"),
        "missing": str(d / "no-such.csv"),
        "missing_v": str(d / "no-such.v"),
        "junk": fb._w(d / "junk.csv", "not,a\nmatrix\x00\n"),
        "dir": str(d / "adir"),
        "nested": str(d / "W.csv" / "sub" / "out.json"),   # a path under a regular file
        "nested_png": str(d / "W.csv" / "sub" / "out.png"),
        "tmp": str(d),
    }


def case_names(full: bool = False) -> list[str]:
    """The names of the CLI cases (stable; no files needed)."""
    return [n for n, _ in _case_specs(full)]


def _case_specs(full: bool):
    for cmd, opts in BAD.items():
        for opt, entries in opts.items():
            for k, tokens in enumerate(entries if full else entries[:1]):
                yield f"{cmd} {opt} #{k}: {' '.join(tokens)}", (cmd, opt, tokens)


def cli_cases(d: Path, full: bool = False) -> dict[str, fb.Case]:
    """name -> Case: each bad input of :data:`BAD` on its command, expected to fail."""
    f = _files(d)
    out = {}
    for i, (name, (cmd, opt, tokens)) in enumerate(_case_specs(full)):
        ph = f | {"out": str(d / f"out-{i}")}
        tail = tokens if not opt.startswith("-") else [*BASE[cmd], *tokens]
        argv = [*cmd.split(), *(t.format(**ph) for t in tail)]
        out[name] = fb.Case(name, argv, expect_ok=False)
    return out


# ------------------------------------------------------------------------- the API
#: wrong types and values; the first four are the fast form
API_BAD: tuple = (None, "a", 10 ** 20, float("nan"), object(), -1, 1.5, [], {"a": 1},
                  float("inf"), True)

_W = [[1, 0], [0, 1], [1, 1]]
_Y = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/4", "1/4", "1/2"]]


def _api_base() -> dict[str, tuple[tuple, dict]]:
    """name -> (args, kwargs) of a call that works (checked by a test)."""
    import numpy as np

    from logitgeom import symmetric

    S3 = symmetric(3)
    return {
        "check_cell": ((_W,), {}),
        "random_head": ((3, 2, 0), {}),
        "verify_grid": (((3,), 1), {"d_max": 2, "progress": False}),
        "affine_generic_count": ((3, 2), {}),
        "count_rankings": ((_W,), {}),
        "count_regions": ((_W,), {}),
        "cover_count": ((3, 2), {}),
        "ranking_count_generic": ((3, 2), {}),
        "ranking_count_generic_affine": ((3, 2), {}),
        "cosine_equal": ((_W, [[2, 0], [0, 2], [2, 2]]), {}),
        "cosine_matrix": ((_W,), {}),
        "difference_matrix": ((3,), {}),
        "difference_pairs": ((3,), {}),
        "gram_exact": ((_W,), {}),
        "translate": ((_W, [1, 1]), {}),
        "translation_for_cosine": ((_W, 0, 1, -1), {}),
        "argmaxable": ((_W,), {}),
        "ranking_pattern": ((_W,), {}),
        "audit_argmax": ((_W,), {}),
        "sign_pattern": ((_W,), {}),
        "GroupAction": (([[1, 0, 2]],), {"m": 3}),
        "affine_line": ((5,), {}),
        "cyclic": ((3,), {}),
        "detect_symmetry": ((np.array([[2, 1, 1], [1, 2, 1], [1, 1, 2]]) / 4,), {}),
        "direct_product": ((S3, symmetric(2)), {}),
        "direct_sum": ((S3, symmetric(2)), {}),
        "orbit_targets": ((S3, ["1/2", "1/4", "1/4"]), {}),
        "parse_group": (("S3",), {}),
        "predicted_gram_structure": ((S3,), {}),
        "symmetric": ((3,), {}),
        "wreath": ((symmetric(2), symmetric(2)), {}),
        "delta_circ": ((np.eye(3),), {}),
        "delta_etf": ((np.eye(3),), {}),
        "delta_group": ((np.eye(3), S3), {}),
        "nearest_circulant": ((np.eye(3),), {}),
        "nearest_etf": ((np.eye(3),), {}),
        "nearest_invariant": ((np.eye(3), S3), {}),
        "normalized_gram": ((np.eye(3),), {}),
        "LayerPeeled": ((_Y, 1, 1), {}),
        "concat_blocks": (([np.eye(2), np.eye(2)],), {}),
        "cyclic_orbit": ((["1/2", "1/4", "1/4"],), {}),
        "group_orbit": ((["1/2", "1/4", "1/4"], S3), {}),
        "solve_layer_peeled": ((_Y, 1, 1), {}),
    }


def api_names() -> list[str]:
    """Public callables of ``logitgeom.__all__`` that are not exceptions or plain data."""
    import logitgeom

    out = []
    for n in logitgeom.__all__:
        obj = getattr(logitgeom, n)
        if not callable(obj) or (isinstance(obj, type) and issubclass(obj, BaseException)):
            continue
        out.append(n)
    return out


#: public names that are result or data types, not entry points (no working call here)
API_RESULT_TYPES = frozenset({
    "GridCell", "GridResult", "ArgmaxResult", "Completeness", "PatternKind", "PatternResult",
    "AuditResult", "DetectedSymmetry", "GramStructure", "OrbitTargets", "LayerPeeledSolution",
    "PredictedGeometry", "predicted_geometry"})


def api_case_specs(full: bool = False):
    """(name, function name, position or keyword, bad value) of every API case."""
    import inspect

    import logitgeom

    base = _api_base()
    bad = API_BAD if full else API_BAD[:4]
    for fname in sorted(base):
        args, kw = base[fname]
        try:
            params = list(inspect.signature(getattr(logitgeom, fname)).parameters.values())
        except (TypeError, ValueError):
            params = []
        slots: list[int | str] = list(range(len(args)))
        slots += [p.name for p in params[len(args):]
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for slot in slots:
            for j, v in enumerate(bad):
                yield f"api {fname}({slot}={_short(v)}) #{j}", fname, slot, v


def _short(v) -> str:
    return "object()" if type(v) is object else repr(v)[:20]


def api_cases(d: Path, full: bool = False) -> dict[str, fb.Case]:
    """name -> Case (a Python call; expect_ok None: a clear EngineError or a return).  Each
    call runs in the folder ``d`` (a bad ``out='a'`` that is accepted writes there)."""
    import os

    import logitgeom

    base = _api_base()
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, fname, slot, v in api_case_specs(full):
        args, kw = base[fname]
        func = getattr(logitgeom, fname)

        def call(f=func, a=args, k=kw, s=slot, v=v):
            os.chdir(d)
            a, k = list(a), dict(k)
            if isinstance(s, int):
                a[s] = v
            else:
                k[s] = v
            return f(*a, **k)
        out[name] = fb.Case(name, [], expect_ok=None, call=call)
    return out


# ------------------------------------------------------------------------ the battery
BAD_KINDS = ("traceback", "hang", "wrong", "overwrite")


def _usage_error(r: fb.Outcome, err: str) -> bool:
    """argparse's refusal: exit 2, its usage lines, then one line ``PROG: error: ...``
    (``fuzz_battery`` counts a long exit-2 stderr as a traceback; this one is clear)."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    return (r.code == 2 and bool(lines) and lines[0].startswith("usage: ")
            and ": error: " in lines[-1] and "Traceback (most recent call last)" not in err)


def run_one(case: fb.Case, tmp: Path, timeout: float) -> fb.Outcome:
    """``fuzz_battery.run_case`` with argparse's usage errors counted as clear."""
    r = fb.run_case(case, timeout, tmp)
    if r.kind == "traceback":
        err_path = tmp / "_err.txt"
        err = err_path.read_text(errors="replace") if err_path.exists() else ""
        if _usage_error(r, err):
            return fb.Outcome(case, "clear", r.code, r.seconds, err.strip().splitlines()[-1])
    return r


def run(cases: dict[str, fb.Case], tmp: Path, timeout: float) -> list[fb.Outcome]:
    import logitgeom.cli.main  # noqa: F401 - imported once; the children fork from here

    return [run_one(c, tmp, timeout) for c in cases.values()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="every bad input (the slow form)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case (wall)")
    ap.add_argument("--api", action="store_true", help="also the public API battery")
    args = ap.parse_args(argv)
    import tempfile

    miss = missing_cases()
    for m in miss:
        print("no bad-input case:", m)
    with tempfile.TemporaryDirectory(prefix="logitgeom-fuzz-options-") as tmp:
        cases = cli_cases(Path(tmp) / "files", args.full)
        if args.api:
            cases |= api_cases(Path(tmp) / "api", args.full)
        res = run(cases, Path(tmp), args.timeout)
    kinds = Counter(r.kind for r in res)
    for r in res:
        if r.kind in BAD_KINDS:
            print(f"{r.kind}: {r.case.name}: {r.detail}")
    cmds = {" ".join(c.argv[:2]) if c.argv[0] in ("certify", "patterns", "count", "symmetry",
                                                  "export") else c.argv[0]
            for c in cases.values() if c.argv}
    slowest = max(res, key=lambda r: r.seconds)
    print(json.dumps({"cases": len(res), "commands": len(cmds),
                      "options without a case": len(miss), "outcomes": dict(sorted(kinds.items())),
                      "slowest": [slowest.case.name, round(slowest.seconds, 2)]}, indent=1))
    return 1 if miss or any(kinds[k] for k in BAD_KINDS) else 0


if __name__ == "__main__":
    sys.exit(main())
