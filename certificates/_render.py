"""Words and LaTeX for a *valid* certificate (presentation only; standard library only).

Not part of the trusted checker: call it only after :func:`logitgeom_certificates.check.check`
returned ``ok``.  Labels are printed 0-based, as in the file, unless ``one_based=True``
(both source papers count labels from 1).

Every matrix is printed once, under a name (``W``, ``W_1``, ``W'``, ``G``); the claims of a
theorem's parts refer to those names.  Rankings list labels from most to least likely;
labels whose rows (and biases) are identical are always tied and are joined by ``~``
(``\\sim`` in LaTeX) instead of ``>`` (``\\succ``).  The LaTeX is mathematics in math
mode, for a document loading ``amsmath`` and ``longtable`` (see docs/paper-output.md).

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> print(explain(cert).splitlines()[0])
Claim: the sign vector (+,-) is in S(W): some input x gives sign(W x) = (+,-).
>>> "\\\\begin{pmatrix}" in latex(cert)
True
>>> r = {"format": "logitgeom-certificate", "version": 1, "kind": "ranking-feasible",
...      "W": [["1", "0"], ["1", "0"], ["0", "1"]], "ranking": [0, 1, 2], "witness": ["1", "0"]}
>>> print(explain(r, one_based=True).splitlines()[0])
Claim: 1 ~ 2 > 3 is realisable: some input x orders the logits W x that way.
>>> r"$0 \\sim 1 \\succ 2$" in latex(r)
True
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["explain", "latex", "LATEX_PACKAGES", "PAPERS", "paper_result"]

#: what a document needs to \\input the LaTeX (also written as a comment at its top)
LATEX_PACKAGES = ("amsmath", "amssymb", "longtable")

_PREDICTED = {"sign": "S", "ranking": "R"}
_MODEL_KEYS = ("W", "W1", "W2", "W_translated")
_BIAS_OF = {"W": "bias", "W1": "bias1", "W2": "bias2", "W_translated": None}


class _Style:
    """One output dialect: plain text (``tex = False``) or LaTeX math."""

    def __init__(self, tex: bool, one_based: bool) -> None:
        self.tex, self.base = tex, 1 if one_based else 0

    def lab(self, i: int) -> str:
        return str(i + self.base)

    def m(self, s: str) -> str:
        """Inline mathematics."""
        return f"${s}$" if self.tex else s

    def name(self, n: str) -> str:
        """A matrix name: ``W_1`` in LaTeX, ``W1`` in text."""
        if self.tex:
            return n
        return n.replace("_", "").replace("\\top", "T")

    def rank(self, r: Any, W: Any=None, b: Any=None) -> str:
        out = self.lab(r[0])
        for a, c in zip(r, r[1:], strict=False):
            tied = W is not None and W[a] == W[c] and (b is None or b[a] == b[c])
            op = ("\\sim" if tied else "\\succ") if self.tex else ("~" if tied else ">")
            out += f" {op} {self.lab(c)}"
        return out

    def sv(self, signs: Any) -> str:
        return "(" + ",".join({1: "+", -1: "-", 0: "0"}[s] for s in signs) + ")"

    def cos(self, a: str, i: int, j: int) -> str:
        if self.tex:
            return f"\\cos({a}_{{{self.lab(i)}}}, {a}_{{{self.lab(j)}}})"
        return f"cos({a}_{self.lab(i)}, {a}_{self.lab(j)})"


class _Names:
    """Names for the matrices of a certificate: each distinct matrix gets one name."""

    def __init__(self) -> None:
        self.by_value: dict[str, str] = {}
        self.used: set[str] = set()
        self.order: list[tuple[str, Any, Any, str]] = []  # name, M, bias, note

    def get(self, M: Any, prefer: str, bias: Any=None, note: str = "") -> str:
        key = repr((M, bias))
        if key in self.by_value:
            return self.by_value[key]
        name, n = prefer, 2
        while name in self.used:
            name = f"{prefer}^{{({n})}}" if "_" not in prefer else f"{prefer}{n}"
            n += 1
        self.by_value[key] = name
        self.used.add(name)
        self.order.append((name, M, bias, note))
        return name


def _preferred(c: Any, part: int | None, theorem: str | None) -> dict[str, tuple[str, str]]:
    """role -> (preferred name, note) for one certificate (or one part of a theorem)."""
    pref = {"W": ("W", ""), "W1": ("W_1", ""), "W2": ("W_2", ""),
            "W_translated": ("W'", "")}
    if theorem == "translation-cosine":
        pref["W_translated"] = ("W'", "") if part == 0 else ("W''", "")
    if theorem in ("cosine-determines-sign", "difference-cosine-determines-ranking"):
        if part == 1:
            what = "gram-w" if theorem == "cosine-determines-sign" else "gram-bw"
            pref["W"] = ("G", what)
    return pref


def _roles(c: Any, names: _Names, part: int | None, theorem: str | None) -> dict[str, str]:
    pref = _preferred(c, part, theorem)
    out = {}
    if c.get("kind") == "argmax-audit":  # the head is inline under head/W, or a file
        W = c["head"].get("W") if isinstance(c.get("head"), dict) else None
        return {"W": names.get(W, "W", c.get("bias"))} if W is not None else {}
    for key in _MODEL_KEYS:
        if c.get(key) is not None:
            b = _BIAS_OF[key]
            out[key] = names.get(c[key], pref[key][0], c.get(b) if b else None, pref[key][1])
    return out


def _claim(c: Any, st: _Style, roles: dict[str, str]) -> str:
    k, m = c["kind"], st.m
    W = roles.get("W", "W")
    Wn = st.name(W)
    aff = " + b" if c.get("bias") is not None else ""
    if k == "argmax-audit":  # counts per domain; the per-label proofs are in the records
        box = (rf"\max_j |x_j| \le {c.get('radius')}" if st.tex
               else f"max_j |x_j| <= {c.get('radius')}")
        doms = [("all inputs" if d == "all" else f"inputs with {m(box)}")
                + ": " + ", ".join(f"{n} {v}" for v, n in c["counts"][d].items())
                for d in c["domains"]]
        return (f"strict argmax of {m(f'{Wn} x{aff}')} over " + "; ".join(doms)
                + " (undecided: no claim; witnesses and multipliers per label in the records).")
    if k == "sign-feasible":
        s = st.sv(c["signs"])
        sign = "\\operatorname{sign}" if st.tex else "sign"
        return (f"the sign vector {m(s)} is in {m(f'S({Wn})')}: some input {m('x')} gives "
                f"{m(f'{sign}({Wn} x{aff}) = {s}')}.")
    if k == "sign-infeasible":
        s = st.sv(c["signs"])
        return f"the sign vector {m(s)} is NOT in {m(f'S({Wn})')}: no input {m('x')} gives it."
    if k in ("ranking-feasible", "ranking-infeasible"):
        r = st.rank(c["ranking"], c["W"], c.get("bias"))
        full = len(c["ranking"]) == len(c["W"])
        pre = "" if full else f"the top-{len(c['ranking'])} prefix "
        if st.tex:
            pre = "The ranking " if full else f"The top-{len(c['ranking'])} prefix "
        if k == "ranking-feasible":
            return (f"{pre}{m(r)} is realisable: some input {m('x')} orders the logits "
                    f"{m(f'{Wn} x{aff}')} that way.")
        return (f"{pre}{m(r)} is NOT realisable: no input {m('x')} orders the logits "
                f"{m(f'{Wn} x{aff}')} that way.")
    if k == "translation":
        i, j = c["labels"]
        Wt = st.name(roles["W_translated"])
        vs = roles.get("_v", "v")
        tr = rf"{Wt} = {Wn} + \mathbf{{1}} {vs}^\top" if st.tex else f"{Wt} = {Wn} + 1 {vs}^T"
        a = "w'" if "''" not in Wt else "w''"
        return (f"{m(tr)} gives every input the same softmax probabilities as {m(Wn)}, and "
                f"{m(st.cos(a, i, j) + ' = ' + format(c['target'], '+d'))}.")
    W1, W2 = st.name(roles.get("W1", "W_1")), st.name(roles.get("W2", "W_2"))
    if k == "cosine-equal":
        return (f"{m(f'C({W1}) = C({W2})')}: every pairwise cosine of rows of {m(W1)} equals "
                f"that of {m(W2)}.")
    if k == "same-chirotope":
        return (f"{m(W1)} and {m(W2)} have the same chirotope (signs of all maximal minors, up "
                f"to one global sign), hence {m(f'S({W1}) = S({W2})')}.")
    if k == "pattern-complete":
        P = _PREDICTED[c["pattern"]]
        what = "sign patterns" if c["pattern"] == "sign" else "rankings"
        return (f"{m(f'{P}({Wn})')} has exactly {len(c['patterns'])} elements ({what}), all "
                "listed (Zaslavsky count of the intersection lattice).")
    if k == "pattern-complete-stream":
        P = _PREDICTED[c["pattern"]]
        what = "sign patterns" if c["pattern"] == "sign" else "rankings"
        n = sum(sh["rows"] for sh in c["shards"])
        return (f"{m(f'{P}({Wn})')} has exactly {n} elements ({what}), all listed in "
                f"{len(c['shards'])} hashed shard files (Zaslavsky count of the intersection "
                "lattice).")
    if k == "pattern-differs":
        P = _PREDICTED[c["pattern"]]
        neq = r"\neq" if st.tex else "!="
        if c["pattern"] == "ranking":
            v = st.rank(c["value"], c["W1"], c.get("bias1"))
            if len(c["value"]) < len(c["W1"]):
                dots = r"\succ \cdots" if st.tex else "> ..."
                return (f"some ranking in {m(f'R({W1})')} starts {m(f'{v} {dots}')}, no ranking "
                        f"in {m(f'R({W2})')} does, so {m(f'R({W1}) {neq} R({W2})')}.")
        else:
            v = st.sv(c["value"])
        if st.tex:
            return (f"${v} \\in {P}({W1})$ but ${v} \\notin {P}({W2})$, so "
                    f"${P}({W1}) \\neq {P}({W2})$.")
        return f"{v} is in {P}({W1}) but not in {P}({W2}), so {P}({W1}) != {P}({W2})."
    raise KeyError(k)


def _words(text: Any) -> str:
    """The file's words, safe for a terminal: control characters (escape codes) escaped."""
    text = str(text)[:2000]
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in text)


