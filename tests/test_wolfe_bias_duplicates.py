"""Wolfe's method on bias heads with duplicated rows of different bias (issue 43).

Such a pair makes the homogenised points p_i = (w_i - w_k, b_i - b_k) differ only along
p_0 = (0, -1), and an entering point can get an affine weight of exactly 0 while its weight
is 0: the minor cycle's ratio was 0/0 = nan, every weight became nan and was dropped, and
``min_norm_corral`` failed with "operands could not be broadcast together with shapes (0,)
(4,)".  Every verdict is compared with the exact oracle of tests/test_audit_exact.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from logitgeom.audit import Options, audit_argmax
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.nearest import wolfe_label_bias as _wolfe_bias
from logitgeom.audit.wolfe import min_norm_corral
from logitgeom_certificates.check import check
from tests.test_audit_exact import oracle

#: a 24 x 3 integer head with label 19 = (-1, 2, 2) at bias 0 and row 11 the same at bias 1,
#: on which Wolfe's method for label 12 hit the nan (found by a random search)
W24 = [[-2, -1, 1], [-2, -2, -1], [2, 2, -1], [1, 1, 1], [1, -1, 0], [0, 2, -2], [0, 2, -2],
       [-2, -2, 0], [0, -2, -2], [0, 1, 0], [-2, -2, 2], [-1, 2, 2], [-1, 2, 0], [0, 0, -2],
       [-2, -1, 1], [-1, 2, 1], [0, 1, -1], [0, 0, 0], [1, -2, -2], [-1, 2, 2], [0, 2, 1],
       [-1, -2, 1], [-1, 1, 2], [-2, 2, -1]]
B24 = [1, 1, -1, 1, -1, 1, -1, -1, 0, -1, 1, 1, 1, 0, -1, 0, -1, 1, 1, 0, 1, 0, 1, 1]


def _check_wolfe_bias(W, b) -> None:
    head = open_head(HeadSpec.from_array(np.asarray(W, float), np.asarray(b, float)))
    for k in range(len(W)):
        rec = _wolfe_bias(head, k, Options(), {})
        if rec is not None:  # Wolfe may leave a label to the LP stages, never decide it wrong
            assert rec["verdict"] == oracle(W, b, k), k


def test_entering_point_with_affine_weight_exactly_zero():
    # the corral and weights _wolfe_bias passed on its second round for label 12 of W24
    P8 = [[0, 0, 0, -8], [-1, 0, -1, 0], [0, 0, 2, 0], [1, 0, -2, 0], [0, 0, 1, -2], [0, 0, 2, -2],
          [1, 0, 1, 0], [0, -1, 2, 0], [1, 0, -2, -4], [2, -1, 1, 0], [-1, -3, 1, 0], [3, 0, -1,
          -4], [1, -1, 0, -4], [1, -1, -1, -4], [1, -2, 0, 0], [1, -2, -2, -2], [-1, -4, -1, 0],
          [-1, -4, 2, 0], [-1, -3, 1, -4], [-1, -4, 0, -4], [0, -4, 1, -2], [2, -3, 0, -4], [1, -4,
          -2, -2], [2, -4, -2, 0]]
    P = np.array(P8, dtype=float) / 8.0
    lam = np.array([float.fromhex(h) for h in (
        "0x1.2492492492498p-2", "0x1.b6db6db6db6dbp-2", "0x1.099d55a161789p-52",
        "0x1.249249249248ap-2")])
    kind, S, w = min_norm_corral(P, init=([1, 2, 11, 3], lam))
    assert kind in ("in", "out", "stall") and len(S) == len(w) and np.all(np.isfinite(w))


def test_the_24_by_3_head_with_a_duplicated_row():
    _check_wolfe_bias(W24, B24)
    r = audit_argmax(np.array(W24, float), bias=np.array(B24, float), progress=False)
    assert r.counts["all"] == {"argmaxable": 13, "never": 11, "undecided": 0}
    assert check(r.certificate(), None).ok
    for k in range(24):
        assert r.verdicts["all"][k] == oracle(W24, B24, k), k


@pytest.mark.parametrize("seed", range(12))
def test_random_bias_heads_with_duplicated_rows(seed):
    rng = np.random.default_rng(seed)
    m, R = int(rng.integers(8, 20)), int(rng.integers(1, 4))
    W = rng.integers(-R, R + 1, (m, 3))
    b = rng.integers(-1, 2, m)
    for _ in range(2):  # two pairs of equal rows of different bias
        i, j = rng.choice(m, 2, replace=False)
        W[i], b[i] = W[j], b[j] + int(rng.integers(1, 3)) * (1 if rng.random() < 0.5 else -1)
    W, b = W.tolist(), b.tolist()
    _check_wolfe_bias(W, b)
    r = audit_argmax(np.array(W, float), bias=np.array(b, float), progress=False)
    assert r.counts["all"]["undecided"] == 0
    assert check(r.certificate(), None).ok
    for k in range(m):
        assert r.verdicts["all"][k] == oracle(W, b, k), k
