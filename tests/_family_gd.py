"""An independent optimiser of the layer-peeled family: projected gradient descent with
momentum on the nonconvex factors (W, H), from several random starts (tests only).

The feature budget ``sum_j beta_j ||h_j||^2 <= E_H`` is a Frobenius ball in
``H' = H diag(sqrt(beta))``; both factors are projected onto their balls after each step.
Nothing here uses the convex reformulation.
"""

from __future__ import annotations

import numpy as np


def _grad_z(loss: str, Z: np.ndarray, Y: np.ndarray) -> np.ndarray:
    if loss == "ce":
        E = np.exp(Z - Z.max(axis=0, keepdims=True))
        return E / E.sum(axis=0, keepdims=True) - Y
    if loss == "mse":
        return Z - Y
    return 0.5 * (1 + np.tanh(0.5 * Z)) - Y


def _value(loss: str, Z: np.ndarray, Y: np.ndarray, w: np.ndarray) -> float:
    if loss == "ce":
        mx = Z.max(axis=0)
        per = mx + np.log(np.exp(Z - mx).sum(axis=0)) - (Y * Z).sum(axis=0)
    elif loss == "mse":
        per = 0.5 * ((Z - Y) ** 2).sum(axis=0)
    else:
        per = (np.logaddexp(0, Z) - Y * Z).sum(axis=0)
    return float(per @ w)


def _proj(M: np.ndarray, r2: float) -> np.ndarray:
    n2 = float((M * M).sum())
    return M if n2 <= r2 else M * np.sqrt(r2 / n2)


def gd_optimum(loss: str, Y, E_W: float, E_H: float, weights=None, h_budget=None, *,
               d: int | None = None, starts: int = 4, iters: int = 20000, seed: int = 0) -> float:
    """The best loss ``sum_j w_j L(W h_j; y_j)`` found from ``starts`` random feasible starts."""
    Y = np.asarray(Y, dtype=float)
    m, n = Y.shape
    d = d or min(m, n)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    sq = np.sqrt(np.ones(n) if h_budget is None else np.asarray(h_budget, dtype=float))
    rng = np.random.default_rng(seed)
    best = np.inf
    for _ in range(starts):
        W = _proj(rng.normal(size=(m, d)), E_W)
        Hp = _proj(rng.normal(size=(d, n)), E_H)
        W, Hp = W * np.sqrt(E_W / (W * W).sum()), Hp * np.sqrt(E_H / (Hp * Hp).sum())
        Wv, Hv = W.copy(), Hp.copy()
        L = float(np.max(w / sq ** 2)) * (E_W + E_H) + 1e-12
        step = 1.0 / L
        for t in range(iters):
            G = _grad_z(loss, Wv @ Hv / sq, Y) * (w / sq)
            Wn = _proj(Wv - step * G @ Hv.T, E_W)
            Hn = _proj(Hv - step * Wv.T @ G, E_H)
            mom = t / (t + 3)
            Wv, Hv = Wn + mom * (Wn - W), Hn + mom * (Hn - Hp)
            W, Hp = Wn, Hn
        best = min(best, _value(loss, W @ Hp / sq, Y, w))
    return best