#: What the checker proves for each theorem name (the file's own statement is only shown).
_THEOREMS = {
    "translation-cosine": ("{W}, {W1} = {W} + 1 v'^T and {W2} = {W} + 1 v''^T give identical "
                           "softmax probabilities for every input, with cos -1 ({W1}) and "
                           "cos +1 ({W2}) between the two labels"),
    "centred-cosine-ranking": ("{W} is centred and {cos} >= {c}, yet some input ranks label {i} "
                               "first and label {j} last"),
    "cosine-not-ranking": "C({W1}) = C({W2}) but R({W1}) != R({W2})",
    "sign-not-ranking": "S({W1}) = S({W2}) but R({W1}) != R({W2})",
    "cosine-determines-sign": "S(C({W})) = S({G}) = S({W}) for this {W}, with {G} = {W} {W}^T",
    "difference-cosine-determines-ranking": ("S(C(B{W})) = S({G}) = R({W}) for this {W}, with "
                                             "{G} = (B{W})(B{W})^T and B the difference matrix"),
    "patterns-equal": "the two complete pattern sets are equal",
    "argmaxable-labels": "the labels some input ranks first are exactly {labels}",
}
_THEOREMS_TEX = {
    "translation-cosine": (r"${W}$, ${W1} = {W} + \mathbf{{1}} v'^\top$ and ${W2} = {W} + "
                           r"\mathbf{{1}} v''^\top$ give identical softmax probabilities for "
                           r"every input, with cosine $-1$ in ${W1}$ and $+1$ in ${W2}$ "
                           "between the two labels"),
    "centred-cosine-ranking": (r"${W}$ is centred and ${cos} \geq {c}$, yet some input ranks "
                               r"label ${i}$ first and label ${j}$ last"),
    "cosine-not-ranking": r"$C({W1}) = C({W2})$ but $R({W1}) \neq R({W2})$",
    "sign-not-ranking": r"$S({W1}) = S({W2})$ but $R({W1}) \neq R({W2})$",
    "cosine-determines-sign": (r"$S(C({W})) = S({G}) = S({W})$ for this ${W}$, with ${G} = "
                               r"{W} {W}^\top$"),
    "difference-cosine-determines-ranking": (r"$S(C(B{W})) = S({G}) = R({W})$ for this ${W}$, "
                                             r"with ${G} = (B{W})(B{W})^\top$ and $B$ the "
                                             "difference matrix"),
    "patterns-equal": "the two complete pattern sets are equal",
    "argmaxable-labels": "the labels some input ranks first are exactly ${labels}$",
}


