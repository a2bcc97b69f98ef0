"""The trusted checker of logitgeom certificates (format ``logitgeom-certificate``, v1).

Standard library only; imports nothing from ``engine``, numpy, cvxpy or cdd.  Every claim
is re-derived from the data in the file (W, signs, rankings) in exact rational arithmetic;
derived data in the file (chain rows, B W, minors, closures) is never trusted.  The format
is specified in ``certificates/SPEC.md``, the proof obligations of each kind in
docs/certificates.md.  This module reads files and dispatches on ``kind``; what the data
mean (rows, witnesses, Gordan multipliers, lattices) is :mod:`certificates.semantics`.
A new kind is a module ``certificates/check_<kind>.py`` with a function ``(obj, loc)`` that
raises :class:`certificates.errors.Fail`, registered by one line in ``_CHECKERS`` below.
Usage::

    python -m certificates.check FILE... [--explain] [--latex] [--one-based]

Exit code 0: every file valid; 1: some file invalid; 2: some file unreadable or of an
unsupported format/version/kind.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> check(cert)
Verdict(ok=True, kind='sign-feasible', failed_check=None, location=None, message='valid')
>>> check(dict(cert, witness=["1", "1"])).failed_check
'witness'
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from dataclasses import dataclass
from itertools import combinations

if not __package__:  # run as a script (python path/to/certificates/check.py): find the package
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from certificates import check_bracket  # noqa: E402  (layer-peeled brackets, own module)
from certificates.check_audit import check_argmax_audit  # noqa: E402
from certificates.check_stream import base_dir as _stream_base  # noqa: E402
from certificates.check_stream import check_stream  # noqa: E402
from certificates.errors import Fail  # noqa: E402
from certificates.semantics import (  # noqa: E402
    arrangement,
    check_gordan,
    check_witness,
    claim_rows,
    det_sign,
    dot,
    get,
    integer_model,
    read_field,
    read_int,
    read_labels,
    read_list,
    read_matrix,
    read_model,
    read_number,
    read_pair,
    read_pattern_type,
    read_vector,
    sgn,
    zaslavsky,
)
from certificates.work import DEFAULT_MAX_WORK, estimate  # noqa: E402

__all__ = ["FORMAT", "VERSION", "KINDS", "THEOREMS", "UNREADABLE", "Fail", "Verdict", "check",
           "check_file", "load", "main"]

FORMAT = "logitgeom-certificate"
VERSION = 1
_PC = ("pattern-complete", "pattern-complete")
#: Theorem -> (kinds of its first parts, kinds allowed for any further parts).
_PARTS = {"translation-cosine": (("translation", "translation"), ()),
          "centred-cosine-ranking": (("ranking-feasible",), ()),
          "cosine-not-ranking": (("cosine-equal", "pattern-differs"), ("pattern-differs",)),
          "sign-not-ranking": (("same-chirotope", "pattern-differs"), ("pattern-differs",)),
          "cosine-determines-sign": (_PC, ()), "difference-cosine-determines-ranking": (_PC, ()),
          "patterns-equal": (_PC, ()),
          "argmaxable-labels": ((), ("ranking-feasible", "ranking-infeasible"))}
THEOREMS = tuple(_PARTS)
#: Failed checks that mean "unreadable, unsupported or not checked" (exit code 2) rather
#: than "invalid"; ``work-budget``: the estimated work exceeds ``--max-work`` (not checked).
UNREADABLE = ("unreadable", "unsupported-format", "unsupported-version", "unsupported-kind",
              "work-budget")
#: Largest certificate file read (bytes), and deepest JSON nesting accepted.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64
#: Fields every certificate (and every part) may carry, besides those of its kind.
_COMMON = frozenset({"format", "version", "kind", "statement", "provenance"})
#: The fields of each kind (SPEC.md section 3); any other field is rejected (``schema``),
#: so a look-alike key ("bias1" where none is defined, a Cyrillic "bias") cannot make a
#: claim be checked as a different one.  Kinds registered without an entry are not
#: restricted.
FIELDS = {
    "sign-feasible": {"W", "bias", "signs", "witness"},
    "sign-infeasible": {"W", "bias", "signs", "multipliers"},
    "ranking-feasible": {"W", "bias", "ranking", "witness"},
    "ranking-infeasible": {"W", "bias", "ranking", "multipliers"},
    "translation": {"W", "v", "W_translated", "labels", "target"},
    "cosine-equal": {"W1", "W2"},
    "same-chirotope": {"W1", "W2"},
    "pattern-complete": {"W", "bias", "pattern", "top", "patterns", "lattice"},
    "pattern-differs": {"W1", "bias1", "W2", "bias2", "pattern", "value", "witness",
                        "multipliers"},
    "theorem": {"theorem", "parts", "parameters"},
    "argmax-audit": {"head", "rows", "cols", "bias", "radius", "domains", "labels", "counts",
                     "records", "shards", "source"},
    "pattern-complete-stream": {"W", "bias", "pattern", "lattice", "buckets", "shards"},
}
#: Fields of nested objects: listed patterns, lattice flats, theorem parameters.
_NESTED = {"patterns": {"pattern", "witness"}, "lattice": {"hyperplanes", "rank"}}
_PARAMETERS = {"centred-cosine-ranking": {"labels", "cosine_at_least"},
               "argmaxable-labels": {"labels"}}


@dataclass(frozen=True)
class Verdict:
    """The checker's answer for one certificate.

    ``failed_check`` is a short identifier from SPEC.md (None when ``ok``); ``location`` is
    a JSON-pointer-like path to the offending entry.
    """

    ok: bool
    kind: str | None
    failed_check: str | None
    location: str | None
    message: str

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable or unsupported."""
        return 0 if self.ok else (2 if self.failed_check in UNREADABLE else 1)


