"""Emitters of the certificates that :mod:`engine.geometry` results carry.

Plain dicts in the format of ``certificates/SPEC.md``, built from exact data: sign, ranking,
complete-pattern, pattern-differs, argmaxable-labels and grid-head certificates, plus the
shared :func:`header`, :func:`dumps` and the exact :func:`decide`.  They live in
``engine.geometry`` (not ``engine.certify``) so that the results' ``.certificate()`` methods
need nothing above this package: ``engine.certify`` depends on ``engine.geometry``, never
the reverse, and :mod:`engine.certify.emit` re-exports every name here.

The emitter may be clever; the checker (:mod:`certificates.check`) re-derives every claim.
Everything here runs on the engine's one exact kernel: feasibility by
:func:`engine.exact.lp.decide`, complete enumerations by :func:`engine.geometry.sign_pattern`
and :func:`engine.geometry.ranking_pattern`, intersection lattices by
:func:`engine.exact.lattice.flats`.  The constraint rows of a claim are the checker's own
definitions (:mod:`certificates.semantics`).  Witnesses are canonical small vectors (integers
for models without bias) and Gordan multipliers primitive integers of circuit support, so
output is deterministic and printable: same input, byte-identical :func:`dumps`.

Examples
--------
>>> c = sign_certificate([[1, 0], [0, 1], [1, 1]], [1, 1, -1])
>>> c["kind"], c["multipliers"]
('sign-infeasible', ['1', '1', '1'])
>>> from certificates.api import check
>>> check(c).ok
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

from certificates import api as sm
from certificates.api import FORMAT, THEOREMS, VERSION
from engine.errors import EngineError, InvalidInput
from engine.exact import lp
from engine.exact.lattice import flats
from engine.exact.linalg import primitive_integer_row
from engine.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from engine.geometry.cosine import gram_exact
from engine.geometry.patterns import ranking_pattern, sign_pattern

__all__ = [
    "dumps",
    "header",
    "decide",
    "sign_certificate",
    "ranking_certificate",
    "lattice",
    "complete_certificate",
    "pattern_certificate",
    "argmax_certificate",
    "differs_certificate",
    "pattern_differs_certificate",
    "theorem_certificate",
    "difference_rows",
    "grid_certificate",
]

# ----------------------------------------------------------------------- serialisation
def _scalar(o) -> bool:
    return not isinstance(o, dict | list)


def _dump(o, ind: int) -> str:
    pad, pad1 = " " * ind, " " * (ind + 1)
    if isinstance(o, dict):
        if all(_scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v))
               for v in o.values()) and ind > 1:
            return json.dumps(o)  # small records (a flat, a pattern with its witness): one line
        if not o:
            return "{}"
        items = [f"{pad1}{json.dumps(k)}: {_dump(v, ind + 1)}" for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(o, list):
        if all(_scalar(x) for x in o):
            return json.dumps(o)
        if all(isinstance(x, list) and all(_scalar(y) for y in x) for x in o):
            return "[\n" + ",\n".join(pad1 + json.dumps(x) for x in o) + "\n" + pad + "]"
        return "[\n" + ",\n".join(pad1 + _dump(x, ind + 1) for x in o) + "\n" + pad + "]"
    return json.dumps(o)


def dumps(cert: dict) -> str:
    """Canonical text of a certificate (deterministic; vectors and matrix rows on one line).

    Examples
    --------
    >>> print(dumps({"a": [["1", "2"]], "b": 1}), end="")
    {
     "a": [
      ["1", "2"]
     ],
     "b": 1
    }
    """
    return _dump(cert, 0) + "\n"


def header(kind: str, statement: str | None = None, provenance: dict | None = None) -> dict:
    """The common header: format, version, kind, then optional statement and provenance.

    Examples
    --------
    >>> header("translation")["format"]
    'logitgeom-certificate'
    """
    out = {"format": FORMAT, "version": VERSION, "kind": kind}
    if statement:
        out["statement"] = statement
    if provenance:
        out["provenance"] = dict(provenance)
    return out


# ---------------------------------------------------------------------- exact deciding
def _system(live: list[tuple]) -> tuple[bool, list[tuple]]:
    """(homogeneous?, rows): rows (a, c) as the cone a . x > 0 when every c is 0, else
    homogenised to (c, a) . (t, x) > 0 with the extra row t > 0."""
    if all(c == 0 for _, c in live):
        return True, [tuple(a) for a, _ in live]
    d = len(live[0][0])
    return False, [(c, *a) for a, c in live] + [(1,) + (0,) * d]


def _point(homogeneous: bool, z) -> tuple[Fraction, ...]:
    """The witness x of a point z of the (homogenised) cone: x = z, or z[1:] / z[0]."""
    z = tuple(Fraction(v) for v in z)
    return z if homogeneous else tuple(v / z[0] for v in z[1:])


def decide(rows: Sequence[tuple], d: int | None = None) -> tuple[bool, tuple]:
    """Decide strict feasibility of the rows (a, c): a . x + c > 0, exactly.

    Parameters
    ----------
    rows : sequence of (vector a, constant c) or None
        ``None`` marks a row that is not a constraint (it gets multiplier 0).
    d : int, optional
        Dimension of x, needed only when every row is ``None`` (then x = 0 is a witness).

    Returns
    -------
    (True, x) with a canonical witness x (a small integer vector when every c is 0), or
    (False, y) with Gordan multipliers y >= 0, primitive integers of circuit support (one
    per row) such that sum y_i a_i = 0 and sum y_i c_i <= 0.

    Examples
    --------
    >>> F = Fraction
    >>> decide([((F(1),), F(0)), ((F(-1),), F(0))])
    (False, (Fraction(1, 1), Fraction(1, 1)))
    >>> decide([((F(1), F(0)), F(0)), None])
    (True, (Fraction(1, 1), Fraction(0, 1)))
    >>> decide([((F(1),), F(-5, 2))])[1]  # x > 5/2
    (Fraction(3, 1),)
    """
    live = [r for r in rows if r is not None]
    if not live:
        if d is None:
            raise InvalidInput("nothing to decide and no dimension d given")
        return True, (Fraction(0),) * d
    homogeneous, R = _system(live)
    ok, z = lp.decide(R)
    if ok:
        return True, _point(homogeneous, z)
    y = z if homogeneous else tuple(Fraction(v) for v in primitive_integer_row(z[:-1]))
    it = iter(y)
    return False, tuple(Fraction(0) if r is None else next(it) for r in rows)


def _decide_or_raise(rows, what, d):
    ok, z = decide(rows, d)
    if not ok:
        raise InvalidInput(f"{what} is infeasible; no witness exists")
    return z


# ---------------------------------------------------------------------- single claims
def _exact_model(W, bias):
    Wq = to_matrix(W)
    b = to_vector(bias, what="bias", length=len(Wq)) if bias is not None else None
    return Wq, b, (b if b is not None else (Fraction(0),) * len(Wq))


def _model_fields(Wq, b, w="W", bk="bias") -> dict:
    out = {w: matrix_to_str(Wq)}
    if b is not None:
        out[bk] = vector_to_str(b)
    return out


def sign_certificate(W, signs, *, bias=None, statement=None, provenance=None) -> dict:
    """A ``sign-feasible`` or ``sign-infeasible`` certificate for one sign vector.

    Parameters
    ----------
    W : array_like, k x d
    signs : sequence of -1, 0, +1 (0 only on identically zero rows)
    bias : array_like, optional

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        Wrong length or a sign 0 on a non-zero row (topes only).

    Examples
    --------
    >>> sign_certificate([[1], [2]], [1, 1])["witness"]
    ['1']
    """
    Wq, b, bz = _exact_model(W, bias)
    s = tuple(int(v) for v in signs)
    if len(s) != len(Wq) or any(v not in (-1, 0, 1) for v in s):
        raise InvalidInput(f"signs must be {len(Wq)} entries in {{-1, 0, 1}}; got {list(signs)}")
    try:
        rows = sm.sign_rows(Wq, bz, s, "signs")
    except sm.Fail as f:
        raise InvalidInput(f"signs: {f.message}") from None
    ok, z = decide(rows, len(Wq[0]))
    out = header("sign-feasible" if ok else "sign-infeasible", statement, provenance)
    out.update(_model_fields(Wq, b))
    out["signs"] = list(s)
    out["witness" if ok else "multipliers"] = vector_to_str(z)
    return out


def ranking_certificate(W, ranking, *, bias=None, statement=None, provenance=None) -> dict:
    """A ``ranking-feasible`` or ``ranking-infeasible`` certificate (full ranking or prefix).

    Examples
    --------
    >>> ranking_certificate([[1, 0], [0, 1], [-1, 0]], [2, 1, 0])["kind"]
    'ranking-feasible'
    """
    Wq, b, bz = _exact_model(W, bias)
    r = tuple(int(a) for a in ranking)
    if not r or len(set(r)) != len(r) or any(not 0 <= a < len(Wq) for a in r):
        raise InvalidInput(f"ranking must list distinct labels in 0..{len(Wq) - 1}; got {r}")
    rows = sm.ranking_rows(Wq, bz, r, "ranking")
    ok, z = decide(rows, len(Wq[0]))
    out = header("ranking-feasible" if ok else "ranking-infeasible", statement, provenance)
    out.update(_model_fields(Wq, b))
    out["ranking"] = list(r)
    out["witness" if ok else "multipliers"] = vector_to_str(z)
    return out


# ------------------------------------------------------------------ complete patterns
def lattice(H: Sequence[tuple]) -> list[dict]:
    """The intersection lattice of the non-constant rows (a, c) of H, as certificates carry it.

    Flats are closed sets of row indices (every row vanishing on the flat is listed) with
    their rank, sorted by (rank, indices); only non-empty intersections (affine case).
    Built by :func:`engine.exact.lattice.flats`.

    Examples
    --------
    >>> F = Fraction
    >>> [f["hyperplanes"] for f in lattice([((F(1), F(0)), F(0)), ((F(2), F(0)), F(0))])]
    [[], [0, 1]]
    """
    if not H:  # one label: no pairs, the whole space is the only flat
        return [{"hyperplanes": [], "rank": 0}]
    bias = [c for _, c in H] if any(c for _, c in H) else None
    return [{"hyperplanes": list(f.hyperplanes), "rank": f.rank}
            for f in flats([a for a, _ in H], bias, mobius=False)]


def _enumerate(Wq, b, ptype):
    """The patterns of the engine's complete enumeration of S(W) or R(W)."""
    res = (sign_pattern if ptype == "sign" else ranking_pattern)(Wq, bias=b, progress=None)
    return list(res.patterns)