#: notes on named matrices (text, LaTeX)
_NOTES = {"gram-w": "the Gram matrix G = W W^T",
          "gram-bw": "the Gram matrix G = (BW)(BW)^T of the label differences"}
_NOTES_TEX = {"gram-w": "the Gram matrix $G = W W^\\top$",
              "gram-bw": "the Gram matrix $G = (BW)(BW)^\\top$ of the label differences"}


def _frac_tex(s: str) -> str:
    s = str(s)
    if "/" not in s:
        return s
    p, q = s.split("/")
    sign = "-" if p.startswith("-") else ""
    return f"{sign}\\tfrac{{{p.lstrip('-')}}}{{{q}}}"


def _theorem_claim(c: Any, st: _Style, names: dict[str, str]) -> str:
    th = c["theorem"]
    tpl = (_THEOREMS_TEX if st.tex else _THEOREMS).get(th, th)
    prm = c.get("parameters") or {}
    fill = {k: st.name(v) for k, v in names.items()}
    fill.setdefault("W", "W")
    fill.setdefault("G", "G")
    fill.setdefault("W1", "W_1" if st.tex else "W1")
    fill.setdefault("W2", "W_2" if st.tex else "W2")
    if th == "argmaxable-labels":
        fill["labels"] = "\\{" + ", ".join(st.lab(i) for i in prm["labels"]) + "\\}" \
            if st.tex else "{" + ", ".join(st.lab(i) for i in prm["labels"]) + "}"
    if th == "centred-cosine-ranking":
        i, j = prm["labels"]
        fill.update(i=st.lab(i), j=st.lab(j), cos=st.cos("w", i, j),
                    c=_frac_tex(prm["cosine_at_least"]) if st.tex else prm["cosine_at_least"])
    return str(tpl.format(**fill))


def _vec_text(v: Any) -> str:
    return "[" + ", ".join(str(x) for x in v) + "]"


def _mat_text(M: Any) -> str:
    width = max(len(x) for r in M for x in r)
    return "\n".join("    [" + "  ".join(x.rjust(width) for x in r) + "]" for r in M)


