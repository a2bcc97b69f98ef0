"""Occupancy (logitgeom.occupancy, ``logitgeom occupancy``): exact per-input regions and counts."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from logitgeom import ranking_pattern, sign_pattern
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.errors import InvalidInput
from logitgeom.occupancy import OccupancyError, decide_chunk, occupancy

ROOT = Path(__file__).resolve().parents[1]
W4 = [[3, 0], [1, 2], [-1, 2], [-2, -1]]  # 12 rankings, 8 sign patterns (README)


def _integer(w) -> list[float]:
    den = math.lcm(*(Fraction(q).denominator for q in w))
    return [float(Fraction(q) * den) for q in w]


def _brute(W, b, X):
    """Exact signs, rankings (ties grouped, increasing within) and argmax with Fractions."""
    out = []
    for x in X:
        z = [sum(Fraction(a) * Fraction(float(v)) for a, v in zip(r, x, strict=True))
             + Fraction(bb)
             for r, bb in zip(W, b, strict=True)]
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))
        ties = [z[order[j]] == z[order[j + 1]] for j in range(len(z) - 1)]
        sign = [(v > 0) - (v < 0) for v in z]
        out.append((sign, order, ties, -1 if ties and ties[0] else order[0]))
    return out


def test_every_region_realized_by_its_witness_is_counted_exactly():
    R, S = ranking_pattern(W4), sign_pattern(W4)
    X = [_integer(w) for w in R.witnesses] + [_integer(w) for w in S.witnesses]
    X += list(np.random.default_rng(0).normal(size=(300, 2)))
    r = occupancy(W4, np.array(X), progress=False, plots=False, top=2)
    s = r.summary
    assert s["realized"]["ranking"] == s["regions"]["ranking"] == R.count == 12
    assert s["realized"]["sign"] == s["regions"]["sign"] == S.count == 8
    assert s["enumerated"]["ranking"] == 12 and s["enumerated"]["top-2"] == s["realized"]["top-2"]
    assert s["realized"]["argmax"] == s["regions"]["argmax"] == 4


def test_only_some_witnesses_realize_only_their_regions():
    R = ranking_pattern(W4)
    X = np.array([_integer(w) for w in R.witnesses[:5]])
    r = occupancy(W4, X, progress=False, plots=False)
    assert r.summary["realized"]["ranking"] == 5 and r.summary["regions"]["ranking"] == 12


def test_ties_are_decided_exactly_not_by_rounding():
    # w0 . x = 1e16 + 1 - 1e16 = 1 = w1 . x exactly; float64 evaluates w0 . x as 0
    W = [[1e16, 1.0, -1e16], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    X = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 1.0]])
    assert float((np.array(W) @ X[0])[0]) != 1.0  # the float product misses the tie
    d = decide_chunk(open_head(HeadSpec.from_array(W)), X)
    assert d.exact[0] and d.tie[0].tolist() == [True, False] and d.argmax[0] == -1
    assert d.order[0].tolist() == [0, 1, 2] and d.sign[0].tolist() == [1, 1, 0]
    assert d.argmax[1] == 0 and not d.tie[1].any()
    r = occupancy(W, X, progress=False, plots=False, counts=False)
    assert r.summary["on_boundary"]["argmax"] == 1 and r.summary["exact_inputs"] == 2


def test_a_float_near_tie_is_not_called_a_tie():
    # 0.1 + 0.2 rounds to 0.30000000000000004 = c in float64; exactly they differ
    a, b = 0.1, 0.2
    c = a + b
    W = [[a, b], [c, 0.0]]
    d = decide_chunk(open_head(HeadSpec.from_array(W)), np.array([[1.0, 1.0]]))
    exact = Fraction(a) + Fraction(b) - Fraction(c)
    assert not d.tie[0, 0] and d.argmax[0] == (0 if exact > 0 else 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_brute_force_on_heads_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    W = rng.integers(-2, 3, size=(6, 3)).tolist()
    b = rng.integers(-1, 2, size=6).tolist()
    X = np.vstack([rng.integers(-2, 3, size=(60, 3)), rng.normal(size=(20, 3))]).astype(float)
    d = decide_chunk(open_head(HeadSpec.from_array(W, b)), X)
    for n, (sign, order, ties, am) in enumerate(_brute(W, b, X)):
        assert d.sign[n].tolist() == sign and d.order[n].tolist() == order
        assert d.tie[n].tolist() == ties and d.argmax[n] == am


def test_rational_head_uses_exact_rows():
    W = [["1/3", 0], [0, "1/3"], [-1, -1]]
    d = decide_chunk(open_head(HeadSpec.from_array([[Fraction(v) for v in r] for r in W])),
                     np.array([[1.0, 1.0], [3.0, 0.0]]))
    assert d.tie[0, 0] and d.argmax.tolist() == [-1, 0]


def test_label_proven_never_and_labels_that_never_win_on_the_data():
    W = [[1, 0], [-1, 0], [0, 1], [0, -1], [0, 0]]
    g = np.random.default_rng(1).normal(size=(50, 2))
    X = np.stack([1 + np.abs(g[:, 0]), 0.5 * np.tanh(g[:, 1])], axis=1)
    r = occupancy(W, X, progress=False, plots=False)
    status = {row["label"]: row["status"] for row in r.labels}
    assert status[4] == "never (proven)" and status[0] == "wins"
    assert status[1] == status[2] == status[3] == "can win, never wins"
    assert r.summary["can_win_never_wins"] == [1, 2, 3] and r.summary["regions"]["argmax"] == 4


def test_a_never_label_that_wins_is_an_error(monkeypatch):
    import logitgeom.audit

    real = logitgeom.audit.audit_argmax

    def wrong(*a, **kw):
        res = real(*a, **kw)
        res.verdicts["all"][0] = "never"
        return res

    monkeypatch.setattr(logitgeom.audit, "audit_argmax", wrong)
    with pytest.raises(OccupancyError, match="label 0 is proven never"):
        occupancy([[1, 0], [0, 1]], [[2.0, 1.0]], progress=False, plots=False)


def test_resume_parquet_inputs_and_pool(tmp_path):
    rng = np.random.default_rng(3)
    W = rng.normal(size=(5, 4))
    X = rng.normal(size=(1000, 4)).astype(np.float32)
    np.save(tmp_path / "w.npy", W)
    np.save(tmp_path / "x.npy", X)
    out = tmp_path / "out"
    r1 = occupancy(tmp_path / "w.npy", tmp_path / "x.npy", out=out, chunk_rows=300,
                   progress=False)
    assert sorted(p.name for p in (out / "shards").iterdir()) == [
        f"part-{i:06d}.parquet" for i in range(4)]
    assert (out / "coverage.png").is_file() and (out / "margins.pdf").is_file()
    (out / "shards" / "part-000002.parquet").unlink()
    r2 = occupancy(tmp_path / "w.npy", tmp_path / "x.npy", out=out, chunk_rows=300,
                   progress=False)
    assert r2.summary == r1.summary
    assert json.loads((out / "summary.json").read_text()) == r1.summary
    with pytest.raises(InvalidInput, match="another head or other inputs"):
        occupancy(tmp_path / "w.npy", X[:10], out=out, progress=False)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"h": pa.FixedSizeListArray.from_arrays(pa.array(X.ravel()), 4)}),
                   tmp_path / "x.parquet", row_group_size=256)
    pq.write_table(pa.table({f"c{j}": X[:, j] for j in range(4)}), tmp_path / "xc.parquet")
    from logitgeom.run.executor import process_pool

    with process_pool(2) as pool:
        r3 = occupancy(W, tmp_path / "x.parquet", progress=False, plots=False, executor=pool)
    r4 = occupancy(W, tmp_path / "xc.parquet", progress=False, plots=False)
    for r in (r3, r4):
        assert r.summary["realized"] == r1.summary["realized"]
        assert r.summary["argmax_wins"] == r1.summary["argmax_wins"]
    t = pq.read_table(out / "shards" / "part-000000.parquet")
    assert t.column_names[:5] == ["input", "argmax", "sign", "ranking", "ties"]


def test_bad_inputs_are_one_line_errors(tmp_path):
    with pytest.raises(InvalidInput, match="width 3, the head has d = 2"):
        occupancy([[1, 0], [0, 1]], np.zeros((2, 3)), progress=False)
    with pytest.raises(InvalidInput, match="input 1 has a NaN"):
        occupancy([[1, 0], [0, 1]], [[0.0, 1.0], [np.nan, 0.0]], progress=False)
    np.save(tmp_path / "w.npy", np.eye(2))
    np.save(tmp_path / "x.npy", np.zeros((2, 3)))
    proc = subprocess.run([sys.executable, "-m", "logitgeom", "occupancy", str(tmp_path / "w.npy"),
                           str(tmp_path / "x.npy")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "the head has d = 2" in proc.stderr


def test_cli_writes_the_run(tmp_path):
    np.save(tmp_path / "w.npy", np.array(W4, dtype=float))
    np.save(tmp_path / "x.npy", np.random.default_rng(0).normal(size=(200, 2)))
    proc = subprocess.run([sys.executable, "-m", "logitgeom", "occupancy", str(tmp_path / "w.npy"),
                           str(tmp_path / "x.npy"), "-o", str(tmp_path / "o"), "--no-progress"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "ranking:" in proc.stdout and "of 12 regions" in proc.stdout
    assert (tmp_path / "o" / "labels.csv").read_text().startswith("label,wins,verdict,status")


def test_model_folder_and_text_through_the_context_machinery(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch
    from tokenizers import Tokenizer
    from transformers import GPT2LMHeadModel

    from logitgeom.occupancy.run import hidden_states_from_text
    from tests import _tiny_models as T

    model = T.tiny_lm()
    text = tmp_path / "contexts.txt"
    lines = ["Today is Monday. Tomorrow is", "Today is Friday | and", "", "Tomorrow is"]
    text.write_text("\n".join(lines), encoding="utf-8")
    H = hidden_states_from_text(model, text, progress=False)
    assert H.shape == (3, T.D)
    lm = GPT2LMHeadModel.from_pretrained(str(model)).eval()
    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    want = []
    with torch.no_grad():
        for ln in [x for x in lines if x]:
            ids = torch.tensor([tok.encode(ln).ids])
            want.append(int(lm(input_ids=ids).logits[0, -1].argmax()))
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "logitgeom", "occupancy", str(model), str(text),
                           "-o", str(out), "--no-count", "--no-audit", "--no-progress"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    import pyarrow.parquet as pq

    got = pq.read_table(out / "shards" / "part-000000.parquet").column("argmax").to_pylist()
    assert got == want


@pytest.mark.slow
def test_dask_local_cluster_same_shards(tmp_path):
    distributed = pytest.importorskip("distributed")
    rng = np.random.default_rng(5)
    W = rng.normal(size=(6, 3))
    np.save(tmp_path / "x.npy", rng.normal(size=(900, 3)))
    ref = occupancy(W, tmp_path / "x.npy", out=tmp_path / "a", chunk_rows=200, progress=False,
                    plots=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        r = occupancy(W, tmp_path / "x.npy", out=tmp_path / "b", chunk_rows=200,
                      executor=client, progress=False, plots=False)
    assert r.summary == ref.summary
    for i in range(5):
        name = f"shards/part-{i:06d}.parquet"
        import pyarrow.parquet as pq

        assert pq.read_table(tmp_path / "a" / name).equals(pq.read_table(tmp_path / "b" / name))


def test_logits_beyond_the_float_range_are_still_decided():
    W = [[1e300, 0.0], [0.0, 1e300], [1e300, -1e300]]
    X = np.array([[1e10, 1e10], [1e10, 2e10]])
    d = decide_chunk(open_head(HeadSpec.from_array(W)), X)
    assert d.exact.all() and d.tie[0].tolist() == [True, False] and d.argmax.tolist() == [-1, 1]
    assert d.order[1].tolist() == [1, 0, 2] and d.sign.tolist() == [[1, 1, 0], [1, 1, -1]]
    assert np.isinf(d.logits[:, :2]).all()


def test_a_wide_head_file_needs_rows_are_labels(tmp_path):
    """A matrix file with fewer rows than columns is refused unless the rows are said to be
    the labels (as audit-argmax); with the flag, the API and the CLI decide it."""
    rng = np.random.default_rng(1)
    np.save(tmp_path / "w.npy", rng.normal(size=(3, 5)))
    np.save(tmp_path / "x.npy", rng.normal(size=(40, 5)))
    with pytest.raises(InvalidInput, match="--rows-are-labels"):
        occupancy(tmp_path / "w.npy", tmp_path / "x.npy", progress=False, counts=False,
                  audit=False)
    r = occupancy(tmp_path / "w.npy", tmp_path / "x.npy", progress=False, counts=False,
                  audit=False, rows_are_labels=True)
    assert r.summary["inputs"] == 40 and r.summary["k"] == 3
    proc = subprocess.run([sys.executable, "-m", "logitgeom", "occupancy", str(tmp_path / "w.npy"),
                           str(tmp_path / "x.npy"), "--rows-are-labels", "--no-count",
                           "--no-audit", "--no-progress"], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
