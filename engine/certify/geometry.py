"""Certificates of the geometry family, built from exact data.

Plain dicts in the format of ``certificates/SPEC.md``: sign, ranking, complete-pattern,
pattern-differs and argmaxable-labels certificates, verification-grid bundles, and
:func:`bundle_certificate` (a ``theorem`` of several parts).  Every builder here works from
exact data it is handed (a matrix, a pattern, a complete enumeration with its witnesses)
and imports nothing from :mod:`logitgeom.geometry`, so the ``logitgeom.geometry`` results'
``.certificate()`` methods delegate here without an import cycle.  The entry points that
start from a bare matrix (enumerate first, then build) and the claims about a matrix alone
(translation, cosine-equal, chirotope) are in :mod:`logitgeom.emit`.

The builder may be clever; the checker (:mod:`logitgeom_certificates.check`) re-derives every claim.
Feasibility is decided by the exact LP (:func:`decide`, on :func:`logitgeom.lp_float.decide`),
intersection lattices by :func:`logitgeom.exact.lattice.flats`, and the constraint rows of a
claim are the checker's own definitions (:mod:`logitgeom_certificates.semantics`).  Witnesses handed
over by an enumeration are verified exactly before they are written; witnesses the builder
finds itself are canonical small vectors (integers for models without bias) and Gordan
multipliers primitive integers of circuit support, so output is deterministic: same
input, byte-identical :func:`logitgeom.certify.common.dumps`.

Examples
--------
>>> c = sign_certificate([[1, 0], [0, 1], [1, 1]], [1, 1, -1])
>>> c["kind"], c["multipliers"]
('sign-infeasible', ['1', '1', '1'])
>>> from logitgeom_certificates.api import check
>>> check(c).ok
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

from logitgeom.certify.common import THEOREMS, header
from logitgeom.errors import EngineError, InvalidInput
from logitgeom.exact.lattice import flats
from logitgeom.exact.linalg import primitive_integer_row
from logitgeom.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from logitgeom.lp_float import decide as decide_cone
from logitgeom_certificates import api as sm

__all__ = [
    "decide",
    "exact_model",
    "model_fields",
    "sign_certificate",
    "ranking_certificate",
    "lattice",
    "enumeration_certificate",
    "pattern_certificate",
    "argmax_certificate",
    "pattern_differs_certificate",
    "bundle_certificate",
    "difference_rows",
    "GRID_CLAIMS",
    "grid_bundle",
]


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
    ok, z = decide_cone(R)
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
def exact_model(W: object, bias: object) -> tuple[tuple, tuple | None, tuple]:
    """A head read exactly: (W, bias or None, bias or zeros).

    Parameters
    ----------
    W : k x d matrix
        Exact conversion (:func:`logitgeom.exact.numbers.to_matrix`).
    bias : length-k vector or None

    Returns
    -------
    tuple
        ``(Wq, b, bz)``: rows of Fractions, the bias (None if not given), and the bias with
        zeros in place of None.

    Raises
    ------
    InvalidInput
        W or the bias cannot be read exactly, or the lengths differ.

    Examples
    --------
    >>> exact_model([[1, "1/2"]], None)[2]
    (Fraction(0, 1),)
    """
    Wq = to_matrix(W)
    b = to_vector(bias, what="bias", length=len(Wq)) if bias is not None else None
    return Wq, b, (b if b is not None else (Fraction(0),) * len(Wq))


def model_fields(Wq: tuple, b: tuple | None, w: str = "W", bk: str = "bias") -> dict:
    """The certificate fields of a head: ``{w: W as strings}`` and ``{bk: bias}`` if any.

    Parameters
    ----------
    Wq : rows of Fractions
    b : vector of Fractions or None
    w, bk : str
        The field names.

    Returns
    -------
    dict

    Examples
    --------
    >>> model_fields(*exact_model([[1, "1/2"]], None)[:2])
    {'W': [['1', '1/2']]}
    """
    out: dict[str, list] = {w: matrix_to_str(Wq)}
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
    Wq, b, bz = exact_model(W, bias)
    s = tuple(int(v) for v in signs)
    if len(s) != len(Wq) or any(v not in (-1, 0, 1) for v in s):
        raise InvalidInput(f"signs must be {len(Wq)} entries in {{-1, 0, 1}}; got {list(signs)}")
    try:
        rows = sm.sign_rows(Wq, bz, s, "signs")
    except sm.Fail as f:
        raise InvalidInput(f"signs: {f.message}") from None
    ok, z = decide(rows, len(Wq[0]))
    return _decided("sign", ok, z, Wq, b, "signs", s, statement, provenance)


def ranking_certificate(W, ranking, *, bias=None, statement=None, provenance=None) -> dict:
    """A ``ranking-feasible`` or ``ranking-infeasible`` certificate (full ranking or prefix).

    Examples
    --------
    >>> ranking_certificate([[1, 0], [0, 1], [-1, 0]], [2, 1, 0])["kind"]
    'ranking-feasible'
    """
    Wq, b, bz = exact_model(W, bias)
    r = tuple(int(a) for a in ranking)
    if not r or len(set(r)) != len(r) or any(not 0 <= a < len(Wq) for a in r):
        raise InvalidInput(f"ranking must list distinct labels in 0..{len(Wq) - 1}; got {r}")
    rows = sm.ranking_rows(Wq, bz, r, "ranking")
    ok, z = decide(rows, len(Wq[0]))
    return _decided("ranking", ok, z, Wq, b, "ranking", r, statement, provenance)


def _decided(claim: str, ok: bool, z, Wq, b, key: str, value, statement=None,
             provenance=None) -> dict:
    """A ``<claim>-feasible`` certificate with witness z, or ``<claim>-infeasible`` with
    multipliers z, of the pattern ``value`` (field ``key``) of the model (Wq, b)."""
    out = header(f"{claim}-feasible" if ok else f"{claim}-infeasible", statement, provenance)
    out.update(model_fields(Wq, b))
    out[key] = list(value)
    out["witness" if ok else "multipliers"] = vector_to_str(z)
    return out


# ------------------------------------------------------------------ complete patterns
def lattice(H: Sequence[tuple]) -> list[dict]:
    """The intersection lattice of the non-constant rows (a, c) of H, as certificates carry it.

    Flats are closed sets of row indices (every row vanishing on the flat is listed) with
    their rank, sorted by (rank, indices); only non-empty intersections (affine case).
    Built by :func:`logitgeom.exact.lattice.flats`.

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