def _walk(c: Any, st: _Style) -> Any:
    """(header claim, [(part claim, vectors, pattern rows)], matrices in order)."""
    names = _Names()
    theorem = c.get("theorem") if c["kind"] == "theorem" else None
    parts = c["parts"] if theorem else [c]
    out = []
    for n, p in enumerate(parts):
        roles = _roles(p, names, n if theorem else None, theorem)
        vecs = []
        if p.get("v") is not None:
            roles["_v"] = "v" if not theorem else ("v'" if n == 0 else "v''")
            vecs.append((roles["_v"], p["v"], "translation"))
        if p.get("witness") is not None:
            who = f" for {st.m(st.name(roles['W1']))}" if "W1" in roles else ""
            vecs.append(("x", p["witness"], f"witness{who}"))
        if p.get("multipliers") is not None:
            who = f" for {st.m(st.name(roles['W2']))}" if "W2" in roles else ""
            vecs.append(("y", p["multipliers"], f"Gordan multipliers{who}"))
        out.append((_claim(p, st, roles), vecs, p, roles))
    head = None
    if theorem:
        top = {}
        for _, _, _p, roles in out:
            for key, nm in roles.items():
                if key.startswith("_"):
                    continue
                if key == "W_translated":
                    top["W1" if "W1" not in top else "W2"] = nm
                elif nm == "G":
                    top["G"] = nm
                else:
                    top.setdefault(key, nm)
        head = _theorem_claim(c, st, top)
    return head, out, names


def _shard_records(c: Any, base: Any) -> Any:
    """The records of a (checked) sharded audit, read again from its folder (presentation)."""
    import json
    import os

    for sh in c.get("shards", []):
        path = sh["file"] if os.path.isabs(sh["file"]) else os.path.join(base, sh["file"])
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)


def _audit_explain(c: Any, one_based: bool, base: Any=None) -> str:
    """A short citable statement of an audit: head (and its hash), domains, counts, the
    labels proven never argmaxable; never the matrix."""
    import hashlib
    import json

    head, folder, base = c["head"], base, int(one_based)
    if "W" in head:
        digest = hashlib.sha256(json.dumps(head["W"], separators=(",", ":")).encode()).hexdigest()
        what = f"the inline head W (sha256 of its JSON {digest[:16]}...)"
    else:
        what = (f"the head {head.get('tensor', 'array')} in {head['file']} "
                f"(sha256 of its tensor bytes {head['sha256']})")
    src = c.get("source")
    if src:
        what += f", from {src['file']} (sha256 {src['sha256']}; provenance, not checked)"
    bias = " + b" if c.get("bias") is not None else ""
    labels = ", ".join(f"{a + base}" if a == b else f"{a + base}-{b + base}"
                       for a, b in c["labels"])
    out = [f"Claim: for {what} ({c['rows']} labels x {c['cols']} dimensions), labels "
           f"{labels} audited for the strict argmax of W x{bias}:"]
    for d in c["domains"]:
        dom = "all x in R^d" if d == "all" else f"x with max_j |x_j| <= {c.get('radius')}"
        n = c["counts"][d]
        line = (f"  over {dom}: {n['argmaxable']} argmaxable (each with an exact witness), "
                f"{n['never']} never argmaxable (each with exact Gordan multipliers), "
                f"{n['undecided']} undecided (no claim)")
        recs = c.get("records")
        if recs is None and folder is not None:
            recs = list(_shard_records(c, folder))
        if isinstance(recs, list):
            never = [r["label"] + base for r in recs if r[d]["verdict"] == "never"]
            line += (f"; never argmaxable: {', '.join(map(str, never[:50]))}"
                     + (f" and {len(never) - 50} more" if len(never) > 50 else "")) if never else ""
        else:
            line += "; the per-label proofs are in the shards"
        out.append(line + ".")
    out.append("Not covered by this certificate: the reports written next to it "
               "(summary.json, labels.csv, labels.parquet, margins.png) are derived from "
               "these records and carry no hash here.")
    return "\n".join(out) + "\n"


#: the layer-peeled family's kinds (rendered by certificates/_render_family.py)
_FAMILY = ("layer-peeled-weighted-bracket", "layer-peeled-mse-bracket",
           "layer-peeled-bce-bracket", "layer-peeled-family-theorem")


