"""Issue 43, item 2 (every option honoured or refused): bad values the option battery
(tests/test_fuzz_options.py) found ignored, refused at the entry of the API as well as the
CLI: an unknown solver also where a closed form needs none, a tensor name or tokenizer for a
head file that has neither, a torch device or dtype that no run uses, an infinite detection
tolerance, group generators and sizes that are not integers."""

from __future__ import annotations

import numpy as np
import pytest
from test_options_honoured import _refused  # exit 2, one line naming the words, no traceback

from logitgeom.errors import InvalidInput

Y3 = [["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"], ["1/4", "1/4", "1/2"]]
W3 = [[1, 0], [0, 1], [1, 1]]




def test_unknown_solver_refused_where_a_closed_form_needs_none():
    from logitgeom import LayerPeeled

    assert LayerPeeled(Y3, 1, 1).solve().method == "etf"  # the closed form: no conic solver
    with pytest.raises(InvalidInput, match="unknown solver 'bogus'"):
        LayerPeeled(Y3, 1, 1).solve(solver="bogus")
    from logitgeom.convex.family import LayerPeeledFamily

    with pytest.raises(InvalidInput, match="unknown solver"):
        LayerPeeledFamily(np.eye(3), 1, 1, loss="mse").solve(solver="bogus")


@pytest.mark.parametrize("cmd", [["solve"], ["certify", "solve"]])
def test_unknown_solver_refused_by_both_commands(capsys, tmp_path, cmd):
    y = tmp_path / "Y.csv"
    y.write_text("\n".join(",".join(r) for r in Y3) + "\n")
    _refused(capsys, [*cmd, str(y), "--solver", "bogus", "-o", str(tmp_path / "o.json")],
             "unknown solver 'bogus'")
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("kw,word", [({"tensor": "lm_head.weight"}, "tensor"),
                                     ({"tokenizer": "tok.json"}, "tokenizer"),
                                     ({"transpose": True}, "transpose")])
def test_audit_refuses_options_an_in_memory_head_does_not_use(kw, word):
    from logitgeom import audit_argmax

    with pytest.raises(InvalidInput, match=word):
        audit_argmax(W3, progress=False, **kw)


def test_audit_and_occupancy_refuse_a_tensor_name_for_a_matrix_file(capsys, tmp_path):
    w = tmp_path / "W.csv"
    w.write_text("1,0\n0,1\n1,1\n")
    np.save(tmp_path / "W.npy", np.array(W3, dtype=float))
    np.save(tmp_path / "X.npy", np.eye(2))
    for head in (w, tmp_path / "W.npy"):
        _refused(capsys, ["audit-argmax", str(head), "--tensor", "lm_head.weight",
                          "--no-progress"], "--tensor", "does not apply")
    _refused(capsys, ["audit-argmax", str(w), "--tokenizer", str(tmp_path / "tok.json"),
                      "--no-progress"], "--tokenizer", "does not apply")
    _refused(capsys, ["occupancy", str(w), str(tmp_path / "X.npy"), "--tensor", "x",
                      "-o", str(tmp_path / "o"), "--no-progress"], "--tensor")


@pytest.mark.parametrize("opt,word", [(["--device", "cuda"], "--device only applies"),
                                      (["--device", "bogus"], "--device 'bogus'"),
                                      (["--dtype", "float16"], "--dtype only applies"),
                                      (["--trust-remote-code"], "--trust-remote-code only")])
def test_model_run_options_refused_where_no_model_runs(capsys, tmp_path, opt, word):
    np.save(tmp_path / "W.npy", np.array(W3, dtype=float))
    np.save(tmp_path / "X.npy", np.eye(2))
    _refused(capsys, ["occupancy", str(tmp_path / "W.npy"), str(tmp_path / "X.npy"), *opt,
                      "-o", str(tmp_path / "o"), "--no-progress"], word)
    word = word.replace("only applies", "only applies to a --prompt run") \
        if "only" in word and "remote" not in word else word
    _refused(capsys, ["inspect", str(tmp_path / "W.npy"), "--tokens", "0,1,2", *opt], word)


def test_inspect_model_refuses_a_bad_device_before_any_work(tmp_path):
    from logitgeom.models.report import inspect_model

    with pytest.raises(InvalidInput, match="--device 'gpu0'"):
        inspect_model(tmp_path / "missing", ["0"], device="gpu0")
    with pytest.raises(InvalidInput, match="--dtype 'float8'"):
        inspect_model(tmp_path / "missing", ["0"], dtype="float8")


@pytest.mark.parametrize("tol", [float("inf"), 10 ** 400, float("nan")])
def test_detection_tolerance_must_be_finite(tol):
    from logitgeom import detect_symmetry

    with pytest.raises(InvalidInput, match="finite number >= 0"):
        detect_symmetry(np.eye(3), tol=tol)


@pytest.mark.parametrize("gens,kw", [([[1.0, 0, 2]], {"m": 3}), ([[True, False, 2]], {"m": 3}),
                                     ("102", {"m": 3}), (None, {"m": 3}),
                                     ([[1, 0, 2]], {"m": 3.0}), ([[1, 0, 2]], {"m": 3, "n": 0.0}),
                                     ([[1, 0, 2]], {"m": float("nan")}),
                                     ([[1, 0, 2]], {"m": 3, "name": 5})])
def test_group_action_takes_integers_only(gens, kw):
    from logitgeom import GroupAction

    with pytest.raises(InvalidInput):
        GroupAction(gens, **kw)
    assert GroupAction([np.array([1, 0, 2])], m=np.int64(3)).order == 2


def test_occupancy_exact_rows_never_come_from_a_freed_head_of_the_same_id():
    # the cache was keyed by id(head) alone: a new head at a freed head's address read the
    # old head's exact rows (a ValueError, or a wrong exact decision for equal shapes)
    from logitgeom.audit.head import HeadSpec, open_head
    from logitgeom.occupancy import decide

    old = open_head(HeadSpec.from_array([[1, 0], [0, 1]]))
    new = open_head(HeadSpec.from_array([[0, 1], [1, 0], [1, 1]]))
    decide._EXACT_CACHE.clear()
    decide._EXACT_CACHE[id(new)] = (old, decide._ExactHead(old))  # as if id(new) were reused
    assert decide.exact_logits(new, [2.0, 3.0]) == [3, 2, 5]