def complete_certificate(W, pattern: str = "sign", *, bias=None, patterns=None,
                         top: int | None = None, statement=None, provenance=None) -> dict:
    """A ``pattern-complete`` certificate for S(W) (``pattern="sign"``) or R(W).

    Parameters
    ----------
    W : array_like, k x d
    pattern : {"sign", "ranking"}
    bias : array_like, optional
    patterns : sequence, optional
        A complete enumeration (e.g. from ``engine.geometry``); computed by the engine when
        omitted.  Each pattern's witness is the canonical small one (see :func:`decide`).
    top : int, optional
        Also state the top-t prefixes (derived from the complete full rankings).

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        A bad pattern type, or listed patterns that do not match W.

    Examples
    --------
    >>> c = complete_certificate([[1, 0], [0, 1]], "sign")
    >>> [p["pattern"] for p in c["patterns"]]
    [[-1, -1], [-1, 1], [1, -1], [1, 1]]
    """
    if pattern not in ("sign", "ranking"):
        raise InvalidInput(f"pattern must be 'sign' or 'ranking', got {pattern!r}")
    Wq, b, bz = _exact_model(W, bias)
    if patterns is None:
        patterns = _enumerate(Wq, b, pattern)
    pats = [tuple(int(v) for v in p) for p in patterns]
    rows_of = sm.sign_rows if pattern == "sign" else sm.ranking_rows
    items = []
    for p in pats:
        try:
            rows = rows_of(Wq, bz, p, "pattern")
        except sm.Fail as f:
            raise InvalidInput(f"pattern {list(p)}: {f.message}") from None
        x = _decide_or_raise(rows, f"pattern {list(p)}", len(Wq[0]))
        items.append({"pattern": list(p), "witness": vector_to_str(x)})
    out = header("pattern-complete", statement, provenance)
    out.update(_model_fields(Wq, b))
    out["pattern"] = pattern
    if top is not None:
        out["top"] = int(top)
    out["patterns"] = items
    out["lattice"] = lattice(sm.arrangement(Wq, bz, pattern))
    return out