def explain(c: Any, *, one_based: bool = False, base: str | None = None) -> str:
    """The proven claim in words, each matrix once (by name), with witnesses and tables."""
    if c["kind"] in _FAMILY:  # the layer-peeled family (issue 33)
        from ._render_family import explain as family_explain

        return family_explain(c)
    if c["kind"] in ("layer-peeled-rank-bracket", "layer-peeled-stability"):
        from ._render_rank import explain as rank_explain

        return rank_explain(c)
    if c["kind"].startswith("layer-peeled-"):  # the brackets render themselves
        from ._render_bracket import explain as bracket_explain

        return bracket_explain(c)
    if c["kind"] == "argmax-audit":  # base: the folder its shards are read from
        return _audit_explain(c, one_based, base)
    st = _Style(False, one_based)
    head, parts, names = _walk(c, st)
    lines = []
    note = (f" (The file's own statement, not checked: \"{_words(c['statement'])}\")"
            if c.get("statement") else "")
    if head is not None:
        lines.append(f"Claim: {head}.{note}")
    printed: set[str] = set()
    for n, (claim, vecs, p, roles) in enumerate(parts):
        lines.append(f"  part {n + st.base}: {claim}" if head is not None
                     else f"Claim: {claim}{note}")
        for nm, M, bias, what in names.order:
            if nm in roles.values() and nm not in printed:
                printed.add(nm)
                lines.append(f"  {st.name(nm)} =" + (f"  ({_NOTES[what]})" if what else ""))
                lines.append(_mat_text(M))
                if bias is not None:
                    lines.append(f"  bias of {st.name(nm)} = {_vec_text(bias)}")
        for sym, v, what in vecs:
            lines.append(f"  {what}: {sym} = {_vec_text(v)}")
        if p["kind"] == "pattern-complete":
            W, b = p["W"], p.get("bias")
            for q in p["patterns"]:
                pat = st.sv(q["pattern"]) if p["pattern"] == "sign" else st.rank(q["pattern"], W, b)
                wit = f"   x = {_vec_text(q['witness'])}" if q.get("witness") else ""
                lines.append(f"    {pat}{wit}")
    return "\n".join(lines) + "\n"


#: width budget of one displayed line, in points (an article's \textwidth is 345 pt; the
#: estimate below is conservative, so a block that passes it fits with room to spare)
_TEXT_PT = 330.0


def _entry_pt(x: Any) -> float:
    """A generous estimate of the printed width of one matrix entry (points, 10 pt type)."""
    s = str(x)
    if "/" in s:  # \tfrac{p}{q}: the wider of numerator and denominator, in script size
        p, q = s.lstrip("-").split("/")
        return 5.0 * max(len(p), len(q)) + (8.0 if s.startswith("-") else 0.0) + 2.0
    return 5.0 * len(s.lstrip("-")) + (8.0 if s.startswith("-") else 0.0)


def _column_blocks(M: Any, head: float = 40.0) -> list[tuple[int, int]]:
    """Split the columns of M into consecutive blocks that each fit a line (``head``: the
    width of the name, "=" and the parentheses, in points)."""
    rows = [M] if M and not isinstance(M[0], list) else M
    ncol = max((len(r) for r in rows), default=0)
    widths = [max(_entry_pt(r[j]) for r in rows) + 10.0 for j in range(ncol)]
    blocks, start, used = [], 0, head
    for j, w in enumerate(widths):
        if j > start and used + w > _TEXT_PT:
            blocks.append((start, j))
            start, used = j, head
        used += w
    blocks.append((start, ncol))
    return blocks


#: rows of one displayed matrix block (a taller display would not fit a page)
_MAX_ROWS = 30


def _tex_matrix(M: Any, cols: tuple[int, int] | None = None,
                rows_of: tuple[int, int] | None = None) -> str:
    rows = [M] if M and not isinstance(M[0], list) else M
    a, b = cols if cols is not None else (0, max(len(r) for r in rows))
    r0, r1 = rows_of if rows_of is not None else (0, len(rows))
    body = " \\\\ ".join(" & ".join(_frac_tex(x) for x in r[a:b]) for r in rows[r0:r1])
    return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"


def _tex_named_matrix(name: str, M: Any, st: _Style) -> list[str]:
    """``\\[ name = (...) \\]``, split into column blocks when the matrix is wider than a line
    and into row blocks when it is taller than :data:`_MAX_ROWS` (each block says which
    rows and columns it holds)."""
    blocks = _column_blocks(M)
    nrows = len(M) if M and isinstance(M[0], list) else 1
    rblocks = [(r, min(r + _MAX_ROWS, nrows)) for r in range(0, nrows, _MAX_ROWS)]
    if len(blocks) > 1 or len(rblocks) > 1:  # a subscript names the block: room for it
        blocks = _column_blocks(M, head=90.0)
    out = []
    if max(b - a for a, b in blocks) > 10:
        out.append(f"\\setcounter{{MaxMatrixCols}}{{{max(b - a for a, b in blocks)}}}")
    if len(blocks) == 1 and len(rblocks) == 1:
        return out + [f"\\[ {name} = {_tex_matrix(M)} \\]"]
    out.append(f"${name}$ does not fit one display; it is printed in "
               f"{len(blocks) * len(rblocks)} blocks (rows, columns):")
    for r0, r1 in rblocks:
        for a, b in blocks:
            rs = "" if len(rblocks) == 1 else f"{st.lab(r0)}..{st.lab(r1 - 1)}"
            cs = ":" if len(blocks) == 1 else f"{st.lab(a)}..{st.lab(b - 1)}"
            out.append(f"\\[ {name}_{{{rs or ':'},\\,{cs}}} = "
                       f"{_tex_matrix(M, (a, b), (r0, r1))} \\]")
    return out


