"""logitgeom.models loaders and tokens: every source format, head names, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")

import _tiny_models as T  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

from logitgeom.errors import InvalidInput  # noqa: E402
from logitgeom.models import (  # noqa: E402
    list_tensors,
    load_lm_head,
    load_tokenizer,
    parse_token_list,
    resolve_tokens,
)


@pytest.fixture(scope="module")
def W():
    return np.random.default_rng(1).standard_normal((11, 4)).astype(np.float32)


def test_safetensors_prefers_untied_head_and_reads_bias():
    h = load_lm_head(T.planted_head("random"), rows=T.day_ids())
    assert h.tensor == "lm_head.weight" and not h.tied
    assert h.bias_tensor == "lm_head.bias" and h.bias.shape == (7,)
    assert h.weight.shape == (7, T.D) and h.weight.dtype == np.float64
    np.testing.assert_array_equal(h.weight, T.planted_rows("random"))
    h2 = load_lm_head(T.planted_head("random"), tensor="model.embed_tokens.weight", bias=False)
    assert h2.tied and h2.bias is None and h2.weight.shape == (T.vocab_size(), T.D)


def test_tied_head_in_a_saved_transformers_folder():
    pytest.importorskip("transformers")
    h = load_lm_head(T.tiny_lm(), rows=[0, 5])
    assert h.tensor == "transformer.wte.weight" and h.tied and h.bias is None


def test_shards_with_index(tmp_path, W):
    save_file({"lm_head.weight": W[:, :]}, str(tmp_path / "model-00002-of-00002.safetensors"))
    save_file({"model.norm.weight": np.ones(4, np.float32)},
              str(tmp_path / "model-00001-of-00002.safetensors"))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "lm_head.weight": "model-00002-of-00002.safetensors",
        "model.norm.weight": "model-00001-of-00002.safetensors"}}))
    h = load_lm_head(tmp_path, rows=[3, 1])
    np.testing.assert_array_equal(h.weight, W[[3, 1]].astype(np.float64))
    assert set(list_tensors(tmp_path)) == {"lm_head.weight", "model.norm.weight"}


def test_missing_shard_is_named(tmp_path):
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"lm_head.weight": "gone.safetensors"}}))
    with pytest.raises(InvalidInput, match="gone.safetensors"):
        load_lm_head(tmp_path)


def test_bf16_and_f16_widen_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file as save_pt

    x = torch.tensor([[1.5, -0.0078125], [3.0, 2.0 ** -9]])
    save_pt({"lm_head.weight": x.to(torch.bfloat16), "f16": x.to(torch.float16)},
            str(tmp_path / "m.safetensors"))
    bf = load_lm_head(tmp_path / "m.safetensors").weight
    f16 = load_lm_head(tmp_path / "m.safetensors", tensor="f16").weight
    np.testing.assert_array_equal(bf, x.to(torch.bfloat16).double().numpy())
    np.testing.assert_array_equal(f16, x.to(torch.float16).double().numpy())


def test_npz_npy_and_transpose(tmp_path, W):
    np.savez(tmp_path / "a.npz", W_U=W.T, b_U=np.arange(11.0))
    h = load_lm_head(tmp_path / "a.npz", transpose=True, rows=[2])
    np.testing.assert_array_equal(h.weight, W[[2]].astype(np.float64))
    assert h.bias.tolist() == [2.0]
    np.save(tmp_path / "W.npy", W)
    assert load_lm_head(tmp_path / "W.npy").weight.shape == (11, 4)


def test_torch_state_dict(tmp_path, W):
    torch = pytest.importorskip("torch")
    torch.save({"state_dict": {"lm_head.weight": torch.from_numpy(W),
                               "lm_head.bias": torch.zeros(11)}}, tmp_path / "ckpt.pt")
    h = load_lm_head(tmp_path / "ckpt.pt", rows=[0, 10])
    np.testing.assert_array_equal(h.weight, W[[0, 10]].astype(np.float64))
    assert h.bias_tensor == "lm_head.bias"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"source": "/no/such/model.safetensors"}, "not found.*never downloads"),
        ({"tensor": "lm_head.weigth"}, "no tensor named 'lm_head.weigth'"),
        ({"bias": "nope"}, "no bias tensor named 'nope'"),
        ({"rows": [0, 10_000]}, "token id 10000 is out of range"),
        ({"tensor": "lm_head.bias"}, "must be 2-D"),
    ],
)
def test_bad_input(kwargs, match):
    kwargs = {"source": T.planted_head("random"), **kwargs}
    with pytest.raises(InvalidInput, match=match):
        load_lm_head(kwargs.pop("source"), **kwargs)


def test_bias_shape_mismatch_and_corrupt_file(tmp_path, W):
    np.savez(tmp_path / "a.npz", **{"lm_head.weight": W, "lm_head.bias": np.zeros(5)})
    with pytest.raises(InvalidInput, match=r"bias 'lm_head.bias' has shape \(5,\).*11 rows"):
        load_lm_head(tmp_path / "a.npz")
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}xxxxx")
    with pytest.raises(InvalidInput, match="bad.safetensors"):
        load_lm_head(tmp_path / "bad.safetensors")
    np.save(tmp_path / "nan.npy", np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(InvalidInput, match="NaN"):
        load_lm_head(tmp_path / "nan.npy")


# ---------------------------------------------------------------------------- tokens


def test_weekdays_resolve_to_leading_space_tokens():
    ts = resolve_tokens(T.DAYS, T.tokenizer_path().parent)
    assert list(ts.ids) == T.day_ids()
    assert ts.spellings[0] == " Monday" and ts.pieces[0] == "ĠMonday"


def test_multi_token_word_is_reported_never_picked():
    tok = load_tokenizer(T.tokenizer_path())
    with pytest.raises(InvalidInput,
                       match=r"'Wednesday' is not a single token \('Wednesday' -> \['"):
        resolve_tokens(["Wednesday"], tok, space="none")
    with pytest.raises(InvalidInput, match=r"'Zebrafish' is not a single token"):
        resolve_tokens(["Zebrafish"], tok)


def test_unknown_word_and_collisions():
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "monday": 1, "tuesday": 2}, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    assert resolve_tokens(["Monday", "tuesday"], tok).ids == (1, 2)
    with pytest.raises(InvalidInput, match="'Caturday' is not in the vocabulary"):
        resolve_tokens(["Monday", "Caturday"], tok)
    with pytest.raises(InvalidInput, match="same token"):
        resolve_tokens(["Monday", "monday"], tok)
    with pytest.raises(InvalidInput, match="listed twice"):
        resolve_tokens(["Monday", "Monday"], tok)
    with pytest.raises(InvalidInput, match="tokenizer not found"):
        load_tokenizer("/no/such/folder")
    with pytest.raises(InvalidInput, match="empty entry"):
        parse_token_list("Monday,,Tuesday")


# ---------------------------------------------------------------------------- hostile files


def _st(path, header, data=b""):
    import struct

    h = header if isinstance(header, str) else json.dumps(header)
    path.write_bytes(struct.pack("<Q", len(h.encode())) + h.encode() + data)
    return path


_E = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}


@pytest.mark.parametrize("header, data, match", [
    ({"lm_head.weight": {**_E, "data_offsets": [-16, 0]}}, b"\0" * 16, "not inside"),
    ({"lm_head.weight": _E}, b"\0" * 8, "not inside"),
    ({"lm_head.weight": {**_E, "data_offsets": [0, 12]}}, b"\0" * 16, "needs 16"),
    ({"a": _E, "lm_head.weight": {**_E, "data_offsets": [8, 24]}}, b"\0" * 24, "overlap"),
    ({"lm_head.weight": {**_E, "shape": [-2, -2]}}, b"\0" * 16, "non-negative"),
    ({"lm_head.weight": {**_E, "shape": "x"}}, b"\0" * 16, "non-negative"),
    ({"lm_head.weight": {**_E, "dtype": "F31"}}, b"\0" * 16, "unknown dtype"),
    ({"lm_head.weight": {**_E, "data_offsets": [0.0, 16]}}, b"\0" * 16, "pair of integers"),
    ({"lm_head.weight": [1]}, b"\0" * 16, "not an object"),
    ({"__metadata__": [1]}, b"", "__metadata__"),
    ('{"a": {"dtype": "F32", "shape": [' + "9" * 5000 + '], "data_offsets": [0, 16]}}', b"",
     "unreadable"),
    ("[" * 50_000 + "]" * 50_000, b"", "unreadable|not a JSON object"),
])
def test_malformed_safetensors_is_one_clear_error(tmp_path, header, data, match):
    p = _st(tmp_path / "m.safetensors", header, data)
    with pytest.raises(InvalidInput, match=match):
        load_lm_head(p)
    with pytest.raises(InvalidInput):
        list_tensors(p)


def test_legacy_and_foreign_pickles(tmp_path):
    torch = pytest.importorskip("torch")
    import pickle

    torch.save({"lm_head.weight": torch.eye(3)}, tmp_path / "legacy.bin",
               _use_new_zipfile_serialization=False)
    assert load_lm_head(tmp_path / "legacy.bin").weight.tolist() == np.eye(3).tolist()
    (tmp_path / "plain.bin").write_bytes(pickle.dumps(object()))
    with pytest.raises(InvalidInput, match="plain.bin is not a readable PyTorch state dict"):
        load_lm_head(tmp_path / "plain.bin")
    (tmp_path / "junk.pt").write_bytes(b"\x80\x04garbage")
    with pytest.raises(InvalidInput, match="junk.pt"):
        load_lm_head(tmp_path / "junk.pt")


# --------------------------------------------------------------------------- GGUF
def _write_gguf(path, tensors):
    gguf = pytest.importorskip("gguf")
    w = gguf.GGUFWriter(str(path), "llama")
    for name, (arr, qtype) in tensors.items():
        if qtype is None:
            w.add_tensor(name, arr)
        else:
            q = gguf.quants.quantize(arr, qtype)
            w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return gguf


def test_gguf_f32_f16_bf16_q8_0_dequantized_exactly(tmp_path):
    rng = np.random.default_rng(3)
    W = rng.standard_normal((6, 64)).astype(np.float32)
    gguf = pytest.importorskip("gguf")
    Q = gguf.GGMLQuantizationType
    _write_gguf(tmp_path / "m.gguf", {"token_embd.weight": (W, Q.Q8_0),
                                      "output.weight": (W.astype(np.float16), None),
                                      "blk.0.w": (W, None)})
    h = load_lm_head(tmp_path / "m.gguf")
    assert h.tensor == "output.weight" and not h.tied
    np.testing.assert_array_equal(h.weight, W.astype(np.float16).astype(np.float64))
    t = load_lm_head(tmp_path / "m.gguf", tensor="token_embd.weight", rows=[5, 0])
    # Q8_0 by hand: per block of 32, d = f16(max|v| / 127), q = round(v / d); value d * q
    raw = gguf.quants.quantize(W, Q.Q8_0).reshape(6, -1, 34)
    d = raw[..., :2].copy().view("<f2").astype(np.float64)
    q = raw[..., 2:].copy().view(np.int8).astype(np.float64)
    ref = (d * q).reshape(6, 64)
    np.testing.assert_array_equal(t.weight, ref[[5, 0]])
    assert t.tied
    # BF16: the top half of the float32 bits
    bf = (W.view(np.uint32) >> 16).astype(np.uint16)
    w = gguf.GGUFWriter(str(tmp_path / "b.gguf"), "llama")
    w.add_tensor("output.weight", bf, raw_shape=bf.shape, raw_dtype=Q.BF16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    hb = load_lm_head(tmp_path / "b.gguf")
    np.testing.assert_array_equal(hb.weight, (bf.astype(np.uint32) << 16).view(np.float32))


def test_gguf_and_npz_corrupt_are_one_clear_error(tmp_path):
    pytest.importorskip("gguf")
    (tmp_path / "bad.gguf").write_bytes(b"GGUF\x03\x00\x00\x00garbage")
    with pytest.raises(InvalidInput, match="not a readable GGUF file"):
        load_lm_head(tmp_path / "bad.gguf")
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 this is not a zip archive")
    with pytest.raises(InvalidInput, match="not a readable .npz archive"):
        load_lm_head(tmp_path / "bad.npz")


def test_public_checkpoint_api_locates_tied_and_sharded_heads(tmp_path, W):
    from logitgeom.models.loaders import locate_head, open_checkpoint

    save_file({"model.embed_tokens.weight": W}, str(tmp_path / "model-00001-of-00002.safetensors"))
    save_file({"model.norm.weight": np.ones(4, np.float32)},
              str(tmp_path / "model-00002-of-00002.safetensors"))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
        "model.norm.weight": "model-00002-of-00002.safetensors"}}))
    ck = open_checkpoint(tmp_path)
    loc = locate_head(ck)
    assert loc.tensor == "model.embed_tokens.weight" and loc.tied
    assert loc.file.name == "model-00001-of-00002.safetensors" and loc.dtype == "F32"
    assert ck.raw_float(loc.tensor)[0] == "F32"
    np.testing.assert_array_equal(ck.read(loc.tensor, [2]), W[[2]].astype(np.float64))