def pattern_certificate(result) -> dict:
    """The certificate of an ``engine.geometry`` pattern result (its ``.certificate()``).

    A complete sign or ranking enumeration becomes ``pattern-complete``; a top-t result is
    certified through the complete full rankings (field ``top``).

    Raises
    ------
    EngineError
        A top-t result whose prefixes disagree with the complete enumeration.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> res = NS(W=((1,),), bias=None, kind="sign", top=None,
    ...          patterns=((-1,), (1,)), witnesses=((-1,), (1,)))
    >>> pattern_certificate(res)["kind"]
    'pattern-complete'
    """
    kind = getattr(result, "kind", "sign")
    kind = getattr(kind, "value", kind)
    ptype = "sign" if str(kind).lower().endswith("sign") else "ranking"
    top = getattr(result, "top", None)
    prov = {"generator": "engine.certify.emit.pattern_certificate"}
    if ptype == "ranking" and top is not None:
        cert = complete_certificate(result.W, "ranking", bias=result.bias, top=top,
                                    provenance=prov)
        prefixes = {tuple(p["pattern"][:top]) for p in cert["patterns"]}
        if prefixes != {tuple(int(a) for a in p) for p in result.patterns}:
            raise EngineError(f"the result's {len(result.patterns)} top-{top} prefixes differ "
                              f"from the {len(prefixes)} prefixes of the complete R(W); "
                              "please report this as a bug")
        return cert
    return complete_certificate(result.W, ptype, bias=result.bias, patterns=result.patterns,
                                provenance=prov)