def _tex_vector(v: Any) -> str:
    """A vector as a transposed row, inline, breakable after each comma."""
    return "(" + ",\\allowbreak\\ ".join(_frac_tex(x) for x in v) + ")^\\top"


def _tex_vector_par(sym: str, v: Any, what: str) -> str:
    """A vector on its own paragraph (breaks across lines when long)."""
    return (f"\\par\\noindent{{\\raggedright {what[0].upper() + what[1:]}: "
            f"${sym} = {_tex_vector(v)}$.\\par}}")


def _chain_rows(p: Any, kind: str, values: Any) -> list[tuple[int, int]] | None:
    """The constraint rows of a ranking (pairs (a, c): row w_a - w_c), in the checker's order."""
    if kind != "ranking":
        return None
    r = list(values)
    k = len(p["W"] if "W" in p else p["W2"])
    pairs = list(zip(r, r[1:], strict=False))
    if len(r) < k:
        pairs += [(r[-1], j) for j in range(k) if j not in r]
    return pairs


def _tex_gordan(p: Any, st: _Style, wname: str) -> str:
    """The Gordan multipliers as the combination of named rows that vanishes."""
    y = p["multipliers"]
    if p["kind"] == "pattern-differs":
        kind, values = p["pattern"], p["value"]
    else:
        kind = "ranking" if p["kind"].startswith("ranking") else "sign"
        values = p["ranking"] if kind == "ranking" else p["signs"]
    terms = []
    if kind == "ranking":
        rows = _chain_rows(p, kind, values)
        for (a, c), yi in zip(rows or [], y, strict=False):
            if str(yi) != "0":
                terms.append(f"{_frac_tex(yi)}\\,(w_{{{st.lab(a)}}} - w_{{{st.lab(c)}}})")
        what = "the chain rows $w_a - w_c$ (label $a$ above label $c$)"
    else:
        for i, (si, yi) in enumerate(zip(values, y, strict=False)):
            if str(yi) != "0" and si != 0:
                sg = "" if si > 0 else "-"
                terms.append(f"{_frac_tex(yi)}\\,({sg}w_{{{st.lab(i)}}})")
        what = "the rows $s_i w_i$"
    if not terms:
        return ""
    comb = " +\\allowbreak ".join(terms)
    bias = (" and the same combination of the biases is $\\leq 0$"
            if (p.get("bias") is not None or p.get("bias2") is not None) else "")
    return (f"\\par\\noindent Gordan multipliers (for ${wname}$, rows $w_i$ of ${wname}$) on "
            f"{what}: ${comb} = 0$ with every multiplier $\\geq 0${bias}, so no input "
            "makes every row positive.\\par")


def _pattern_table(p: Any, st: _Style) -> list[str]:
    W, b = p["W"], p.get("bias")
    sign = p["pattern"] == "sign"
    head = ("sign vector" if sign else "ranking (most likely first)")
    has_w = any(q.get("witness") for q in p["patterns"])
    # paragraph columns: long rankings and witnesses wrap instead of overflowing
    cols = ("r p{0.32\\linewidth} p{0.5\\linewidth}" if has_w
            else "r p{0.8\\linewidth}")
    out = [f"\\begin{{longtable}}{{{cols}}}",
           f"\\# & {head}" + (" & witness $x$" if has_w else "")
           + " \\tabularnewline \\hline \\endhead"]
    for n, q in enumerate(p["patterns"]):
        if sign:
            pat = ",\\allowbreak ".join({1: "+", -1: "-", 0: "0"}[s] for s in q["pattern"])
            pat = f"({pat})"
        else:
            pat = st.rank(q["pattern"], W, b)
        row = f"{n + 1} & \\raggedright ${pat}$"
        if has_w:
            row += (f" & \\raggedright ${_tex_vector(q['witness'])}$" if q.get("witness")
                    else " & ")
        out.append(row + " \\tabularnewline")
    out.append("\\end{longtable}")
    return out


def _tex_text(text: Any) -> str:
    """The file's own words as LaTeX text: special characters escaped."""
    rep = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
           "#": r"\#", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
           "^": r"\textasciicircum{}"}
    return "".join(rep.get(ch, ch) for ch in _words(text))


def _dec(q: Any) -> str:
    """A rational bound as a decimal (15 significant digits; the file holds it exactly)."""
    from fractions import Fraction

    return f"{float(Fraction(q)):.15g}"


