"""Context embeddings of a tiny random GPT-2 saved to a temp folder (offline)."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import _tiny_models as T  # noqa: E402

from engine.errors import InvalidInput  # noqa: E402
from engine.models import (  # noqa: E402
    context_embeddings,
    delta_circ,
    delta_etf,
    diagnose,
    double_centre,
    load_lm_head,
)


@pytest.fixture(scope="module")
def result():
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    return context_embeddings(T.tiny_lm(), T.DAYS, progress=False)


def test_shapes_and_probabilities(result):
    m = len(T.DAYS)
    assert result.H.shape == (T.D, m) and result.Z.shape == (m, m) == result.P.shape
    np.testing.assert_allclose(result.P.sum(axis=0), 1.0, atol=1e-12)
    assert np.all((result.mass > 0) & (result.mass < 1))
    assert result.prompts[2] == "Today is Wednesday. Tomorrow is"
    assert list(result.tokens.ids) == T.day_ids()


def test_logits_are_head_times_last_state(result):
    W = load_lm_head(T.tiny_lm(), rows=T.day_ids()).weight  # tied wte
    np.testing.assert_allclose(W @ result.H, result.Z, rtol=1e-5, atol=1e-5)


def test_reported_diagnostics_are_the_definitions(result):
    assert result.h_diagnostics.delta_circ == diagnose(result.H.T).delta_circ
    assert result.p_delta_circ == delta_circ(double_centre(result.P))
    assert result.p_delta_etf == delta_etf(double_centre(result.P))
    assert result.as_dict()["P_delta_circ"] == result.p_delta_circ


def test_rectangular_contexts_and_errors(tmp_path):
    r = context_embeddings(T.tiny_lm(), T.DAYS[:3], "On {TOKEN} we",
                           context_words=["Friday", "Sunday"], progress=False)
    assert r.P.shape == (3, 2) and r.p_delta_circ is None
    with pytest.raises(InvalidInput, match="no \\{TOKEN\\} placeholder"):
        context_embeddings(T.tiny_lm(), T.DAYS, "Today is")
    with pytest.raises(InvalidInput, match="model folder not found"):
        context_embeddings(tmp_path / "nope", T.DAYS)
    with pytest.raises(InvalidInput, match="not a single token"):
        context_embeddings(T.tiny_lm(), ["Zebrafish"], progress=False)


def test_tokenizer_of_another_model_is_a_shape_error(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "Today": 1, "is": 2, "Monday": 5000, "Tuesday": 5001}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    msg = f"token id 5001 is beyond the model's {T.vocab_size()} output rows"
    with pytest.raises(InvalidInput, match=msg):
        context_embeddings(T.tiny_lm(), ["Monday", "Tuesday"], "Today is {TOKEN}",
                           tokenizer=tmp_path, progress=False)
