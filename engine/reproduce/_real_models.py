"""The symmetry paper's real-model experiments (Sec. 5 and App. E), one row per figure and model.

Each row states the exact ``logitgeom inspect`` command, the model (name, size, where its
weights come from) and the delta value the paper prints for that panel (the reference).
Without the weights the row is "needs local weights".  With them, under
``reproduce --models DIR`` (a folder holding one ``save_pretrained`` folder per model, named
as in :data:`MODELS`), the row runs the same pipeline as ``inspect`` and compares: ours vs
the paper's, PASS within :data:`TOLERANCE`.

Only the panel-(a) values survive in our copy of the paper's text (the other panels' deltas
are not legible there); those rows measure and report without a reference.

Examples
--------
>>> [e.key for e in EXPERIMENTS][:2]
['fig3-utensils', 'fig4-weekdays']
>>> MODELS["gpt-oss-20b"].name
'GPT-OSS-20B'
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from logitgeom.reproduce._artifacts import Context
from logitgeom.reproduce.registry import Row, Status, claim

__all__ = ["EXPERIMENTS", "MODELS", "TOLERANCE", "Experiment", "ModelInfo", "COLOUR_CONTEXTS",
           "WEEKDAY_CONTEXTS"]

#: |ours - paper| up to which a measured delta counts as reproduced (the paper prints three
#: decimals; dtype and kernel differences move the third)
TOLERANCE = 0.02


@dataclass(frozen=True)
class ModelInfo:
    """A model of the paper: display name, folder name under ``--models DIR``, size."""

    name: str
    folder: str
    size: str
    source: str
    remote_code: bool = False


MODELS = {m.folder: m for m in (
    ModelInfo("GPT-OSS-20B", "gpt-oss-20b", "21B parameters (3.6B active, MoE); ~13 GB on disk "
              "(MXFP4 experts), ~42 GB as bfloat16 when run on a CPU", "openai/gpt-oss-20b"),
    ModelInfo("Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3",
              "7.2B parameters; ~14.5 GB (bfloat16)", "mistralai/Mistral-7B-Instruct-v0.3"),
    ModelInfo("RWKV7-7.2B", "rwkv7-7.2B", "7.2B parameters; ~14.4 GB (bfloat16); ships its own "
              "modelling code", "an RWKV-7 7.2B transformers folder", remote_code=True),
    ModelInfo("GPT-OSS-120B", "gpt-oss-120b", "117B parameters (5.1B active, MoE); ~65 GB on "
              "disk (MXFP4 experts), ~234 GB as bfloat16", "openai/gpt-oss-120b"),
    ModelInfo("GPT2-XL", "gpt2-xl", "1.5B parameters; ~6.4 GB (float32)",
              "openai-community/gpt2-xl"),
)}
_SEC5 = ("gpt-oss-20b", "Mistral-7B-Instruct-v0.3", "rwkv7-7.2B")
_APPE = ("gpt-oss-120b", "gpt2-xl")

UTENSILS = "fork,knife,plate,cup,glass"
TRANSPORT = "car,bus,bicycle,train"
WEEKDAYS = "Monday,Tuesday,Wednesday,Thursday,Friday,Saturday,Sunday"
COLOURS = "red,yellow,blue"
COLOUR_TEMPLATE = "Among three primary colors, {TOKEN1} is a mix of {TOKEN2} and"
#: App. E.2: the six (TOKEN1, TOKEN2) contexts, each with the colour that completes the mix
COLOUR_CONTEXTS = ("orange|red -> yellow; orange|yellow -> red; green|yellow -> blue; "
                   "green|blue -> yellow; purple|red -> blue; purple|blue -> red")
#: the 0/1 matrix Sec. 5.2 prints (row by row): Y^T Y of the six colour contexts
PRINTED_PATTERN = "100100 010001 001010 100100 001010 010001"
WEEKDAY_TEMPLATE = "Today is {TOKEN}. Tomorrow is"
_DAYS = WEEKDAYS.split(",")
WEEKDAY_CONTEXTS = "; ".join(f"{a} -> {b}" for a, b in zip(_DAYS, _DAYS[1:] + _DAYS[:1],
                                                              strict=True))


@dataclass(frozen=True)
class Experiment:
    """One figure of the paper: what is measured, on which tokens / prompts, for which models,
    and the printed values (model folder -> delta) that survive in the text."""

    key: str
    where: str
    what: str
    tokens: str
    group: str
    quantity: str                      # which delta of which Gram is compared
    models: tuple[str, ...]
    printed: tuple[tuple[str, float], ...] = ()
    template: str | None = None
    contexts: str | None = None


EXPERIMENTS = (
    Experiment("fig3-utensils", "Sec. 5.1, Figs. 2-3", "kitchen utensils: W W^T vs the simplex "
               "ETF", UTENSILS, "symmetric", "W:delta_etf", _SEC5, (("gpt-oss-20b", 0.205),)),
    Experiment("fig4-weekdays", "Sec. 5.1, Figs. 2, 4", "weekdays: W W^T vs the circulants",
               WEEKDAYS, "cyclic", "W:delta_circ", _SEC5, (("gpt-oss-20b", 0.202),)),
    Experiment("fig5-6-colour-prompts", "Sec. 5.2, Figs. 5-6", "permutation prompts (colour "
               "mixing): softmax(Z) and H^T H vs the predicted pattern", COLOURS, "symmetric",
               "H:delta_pattern", _SEC5, (), COLOUR_TEMPLATE, COLOUR_CONTEXTS),
    Experiment("fig7-8-weekday-prompts", "Sec. 5.2, Figs. 7-8", "cyclic-shift prompts: "
               "softmax(Z) and H^T H vs the circulants", WEEKDAYS, "cyclic", "H:delta_circ",
               _SEC5, (("gpt-oss-20b", 0.171),), WEEKDAY_TEMPLATE, WEEKDAY_CONTEXTS),
    Experiment("fig9-utensils", "App. E.1, Fig. 9", "kitchen utensils (additional models): "
               "W W^T vs the simplex ETF", UTENSILS, "symmetric", "W:delta_etf", _APPE,
               (("gpt-oss-120b", 0.180),)),
    Experiment("fig10-transport", "App. E.1, Fig. 10", "transport: W W^T vs the simplex ETF",
               TRANSPORT, "symmetric", "W:delta_etf", _SEC5, (("gpt-oss-20b", 0.204),)),
    Experiment("fig11-transport", "App. E.1, Fig. 11", "transport (additional models): W W^T "
               "vs the simplex ETF", TRANSPORT, "symmetric", "W:delta_etf", _APPE,
               (("gpt-oss-120b", 0.118),)),
    Experiment("fig12-weekdays", "App. E.1, Fig. 12", "weekdays (additional models): W W^T vs "
               "the circulants", WEEKDAYS, "cyclic", "W:delta_circ", _APPE,
               (("gpt-oss-120b", 0.413),)),
    Experiment("fig13-14-colour-prompts", "App. E.2, Figs. 13-14", "permutation prompts "
               "(additional models, incl. GPT2-XL): softmax(Z) and H^T H vs the predicted "
               "pattern", COLOURS, "symmetric", "H:delta_pattern", _APPE, (), COLOUR_TEMPLATE,
               COLOUR_CONTEXTS),
    Experiment("fig15-16-weekday-prompts", "App. E.2, Figs. 15-16", "cyclic-shift prompts "
               "(additional models): softmax(Z) and H^T H vs the circulants", WEEKDAYS,
               "cyclic", "H:delta_circ", _APPE, (("gpt-oss-120b", 0.222),), WEEKDAY_TEMPLATE,
               WEEKDAY_CONTEXTS),
)

_QUANTITY = {"W:delta_etf": "delta_ETF(W W^T)", "W:delta_circ": "delta_circ(W W^T)",
             "H:delta_circ": "delta_circ(H^T H)",
             "H:delta_pattern": "delta_target(H^T H) (distance to span{Y^T Y, J})"}


def command(e: Experiment, m: ModelInfo, models_dir: str = "MODELS") -> str:
    """The ``logitgeom inspect`` command of one row."""
    stem = f"{e.key}-{m.folder.lower()}"
    parts = ["logitgeom", "inspect", f"{models_dir}/{m.folder}", "--tokens", e.tokens,
             "--group", e.group]
    if e.template is not None:
        parts += ["--prompt", e.template, "--contexts", e.contexts]
    if m.remote_code:
        parts.append("--trust-remote-code")
    parts += ["-o", f"{stem}.json", "--plot", f"{stem}.pdf"]
    return shlex.join(parts)


def _options(ctx: Context) -> dict:
    return getattr(ctx, "model_options", None) or {}


def _measure(ctx: Context, e: Experiment, m: ModelInfo, folder: Path) -> tuple[float, dict, str]:
    from logitgeom.models.context import memory_plan, parse_contexts
    from logitgeom.models.report import inspect_model
    from logitgeom.models.tokens import parse_token_list

    opts = _options(ctx)
    if e.template is not None and str(opts.get("device", "cpu")).startswith("cpu"):
        plan = memory_plan(folder, opts.get("dtype"))
        if not plan.fits:
            raise MemoryError(plan.describe())
    rep = inspect_model(folder, parse_token_list(e.tokens), group=e.group, prompt=e.template,
                        contexts=None if e.contexts is None else parse_contexts(e.contexts),
                        progress=False, device=opts.get("device", "cpu"),
                        dtype=opts.get("dtype"),
                        trust_remote_code=bool(opts.get("trust_remote_code")))
    side, q = e.quantity.split(":")
    c = rep.context
    if side == "W":
        diag = rep.head_diagnostics
        value = diag.delta_etf if q == "delta_etf" else diag.delta_circ
    elif q == "delta_circ":
        value = c.h_diagnostics.delta_circ
    else:
        value = c.delta_target
    stem = f"{e.key}-{m.folder.lower()}"
    res = ctx.write_json(f"results/real-{stem}.json", rep.as_dict() | {
        "compared": {"quantity": _QUANTITY[e.quantity], "ours": value}})
    fig = f"figures/real-{stem}.png"
    from logitgeom.models.plots import draw_panels

    n = len(rep.panels())
    with ctx.figure(fig, f"{e.where} ({m.name}): {e.what}; heatmaps of the normalised Grams"
                    + (" and of softmax(Z) restricted to the candidates" if c else ""),
                    figsize=(2.3 * n, 2.6)) as f:
        draw_panels(f, rep.panels())
    extra = ""
    if c is not None and c.accuracy is not None:
        extra = (f"; {int(round(c.accuracy * len(c.prompts)))}/{len(c.prompts)} contexts put "
                 f"most probability on their target")
    return value, {"res": res, "fig": fig}, extra


def _row(ctx: Context, e: Experiment, m: ModelInfo) -> Row:
    printed = dict(e.printed).get(m.folder)
    ref = (f"paper: {_QUANTITY[e.quantity]} = {printed:.3f} ({e.where.split(', ')[-1]}, panel "
           f"{m.name})" if printed is not None else
           f"paper: {_QUANTITY[e.quantity]} for {m.name} not legible in our copy of the text")
    if e.contexts == COLOUR_CONTEXTS:
        ref += ("; template, six contexts and candidates as App. E.2 gives them; the 6 x 6 0/1 "
                f"pattern printed in Sec. 5.2 ({PRINTED_PATTERN}) is Y^T Y of these contexts, "
                "the predicted H^T H pattern")
    what = f"{e.where} ({e.what})"
    inst = f"{m.name}: {m.size}; weights from {m.source} (local only; nothing is downloaded)"
    cmd = command(e, m)
    models_dir = getattr(ctx, "models", None)
    folder = Path(models_dir) / m.folder if models_dir else None
    if folder is None or not folder.is_dir():
        where = (f" (no folder {m.folder}/ in {models_dir})" if models_dir else "")
        return Row(what, inst, f"needs local weights: `{cmd}` with MODELS a folder holding "
                   f"{m.folder}/ (config, safetensors, tokenizer.json){where}; or `logitgeom "
                   "reproduce --models MODELS` runs and compares it", ref + "; not run here",
                   (), Status.NEEDS_WEIGHTS, paper=printed)
    try:
        value, arts, extra = _measure(ctx, e, m, folder)
    except MemoryError as exc:
        return Row(what, inst, f"`{command(e, m, str(models_dir))}`",
                   f"{ref}; refused before loading: {exc}. The head-only rows of this model "
                   "memory-map the weights and run; use --device cuda or a larger machine",
                   (), Status.NEEDS_MEMORY, paper=printed)
    if printed is None:
        return Row(what, inst, f"`{command(e, m, str(models_dir))}`",
                   f"ours: {_QUANTITY[e.quantity]} = {value:.3f}{extra}; {ref}",
                   (arts["res"], arts["fig"]), Status.MEASURED, paper=None, ours=value)
    diff = abs(value - printed)
    return Row(what, inst, f"`{command(e, m, str(models_dir))}`; tolerance {TOLERANCE}",
               f"ours {value:.3f} vs paper {printed:.3f} (|diff| {diff:.3f}) for "
               f"{_QUANTITY[e.quantity]}{extra}", (arts["res"], arts["fig"]),
               Status.MEASURED if diff <= TOLERANCE else Status.FAIL, paper=printed, ours=value)


def _register() -> None:
    for e in EXPERIMENTS:
        for folder in e.models:
            m = MODELS[folder]
            printed = dict(e.printed).get(folder)
            desc = (f"{e.where}: {e.what}; {m.name}"
                    + (f" (paper: {printed:.3f})" if printed is not None else ""))
            claim(f"sym-{e.key}-{folder.lower()}", "symmetry", desc)(
                lambda ctx, e=e, m=m: _row(ctx, e, m))


_register()
