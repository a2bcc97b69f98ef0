"""Tiny local models for the engine.models tests, built once per session (no network).

* a byte-level BPE ``tokenizer.json`` trained on a few sentences about weekdays, so each
  " Weekday" is one token while e.g. "Wednesday" (no space) and "Zebrafish" are several;
* planted LM heads in ``.safetensors`` whose weekday rows are an exact circulant
  configuration, a simplex ETF, or random;
* a randomly initialised 2-layer GPT-2 (hidden 16) saved with ``save_pretrained``.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
D = 16


@functools.cache
def workdir() -> Path:
    p = Path(tempfile.mkdtemp(prefix="logitgeom-models-"))
    atexit.register(shutil.rmtree, p, ignore_errors=True)
    return p


@functools.cache
def tokenizer_path() -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    nxt = DAYS[1:] + DAYS[:1]
    corpus = [f"Today is {a}. Tomorrow is {b}." for a, b in zip(DAYS, nxt, strict=True)] * 50
    trainer = trainers.BpeTrainer(
        vocab_size=320, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"], show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    out = workdir() / "tokenizer" / "tokenizer.json"
    out.parent.mkdir()
    tok.save(str(out))
    return out


def day_ids() -> list[int]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_path()))
    ids = [tok.encode(" " + d).ids for d in DAYS]
    assert all(len(i) == 1 for i in ids), ids
    return [i[0] for i in ids]


def vocab_size() -> int:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(tokenizer_path())).get_vocab_size()


def random_orthogonal(d: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def planted_rows(kind: str, m: int = 7, d: int = D, seed: int = 0) -> np.ndarray:
    """m rows in R^d: 'circulant' (Fourier configuration), 'etf' (simplex) or 'random'."""
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.standard_normal((m, d))
    if kind == "circulant":
        k = np.arange(m)
        cols = []
        for f, a in zip(range(1, (m - 1) // 2 + 1), (1.0, 0.6, 0.3), strict=False):
            cols += [a * np.cos(2 * np.pi * f * k / m), a * np.sin(2 * np.pi * f * k / m)]
        base = np.stack(cols, axis=1)
    elif kind == "etf":
        base = np.eye(m) - 1.0 / m
    else:
        raise ValueError(kind)
    pad = np.zeros((m, d))
    pad[:, : base.shape[1]] = base
    return 3.0 * pad @ random_orthogonal(d, seed + 1) + rng.standard_normal(d)


@functools.cache
def planted_head(kind: str) -> Path:
    """A safetensors file with ``lm_head.weight`` (vocab x 16) and ``lm_head.bias``."""
    from safetensors.numpy import save_file

    V = vocab_size()
    W = np.random.default_rng(7).standard_normal((V, D)).astype(np.float64)
    W[day_ids()] = planted_rows(kind)
    b = np.linspace(-1, 1, V)
    out = workdir() / f"head_{kind}.safetensors"
    save_file({"lm_head.weight": W, "lm_head.bias": b,
               "model.embed_tokens.weight": W[::-1].copy()}, str(out))
    return out


@functools.cache
def tiny_lm() -> Path:
    """A random 2-layer GPT-2 (hidden 16) plus the tokenizer, saved to one folder."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=vocab_size(), n_embd=D, n_layer=2, n_head=2, n_positions=64,
                     bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(cfg)
    out = workdir() / "tiny-gpt2"
    model.save_pretrained(str(out))
    shutil.copy(tokenizer_path(), out / "tokenizer.json")
    return out