def _holds(rows, x) -> bool:
    """Every row (a, c) of ``rows`` (``None``: no constraint) has a . x + c > 0, exactly."""
    q = math.lcm(*(v.denominator for v in x)) if x else 1
    p = [int(v * q) for v in x]
    return all(r is None or sum(a * v for a, v in zip(r[0], p, strict=True)) + r[1] * q > 0
               for r in rows)


def enumeration_certificate(W, pattern: str, patterns, *, bias=None, witnesses=None,
                            top: int | None = None, statement=None, provenance=None) -> dict:
    """A ``pattern-complete`` certificate from a complete enumeration of S(W) or R(W).

    Parameters
    ----------
    W : array_like, k x d
    pattern : {"sign", "ranking"}
    patterns : sequence
        The complete enumeration (sign vectors, or full rankings).
    bias : array_like, optional
    witnesses : sequence, optional
        Aligned with ``patterns``: the points the enumeration found.  Each is verified
        exactly (every constraint row strictly positive at it) and written as it is; when
        omitted, each pattern gets the canonical small witness of :func:`decide` (one
        exact LP per pattern).
    top : int, optional
        Also state the top-t prefixes (derived from the complete full rankings).

    Raises
    ------
    InvalidInput
        A bad pattern type, or a listed pattern that is not a pattern of W.
    EngineError
        A handed-over witness that does not reproduce its pattern (a bug).

    Examples
    --------
    >>> c = enumeration_certificate([[1], [-1]], "sign", [[-1, 1], [1, -1]],
    ...                             witnesses=[[-2], [3]])
    >>> [p["witness"] for p in c["patterns"]]
    [['-2'], ['3']]
    """
    if pattern not in ("sign", "ranking"):
        raise InvalidInput(f"pattern must be 'sign' or 'ranking', got {pattern!r}")
    Wq, b, bz = exact_model(W, bias)
    d = len(Wq[0])
    pats = [tuple(int(v) for v in p) for p in patterns]
    if witnesses is not None and len(witnesses) != len(pats):
        raise InvalidInput(f"{len(witnesses)} witnesses for {len(pats)} patterns")
    rows_of = sm.sign_rows if pattern == "sign" else sm.ranking_rows
    items = []
    for n, p in enumerate(pats):
        try:
            rows = rows_of(Wq, bz, p, "pattern")
        except sm.Fail as f:
            raise InvalidInput(f"pattern {list(p)}: {f.message}") from None
        if witnesses is None:
            x = _decide_or_raise(rows, f"pattern {list(p)}", d)
        else:
            x = to_vector(witnesses[n], what="witness", length=d)
            if not _holds(rows, x):
                raise EngineError(f"the enumeration's witness {vector_to_str(x)} does not "
                                  f"reproduce pattern {list(p)}; please report this as a bug")
        items.append({"pattern": list(p), "witness": vector_to_str(x)})
    out = header("pattern-complete", statement, provenance)
    out.update(model_fields(Wq, b))
    out["pattern"] = pattern
    if top is not None:
        out["top"] = int(top)
    out["patterns"] = items
    out["lattice"] = lattice(sm.arrangement(Wq, bz, pattern))
    return out