# ---------------------------------------------------------------------- kind checkers
def _single(obj, loc):
    """sign-/ranking-feasible (witness) and -infeasible (Gordan multipliers)."""
    ranking, feasible = obj["kind"].startswith("ranking"), obj["kind"].endswith("-feasible")
    W, b = read_model(obj, loc)
    rows, _ = claim_rows(obj, loc, "ranking" if ranking else "signs", ranking, W, b)
    if feasible:
        check_witness(rows, obj, loc, len(W[0]), "chain row" if ranking else "row")
    else:
        check_gordan(rows, obj, loc, len(W[0]))


def _translation(obj, loc):
    W, _ = read_model(obj, loc)
    v = read_field(read_vector, obj, "v", loc, len(W[0]))
    Wt = read_field(read_matrix, obj, "W_translated", loc, len(W[0]))
    if len(Wt) != len(W):
        raise Fail("shape", f"{loc}/W_translated", f"expected {len(W)} rows, got {len(Wt)}")
    for r, (row, rowt) in enumerate(zip(W, Wt, strict=True)):
        if any(x + y != z for x, y, z in zip(row, v, rowt, strict=True)):
            raise Fail("translation-rows", f"{loc}/W_translated/{r}", f"row {r} is not w_{r} + v")
    labels = read_field(read_labels, obj, "labels", loc, len(W))
    if len(labels) != 2:
        raise Fail("schema", f"{loc}/labels", "labels must be two distinct labels")
    i, j = labels
    target = read_int(get(obj, "target", loc), f"{loc}/target", -1, 1)
    if target == 0:
        raise Fail("schema", f"{loc}/target", "target must be +1 or -1")
    a, c = Wt[i], Wt[j]
    if not any(a) or not any(c):
        raise Fail("zero-row", f"{loc}/W_translated", "a translated row is zero (no cosine)")
    g = dot(a, c)  # Cauchy-Schwarz: equality iff a and c are parallel; then cos = sign(g)
    if g * g != dot(a, a) * dot(c, c):
        raise Fail("not-parallel", f"{loc}/W_translated", f"rows {i} and {j} are not parallel")
    if sgn(g) != target:
        raise Fail("cosine-sign", f"{loc}/target", f"cosine is {sgn(g)}, not {target}")