def argmax_certificate(W, *, bias=None, result=None, provenance=None) -> dict:
    """A ``theorem`` ``argmaxable-labels``: exactly which labels some input ranks first.

    One part per tie class C (labels with identical rows and biases, increasing): the prefix
    C is ``ranking-feasible`` (the class can be ranked first) or ``ranking-infeasible``.

    Parameters
    ----------
    W : array_like, k x d
    bias : array_like, optional
    result : ArgmaxResult, optional
        An ``engine.geometry.argmaxable`` result to cross-check (its ``labels``).

    Raises
    ------
    EngineError
        The result's labels disagree with the certified ones.

    Examples
    --------
    >>> argmax_certificate([[1], [0], [-1]])["parameters"]
    {'labels': [0, 2]}
    """
    Wq, b, bz = _exact_model(W, bias)
    classes: dict[tuple, list[int]] = {}
    for a, (w, c) in enumerate(zip(Wq, bz, strict=True)):
        classes.setdefault((w, c), []).append(a)
    parts = [ranking_certificate(Wq, cl, bias=b) for cl in sorted(classes.values())]
    labels = sorted(a for p in parts if p["kind"] == "ranking-feasible" for a in p["ranking"])
    if result is not None and list(result.labels) != labels:
        raise EngineError(f"argmaxable labels {list(result.labels)} of the result differ from "
                          f"the certified {labels}; please report this as a bug")
    return theorem_certificate("argmaxable-labels", parts,
                               f"the labels some input ranks first are exactly {labels}",
                               parameters={"labels": labels}, provenance=provenance)


def differs_certificate(W1, W2, *, ranking: bool = False, bias1=None, bias2=None,
                        provenance=None) -> dict:
    """Decide whether P(W1) = P(W2) (P = S, or R with ``ranking``) and certify the answer.

    Returns a ``pattern-differs`` certificate (a pattern of W1 absent from W2, or, when only
    W2 has an extra pattern, with W1 and W2 swapped, said in the statement) or a
    ``theorem`` ``patterns-equal`` bundling two complete enumerations.

    Examples
    --------
    >>> differs_certificate([[1, 0], [0, 1]], [[1, 0], [1, 0]])["kind"]
    'pattern-differs'
    """
    ptype = "ranking" if ranking else "sign"
    P = "R" if ranking else "S"
    A = _exact_model(W1, bias1)
    B = _exact_model(W2, bias2)
    if len(A[0]) != len(B[0]):
        raise InvalidInput(f"W1 has {len(A[0])} rows but W2 has {len(B[0])}")
    pa, pb = (sorted(tuple(int(v) for v in p) for p in _enumerate(M[0], M[1], ptype))
              for M in (A, B))
    for (X, Y, px, py, swapped) in ((A, B, pa, pb, False), (B, A, pb, pa, True)):
        extra = sorted(set(px) - set(py))
        if extra:
            note = " (the given W2 is W1 here, and vice versa)" if swapped else ""
            try:
                return pattern_differs_certificate(
                    X[0], Y[0], extra[0], ranking=ranking, bias1=X[1], bias2=Y[1],
                    statement=f"{P}(W1) != {P}(W2){note}", provenance=provenance)
            except InvalidInput as exc:  # the enumerations and the LPs disagree
                raise EngineError(f"{exc}, although the enumerations say otherwise; please "
                                  "report this as a bug") from None
    parts = [complete_certificate(M[0], ptype, bias=M[1], patterns=pp)
             for M, pp in ((A, pa), (B, pb))]
    return theorem_certificate("patterns-equal", parts, f"{P}(W1) = {P}(W2)",
                               provenance=provenance)


