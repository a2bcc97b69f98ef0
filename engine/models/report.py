"""One call for ``logitgeom inspect``: load, resolve tokens, diagnose, audit, summarise.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> p = os.path.join(tempfile.mkdtemp(), "W.npy")
>>> t = 2 * np.pi * np.arange(5) / 5
>>> np.save(p, np.c_[np.cos(t), np.sin(t), np.zeros(5)])
>>> r = inspect_model(p, ["0", "1", "2", "3", "4"])
>>> r.head_diagnostics.delta_circ < 1e-12
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logitgeom.errors import InvalidInput
from logitgeom.models.audit import CosineAudit, cosine_audit
from logitgeom.models.context import ContextResult, context_embeddings
from logitgeom.models.diagnostics import GeometryDiagnostics, diagnose
from logitgeom.models.loaders import LMHead, load_lm_head
from logitgeom.models.plots import Panel, save_heatmaps
from logitgeom.models.tokens import TokenSet, load_tokenizer, resolve_tokens

__all__ = ["InspectReport", "find_tokenizer", "group_from_spec", "inspect_model"]


def find_tokenizer(model: str | Path, tokenizer: str | Path | None = None) -> Path | None:
    """The tokenizer.json to use: the one given, else next to / inside the model path.

    Examples
    --------
    >>> find_tokenizer("/nonexistent/model.safetensors") is None
    True
    """
    if tokenizer is not None:
        p = Path(tokenizer)
        return p / "tokenizer.json" if p.is_dir() else p
    m = Path(model)
    for cand in (m / "tokenizer.json", m.parent / "tokenizer.json"):
        if cand.is_file():
            return cand
    return None


def group_from_spec(spec, m: int):
    """A label group for ``delta_group``: ``"cyclic"``, ``"symmetric"``, a JSON file holding a
    list of permutations, or a group / permutation list passed through.

    Examples
    --------
    >>> group_from_spec("cyclic", 4).row_generators
    ((1, 2, 3, 0),)
    """
    if spec is None or not isinstance(spec, str | Path):
        return spec
    name = str(spec).lower()
    if name in {"cyclic", "symmetric"}:
        from logitgeom import symmetry

        return symmetry.cyclic(m) if name == "cyclic" else symmetry.symmetric(m)
    p = Path(spec)
    if p.suffix.lower() == ".json" and p.is_file():
        import json

        try:
            perms = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{p} is not valid JSON: {exc}") from exc
        if not isinstance(perms, list):
            raise InvalidInput(f"{p} must hold a list of permutations (lists of 0..{m - 1})")
        return perms
    raise InvalidInput(f"group {spec!r}: use 'cyclic', 'symmetric' or a .json file holding a "
                       "list of permutations")


@dataclass(frozen=True)
class InspectReport:
    """Everything ``logitgeom inspect`` prints, saves as JSON and plots."""

    head: LMHead
    tokens: TokenSet | None
    labels: tuple[str, ...]
    head_diagnostics: GeometryDiagnostics
    audit: CosineAudit
    context: ContextResult | None
    #: the approximate-symmetry figures of the model's own contexts (docs/beyond-symmetry.md,
    #: section 2.5): a StabilityReport, or None (no --prompt, no --group, or --contexts)
    approx_symmetry: Any = None

    def as_dict(self) -> dict:
        h = self.head
        return {
            "model": {"source": h.source, "tensor": h.tensor, "tied": h.tied,
                      "bias_tensor": h.bias_tensor, "vocab_size": h.vocab_size, "d": h.d},
            "tokens": None if self.tokens is None else self.tokens.as_dict(),
            "token_ids": list(h.rows or ()),
            "labels": list(self.labels),
            "unembedding_gram": self.head_diagnostics.as_dict(),
            "cosine_audit": self.audit.as_dict(),
            "context": None if self.context is None else self.context.as_dict(),
            "approximate_symmetry": (None if self.approx_symmetry is None
                                     else self.approx_symmetry.as_dict()),
        }

    def summary(self) -> list[str]:
        """Human-readable lines (the CLI prints them)."""
        h, d = self.head, self.head_diagnostics
        out = [
            f"model: {h.source}  head: {h.tensor} ({h.vocab_size} x {h.d})"
            + ("  [tied to the input embedding]" if h.tied else "")
            + (f"  bias: {h.bias_tensor}" if h.bias_tensor else ""),
        ]
        if self.tokens is not None:
            out.append("tokens: " + ", ".join(
                f"{w}={i} ({s!r})" for w, i, s in
                zip(self.tokens.words, self.tokens.ids, self.tokens.spellings, strict=True)))
        else:
            out.append("token ids: " + ", ".join(self.labels))
        out.append(f"unembedding Gram W W^T: delta_ETF = {d.delta_etf:.4f}  "
                   f"delta_circ = {d.delta_circ:.4f}"
                   + ("" if d.delta_group is None else f"  delta_group = {d.delta_group:.4f}"))
        if self.context is not None:
            c = self.context
            out.append(f"context Gram H^T H ({len(c.prompts)} prompts, e.g. {c.prompts[0]!r}): "
                       f"delta_ETF = {c.h_diagnostics.delta_etf:.4f}  "
                       f"delta_circ = {c.h_diagnostics.delta_circ:.4f}"
                       + ("" if c.h_diagnostics.delta_group is None
                          else f"  delta_group = {c.h_diagnostics.delta_group:.4f}"))
            if c.Y is not None:
                out.append(f"targets: {int(round(c.accuracy * len(c.prompts)))}/"
                           f"{len(c.prompts)} contexts put most probability on their target "
                           f"(mean target probability {float(c.target_prob.mean()):.3f}); "
                           f"H^T H vs the predicted pattern span{{Y^T Y, J}}: delta_target = "
                           f"{c.delta_target:.4f}")
            if c.p_delta_circ is not None:
                out.append(f"next-token probabilities P (restricted to the set, double-centred): "
                           f"delta_ETF = {c.p_delta_etf:.4f}  delta_circ = {c.p_delta_circ:.4f}"
                           f"  (set mass {min(c.mass):.3g}..{max(c.mass):.3g})")
        if self.approx_symmetry is not None:  # Y = P of the model's contexts, near its average
            out += [line.replace("approximate symmetry:", "approximate symmetry of P (layer-"
                                 "peeled, E_W, E_H = the head's and contexts' norms):", 1)
                    for line in self.approx_symmetry.lines()]
        a = self.audit
        i, j = a.pair
        out.append(f"cosine audit: cos({a.labels[i]}, {a.labels[j]}) = {a.cosine[i, j]:.4f}; "
                   "translated heads with identical probabilities give cos = -1 and +1 "
                   f"(certificate {'verified' if a.verified else 'REJECTED'})")
        if a.projection is not None:
            p = a.projection
            arg = [a.labels[k] for k, ok in enumerate(p.argmaxable) if ok]
            out.append(f"in a {p.projection.dim}-D projection of the contexts (rounded "
                       f"principal directions; not the full head, see audit-argmax): "
                       f"{len(arg)}/{len(a.labels)} tokens argmaxable in the projection "
                       f"({', '.join(arg)}); "
                       f"{len(p.rankings)} rankings realisable"
                       + ("" if p.complete is None else
                          f" ({'certified complete' if p.complete else 'not certified'})"))
        return out

    def panels(self) -> list[Panel]:
        """Heatmap panels: W W^T, then H^T H and P when contexts were run."""
        L = self.labels
        out = [Panel(f"unembedding Gram $W W^T$\nδETF={self.head_diagnostics.delta_etf:.3f}, "
                     f"δcirc={self.head_diagnostics.delta_circ:.3f}",
                     self.head_diagnostics.gram, L, L)]
        if self.context is not None:
            c = self.context
            cl = c.context_words
            out.append(Panel(f"context Gram $H^T H$\nδETF={c.h_diagnostics.delta_etf:.3f}, "
                             f"δcirc={c.h_diagnostics.delta_circ:.3f}",
                             c.h_diagnostics.gram, cl, cl))
            title = "next-token probabilities P (rows: next token)"
            if c.p_delta_circ is not None:
                title += f"\nδETF={c.p_delta_etf:.3f}, δcirc={c.p_delta_circ:.3f}"
            out.append(Panel(title, c.P, L, cl, kind="prob"))
        return out

    def save_plot(self, path: str | Path) -> None:
        """Save the heatmaps (see :mod:`logitgeom.models.plots`)."""
        save_heatmaps(self.panels(), path)


def inspect_model(
    model: str | Path,
    words: Sequence[str],
    *,
    tensor: str | None = None,
    bias: str | bool | None = "auto",
    tokenizer: str | Path | None = None,
    space: str = "auto",
    prompt: str | None = None,
    dim: int | None = None,
    pair: tuple[int, int] = (0, 1),
    transpose: bool = False,
    group=None,
    progress: bool | None = None,
    contexts=None,
    device: str = "cpu",
    dtype: str | None = None,
    trust_remote_code: bool = False,
) -> InspectReport:
    """Load the head rows of a token set and compute every diagnostic of ``logitgeom inspect``.

    Parameters
    ----------
    model : str or Path
        Weight file or model folder (see :func:`logitgeom.models.loaders.load_lm_head`).
    words : sequence of str
        Words (resolved with the tokenizer) or, without a tokenizer, integer token ids.
    tensor, bias, transpose
        Passed to :func:`~logitgeom.models.loaders.load_lm_head`.
    tokenizer : str or Path, optional
        ``tokenizer.json``; by default the one in / next to ``model``.
    space : {"auto", "leading", "none"}
        Spelling policy (:func:`~logitgeom.models.tokens.resolve_tokens`).
    prompt : str, optional
        Template with ``{TOKEN}`` (or ``{TOKEN1}``, ``{TOKEN2}``, ...): run the model (a
        transformers folder) on it.
    contexts : optional
        The contexts filled into ``prompt``, separate from ``words`` (see
        :func:`logitgeom.models.context.parse_contexts`); by default the words themselves.
    dim : int, optional
        Projection dimension of the exact ranking audit.
    pair : (int, int)
        Positions (in ``words``) of the two tokens of the translation audit.
    group : optional
        ``"cyclic"``, ``"symmetric"``, a .json list of permutations, a permutation list or a
        GroupAction acting on the tokens (and on the contexts): adds ``delta_group``.
    progress : bool, optional
    device, dtype, trust_remote_code
        Passed to :func:`~logitgeom.models.context.context_embeddings` (context runs only; the
        head is always read memory-mapped from disk).

    Returns
    -------
    InspectReport

    Raises
    ------
    InvalidInput
        Any bad input (see the functions named above); words that are not integers when no
        tokenizer is available.
    """
    from logitgeom.models.context import check_run_options

    check_run_options(device, dtype)  # refused also when no --prompt run would use them
    words = list(words)
    if not Path(model).expanduser().exists():
        raise InvalidInput(f"model file or folder not found: {model} (logitgeom never "
                           "downloads; give a local path)")
    tok_path = find_tokenizer(model, tokenizer)
    tset = None
    if tok_path is not None:
        tset = resolve_tokens(words, load_tokenizer(tok_path), space=space)
        ids = list(tset.ids)
    else:
        try:
            ids = [int(w) for w in words]
        except ValueError:
            raise InvalidInput(
                f"no tokenizer.json in or next to {model}; give --tokenizer PATH, or give token "
                "ids (integers) instead of words"
            ) from None
    head = load_lm_head(model, tensor=tensor, bias=bias, rows=ids, transpose=transpose)
    grp = group_from_spec(group, len(ids))
    labels = tuple(words)
    context = None
    if contexts is not None and prompt is None:
        raise InvalidInput("--contexts needs --prompt (the template they fill)")
    if prompt is not None:
        if tset is None:
            raise InvalidInput("--prompt needs a tokenizer.json (to encode the prompts)")
        ctx_group = grp if contexts is None else None  # the group acts on the candidates
        context = context_embeddings(model, tset, prompt, contexts=contexts, tokenizer=tok_path,
                                     group=ctx_group, progress=progress, device=device,
                                     dtype=dtype, trust_remote_code=trust_remote_code)
    approx = None
    if context is not None and grp is not None and contexts is None:
        from logitgeom.convex.stability import model_stability

        approx = model_stability(context.P, head.weight, context.H, grp)
    return InspectReport(
        approx_symmetry=approx,
        head=head,
        tokens=tset,
        labels=labels,
        head_diagnostics=diagnose(head.weight, grp),
        audit=cosine_audit(head.weight, labels, pair=pair, bias=head.bias, dim=dim,
                           progress=progress),
        context=context,
    )