def _cosine_equal(obj, loc):
    (W1, _), (W2, _) = read_pair(obj, loc)
    for name, M in (("W1", W1), ("W2", W2)):
        for i, r in enumerate(M):
            if not any(r):
                raise Fail("zero-row", f"{loc}/{name}/{i}", "cosine of a zero row is undefined")
    for i, j in combinations(range(len(W1)), 2):
        g, h = dot(W1[i], W1[j]), dot(W2[i], W2[j])
        if sgn(g) != sgn(h):
            raise Fail("cosine-sign", f"{loc}", f"signs of <w_{i},w_{j}> differ")
        if g * g * dot(W2[i], W2[i]) * dot(W2[j], W2[j]) != \
                h * h * dot(W1[i], W1[i]) * dot(W1[j], W1[j]):
            raise Fail("cosine-magnitude", f"{loc}", f"|cos(w_{i}, w_{j})| differ")


def _chirotope(obj, loc):
    (W1, _), (W2, _) = read_pair(obj, loc)
    k, d = len(W1), len(W1[0])
    if len(W2[0]) != d or d > k:
        raise Fail("shape", loc, "W1 and W2 must both be k x d with d <= k")
    sigma = None
    for S in combinations(range(k), d):
        s1 = det_sign([W1[i] for i in S])
        s2 = det_sign([W2[i] for i in S])
        if sigma is None and s1:
            sigma = s1 * s2
        if s1 * (sigma or 1) != s2 or (s1 == 0) != (s2 == 0):
            raise Fail("chirotope-sign", f"{loc}", f"minor on rows {list(S)}: signs {s1}, {s2}"
                       " do not agree up to one global sign")
    if not sigma:
        raise Fail("rank", loc, f"rank is below d = {d}: every maximal minor is 0")


def _pattern_complete(obj, loc):
    """Returns (ptype, W, b, frozenset of patterns) for use by theorems."""
    W, b = read_model(obj, loc)
    ptype = read_pattern_type(obj, loc)
    if obj.get("top") is not None and (ptype != "ranking" or
                                       read_int(obj["top"], f"{loc}/top", 1, len(W)) is None):
        raise Fail("schema", f"{loc}/top", "top applies to ranking patterns only")
    seen, (Wi, bi) = set(), integer_model(W, b)  # one positive scaling: same claims
    for n, p in enumerate(read_list(get(obj, "patterns", loc), f"{loc}/patterns")):
        pl = f"{loc}/patterns/{n}"
        rows, value = claim_rows(p, pl, "pattern", ptype == "ranking", Wi, bi)
        if ptype == "ranking" and len(value) != len(W):
            raise Fail("shape", f"{pl}/pattern", f"a full ranking lists all {len(W)} labels")
        check_witness(rows, p, pl, len(W[0]))
        if value in seen:
            raise Fail("duplicate-pattern", pl, "pattern listed twice")
        seen.add(value)
    count = zaslavsky(arrangement(Wi, bi, ptype), get(obj, "lattice", loc), f"{loc}/lattice",
                       len(W[0]))
    if count != len(seen):
        raise Fail("count", f"{loc}/patterns", f"{len(seen)} witnessed patterns but the"
                   f" arrangement has {count} regions")
    return ptype, W, b, frozenset(seen)


def _pattern_differs(obj, loc):
    (W1, b1), (W2, b2) = read_pair(obj, loc)
    ranking = read_pattern_type(obj, loc) == "ranking"
    check_witness(claim_rows(obj, loc, "value", ranking, W1, b1)[0], obj, loc, len(W1[0]))
    try:
        rows2, _ = claim_rows(obj, loc, "value", ranking, W2, b2)
    except Fail as f:  # the sign vector's zeros do not match W2's zero rows: not a tope of W2
        if f.check == "face-sign":
            return
        raise
    check_gordan(rows2, obj, loc, len(W2[0]))


def _mats(obj, loc, *keys):
    return [read_field(read_matrix, obj, key, loc) for key in keys]