def _bracket_latex(c: Any, st: _Style) -> str:
    """A layer-peeled bracket: the bound, every structure claim the checker verified, the target
    (each wide matrix split into column blocks)."""
    from fractions import Fraction

    th = c.get("theorem") if c["kind"] == "layer-peeled-theorem" else None
    part = c["parts"][0] if th else c
    orbit = part["kind"] == "layer-peeled-orbit-bracket"
    m, d = len(part["W"]), len(part["W"][0])
    n_ctx = (len(part["bases"][0]) * part["group_order"] if orbit else len(part["Y"][0]))
    lo, up = Fraction(part["lower"]), Fraction(part["upper"])
    out = [f"% logitgeom certificate: {c['kind']}; labels {'1' if st.base else '0'}-based; "
           f"needs \\usepackage{{{','.join(LATEX_PACKAGES)}}}"]
    out += _result_tex(c, st)
    if th:
        what = {"cyclic-circulant": "cyclic target: $W W^\\top$ circulant",
                "transitive-etf": "2-homogeneous target: $W W^\\top$ a simplex ETF",
                "group-block-form": "$W W^\\top$ constant on the orbitals of the group"}
        lab = ""  # the file's free-text label is not checked: never part of the claim
        out.append(f"\\paragraph{{Claim.}} Theorem \\texttt{{{th}}}{lab}: a solution with "
                   f"{what.get(th, th)} lies within the proven bracket of the optimum.")
    out.append(
        f"\\paragraph{{{'Bracket' if th else 'Claim'}.}} The layer-peeled optimum "
        "$J^* = \\min J(WH)$ subject to "
        f"$\\|W\\|_F^2 \\leq {part['E_W']}$, $\\|H\\|_F^2 \\leq {part['E_H']}$ "
        f"($m = {m}$ labels, $n = {n_ctx}$ contexts) lies in the interval\n"
        f"\\[ J^* \\in [{_dec(lo)},\\ {_dec(up)}] \\]\n"
        f"(relative width ${float((up - lo) / up) if up else 0.0:.2g}$; bounds "
        "rounded here, exact in the file). The upper end is attained by the certificate's "
        f"$(W, H)$ with hidden width $d = {d}$, so it holds for every $d \\geq {d}$; the lower "
        "end holds for every $d$ (a Fenchel dual point).")
    for cl in part["structure"]:
        k = cl["claim"]
        if k == "circulant":
            out.append("\\paragraph{Structure.} $W W^\\top$ is circulant (checked exactly).")
        elif k == "simplex-etf":
            t = sum(Fraction(a) ** 2 for a in part["W"][0]) * m / (m - 1)
            out.append(f"\\paragraph{{Structure.}} $W W^\\top = t\\,(I - J/m)$, a simplex "
                       f"ETF, with $t = {_dec(t)}$ (checked exactly).")
        elif k == "span-I-J":
            out.append("\\paragraph{Structure.} $W W^\\top = \\alpha I + \\beta (J - I)$ "
                       "(checked exactly).")
        elif k == "invariant":
            out.append(f"\\paragraph{{Structure.}} $Y$ and $W W^\\top$ are invariant under the "
                       f"group generated by {len(cl['generators'])} permutation(s) of the "
                       "labels, so $W W^\\top$ is constant on each orbital of that group "
                       "(checked exactly).")
    if orbit:
        out.append(f"\\paragraph{{Target.}} $Y = [P_g y_b : g \\in G,\\ b]$ for the group $G$ "
                   f"of order {part['group_order']} generated by {len(part['generators'])} "
                   "permutation(s), with base columns $y_b$ the columns of")
        out += _tex_named_matrix("Y_{\\mathrm{base}}", [list(r) for r in zip(
            *part["bases"], strict=True)], st)
    else:
        out.append("\\paragraph{Target.}")
        out += _tex_named_matrix("Y", part["Y"], st)
    return "\n".join(out) + "\n"


#: The source papers, by the names the documentation uses.
PAPERS = {
    "cosine": ("the cosine paper", "What Cosine Similarity of Label Representations Can and "
               "Cannot Tell us"),
    "symmetry": ("the symmetry paper", "Uncovering Symmetry Transfer in Large Language Models "
                 "via Layer-Peeled Optimization (Zhehang Du, Hangfeng He and Weijie Su)"),
}
#: The result each theorem kind proves an instance of, when its statement does not name one.
_RESULTS = {
    "translation-cosine": ("cosine", "Thm 3.4"),
    "centred-cosine-ranking": ("cosine", "App. C.2"),
    "cosine-not-ranking": ("cosine", "Thm 5.5"),
    "sign-not-ranking": ("cosine", "App. H.2"),
    "cosine-determines-sign": ("cosine", "Lemma 5.3"),
    "difference-cosine-determines-ranking": ("cosine", "Thm 5.6"),
    "argmaxable-labels": ("cosine", "Sec. 5"),
    "patterns-equal": ("cosine", "Sec. 5"),
    "cyclic-circulant": ("symmetry", "Thm 1"),
    "transitive-etf": ("symmetry", "Thms 2-4"),
    "group-block-form": ("symmetry", "Thm 6 and App. F"),
}
_RESULT_RE = re.compile(r"^((?:Thms?|Lemma|App\.|Prop\.|Sec\.|Defs?\.)\s*[A-Z]?[0-9.\-]*"
                        r"[0-9A-Z])")


