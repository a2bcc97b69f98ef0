"""Context embeddings of a tiny random GPT-2 saved to a temp folder (offline)."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import _tiny_models as T  # noqa: E402

from logitgeom.errors import InvalidInput  # noqa: E402
from logitgeom.models import (  # noqa: E402
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
    with pytest.raises(InvalidInput, match="has no \\{TOKEN\\}"):
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


def test_multi_slot_template_with_contexts_separate_from_candidates():
    from logitgeom.models.context import fill_template, parse_contexts, template_slots

    tpl = "On {TOKEN1} and {TOKEN2} we"
    assert template_slots(tpl) == 2
    assert fill_template(tpl, ("Monday", "Friday")) == "On Monday and Friday we"
    r = context_embeddings(T.tiny_lm(), T.DAYS[:3], tpl,
                           contexts="Monday|Friday -> Tuesday; Sunday|Friday -> Monday",
                           progress=False)
    assert r.prompts == ("On Monday and Friday we", "On Sunday and Friday we")
    assert r.context_words == ("Monday/Friday", "Sunday/Friday")
    assert r.Y.tolist() == [[0, 1], [1, 0], [0, 0]]
    t = r.Y.argmax(axis=0)
    np.testing.assert_allclose(r.target_prob, r.P[t, [0, 1]])
    assert r.accuracy in (0.0, 0.5, 1.0) and r.delta_target is not None
    d = r.as_dict()
    assert d["contexts"][0] == {"words": ["Monday", "Friday"], "target": "Tuesday"}
    assert d["template"] == tpl
    # the same from a file, with comments and blank lines
    f = T.workdir() / "contexts.txt"
    f.write_text("# pairs\nMonday | Friday -> Tuesday\n\nSunday|Friday -> Monday\n")
    assert [c.words for c in parse_contexts(f)] == [("Monday", "Friday"), ("Sunday", "Friday")]


@pytest.mark.parametrize("spec, msg", [
    ("Monday", "1 word"),                            # two slots, one word
    ("Monday|Friday; Sunday", "same number of words"),
    ("Monday|Friday -> Caturday", "not one of the candidate"),
    ("Monday|Friday -> Tuesday; Sunday|Friday", "every context names its target"),
    ("Monday|Friday; Monday|Friday", "listed twice"),
    ("Monday||Friday", "empty word"),
])
def test_bad_contexts_are_one_clear_error(spec, msg):
    with pytest.raises(InvalidInput, match=msg):
        context_embeddings(T.tiny_lm(), T.DAYS[:3], "On {TOKEN1} and {TOKEN2} we",
                           contexts=spec, progress=False)


def test_gaps_in_slot_numbers_and_bad_options():
    from logitgeom.models.context import template_slots

    with pytest.raises(InvalidInput, match="without gaps"):
        template_slots("{TOKEN1} and {TOKEN3}")
    with pytest.raises(InvalidInput, match="--dtype"):
        context_embeddings(T.tiny_lm(), T.DAYS, dtype="float8", progress=False)
    with pytest.raises(InvalidInput, match="--device"):
        context_embeddings(T.tiny_lm(), T.DAYS, device="nosuchdevice", progress=False)


def test_dtype_and_memory_plan():
    from logitgeom.models.context import memory_plan

    r = context_embeddings(T.tiny_lm(), T.DAYS, dtype="bfloat16", progress=False)
    assert r.P.shape == (7, 7)
    plan = memory_plan(T.tiny_lm(), "float32")
    n = sum(p.numel() for p in __import__("transformers").AutoModelForCausalLM
            .from_pretrained(str(T.tiny_lm())).parameters())
    assert plan.weights_bytes >= 4 * n and plan.fits
    assert "GiB" in plan.describe()
