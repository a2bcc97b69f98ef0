"""Words and LaTeX for a *valid* certificate (presentation only; standard library only).

Not part of the trusted checker: call it only after :func:`certificates.check.check`
returned ``ok``.  Labels are printed 0-based, as in the file.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> print(explain(cert).splitlines()[0])
Claim: the sign vector (+,-) is in S(W): some input x gives sign(W x) = (+,-).
>>> "\\\\begin{pmatrix}" in latex(cert)
True
"""

from __future__ import annotations

__all__ = ["explain", "latex"]

_PREDICTED = {"sign": "S", "ranking": "R"}


def _sv(signs) -> str:
    return "(" + ",".join({1: "+", -1: "-", 0: "0"}[s] for s in signs) + ")"


def _rk(r) -> str:
    return " > ".join(str(a) for a in r)


def _m(M) -> str:
    width = max(len(x) for r in M for x in r)
    return "\n".join("    [" + "  ".join(x.rjust(width) for x in r) + "]" for r in M)


def _model_text(c, w="W", b="bias", seen=None) -> str:
    key = str(c[w])
    if seen is not None and key in seen:
        out = f"  {w} = the matrix {seen[key]} above\n"
    else:
        out = f"  {w} =\n{_m(c[w])}\n"
        if seen is not None:
            seen[key] = w
    if c.get(b) is not None:
        out += f"  {b} = [{', '.join(c[b])}]\n"
    return out


def _claim(c) -> str:
    k = c["kind"]
    aff = " + b" if c.get("bias") is not None else ""
    if k == "sign-feasible":
        return (f"the sign vector {_sv(c['signs'])} is in S(W): some input x gives "
                f"sign(W x{aff}) = {_sv(c['signs'])}.")
    if k == "sign-infeasible":
        return f"the sign vector {_sv(c['signs'])} is NOT in S(W): no input x gives it."
    if k in ("ranking-feasible", "ranking-infeasible"):
        pre = "" if len(c["ranking"]) == len(c["W"]) else f"the top-{len(c['ranking'])} prefix "
        neg = "" if k == "ranking-feasible" else "NO "
        return (f"{pre}{_rk(c['ranking'])} is {'' if not neg else 'NOT '}realisable: "
                f"{neg or 'some '}input x orders the logits W x{aff} that way.")
    if k == "translation":
        i, j = c["labels"]
        return (f"W' = W + 1 v^T gives every input the same softmax probabilities as W, and "
                f"cos(w'_{i}, w'_{j}) = {c['target']:+d}.")
    if k == "cosine-equal":
        return "C(W1) = C(W2): every pairwise cosine of rows of W1 equals that of W2."
    if k == "same-chirotope":
        return ("W1 and W2 have the same chirotope (signs of all maximal minors, up to one "
                "global sign), hence S(W1) = S(W2).")
    if k == "pattern-complete":
        p = c["pattern"]
        return (f"{_PREDICTED[p]}(W) has exactly {len(c['patterns'])} elements, all listed "
                f"(Zaslavsky count of the intersection lattice).")
    if k == "pattern-differs":
        P = _PREDICTED[c["pattern"]]
        if c["pattern"] == "ranking" and len(c["value"]) < len(c["W1"]):
            v = _rk(c["value"])
            return (f"some ranking in R(W1) starts {v} > ..., no ranking in R(W2) does, so "
                    "R(W1) != R(W2).")
        v = _sv(c["value"]) if c["pattern"] == "sign" else _rk(c["value"])
        return f"{v} is in {P}(W1) but not in {P}(W2), so {P}(W1) != {P}(W2)."
    claim = _THEOREMS.get(c["theorem"], c["theorem"])
    if c["theorem"] == "argmaxable-labels":
        claim += f" {c['parameters']['labels']}"
    elif c["theorem"] == "centred-cosine-ranking":
        i, j = c["parameters"]["labels"]
        claim = claim.format(i=i, j=j, c=c["parameters"]["cosine_at_least"])
    note = f" (Statement: {c['statement']})" if c.get("statement") else ""
    return claim + "." + note