def _theorem(obj, loc):
    name = get(obj, "theorem", loc)
    if name not in _PARTS:
        raise Fail("unsupported-kind", f"{loc}/theorem", f"unknown theorem {name!r}")
    parts = read_field(read_list, obj, "parts", loc)
    results = [_dispatch(p, f"{loc}/parts/{n}") for n, p in enumerate(parts)]
    kinds, (first, more) = [p["kind"] for p in parts], _PARTS[name]
    if not kinds or tuple(kinds[:len(first)]) != first or set(kinds[len(first):]) - set(more):
        raise Fail("theorem-parts", f"{loc}/parts", f"{name} needs parts {list(first)}"
                   + (f", then any number of {' / '.join(more)}" if more else ""))

    def same(cond, what):
        if not cond:
            raise Fail("theorem-mismatch", f"{loc}/parts", what)

    if name == "translation-cosine":
        p, q = parts
        same(_mats(p, loc, "W") == _mats(q, loc, "W") and p["labels"] == q["labels"],
             "both translations must start from the same W and labels")
        same(p["target"] == -1 and q["target"] == 1, "targets must be -1 then +1")
    elif name == "centred-cosine-ranking":
        p = parts[0]
        same(p.get("bias") is None, "the model has no bias")
        (W,) = _mats(p, loc, "W")
        prm = get(obj, "parameters", loc)
        i, j = read_field(read_labels, prm, "labels", f"{loc}/parameters", len(W))
        c = read_field(read_number, prm, "cosine_at_least", f"{loc}/parameters")
        same(all(sum(col) == 0 for col in zip(*W, strict=True)), "W is not centred")
        g = dot(W[i], W[j])
        same(c > 0 and g > 0 and g * g >= c * c * dot(W[i], W[i]) * dot(W[j], W[j]),
             f"cos(w_{i}, w_{j}) >= {c} does not hold")
        same(len(p["ranking"]) == len(W) and p["ranking"][0] == i and p["ranking"][-1] == j,
             f"the ranking must be full, with label {i} first and label {j} last")
    elif name in ("cosine-not-ranking", "sign-not-ranking"):
        pair = _mats(parts[0], loc, "W1", "W2")
        for p in parts[1:]:
            same(p["pattern"] == "ranking"
                 and p.get("bias1") is None and p.get("bias2") is None
                 and _mats(p, loc, "W1", "W2") in (pair, pair[::-1]),
                 "every further part must be a ranking pattern-differs between W1 and W2")
    elif name == "argmaxable-labels":
        W, b = read_model(parts[0], loc)
        same(all(read_model(p, loc) == (W, b) for p in parts), "all parts must share W, bias")
        classes = [tuple(p["ranking"]) for p in parts]
        same(sorted(a for c in classes for a in c) == list(range(len(W))),
             "the parts' prefixes must partition the labels")
        same(all(list(c) == sorted(c) and all((W[a], b[a]) == (W[c[0]], b[c[0]]) for a in c)
                 for c in classes), "each prefix must be tied labels in increasing order")
        same(len({(W[c[0]], b[c[0]]) for c in classes}) == len(classes),
             "tied labels must be in the same prefix (whole tie classes)")
        labels = sorted(a for c, k in zip(classes, kinds, strict=True)
                        if k == "ranking-feasible" for a in c)
        same(get(get(obj, "parameters", loc), "labels", loc) == labels,
             f"the argmaxable labels are {labels}")
    elif name == "patterns-equal":
        p, q = results
        same(p[0] == q[0], "both parts must be of the same pattern type")
        same(p[3] == q[3], "the two pattern sets differ")
    else:  # Lemma 5.3 / Thm 5.6 on an instance: S(G) = S(W) or R(W) with G = M M^T
        p, q = results
        ranking = name == "difference-cosine-determines-ranking"
        same(ranking or all(any(r) for r in p[1]), "W has a zero row, so C(W) is undefined:"
             " S(C(W)) = S(W) cannot be stated")
        same(p[0] == ("ranking" if ranking else "sign") and q[0] == "sign"
             and not any(p[2]) and not any(q[2]), "parts must be (pattern of W, sign of G),"
             " without bias")
        M = [a for a, _ in arrangement(p[1], p[2], p[0])]
        same(q[1] == tuple(tuple(dot(r, s) for s in M) for r in M),
             "the second matrix is not G = M M^T")
        if ranking:
            k = len(p[1])
            mapped = set()
            for r in p[3]:
                pos = {a: n for n, a in enumerate(r)}
                mapped.add(tuple(0 if not any(M[n]) else (1 if pos[a] < pos[c] else -1)
                                 for n, (a, c) in enumerate(combinations(range(k), 2))))
            same(frozenset(mapped) == q[3], "sign patterns of G differ from R(W)")
        else:
            same(p[3] == q[3], "sign patterns of G differ from S(W)")


