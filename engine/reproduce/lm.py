"""A small decoder-only transformer LM, actually trained, then inspected like a real model.

The symmetry paper measures delta_circ / delta_ETF on open LLMs (Sec. 5).  Their weights are
not on this machine, so this module trains a language model whose corpus has the paper's two
kinds of structure, and runs the same ``inspect`` pipeline on it
(:func:`logitgeom.models.report.inspect_model` on a ``save_pretrained`` folder with a
``tokenizer.json``, exactly as for a downloaded model):

* cyclic: ``today is <day> . tomorrow is <day + k> .`` with the offset k in the
  proportions :data:`DAY_OFFSETS` (next day most often); ``after <month> comes <month + k> .``
  with k in the proportions :data:`MONTH_OFFSETS`;
* symmetric (an unordered set): ``mix <a> and <b> gives <c> .`` over the colours
  {red, yellow, blue}; ``{a, b}`` is unordered (both orders occur equally often), the next
  token is the third colour with probability 0.8 and each of a, b with 0.1.

The model is a GPT-2 architecture from ``transformers`` (2 layers, width 32, 2 heads, an
untied output projection without bias, no dropout), trained from scratch with AdamW on the
corpus (full batch, float32, one thread, ``torch.use_deterministic_algorithms``),
seeds :data:`SEED` (corpus and initialisation).  The corpus's next-token distributions (exact
proportions, so exactly cyclic / exchangeable) restricted to each token set give the
target ``Y`` of the layer-peeled program; its optimum
for the budgets the trained model ends with (``E_W = ||W_set||_F^2``, ``E_H = ||H||_F^2``) is
the prediction the trained Grams are compared with: delta_circ of ``W W^T`` and ``H^T H``
for the cyclic sets (the optimum's are 0, Thm 1), delta_ETF of ``W W^T`` for the colours
(0 at the optimum, Thms 2-3), each also at initialisation.

Examples
--------
>>> run = train_lm(steps=20)                   # doctest: +SKIP
>>> run.final_loss < run.initial_loss          # doctest: +SKIP
True
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["DAYS", "MONTHS", "COLOURS", "SEED", "TrainedLM", "corpus", "train_lm",
           "true_targets"]

SEED = 0
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
COLOURS = ("red", "yellow", "blue")
#: P(tomorrow = day + k), k = 1, 2, 3
DAY_OFFSETS = (0.7, 0.2, 0.1)
#: P(next = month + k), k = 1, 2
MONTH_OFFSETS = (0.75, 0.25)
#: P(third colour), P(each of the two named)
COLOUR_P = (0.8, 0.1)
_WORDS = ("<bos>", "today", "is", "tomorrow", "after", "comes", "mix", "and", "gives", ".",
          *DAYS, *MONTHS, *COLOURS)
DAY_TEMPLATE = "today is {TOKEN} . tomorrow is"
MONTH_TEMPLATE = "after {TOKEN} comes"
COLOUR_TEMPLATE = "mix {TOKEN1} and {TOKEN2} gives"


def corpus(per_context: int = 20, seed: int = SEED) -> list[str]:
    """The training sentences: every context ``per_context`` times, its continuations in the
    exact proportions of the target distribution, in an order shuffled by ``seed``.

    Examples
    --------
    >>> len(corpus()), sum(s.startswith("today is Monday . tomorrow is Tuesday") for s in corpus())
    (500, 14)
    """
    def split(ps):
        n = [round(p * per_context) for p in ps]
        if sum(n) != per_context or any(abs(k - p * per_context) > 1e-9 for k, p in zip(n, ps,
                                                                                       strict=True)):
            raise InvalidInput(f"per_context={per_context} does not split {ps} exactly")
        return n

    out = []
    for j in range(7):
        for k, c in enumerate(split(DAY_OFFSETS), 1):
            out += [f"today is {DAYS[j]} . tomorrow is {DAYS[(j + k) % 7]} ."] * c
    for j in range(12):
        for k, c in enumerate(split(MONTH_OFFSETS), 1):
            out += [f"after {MONTHS[j]} comes {MONTHS[(j + k) % 12]} ."] * c
    third, each = split((COLOUR_P[0], COLOUR_P[1], COLOUR_P[1]))[:2]
    for a in range(3):
        for b in range(3):
            if a != b:
                for nxt, c in ((3 - a - b, third), (a, each), (b, each)):
                    out += [f"mix {COLOURS[a]} and {COLOURS[b]} gives {COLOURS[nxt]} ."] * c
    order = np.random.default_rng(seed).permutation(len(out))
    return [out[i] for i in order]


def true_targets() -> dict[str, tuple[tuple[str, ...], str, str, np.ndarray]]:
    """Per token set: (candidates, template, contexts, Y) with Y the corpus's true next-token
    distribution restricted to the set (columns: contexts)."""
    Yd = np.zeros((7, 7))
    for j in range(7):
        for k, p in enumerate(DAY_OFFSETS, 1):
            Yd[(j + k) % 7, j] = p
    Ym = np.zeros((12, 12))
    for j in range(12):
        for k, p in enumerate(MONTH_OFFSETS, 1):
            Ym[(j + k) % 12, j] = p
    pairs = [(a, b) for a in range(3) for b in range(3) if a != b]
    Yc = np.zeros((3, len(pairs)))
    for j, (a, b) in enumerate(pairs):
        Yc[3 - a - b, j], Yc[a, j], Yc[b, j] = COLOUR_P[0], COLOUR_P[1], COLOUR_P[1]
    return {
        "weekdays": (DAYS, DAY_TEMPLATE, "; ".join(DAYS), Yd),
        "months": (MONTHS, MONTH_TEMPLATE, "; ".join(MONTHS), Ym),
        "colours": (COLOURS, COLOUR_TEMPLATE,
                    "; ".join(f"{COLOURS[a]}|{COLOURS[b]}" for a, b in pairs), Yc),
    }


@dataclass(frozen=True)
class TrainedLM:
    """A trained run: the saved folder, the losses, the settings, and per token set the
    inspect report's numbers next to the layer-peeled prediction."""

    folder: Path
    initial_loss: float
    final_loss: float
    settings: dict[str, Any]
    sets: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "initial_loss": self.initial_loss,
                "final_loss": self.final_loss, "sets": self.sets}


