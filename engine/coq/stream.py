"""Streamed completeness in Coq: the prefix tree written out, split over files.

A ``pattern-complete-stream`` certificate lists millions of patterns in shard files; one Coq
file of its prefix tree would be too large for coqc.  The export writes

* ``STEM_data.v``: the head ``W`` (and ``b``);
* ``STEM_sNNNNN.v``, each with consecutive subtrees at depth ``D`` (about ``leaves``
  patterns a file); per subtree: its prefix ``q``, the patterns ``L`` starting with ``q``
  (in tree order), the subtree (``ptree`` of Logitgeom.v: a node per
  prefix, a witness per pattern, sparse Gordan multipliers refuting every prefix that no
  listed pattern starts with) and ``sub_claim (sign_pattern W b) q L``: these are exactly
  the sign vectors starting with ``q``, each once (``sign_shard_sound``; rankings:
  ``rank_shard_sound``);
* ``STEM.v``: the top of the tree (depth < ``D``, holes at the shards' prefixes) and the
  claim ``all_sign_patterns W b L /\\ length L = N /\\ NoDup L`` for ``L = concat Ls``, from
  the shards' theorems (``sign_stream_sound`` / ``rank_stream_sound``).

Each file compiles on its own once the files it imports are compiled; the referee's check
of ``STEM.v`` checks all of them (:mod:`logitgeom.coq.referee`).  The multipliers come from
the exact LP (:func:`logitgeom.coq._rows.gordan`); a certificate supported on a few sign
rows is reused at every prefix with the same signs there (rows are data, so it stays valid).
Nothing here is trusted: coqc checks every witness and multiplier.

Examples
--------
>>> from fractions import Fraction as F
>>> W = [[F(1), F(0)], [F(0), F(1)], [F(1), F(1)]]
>>> out = stream_files(W, None, False, [((1, 1, 1), [F(1), F(1)]), ((1, -1, 1), [F(2), F(-1)]),
...     ((1, -1, -1), [F(1), F(-2)]), ((-1, 1, 1), [F(-1), F(2)]), ((-1, 1, -1), [F(-2), F(1)]),
...     ((-1, -1, -1), [F(-1), F(-1)])], "ex", header="", leaves=2)
>>> [name for name, _ in out.files]
['ex_data.v', 'ex_s00000.v', 'ex_s00001.v', 'ex_s00002.v', 'ex_s00003.v', 'ex.v']
>>> out.depth, out.subtrees, out.shards
(2, 4, 4)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import stat
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from logitgeom.coq import _rows as rows
from logitgeom.coq._read import ExportError
from logitgeom.coq._terms import integers, nats, q, qmat, qvec, qvec_common, zs
from logitgeom.coq._tree import rank_opts, reduce_columns, sign_opts

__all__ = ["stream_files", "export_stream", "read_stream", "StreamExport", "LEAVES"]

#: Patterns per shard file (at most, when the tree allows; the split depth is the least
#: that keeps every subtree at most this large).
LEAVES = 4096

Pat = tuple[int, ...]


@dataclass(frozen=True)
class StreamExport:
    """The Coq files of a streamed enumeration and the figures of their making.

    Attributes
    ----------
    files : list of (file name, text)
        ``STEM_data.v``, the shard files ``STEM_sNNNNN.v``, the assembling ``STEM.v`` last.
    depth : int
        The split depth ``D``: every subtree starts with a prefix of that length.
    subtrees : int
        Subtrees at depth ``D`` (one theorem each).
    shards : int
        Shard files the subtrees are packed into.
    lps : int
        Exact LPs solved for the refutations (the export's main cost).
    """

    files: list[tuple[str, str]]
    depth: int
    subtrees: int
    shards: int
    lps: int


def _ints(y: list[Fraction]) -> list[Fraction]:
    """The multipliers as integers (:func:`~logitgeom.coq._terms.integers`) without a common
    factor: positive multiples of multipliers are multipliers (shorter files)."""
    num = integers(y)
    g = math.gcd(*(int(f) for f in num)) or 1
    return [f / g for f in num]


class _Cuts:
    """Sparse Gordan multipliers for prefixes no listed pattern starts with."""

    def __init__(self, W, b, ranking: bool):
        self.W, self.b, self.ranking = W, b, ranking
        self.Wr, self.lift = reduce_columns(W)
        self.d = len(self.Wr[0])
        # sign prefixes: (row, sign) -> {support rows: {their signs: multipliers}}
        self.cache: dict[tuple[int, int], dict[tuple[int, ...], dict[Pat, list]]] = {}
        self.lps = 0

    def _solve(self, rs: list) -> list[Fraction]:
        self.lps += 1
        ok, y = rows.gordan(rs, self.d)
        if ok:
            raise _Realised(y)
        return _ints(y)

    def sparse(self, c: Pat) -> list[tuple[int, Fraction]]:
        """[(index in the Coq rows of c, multiplier)] for the prefix c."""
        if self.ranking:
            y = self._solve(rows.rank_rows(self.Wr, self.b, c))
            return [(i, v) for i, v in enumerate(y) if v]
        m, a = len(c) - 1, c[-1]
        table = self.cache.setdefault((m, a), {})
        for S, by_signs in table.items():
            hit = by_signs.get(tuple(c[i] for i in S))
            if hit is not None:
                return self._index(c, S, hit)
        y = self._solve(rows.sign_rows(self.Wr, self.b, c))
        nz = [i for i, s in enumerate(c) if s]  # the Coq rows are the non-zero signs
        S = tuple(i for i, v in zip(nz, y, strict=True) if v)
        vals = [v for v in y if v]
        table.setdefault(S, {})[tuple(c[i] for i in S)] = vals
        return self._index(c, S, vals)

    @staticmethod
    def _index(c: Pat, S: tuple[int, ...], vals: list) -> list[tuple[int, Fraction]]:
        pos, out, n = {}, [], 0
        for i, s in enumerate(c):
            if s:
                pos[i] = n
                n += 1
        for i, v in zip(S, vals, strict=True):
            out.append((pos[i], v))
        return out


class _Realised(Exception):
    """An LP found a prefix realised that no listed pattern starts with."""


def _cut(ys: list[tuple[int, Fraction]]) -> str:
    """``PCutZ [i; y_i; ...]%Z`` (integers: faster for coqc to read than pairs of a nat and
    a rational) when every multiplier is an integer, else ``PCut [(i, y_i); ...]``."""
    if all(v.denominator == 1 for _, v in ys):
        return "(PCutZ [" + "; ".join(f"{i}; {int(v)}" for i, v in ys) + "]%Z)"
    return "(PCut [" + "; ".join(f"({i}%nat, {q(v)})" for i, v in ys) + "])"


class _Builder:
    """Coq terms of (sub)trees over the listed patterns, sorted in the tree's order."""

    def __init__(self, pats: list[Pat], wits: list[list[Fraction]], k: int,
                 opts: Callable[[Pat], list[int]], cuts: _Cuts):
        self.pats, self.wits, self.k, self.opts, self.cuts = pats, wits, k, opts, cuts

    def term(self, p: Pat, lo: int, hi: int, hole: int | None) -> str:
        """The tree at prefix p over pats[lo:hi] (all start with p); PHole at depth
        ``hole``."""
        if hole is not None and len(p) == hole:
            return "PHole"
        if len(p) == self.k:
            if hi - lo != 1:
                raise ExportError("a pattern is listed twice")
            return f"(PLeaf ({qvec_common(self.wits[lo])}))"
        m, parts, i = len(p), [], lo
        for a in self.opts(p):
            j = i
            while j < hi and self.pats[j][m] == a:
                j += 1
            c = p + (a,)
            if j > i:
                parts.append(self.term(c, i, j, hole))
            else:
                try:
                    parts.append(_cut(self.cuts.sparse(c)))
                except _Realised as e:
                    x = self.cuts.lift(list(e.args[0]))
                    raise ExportError(
                        f"the list is not complete: the prefix {list(c)} is realised at x = "
                        f"[{', '.join(map(str, x))}] but no listed pattern starts with it"
                    ) from None
            i = j
        if i != hi:
            raise ExportError(f"a listed pattern has an entry outside the options at {list(p)}")
        if len(parts) <= 2:  # N1 / N2 of Logitgeom.v: fewer terms for coqc to read
            return f"(N{len(parts)} {' '.join(parts)})"
        return "(PNode " + "".join(f"(PCons {t} " for t in parts) + "PNil" + ")" * len(parts) \
            + ")"


def _depth(pats: list[Pat], k: int, leaves: int) -> int:
    """The least split depth D < k with at most ``leaves`` patterns under each prefix."""
    for D in range(k):
        if max(Counter(p[:D] for p in pats).values()) <= leaves:
            return D
    return k - 1


def stream_files(W: Sequence[Sequence[Fraction]], b: Sequence[Fraction] | None,
                 ranking: bool, listed: list[tuple[Pat, list[Fraction]]], stem: str, *,
                 header: str, leaves: int = LEAVES, head: str = "") -> StreamExport:
    """The Coq files proving that ``listed`` are all the sign vectors (or full rankings) of
    the head, each once (the assembling file ``STEM.v`` last), with the export's figures.

    Parameters
    ----------
    W, b : exact matrix and bias (None: no bias)
    ranking : bool
        Full rankings instead of sign vectors.
    listed : list of (pattern, witness)
        The certificate's patterns, in any order.
    stem : str
        A Coq identifier (already sanitized): the files are ``STEM_data.v``,
        ``STEM_sNNNNN.v`` and ``STEM.v``.
    header : str
        The library import every file starts with (:data:`logitgeom.coq.export.HEADER`).
    leaves : int
        Patterns per shard file, at most (when the tree allows).
    head : str
        A comment (already checked to be safe) put at the top of ``STEM.v``.

    Returns
    -------
    StreamExport

    Raises
    ------
    ExportError
        A realised prefix no listed pattern starts with (not complete), a pattern listed
        twice, an entry outside the options.
    """
    HEADER = header
    k = len(W)
    if ranking:
        order = sorted(range(len(listed)), key=lambda i: listed[i][0])
        opts = rank_opts(k)
    else:
        order = sorted(range(len(listed)), key=lambda i: tuple(-s for s in listed[i][0]))
        opts = sign_opts(W, b)
    pats = [tuple(listed[i][0]) for i in order]
    wits = [listed[i][1] for i in order]
    if not pats or any(len(p) != k for p in pats):
        raise ExportError(f"every listed pattern has length {k}")
    cuts = _Cuts(W, b, ranking)
    build = _Builder(pats, wits, k, opts, cuts)
    D = _depth(pats, k, leaves)
    lst, typ = (nats, "nat") if ranking else (zs, "Z")
    R = "rank_real W b" if ranking else "sign_pattern W b"
    base = (f"{typ} ({'rank_opts (length W)' if ranking else 'sign_opts W b'}) "
            f"({'rank' if ranking else 'sign'}_refute W b) "
            f"({'ranks_b' if ranking else 'sign_witness_ok'} W b) (length W)")
    dec = "Nat.eq_dec" if ranking else "Z.eq_dec"
    pt = f"pt_pats {typ} ({'rank_opts (length W)' if ranking else 'sign_opts W b'})"
    data = (f"{HEADER}\nDefinition W : mat :=\n{qmat(W)}.\n"
            f"Definition b : vec :=\n{qvec(b) if b is not None else '[]'}.\n")
    files = [(f"{stem}_data.v", data)]
    groups: list[tuple[Pat, int, int]] = []
    lo = 0
    while lo < len(pats):
        hi = lo
        while hi < len(pats) and pats[hi][:D] == pats[lo][:D]:
            hi += 1
        groups.append((pats[lo][:D], lo, hi))
        lo = hi
    names, packs, size = [], [[]], 0  # subtrees, packed into files of about `leaves`
    for g in groups:
        if packs[-1] and size + g[2] - g[1] > leaves:
            packs.append([])
            size = 0
        packs[-1].append(g)
        size += g[2] - g[1]
    imports = []
    for f, pack in enumerate(packs):
        parts = []
        for pre, lo, hi in pack:
            s = f"h{len(names):05d}"
            names.append(s)
            t = build.term(pre, lo, hi, None)
            parts.append(
                f"Definition q_{s} : list {typ} := {lst(pre)}.\n"
                f"Definition t_{s} : ptree :=\n{t}.\n"
                f"(** The patterns of the subtree: every listed pattern starting with q_{s}. *)\n"
                f"Definition L_{s} : list (list {typ}) := {pt} q_{s} t_{s}.\n"
                f"Lemma ok_{s} :\n  pt_ok {base} (fun _ => false) q_{s} t_{s} = true.\n"
                f"Proof. vm_cast_no_check (eq_refl true). Qed.\n"
                f"Theorem shard_{s} :\n  sub_claim ({R}) q_{s} L_{s}.\n"
                f"Proof. exact ({'rank' if ranking else 'sign'}_shard_sound W b q_{s} t_{s} "
                f"ok_{s}). Qed.\n")
        imports.append(f"{stem}_s{f:05d}")
        files.append((f"{stem}_s{f:05d}.v", f"{HEADER}From Logitgeom Require Import "
                      f"{stem}_data.\n\n" + "".join(parts)))
    top = build.term((), 0, len(pats), D)
    N = len(pats)
    forall2 = "".join(f"(@Forall2_cons _ _ _ q_{s} L_{s} _ _ shard_{s} " for s in names) + \
        "(@Forall2_nil _ _ _)" + ")" * len(names)
    claim = "all_rankings" if ranking else "all_sign_patterns"
    files.append((f"{stem}.v", (
        f"{head}{HEADER}From Logitgeom Require Import {stem}_data "
        + " ".join(imports) + ".\n\n"
        f"Definition D : nat := {D}.\n"
        f"Definition T : ptree :=\n{top}.\n"
        f"Definition qs : list (list {typ}) := [" + "; ".join(f"q_{s}" for s in names) + "].\n"
        f"Definition Ls : list (list (list {typ})) := ["
        + "; ".join(f"L_{s}" for s in names) + "].\n"
        f"Definition L : list (list {typ}) := concat Ls.\n"
        f"Lemma top_ok :\n  Nat.ltb D (length W) && pt_ok {base} "
        f"(fun p => Nat.eqb (length p) D) [] T\n  && Nat.eqb (length ({pt} [] T)) 0\n"
        f"  && lleqb {dec} (pt_holes {typ} "
        f"({'rank_opts (length W)' if ranking else 'sign_opts W b'}) [] T) qs\n"
        f"  && nodup_by (fun a c => lleqb {dec} [a] [c]) qs\n"
        f"  && Nat.eqb (length (concat Ls)) {N} = true.\n"
        f"Proof. vm_cast_no_check (eq_refl true). Qed.\n"
        f"(** The claim: these are all the {'rankings' if ranking else 'sign patterns'} of "
        f"W, {N} of them, each once. *)\n"
        f"Theorem all_{'ranked' if ranking else 'signs'} :\n  {claim} W b L /\\ "
        f"(length L = {N})%nat /\\ NoDup L.\n"
        f"Proof. exact ({'rank' if ranking else 'sign'}_stream_sound W b D T qs Ls {N} top_ok "
        f"{forall2}). Qed.\n")))
    return StreamExport(files, D, len(names), len(packs), cuts.lps)


def export_stream(obj: dict, path: Path, reader, stem: str, header: str, safe,
                  leaves: int | None = None) -> StreamExport:
    """The Coq files of a ``pattern-complete-stream`` certificate the stdlib checker has
    accepted (``path``: its file; ``stem``: a Coq identifier; ``safe``: the pattern a
    header comment must match), the assembling file last, with the export's figures."""
    W, b = reader.model(obj, "")
    ranking = obj.get("pattern") == "ranking"
    listed = read_stream(obj, path.parent, reader)
    digest = hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()
    head = (f"(* logitgeom export coq: {stem} (kind pattern-complete-stream, {len(listed)} "
            f"{'rankings' if ranking else 'sign vectors'}).\n"
            f"   SHA-256 of the certificate's canonical JSON: {digest}.\n"
            f"   The claim: the last theorem, in the words of Logitgeom.v: L, the patterns of\n"
            f"   the prefix tree in the files {stem}_s*.v (the certificate's patterns), are all\n"
            f"   the {'full rankings' if ranking else 'sign vectors'} of W, each once.\n"
            f"   Compile {stem}_data.v, then each {stem}_s*.v, then this file. *)\n")
    if not safe.fullmatch(head):
        raise reader.fail("", "internal: the header is not plain ASCII")
    try:
        return stream_files(W, b, ranking, listed, stem, header=header, head=head,
                            leaves=leaves or LEAVES)
    except ExportError as exc:
        raise reader.fail("", str(exc)) from None


def read_stream(obj: dict, base_dir: str | Path, reader) -> list[tuple[Pat, list[Fraction]]]:
    """The (pattern, witness) lines of a checked ``pattern-complete-stream`` certificate's
    shards (each file's SHA-256 compared again with the certificate's: a file changed since
    the check is refused)."""
    out = []
    for n, sh in enumerate(obj["shards"]):
        path = Path(base_dir) / sh["file"]
        try:  # opened without blocking, a regular file on the descriptor (never a FIFO)
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise reader.fail(f"/shards/{n}", f"{sh['file']!r} is not a regular file")
                raw = fh.read()
        except OSError as exc:
            raise reader.fail(f"/shards/{n}", f"cannot read {sh['file']!r}: "
                              f"{exc.strerror or exc}") from None
        if hashlib.sha256(raw).hexdigest() != sh["sha256"]:
            raise reader.fail(f"/shards/{n}", "the shard changed since it was checked")
        for i, line in enumerate(gzip.decompress(raw).splitlines()):
            rec = json.loads(line)
            out.append((tuple(rec["pattern"]),
                        reader.vec(rec["witness"], f"/shards/{n}/line {i}")))
    return out