#: kind -> checker(obj, loc), which raises Fail.  One line per kind; kinds of their own
#: module (certificates/check_<kind>.py) are imported above and registered here.
_CHECKERS = {
    "sign-feasible": _single,
    "sign-infeasible": _single,
    "ranking-feasible": _single,
    "ranking-infeasible": _single,
    "translation": _translation,
    "cosine-equal": _cosine_equal,
    "same-chirotope": _chirotope,
    "pattern-complete": _pattern_complete,
    "pattern-differs": _pattern_differs,
    "theorem": _theorem,
    "layer-peeled-bracket": check_bracket.check,
    "layer-peeled-orbit-bracket": check_bracket.check_orbit,
    "layer-peeled-theorem": lambda obj, loc: check_bracket.check_theorem(obj, loc, _dispatch),
    "argmax-audit": check_argmax_audit,
    "pattern-complete-stream": check_stream,  # check_stream.py: shards of a result directory
}
KINDS = tuple(_CHECKERS)


def _known_fields(obj, allowed, loc, what):
    extra = sorted(set(obj) - set(allowed), key=str)
    if extra:
        shown = ascii(extra[0])[:60]
        raise Fail("schema", f"{loc}/{ascii(extra[0])[1:-1][:60]}",
                   f"unknown field {shown} in {what} (allowed: {', '.join(sorted(allowed))});"
                   " a look-alike key would change the claim, so it is rejected")


def _check_fields(obj, kind, loc):
    if kind not in FIELDS:
        return
    _known_fields(obj, _COMMON | FIELDS[kind], loc, f"a {kind} certificate")
    for key, allowed in _NESTED.items():
        if kind == "pattern-complete" and isinstance(obj.get(key), list):
            for n, item in enumerate(obj[key]):
                if isinstance(item, dict):
                    _known_fields(item, allowed, f"{loc}/{key}/{n}", f"an entry of {key}")
    if kind == "theorem" and isinstance(obj.get("parameters"), dict):
        allowed = _PARAMETERS.get(obj.get("theorem"), set())
        _known_fields(obj["parameters"], allowed, f"{loc}/parameters",
                      f"the parameters of {obj.get('theorem')!r}")


def _dispatch(obj, loc):
    if not isinstance(obj, dict):
        raise Fail("schema", loc or "/", "a certificate is a JSON object")
    if obj.get("format") != FORMAT:
        raise Fail("unsupported-format", f"{loc}/format", f"format must be {FORMAT!r}")
    if obj.get("version") != VERSION or isinstance(obj.get("version"), bool):
        raise Fail("unsupported-version", f"{loc}/version",
                   f"version {obj.get('version')!r} is not supported (this checker: {VERSION})")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _CHECKERS:
        raise Fail("unsupported-kind", f"{loc}/kind", f"unknown kind {ascii(kind)[:60]}")
    _check_fields(obj, kind, loc)
    return _CHECKERS[kind](obj, loc)


def check(obj, max_work: int | None = DEFAULT_MAX_WORK) -> Verdict:
    """Check one parsed certificate (a dict); never raises on bad input.

    Parameters
    ----------
    obj : dict
        The certificate, as parsed by :func:`json.loads` (numbers as ``"p/q"`` strings).
    max_work : int or None
        Budget (see :mod:`certificates.work`): a certificate whose estimated work exceeds
        it is not checked (verdict ``work-budget``, never valid).  None: no budget.

    Returns
    -------
    Verdict
    """
    kind = obj.get("kind") if isinstance(obj, dict) else None
    kind = kind if isinstance(kind, str) else None
    if max_work is not None:
        work = estimate(obj)
        if work > max_work:
            return Verdict(False, kind, "work-budget", "/",
                           f"checking needs about {work:,} units of exact work, above the "
                           f"budget {max_work:,} (--max-work); NOT CHECKED (see "
                           "docs/limits.md)")
    try:
        _dispatch(obj, "")
    except Fail as f:
        return Verdict(False, kind, f.check, f.location or "/", f.message)
    except (TypeError, KeyError, ValueError, IndexError, AttributeError, ArithmeticError,
            RecursionError, MemoryError) as exc:  # malformed beyond the schema
        return Verdict(False, kind, "schema", "/",
                       f"malformed certificate: {type(exc).__name__}: {str(exc)[:200]}")
    return Verdict(True, kind, None, None, "valid")


