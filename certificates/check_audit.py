"""Checker of ``argmax-audit`` batch certificates (certificates/SPEC.md, section 9).

Proof obligation.  Per audited label k and per domain, the certificate states one of

* ``argmaxable``: a witness x (``{"x": [...]}`` or ``{"scale": t}`` meaning x = t w_k) with
  (w_k - w_i) . x + (b_k - b_i) > 0 for every i != k (and max_j |x_j| <= R in the box);
* ``never``: positive multipliers c on rows S (k not in S, at most 2 (d + 1) rows, 2 (d + 2)
  with a bias) proving that no x has (w_k - w_i) . x + (b_k - b_i) > 0 for all i in S: Gordan
  (domain ``all``) or its box form (domain ``box``), checked by the kernel; ``rows`` is a
  list, or ``{"as": L}``: the list of label L's earlier never entry in the same domain (a
  support shared by clustered labels, written once; the rows of the current support are
  converted to integers once for consecutive never-proofs on it);
* ``undecided``: no claim.

The head is inline ``W`` or a referenced file of one layout (:data:`NPY_HEADER`: a version
1.0 ``.npy`` of a C-ordered little-endian float64 / float32 k x d matrix; a regular file,
data bytes with the stated SHA-256) read as exact binary fractions.
Records are inline or in JSON-lines ``shards`` (SHA-256 checked, every line parsed by the
kernel).  The records must list the audited labels in order and match the stated counts.
For vocabulary-sized heads check a sample (every never-proof and N witnesses)::

    python -m logitgeom_certificates.check_audit audit.json [--labels 0,5,9-12] [--sample N]

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "argmax-audit",
...         "head": {"W": [["1", "0"], ["-1", "0"], ["0", "1"], ["0", "1/4"]]},
...         "rows": 4, "cols": 2, "domains": ["all"], "labels": [[2, 3]],
...         "counts": {"all": {"argmaxable": 1, "never": 1, "undecided": 0}},
...         "records": [{"label": 2, "all": {"verdict": "argmaxable",
...                                           "witness": {"scale": "1"}}},
...                     {"label": 3, "all": {"verdict": "never", "rows": [0, 1, 2],
...                                           "multipliers": ["3", "3", "2"]}}]}
>>> check_argmax_audit(cert, "")
>>> cert["records"][1]["all"]["multipliers"] = ["1", "1", "1"]
>>> try:
...     check_argmax_audit(cert, "")
... except K.Fail as e:
...     print(e.check, e.location)
gordan-combination /records/1/all
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import math
import os
import random
import re
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from itertools import chain
from operator import mul
from typing import Any

from . import kernel as K
from .batch import referenced, resolve, same_sha256, unmetered
from .bigint import str_to_int
from .linear import gordan

VERDICTS = ("argmaxable", "never", "undecided")
#: the lists of domains an audit may have: a non-empty subset of ['all', 'box'], in any order
DOMAINS = (["all"], ["box"], ["all", "box"], ["box", "all"])
FIELDS = K.COMMON | {"head", "rows", "cols", "bias", "radius", "domains", "labels", "counts",
                     "records", "shards", "source"}
#: The one head file layout read: a version 1.0 ``.npy`` header as numpy writes it, of a 2-D
#: C-ordered little-endian float64 or float32 array (the engine converts every other head).
NPY_HEADER = re.compile(rb"\{'descr': '<f([48])', 'fortran_order': False, 'shape': "
                        rb"\(([0-9]+), ([0-9]+)\), \} *\n")


# ------------------------------------------------------------------- long multipliers
#: A canonical rational of any length (the length is checked against the caller's bound
#: before anything is parsed, :func:`read_long_number`).
_LONG = re.compile(r"(-?)(0|[1-9][0-9]*)(?:/([1-9][0-9]*))?", re.ASCII)


def read_long_number(s: object, loc: str, max_digits: int) -> Fraction:
    """A canonical rational ``"p/q"`` whose p and q may have up to ``max_digits`` digits
    (a bound derived from the certificate itself, :func:`hadamard_digits`; at most
    :data:`.kernel.MAX_DIGITS` it is :func:`.kernel.read_number`).  The length is checked on
    the text before parsing, the text is parsed piecewise (:mod:`.bigint`: no interpreter
    digit limit), and the work, quadratic in the length, is charged first."""
    if max_digits <= K.MAX_DIGITS or not isinstance(s, str) or len(s) <= K.MAX_DIGITS:
        return K.read_number(s, loc)
    m = _LONG.fullmatch(s)
    if m is None or max(len(m[2]), len(m[3] or "")) > max_digits:
        K.fail("number", loc, f"{s[:37]!r}... ({len(s)} characters) is not a canonical rational "
               f"'p/q' of at most {max_digits} digits in p and q (the bound of this proof's rows)")
    K.charge(1 + (len(s) // 64) ** 2)
    p, q = str_to_int(m[2]), str_to_int(m[3] or "1")
    K.fail_if(q == 1 and m[3] is not None or math.gcd(p, q) != 1, "number", loc,
              f"{s[:37]!r}... is not canonical (p/q in lowest terms, q > 1)")
    return Fraction(-p if m[1] else p, q)


def hadamard_digits(rows: list[list[int]]) -> int:
    """Decimal digits enough for the primitive integer solution of a square system whose
    columns are the integer vectors ``rows`` (plus a row of ones): by Cramer's rule each
    entry divides an (n - 1)-minor, at most prod ||row||_2 by Hadamard's inequality.  The
    bound is computed exactly (squared norms in integers), its work charged first."""
    K.charge(sum(len(r) * K.weight(max(map(abs, r), default=0)) for r in rows))
    return sum((int(K.dot(r, r)).bit_length() + 1) // 2 + 1 for r in rows) * 30103 // 100000 + 2


# ------------------------------------------------------------------------ the head
def _head(ref: object, k: int, d: int, loc: str) -> Callable[[int], Any]:
    """Row i of the head, as a function of i: of the inline ``W`` (k rows of d rationals),
    or of the referenced ``.npy`` file: a slice of one flat array of floats (exact binary
    fractions, all finite), the data bytes of the stated SHA-256."""
    if isinstance(ref, dict) and "W" in ref:
        K.only(ref, {"W"}, loc, "an inline head")
        return K.read_matrix(ref["W"], f"{loc}/W", d, k).__getitem__
    K.only(ref, {"format", "file", "sha256"}, loc, "a head reference")
    K.read_choice(ref, "format", loc, ("npy",))
    path = resolve(K.get(ref, "file", loc), f"{loc}/file")
    with K.open_regular(path, loc, 1 << 40) as fh:
        size, magic = os.fstat(fh.fileno()).st_size, fh.read(10)
        hdr = NPY_HEADER.fullmatch(fh.read(int.from_bytes(magic[8:], "little")))
        if magic[:8] != b"\x93NUMPY\x01\x00" or not hdr:
            K.fail("file", loc, f"{path} is not a .npy file of a C-ordered little-endian "
                   "float64 or float32 matrix")
        K.fail_if(hdr.group(2, 3) != (b"%d" % k, b"%d" % d), "shape", loc, f"head in {path} "
                  f"has shape ({hdr[2][:20].decode()}, {hdr[3][:20].decode()}), not ({k}, {d})")
        nbytes = k * d * int(hdr[1])
        K.fail_if(fh.tell() + nbytes > size, "file", loc, f"{path} is truncated")
        K.charge(nbytes // 4)
        vals = array("d" if hdr[1] == b"8" else "f", [0]) * (k * d)  # filled in place, no
        fh.readinto(vals)  # type: ignore[attr-defined]  # copy of the bytes held beside it
    same_sha256(hashlib.sha256(vals), K.get(ref, "sha256", loc), f"the head bytes in {path}", loc)
    if sys.byteorder != "little":
        vals.byteswap()
    K.fail_if(not all(map(math.isfinite, vals)), "number", loc, "a NaN or infinite head entry")
    return lambda i: vals[i * d:(i + 1) * d]


# ------------------------------------------------------------------------ the checks
class _Model:
    """Exact rows on demand (``W(i)``: row i): row i as integers over its denominator L_i."""

    def __init__(self, W: Callable[[int], Any], k: int, d: int, bias: K.Vec | None) -> None:
        self.k, self.d, self.W = k, d, W
        self.b: Sequence[Any] = bias or (0,) * k
        self.cap = 2 * (d + (1 if bias is None else 2))  # most rows of a never-proof
        #: row i -> (integers, L_i); held for heads up to 2^22 entries
        self.row = functools.lru_cache(None if k * d <= 1 << 22 else 0)(lambda i: K.scaled(W(i)))
        #: the rows of the last support (one at a time): converted once for the never-proofs
        #: of consecutive labels on the same support, whatever the size of the head (``row``
        #: bound as a default, so the cache holds no reference back to the model)
        self.support = functools.lru_cache(1)(lambda rows, row=self.row: [row(i) for i in rows])
        #: no bias: :meth:`witness` may take its fast path on float32 rows
        self.unbiased = bias is None

    def witness(self, k: int, x: Sequence[Fraction], loc: str, f32: bool = False) -> None:
        """Logit k beats every other: (w_k - w_i) . x + (b_k - b_i) > 0 for every i != k (the
        entry at ``loc``, its witness at ``loc``/witness).  ``fast``: ``f32`` (x = t w_k, t > 0,
        and the rows are float32, ``array('f')``) without bias, where logit i is taken as
        w_i . w_k + sum F, one ``math.fsum`` of exact float64 terms (the d products, and floats
        F found first with sum F = -w_k . w_k exactly), whose sign is exact (SPEC.md section
        9, "Fast witnesses"); d units charged a row."""
        (IX, LX), wk, F = K.scaled([] if (fast := f32 and self.unbiased) else x), self.W(k), [0.0]

        def logit(i: int) -> Any:  # w_i . x + b_i, exactly (fast: its sign, exactly)
            if fast:  # the d products and their fsum: d units
                K.charge(self.d)
                return math.fsum(chain(F, map(mul, self.W(i), wk)))
            wi, Li = self.row(i)
            K.charge(self.d * K.weight(Li, LX))
            return Fraction(sum(map(int.__mul__, wi, IX)), Li * LX) + self.b[i]
        while fast and (e := logit(k)):  # F takes the rest of w_k . w_k, rounded, until none
            F.append(-e)  # is left (at most 13 sums, SPEC.md section 9): logit(k) = 0
        top = logit(k)
        bad = next((i for i in range(self.k) if i != k and logit(i) >= top), None)
        K.fail_if(bad is not None, "witness", f"{loc}/witness", f"label {k}: margin against "
                  f"label {bad} is not positive at the witness")

    def gordan_rows(self, k: int, rows: tuple[int, ...]) -> list[list[int]]:
        """The integer vectors D (L (w_k - w_i), L (b_k - b_i)) of a never-proof's rows, one
        positive factor D L for all of them (the rows' and the biases' denominators): the
        Gordan rows (a positive scaling changes no Gordan claim, nor R)."""
        (wk, Lk), R = self.row(k), self.support(rows)
        L = math.lcm(Lk, *(Li for _, Li in R))
        db = [Fraction(self.b[k] - self.b[i]) for i in rows]
        D = math.lcm(*(q.denominator for q in db))
        return [[(a * (L // Lk) - v * (L // Li)) * D for a, v in zip(wk, wi, strict=True)]
                + [int(q * D) * L] for (wi, Li), q in zip(R, db, strict=True)]


#: verdict -> the fields of its entry besides ``verdict`` and ``stage``
_ENTRY = {"argmaxable": {"witness"}, "never": {"rows", "multipliers"}, "undecided": {"reason"}}


def _multiplier_texts(m: object, loc: str, n: int) -> list[Any]:
    """A never-proof's n multiplier texts: a list, or ``{"parts": [{"file", "sha256"}, ...]}``
    naming files (SHA-256 checked, each within the kernel's file limit) that each hold a JSON
    list of them, concatenated in order: a proof of any size (SPEC.md section 9)."""
    if not isinstance(m, dict):
        return K.read_list(m, loc, n)
    K.only(m, {"parts"}, loc, "split multipliers")
    texts: list[Any] = []
    for i, ref in enumerate(K.read_list(K.get(m, "parts", loc), f"{loc}/parts")):
        p = f"{loc}/parts/{i}"
        texts.extend(K.read_list(K.parse_json(referenced(ref, p, "a proof part"), p, "schema"), p))
        K.fail_if(len(texts) > n, "shape", p, f"more than {n} multipliers")
    return K.read_list(texts, loc, n)


def _check_entry(M: _Model, k: int, e: object, box: Fraction | None, loc: str, wit_on: bool,
                 never_on: bool, seen: dict[int, Any]) -> str:
    """Check one entry's schema; re-check its proof when ``wit_on`` (a witness) or
    ``never_on`` (a never-proof) holds, on the box max_j |x_j| <= ``box`` (None: domain
    ``all``); return its verdict.  ``seen``: label -> rows of the domain's never entries so
    far that list their rows, what a later ``{"as": label}`` may name (SPEC.md section 9)."""
    verdict = K.read_choice(e, "verdict", loc, VERDICTS)
    K.only(e, {"verdict", "stage", *_ENTRY[verdict]}, loc, "an audit entry")
    if verdict == "argmaxable":
        w = K.get(e, "witness", loc)
        K.fail_if(not isinstance(w, dict) or len(w) != 1 or len(set(w) & {"x", "scale"}) != 1,
                  "schema", f"{loc}/witness", "witness is {'x': [...]} or {'scale': t}")
        if "scale" in w:
            t = K.read_number(w["scale"], f"{loc}/witness/scale")
            K.fail_if(t <= 0, "witness", f"{loc}/witness/scale", "scale must be positive")
            x = [t * Fraction(v) for v in M.W(k)] if wit_on else []
        else:
            x = K.read_field(K.read_vector, w, "x", f"{loc}/witness", M.d)
        if wit_on:
            K.fail_if(box is not None and max(map(abs, x)) > box, "box", f"{loc}/witness",
                      f"label {k}: witness outside max_j |x_j| <= {box}")
            M.witness(k, x, loc, "scale" in w and getattr(M.W(k), "typecode", 0) == "f")
    elif verdict == "never":
        rows = K.get(e, "rows", loc)
        if isinstance(rows, dict):  # {"as": L}: the rows listed by label L's entry (no chains)
            K.only(rows, {"as"}, f"{loc}/rows", "a rows reference")
            ref = K.read_int(K.get(rows, "as", f"{loc}/rows"), f"{loc}/rows/as", 0)
            K.fail_if(ref not in seen, "gordan-support", f"{loc}/rows/as", f"label {k}: {ref} is "
                      "no earlier label whose never entry in this domain lists its rows")
            rows = seen[ref]
        else:
            rows = seen[k] = K.read_ints(rows, f"{loc}/rows", 0, M.k - 1)
        texts = _multiplier_texts(K.get(e, "multipliers", loc), f"{loc}/multipliers", len(rows))
        K.fail_if(not rows, "gordan-nonzero", f"{loc}/rows", f"label {k}: no multipliers")
        K.fail_if(k in rows or len(set(rows)) != len(rows) or len(rows) > M.cap, "gordan-support",
                  f"{loc}/rows", f"label {k}: rows must be distinct, exclude the label itself "
                  f"and number at most {M.cap}")
        # a number longer than the default limit is read only up to the Hadamard bound of
        # this proof's own rows (SPEC.md section 9, "Number sizes")
        long = any(isinstance(t, str) and len(t) > K.MAX_DIGITS for t in texts)
        G = M.gordan_rows(k, rows) if long or never_on else []  # made once, used by both
        limit = hadamard_digits(G) if long else K.MAX_DIGITS
        c = tuple(read_long_number(t, f"{loc}/multipliers/{i}", limit) for i, t in enumerate(texts))
        K.fail_if(any(q <= 0 for q in c), "gordan-nonnegative", f"{loc}/multipliers",
                  f"label {k}: multipliers must be positive")
        if never_on:
            gordan([(g[:-1], g[-1]) for g in G], c, loc, box)
    return verdict


def _runs(runs: object, k: int, loc: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n, pair in enumerate(K.read_list(runs, loc)):
        a, b = K.read_ints(pair, f"{loc}/{n}", 0, k - 1, 2)
        K.fail_if(b < a or n and a <= out[-1][1], "schema", f"{loc}/{n}",
                  "label runs [a, b], a <= b, must be increasing and disjoint")
        out.append((a, b))
    K.fail_if(not out, "schema", loc, "no labels")
    return out


def _records(obj: K.Obj, loc: str) -> Iterator[tuple[str, Any]]:
    """(location, record) of the inline records, or per non-blank line of the JSON-lines
    shards."""
    if "records" in obj:
        for n, r in enumerate(K.read_list(obj["records"], f"{loc}/records")):
            yield f"{loc}/records/{n}", r
        return
    for s, sh in enumerate(K.read_list(K.get(obj, "shards", loc), f"{loc}/shards")):
        sloc = f"{loc}/shards/{s}"
        for n, line in enumerate(referenced(sh, sloc, "a shard reference", True).split(b"\n")):
            if line.strip():
                yield f"{sloc}:{n + 1}", K.parse_json(line, f"{sloc}:{n + 1}", "schema")


def check_argmax_audit(obj: K.Obj, loc: str, parts: object = None) -> None:
    """Check an ``argmax-audit`` certificate, its header and fields too (:func:`check_file`
    hands it the parsed file); raise :class:`logitgeom_certificates.errors.Fail`."""
    K.header(obj, loc, ("argmax-audit",))
    K.only(obj, FIELDS, loc, "an argmax-audit certificate")
    k, d = (K.read_int(K.get(obj, f, loc), f"{loc}/{f}", m) for f, m in (("rows", 2), ("cols", 1)))
    src = obj.get("source")  # provenance only: its shape is checked, not the file
    K.fail_if(src is not None and not (isinstance(src, dict) and set(src) == {"file", "sha256"}
              and isinstance(src["file"], str) and isinstance(src["sha256"], str)
              and re.fullmatch(r"[0-9a-f]{64}", src["sha256"])), "schema", f"{loc}/source",
              "source is {file: name, sha256: 64 hex digits}")
    runs = _runs(K.get(obj, "labels", loc), k, f"{loc}/labels")
    scope = K.SCOPE.get()
    unmetered()  # checked in part (scope set): the caller chose the labels or the sample
    labels = None if scope is None else scope.get("labels")
    if labels is not None:  # the run [a, b] with the last a <= x (bisect: runs are increasing,
        # b < k), or the last run (index -1) if none, must hold x: the runs are never expanded
        bad = min((x for x in labels if not runs[i := bisect.bisect(runs, (x, k)) - 1][0] <= x
                   <= runs[i][1]), default=None)
        K.fail_if(bad is not None, "labels", f"{loc}/labels",
                  f"label {bad} is not among the audited labels")
    domains = K.read_list(K.get(obj, "domains", loc), f"{loc}/domains")
    K.fail_if(domains not in DOMAINS, "schema", f"{loc}/domains", "domains: 'all', 'box' or both")
    radius = K.read_field(K.read_number, obj, "radius", loc) if "box" in domains else None
    K.fail_if(radius <= 0 if radius is not None else obj.get("radius") is not None, "schema",
              f"{loc}/radius", "the radius is > 0 and given exactly with the 'box' domain")
    M = _Model(_head(K.get(obj, "head", loc), k, d, f"{loc}/head"), k, d,  # head, then bias
               None if obj.get("bias") is None else K.read_vector(obj["bias"], f"{loc}/bias", k))
    stated = K.get(obj, "counts", loc)
    picks = {}  # sample mode: which witnesses (by their index per domain) to re-check
    if scope is not None and scope.get("sample") is not None:
        scope.update(witnesses=0, checked=0)
        for dom in domains:
            n = stated.get(dom, {}).get("argmaxable") if isinstance(stated, dict) else None
            n = n if type(n) is int and n >= 0 else 0
            picks[dom] = set(random.Random(scope.get("seed", 0)).sample(
                range(n), min(scope["sample"], n)))
    counts = {dom: dict.fromkeys(VERDICTS, 0) for dom in domains}
    seen: dict[str, dict[int, Any]] = {dom: {} for dom in domains}  # the never entries' rows
    # the records list the audited labels in order, each once (the runs are never expanded)
    expected = (x for a, b in runs for x in range(a, b + 1))
    for rloc, rec in _records(obj, loc):
        lab = K.read_int(K.get(rec, "label", rloc), f"{rloc}/label", 0, k - 1)
        K.only(rec, {"label", *domains}, rloc, "a record")
        nxt = next(expected, None)
        K.fail_if(lab != nxt, "labels", f"{rloc}/label", f"record of label {lab} where the "
                  f"audited labels need {'no more records' if nxt is None else nxt}")
        for dom in domains:  # which proofs to re-check: all, some labels', or a sample
            want = scope is None or (lab in labels if labels is not None else None)
            chosen = want if want is not None else counts[dom]["argmaxable"] in picks[dom]
            v = _check_entry(M, lab, K.get(rec, dom, rloc), radius if dom == "box" else None,
                             f"{rloc}/{dom}", chosen, want is not False, seen[dom])
            if want is None and v == "argmaxable" and scope is not None:  # sample: tally
                scope.update(witnesses=scope["witnesses"] + 1, checked=scope["checked"] + chosen)
            counts[dom][v] += 1
    nxt = next(expected, None)
    K.fail_if(nxt is not None, "labels", f"{loc}/labels", f"no record of label {nxt} (too few)")
    K.fail_if(stated != counts, "count", f"{loc}/counts",
              f"stated counts {stated} differ from the records {counts}")


def check_file(path: Any, labels: Any = None, max_work: int | str | None = "default",
               sample: int | None = None, seed: int = 0, scope: K.Obj | None = None) -> K.Verdict:
    """Check an audit file, re-checking only the proofs of ``labels`` (unknown labels fail),
    or every never-proof and ``sample`` witnesses drawn with ``seed`` (then no work budget
    applies unless ``max_work`` is given: the caller chose the sample).  ``scope`` (a dict)
    receives the tallies ``witnesses`` and ``checked``."""
    return K.read_and_check(os.fspath(path), check_argmax_audit, max_work, scope, labels,
                            sample, seed)[0]


KIND_TABLE = {"argmax-audit": (check_argmax_audit, None)}


if __name__ == "__main__":  # pragma: no cover  (the command line: presentation, in _cli)
    from . import _cli
    sys.exit(_cli.run(lambda argv=None: _cli.audit_main(argv, check_file)))
