"""The claims of an ``argmax-audit`` certificate as Coq theorems, per domain.

Never-proofs: "every label in L is never the strict argmax of W x + b" (domain ``all``),
or "... for any x with max_j |x_j| <= R" (``box``), proved by ``never_list_sound`` /
``never_box_list_sound`` of Logitgeom.v on the records' rows and multipliers.  The head
is written in full (a file reference is read, its data bytes checked against the stated
SHA-256, each float as the exact binary rational it is), every entry over one common
denominator, and each proof's multipliers scaled to integers, so that Coq's sums of rows
need no gcd of long numbers.

Witnesses: "each label in L (or every label of W) is the strict argmax at some input (in
the box)", proved by ``argmax_list_sound`` / ``argmax_every_label_sound`` (and their box
forms).  W and b are written over one common denominator, each point ``{"x": [...]}`` over
its own, so that Coq compares logits as integers; ``{"scale": t}`` is written
``Scaled t`` (the point t w_k).  Checking a witness costs k d integer products, so the
witnesses of a k-label head cost O(k^2 d) in Coq (docs/coq.md, Cost).  ``undecided``
entries make no claim and are left out.

Examples
--------
>>> from logitgeom.certify.common import header
>>> from logitgeom.coq.export import export_certificate
>>> cert = {**header("argmax-audit"),
...         "head": {"W": [["1", "0"], ["-1", "0"], ["0", "1"], ["0", "1/4"]]},
...         "rows": 4, "cols": 2, "domains": ["all"], "labels": [[3, 3]],
...         "counts": {"all": {"argmaxable": 0, "never": 1, "undecided": 0}},
...         "records": [{"label": 3, "all": {"verdict": "never", "rows": [0, 1, 2],
...                                           "multipliers": ["3", "3", "2"]}}]}
>>> "strict_argmax W [] k x" in export_certificate(cert, "audit")[1]
True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from fractions import Fraction

import numpy as np

from logitgeom.coq._terms import integers, nats, q, qmat_common, qvec, qvec_common

__all__ = ["audit"]

#: How a witness list's checker is run: once, by the kernel at Qed (``vm_compute;
#: reflexivity`` would run it twice, in the tactic and again in the kernel).
VM_CHECK = "vm_cast_no_check (eq_refl true)"


def _head(sc, obj, k: int, d: int):
    head = sc.r.get(obj, "head", "")
    if isinstance(head, dict) and "W" in head:
        W = sc.r.mat(head["W"], "/head/W")
        if len(W) != k or len(W[0]) != d:
            raise sc.r.fail("/head/W", f"the head is not {k} x {d}")
        return W
    f = sc.r.get(head, "file", "/head")
    path = f if os.path.isabs(f) else os.path.join(sc.base_dir or ".", f)
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise sc.r.fail("/head/file", f"cannot read the head {path}: {exc}") from None
    if arr.dtype not in (np.dtype("<f8"), np.dtype("<f4")) or arr.shape != (k, d):
        raise sc.r.fail("/head", f"{path}: not a little-endian float64/float32 {k} x {d} head")
    data = np.ascontiguousarray(arr)
    if hashlib.sha256(data.tobytes()).hexdigest() != sc.r.get(head, "sha256", "/head"):
        raise sc.r.fail("/head/sha256", f"SHA-256 of the data in {path} differs")
    if not np.isfinite(data).all():
        raise sc.r.fail("/head", "the head has a NaN or infinite entry")
    return [[Fraction(float(x)) for x in row] for row in data.tolist()]


def _records(sc, obj):
    if "records" in obj:
        yield from obj["records"]
        return
    for n, sh in enumerate(sc.r.get(obj, "shards", "")):
        f = sc.r.get(sh, "file", f"/shards/{n}")
        path = f if os.path.isabs(f) else os.path.join(sc.base_dir or ".", f)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise sc.r.fail(f"/shards/{n}", f"cannot read {path}: {exc}") from None
        if hashlib.sha256(data).hexdigest() != sc.r.get(sh, "sha256", f"/shards/{n}"):
            raise sc.r.fail(f"/shards/{n}", f"SHA-256 of {path} differs")
        for line in data.decode().splitlines():
            if line.strip():
                yield json.loads(line)


def audit(sc, obj: dict, loc: str) -> list[tuple[str, str]]:
    """Lemmas (name, statement) of an audit's never-proofs, one per domain with any."""
    k = sc.r.get(obj, "rows", loc)
    d = sc.r.get(obj, "cols", loc)
    if type(k) is not int or type(d) is not int or k < 2 or d < 1:
        raise sc.r.fail(loc, "rows and cols must be integers k >= 2, d >= 1")
    W = _head(sc, obj, k, d)
    b = None if obj.get("bias") is None else sc.r.vec(obj["bias"], "/bias", k)
    domains = sc.r.get(obj, "domains", loc)
    R = sc.r.num(sc.r.get(obj, "radius", loc), "/radius") if "box" in domains else None
    never: dict[str, list] = {dom: [] for dom in domains}
    wins: dict[str, list] = {dom: [] for dom in domains}
    verdicts: dict[str, dict[str, list[int]]] = {
        dom: {"never": [], "argmaxable": [], "undecided": []} for dom in domains}
    lists: dict[str, dict[int, list[int]]] = {dom: {} for dom in domains}  # explicit rows
    for n, rec in enumerate(_records(sc, obj)):
        lab = sc.r.get(rec, "label", f"/records/{n}")
        if type(lab) is not int or not 0 <= lab < k:
            raise sc.r.fail(f"/records/{n}/label", f"a label is an integer in [0, {k - 1}]")
        for dom in domains:
            el = f"/records/{n}/{dom}"
            e = sc.r.get(rec, dom, f"/records/{n}")
            verdict = sc.r.get(e, "verdict", el)
            if verdict not in ("never", "argmaxable", "undecided"):
                raise sc.r.fail(f"{el}/verdict", "a verdict is never, argmaxable or undecided")
            verdicts[dom][verdict].append(lab)
            if verdict == "never":
                rows = _rows(sc, sc.r.get(e, "rows", el), lists[dom], lab, k, f"{el}/rows")
                ys = sc.r.vec(sc.r.get(e, "multipliers", el), f"{el}/multipliers", len(rows))
                never[dom].append((lab, rows, ys))
            elif verdict == "argmaxable" and sc.witnesses:
                wins[dom].append((lab, _point(sc, sc.r.get(e, "witness", el), f"{el}/witness",
                                              d)))
    if not any(never.values()) and not any(wins.values()):
        raise sc.r.fail(loc, "no label of this audit is proven never argmax" + (
            "" if not sc.witnesses else " or given a witness (every entry undecided)")
            + ": nothing to export")
    # one denominator for W and b: sums without gcds, logits as integers (argmax_list_ok)
    D = math.lcm(*(x.denominator for r in W for x in r), *(x.denominator for x in b or ()))
    Wn = sc.define("W", "mat", qmat_common(W, D))
    bn = "[]" if b is None else sc.define("b", "vec", qvec_common(b, D))
    out = []
    ranges = _ranges(sc, obj, k)
    for dom in domains:
        out.append(_counts(sc, obj, dom, verdicts[dom], ranges, k, Wn))
        if never[dom]:
            out.append(_never(sc, never[dom], dom, Wn, bn, R))
        if wins[dom]:
            out.append(_wins(sc, wins[dom], dom, k, Wn, bn, R))
    return out


