"""The papers' results (the cosine paper) as certificates: what ``logitgeom certify paper`` writes.

Every certificate is built from the exact data below by :mod:`logitgeom.emit` with the
exact LP fallback of :func:`logitgeom.emit.decide`, so regenerating the set is
byte-identical.  Labels are 0-based (the cosine paper's labels are 1-based).
"""

from __future__ import annotations

from pathlib import Path

from logitgeom import emit

__all__ = ["THM_3_4_W", "APP_C2_W", "THM_5_5_W1", "THM_5_5_W2", "APP_H2_W1", "APP_H2_W2",
           "APP_H2_RANKINGS", "GRID", "paper_certificates", "write_paper"]

_PROV = {"generator": "logitgeom.emit", "command": "logitgeom certify paper"}

#: Thm 3.4 / Fig. 1 style model: three labels in the plane; labels 0 and 1 get cos -1 / +1.
THM_3_4_W = [[2, 1], [1, 3], [-1, -2]]
#: App. C.2: a centred W (column sums 0) where cos(w_0, w_1) = 12/13 >= 9/10, yet some input
#: ranks label 0 first and label 1 last.
APP_C2_W = [[5, 1], [5, -1], [-10, 0]]
#: Thm 5.5: seven unembeddings at angles 0, pi/4, ..., 7 pi/4 (pi/4 * 6 omitted), length 5 in
#: the max norm; W2 shortens label 3 (1-based; label 2 here), the vector (0, 5), to (0, 2).
THM_5_5_W1 = [[5, 0], [4, 4], [0, 5], [-4, 4], [-5, 0], [-4, -4], [4, -4]]
THM_5_5_W2 = [[5, 0], [4, 4], [0, 2], [-4, 4], [-5, 0], [-4, -4], [4, -4]]
#: App. H.2 (Bjorner et al. 1999, Sec. 1.10): point configurations W = [1 | P].
APP_H2_W1 = [[1, "-4/5", 1], [1, "4/5", 1], [1, "11/20", "-1/2"], [1, -1, -1], [1, 1, -1]]
APP_H2_W2 = [[1, -1, 1], [1, 1, 1], [1, "7/20", "-1/2"], [1, "-4/5", -1], [1, "4/5", -1]]
#: The cosine paper's rankings 41325, 52314 (W1 only) and 14352, 25341 (W2 only), 0-based.
APP_H2_RANKINGS = {"W1": [(3, 0, 2, 1, 4), (4, 1, 2, 0, 3)],
                   "W2": [(0, 3, 2, 4, 1), (1, 4, 2, 3, 0)]}
#: Instances of the cosine paper's verification grid with n = 5 labels, d = 3: a generic matrix, one
#: with parallel rows (row 4 = 2 row 0), one with two identical rows (labels 1 and 3 tied).
GRID = {
    "a": [[2, -1, 0], [1, 3, -2], [-3, 1, 1], [0, -2, 3], [1, 2, 1]],
    "b": [[1, 2, -1], [-2, 1, 1], [0, -1, 2], [3, 0, 1], [2, 4, -2]],
    "c": [[1, 0, 2], [-1, 2, 1], [2, 1, -1], [-1, 2, 1], [0, -3, 1]],
}


def _thm_3_4() -> dict:
    W = THM_3_4_W
    parts = [emit.translation_certificate(W, 0, 1, t) for t in (-1, 1)]
    return emit.bundle_certificate(
        "translation-cosine", parts,
        "Thm 3.4: W, W' = W + 1 v'^T and W'' = W + 1 v''^T assign identical softmax "
        "probabilities to every input, yet cos(w'_0, w'_1) = -1 and cos(w''_0, w''_1) = +1.",
        provenance=_PROV)


def _app_c2() -> dict:
    part = emit.ranking_certificate(APP_C2_W, [0, 2, 1])
    return emit.bundle_certificate(
        "centred-cosine-ranking", [part],
        "App. C.2: in the centred W, cos(w_0, w_1) >= 9/10, yet some input makes label 0 the "
        "most likely and label 1 the least likely (high cosine does not mean high "
        "probabilities together).",
        parameters={"labels": [0, 1], "cosine_at_least": "9/10"}, provenance=_PROV)


