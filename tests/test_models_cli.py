"""``logitgeom inspect`` on tiny local models: output, JSON, certificate, plot, errors."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("safetensors")
pytest.importorskip("tokenizers")

import _tiny_models as T  # noqa: E402

from logitgeom.cli.main import main  # noqa: E402

DAYS = ",".join(T.DAYS)


def test_planted_circulant_head(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    rc = main(["inspect", str(T.planted_head("circulant")), "--tokenizer",
               str(T.tokenizer_path()), "--tokens", DAYS, "--json", str(out_json),
               "--group", "cyclic", "--dim", "2", "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "delta_circ = 0.0000" in text and "head: lm_head.weight" in text
    rep = json.loads(out_json.read_text())
    assert rep["unembedding_gram"]["delta_circ"] < 1e-12
    assert rep["unembedding_gram"]["delta_group"] < 1e-12
    assert rep["model"]["bias_tensor"] == "lm_head.bias"
    assert rep["tokens"]["spellings"][0] == " Monday"
    proj = rep["cosine_audit"]["projection"]
    assert proj["dim"] == 2 and proj["argmaxable"] == T.DAYS  # a heptagon in the plane
    assert proj["rankings_complete"] is True and proj["n_rankings"] == len(proj["rankings"])


def test_tiny_lm_with_prompt_plot_certificate_and_determinism(capsys, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("matplotlib")
    from logitgeom_certificates.check import check_file

    args = ["inspect", str(T.tiny_lm()), "--tokens", DAYS, "--prompt",
            "Today is {TOKEN}. Tomorrow is", "--pair", "0,3", "--no-progress"]
    files = []
    for k in range(2):
        paths = [tmp_path / f"r{k}.json", tmp_path / f"c{k}.json", tmp_path / f"p{k}.png"]
        assert main(args + ["--json", str(paths[0]), "--cert", str(paths[1]),
                            "--plot", str(paths[2])]) == 0
        files.append(paths)
    text = capsys.readouterr().out
    assert "tied to the input embedding" in text and "context Gram H^T H" in text
    assert files[0][0].read_bytes() == files[1][0].read_bytes()
    assert files[0][1].read_bytes() == files[1][1].read_bytes()
    assert check_file(files[0][1]).ok
    assert files[0][2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rep = json.loads(files[0][0].read_text())
    assert rep["context"]["prompts"][0] == "Today is Monday. Tomorrow is"
    assert rep["cosine_audit"]["pair"] == ["Monday", "Thursday"]


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["/no/such/dir", "--tokens", DAYS], "not found"),
        (["TINY", "--tokens", "Monday,Zebrafish"], "'Zebrafish' is not a single token"),
        (["TINY", "--tokens", DAYS, "--tensor", "nope.weight"], "no tensor named 'nope.weight'"),
        (["TINY", "--tokens", "Monday,Tuesday", "--pair", "0"], "--pair must be"),
        (["HEAD", "--tokens", "Monday,Tuesday"], "no tokenizer.json"),
        (["TINY", "--tokens", "Monday,Tuesday", "--group", "dihedral"], "use 'cyclic'"),
        (["TINY", "--tokens", "Monday,Tuesday", "--contexts", "Monday"], "--contexts needs "
         "--prompt"),
    ],
)
def test_errors_exit_2_with_a_message(capsys, extra, match):
    sub = {"TINY": str(T.planted_head("random").parent / "tokenizer"),
           "HEAD": str(T.planted_head("random"))}
    if extra[0] == "TINY":  # a folder holding only tokenizer.json: use the head file instead
        extra = [str(T.planted_head("random")), "--tokenizer", sub["TINY"], *extra[1:]]
    else:
        extra = [sub.get(extra[0], extra[0]), *extra[1:]]
    assert main(["inspect", *extra]) == 2
    assert match in capsys.readouterr().err


def test_contexts_apart_from_candidates_from_the_command_line(capsys, tmp_path):
    ctx = tmp_path / "contexts.txt"
    ctx.write_text("Monday | Friday -> Tuesday\nSunday | Friday -> Monday\n")
    out = tmp_path / "r.json"
    assert main(["inspect", str(T.tiny_lm()), "--tokens", "Monday,Tuesday,Wednesday",
                 "--prompt", "On {TOKEN1} and {TOKEN2} we", "--contexts", str(ctx),
                 "--dtype", "float32", "--device", "cpu", "-o", str(out),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "targets: " in text and "delta_target" in text
    rep = json.loads(out.read_text())
    assert rep["context"]["prompts"] == ["On Monday and Friday we", "On Sunday and Friday we"]
    assert rep["context"]["Y"] == [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