def pattern_certificate(result, *, full=None, provenance=None) -> dict:
    """The certificate of an ``logitgeom.geometry`` pattern result (its ``.certificate()``).

    A complete sign or ranking enumeration becomes ``pattern-complete`` with the result's
    own witnesses (verified exactly; no LP).  A top-t result is certified through the
    complete full rankings ``full`` (a ranking result of the same W and bias; field
    ``top``).

    Raises
    ------
    InvalidInput
        A top-t result without ``full``.
    EngineError
        A top-t result whose prefixes disagree with ``full``, or a witness that does not
        reproduce its pattern.

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
    prov = provenance or {"generator": "logitgeom.certify.geometry.pattern_certificate"}
    if ptype == "ranking" and top is not None:
        if full is None:
            raise InvalidInput("a top-t result is certified through the complete rankings: "
                               "pass full=ranking_pattern(W, bias=bias)")
        prefixes = {tuple(int(a) for a in p[:top]) for p in full.patterns}
        if prefixes != {tuple(int(a) for a in p) for p in result.patterns}:
            raise EngineError(f"the result's {len(result.patterns)} top-{top} prefixes differ "
                              f"from the {len(prefixes)} prefixes of the complete R(W); "
                              "please report this as a bug")
        result = full
    return enumeration_certificate(result.W, ptype, result.patterns, bias=result.bias,
                                   witnesses=getattr(result, "witnesses", None), top=top,
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
        An ``logitgeom.geometry.argmaxable`` result: its per-label witnesses and Gordan
        multipliers (when it has them) are verified exactly and reused instead of solving
        the LPs again; its ``labels`` are cross-checked.

    Raises
    ------
    EngineError
        The result's labels disagree with the certified ones, or its witness or
        multipliers do not prove what they claim (a bug).

    Examples
    --------
    >>> argmax_certificate([[1], [0], [-1]])["parameters"]
    {'labels': [0, 2]}
    """
    Wq, b, bz = exact_model(W, bias)
    classes: dict[tuple, list[int]] = {}
    for a, (w, c) in enumerate(zip(Wq, bz, strict=True)):
        classes.setdefault((w, c), []).append(a)
    reuse = getattr(result, "witnesses", None) is not None
    parts = [_argmax_part(Wq, b, bz, cl, result) if reuse else
             ranking_certificate(Wq, cl, bias=b) for cl in sorted(classes.values())]
    labels = sorted(a for p in parts if p["kind"] == "ranking-feasible" for a in p["ranking"])
    if result is not None and list(result.labels) != labels:
        raise EngineError(f"argmaxable labels {list(result.labels)} of the result differ from "
                          f"the certified {labels}; please report this as a bug")
    return bundle_certificate("argmaxable-labels", parts,
                              f"the labels some input ranks first are exactly {labels}",
                              parameters={"labels": labels}, provenance=provenance)


def _gordan_holds(rows, y, d: int) -> bool:
    """y >= 0, zero off the constraints, not all zero, sum y_i a_i = 0, sum y_i c_i <= 0."""
    live = [(q, r) for q, r in zip(y, rows, strict=True) if r is not None]
    return (all(q >= 0 for q in y) and any(q for q, _ in live)
            and all(not q for q, r in zip(y, rows, strict=True) if r is None)
            and not any(sum(q * r[0][j] for q, r in live) for j in range(d))
            and sum(q * r[1] for q, r in live) <= 0)