def paper_result(c: dict[str, Any]) -> tuple[str, str] | None:
    """``(paper key, result)`` a paper certificate proves an instance of (``("cosine",
    "Thm 5.5")``), from its statement or label, else from its theorem kind; None for a
    certificate that is not a paper's result.

    Examples
    --------
    >>> paper_result({"kind": "theorem", "theorem": "cosine-not-ranking",
    ...               "statement": "Thm 5.5: C(W1) = C(W2) but R(W1) != R(W2)."})
    ('cosine', 'Thm 5.5')
    """
    if c.get("kind") not in ("theorem", "layer-peeled-theorem"):
        return None
    th = c.get("theorem")
    paper, result = _RESULTS.get(str(th), ("cosine", ""))
    for text in (c.get("label"), c.get("statement")):
        mt = _RESULT_RE.match(str(text or ""))
        if mt:
            result = mt.group(1)
            break
    return (paper, result) if result else None


def _paper_default(c: dict[str, Any], one_based: bool | None) -> bool:
    """Labels from 1 by default in a paper's result (both papers count from 1)."""
    return (paper_result(c) is not None) if one_based is None else bool(one_based)


def _result_tex(c: dict[str, Any], st: _Style) -> list[str]:
    """The opening paragraph: which paper and result, what the file proves, label numbering."""
    pr = paper_result(c)
    base = ("Labels are numbered from 1, as in the paper (the certificate file numbers them "
            "from 0)." if st.base else "Labels are numbered from 0, as in the certificate "
            "file (the papers number them from 1).")
    if pr is None:
        return [f"\\paragraph{{Convention.}} {base}"]
    name, title = PAPERS[pr[0]]
    what = ("The certificate proves the statement below for the instance it contains; the "
            "paper's result is the general statement.")
    if c["kind"] == "layer-peeled-theorem":
        what = ("The certificate proves, for the target it contains, a bracket of the optimum "
                "value and that one optimum has the stated structure; the paper's theorem "
                "(every target of the family) is the paper's.")
    out = [f"\\paragraph{{Result.}} {name[0].upper() + name[1:]} (\\emph{{{_tex_text(title)}}}), "
           f"{_tex_text(pr[1])}. {what} {base}"]
    remark = str(c.get("statement") or "").partition(" Remark: ")[2]
    if remark:  # said by the file's author, not verified by the checker
        out.append(f"\\paragraph{{Remark.}} {_tex_text(remark[0].upper() + remark[1:])} "
                   "(A remark of the certificate's statement, not verified by the checker.)")
    return out


def latex(c: Any, *, one_based: bool | None = None) -> str:
    """A LaTeX snippet a paper can ``\\input``: the paper and result it proves, the claim as
    mathematics, each matrix once (named), witnesses and multipliers, and a longtable of
    every complete pattern set.

    ``one_based`` None (the default): labels from 1 for a paper's result (as the papers
    number them), from 0 otherwise; the snippet says which.
    Needs ``\\usepackage{amsmath,amssymb,longtable}`` (:data:`LATEX_PACKAGES`).
    """
    if c["kind"] in _FAMILY:
        from ._render_family import latex as family_latex

        return family_latex(c)
    one_based = _paper_default(c, one_based)
    if c["kind"] in ("layer-peeled-rank-bracket", "layer-peeled-stability"):
        from ._render_rank import latex as rank_latex

        Y = c["Y"] if "Y" in c else c["brackets"][0]["Y"]
        return rank_latex(c) + "\n".join(["\\paragraph{Target.}", *_tex_named_matrix(
            "Y", Y, _Style(True, one_based))]) + "\n"
    if c["kind"].startswith("layer-peeled-"):
        return _bracket_latex(c, _Style(True, one_based))
    st = _Style(True, one_based)
    head, parts, names = _walk(c, st)
    base = "1-based" if one_based else "0-based"
    out = [f"% logitgeom certificate: {c['kind']}; labels {base}; "
           f"needs \\usepackage{{{','.join(LATEX_PACKAGES)}}}"]
    out += _result_tex(c, st)
    if head is not None:
        out.append(f"\\paragraph{{Claim.}} {head}.")
    printed: set[str] = set()
    for n, (claim, vecs, p, roles) in enumerate(parts):
        claim = claim[0].upper() + claim[1:]
        if head is not None:
            out.append(f"\\paragraph{{Part {n + st.base}.}} {claim}")
        else:
            out.append(f"\\paragraph{{Claim.}} {claim}")
        for nm, M, bias, what in names.order:
            if nm in roles.values() and nm not in printed:
                printed.add(nm)
                if what:
                    out.append(f"Here ${nm}$ is {_NOTES_TEX[what]}.")
                out += _tex_named_matrix(nm, M, st)
                if bias is not None:
                    out.append(_tex_vector_par(f"b_{{{nm}}}", bias, f"bias of ${nm}$"))
        for sym, v, what in vecs:
            if what.startswith("Gordan"):
                wn = roles.get("W2", roles.get("W", "W"))
                out.append(_tex_gordan(p, st, wn) or _tex_vector_par(sym, v, what))
            else:
                out.append(_tex_vector_par(sym, v, what))
        if p["kind"] == "pattern-complete":
            out += _pattern_table(p, st)
    return "\n".join(out) + "\n"
