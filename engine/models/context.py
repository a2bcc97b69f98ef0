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
(:func:`logitgeom.models.diagnostics.diagnose` on ``H.T``), and of the square matrix ``P``
after double centring (:func:`logitgeom.models.diagnostics.double_centre`, the analogue of
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

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.models.diagnostics import (
    GeometryDiagnostics,
    delta_circ,
    delta_etf,
    delta_target,
    diagnose,
    double_centre,
)
from logitgeom.models.tokens import TokenSet, load_tokenizer, resolve_tokens

__all__ = ["DEFAULT_TEMPLATE", "ContextResult", "MemoryPlan", "PromptContext", "fill_template",
           "check_run_options", "context_embeddings", "memory_plan", "parse_contexts",
           "target_matrix", "template_slots"]

DEFAULT_TEMPLATE = "Today is {TOKEN}. Tomorrow is"
PLACEHOLDER = "{TOKEN}"
_SLOT = re.compile(r"\{TOKEN(\d*)\}")
#: torch dtypes accepted by ``dtype=`` / ``--dtype`` (bytes per parameter)
DTYPES = {"float32": 4, "bfloat16": 2, "float16": 2}
#: torch devices accepted by ``device=`` / ``--device``
_DEVICE = re.compile(r"cpu|mps|cuda(:\d+)?")


def check_run_options(device: object = "cpu", dtype: object = None) -> None:
    """Refuse a torch device or dtype a model run could not use, before any work (also on
    the paths that run no model: an option is honoured or refused, never ignored).

    Raises
    ------
    InvalidInput
        ``device`` is not cpu, cuda, cuda:N or mps; ``dtype`` is not None or one of
        :data:`DTYPES`.

    Examples
    --------
    >>> check_run_options("cuda:1", "bfloat16")
    >>> check_run_options("bogus")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: --device 'bogus': choose cpu, cuda, cuda:N or mps
    """
    if not isinstance(device, str) or not _DEVICE.fullmatch(device):
        raise InvalidInput(f"--device {device!r}: choose cpu, cuda, cuda:N or mps"[:200])
    if dtype is not None and (not isinstance(dtype, str) or dtype not in DTYPES):
        raise InvalidInput(f"--dtype {dtype!r}: use one of {', '.join(DTYPES)}"[:200])


def template_slots(template: str) -> int:
    """The number of word slots of a prompt template: ``{TOKEN}`` (one slot) or ``{TOKEN1}``,
    ``{TOKEN2}``, ... numbered from 1 without gaps (``{TOKEN}`` is ``{TOKEN1}``).

    Raises
    ------
    InvalidInput
        No slot, or numbered slots with a gap (``{TOKEN1}`` and ``{TOKEN3}`` only).

    Examples
    --------
    >>> template_slots("Among three primary colors, {TOKEN1} is a mix of {TOKEN2} and")
    2
    """
    nums = {int(n) if n else 1 for n in _SLOT.findall(template)}
    if not nums:
        raise InvalidInput(f"prompt template {template!r} has no {PLACEHOLDER} (or {{TOKEN1}}, "
                           "{TOKEN2}, ...) placeholder")
    if nums != set(range(1, max(nums) + 1)):
        raise InvalidInput(f"prompt template {template!r} numbers its slots "
                           f"{sorted(nums)}; use {{TOKEN1}}..{{TOKEN{max(nums)}}} without gaps")
    return max(nums)


def fill_template(template: str, words) -> str:
    """Fill the slots of ``template``: ``{TOKEN}`` / ``{TOKEN1}`` with the first word,
    ``{TOKEN2}`` with the second, ...; other braces are left alone.

    Parameters
    ----------
    template : str
    words : str or sequence of str
        One word per slot (a single string fills a one-slot template).

    Raises
    ------
    InvalidInput
        The template has no slot, or the number of words differs from the number of slots.

    Examples
    --------
    >>> fill_template("{TOKEN} then", "Monday")
    'Monday then'
    >>> fill_template("{TOKEN1} is a mix of {TOKEN2} and", ("orange", "red"))
    'orange is a mix of red and'
    """
    k = template_slots(template)
    ws = (words,) if isinstance(words, str) else tuple(words)
    if len(ws) != k:
        raise InvalidInput(f"prompt template {template!r} has {k} slot(s) but the context "
                           f"{list(ws)} gives {len(ws)} word(s)")
    return _SLOT.sub(lambda mt: ws[int(mt.group(1) or 1) - 1], template)


@dataclass(frozen=True)
class PromptContext:
    """One context: the words filled into the template's slots, and optionally the candidate
    token that is the right continuation (a column of the target matrix Y)."""

    words: tuple[str, ...]
    target: str | None = None

    @property
    def label(self) -> str:
        """``"orange/red"`` (axis label of the context)."""
        return "/".join(self.words)


def _parse_context(text: str, where: str) -> PromptContext:
    body, arrow, target = text.partition("->")
    words = tuple(w.strip() for w in body.split("|"))
    if any(not w for w in words):
        raise InvalidInput(f"{where}: context {text.strip()!r} has an empty word; separate the "
                           "slot words by '|' (e.g. 'orange | red -> yellow')")
    tgt = target.strip() if arrow else None
    if arrow and not tgt:
        raise InvalidInput(f"{where}: context {text.strip()!r} has '->' but no target word")
    return PromptContext(words, tgt)


def parse_contexts(spec) -> tuple[PromptContext, ...]:
    """Contexts from a file, an inline list, or Python values.

    A file holds one context per line: the slot words separated by ``|``, optionally
    ``-> TARGET`` (the candidate that continues it); blank lines and ``#`` comments are
    skipped.  Inline (``--contexts`` on the command line), contexts are separated by ``;``.
    From Python, give a sequence of strings / tuples of words / :class:`PromptContext`.

    Raises
    ------
    InvalidInput
        No contexts, an empty word, a '->' without a target, contexts with different numbers
        of words, or the same context twice.

    Examples
    --------
    >>> [c.words for c in parse_contexts("orange|red -> yellow; green|blue -> yellow")]
    [('orange', 'red'), ('green', 'blue')]
    >>> parse_contexts([("purple", "red")])[0].target is None
    True
    """
    if isinstance(spec, str | Path) and Path(spec).expanduser().is_file():
        path = Path(spec).expanduser()
        out = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = line.split("#", 1)[0]
            if line.strip():
                out.append(_parse_context(line, f"{path}:{n}"))
    elif isinstance(spec, str):
        out = [_parse_context(t, "--contexts") for t in spec.split(";") if t.strip()]
    else:
        out = []
        for c in spec:
            if isinstance(c, PromptContext):
                out.append(c)
            elif isinstance(c, str):
                out.append(PromptContext((c,)))
            else:
                out.append(PromptContext(tuple(str(w) for w in c)))
    if not out:
        raise InvalidInput("no contexts given")
    if len({len(c.words) for c in out}) != 1:
        raise InvalidInput("every context must give the same number of words (one per slot); "
                           f"got {sorted({len(c.words) for c in out})}")
    seen = [c.words for c in out]
    dup = sorted({c for c in seen if seen.count(c) > 1})
    if dup:
        raise InvalidInput(f"context {list(dup[0])} is listed twice")
    return tuple(out)


def target_matrix(contexts, candidates) -> np.ndarray | None:
    """The one-hot target Y (m candidates x n contexts) of contexts that name their target;
    None when no context does.

    Raises
    ------
    InvalidInput
        Some contexts name a target and others do not, or a target is not a candidate.

    Examples
    --------
    >>> ctx = parse_contexts("orange|red -> yellow; orange|yellow -> red")
    >>> target_matrix(ctx, ["red", "yellow", "blue"]).tolist()
    [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
    """
    tg = [c.target for c in contexts]
    if all(t is None for t in tg):
        return None
    if any(t is None for t in tg):
        raise InvalidInput("either every context names its target ('-> WORD') or none does")
    cand = list(candidates)
    Y = np.zeros((len(cand), len(tg)))
    for j, t in enumerate(tg):
        if t not in cand:
            raise InvalidInput(f"target {t!r} of context {j + 1} is not one of the candidate "
                               f"tokens {cand}")
        Y[cand.index(t), j] = 1.0
    return Y


@dataclass(frozen=True)
class MemoryPlan:
    """What running a model folder needs: the estimated bytes of its weights in the dtype
    they will be loaded in, and the memory available (``MemAvailable`` of /proc/meminfo)."""

    weights_bytes: int
    available_bytes: int | None
    dtype: str

    @property
    def fits(self) -> bool:
        """Weights plus 20 % working memory fit the available memory (True when unknown)."""
        return self.available_bytes is None or 1.2 * self.weights_bytes <= self.available_bytes

    def describe(self) -> str:
        gb = 1 << 30
        avail = ("unknown" if self.available_bytes is None
                 else f"{self.available_bytes / gb:.1f} GiB")
        return (f"weights ~{self.weights_bytes / gb:.1f} GiB as {self.dtype} (+20 % working "
                f"memory), available {avail}")


def _available_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


_ST_BYTES = {"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
             "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


def memory_plan(model_path: str | Path, dtype: str | None = None) -> MemoryPlan:
    """Estimate the memory a context run of a model folder needs, from the safetensors headers
    (or the checkpoint files' sizes) without reading any weight.

    Packed 4-bit blocks (``*_blocks`` uint8 tensors, e.g. MXFP4 experts) count two parameters
    per byte, loaded as bfloat16 unless ``dtype`` says otherwise.

    Examples
    --------
    >>> import os, tempfile
    >>> memory_plan(tempfile.mkdtemp()).weights_bytes
    0
    """
    from logitgeom.models.safetensors_io import SafetensorsFile

    path = Path(model_path).expanduser()
    per = DTYPES.get(dtype or "", None)
    total, stored = 0, set()
    for f in sorted(path.glob("*.safetensors")):
        st = SafetensorsFile(f)
        for name in st.names():
            n = int(np.prod(st.shape(name), dtype=np.int64))
            dt = st.dtype(name)
            if dt == "U8" and name.endswith("_blocks"):
                total += 2 * n * (per or 2)
                stored.add("BF16")
            else:
                total += n * (per or _ST_BYTES.get(dt, 4))
                stored.add(dt)
    if total == 0:
        for f in list(path.glob("*.bin")) + list(path.glob("*.pt")) + list(path.glob("*.pth")):
            total += f.stat().st_size if per is None else f.stat().st_size // 4 * per
    name = dtype or ("/".join(sorted(stored)).lower() if stored else "as stored")
    return MemoryPlan(int(total), _available_bytes(), name)


@dataclass(frozen=True)
class ContextResult:
    """Context embeddings, restricted next-token probabilities and their diagnostics.

    Attributes
    ----------
    tokens : TokenSet
        Candidate tokens (rows of Z and P).
    context_words : tuple of str
        Label of each context (columns): its slot words joined by ``/``.
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
    template : str
    contexts : tuple of PromptContext
    Y : numpy.ndarray or None
        The one-hot target (m x n) when the contexts name their targets.
    target_prob : numpy.ndarray or None
        ``P[target_j, j]`` per context.
    accuracy : float or None
        Fraction of contexts whose most probable candidate is the target.
    delta_target : float or None
        :func:`logitgeom.models.diagnostics.delta_target` of the H Gram against ``Y``.
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
    template: str = DEFAULT_TEMPLATE
    contexts: tuple[PromptContext, ...] = ()
    Y: np.ndarray | None = None
    target_prob: np.ndarray | None = None
    accuracy: float | None = None
    delta_target: float | None = None

    def as_dict(self) -> dict:
        return {
            "tokens": self.tokens.as_dict(),
            "template": self.template,
            "contexts": [{"words": list(c.words), "target": c.target} for c in self.contexts],
            "context_words": list(self.context_words),
            "prompts": list(self.prompts),
            "H_gram": self.h_diagnostics.as_dict(),
            "P": self.P.tolist(),
            "set_mass": self.mass.tolist(),
            "P_delta_circ": self.p_delta_circ,
            "P_delta_etf": self.p_delta_etf,
            "Y": None if self.Y is None else self.Y.tolist(),
            "target_prob": None if self.target_prob is None else self.target_prob.tolist(),
            "accuracy": self.accuracy,
            "H_delta_target": self.delta_target,
        }


def _progress_enabled(progress: bool | None) -> bool:
    if progress is None:
        return sys.stderr.isatty()
    return bool(progress)


def _load_causal_lm(path: Path, *, dtype, trust_remote_code: bool, show: bool):
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    kwargs = {"local_files_only": True, "trust_remote_code": bool(trust_remote_code)}
    if dtype is not None:
        kwargs["dtype"] = getattr(torch, dtype)
    bars_were_on = hf_logging.is_progress_bar_enabled()
    verbosity = hf_logging.get_verbosity()
    if not show:
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    try:
        return AutoModelForCausalLM.from_pretrained(str(path), **kwargs)
    except (OSError, ValueError, ImportError, KeyError) as exc:
        msg = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        if not trust_remote_code and ("trust_remote_code" in str(exc)
                                      or "custom code" in str(exc)):
            raise InvalidInput(f"the model in {path} ships its own code (e.g. RWKV-7); read it, "
                               "then pass --trust-remote-code (trust_remote_code=True) to "
                               "run it") from None
        raise InvalidInput(f"cannot load a causal LM from {path}: {msg}") from None
    finally:
        if not show:
            hf_logging.set_verbosity(verbosity)
            if bars_were_on:
                hf_logging.enable_progress_bar()


def context_embeddings(
    model_path: str | Path,
    words: Sequence[str] | TokenSet,
    template: str = DEFAULT_TEMPLATE,
    *,
    contexts=None,
    context_words: Sequence[str] | None = None,
    tokenizer: str | Path | None = None,
    space: str = "auto",
    group=None,
    progress: bool | None = None,
    device: str = "cpu",
    dtype: str | None = None,
    trust_remote_code: bool = False,
    check_memory: bool = True,
) -> ContextResult:
    """Run a local causal LM on the filled-in prompts and collect H, Z and P.

    Parameters
    ----------
    model_path : str or Path
        A local folder saved by ``save_pretrained`` (config + weights).
    words : sequence of str or TokenSet
        The candidate tokens (rows); by default also the words filled into a one-slot template.
    template : str
        Prompt with slots ``{TOKEN}`` or ``{TOKEN1}``, ``{TOKEN2}``, ...; do not end it with a
        space for tokenizers whose words carry a leading space (GPT-2, Llama).
    contexts : optional
        The contexts (columns), separate from the candidates: anything
        :func:`parse_contexts` reads (a file, ``"orange|red -> yellow; ..."``, a list of
        word tuples).  Contexts naming a target give the target matrix ``Y``.
    context_words : sequence of str, optional
        One word per context for a one-slot template (older spelling of ``contexts``).
    tokenizer : str or Path, optional
        ``tokenizer.json`` or its folder; by default ``model_path``.
    space : {"auto", "leading", "none"}
        Spelling policy of :func:`logitgeom.models.tokens.resolve_tokens`.
    group : optional
        Permutations of the contexts (or a GroupAction) for ``delta_group`` of the H Gram.
    progress : bool, optional
        Progress bar; by default on when stderr is a terminal.
    device : str
        Torch device to run on (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``).
    dtype : {"float32", "bfloat16", "float16"}, optional
        Load the weights in this dtype (default: as the folder stores them).
    trust_remote_code : bool
        Allow a model folder that ships its own modelling code (RWKV-7); off by default.
    check_memory : bool
        On CPU, refuse before loading when the weights (estimated by :func:`memory_plan`)
        exceed the available memory.

    Returns
    -------
    ContextResult

    Raises
    ------
    InvalidInput
        Missing folder, torch/transformers absent, a template without slots, contexts that
        do not fill it, words that are not single tokens, token ids beyond the model's
        vocabulary, remote code without ``trust_remote_code``.
    TooLarge
        The weights do not fit the memory (the estimate is in the message).

    Examples
    --------
    >>> context_embeddings("/nonexistent/model", ["Monday"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: model folder not found: /nonexistent/model (logitgeom never ...
    """
    path = Path(model_path).expanduser()
    if not path.is_dir():
        raise InvalidInput(f"model folder not found: {path} (logitgeom never downloads; give a "
                           "local folder saved with save_pretrained)")
    check_run_options(device, dtype)
    if contexts is not None and context_words is not None:
        raise InvalidInput("give contexts or context_words, not both")
    if contexts is not None:
        ctxs = parse_contexts(contexts)
    else:
        base = context_words if context_words is not None else (
            words.words if isinstance(words, TokenSet) else words)
        ctxs = parse_contexts([(str(w),) for w in base]) if list(base) else ()
    if not ctxs:
        raise InvalidInput("no context words given")
    prompts = [fill_template(template, c.words) for c in ctxs]
    tok = load_tokenizer(tokenizer if tokenizer is not None else path)
    tset = words if isinstance(words, TokenSet) else resolve_tokens(words, tok, space=space)
    Y = target_matrix(ctxs, tset.words)
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as exc:
        raise InvalidInput("context embeddings need torch and transformers; install the "
                           "'models' extra") from exc
    if check_memory and str(device).startswith("cpu"):
        plan = memory_plan(path, dtype)
        if not plan.fits:
            raise TooLarge(f"running {path.name} on the CPU needs more memory than this machine "
                           f"has: {plan.describe()}. The head-only commands (no --prompt) "
                           "memory-map the weights and still work; for contexts use --device "
                           "cuda, a smaller --dtype, or a larger machine")
    show = _progress_enabled(progress)
    model = _load_causal_lm(path, dtype=dtype, trust_remote_code=trust_remote_code, show=show)
    try:
        model.to(device)
    except (RuntimeError, AssertionError, ValueError) as exc:
        raise InvalidInput(f"--device {device!r}: {str(exc).splitlines()[0][:200]}") from None
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
            inp = torch.as_tensor([enc.ids], dtype=torch.long, device=device)
            out = model(input_ids=inp, output_hidden_states=True)
            logits = out.logits[0, -1].to("cpu", torch.float64)
            cols_h.append(out.hidden_states[-1][0, -1].to("cpu", torch.float64).numpy().copy())
            full = torch.softmax(logits, dim=0)
            cols_z.append(logits[ids].numpy().copy())
            mass.append(float(full[ids].sum()))
    H = np.stack(cols_h, axis=1)
    Z = np.stack(cols_z, axis=1)
    E = np.exp(Z - Z.max(axis=0, keepdims=True))
    P = E / E.sum(axis=0, keepdims=True)
    square = P.shape[0] == P.shape[1] and P.shape[0] >= 2
    tprob = acc = dtarget = None
    h_diag = diagnose(H.T, group)
    if Y is not None:
        dtarget = delta_target(h_diag.gram, Y)
        t = Y.argmax(axis=0)
        tprob = P[t, np.arange(P.shape[1])]
        acc = float(np.mean(P.argmax(axis=0) == t))
    return ContextResult(
        tokens=tset,
        context_words=tuple(c.label for c in ctxs),
        prompts=tuple(prompts),
        H=H,
        Z=Z,
        P=P,
        mass=np.array(mass),
        h_diagnostics=h_diag,
        p_delta_circ=delta_circ(double_centre(P)) if square else None,
        p_delta_etf=delta_etf(double_centre(P)) if square else None,
        template=template,
        contexts=ctxs,
        Y=Y,
        target_prob=tprob,
        accuracy=acc,
        delta_target=dtarget,
    )