@contextlib.contextmanager
def _deterministic_torch():
    import torch

    threads = torch.get_num_threads()
    was = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield torch
    finally:
        torch.use_deterministic_algorithms(was)
        torch.set_num_threads(threads)


def _tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(_WORDS)}, unk_token="."))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    from tokenizers import processors

    tok.post_processor = processors.TemplateProcessing(single="<bos> $A",
                                                       special_tokens=[("<bos>", 0)])
    tok.save(str(folder / "tokenizer.json"))


def _build(seed: int, width: int, layers: int):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(_WORDS), n_positions=16, n_embd=width, n_layer=layers,
                     n_head=2, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                     tie_word_embeddings=False, bos_token_id=0, eos_token_id=9)
    cfg._attn_implementation = "eager"
    return GPT2LMHeadModel(cfg)


def train_lm(*, steps: int = 1500, lr: float = 1e-2, weight_decay: float = 0.01,
             width: int = 32, layers: int = 2, per_context: int = 20,
             seed: int = SEED, out: str | Path | None = None) -> TrainedLM:
    """Train the model on :func:`corpus`, save it with its tokenizer, inspect its token sets.

    Parameters
    ----------
    steps : int
        Full-batch AdamW steps (the batch is the whole corpus: every distinct sentence once,
        weighted by how often it was sampled).
    lr, weight_decay : float
    width, layers : int
        GPT-2 width and depth.
    per_context : int
        Sentences per context in :func:`corpus` (the proportions must split it exactly).
    seed : int
        Corpus and initialisation seed.
    out : path, optional
        Folder to save the model in (default: a temporary folder, removed afterwards).

    Returns
    -------
    TrainedLM

    Raises
    ------
    InvalidInput
        A non-positive step count, width or corpus size.
    """
    if steps < 1 or width < 2 or layers < 1 or per_context < 1:
        raise InvalidInput(f"steps, width, layers, per_context must be positive; got {steps}, "
                           f"{width}, {layers}, {per_context}")
    with contextlib.ExitStack() as stack:
        torch = stack.enter_context(_deterministic_torch())
        folder = Path(out) if out is not None else Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="logitgeom-lm-")))
        folder.mkdir(parents=True, exist_ok=True)
        index = {w: i for i, w in enumerate(_WORDS)}
        # full batch over the sampled corpus = each distinct sentence weighted by its count
        # (the same loss and gradient, computed once per distinct sentence)
        counts = Counter(corpus(per_context, seed))
        distinct = sorted(counts)
        sents = [[0] + [index[w] for w in s.split()] for s in distinct]
        L = max(len(s) for s in sents)
        ids = torch.full((len(sents), L), index["."], dtype=torch.long)
        mask = torch.zeros((len(sents), L - 1))
        for r, s in enumerate(sents):
            ids[r, : len(s)] = torch.as_tensor(s)
            mask[r, : len(s) - 1] = float(counts[distinct[r]])
        model = _build(seed, width, layers)
        init = _snapshot(model, folder / "init")
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=lr * 0.05)

        def loss_fn() -> torch.Tensor:
            logits = model(input_ids=ids).logits[:, :-1]
            nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                    ids[:, 1:].reshape(-1), reduction="none")
            return (nll * mask.reshape(-1)).sum() / mask.sum()

        model.train()
        with torch.no_grad():
            first = float(loss_fn())
        for _ in range(steps):
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            last = float(loss_fn())
        model.save_pretrained(str(folder / "trained"))
        _tokenizer(folder / "trained")
        settings = {"architecture": f"GPT-2 (transformers), {layers} layers, width {width}, "
                    "2 heads, untied head without bias, no dropout",
                    "steps": steps, "lr": lr, "weight_decay": weight_decay,
                    "optimizer": "AdamW, cosine-decayed learning rate, full batch, float32, "
                                 "one thread, torch.use_deterministic_algorithms",
                    "corpus_sentences": sum(counts.values()), "per_context": per_context,
                    "distinct_sentences": len(distinct), "seed": seed,
                    "day_offsets": DAY_OFFSETS, "month_offsets": MONTH_OFFSETS,
                    "colour_p": COLOUR_P}
        sets = {name: _inspect_set(folder / "trained", init, name, spec)
                for name, spec in true_targets().items()}
    return TrainedLM(folder, first, last, settings, sets)