def _rows(sc, v, lists: dict[int, list[int]], lab: int, k: int, loc: str) -> list[int]:
    """A never entry's rows: a list (kept in ``lists``), or ``{"as": L}``, the list of the
    earlier label L's never entry in the same domain (certificates/SPEC.md section 9)."""
    if not isinstance(v, dict):
        lists[lab] = sc.r.ints(v, loc, 0, k - 1)
        return lists[lab]
    ref = v.get("as")
    if set(v) != {"as"} or type(ref) is not int or ref not in lists:
        raise sc.r.fail(loc, "a rows reference is {'as': L}, L an earlier label whose entry "
                        "in this domain is a never entry with a rows list")
    return lists[ref]


def _ranges(sc, obj: dict, k: int) -> list[tuple[int, int]]:
    """The audit's covered label ranges [lo, hi] (inclusive)."""
    out = []
    for n, r in enumerate(sc.r.get(obj, "labels", "")):
        lo, hi = sc.r.ints(r, f"/labels/{n}", 0, k - 1)
        out.append((lo, hi))
    return out


def _counts(sc, obj: dict, dom: str, verdicts: dict, ranges: list, k: int,
            Wn: str) -> tuple[str, str]:
    """The audit's counts in domain ``dom`` and the labels it covers: ``length W`` is the
    head's row count; the never / argmaxable / undecided labels number as the certificate's
    ``counts`` say, no label twice, and together they are exactly the covered ranges."""
    counts = sc.r.get(sc.r.get(obj, "counts", ""), dom, "/counts")
    ns = {v: sc.r.get(counts, v, f"/counts/{dom}") for v in ("never", "argmaxable", "undecided")}
    if not all(type(n) is int and n >= 0 for n in ns.values()):
        raise sc.r.fail(f"/counts/{dom}", "counts are non-negative integers")
    lists = {v: sc.define(f"{v}_labels_{dom}", "list nat", nats(verdicts[v]), shared=False)
             for v in ("never", "argmaxable", "undecided")}
    covered = " ++ ".join(f"seq {lo} {hi - lo + 1}" for lo, hi in ranges) or "[]"
    C = sc.define("covered", "list nat", f"({covered})%nat")
    allv = f"({lists['never']} ++ {lists['argmaxable']} ++ {lists['undecided']})"
    stmt = (f"length {Wn} = {k}%nat /\\ "
            + " /\\ ".join(f"length {lists[v]} = {ns[v]}%nat" for v in lists)
            + f" /\\ NoDup {allv} /\\ (forall k, In k {allv} <-> In k {C})")
    proof = ("refine (conj _ (conj _ (conj _ (conj _ (conj _ _)))));\n"
             "  [reflexivity|reflexivity|reflexivity|reflexivity|"
             f"apply nats_nodup; {VM_CHECK}|apply nsame_sound; {VM_CHECK}].")
    return sc.lemma(f"counts_{dom}", stmt, proof,
                    f"argmax audit, domain {dom}: the certificate's counts and covered labels")


