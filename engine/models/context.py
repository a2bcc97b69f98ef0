"""Context embeddings and next-token probabilities of a local causal LM (the symmetry paper,
Sec. 5.2).

For each word of a set the prompt template (``"Today is {TOKEN}. Tomorrow is"``) is filled
in, the model is run once (offline: ``local_files_only=True``), and the last-layer state
at the last position (the vector the LM head multiplies) becomes a column of ``H``
(d x n).  The logits of the set's tokens give ``Z`` (m x n, row i = token i, column j =
context j) and ``P = softmax(Z)`` column by column: the next-token distribution restricted
to the set and renormalised (``sigma(Z)`` of the layer-peeled model).  ``mass[j]`` is the
full-vocabulary probability the set receives in context j.

Diagnostics: ``delta_circ`` / ``delta_etf`` of the normalised Gram of the columns of H
(:func:`engine.models.diagnostics.diagnose` on ``H.T``), and of the square matrix ``P``
after double centring (:func:`engine.models.diagnostics.double_centre`, the analogue of
mean-centring vectors; it removes the constant ``J/m`` every probability matrix shares).
A distribution that shifts forward by one day gives a circulant P (delta_circ = 0); an
exchangeable one, ``P = a I + b J``, gives delta_etf = 0.

Needs ``torch`` and ``transformers`` (the ``models`` extra); imports them only when called.
Prompts are tokenised with the model folder's ``tokenizer.json`` (``tokenizers``; special
tokens such as BOS are added as its post-processor says), the same tokenizer that maps
the words to ids.

Examples
--------
>>> fill_template("Today is {TOKEN}. Tomorrow is", "Monday")
'Today is Monday. Tomorrow is'
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import InvalidInput
from engine.models.diagnostics import (
    GeometryDiagnostics,
    delta_circ,
    delta_etf,
    diagnose,
    double_centre,
)
from engine.models.tokens import TokenSet, load_tokenizer, resolve_tokens

__all__ = ["DEFAULT_TEMPLATE", "ContextResult", "fill_template", "context_embeddings"]

DEFAULT_TEMPLATE = "Today is {TOKEN}. Tomorrow is"
PLACEHOLDER = "{TOKEN}"


def fill_template(template: str, word: str) -> str:
    """Replace every ``{TOKEN}`` in ``template`` by ``word`` (other braces are left alone).

    Raises
    ------
    InvalidInput
        The template has no ``{TOKEN}``.

    Examples
    --------
    >>> fill_template("{TOKEN} then", "Monday")
    'Monday then'
    """
    if PLACEHOLDER not in template:
        raise InvalidInput(f"prompt template {template!r} has no {PLACEHOLDER} placeholder")
    return template.replace(PLACEHOLDER, word)


@dataclass(frozen=True)
class ContextResult:
    """Context embeddings, restricted next-token probabilities and their diagnostics.

    Attributes
    ----------
    tokens : TokenSet
        Candidate tokens (rows of Z and P).
    context_words : tuple of str
        Word filled in for each context (columns).
    prompts : tuple of str
    H : numpy.ndarray, shape (d, n)
        Last-layer states at the last position.
    Z : numpy.ndarray, shape (m, n)
        Logits of the candidate tokens.
    P : numpy.ndarray, shape (m, n)
        Column-wise softmax of Z.
    mass : numpy.ndarray, shape (n,)
        Full-vocabulary probability of the candidate set per context.
    h_diagnostics : GeometryDiagnostics
        Of the columns of H.
    p_delta_circ, p_delta_etf : float or None
        Of the double-centred P when it is square (n = m), else None.
    """

    tokens: TokenSet
    context_words: tuple[str, ...]
    prompts: tuple[str, ...]
    H: np.ndarray
    Z: np.ndarray
    P: np.ndarray
    mass: np.ndarray
    h_diagnostics: GeometryDiagnostics
    p_delta_circ: float | None
    p_delta_etf: float | None

    def as_dict(self) -> dict:
        return {
            "tokens": self.tokens.as_dict(),
            "context_words": list(self.context_words),
            "prompts": list(self.prompts),
            "H_gram": self.h_diagnostics.as_dict(),
            "P": self.P.tolist(),
            "set_mass": self.mass.tolist(),
            "P_delta_circ": self.p_delta_circ,
            "P_delta_etf": self.p_delta_etf,
        }


def _progress_enabled(progress: bool | None) -> bool:
    if progress is None:
        return sys.stderr.isatty()
    return bool(progress)


def context_embeddings(
    model_path: str | Path,
    words: Sequence[str] | TokenSet,
    template: str = DEFAULT_TEMPLATE,
    *,
    context_words: Sequence[str] | None = None,
    tokenizer: str | Path | None = None,
    space: str = "auto",
    group=None,
    progress: bool | None = None,
) -> ContextResult:
    """Run a local causal LM on the filled-in prompts and collect H, Z and P.

    Parameters
    ----------
    model_path : str or Path
        A local folder saved by ``save_pretrained`` (config + weights).
    words : sequence of str or TokenSet
        The candidate tokens (rows); by default also the words filled into the template.
    template : str
        Prompt with a ``{TOKEN}`` placeholder; do not end it with a space for tokenizers
        whose words carry a leading space (GPT-2, Llama).
    context_words : sequence of str, optional
        Words filled into the template (columns), when different from ``words``.
    tokenizer : str or Path, optional
        ``tokenizer.json`` or its folder; by default ``model_path``.
    space : {"auto", "leading", "none"}
        Spelling policy of :func:`engine.models.tokens.resolve_tokens`.
    group : optional
        Permutations of the contexts (or a GroupAction) for ``delta_group`` of the H Gram.
    progress : bool, optional
        Progress bar; by default on when stderr is a terminal.

    Returns
    -------
    ContextResult

    Raises
    ------
    InvalidInput
        Missing folder, torch/transformers absent, a template without ``{TOKEN}``, words that
        are not single tokens, token ids beyond the model's vocabulary.

    Examples
    --------
    >>> context_embeddings("/nonexistent/model", ["Monday"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: model folder not found: /nonexistent/model (logitgeom never ...
    """
    path = Path(model_path).expanduser()
    if not path.is_dir():
        raise InvalidInput(f"model folder not found: {path} (logitgeom never downloads; give a "
                           "local folder saved with save_pretrained)")
    ctx_words = list(words.words if isinstance(words, TokenSet) else words)
    if context_words is not None:
        ctx_words = list(context_words)
    if not ctx_words:
        raise InvalidInput("no context words given")
    prompts = [fill_template(template, w) for w in ctx_words]
    tok = load_tokenizer(tokenizer if tokenizer is not None else path)
    tset = words if isinstance(words, TokenSet) else resolve_tokens(words, tok, space=space)
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError as exc:
        raise InvalidInput("context embeddings need torch and transformers; install the "
                           "'models' extra") from exc
    from transformers.utils import logging as hf_logging

    show = _progress_enabled(progress)
    bars_were_on = hf_logging.is_progress_bar_enabled()
    if not show:
        hf_logging.disable_progress_bar()
    try:
        model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot load a causal LM from {path}: {exc}") from exc
    finally:
        if bars_were_on and not show:
            hf_logging.enable_progress_bar()
    model.eval()
    n_in = model.get_input_embeddings().weight.shape[0]
    out_emb = model.get_output_embeddings()
    n_out = out_emb.weight.shape[0] if out_emb is not None else n_in
    if max(tset.ids) >= n_out:
        raise InvalidInput(
            f"token id {max(tset.ids)} is beyond the model's {n_out} output rows; "
            "the tokenizer does not belong to this model"
        )
    ids = torch.as_tensor(tset.ids, dtype=torch.long)
    cols_h, cols_z, mass = [], [], []
    from tqdm.auto import tqdm

    with torch.no_grad():
        for prompt in tqdm(prompts, desc="contexts", disable=not show):
            enc = tok.encode(prompt)
            if not enc.ids:
                raise InvalidInput(f"prompt {prompt!r} encodes to no tokens")
            if max(enc.ids) >= n_in:
                raise InvalidInput(
                    f"prompt {prompt!r} has token id {max(enc.ids)} but the model embeds only "
                    f"{n_in} tokens; the tokenizer does not belong to this model"
                )
            inp = torch.as_tensor([enc.ids], dtype=torch.long)
            out = model(input_ids=inp, output_hidden_states=True)
            logits = out.logits[0, -1].to(torch.float64)
            cols_h.append(out.hidden_states[-1][0, -1].to(torch.float64).numpy().copy())
            full = torch.softmax(logits, dim=0)
            cols_z.append(logits[ids].numpy().copy())
            mass.append(float(full[ids].sum()))
    H = np.stack(cols_h, axis=1)
    Z = np.stack(cols_z, axis=1)
    E = np.exp(Z - Z.max(axis=0, keepdims=True))
    P = E / E.sum(axis=0, keepdims=True)
    square = P.shape[0] == P.shape[1] and P.shape[0] >= 2
    return ContextResult(
        tokens=tset,
        context_words=tuple(ctx_words),
        prompts=tuple(prompts),
        H=H,
        Z=Z,
        P=P,
        mass=np.array(mass),
        h_diagnostics=diagnose(H.T, group),
        p_delta_circ=delta_circ(double_centre(P)) if square else None,
        p_delta_etf=delta_etf(double_centre(P)) if square else None,
    )
