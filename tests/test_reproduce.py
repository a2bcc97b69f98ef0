"""The main job: ``logitgeom reproduce`` passes every claim, its certificates check with the
stdlib checker, tampering is reported, and a second run is byte-identical."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.errors import InvalidInput
from logitgeom.reproduce import CLAIMS, Status, reproduce, select_claims

SUBSET = ("cos-thm-3.4,cos-app-h.2,cos-lemma-5.3-grid-n5,cos-thm-5.6-grid-n3,"
          "sym-thm-1,sym-thm-4,sym-app-f-wreath-s3-s2,sym-layer-peeled-gd")


@pytest.fixture(scope="session")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduction")
    return reproduce(out, progress=False)


def _check(*paths) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "logitgeom_certificates.check", *map(str, paths)],
                          capture_output=True, text=True, check=False)


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_every_claim_passes(run):
    bad = [r for r in run.rows if not r.ok]
    assert not bad, bad
    assert run.ok and run.exit_code == 0
    assert len(run.rows) == len(CLAIMS)
    claims = {r.claim for r in run.rows}
    for name in ("Lemma 3.1", "Lemma 3.2", "Lemma 3.3", "Thm 3.4 (App. C.1, Fig. 1)",
                 "App. C.2 (centred)", "App. C.3 (centred, length 1)", "Lemma 5.3 (grid)",
                 "Thm 5.6 (grid)", "Thm 5.5", "App. H.2", "Thm 1 (cyclic)",
                 "Thms 2-3 (S_m, ETF)", "Thm 4 (2-transitive)", "Thm 5 (multi-block cyclic)",
                 "Thm 6 (multi-block S_m)", "App. F (composite)"):
        assert name in claims


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_artifacts_exist_and_summary_lists_them(run):
    summary = (run.out / "SUMMARY.md").read_text()
    waiting = [r for r in run.rows if r.status is Status.NEEDS_WEIGHTS
               and not r.claim.startswith("Realized vs possible")]  # spaCy: an extra
    done = sum(summary.count(f"| {s} |") for s in ("CERTIFIED", "COMPUTED", "MEASURED"))
    assert done == sum(r.status is not Status.NEEDS_WEIGHTS for r in run.rows)
    assert "| PASS |" not in summary and "| FAIL |" not in summary
    assert len(waiting) == 25 and all("logitgeom inspect" in r.method for r in waiting)
    for r in run.rows:
        for a in r.artifacts:
            assert (run.out / a).is_file(), a
            assert f"`{a}`" in summary
    pngs = sorted((run.out / "figures").glob("*.png"))
    assert len(pngs) >= 8
    assert "## Figures" in summary
    assert all(f"- `figures/{p.name}`: " in summary for p in pngs)  # each has a caption
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    sol = json.loads((run.out / "solutions/thm-1-weekdays-circulant.json").read_text())
    assert sol["method"] == "circulant" and sol["budget_active"] is True


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_every_certificate_checks(run):
    certs = sorted(run.out.glob("*.json"))
    assert len(certs) == run.certificates_checked >= 15
    proc = _check(*certs)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count(": OK ") == len(certs)


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_every_discrete_certificate_has_a_coq_proof_coqc_accepts(run):
    """Every discrete certificate of the run is exported to Coq and, with coqc installed (the
    set-up installs it), accepted; argmax audits with their witnesses (the spaCy audits:
    every label can be the strict argmax).  Not covered: only the convex brackets
    (``layer-peeled-*``), each listed with the reason "not discrete (convex bracket)"."""
    summary = (run.out / "SUMMARY.md").read_text()
    coq = summary.split("## Coq proofs", 1)[1]
    rows = [r for r in coq.splitlines() if r.startswith("| `")]
    assert rows, "no Coq file was written"
    if shutil.which("coqc"):
        assert all(r.rstrip().endswith("| accepted by the referee's check |") for r in rows), \
            [r for r in rows if "| accepted by the referee" not in r]
    covered = {r.split("`")[1]: r for r in rows}
    skipped = next((ln for ln in coq.splitlines() if ln.startswith("Not covered")), "")
    for name in sorted(p.name for p in run.out.glob("*.json")):
        obj = json.loads((run.out / name).read_text())
        kind = obj["kind"]
        if kind.startswith("layer-peeled-"):
            assert name not in covered, name
            assert f"`{name}` (not discrete (convex bracket))" in skipped, (name, skipped)
            continue
        assert name in covered, (name, kind)
        if kind == "argmax-audit":  # the file proves the audit's witnesses too
            v = (run.out / covered[name].split("`")[3]).read_text()
            if any(c["argmaxable"] for c in obj["counts"].values()):
                assert "exists x, strict_argmax" in v and "argmax_" in v
    assert skipped.count("` (") == sum(
        json.loads(p.read_text())["kind"].startswith("layer-peeled-")
        for p in run.out.glob("*.json"))


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_corrupted_or_deleted_certificate_is_reported(run, tmp_path, capsys):
    d = tmp_path / "copy"
    shutil.copytree(run.out, d)
    cert = d / "thm-5.5-cosine-ranking.json"
    text = cert.read_text()
    # change one number of W2 (label 2's vector): the cosine-equal part no longer holds
    obj = json.loads(text)
    obj["parts"][0]["W2"][2] = ["0", "3"]
    cert.write_text(json.dumps(obj))
    files = sorted(str(p) for p in d.glob("*.json"))
    assert cli(["check", *files]) == 1
    assert "INVALID" in capsys.readouterr().out
    cert.write_text(text[: len(text) // 2])  # truncated: unreadable
    assert cli(["check", *files]) == 2
    cert.unlink()  # deleted: the path is unreadable
    assert cli(["check", *files]) == 2
    assert "unreadable" in capsys.readouterr().out


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_second_run_is_byte_identical(run, tmp_path):
    out = tmp_path / "again"
    proc = subprocess.run([sys.executable, "-m", "logitgeom", "reproduce", "--out", str(out),
                           "--only", SUBSET, "--no-progress"], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    files = [p for p in sorted(out.rglob("*")) if p.suffix in (".json", ".png", ".pdf")]
    assert len(files) >= 10 and any(p.suffix == ".pdf" for p in files)
    for p in files:
        rel = p.relative_to(out)
        assert p.read_bytes() == (run.out / rel).read_bytes(), rel
    assert "| CERTIFIED |" in (out / "SUMMARY.md").read_text()


def test_only_filter_and_bad_pattern():
    assert [c.key for c in select_claims("sym-thm-1")] == ["sym-thm-1-cyclic"]
    assert len(select_claims("sym-app-f-*")) == 8
    with pytest.raises(InvalidInput, match="matches no claim"):
        select_claims("no-such-claim")


def test_failing_claim_gives_fail_row_and_exit_code(tmp_path, monkeypatch):
    from logitgeom.reproduce import registry

    def broken(ctx):
        raise InvalidInput("planted failure")

    monkeypatch.setitem(registry.CLAIMS, "zz-broken", registry.Claim("zz-broken", "cosine", broken))
    rep = reproduce(tmp_path, only="zz-broken", progress=False)
    assert rep.exit_code == 1 and "planted failure" in rep.rows[0].result
    assert "FAIL" in (Path(tmp_path) / "SUMMARY.md").read_text()


@pytest.mark.slow  # the session fixture runs the whole reproduction (minutes)
def test_deleted_certificate_is_reported_after_the_shell_glob(run, tmp_path, capsys):
    # `logitgeom check DIR/*.json` after a deletion: the glob no longer names the file, so
    # only the run's CERTIFICATES.sha256 can report it; an edited statement is reported too
    d = tmp_path / "copy2"
    shutil.copytree(run.out, d)
    assert cli(["check", *map(str, sorted(d.glob("*.json")))]) == 0
    capsys.readouterr()
    (d / "thm-5.5-cosine-ranking.json").unlink()
    assert cli(["check", *map(str, sorted(d.glob("*.json")))]) == 2
    assert "thm-5.5-cosine-ranking.json: MISSING" in capsys.readouterr().out
    shutil.copy(run.out / "thm-5.5-cosine-ranking.json", d)
    cert = d / "thm-3.4-translation.json"
    obj = json.loads(cert.read_text())
    obj["statement"] = "something else"  # still a valid certificate, but not the run's file
    cert.write_text(json.dumps(obj))
    assert cli(["check", *map(str, sorted(d.glob("*.json")))]) == 1
    assert "thm-3.4-translation.json: CHANGED" in capsys.readouterr().out


def test_figures_are_pdf_and_png_for_a_column(run):
    """Every figure: PNG (>= 200 dpi at 3.3 in) and vector PDF, text >= 7 pt (checked when
    saved by logitgeom.plotstyle.save)."""
    import struct

    pngs = sorted((run.out / "figures").glob("*.png"))
    assert len(pngs) >= 8
    for p in pngs:
        assert p.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-", p
        w, h = struct.unpack(">II", p.read_bytes()[16:24])  # IHDR width, height (pixels)
        assert w >= 200 * 3.3, (p, w)
    summary = (run.out / "SUMMARY.md").read_text()
    assert "1-based" in summary


def test_small_text_is_refused():
    from logitgeom import plotstyle

    with plotstyle.style():
        fig = plotstyle.figure()
        fig.add_subplot().set_title("tiny", fontsize=5)
    with pytest.raises(InvalidInput, match="5 pt"):
        plotstyle.check_legible(fig)


def test_trained_model_approaches_the_layer_peeled_optimum():
    from logitgeom.reproduce.trained import train_cyclic

    tr = train_cyclic(steps=400, checkpoints=(10, 400))
    a, b = tr.rows
    assert b["dist_WWt"] < 1e-3 < a["dist_WWt"]
    assert b["dist_HtH"] < 1e-3 < a["dist_HtH"]
    assert abs(b["loss_gap"]) / b["J_star"] < 1e-6 < a["loss_gap"] / a["J_star"]
    assert b["delta_circ"] < 1e-3 < a["delta_circ"]
    with pytest.raises(InvalidInput, match="checkpoints"):
        train_cyclic(steps=10, checkpoints=(20,))


# ------------------------------------------------------------------ the real-model rows
def test_every_sec5_and_app_e_figure_has_rows_with_commands_and_printed_deltas():
    from logitgeom.reproduce._real_models import EXPERIMENTS, MODELS

    keys = {c.key for c in select_claims("sym-fig")}
    assert len(keys) == sum(len(e.models) for e in EXPERIMENTS) == 25
    wheres = " ".join(e.where for e in EXPERIMENTS)
    for fig in ("Figs. 2-3", "Figs. 2, 4", "Figs. 5-6", "Figs. 7-8", "Fig. 9", "Fig. 10",
                "Fig. 11", "Fig. 12", "Figs. 13-14", "Figs. 15-16"):
        assert fig in wheres
    printed = sorted(v for e in EXPERIMENTS for _, v in e.printed)
    assert printed == [0.118, 0.171, 0.18, 0.202, 0.204, 0.205, 0.222, 0.413]
    assert MODELS["rwkv7-7.2B"].remote_code
    colour = next(e for e in EXPERIMENTS if e.key == "fig5-6-colour-prompts")
    assert colour.template == "Among three primary colors, {TOKEN1} is a mix of {TOKEN2} and"
    assert colour.contexts.startswith("orange|red -> yellow; orange|yellow -> red")
    assert colour.tokens == "red,yellow,blue"
    from logitgeom.models.context import parse_contexts, target_matrix
    from logitgeom.reproduce._real_models import PRINTED_PATTERN

    Y = target_matrix(parse_contexts(colour.contexts), colour.tokens.split(","))
    printed = "".join(str(int(x)) for x in (Y.T @ Y).ravel())
    assert printed == PRINTED_PATTERN.replace(" ", "") == "100100010001001010100100001010010001"


def test_real_model_rows_without_weights_give_the_command(tmp_path):
    rep = reproduce(tmp_path, only="sym-fig3-utensils-gpt-oss-20b,sym-fig5-6-colour-prompts-rwkv",
                    progress=False)
    a, b = rep.rows
    assert a.status is Status.NEEDS_WEIGHTS and a.paper == 0.205 and "0.205" in a.result
    assert "logitgeom inspect MODELS/gpt-oss-20b --tokens fork,knife,plate,cup,glass" in a.method
    assert "--trust-remote-code" in b.method and "--contexts" in b.method
    assert "21B parameters" in a.instance
    summary = (tmp_path / "SUMMARY.md").read_text()
    assert "ours vs the paper's" in summary and "| 0.205 | not run" in summary


@pytest.fixture(scope="module")
def zoo():
    pytest.importorskip("transformers")
    import _tiny_models as T

    return T.model_zoo()


def test_each_real_model_row_runs_and_compares_on_tiny_checkpoints(zoo, tmp_path):
    """Tiny random checkpoints in the real folders' layout (GptOss, Mistral, GPT-2, a folder
    with its own code for RWKV-7): every Sec. 5 / App. E row runs and compares with the
    paper's printed delta (the tiny models are random, so the comparison fails: the point is
    that it is made)."""
    rep = reproduce(tmp_path, only="sym-fig", progress=False, models=zoo,
                    trust_remote_code=True, log=False)
    assert len(rep.rows) == 25
    for r in rep.rows:
        assert r.status in (Status.MEASURED, Status.FAIL), r
        assert r.ours is not None and 0 <= r.ours <= 2, r
        if r.paper is not None:
            assert f"ours {r.ours:.3f} vs paper {r.paper:.3f}" in r.result
        for a in r.artifacts:
            assert (tmp_path / a).is_file()
    summary = (tmp_path / "SUMMARY.md").read_text()
    assert summary.count("| 0.205 | ") == 1 and "not run" not in summary
    colour = json.loads((tmp_path / "results/real-fig5-6-colour-prompts-gpt-oss-20b.json")
                        .read_text())
    assert colour["context"]["Y"] == [[0, 1, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0], [0, 0, 1, 0, 1, 0]]
    assert colour["context"]["prompts"][0] == ("Among three primary colors, orange is a mix of "
                                               "red and")


def test_remote_code_needs_the_flag_and_memory_plan_refuses_early(zoo, tmp_path, monkeypatch):
    rep = reproduce(tmp_path, only="sym-fig7-8-weekday-prompts-rwkv", progress=False,
                    models=zoo, log=False)
    assert rep.rows[0].status is Status.FAIL and "--trust-remote-code" in rep.rows[0].result
    from logitgeom.models import context

    monkeypatch.setattr(context, "_available_bytes", lambda: 1000)
    rep = reproduce(tmp_path, only="sym-fig7-8-weekday-prompts-gpt-oss-20b", progress=False,
                    models=zoo, log=False)
    r = rep.rows[0]
    assert r.status is Status.NEEDS_MEMORY and "refused before loading" in r.result
    assert "GiB" in r.result and rep.exit_code == 0
    # head-only rows still run (the head is memory-mapped)
    rep = reproduce(tmp_path, only="sym-fig4-weekdays-gpt-oss-20b", progress=False,
                    models=zoo, log=False)
    assert rep.rows[0].ours is not None


def test_one_line_per_finished_claim_without_a_terminal(tmp_path):
    import io

    buf = io.StringIO()
    reproduce(tmp_path, only="cos-lemma-3.2,cos-lemma-3.3", progress=False, log=buf)
    lines = buf.getvalue().splitlines()
    assert lines[:2] == ["[1/2] cos-lemma-3.2: PASS", "[2/2] cos-lemma-3.3: PASS"]
    # then every long step after the claims says what it does and how far it got
    steps = ("checking certificates", "exporting Coq proofs", "compiling Coq proofs")
    assert all(ln.startswith(steps) or ln.startswith(tuple("[" + s for s in steps))
               for ln in lines[2:]), lines
    assert any(ln.startswith("checking certificates") for ln in lines[2:]), lines


def test_list_has_one_line_description_per_claim(capsys):
    assert cli(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(CLAIMS)
    assert all(len(line.split("] ", 1)[1]) > 10 for line in lines)


def test_trained_lm_is_deterministic_and_learns_on_a_short_budget():
    """Two runs with the same seed give identical numbers (torch deterministic algorithms, one
    thread); a shortened budget already lowers the loss. The full row trains 1500 steps."""
    pytest.importorskip("transformers")
    import torch

    from logitgeom.reproduce.lm import corpus, train_lm

    assert len(corpus()) == 500 and corpus() == corpus()
    threads = torch.get_num_threads()
    a = train_lm(steps=40)
    b = train_lm(steps=40)
    assert torch.get_num_threads() == threads
    assert not torch.are_deterministic_algorithms_enabled()  # restored afterwards
    assert a.final_loss == b.final_loss < a.initial_loss
    for name in ("weekdays", "months", "colours"):
        for k, v in a.sets[name]["trained"].items():
            if isinstance(v, float):
                assert v == b.sets[name]["trained"][k], (name, k)
    assert a.settings["seed"] == 0 and a.settings["steps"] == 40
    with pytest.raises(InvalidInput, match="positive"):
        train_lm(steps=0)
