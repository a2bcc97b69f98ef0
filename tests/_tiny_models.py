"""Tiny local models for the logitgeom.models tests, built once per session (no network).

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


# --------------------------------------------------------------------------- a model zoo
#: every word of the symmetry paper's real-model rows (logitgeom.reproduce._real_models)
PAPER_WORDS = ["fork", "knife", "plate", "cup", "glass", "car", "bus", "bicycle", "train",
               "red", "yellow", "blue", "orange", "green", "purple", *DAYS]

_RWKV_CONFIG = '''
from transformers import PretrainedConfig


class TinyRecurrentConfig(PretrainedConfig):
    model_type = "tiny_recurrent"

    def __init__(self, vocab_size=320, hidden_size=16, **kw):
        self.vocab_size, self.hidden_size = vocab_size, hidden_size
        super().__init__(**kw)
'''

_RWKV_MODEL = '''
import torch
from transformers import PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

from .configuration_tiny_recurrent import TinyRecurrentConfig


class TinyRecurrentForCausalLM(PreTrainedModel):
    """A stand-in for a model folder that ships its own code (like RWKV-7): an embedding, a
    decaying running mean (recurrent state) and an untied head."""

    config_class = TinyRecurrentConfig

    def __init__(self, config):
        super().__init__(config)
        self.emb = torch.nn.Embedding(config.vocab_size, config.hidden_size)
        self.mix = torch.nn.Linear(config.hidden_size, config.hidden_size)
        self.lm_head = torch.nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def _init_weights(self, module):
        pass

    def get_input_embeddings(self):
        return self.emb

    def get_output_embeddings(self):
        return self.lm_head

    def forward(self, input_ids=None, output_hidden_states=False, **kw):
        x = self.emb(input_ids)
        state, outs = torch.zeros_like(x[:, 0]), []
        for t in range(x.shape[1]):
            state = 0.5 * state + torch.tanh(self.mix(x[:, t]))
            outs.append(state)
        h = torch.stack(outs, dim=1)
        return CausalLMOutput(logits=self.lm_head(h),
                              hidden_states=(x, h) if output_hidden_states else None)
'''


@functools.cache
def paper_tokenizer_path() -> Path:
    """A byte-level BPE tokenizer in which every word of :data:`PAPER_WORDS` is one token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = ([f"Among three primary colors, {w} is a mix of {w} and {w}." for w in PAPER_WORDS]
              + [f"Today is {w}. Tomorrow is {w}." for w in PAPER_WORDS]) * 60
    trainer = trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"], show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    out = workdir() / "paper-tokenizer" / "tokenizer.json"
    out.parent.mkdir()
    tok.save(str(out))
    for w in PAPER_WORDS:
        assert len(tok.encode(" " + w).ids) == 1, w
    return out


def _save(model, folder: Path) -> Path:
    model.save_pretrained(str(folder))
    shutil.copy(paper_tokenizer_path(), folder / "tokenizer.json")
    return folder


@functools.cache
def model_zoo() -> Path:
    """One tiny folder per model of the symmetry paper's rows, each in its real layout:
    ``gpt-oss-20b/`` and ``gpt-oss-120b/`` (GptOss, mixture of experts), ``Mistral-7B-Instruct-
    v0.3/`` (Mistral), ``gpt2-xl/`` (GPT-2) and ``rwkv7-7.2B/`` (a folder that ships its own
    modelling code, as RWKV-7 does: loads only with trust_remote_code)."""
    import json

    import torch
    from transformers import (
        AutoModelForCausalLM,
        GPT2Config,
        GptOssConfig,
        MistralConfig,
    )

    os.environ.setdefault("HF_MODULES_CACHE", str(workdir() / "hf-modules"))
    V = _paper_vocab()
    zoo = workdir() / "zoo"
    zoo.mkdir()
    torch.manual_seed(0)
    oss = dict(vocab_size=V, hidden_size=D, intermediate_size=D, num_hidden_layers=2,
               num_attention_heads=2, num_key_value_heads=1, head_dim=8, num_local_experts=4,
               num_experts_per_tok=2, max_position_embeddings=64,
               layer_types=["sliding_attention", "full_attention"])
    for name in ("gpt-oss-20b", "gpt-oss-120b"):
        _save(AutoModelForCausalLM.from_config(GptOssConfig(**oss)), zoo / name)
    _save(AutoModelForCausalLM.from_config(MistralConfig(
        vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)),
        zoo / "Mistral-7B-Instruct-v0.3")
    _save(AutoModelForCausalLM.from_config(GPT2Config(
        vocab_size=V, n_embd=D, n_layer=2, n_head=2, n_positions=64, bos_token_id=0,
        eos_token_id=0)), zoo / "gpt2-xl")
    # the remote-code folder: its own configuration and modelling files, auto_map in config
    rw = zoo / "rwkv7-7.2B"
    rw.mkdir()
    (rw / "configuration_tiny_recurrent.py").write_text(_RWKV_CONFIG)
    (rw / "modeling_tiny_recurrent.py").write_text(_RWKV_MODEL)
    from safetensors.torch import save_file

    g = torch.Generator().manual_seed(1)
    save_file({"emb.weight": torch.randn(V, D, generator=g),
               "mix.weight": torch.randn(D, D, generator=g) / 4, "mix.bias": torch.zeros(D),
               "lm_head.weight": torch.randn(V, D, generator=g)}, str(rw / "model.safetensors"))
    (rw / "config.json").write_text(json.dumps({
        "model_type": "tiny_recurrent", "architectures": ["TinyRecurrentForCausalLM"],
        "vocab_size": V, "hidden_size": D,
        "auto_map": {"AutoConfig": "configuration_tiny_recurrent.TinyRecurrentConfig",
                     "AutoModelForCausalLM": "modeling_tiny_recurrent.TinyRecurrentForCausalLM"}}))
    shutil.copy(paper_tokenizer_path(), rw / "tokenizer.json")
    return zoo


def _paper_vocab() -> int:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(paper_tokenizer_path())).get_vocab_size()