def _snapshot(model, folder: Path) -> Path:
    model.save_pretrained(str(folder))
    _tokenizer(folder)
    return folder


def _rel(A, B) -> float:
    return float(np.linalg.norm(np.asarray(A) - np.asarray(B)) / np.linalg.norm(B))


def _inspect_set(trained: Path, init: Path, name: str, spec) -> dict[str, Any]:
    from logitgeom.convex import LayerPeeled
    from logitgeom.models.diagnostics import delta_circ, delta_etf, normalized_gram
    from logitgeom.models.report import inspect_model

    words, template, contexts, Y = spec
    group = "symmetric" if name == "colours" else "cyclic"
    out: dict[str, Any] = {"tokens": list(words), "template": template, "Y": Y}
    for tag, folder in (("init", init), ("trained", trained)):
        rep = inspect_model(folder, list(words), space="none", prompt=template,
                            contexts=contexts, progress=False,
                            group=group if name != "colours" else None)
        c = rep.context
        W, H = rep.head.weight, c.H
        GW, GH = normalized_gram(W), normalized_gram(H.T)
        row = {"W_delta_etf": delta_etf(GW), "W_delta_circ": delta_circ(GW),
               "H_delta_circ": delta_circ(GH) if name != "colours" else None,
               "H_delta_target": None, "P_max_abs_error": float(np.abs(c.P - Y).max()),
               "set_mass_min": float(c.mass.min())}
        if name == "colours":
            from logitgeom.models.diagnostics import delta_target

            hard = (Y == Y.max(axis=0)).astype(float)
            row["H_delta_target"] = delta_target(GH, hard)
        if tag == "trained":
            E_W, E_H = float((W ** 2).sum()), float((H ** 2).sum())
            sol = LayerPeeled(Y, E_W, E_H).solve("auto" if name != "colours" else "etf")
            row.update({"E_W": E_W, "E_H": E_H,
                        "dist_WWt_to_prediction": _rel(GW, normalized_gram_from_gram(sol.WWt)),
                        "dist_HtH_to_prediction": _rel(GH, normalized_gram_from_gram(sol.HtH)),
                        "prediction_W_delta_circ": delta_circ(sol.WWt),
                        "prediction_W_delta_etf": delta_etf(sol.WWt),
                        "prediction_method": sol.method, "W_gram": GW, "H_gram": GH,
                        "prediction_W_gram": normalized_gram_from_gram(sol.WWt)})
            out["P"] = c.P
        out[tag] = row
    return out


def normalized_gram_from_gram(G) -> np.ndarray:
    """The normalised Gram (mean-centred vectors, mean norm 1) of vectors given by their Gram.

    Examples
    --------
    >>> X = np.array([[1.0, 0], [0, 2], [1, 1]])
    >>> from logitgeom.models.diagnostics import normalized_gram
    >>> bool(np.allclose(normalized_gram_from_gram(X @ X.T), normalized_gram(X)))
    True
    """
    G = np.asarray(G, dtype=float)
    n = G.shape[0]
    C = np.eye(n) - np.ones((n, n)) / n
    Gc = C @ G @ C
    s = np.mean(np.sqrt(np.clip(np.diag(Gc), 0, None)))
    return Gc / s ** 2


def _json_ready(run: TrainedLM) -> dict[str, Any]:
    return json.loads(json.dumps(run.to_json(), default=lambda o: np.asarray(o).tolist()))


#: what each token set's row reports: (label, quantity keys, the optimum's value)
_REPORTED = {"weekdays": ("weekdays (cyclic, m = n = 7)", ("W_delta_circ", "H_delta_circ")),
             "months": ("months (cyclic, m = n = 12)", ("W_delta_circ", "H_delta_circ")),
             "colours": ("colours (S_3 on an unordered pair, m = 3, n = 6)",
                         ("W_delta_etf", "H_delta_target"))}