def _point(sc, w, loc: str, d: int):
    """A witness as read: ("x", [d numbers]) or ("scale", t) (the point t w_k)."""
    if not isinstance(w, dict) or len(w) != 1 or not set(w) <= {"x", "scale"}:
        raise sc.r.fail(loc, "a witness is {'x': [d numbers]} or {'scale': t}")
    if "scale" in w:
        return "scale", sc.r.num(w["scale"], f"{loc}/scale")
    return "x", sc.r.vec(w["x"], f"{loc}/x", d)


def _never(sc, entries: list, dom: str, Wn: str, bn: str, R) -> tuple[str, str]:
    L = sc.define(f"never_{dom}", "list (nat * list nat * vec)", "[" + ";\n ".join(
        f"({lab}%nat, {nats(rows)}, {qvec(integers(ys))})" for lab, rows, ys in entries) + "]")
    labels = nats([lab for lab, _, _ in entries])
    if dom == "all":
        stmt = (f"forall k, In k {labels} -> (k < length {Wn})%nat /\\ "
                f"~ exists x, strict_argmax {Wn} {bn} k x")
        proof = (f"intros k Hk. apply (never_list_sound {Wn} {bn} {L}); "
                 f"[{VM_CHECK}|exact Hk].")
    else:
        stmt = (f"forall k, In k {labels} -> (k < length {Wn})%nat /\\ "
                f"~ exists x, in_box {q(R)} x /\\ strict_argmax {Wn} {bn} k x")
        proof = (f"intros k Hk. apply (never_box_list_sound {Wn} {bn} {q(R)} {L}); "
                 f"[{VM_CHECK}|exact Hk].")
    return sc.lemma(f"never_argmax_{dom}", stmt, proof,
                    f"argmax audit, domain {dom}: these labels are never the strict argmax"
                    + (" in the box" if dom == "box" else ""))


def _atom(term: str) -> str:
    """A Coq term as an application's argument: parenthesised unless it already is (a long
    rational is written ``Ql sign [limbs] [limbs]``, an application itself)."""
    return term if term.startswith("(") and term.endswith(")") else f"({term})"


def _wins(sc, entries: list, dom: str, k: int, Wn: str, bn: str, R) -> tuple[str, str]:
    """Each label with a witness is the strict argmax at some input (in the box), by
    ``argmax_list_sound`` & co.: for every label of the head,
    ``forall k, (k < length W)%nat -> ...``, else ``forall k, In k [...] -> ...``."""
    pts = [f"Scaled {_atom(q(v))}" if how == "scale" else f"At ({qvec_common(v)})"
           for _, (how, v) in entries]
    L = sc.define(f"witnesses_{dom}", "list (nat * point)", "[" + ";\n ".join(
        f"({lab}%nat, {pt})" for (lab, _), pt in zip(entries, pts, strict=True)) + "]")
    labs = [lab for lab, _ in entries]
    every = labs == list(range(k))
    box = "" if dom == "all" else f" {q(R)}"
    concl = (f"exists x, strict_argmax {Wn} {bn} k x" if dom == "all" else
             f"exists x, in_box {q(R)} x /\\ strict_argmax {Wn} {bn} k x")
    sound = "argmax" + ("" if dom == "all" else "_box")
    if every:
        stmt, form = f"forall k, (k < length {Wn})%nat -> {concl}", "every_label"
    else:
        stmt, form = f"forall k, In k {nats(labs)} -> {concl}", "list"
    proof = (f"intros k Hk. apply ({sound}_{form}_sound {Wn} {bn}{box} {L}); "
             f"[{VM_CHECK}|exact Hk].")
    return sc.lemma(f"argmaxable_{dom}", stmt, proof,
                    f"argmax audit, domain {dom}: "
                    + ("every label" if every else "these labels")
                    + " can be the strict argmax" + (" in the box" if dom == "box" else "")
                    + " (a witness each)")
