"""``logitgeom export coq``: one Coq file per certificate, its claim proved by computation.

Each file defines the certificate's data (heads, patterns, witnesses, multipliers) and
states the claim in the words of ``certificates/coq/Logitgeom.v`` ("s is a sign pattern of
W", "label k is never the strict argmax", "these are all the rankings of W", "every input
gives the same softmax"); the proof applies a boolean checker that the library proves sound
once, and runs it with ``vm_compute``.  No proof searches.  This generator is not trusted:
what it writes is believed only when coqc accepts it (docs/coq.md).

Covered: ``sign-``/``ranking-feasible``/``-infeasible``, ``translation``, ``cosine-equal``,
``same-chirotope`` (with S(W1) = S(W2) proved by enumeration), ``pattern-complete`` (by the
prefix tree of the listed patterns: every prefix no listed pattern starts with is refuted by
its own Gordan multipliers, found by the exact LP; :mod:`logitgeom.coq._tree`),
``pattern-differs``, every ``theorem`` name, ``argmax-audit`` (never-proofs and
witnesses) and ``pattern-complete-stream`` (several files: :func:`export_file_set`,
:mod:`logitgeom.coq.stream`).  Not covered: the ``layer-peeled-*`` kinds (convex brackets,
not discrete: exp/log enclosures).

Examples
--------
>>> from logitgeom_certificates.api import FORMAT, VERSION
>>> cert = {"format": FORMAT, "version": VERSION, "kind": "sign-infeasible",
...         "W": [["1", "0"], ["0", "1"], ["1", "1"]], "signs": [1, 1, -1],
...         "multipliers": ["1", "1", "1"]}
>>> name, text = export_certificate(cert, "example")
>>> name
'example.v'
>>> print([line for line in text.splitlines() if "~ sign_pattern" in line][0].strip())
~ sign_pattern W [] [1; 1; -1]%Z.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from logitgeom.coq import _rows as rows
from logitgeom.coq import _tree as tree
from logitgeom.coq._audit import audit
from logitgeom.coq._read import ExportError, Reader
from logitgeom.coq._terms import ident, label, nats, q, qmat, qvec, zs
from logitgeom_certificates.api import FORMAT, VERSION
from logitgeom_certificates.api import KINDS as CHECKER_KINDS

__all__ = ["export_certificate", "export_file", "export_file_set", "export_checked",
           "STREAMED", "paper_name", "result_name", "ExportError", "THEOREM_NAMES",
           "PAPER_RESULTS", "HEADER", "LIBRARY", "library_names"]

#: The papers' names of the ``theorem`` kinds (the cosine paper), used as theorem names.
THEOREM_NAMES = {"translation-cosine": "Thm_3_4", "centred-cosine-ranking": "App_C_2",
                 "cosine-not-ranking": "Thm_5_5", "sign-not-ranking": "App_H_2",
                 "cosine-determines-sign": "Lemma_5_3",
                 "difference-cosine-determines-ranking": "Thm_5_6",
                 "patterns-equal": "patterns_equal", "argmaxable-labels": "argmaxable_labels"}

HEADER = """From Coq Require Import Uint63 Sint63.
From Coq Require Import ZArith QArith List Reals.
From Logitgeom Require Import Logitgeom.
Import ListNotations.
Open Scope Q_scope.
"""

#: Runs a checker (a goal ``checker ... = true``) once, in the kernel at Qed: ``vm_compute;
#: reflexivity`` would run it twice (the tactic, then the kernel's check of the proof).
_VM = "vm_cast_no_check (eq_refl true)"
#: For an equation of two computed values (the chirotopes): computed and compared.
_VM_EQ = "vm_compute; reflexivity"


#: The library (certificates/coq/Logitgeom.v, beside the trusted checker).
LIBRARY = Path(importlib.util.find_spec("logitgeom_certificates").origin).parent / "coq" / \
    "Logitgeom.v"


@functools.cache
def library_names() -> frozenset[str]:
    """Every name Logitgeom.v defines (and its section's local names): a file's own names
    must not shadow them."""
    return frozenset(re.findall(
        r"^\s*(?:Definition|Fixpoint|Lemma|Theorem|Record|Inductive|Variable|Hypothesis|"
        r"Context|Let|Corollary|Remark|Fact|Notation|Section) +([A-Za-z_0-9']+)",
        LIBRARY.read_text(), re.M))


class Script:
    """Definitions (deduplicated by their text) and lemmas of one file."""

    def __init__(self, reader: Reader):
        self.r = reader
        self.defs: list[str] = []
        self.lemmas: list[str] = []
        self._by_term: dict[tuple, str] = {}
        self._used: set[str] = set(library_names()) | {"h", "i", "j", "k", "s", "pi", "z"}
        self.base_dir: str | None = None
        self.witnesses = True
        self.paper: str | None = None

    def name(self, base: str) -> str:
        """A fresh identifier starting with ``base`` (never a name of the library)."""
        n, out = 0, base
        while out in self._used:
            n += 1
            out = f"{base}{n}"
        self._used.add(out)
        return out

    def define(self, base: str, typ: str, term: str, *, shared: bool = True) -> str:
        """``Definition base : typ := term.`` (once per distinct term unless ``shared`` is
        false: a name the statement reads, such as the never labels); returns its name."""
        key = (typ, term) if shared else (typ, term, base, len(self.defs))
        if key not in self._by_term:
            nm = self.name(base)
            self.defs.append(f"Definition {nm} : {typ} :=\n{term}.\n")
            self._by_term[key] = nm
        return self._by_term[key]

    def lemma(self, base: str, statement: str, proof: str, doc: str = "") -> tuple[str, str]:
        """A lemma proved by ``proof``; returns (name, statement)."""
        nm = self.name(base)
        head = f"(** {doc} *)\n" if doc else ""
        self.lemmas.append(f"{head}Lemma {nm} :\n  {statement}.\nProof. {proof} Qed.\n")
        return nm, statement

    def head(self, W, b) -> tuple[str, str]:
        """Names of the matrix and bias (``[]`` when there is none)."""
        Wn = self.define("W", "mat", qmat(W))
        return Wn, ("[]" if b is None else self.define("b", "vec", qvec(b)))


# ------------------------------------------------------------------- single claims
def _sign_value(sc: Script, obj: dict, loc: str, key: str, W: list) -> list[int]:
    return sc.r.ints(sc.r.get(obj, key, loc), f"{loc}/{key}", -1, 1)


def _ranking_value(sc: Script, obj: dict, loc: str, key: str, W: list) -> list[int]:
    pi = sc.r.ints(sc.r.get(obj, key, loc), f"{loc}/{key}", 0, len(W) - 1)
    if not pi or len(set(pi)) != len(pi):
        raise sc.r.fail(f"{loc}/{key}", "a ranking lists distinct labels, at least one")
    return pi


def _witness(sc: Script, obj: dict, loc: str, W: list, b: list | None, ranking: bool,
             value: list[int], Wn: str, bn: str) -> tuple[str, str]:
    x = sc.define("x", "vec", qvec(sc.r.vec(sc.r.get(obj, "witness", loc), f"{loc}/witness",
                                            len(W[0]))))
    if ranking:
        return (f"ranking {Wn} {bn} {nats(value)}",
                f"apply (ranking_witness_sound {Wn} {bn} {nats(value)} {x}); {_VM}.")
    if len(value) != len(W):
        raise sc.r.fail(f"{loc}", f"{len(value)} signs for {len(W)} rows")
    return (f"sign_pattern {Wn} {bn} {zs(value)}",
            f"apply (sign_witness_sound {Wn} {bn} {zs(value)} {x}); {_VM}.")


def _never(sc: Script, obj: dict, loc: str, W: list, b: list | None, ranking: bool,
           value: list[int], Wn: str, bn: str) -> tuple[str, str]:
    ys = sc.r.vec(sc.r.get(obj, "multipliers", loc), f"{loc}/multipliers")
    if ranking:
        keep = rows.rank_keep(W, b, value)
        chk, stmt = "ranking_never_sound", f"~ ranking {Wn} {bn} {nats(value)}"
        val = nats(value)
    else:
        if len(value) != len(W) or any((s == 0) != (not any(W[i]) and not rows._b(b, i))
                                       for i, s in enumerate(value)):
            raise sc.r.fail(f"{loc}", "a sign vector whose zeros are not exactly the "
                            "identically zero rows is not covered by the Coq export")
        keep = [s != 0 for s in value]
        chk, stmt, val = "sign_never_sound", f"~ sign_pattern {Wn} {bn} {zs(value)}", zs(value)
    if len(ys) != len(keep):
        raise sc.r.fail(f"{loc}/multipliers", f"{len(ys)} multipliers for {len(keep)} rows")
    y = sc.define("y", "vec", qvec([v for v, k in zip(ys, keep, strict=True) if k]))
    return stmt, f"apply ({chk} {Wn} {bn} {val} {y}); {_VM}."


def _single(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    kind = obj["kind"]
    ranking, feasible = kind.startswith("ranking"), kind.endswith("-feasible")
    W, b = sc.r.model(obj, loc)
    Wn, bn = sc.head(W, b)
    read = _ranking_value if ranking else _sign_value
    value = read(sc, obj, loc, "ranking" if ranking else "signs", W)
    stmt, proof = (_witness if feasible else _never)(sc, obj, loc, W, b, ranking, value, Wn, bn)
    return [sc.lemma("claim", stmt, proof, f"{kind} ({loc or 'top level'})")]


def _differs(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    W1, b1 = sc.r.model(obj, loc, "W1", "bias1")
    W2, b2 = sc.r.model(obj, loc, "W2", "bias2")
    if len(W1) != len(W2):
        raise sc.r.fail(loc, "W1 and W2 have different numbers of rows")
    ranking = sc.r.get(obj, "pattern", loc) == "ranking"
    value = (_ranking_value if ranking else _sign_value)(sc, obj, loc, "value", W1)
    n1, m1 = sc.head(W1, b1)
    n2, m2 = sc.head(W2, b2)
    s1, p1 = _witness(sc, obj, loc, W1, b1, ranking, value, n1, m1)
    s2, p2 = _never(sc, obj, loc, W2, b2, ranking, value, n2, m2)
    return [sc.lemma("differs", f"{s1} /\\ {s2}", f"split; [{p1[:-1]}|{p2[:-1]}].",
                     f"pattern-differs ({loc or 'top level'}): in P(W1), not in P(W2)")]


def _translation(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    W, _ = sc.r.model(obj, loc)
    Wt = sc.r.mat(sc.r.get(obj, "W_translated", loc), f"{loc}/W_translated")
    v = sc.r.vec(sc.r.get(obj, "v", loc), f"{loc}/v")
    i, j = sc.r.ints(sc.r.get(obj, "labels", loc), f"{loc}/labels", 0, len(Wt) - 1)
    target = sc.r.get(obj, "target", loc)
    if target not in (1, -1):
        raise sc.r.fail(f"{loc}/target", "target must be +1 or -1")
    t = next((a / c for a, c in zip(Wt[i], Wt[j], strict=False) if c), Fraction(0))
    Wn, Wtn = sc.define("W", "mat", qmat(W)), sc.define("W", "mat", qmat(Wt))
    vn = sc.define("v", "vec", qvec(v))
    lemma, val = ("cosine_opposite", "(-1)%R") if target < 0 else ("cosine_same", "1%R")
    stmt = (f"(forall h, softmax (logitsR {Wtn} h) = softmax (logitsR {Wn} h)) /\\ "
            f"cosine (row {Wtn} {i}) (row {Wtn} {j}) = {val}")
    proof = (f"split; [apply (translation_same_softmax {Wn} {Wtn} {vn}); {_VM}|"
             f"apply ({lemma} (row {Wtn} {i}) (row {Wtn} {j}) {q(t)}); {_VM}].")
    return [sc.lemma("translation", stmt, proof, "translation: same probabilities, cosine "
                     f"{val[:-2].strip('()')}")]


def _cosine_equal(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    W1, _ = sc.r.model(obj, loc, "W1")
    W2, _ = sc.r.model(obj, loc, "W2")
    if len(W1) != len(W2):
        raise sc.r.fail(loc, "W1 and W2 have different numbers of rows")
    n1, n2 = sc.define("W", "mat", qmat(W1)), sc.define("W", "mat", qmat(W2))
    k = len(W1)
    stmt = (f"forall i j, (i < {k})%nat -> (j < {k})%nat -> "
            f"cosine (row {n1} i) (row {n1} j) = cosine (row {n2} i) (row {n2} j)")
    proof = (f"intros i j Hi Hj. apply (cosines_equal_sound {n1} {n2}); "
             f"[{_VM}|exact Hi|exact Hj].")
    return [sc.lemma("cosines_equal", stmt, proof, "C(W1) = C(W2): every cosine agrees")]


def _complete_sign(sc: Script, W: list, b: list | None, Wn: str, bn: str, listed: list | None,
                   loc: str) -> tuple[str, str]:
    """Lemma ``all_sign_patterns Wn bn L`` by the prefix tree (``tree_sign_sound``).
    ``listed`` = [(sign vector, witness)] from the certificate (a realised prefix that no
    listed vector starts with: refused), or None: the exporter enumerates the sign vectors
    itself (:func:`logitgeom.coq._tree.enumerate_signs`)."""
    d = len(W[0])
    pats = tree.enumerate_signs(W, b, d) if listed is None else [(tuple(s), x) for s, x in listed]
    opts, (Wr, lift) = tree.sign_opts(W, b), tree.reduce_columns(W)
    try:
        certs = tree.certs([s for s, _ in pats], len(W), opts,
                           lambda c: rows.sign_rows(Wr, b, c), len(Wr[0]))
    except tree.Incomplete as e:
        c, x = e.args[0], lift(e.args[1])
        raise sc.r.fail(loc, f"the list is not complete: the sign prefix {list(c)} is realised "
                        f"at x = [{', '.join(map(str, x))}] but no listed sign vector starts "
                        "with it") from None
    except ValueError as e:
        raise sc.r.fail(loc, str(e)) from None
    L = sc.define("L", "list (list Z)", "[" + ";\n ".join(zs(s) for s, _ in pats) + "]")
    P = sc.define("pats", "list (list Z * vec)", "combine " + L + " [" + ";\n ".join(
        qvec(x) for _, x in pats) + "]")
    C = sc.define("certs", "list vec", "[" + ";\n ".join(qvec(y) for y in certs) + "]")
    return sc.lemma("all_signs", f"all_sign_patterns {Wn} {bn} {L}",
                    f"apply (tree_sign_sound {Wn} {bn} {P} {C}); {_VM}.",
                    "these are all the sign patterns")


def _complete_rank(sc: Script, W: list, b: list | None, Wn: str, bn: str, listed: list,
                   loc: str, top: int | None = None) -> tuple[str, str]:
    """Lemma ``all_rankings Wn bn L`` by the prefix tree (``tree_rank_sound``); with ``top``
    = t, ``all_top_rankings Wn bn t T`` (T: the distinct t-prefixes of the listed rankings,
    each with the witness of the first ranking it starts; ``tree_top_sound``)."""
    k, have = len(W), {tuple(p): x for p, x in listed}
    if len(have) != len(listed):
        raise sc.r.fail(loc, "a ranking is listed twice")
    depth = k
    if top is not None:
        depth, full = top, have
        have = {}
        for p, x in full.items():
            have.setdefault(p[:top], x)
    Wr, lift = tree.reduce_columns(W)
    try:
        certs = tree.certs(list(have), depth, tree.rank_opts(k),
                           lambda c: rows.rank_rows(Wr, b, c), len(Wr[0]))
    except tree.Incomplete as e:
        c, x = e.args[0], lift(e.args[1])
        raise sc.r.fail(loc, f"the list is not complete: {list(c)} is the top of a ranking at "
                        f"x = [{', '.join(map(str, x))}] but no listed ranking starts "
                        "with it") from None
    except ValueError as e:
        raise sc.r.fail(loc, str(e)) from None
    L = sc.define("L", "list (list nat)", "[" + ";\n ".join(nats(p) for p in have) + "]")
    P = sc.define("pats", "list (list nat * vec)", "combine " + L + " [" + ";\n ".join(
        qvec(x) for x in have.values()) + "]")
    C = sc.define("certs", "list vec", "[" + ";\n ".join(qvec(y) for y in certs) + "]")
    if top is not None:
        return sc.lemma("all_top", f"all_top_rankings {Wn} {bn} {top} {L}",
                        f"apply (tree_top_sound {Wn} {bn} {top} {P} {C}); {_VM}.",
                        f"these are all the top-{top} prefixes")
    return sc.lemma("all_rankings", f"all_rankings {Wn} {bn} {L}",
                    f"apply (tree_rank_sound {Wn} {bn} {P} {C}); {_VM}.",
                    "these are all the rankings (full)")


def _listed(sc: Script, obj: dict, loc: str, W: list, ranking: bool) -> list:
    out = []
    for n, p in enumerate(sc.r.get(obj, "patterns", loc)):
        pl = f"{loc}/patterns/{n}"
        value = (_ranking_value if ranking else _sign_value)(sc, p, pl, "pattern", W)
        if ranking and len(value) != len(W):
            raise sc.r.fail(f"{pl}/pattern", f"a full ranking lists all {len(W)} labels")
        out.append((value, sc.r.vec(sc.r.get(p, "witness", pl), f"{pl}/witness", len(W[0]))))
    return out


def _pattern_complete(sc: Script, obj: dict, loc: str,
                      Wterm: str | None = None) -> list[tuple[str, str]]:
    W, b = sc.r.model(obj, loc)
    ranking = sc.r.get(obj, "pattern", loc) == "ranking"
    Wn, bn = sc.head(W, b)
    Wn = Wterm or Wn
    listed = _listed(sc, obj, loc, W, ranking)
    make = _complete_rank if ranking else _complete_sign
    complete = make(sc, W, b, Wn, bn, listed, loc)
    top = obj.get("top")
    if ranking and top is not None:
        if type(top) is not int or not 1 <= top <= len(W):
            raise sc.r.fail(f"{loc}/top", f"top is an integer in [1, {len(W)}]")
        prefixes = _complete_rank(sc, W, b, Wn, bn, listed, loc, top)
        T = prefixes[1].split()[-1]
        n = len({tuple(p[:top]) for p, _ in listed})
        tcount = sc.lemma("count_top", f"(length {T} = {n})%nat /\\ NoDup {T}",
                          f"split; [reflexivity|apply nlists_nodup; {_VM}].",
                          f"{n} top-{top} prefixes, each once")
        extra = [prefixes, tcount]
    else:
        extra = []
    L = complete[1].split()[-1]
    n, k = len(listed), len(W)
    if sc.paper == "Sec_5" and n == (math.factorial(k) if ranking else 2 ** k):
        size = f"fact (length {Wn})" if ranking else f"2 ^ length {Wn}"
        doc = f"all {'k! rankings' if ranking else '2^k sign patterns (label sets)'}: k = {k}"
    else:
        if sc.paper == "Sec_5":  # not the count Sec. 5 is about: a neutral name
            sc.paper = None
        size, doc = str(n), f"{n} {'rankings' if ranking else 'sign patterns'}, each once"
    count = sc.lemma("count", f"(length {L} = {size})%nat /\\ NoDup {L}",
                     f"split; [reflexivity|apply {'nlists' if ranking else 'zlists'}_nodup; "
                     f"{_VM}].", doc)
    return [complete, count, *extra]


def _chirotope(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    W1, _ = sc.r.model(obj, loc, "W1")
    W2, _ = sc.r.model(obj, loc, "W2")
    d = len(W1[0])
    n1, n2 = sc.define("W", "mat", qmat(W1)), sc.define("W", "mat", qmat(W2))
    s1, s2 = _chi(W1, d), _chi(W2, d)
    side = "right" if s1 != s2 and s1 == [-x for x in s2] else "left"
    c = (f"(chirotope {n1} {d} = chirotope {n2} {d} \\/ "
         f"chirotope {n1} {d} = map Z.opp (chirotope {n2} {d})) /\\ "
         f"(exists z, In z (chirotope {n1} {d}) /\\ z <> 0%Z)")
    chi = sc.lemma("chirotope", c, f"split; [{side}; {_VM_EQ}|apply nonzero_minor; {_VM}].",
                   "equal chirotopes up to one sign, rank d")
    a1 = _complete_sign(sc, W1, None, n1, "[]", None, loc)
    a2 = _complete_sign(sc, W2, None, n2, "[]", None, loc)
    eq = sc.lemma("same_signs", f"forall s, sign_pattern {n1} [] s <-> sign_pattern {n2} [] s",
                  f"apply (equal_sign_patterns _ _ _ _ _ _ {a1[0]} {a2[0]}); {_VM}.",
                  "S(W1) = S(W2), by complete enumeration of both")
    return [chi, eq]


def _chi(W: list, d: int) -> list[int]:
    from itertools import combinations
    out = []
    for S in combinations(range(len(W)), d):
        M, sign = [list(W[i]) for i in S], 1
        for c in range(d):
            p = next((r for r in range(c, d) if M[r][c]), None)
            if p is None:
                sign = 0
                break
            if p != c:
                M[c], M[p], sign = M[p], M[c], -sign
            sign *= 1 if M[c][c] > 0 else -1
            for r in range(c + 1, d):
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c], strict=True)]
        out.append(sign)
    return out


# ------------------------------------------------------------------------ theorems
def _conj(sc: Script, base: str, parts: list[tuple[str, str]], doc: str,
          extra: list[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The theorem: the conjunction of the lemmas' statements."""
    lem = [*extra, *parts]
    stmt = " /\\\n  ".join(f"({s})" for _, s in lem)
    proof = "exact " + _pairs([n for n, _ in lem]) + "."
    nm = sc.name(base)
    sc.lemmas.append(f"(** {doc} *)\nTheorem {nm} :\n  {stmt}.\nProof. {proof} Qed.\n")
    return [(nm, stmt)]


def _pairs(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"(conj {names[0]} {_pairs(names[1:])})"


_DOCS = {"translation-cosine": "The cosine paper, Thm 3.4 on this head: W' = W + 1 v'^T and "
         "W'' = W + 1 v''^T give the probabilities of W at every input, with "
         "cos(w'_i, w'_j) = -1 and cos(w''_i, w''_j) = +1.",
         "centred-cosine-ranking": "The cosine paper, App. C.2: W is centred, "
         "cos(w_i, w_j) >= c, yet some input ranks i first and j last.",
         "cosine-not-ranking": "The cosine paper, Thm 5.5 on this pair: C(W1) = C(W2), "
         "yet a ranking (or top-t prefix) is realised by one head and not the other.",
         "sign-not-ranking": "The cosine paper, App. H.2: W1 and W2 have the same chirotope "
         "and S(W1) = S(W2), yet their rankings differ.",
         "cosine-determines-sign": "The cosine paper, Lemma 5.3 on this W: S(W) = S(W W^T) "
         "(and S(C(W)) = S(W W^T), C(W) = D^-1 W W^T D^-1 with D positive diagonal: not part "
         "of this Coq statement).",
         "difference-cosine-determines-ranking": "The cosine paper, Thm 5.6 on this W: the "
         "sign patterns of G = (BW)(BW)^T are exactly the B W sign vectors of the rankings.",
         "patterns-equal": "The two heads have the same pattern set.",
         "argmaxable-labels": "Which tie classes of labels can be ranked first."}


def _theorem(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    name = sc.r.get(obj, "theorem", loc)
    if name not in THEOREM_NAMES:
        raise sc.r.fail(f"{loc}/theorem", f"unknown theorem {name!r}")
    parts = sc.r.get(obj, "parts", loc)
    if not isinstance(parts, list) or not parts:
        raise sc.r.fail(f"{loc}/parts", "a theorem needs parts")
    base, doc = sc.paper or THEOREM_NAMES[name], _DOCS[name]
    sc.paper = None  # the theorem is named here
    if name in ("cosine-determines-sign", "difference-cosine-determines-ranking"):
        return _grid(sc, obj, loc, name, parts, base, doc)
    if name == "patterns-equal":
        return _equal(sc, obj, loc, parts, base, doc)
    lem = []
    for n, p in enumerate(parts):
        lem += _dispatch(sc, p, f"{loc}/parts/{n}")
    if name == "argmaxable-labels":
        return _first_labels(sc, obj, loc, parts, lem, base, doc)
    extra = []
    if name == "centred-cosine-ranking":
        W, _ = sc.r.model(parts[0], f"{loc}/parts/0")
        prm = sc.r.get(obj, "parameters", loc)
        i, j = sc.r.ints(sc.r.get(prm, "labels", f"{loc}/parameters"), f"{loc}/parameters/labels",
                         0, len(W) - 1)
        c = sc.r.num(sc.r.get(prm, "cosine_at_least", f"{loc}/parameters"),
                     f"{loc}/parameters/cosine_at_least")
        Wn = sc.define("W", "mat", qmat(W))
        pi = _ranking_value(sc, parts[0], f"{loc}/parts/0", "ranking", W)
        extra = [sc.lemma("centred", f"centred {Wn}", f"apply centred_ok; {_VM}."),
                 sc.lemma("cosine_high", f"(Q2R {q(c)} <= cosine (row {Wn} {i}) (row {Wn} {j}))%R",
                          f"apply cosine_at_least; {_VM}."),
                 sc.lemma("label_order", f"(length {nats(pi)} = length {Wn} /\\ "
                          f"hd O {nats(pi)} = {i} /\\ last {nats(pi)} O = {j})%nat",
                          "refine (conj _ (conj _ _)); reflexivity.",
                          f"the ranking is a full one, label {i} first and label {j} last")]
        if base == "App_C_3":
            if not all(sum(x * x for x in r) == 1 for r in W):
                raise sc.r.fail(f"{loc}/parts/0/W", "App. C.3 is about rows of length 1; "
                                "this W has others")
            extra.append(sc.lemma("unit_length", f"unit_rows {Wn}", f"apply unit_rows_ok; {_VM}.",
                                  "every row has length exactly 1"))
    return _conj(sc, base, lem, doc, extra)


def _first_labels(sc: Script, obj: dict, loc: str, parts: list, lem: list, base: str,
                  doc: str) -> list[tuple[str, str]]:
    """argmaxable-labels: ``forall k, (k < length W)%nat -> (can_be_first W b k <-> In k L)``
    from the parts (each tie class ranked first, or refuted) by ``first_labels_sound``, which
    checks that the classes are the tie classes and hold every label."""
    W, b = sc.r.model(parts[0], f"{loc}/parts/0")
    Wn, bn = sc.head(W, b)
    cs, fs = [], []
    for n, p in enumerate(parts):
        if p.get("kind") not in ("ranking-feasible", "ranking-infeasible") or \
                sc.r.model(p, f"{loc}/parts/{n}") != (W, b):
            raise sc.r.fail(f"{loc}/parts/{n}", "argmaxable-labels: ranking parts of one head")
        cs.append(_ranking_value(sc, p, f"{loc}/parts/{n}", "ranking", W))
        fs.append("true" if p["kind"] == "ranking-feasible" else "false")
    prm = sc.r.get(obj, "parameters", loc)
    labels = sc.r.ints(sc.r.get(prm, "labels", f"{loc}/parameters"),
                       f"{loc}/parameters/labels", 0, len(W) - 1)
    C = sc.define("classes", "list (list nat)", "[" + "; ".join(nats(c) for c in cs) + "]")
    F = sc.define("first", "list bool", "[" + "; ".join(fs) + "]")
    L = sc.define("labels", "list nat", nats(labels), shared=False)
    stmt = f"forall k, (k < length {Wn})%nat -> (can_be_first {Wn} {bn} k <-> In k {L})"
    decided = "".join(f"(conj {n} " for n, _ in lem) + "I" + ")" * len(lem)
    proof = (f"apply (first_labels_sound {Wn} {bn} {C} {F} {L}); "
             f"[{_VM}|exact {decided}].")
    first = sc.lemma("exactly_these", stmt, proof,
                     "exactly these labels can be ranked first (with their tie classes)")
    return _conj(sc, base, [first], doc)


def _grid(sc: Script, obj: dict, loc: str, name: str, parts: list, base: str,
          doc: str) -> list[tuple[str, str]]:
    if len(parts) != 2:
        raise sc.r.fail(f"{loc}/parts", f"{name} has two parts")
    W, b = sc.r.model(parts[0], f"{loc}/parts/0")
    if b is not None:
        raise sc.r.fail(f"{loc}/parts/0", "no bias in Lemma 5.3 / Thm 5.6")
    Wn = sc.define("W", "mat", qmat(W))
    ranking = name != "cosine-determines-sign"
    first = _pattern_complete(sc, parts[0], f"{loc}/parts/0")[0]
    G = f"(gram (diffs {Wn}))" if ranking else f"(gram {Wn})"
    second = _pattern_complete(sc, parts[1], f"{loc}/parts/1", Wterm=G)[0]
    if ranking:
        stmt = (f"forall s, sign_pattern {G} [] s <-> exists pi, length pi = length {Wn} /\\ "
                f"ranking {Wn} [] pi /\\ s = pair_signs {Wn} pi")
        proof = (f"apply (rankings_as_sign_patterns {Wn} _ {G} _ {first[0]} {second[0]}); "
                 f"{_VM}.")
    else:
        stmt = f"forall s, sign_pattern {Wn} [] s <-> sign_pattern {G} [] s"
        proof = f"apply (equal_sign_patterns _ _ _ _ _ _ {first[0]} {second[0]}); {_VM}."
    nm = sc.name(base)
    sc.lemmas.append(f"(** {doc} *)\nTheorem {nm} :\n  {stmt}.\nProof. {proof} Qed.\n")
    return [(nm, stmt)]


def _equal(sc: Script, obj: dict, loc: str, parts: list, base: str,
           doc: str) -> list[tuple[str, str]]:
    if len(parts) != 2:
        raise sc.r.fail(f"{loc}/parts", "patterns-equal has two parts")
    a = _pattern_complete(sc, parts[0], f"{loc}/parts/0")[0]
    c = _pattern_complete(sc, parts[1], f"{loc}/parts/1")[0]
    ranking = sc.r.get(parts[0], "pattern", f"{loc}/parts/0") == "ranking"
    (W1, b1), (W2, b2) = (sc.r.model(p, f"{loc}/parts/{n}") for n, p in enumerate(parts))
    (n1, m1), (n2, m2) = sc.head(W1, b1), sc.head(W2, b2)
    if ranking:
        stmt = (f"forall pi, length pi = length {n1} -> length pi = length {n2} -> "
                f"(ranking {n1} {m1} pi <-> ranking {n2} {m2} pi)")
        proof = f"apply (equal_rankings _ _ _ _ _ _ {a[0]} {c[0]}); {_VM}."
    else:
        stmt = f"forall s, sign_pattern {n1} {m1} s <-> sign_pattern {n2} {m2} s"
        proof = f"apply (equal_sign_patterns _ _ _ _ _ _ {a[0]} {c[0]}); {_VM}."
    nm = sc.name(base)
    sc.lemmas.append(f"(** {doc} *)\nTheorem {nm} :\n  {stmt}.\nProof. {proof} Qed.\n")
    return [(nm, stmt)]


def paper_name(name: str) -> str | None:
    """The paper's result a certificate's file name refers to, as a Coq name.

    Examples
    --------
    >>> paper_name("grid-5x3-a-thm-5.6"), paper_name("app-c.3-centred"), paper_name("x")
    ('Thm_5_6', 'App_C_3', None)
    """
    m = re.search(r"(?:^|-)(thm|lemma|app|prop|sec)-([0-9]+|[a-z])((?:\.[0-9]+)*)(?=-|$)", name)
    if not m:
        return None
    tail = m.group(3).replace(".", "_")
    return f"{m.group(1).capitalize()}_{m.group(2).upper()}{tail}"


# ------------------------------------------------------------------------ dispatch
_KINDS: dict[str, Callable] = {
    "sign-feasible": _single, "sign-infeasible": _single, "ranking-feasible": _single,
    "ranking-infeasible": _single, "translation": _translation, "cosine-equal": _cosine_equal,
    "same-chirotope": _chirotope, "pattern-complete": _pattern_complete,
    "pattern-differs": _differs, "theorem": _theorem, "argmax-audit": audit,
}
#: Kinds the stdlib checker knows that the export does not cover, with the reason: every
#: ``layer-peeled-*`` kind is a convex bracket (or built on one), not a discrete claim.
STREAMED = "pattern-complete-stream"


def _not_covered(kind: str) -> str | None:
    """Why a kind of the checker is not exported (None: covered or unknown)."""
    if kind.startswith("layer-peeled-") and kind in CHECKER_KINDS:
        return ("not discrete (convex bracket): its bounds rest on exp/log enclosures, "
                "checked by the stdlib checker only (docs/coq.md)")
    return None


def _dispatch(sc: Script, obj: dict, loc: str) -> list[tuple[str, str]]:
    if not isinstance(obj, dict):
        raise sc.r.fail(loc, "a certificate is a JSON object")
    if obj.get("format") != FORMAT or obj.get("version") != VERSION:
        raise sc.r.fail(loc, f"not a logitgeom certificate of version {VERSION}")
    kind = obj.get("kind")
    why = _not_covered(kind) if isinstance(kind, str) else None
    if why:
        raise sc.r.fail(loc, f"kind {kind!r} is not covered by the Coq export: {why}")
    if kind == STREAMED:
        raise sc.r.fail(loc, "a streamed certificate is exported as several files: "
                        "use export_files (logitgeom export coq CERT -o DIR)")
    if kind not in _KINDS:
        raise sc.r.fail(f"{loc}/kind", f"unknown kind {kind!r}"[:200])
    return _KINDS[kind](sc, obj, loc)


#: The paper results a certificate may be named after, by its kind (a ``theorem``
#: certificate: by its ``theorem``); the first is the default of a theorem kind.  A file name
#: that names another result (``thm-5.6-x.json`` of kind ``sign-feasible``) is ignored.
PAPER_RESULTS = {"translation-cosine": ("Thm_3_4",),
                 "centred-cosine-ranking": ("App_C_2", "App_C_3"),
                 "cosine-not-ranking": ("Thm_5_5",), "sign-not-ranking": ("App_H_2",),
                 "cosine-determines-sign": ("Lemma_5_3",),
                 "difference-cosine-determines-ranking": ("Thm_5_6",),
                 "pattern-complete": ("Prop_E_2", "Sec_5")}


def result_name(obj: dict, name: str) -> str | None:
    """The name of the file's top theorem: a paper result's only when the certificate's kind
    is that result's kind (the file name chooses among them), else None (a neutral name).

    Examples
    --------
    >>> result_name({"kind": "theorem", "theorem": "translation-cosine"}, "thm-5.6-x")
    'Thm_3_4'
    >>> result_name({"kind": "sign-feasible"}, "thm-5.6-x") is None
    True
    """
    kind = obj.get("kind")
    key = obj.get("theorem") if kind == "theorem" else kind
    allowed = PAPER_RESULTS.get(key) if isinstance(key, str) else None
    if kind == "translation" and type(obj.get("target")) is int:  # Lemma 3.2: -1, 3.3: +1
        allowed = {-1: ("Lemma_3_2",), 1: ("Lemma_3_3",)}.get(obj.get("target"))
    wanted = paper_name(label(name))
    if allowed and wanted in allowed:
        return wanted
    if kind == "theorem" and isinstance(key, str):
        return allowed[0] if allowed else THEOREM_NAMES.get(key)
    return None


def refusal(verdict) -> str:
    """The export's one-line refusal of a certificate the stdlib checker does not accept."""
    where = f" at {verdict.location}" if verdict.location not in (None, "", "/") else ""
    msg = " ".join(str(verdict.message).split())[:300]
    return (f"refused: the stdlib checker does not accept it (check {verdict.failed_check!r}"
            f"{where}: {msg})")


def export_certificate(obj: dict, name: str, *, witnesses: bool = True,
                       max_work: int | str | None = "default") -> tuple[str, str]:
    """The Coq file of one parsed certificate, which the stdlib checker must accept.

    Parameters
    ----------
    obj : dict
        The certificate (as parsed by :func:`json.loads`).  Files it references (an audit's
        head, shards) resolve against the current folder: use :func:`export_file` for a
        certificate file.
    name : str
        Its name; only its :func:`~logitgeom.coq._terms.label` (ASCII letters, digits,
        ``.-_``, at most 60 characters) reaches the file (the file is ``ident(name) + ".v"``).
    witnesses : bool
        Argmax audits: also prove the argmaxable labels from their witnesses (default;
        O(k^2 d) work for coqc on a k x d head); False: the never-proofs only.
    max_work : int, "default" or None
        The checker's work budget (:func:`logitgeom_certificates.api.check`).

    Returns
    -------
    (file name, text)

    Raises
    ------
    ExportError
        The checker does not accept the certificate (the message names the check), or it
        is malformed for the export, incomplete, or of a kind that is not covered.
    """
    from logitgeom_certificates.api import check

    lab = label(name)
    verdict = check(obj, max_work=max_work)
    if not verdict.ok:
        raise ExportError(f"{lab}: {refusal(verdict)}")
    return export_checked(obj, lab, witnesses=witnesses)


def export_file(path: str | Path, *, witnesses: bool = True,
                max_work: int | str | None = "default") -> tuple[str, str]:
    """The Coq file of a certificate file: read and checked by the stdlib checker (its size
    and file-type refusals, its work budget), then exported (:func:`export_certificate`).

    Examples
    --------
    >>> import os
    >>> ex = os.path.join(os.path.dirname(LIBRARY), "..", "examples")
    >>> export_file(os.path.join(ex, "valid-sign-feasible.json"))[0]
    'valid_sign_feasible.v'
    >>> try:
    ...     export_file(os.path.join(ex, "invalid-witness.json"))
    ... except ExportError as e:
    ...     print(str(e)[:58])
    invalid-witness.json: refused: the stdlib checker does not
    """
    p, lab, obj = _read_checked(path, max_work)
    return export_checked(obj, label(p.stem), witnesses=witnesses, base_dir=str(p.parent),
                          shown=lab)


def _read_checked(path: str | Path, max_work: int | str | None) -> tuple[Path, str, dict]:
    """(path, its label, the certificate) of a file the stdlib checker accepts (read once);
    ExportError naming the failed check otherwise."""
    from logitgeom_certificates.api import read_and_check

    p = Path(path)
    verdict, obj = read_and_check(str(p), max_work)
    if not verdict.ok or obj is None:
        raise ExportError(f"{label(p.name)}: {refusal(verdict)}")
    return p, label(p.name), obj


def export_file_set(path: str | Path, *, witnesses: bool = True,
                    max_work: int | str | None = "default", leaves: int | None = None,
                    stem: str | None = None) -> list[tuple[str, str]]:
    """The Coq files of a certificate file, the one stating its claim last: one file, or
    for a streamed enumeration (``pattern-complete-stream``) a data file, one file per
    subtree and the assembling file (:mod:`logitgeom.coq.stream`).  Read and checked by
    the stdlib checker first, as :func:`export_file`.

    Parameters
    ----------
    path : path
        The certificate file.
    witnesses, max_work
        As for :func:`export_file`.
    leaves : int, optional
        Streams: patterns per subtree file, at most (default
        :data:`logitgeom.coq.stream.LEAVES`).
    stem : str, optional
        The file stem (default: from the file's name); only its
        :func:`~logitgeom.coq._terms.ident` is used.

    Returns
    -------
    list of (file name, text)

    Examples
    --------
    >>> import os
    >>> ex = os.path.join(os.path.dirname(LIBRARY), "..", "examples")
    >>> [n for n, _ in export_file_set(os.path.join(ex, "valid-pattern-complete-stream.json"))]
    ['valid_pattern_complete_stream_data.v', 'valid_pattern_complete_stream_s00000.v', \
'valid_pattern_complete_stream.v']
    """
    p, lab, obj = _read_checked(path, max_work)
    if obj.get("kind") != STREAMED:
        name, text = export_checked(obj, label(p.stem), witnesses=witnesses,
                                    base_dir=str(p.parent), shown=lab)
        return [(f"{ident(stem)}.v" if stem else name, text)]
    from logitgeom.coq import stream

    return stream.export_stream(obj, p, Reader(lab), ident(stem or label(p.stem)), HEADER,
                                _SAFE_COMMENT, leaves=leaves).files


def export_checked(obj: dict, name: str, *, witnesses: bool = True,
                   base_dir: str | None = None, shown: str | None = None) -> tuple[str, str]:
    """The Coq file of a certificate the caller has had the stdlib checker accept (the
    export itself does not check; coqc checks what it writes).  ``name``: its label
    (sanitized here again); ``base_dir``: the folder its file references resolve against;
    ``shown``: the name in error messages (sanitized)."""
    lab = label(name)
    sc = Script(Reader(label(shown) if shown else lab))
    sc.base_dir = base_dir
    sc.witnesses = witnesses
    sc.paper = result_name(obj, lab) if isinstance(obj, dict) else None
    top = _dispatch(sc, obj, "")
    kind = obj["kind"]
    theorem = obj.get("theorem") if kind == "theorem" else None
    digest = hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()
    stem = ident(lab)
    if sc.paper and top[-1][0] != sc.paper:  # the paper's result names the file's claim
        top = _conj(sc, sc.paper, top, f"{sc.paper.replace('_', ' ', 1).replace('_', '.')} on "
                    "this instance (the certificate's claim)")
    elif len(top) > 1:  # one named claim for the whole file
        top = _conj(sc, "claim_all", top, "the certificate's claims")
    head = (f"(* logitgeom export coq: {lab} (kind {kind}{', ' + theorem if theorem else ''}).\n"
            f"   SHA-256 of the certificate's canonical JSON: {digest}.\n"
            + ("   Argmax audit exported without its witnesses (--no-witnesses): the "
               "argmaxable labels are not proven here.\n"
               if not witnesses and kind == "argmax-audit" else "")
            + f"   The claim: the last theorem, {top[-1][0]}, in the words of Logitgeom.v;\n"
            f"   its proof runs checkers proven sound in Logitgeom.v (vm_compute).\n"
            f"   coqc -Q . Logitgeom Logitgeom.v && coqc -Q . Logitgeom {stem}.v *)\n")
    if not _SAFE_COMMENT.fullmatch(head):
        raise sc.r.fail("", "internal: the header is not plain ASCII")
    text = "\n".join([head, HEADER, *sc.defs, *sc.lemmas])
    return stem + ".v", text


#: What a header comment may contain: printable ASCII and newlines, no comment delimiter
#: inside, no string quote.
_SAFE_COMMENT = re.compile(r"\(\*(?:(?!\*\)|\(\*|\")[ -~\n])*\*\)\n", re.ASCII)