def _argmax_part(Wq, b, bz, cl, result) -> dict:
    """The ranking certificate of the prefix ``cl`` (a tie class) from the proof ``result``
    holds for its first label, verified exactly: a witness, or multipliers (j, y_j) on the
    labels j outside the class, scaled to primitive integers."""
    rows = sm.ranking_rows(Wq, bz, tuple(cl), "ranking")
    x = result.witnesses[cl[0]]
    if x is not None:
        z = to_vector(x, what="witness", length=len(Wq[0]))
        ok = _holds(rows, z)
    else:
        y_of = dict(result.multipliers[cl[0]] or ())
        y = [0] * (len(cl) - 1) + [y_of.get(j, 0) for j in range(len(Wq)) if j not in cl]
        z = tuple(Fraction(v) for v in primitive_integer_row([Fraction(v) for v in y]))
        ok = _gordan_holds(rows, z, len(Wq[0]))
    if not ok:
        raise EngineError(f"the result's proof for labels {list(cl)} does not hold; please "
                          "report this as a bug")
    return _decided("ranking", x is not None, z, Wq, b, "ranking", cl)


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
    X, Y = exact_model(W1, bias1), exact_model(W2, bias2)
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
    out.update(model_fields(X[0], X[1], "W1", "bias1"))
    out.update(model_fields(Y[0], Y[1], "W2", "bias2"))
    out.update({"pattern": ptype, "value": list(p), "witness": vector_to_str(x),
                "multipliers": vector_to_str(y)})
    return out


def bundle_certificate(name: str, parts: list[dict], statement: str, *, parameters=None,
                        provenance=None) -> dict:
    """A ``theorem`` certificate bundling sub-certificates (see SPEC.md for each name).

    Examples
    --------
    >>> t = bundle_certificate("translation-cosine", [], "demo")
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


#: The verification-grid claims (the cosine paper): theorem name, statement, and the
#: pattern type of the first part (the second part is always S of a Gram matrix).
GRID_CLAIMS = {
    "lemma-5.3": ("cosine-determines-sign", "S(C(W)) = S(W W^T) = S(W)", "sign"),
    "thm-5.6": ("difference-cosine-determines-ranking", "S(C(BW)) = S(BW (BW)^T) = R(W)",
                "ranking"),
}


def grid_bundle(claim: str, first, second, *, canonical: bool = False, statement=None,
                provenance=None) -> dict:
    """A ``theorem`` certificate of one verification-grid head from its two enumerations.

    ``claim="lemma-5.3"``: S(C(W)) = S(W) via ``cosine-determines-sign``; ``first`` is the
    complete S(W), ``second`` the complete S(W W^T) (S(D G D) = S(G) for the positive
    diagonal D of inverse row norms).  ``claim="thm-5.6"``: S(C(BW)) = R(W) via
    ``difference-cosine-determines-ranking``; ``first`` is the complete R(W), ``second`` the
    complete S((BW)(BW)^T).

    Parameters
    ----------
    claim : {"lemma-5.3", "thm-5.6"}
    first, second : pattern results
        Complete enumerations (anything with ``W``, ``bias``, ``patterns`` and
        ``witnesses``, as :func:`logitgeom.geometry.sign_pattern` returns).
    canonical : bool
        True: every pattern gets the canonical small witness of :func:`decide` (one exact
        LP per pattern; what the papers print).  False: the enumerations' own witnesses,
        verified exactly.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> s = NS(W=((1,),), bias=None, patterns=((-1,), (1,)), witnesses=((-1,), (1,)))
    >>> g = NS(W=((1,),), bias=None, patterns=((-1,), (1,)), witnesses=((-1,), (1,)))
    >>> grid_bundle("lemma-5.3", s, g)["theorem"]
    'cosine-determines-sign'
    """
    if claim not in GRID_CLAIMS:
        raise InvalidInput(f"claim must be 'lemma-5.3' or 'thm-5.6'; got {claim!r}")
    name, stmt, ptype = GRID_CLAIMS[claim]
    parts = [enumeration_certificate(r.W, t, r.patterns, bias=r.bias,
                                     witnesses=None if canonical else r.witnesses)
             for r, t in ((first, ptype), (second, "sign"))]
    return bundle_certificate(name, parts, statement or stmt, provenance=provenance)