#: What the checker proves for each theorem name (the file's own statement is only shown).
_THEOREMS = {
    "translation-cosine": "W, W' = W + 1 v'^T and W'' = W + 1 v''^T give identical softmax "
    "probabilities for every input, with cos -1 (W') and cos +1 (W'') between the two labels",
    "centred-cosine-ranking": "W is centred and cos(w_{i}, w_{j}) >= {c}, yet some input ranks "
    "label {i} first and label {j} last",
    "cosine-not-ranking": "C(W1) = C(W2) but R(W1) != R(W2)",
    "sign-not-ranking": "S(W1) = S(W2) but R(W1) != R(W2)",
    "cosine-determines-sign": "S(C(W)) = S(W W^T) = S(W) for this W",
    "difference-cosine-determines-ranking": "S(C(BW)) = S(BW (BW)^T) = R(W) for this W",
    "patterns-equal": "the two complete pattern sets are equal",
    "argmaxable-labels": "the labels some input ranks first are exactly",
}


def _body(c, seen=None) -> str:
    k = c["kind"]

    def _model(c, w="W", b="bias"):
        return _model_text(c, w, b, seen)

    if k in ("sign-feasible", "ranking-feasible"):
        return _model(c) + f"  witness x = [{', '.join(c['witness'])}]\n"
    if k in ("sign-infeasible", "ranking-infeasible"):
        return _model(c) + f"  Gordan multipliers y = [{', '.join(c['multipliers'])}]\n"
    if k == "translation":
        return _model(c) + f"  v = [{', '.join(c['v'])}]\n" + _model(c, "W_translated")
    if k in ("cosine-equal", "same-chirotope"):
        return _model(c, "W1") + _model(c, "W2")
    if k == "pattern-complete":
        rows = [_sv(p["pattern"]) if c["pattern"] == "sign" else _rk(p["pattern"])
                for p in c["patterns"]]
        return _model(c) + "".join(f"    {r}\n" for r in rows)
    if k == "pattern-differs":
        return (_model(c, "W1", "bias1") + _model(c, "W2", "bias2")
                + f"  witness for W1 x = [{', '.join(c['witness'])}]\n"
                + f"  Gordan multipliers for W2 y = [{', '.join(c['multipliers'])}]\n")
    seen: dict = {}
    return "".join(f"  part {n}: {_claim(p)}\n{_body(p, seen)}" for n, p in
                   enumerate(c["parts"]))


def explain(c) -> str:
    """The proven claim in words, with the matrices."""
    if c["kind"].startswith("layer-peeled-"):  # the brackets render themselves
        from certificates.check_bracket import explain as bracket_explain

        return bracket_explain(c)
    return f"Claim: {_claim(c)}\n{_body(c)}"


def _frac(s: str) -> str:
    if "/" not in s:
        return s
    p, q = s.split("/")
    sign = "-" if p.startswith("-") else ""
    return f"{sign}\\tfrac{{{p.lstrip('-')}}}{{{q}}}"


def _lm(M) -> str:
    if M and not isinstance(M[0], list):
        M = [[x] for x in M]
    body = " \\\\ ".join(" & ".join(_frac(x) for x in r) for r in M)
    return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"


def _tex(text: str) -> str:
    """Plain text made safe for LaTeX text mode."""
    for a, b in (("\\", "\\textbackslash{}"), ("{", "\\{"), ("}", "\\}"), ("_", "\\_"),
                 ("^", "\\^{}"), ("#", "\\#"), ("&", "\\&"), ("%", "\\%"), ("$", "\\$"),
                 ("~", "\\~{}"), (">=", "$\\geq$"), ("!=", "$\\neq$"), (" > ", " $>$ "),
                 (" < ", " $<$ ")):
        text = text.replace(a, b)
    return text


def latex(c) -> str:
    """A LaTeX snippet (matrices, witnesses, the claim) a paper can include."""
    if c["kind"].startswith("layer-peeled-"):
        from certificates.check_bracket import latex as bracket_latex

        return bracket_latex(c)
    out = [f"% logitgeom certificate: {c['kind']}", f"\\paragraph{{Claim.}} {_tex(_claim(c))}"]
    items = [p for p in ([c] if c["kind"] != "theorem" else c["parts"])]
    for p in items:
        if p is not c:
            out.append(f"\\paragraph{{Part ({p['kind']}).}} {_tex(_claim(p))}")
        for key in ("W", "bias", "W1", "bias1", "W2", "bias2", "v", "W_translated",
                    "witness", "multipliers"):
            if p.get(key) is not None:
                name = {"W_translated": "W'", "witness": "x", "multipliers": "y"}.get(key, key)
                out.append(f"\\[ {name} = {_lm(p[key])} \\]")
    return "\n".join(out) + "\n"