_NAMES = {"W_delta_circ": "delta_circ(W W^T)", "H_delta_circ": "delta_circ(H^T H)",
          "W_delta_etf": "delta_ETF(W W^T)", "H_delta_target": "delta_target(H^T H)"}
_TEX = {"W_delta_circ": r"$\delta_{\mathrm{circ}}$", "H_delta_circ": r"$\delta_{\mathrm{circ}}$",
        "W_delta_etf": r"$\delta_{\mathrm{ETF}}$", "H_delta_target": r"$\delta_{\mathrm{target}}$"}
#: the trained model must reproduce the corpus's next-token distributions this closely
FIT_TOLERANCE = 0.01


def _lm_row(ctx):
    """A small decoder-only transformer LM trained on a synthetic corpus with cyclic and
    symmetric structure, inspected like a real model."""
    from logitgeom.reproduce.registry import needs_extra

    skipped = needs_extra("Beyond the papers: symmetry transfer in a transformer LM trained "
                          "here (Thms 1-3 predictions, the paper's Sec. 5 pipeline)",
                          ("torch", "transformers", "tokenizers"), "models")
    if skipped is not None:
        return skipped
    from logitgeom.reproduce import _plots
    from logitgeom.reproduce.registry import Row, Status

    run = train_lm()
    s = run.settings
    data = _json_ready(run)
    res = ctx.write_json("results/trained-lm.json", data)
    parts, ok = [], True
    mats, titles, names = [], [], []
    for name, (label, keys) in _REPORTED.items():
        st = run.sets[name]
        t, i = st["trained"], st["init"]
        ok &= t["P_max_abs_error"] <= FIT_TOLERANCE
        vals = []
        for k in keys:
            ok &= t[k] < i[k]
            vals.append(f"{_NAMES[k]} {t[k]:.3f} (at init {i[k]:.3f}; optimum 0)")
        parts.append(f"{label}: " + ", ".join(vals) + f"; dist(W W^T, optimum's) "
                     f"{t['dist_WWt_to_prediction']:.3f}")
        words = [w[:3] for w in st["tokens"]]
        mats += [t["W_gram"], t["H_gram"]]
        k0, k1 = keys
        titles += [f"{name}, $WW^T$\n{_TEX[k0]} = {t[k0]:.2f}",
                   f"{name}, $H^TH$\n{_TEX[k1]} = {t[k1]:.2f}"]
        ctx_names = words if name != "colours" else [
            f"{a[0]}{b[0]}" for a in COLOURS for b in COLOURS if a != b]
        names += [(words, words), (ctx_names, ctx_names)]
    fig = "figures/trained-lm.png"
    with ctx.figure(fig, "A small transformer LM trained on a synthetic corpus: normalised "
                    "Grams of its unembedding rows W W^T and of its context embeddings H^T H "
                    "for the weekday, month and colour sets (contexts of the colours: the "
                    "ordered pair named, e.g. ry = 'mix red and yellow gives'); the "
                    "layer-peeled optimum for the same targets is exactly circulant (weekdays, "
                    "months) and a simplex ETF (colours).", figsize=(3.3, 6.0)) as f:
        _plots.heatmaps(f, mats, titles, ncols=2, names=names, first_full_width=False)
    return Row(
        "Beyond the papers: symmetry transfer in a transformer LM trained here (Thms 1-3 "
        "predictions, the paper's Sec. 5 pipeline)",
        f"{s['architecture']}; corpus of {s['corpus_sentences']} sentences ('today is <day> . "
        f"tomorrow is <day+k> .' k in 1..3 with {list(s['day_offsets'])}, 'after <month> "
        f"comes <month+k> .' with {list(s['month_offsets'])}, 'mix <a> and <b> gives <c> .' "
        f"the third colour with {s['colour_p'][0]}); AdamW {s['steps']} steps, lr {s['lr']}, "
        f"weight decay {s['weight_decay']}, seed {s['seed']}",
        "torch on CPU (one thread, deterministic algorithms); the trained folder is inspected "
        "with the inspect pipeline (multi-slot prompts, contexts); compared with the "
        "layer-peeled optimum for the corpus targets at the model's own budgets",
        f"loss {run.initial_loss:.3f} -> {run.final_loss:.3f}; next-token probabilities "
        f"match the corpus within {FIT_TOLERANCE}; " + "; ".join(parts) + ". Measured, not "
        "proven: training moves every delta towards the prediction; a real LM is not "
        "budget-constrained like the layer-peeled program, so the deltas stay above 0, as in "
        "the paper's Sec. 5",
        (res, fig), Status.MEASURED if ok else Status.FAIL)


def _register() -> None:
    from logitgeom.reproduce.registry import claim

    claim("sym-trained-lm", "beyond")(_lm_row)  # the paper trains no model: ours


_register()