def load(path):
    """Parse a certificate file; JSON floats, NaN/Infinity and duplicate keys raise Fail."""
    def _no_float(s):
        raise Fail("number", "/", f"JSON number {s} is not allowed; write numbers as 'p/q'")

    def _no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise Fail("schema", "/", f"duplicate keys in one object: {sorted(keys)}")
        return dict(pairs)

    def _int(s):
        if len(s.lstrip("-")) > 20:
            raise Fail("number", "/", f"a JSON integer of {len(s.lstrip('-'))} digits; JSON "
                       "integers are counts, indices and signs (numbers are 'p/q' strings)")
        return int(s)

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise Fail("unreadable", "/", f"cannot read {path}: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise Fail("unreadable", "/", f"{path} has {info.st_size} bytes; certificates are "
                       f"read up to {MAX_FILE_BYTES} bytes")
        with open(path, "rb") as fh:
            text = fh.read(MAX_FILE_BYTES + 1).decode("utf-8")
        if _depth(text) > MAX_DEPTH:
            raise Fail("unreadable", "/", f"cannot read {path}: JSON nested deeper than "
                       f"{MAX_DEPTH} levels")
        return json.loads(text, parse_float=_no_float, parse_constant=_no_float,
                          parse_int=_int, object_pairs_hook=_no_duplicates)
    except (OSError, ValueError, RecursionError) as exc:  # JSON, UTF-8, I/O
        msg = " ".join(str(exc).split())[:200]
        raise Fail("unreadable", "/", f"cannot read {path}: {msg}") from None


def _depth(text: str) -> int:
    """Deepest bracket nesting outside strings (linear time, no recursion)."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > best:
                best = depth
                if best > MAX_DEPTH:
                    return best
        elif ch in "]}":
            depth -= 1
    return best


def check_file(path, max_work: int | None = DEFAULT_MAX_WORK) -> Verdict:
    """Read and check one certificate file (bounded: see :func:`load`, :func:`check`).

    Returns
    -------
    Verdict
        ``failed_check`` is ``'unreadable'`` when the file is not JSON (or not a regular
        file, too large, too deeply nested).
    """
    try:
        obj = load(path)
    except Fail as f:
        return Verdict(False, None, f.check, f.location, f.message)
    with _stream_base(os.path.dirname(os.path.abspath(path))):  # shard files beside it
        return check(obj, max_work)


def main(argv=None) -> int:
    """Command line: one verdict line per file; exit 0 / 1 / 2 (see module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m certificates.check",
                                 description="Check logitgeom certificates (stdlib only).")
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("--explain", action="store_true", help="state the proven claim in words")
    ap.add_argument("--latex", action="store_true", help="print a LaTeX snippet per valid file")
    ap.add_argument("--max-work", type=int, default=DEFAULT_MAX_WORK, metavar="N",
                    help="refuse (not checked, exit 2) a certificate whose estimated work "
                    f"exceeds N units (default {DEFAULT_MAX_WORK:,}; see docs/limits.md)")
    ap.add_argument("--one-based", action="store_true", help="labels from 1 in --explain/--latex")
    args = ap.parse_args(argv)
    code = 0
    for path in args.files:
        v = check_file(path, args.max_work)
        if v.ok:
            print(f"{path}: OK {v.kind}")
        else:
            print(f"{path}: INVALID {v.kind} failed_check={v.failed_check} "
                  f"location={v.location}: {v.message}")
        code = max(code, v.exit_code)
        if v.ok and (args.explain or args.latex):  # untrusted presentation, stdlib only
            from certificates import _render
            obj = load(path)
            print(_render.explain(obj, one_based=args.one_based) if args.explain else "", end="")
            print(_render.latex(obj, one_based=args.one_based) if args.latex else "", end="")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