def pattern_differs_certificate(W1, W2, value, *, ranking: bool = False, bias1=None,
                                bias2=None, statement=None, provenance=None) -> dict:
    """A ``pattern-differs`` certificate: ``value`` is a pattern of W1 but not of W2.

    Parameters
    ----------
    W1, W2 : array_like, k x d1 and k x d2
    value : sequence
        A sign vector (``ranking=False``) or a ranking / top-t prefix.
    ranking : bool
    bias1, bias2 : array_like, optional

    Raises
    ------
    InvalidInput
        ``value`` is not a pattern of W1, or is also a pattern of W2.

    Examples
    --------
    >>> c = pattern_differs_certificate([[1, 0], [0, 1]], [[1, 0], [1, 0]], [1, -1])
    >>> c["witness"], c["multipliers"]
    (['1', '-1'], ['1', '1'])
    """
    ptype = "ranking" if ranking else "sign"
    X, Y = _exact_model(W1, bias1), _exact_model(W2, bias2)
    if len(X[0]) != len(Y[0]):
        raise InvalidInput(f"W1 has {len(X[0])} rows but W2 has {len(Y[0])}")
    p = tuple(int(v) for v in value)
    rows_of = sm.sign_rows if ptype == "sign" else sm.ranking_rows
    try:
        x = _decide_or_raise(rows_of(X[0], X[2], p, "value"), f"pattern {list(p)} of W1",
                             len(X[0][0]))
    except sm.Fail as f:
        raise InvalidInput(f"pattern {list(p)} of W1: {f.message}") from None
    try:
        ok, y = decide(rows_of(Y[0], Y[2], p, "value"), len(Y[0][0]))
    except sm.Fail:  # zeros of p do not match W2's zero rows: no multipliers needed
        ok, y = False, ()
    if ok:
        raise InvalidInput(f"pattern {list(p)} is also a pattern of W2")
    out = header("pattern-differs", statement, provenance)
    out.update(_model_fields(X[0], X[1], "W1", "bias1"))
    out.update(_model_fields(Y[0], Y[1], "W2", "bias2"))
    out.update({"pattern": ptype, "value": list(p), "witness": vector_to_str(x),
                "multipliers": vector_to_str(y)})
    return out


def theorem_certificate(name: str, parts: list[dict], statement: str, *, parameters=None,
                        provenance=None) -> dict:
    """A ``theorem`` certificate bundling sub-certificates (see SPEC.md for each name).

    Examples
    --------
    >>> t = theorem_certificate("translation-cosine", [], "demo")
    >>> t["theorem"], t["parts"]
    ('translation-cosine', [])
    """
    if name not in THEOREMS:
        raise InvalidInput(f"unknown theorem {name!r}; known: {', '.join(THEOREMS)}")
    out = header("theorem", statement, provenance)
    out["theorem"] = name
    if parameters is not None:
        out["parameters"] = parameters
    out["parts"] = list(parts)
    return out


def grid_certificate(W, claim: str = "lemma-5.3", *, statement=None, provenance=None) -> dict:
    """A ``theorem`` certificate of one verification-grid head (the cosine paper).

    ``claim="lemma-5.3"``: S(C(W)) = S(W) via ``cosine-determines-sign`` (complete S(W) and
    complete S(W W^T); S(D G D) = S(G) for the positive diagonal D of inverse row norms).
    ``claim="thm-5.6"``: S(C(BW)) = R(W) via ``difference-cosine-determines-ranking``
    (complete R(W) and complete S((BW)(BW)^T)).

    Examples
    --------
    >>> from certificates.api import check
    >>> check(grid_certificate([[1, 0], [0, 1], [1, 1]], "thm-5.6")).ok
    True
    """
    if claim == "lemma-5.3":
        parts = [complete_certificate(W, "sign"), complete_certificate(gram_exact(W), "sign")]
        name, stmt = "cosine-determines-sign", "S(C(W)) = S(W W^T) = S(W)"
    elif claim == "thm-5.6":
        parts = [complete_certificate(W, "ranking"),
                 complete_certificate(gram_exact(difference_rows(W)), "sign")]
        name, stmt = "difference-cosine-determines-ranking", "S(C(BW)) = S(BW (BW)^T) = R(W)"
    else:
        raise InvalidInput(f"claim must be 'lemma-5.3' or 'thm-5.6'; got {claim!r}")
    return theorem_certificate(name, parts, statement or stmt, provenance=provenance)


def difference_rows(W) -> tuple:
    """Rows of B W: w_i - w_j for i < j, lexicographic (as the checker builds them).

    Examples
    --------
    >>> [[str(x) for x in r] for r in difference_rows([[1, 0], [0, 1], [0, 0]])]
    [['1', '-1'], ['1', '0'], ['0', '1']]
    """
    Wq = to_matrix(W)
    return tuple(tuple(x - y for x, y in zip(Wq[i], Wq[j], strict=True))
                 for i, j in combinations(range(len(Wq)), 2))