def _thm_5_5() -> dict:
    W1, W2 = THM_5_5_W1, THM_5_5_W2
    parts = [emit.cosine_equal_certificate(W1, W2), _differs(W1, W2, (2,))]
    return emit.bundle_certificate(
        "cosine-not-ranking", parts,
        "Thm 5.5: C(W1) = C(W2) but R(W1) != R(W2): label 2 (label 3 in the paper) can be "
        "ranked first under W1 but never under W2.", provenance=_PROV)


def _differs(W1, W2, ranking) -> dict:
    return emit.pattern_differs_certificate(W1, W2, ranking, ranking=True)


def _app_h2() -> dict:
    W1, W2 = APP_H2_W1, APP_H2_W2
    parts = [emit.chirotope_certificate(W1, W2)]
    parts += [_differs(W1, W2, r) for r in APP_H2_RANKINGS["W1"]]
    parts += [_differs(W2, W1, r) for r in APP_H2_RANKINGS["W2"]]
    return emit.bundle_certificate(
        "sign-not-ranking", parts,
        "App. H.2: S(W1) = S(W2) (same chirotope) but R(W1) != R(W2): rankings 41325 and "
        "52314 (1-based) are realisable only under W1, 14352 and 25341 only under W2. Remark: "
        "the point sets are rebuilt (the paper draws them) and degenerate: some differences "
        "p_i - p_j are parallel, so each realises 14 rankings, not the 20 of five points in "
        "general position.",
        provenance=_PROV)


def _grid(name: str, W) -> dict[str, dict]:
    where = f"grid instance {name} (n = 5, d = 3)"
    s53 = emit.grid_certificate(W, "lemma-5.3", provenance=_PROV, statement=(
        f"Lemma 5.3 on {where}: S(C(W)) = S(W W^T) = S(W)."))
    t56 = emit.grid_certificate(W, "thm-5.6", provenance=_PROV, statement=(
        f"Thm 5.6 on {where}: S(C(BW)) = S(BW (BW)^T) = R(W)."))
    return {f"grid-5x3-{name}-lemma-5.3.json": s53, f"grid-5x3-{name}-thm-5.6.json": t56}


def paper_certificates(progress: bool | None = None) -> dict[str, dict]:
    """Every paper certificate, by file name (deterministic).

    Examples
    --------
    >>> sorted(paper_certificates())[0]  # doctest: +SKIP
    'app-c.2-centred-cosine.json'
    """
    from tqdm import tqdm

    jobs = [("thm-3.4-translation.json", _thm_3_4), ("app-c.2-centred-cosine.json", _app_c2),
            ("thm-5.5-cosine-ranking.json", _thm_5_5), ("app-h.2-sign-ranking.json", _app_h2)]
    jobs += [(f"grid-{n}", lambda n=n, W=W: _grid(n, W)) for n, W in GRID.items()]
    out: dict[str, dict] = {}
    import sys

    show = sys.stderr.isatty() if progress is None else progress
    for name, job in tqdm(jobs, desc="paper certificates", disable=not show):
        res = job()
        out.update(res if name.startswith("grid-") else {name: res})
    return dict(sorted(out.items()))


def write_paper(outdir: str | Path, progress: bool | None = None) -> list[Path]:
    """Write every paper certificate into ``outdir`` (each checked first); returns the paths.

    Raises
    ------
    EngineError
        A certificate the trusted checker rejects (an emitter bug; nothing is written for it).
    """
    from logitgeom._fsio import write_atomic
    from logitgeom.errors import EngineError
    from logitgeom_certificates.api import check

    d = Path(outdir)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, cert in paper_certificates(progress).items():
        v = check(cert)
        if not v.ok:  # pragma: no cover - would be an emitter bug
            raise EngineError(f"{name}: {v.failed_check} at {v.location}: {v.message}")
        p = d / name
        write_atomic(p, emit.dumps(cert))  # logitgeom._fsio: never a half-written file
        paths.append(p)
    return paths
