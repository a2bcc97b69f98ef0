"""Claims of the cosine paper ("What Cosine Similarity of Label Representations Can and Cannot
Tell us"), Sections 3 and 5 and Appendices C and H, each decided in exact rational arithmetic.

Labels are 0-based (the paper's are 1-based; the figures are 1-based).  Certificates come
from :mod:`logitgeom.emit` (the paper's named results: :mod:`logitgeom.reproduce.paper`, so
they are the committed ``certificates/paper`` files); figures are drawn from the same exact
data.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path

import numpy as np

from logitgeom.exact.numbers import matrix_to_str, to_matrix, vector_to_str
from logitgeom.geometry import (
    argmaxable,
    cosine_equal,
    difference_matrix,
    ranking_pattern,
    sign_pattern,
    translate,
    translation_for_cosine,
)
from logitgeom.reproduce import _plots
from logitgeom.reproduce._artifacts import Context
from logitgeom.reproduce.registry import Row, Status, claim

__all__: list[str] = []

EXACT = "exact rational arithmetic"
#: App. C.3: centred unembeddings of length exactly 1 (rational points on the unit circle,
#: 40^2 + 9^2 = 41^2) with cos(w_0, w_1) = 1519/1681 > 9/10, yet input (0, 1, 1/10) ranks
#: label 0 first and label 1 last.
APP_C3_W = [["40/41", "9/41", 0], ["40/41", "-9/41", 0], ["-40/41", 0, "9/41"],
            ["-40/41", 0, "-9/41"]]
APP_C3_RANKING = (0, 2, 3, 1)


@functools.lru_cache(maxsize=1)
def _paper() -> dict[str, dict]:
    from logitgeom.reproduce.paper import paper_certificates

    return paper_certificates(progress=False)


def _mul(A, B):
    return tuple(tuple(sum((a * b for a, b in zip(r, c, strict=True)), Fraction(0))
                       for c in zip(*B, strict=True)) for r in A)


def _softmax_rows(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    Z = X @ W.T
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def _status(ok: bool) -> Status:
    return Status.PASS if ok else Status.FAIL


def _ints(seed: int, shape: tuple[int, int], lo: int = -5, hi: int = 5) -> list[list[int]]:
    return np.random.default_rng(seed).integers(lo, hi + 1, size=shape).tolist()


@claim("cos-lemma-3.1", "cosine")
def lemma_3_1(ctx: Context) -> Row:
    """Adding v to every unembedding leaves every softmax probability unchanged."""
    W, v = _ints(31, (6, 4)), _ints(32, (1, 4))[0]
    Wq, Wt = to_matrix(W), translate(W, v)
    B = difference_matrix(len(W))
    same = _mul(B, Wq) == _mul(B, Wt)  # every logit difference, for every input
    X = np.random.default_rng(33).normal(size=(1000, 4))
    dp = float(np.max(np.abs(_softmax_rows(np.array(W, float), X)
                              - _softmax_rows(np.array(Wt, float), X))))
    art = ctx.write_json("results/lemma-3.1.json", {
        "W": matrix_to_str(Wq), "v": vector_to_str(tuple(Fraction(x) for x in v)),
        "W_translated": matrix_to_str(Wt), "BW_equal": same,
        # as text, the same string SUMMARY prints (a float this small would be rounded to 0
        # with the artifacts' solver-noise rule)
        "float_demo": {"inputs": 1000, "max_abs_probability_difference": f"{dp:.1e}"}})
    return Row("Lemma 3.1", "W 6 x 4 (random integers), v in Z^4", EXACT + " (B W' = B W)",
               f"all 15 logit differences identical for every input; float demo on 1000 "
               f"inputs: max |dp| = {dp:.1e}", (art,), _status(same and dp < 1e-12))


def _lemma_translation(ctx: Context, target: int, name: str) -> Row:
    arts, ok, dims = [], True, []
    for d in (2, 3, 5):
        W = _ints(300 + d, (4, d))
        v = translation_for_cosine(W, 0, 1, target)
        Wt = translate(W, v)
        a, b = Wt[0], Wt[1]
        ratio = next(x / y for x, y in zip(a, b, strict=True) if y != 0)
        ok &= any(a) and any(b) and all(x == ratio * y for x, y in zip(a, b, strict=True)) \
            and (ratio < 0 if target < 0 else ratio > 0)
        from logitgeom.emit import translation_certificate

        arts.append(ctx.write_certificate(
            f"{name.lower().replace(' ', '-')}-d{d}.json",
            translation_certificate(W, 0, 1, target, v=v, statement=(
                f"{name}: a translation of every unembedding gives cos(w'_0, w'_1) = "
                f"{target} (d = {d})."))))
        dims.append(f"d={d}: t={ratio}")
    return Row(name, "rows 0, 1 of random integer W (4 x d), d = 2, 3, 5",
               EXACT + "; translation certificates", f"w'_0 = t w'_1 exactly ({', '.join(dims)})",
               tuple(arts), _status(ok))


@claim("cos-lemma-3.2", "cosine")
def lemma_3_2(ctx: Context) -> Row:
    """A translation makes the cosine of two distinct unembeddings -1."""
    return _lemma_translation(ctx, -1, "Lemma 3.2")


@claim("cos-lemma-3.3", "cosine")
def lemma_3_3(ctx: Context) -> Row:
    """A translation makes the cosine of two unembeddings +1."""
    return _lemma_translation(ctx, 1, "Lemma 3.3")


@claim("cos-thm-3.4", "cosine")
def thm_3_4(ctx: Context) -> Row:
    """Thm 3.4 / App. C.1 / Fig. 1: equivalent models with cosine -1 and +1."""
    from logitgeom.reproduce.paper import THM_3_4_W

    art = ctx.write_certificate("thm-3.4-translation.json", _paper()["thm-3.4-translation.json"])
    Ws = [to_matrix(THM_3_4_W)]
    Ws += [translate(THM_3_4_W, translation_for_cosine(THM_3_4_W, 0, 1, t)) for t in (-1, 1)]
    B = difference_matrix(3)
    same = _mul(B, Ws[0]) == _mul(B, Ws[1]) == _mul(B, Ws[2])
    g = [sum(x * y for x, y in zip(W[0], W[1], strict=True)) for W in Ws[1:]]
    n = [sum(x * x for x in W[0]) * sum(x * x for x in W[1]) for W in Ws[1:]]
    cos_ok = g[0] < 0 < g[1] and g[0] ** 2 == n[0] and g[1] ** 2 == n[1]  # cos = -1, +1
    fig = "figures/fig1-equivalent-models.png"
    with ctx.figure(fig, "Fig. 1 style (Thm 3.4): W, W' and W'' = W + 1 v^T drawn as arrows "
                    "(labels 1-based; each panel on its own scale, so the short pair of W' shows) "
                    "with cos(w_1, w_2) = 0.71, -1, +1; their softmax "
                    "probabilities over inputs on the unit circle coincide (solid, dashed and "
                    "dotted curves overlap).", figsize=(3.3, 3.3)) as f:
        _plots.equivalent_models(f, [np.array(W, float) for W in Ws])
    return Row("Thm 3.4 (App. C.1, Fig. 1)", "W = [[2,1],[1,3],[-1,-2]], labels 0, 1",
               EXACT + "; theorem certificate (two translations)",
               "W, W' (cos -1), W'' (cos +1) give identical probabilities for every input. "
               "Deviation: the instance is the tool's own (the paper draws its Fig. 1 without "
               "printing W)",
               (art, fig), _status(same and cos_ok))


@claim("cos-app-c.2", "cosine")
def app_c2(ctx: Context) -> Row:
    """App. C.2: centring does not help."""
    art = ctx.write_certificate("app-c.2-centred-cosine.json",
                                _paper()["app-c.2-centred-cosine.json"])
    return Row("App. C.2 (centred)", "W = [[5,1],[5,-1],[-10,0]] (column sums 0)",
               EXACT + "; theorem certificate (ranking witness)",
               "cos(w_0, w_1) = 12/13 >= 9/10, yet ranking (0, 2, 1): label 0 first, 1 last. "
               "Deviation: the instance is the tool's own (App. C's text is partly lost)",
               (art,), Status.PASS)


@claim("cos-app-c.3", "cosine")
def app_c3(ctx: Context) -> Row:
    """App. C.3: centred unembeddings of length 1 do not help either."""
    from logitgeom import emit

    W = to_matrix(APP_C3_W)
    centred = all(sum(c) == 0 for c in zip(*W, strict=True))
    unit = all(sum(x * x for x in r) == 1 for r in W)
    cos01 = sum(x * y for x, y in zip(W[0], W[1], strict=True))
    cert = emit.bundle_certificate(
        "centred-cosine-ranking", [emit.ranking_certificate(W, APP_C3_RANKING)],
        "App. C.3: in the centred W whose rows have length exactly 1, cos(w_0, w_1) = "
        "1519/1681 >= 9/10, yet some input makes label 0 the most likely and label 1 the "
        "least likely.", parameters={"labels": [0, 1], "cosine_at_least": "9/10"})
    art = ctx.write_certificate("app-c.3-centred-unit-cosine.json", cert)
    ok = centred and unit and cos01 == Fraction(1519, 1681)
    return Row("App. C.3 (centred, length 1)", "W: 4 rational unit vectors in R^3, centred",
               EXACT + "; theorem certificate (ranking witness)",
               f"|w_i| = 1 exactly, cos(w_0, w_1) = {cos01} >= 9/10, yet ranking "
               f"{APP_C3_RANKING} is realised. Deviation: the instance is the tool's own "
               "(rational points on the unit circle, so the lengths are exactly 1)",
               (art,), _status(ok))


@claim("cos-thm-5.5", "cosine")
def thm_5_5(ctx: Context) -> Row:
    """Thm 5.5: C(W) = C(W') but R(W) != R(W')."""
    from logitgeom.reproduce.paper import THM_5_5_W1, THM_5_5_W2

    art = ctx.write_certificate("thm-5.5-cosine-ranking.json",
                                _paper()["thm-5.5-cosine-ranking.json"])
    W1 = to_matrix(THM_5_5_W1)
    W2 = to_matrix(THM_5_5_W2)
    # W2 = D W1 with D positive diagonal
    scale = [next(b / a for a, b in zip(r1, r2, strict=True) if a != 0)
             for r1, r2 in zip(W1, W2, strict=True)]
    is_dw = all(s > 0 and all(s * a == b for a, b in zip(r1, r2, strict=True))
                for s, r1, r2 in zip(scale, W1, W2, strict=True))
    a1, a2 = argmaxable(W1).labels, argmaxable(W2).labels
    ok = is_dw and cosine_equal(W1, W2) and 2 in a1 and 2 not in a2
    fig = "figures/thm-5.5-argmax-regions.png"
    with ctx.figure(fig, "Thm 5.5: the seven unembeddings of W and of W' = D W (labels "
                    "1-based; label 3 shortened, label 2 in the 0-based JSON) with the region "
                    "where each label is the argmax shaded; label 3 has a region under W and "
                    "none under W', although C(W) = C(W').", figsize=(3.3, 2.0)) as f:
        _plots.argmax_regions(f, [np.array(W1, float), np.array(W2, float)],
                              ["W", "W' = D W"])
    return Row("Thm 5.5", "seven vectors in R^2 at angles k pi/4 (k != 6); W' = D W shortens "
               "label 2 (the paper's label 3)",
               EXACT + "; cosine-equal + pattern-differs certificate",
               f"C(W) = C(W'); argmaxable labels {list(a1)} vs {list(a2)}: R(W) != R(W'). "
               "Deviation: the diagonal rows are (+-4, +-4), of length 4 sqrt 2, not 5 as in "
               "the paper (whose rows (5/sqrt 2, 5/sqrt 2) are irrational); cosines depend on "
               "directions only, so C(W) is the paper's",
               (art, fig), _status(ok))


@claim("cos-app-h.2", "cosine")
def app_h2(ctx: Context) -> Row:
    """App. H.2: S(W1) = S(W2) but R(W1) != R(W2) (point configurations W = [1 | P])."""
    from logitgeom.reproduce.paper import APP_H2_RANKINGS, APP_H2_W1, APP_H2_W2

    art = ctx.write_certificate("app-h.2-sign-ranking.json",
                                _paper()["app-h.2-sign-ranking.json"])
    s1, s2 = sign_pattern(APP_H2_W1, progress=False), sign_pattern(APP_H2_W2, progress=False)
    R1 = ranking_pattern(APP_H2_W1, progress=False)
    R2 = ranking_pattern(APP_H2_W2, progress=False)
    r1, r2 = set(R1.patterns), set(R2.patterns)
    wit = [dict(zip(R.patterns, R.witnesses, strict=True)) for R in (R1, R2)]
    seed_ok = all(r in r1 and r not in r2 for r in APP_H2_RANKINGS["W1"]) and \
        all(r in r2 and r not in r1 for r in APP_H2_RANKINGS["W2"])
    ok = s1.patterns == s2.patterns and r1 != r2 and seed_ok
    res = ctx.write_json("results/app-h.2.json", {
        "sign_count": s1.count, "ranking_counts": [len(r1), len(r2)],
        "only_W1": sorted(r1 - r2), "only_W2": sorted(r2 - r1)})
    fig = "figures/app-h.2-point-configurations.png"
    with ctx.figure(fig, "App. H.2 (labels 1-based): top, the two 5-point configurations "
                    "(W = [1 | P]) with equal sign patterns; grey arrows are directions u whose "
                    "order of the points (by u . p, largest first) is a ranking possible only "
                    "for that configuration.  Bottom, the feature plane of directions u cut "
                    "into the rankings it realises (one sector per ranking, as in the cosine "
                    "paper's figure); shaded sectors are the rankings the other configuration "
                    "lacks.", figsize=(3.3, 3.5)) as f:
        only = [sorted(r1 - r2), sorted(r2 - r1)]
        _plots.point_configurations(f, [np.array(to_matrix(W), float)[:, 1:]
                                        for W in (APP_H2_W1, APP_H2_W2)], only,
                                    [[[float(x) for x in wit[n][r][1:]] for r in only[n]]
                                     for n in range(2)])
    def one(rs) -> str:
        return ", ".join("".join(str(i + 1) for i in r) for r in rs)

    return Row("App. H.2", "5 points in the plane, W = [1 | P] (Bjorner et al. 1.10)",
               EXACT + "; same-chirotope + pattern-differs certificate",
               f"S equal ({s1.count} sign patterns); |R| = {len(r1)} vs {len(r2)}. Rankings "
               f"only under W1 (1-based): paper {one(APP_H2_RANKINGS['W1'])}, tool "
               f"{one(sorted(r1 - r2))}; only under W2: paper {one(APP_H2_RANKINGS['W2'])}, "
               f"tool {one(sorted(r2 - r1))}. Deviation: the coordinates are reconstructed "
               "(the paper shows the configurations as a figure); they reproduce its "
               f"exclusive rankings, but they are degenerate (some differences p_i - p_j are "
               f"parallel): {len(r1)} and {len(r2)} rankings, not the 20 of five points in "
               "general position", (art, res, fig), _status(ok))


@claim("cos-paper-set", "cosine")
def paper_set(ctx: Context) -> Row:
    """The committed ``certificates/paper`` files regenerate byte-identically."""
    import logitgeom_certificates
    from logitgeom.emit import dumps

    d = Path(logitgeom_certificates.__file__).parent / "paper"
    new = {k: dumps(v) for k, v in _paper().items()}
    old = {p.name: p.read_text(encoding="utf-8") for p in sorted(d.glob("*.json"))}
    same = sorted(k for k in new if old.get(k) == new[k])
    ok = bool(old) and same == sorted(new) == sorted(old)
    return Row("certificates/paper", f"{len(new)} committed certificates",
               "regenerated by logitgeom.emit, compared byte by byte",
               f"{len(same)}/{len(new)} byte-identical", (), _status(ok))
