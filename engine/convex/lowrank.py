"""The rank-constrained layer-peeled program (hidden width D below the convex optimum's rank).

``P_D``: minimise J(W H) over W (m x D), H (D x n), ||W||_F^2 <= E_W, ||H||_F^2 <= E_H.  Every
feasible Z = W H has rank <= D and ||Z||_* <= rho = sqrt(E_W E_H), so the convex program (no
rank bound) is a relaxation: J*_conv <= J*_D.  This module proposes feasible points with D
columns (floats; :mod:`logitgeom.certify.rank` turns the best one into exact rationals and a
certificate, docs/beyond-symmetry.md):

- ``truncate``: the top-D part of the convex optimum's spectrum, rescaled to the radius;
- ``subspace``: the convex program restricted to a D-dimensional column space B
  (``min J(B X) s.t. ||X||_* <= rho``, convex; rank B X <= D), for B = the top-D left singular
  vectors of the convex optimum, and, for a cyclic target (one or several cyclic blocks),
  B = the real Fourier modes of the strongest frequencies (conjugate pairs kept together:
  an invariant low-rank candidate), for other targets unions of whole eigenspaces of Z Z^T
  (invariant under every label symmetry of the optimum);
- ``descent``: L-BFGS on the factors from the best candidate (a local method).

Examples
--------
>>> import numpy as np
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.convex.targets import cyclic_orbit
>>> r = rank_constrained(LayerPeeled(cyclic_orbit([0.7, 0.2, 0.1, 0.0]), 1, 4, d=3))
>>> r.exact, r.W.shape
(True, (4, 3))
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logitgeom.convex.loss import cross_entropy, softmax
from logitgeom.errors import InvalidInput

__all__ = ["RankResult", "rank_constrained", "rank_certificate", "truncate",
           "subspace_optimum", "fourier_basis", "factor_descent", "balanced_factors",
           "is_cyclic_block", "RELAX_EXACT_TOL"]

#: relative difference of the convex value and the best rank-D loss below which the float
#: result calls the relaxation exact (a float report; the certificate states its own width)
RELAX_EXACT_TOL = 1e-7


@dataclass(frozen=True)
class RankResult:
    """The best rank-D point found and what it is compared with.

    ``W`` (m x D), ``H`` (D x n) are feasible floats with ``loss = J(W H)``;
    ``convex_loss`` / ``convex_lower`` are the convex solution's value and dual bound (a
    lower bound for every D); ``gap = loss - convex_lower``; ``exact`` is ``rank <= D`` or a
    relative gap below :data:`RELAX_EXACT_TOL`; ``candidates`` maps each construction to
    its loss; ``construction`` names the best.
    """

    D: int
    W: np.ndarray
    H: np.ndarray
    loss: float
    construction: str
    convex_loss: float
    convex_lower: float
    convex_rank: int
    exact: bool
    candidates: dict = field(default_factory=dict)
    solution: Any = field(default=None, repr=False, compare=False)

    @property
    def gap(self) -> float:
        return self.loss - self.convex_lower


def balanced_factors(Z: np.ndarray, D: int, E_W: float,
                     E_H: float) -> tuple[np.ndarray, np.ndarray]:
    """W (m x D), H (D x n) with W H = Z (rank <= D) and ||W||_F^2 = sqrt(E_W/E_H) ||Z||_*.

    Examples
    --------
    >>> W, H = balanced_factors(np.array([[2.0, 0.0], [0.0, 0.0]]), 1, 1.0, 4.0)
    >>> W.shape, bool(np.allclose(W @ H, [[2, 0], [0, 0]]))
    ((2, 1), True)
    """
    U, s, Vt = np.linalg.svd(np.asarray(Z, dtype=float), full_matrices=False)
    k = min(D, len(s))
    c = (E_W / E_H) ** 0.25
    W = np.zeros((Z.shape[0], D))
    H = np.zeros((D, Z.shape[1]))
    W[:, :k] = c * U[:, :k] * np.sqrt(s[:k])
    H[:k] = (np.sqrt(s[:k])[:, None] * Vt[:k]) / c
    return W, H


def truncate(Z: np.ndarray, D: int, rho: float) -> np.ndarray:
    """The top-D part of Z's spectrum, scaled so that its nuclear norm is ``rho``.

    Examples
    --------
    >>> Zt = truncate(np.diag([3.0, 1.0]), 1, 2.0)
    >>> Zt.tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    U, s, Vt = np.linalg.svd(np.asarray(Z, dtype=float), full_matrices=False)
    s = s[:D]
    if s.sum() <= 0:
        return np.zeros_like(Z, dtype=float)
    return (U[:, :D] * (s * (rho / s.sum()))) @ Vt[:D]


def subspace_optimum(Y: np.ndarray, B: np.ndarray, rho: float, solver: str | None = None
                     ) -> np.ndarray:
    """``B X*`` with ``X* = argmin J(B X)`` s.t. ``||X||_* <= rho`` (B: m x k orthonormal
    columns, so ``||B X||_* = ||X||_*`` and rank ``B X <= k``).

    Examples
    --------
    >>> Y = np.array([[0.9, 0.1], [0.1, 0.9]])
    >>> B = np.array([[1.0], [-1.0]]) / np.sqrt(2)
    >>> Z = subspace_optimum(Y, B, 1.0)
    >>> bool(np.linalg.matrix_rank(Z, 1e-8) == 1)
    True
    """
    import cvxpy as cp

    from logitgeom.convex.loss import cross_entropy_expr
    from logitgeom.convex.reductions.full import nuclear_ball_constraints
    from logitgeom.convex.solvers import solve

    B = np.asarray(B, dtype=float)
    X = cp.Variable((B.shape[1], Y.shape[1]))
    Z = B @ X
    cons = ([cp.norm(X, 2) <= rho] if B.shape[1] == 1 else
            nuclear_ball_constraints(X, rho))
    prob = cp.Problem(cp.Minimize(cross_entropy_expr(Z, np.asarray(Y, dtype=float))), cons)
    solve(prob, solver, accurate=True)
    Zv = B @ np.asarray(X.value, dtype=float)
    nuc = float(np.linalg.svd(Zv, compute_uv=False).sum())
    return Zv * (rho / nuc) if nuc > rho else Zv


def fourier_basis(m: int, ks: tuple[int, ...]) -> np.ndarray:
    """Orthonormal real Fourier modes of the frequencies ``ks`` (1 <= k <= m/2): cos and sin
    for k < m/2, cos only for k = m/2.

    Examples
    --------
    >>> fourier_basis(4, (1, 2)).shape
    (4, 3)
    """
    cols = []
    t = 2 * np.pi * np.arange(m) / m
    for k in ks:
        cols.append(np.cos(k * t))
        if 2 * k != m:
            cols.append(np.sin(k * t))
    B = np.array(cols).T
    return B / np.linalg.norm(B, axis=0, keepdims=True)


def is_cyclic_block(Y: np.ndarray) -> bool:
    """Whether the cyclic shift of the labels permutes the columns of Y (compared exactly): a
    union of cyclic orbits, e.g. one cyclic block ``Y[i+1, j+1] = Y[i, j]`` or several.

    Examples
    --------
    >>> is_cyclic_block(np.array([[0.7, 0.3], [0.3, 0.7]]))
    True
    >>> is_cyclic_block(np.array([[0.7, 0.3], [0.3, 0.7], [0.0, 0.0]]))
    False
    """
    Y = np.asarray(Y)
    cols = sorted(map(tuple, Y.T.tolist()))
    return cols == sorted(map(tuple, np.roll(Y, 1, axis=0).T.tolist()))


#: _frequency_sets draws its sets from at most this many of the strongest frequencies
#: (2^16 subsets at most: every set of all m / 2 frequencies was 2^32 at m = 64)
_FREQUENCY_POOL = 16


def _frequency_sets(m: int, strength: np.ndarray, D: int, keep: int) -> list[tuple[int, ...]]:
    """The ``keep`` maximal frequency sets of real dimension <= D with the largest total
    strength (|z_hat_k| of the convex optimum), among the :data:`_FREQUENCY_POOL` strongest
    frequencies (candidates only: the certificate states its own width).

    Examples
    --------
    >>> _frequency_sets(64, np.arange(64.0)[::-1], 1, 3)
    [(32,)]
    >>> _frequency_sets(8, np.array([0, 4, 1, 3, 2, 0, 0, 0.0]), 4, 2)
    [(1, 3), (1, 4)]
    """
    allk = range(1, m // 2 + 1)
    ks = sorted(allk, key=lambda k: (-float(strength[k]), k))[:_FREQUENCY_POOL]
    if m % 2 == 0 and m // 2 not in ks:  # the one mode of dimension 1 (the only one at D = 1)
        ks.append(m // 2)
    ks.sort()
    dim = {k: 1 if 2 * k == m else 2 for k in ks}
    sets = []
    for r in range(1, min(len(ks), D) + 1):  # every frequency has dimension >= 1
        for S in itertools.combinations(ks, r):
            used = sum(dim[k] for k in S)
            if used > D:
                continue
            if any(k not in S and used + dim[k] <= D for k in ks):
                continue  # not maximal
            sets.append(S)
    sets.sort(key=lambda S: -sum(strength[k] for k in S))
    return sets[:keep]


def _eigenspace_sets(s: np.ndarray, D: int, keep: int,
                     rtol: float = 1e-5) -> list[list[list[int]]]:
    """Maximal unions of whole clusters of equal singular values (relative ``rtol``) of total
    dimension <= D, strongest first, those that are not just the top-D space (at most
    ``keep``).  Each cluster spans an eigenspace of Z Z^T, which every label permutation
    preserving Z commutes with: the union is a G-invariant subspace."""
    clusters: list[list[int]] = []
    for i, v in enumerate(s):
        if clusters and abs(v - s[clusters[-1][0]]) <= rtol * s[clusters[-1][0]]:
            clusters[-1].append(i)
        else:
            clusters.append([i])
    if len(clusters) > 16:
        return []
    out = []
    for r in range(1, len(clusters) + 1):
        for S in itertools.combinations(range(len(clusters)), r):
            used = sum(len(clusters[c]) for c in S)
            if used > D or any(c not in S and used + len(clusters[c]) <= D
                               for c in range(len(clusters))):
                continue
            cols = sorted(i for c in S for i in clusters[c])
            if cols != list(range(D)):  # the top-D column space is tried anyway
                out.append([clusters[c] for c in S])
    out.sort(key=lambda S: -sum(s[i] for c in S for i in c))
    return out[:keep]


def _loss_grad(Y: np.ndarray, W: np.ndarray, H: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    Z = W @ H
    G = softmax(Z) - Y
    return cross_entropy(Z, Y), G @ H.T, W.T @ G


def factor_descent(Y: np.ndarray, W: np.ndarray, H: np.ndarray, E_W: float, E_H: float, *,
                   iters: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """Local descent (L-BFGS-B) on ``W = sqrt(E_W) t_W A / ||A||``, ``H = sqrt(E_H) t_H B / ||B||``
    with ``t_W, t_H in [0, 1]`` (every point feasible), from (W, H).

    Examples
    --------
    >>> Y = np.array([[0.9, 0.1], [0.1, 0.9]])
    >>> W, H = factor_descent(Y, np.array([[0.5], [0.1]]), np.array([[0.3, 0.2]]), 1.0, 1.0)
    >>> bool(cross_entropy(W @ H, Y) < cross_entropy(np.array([[0.5], [0.1]]) @ [[0.3, 0.2]], Y))
    True
    """
    from scipy.optimize import minimize

    m, D = W.shape
    n = H.shape[1]
    cw, ch = math.sqrt(E_W), math.sqrt(E_H)
    rng = np.random.default_rng(0)
    A0 = W + (1e-9 * rng.standard_normal(W.shape) if not W.any() else 0)
    B0 = H + (1e-9 * rng.standard_normal(H.shape) if not H.any() else 0)
    tw0 = min(1.0, float(np.linalg.norm(W)) / cw)
    th0 = min(1.0, float(np.linalg.norm(H)) / ch)

    def unpack(x):
        A = x[:m * D].reshape(m, D)
        B = x[m * D:m * D + D * n].reshape(D, n)
        na, nb = float(np.linalg.norm(A)), float(np.linalg.norm(B))
        return A, B, na, nb, x[-2], x[-1]

    def f(x):
        A, B, na, nb, tw, th = unpack(x)
        fa, fb = A / na, B / nb
        Wx, Hx = cw * tw * fa, ch * th * fb
        val, gW, gH = _loss_grad(Y, Wx, Hx)
        ga = cw * tw * (gW - fa * np.sum(fa * gW)) / na
        gb = ch * th * (gH - fb * np.sum(fb * gH)) / nb
        return val, np.concatenate([ga.ravel(), gb.ravel(),
                                    [cw * np.sum(fa * gW), ch * np.sum(fb * gH)]])

    x0 = np.concatenate([A0.ravel(), B0.ravel(), [tw0, th0]])
    bounds = [(None, None)] * (m * D + D * n) + [(0.0, 1.0), (0.0, 1.0)]
    res = minimize(f, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": iters, "gtol": 1e-12, "ftol": 1e-15})
    A, B, na, nb, tw, th = unpack(res.x)
    return cw * tw * A / na, ch * th * B / nb


def rank_constrained(problem: Any, D: int | None = None, *, sol: Any = None,
                     solver: str | None = None, fourier_keep: int = 3,
                     descent: bool = True) -> RankResult:
    """The best rank-D point of several constructions, with the convex relaxation's value.

    Parameters
    ----------
    problem : logitgeom.convex.LayerPeeled
        Target and budgets; ``D`` defaults to ``problem.d``.
    D : int or None
        Hidden width (>= 1).
    sol : LayerPeeledSolution, optional
        The convex solution (solved here when absent).
    solver : str, optional
        Conic solver of the subspace programs.
    fourier_keep : int
        How many frequency sets (by strength) a cyclic target tries.
    descent : bool
        Polish the best candidate by :func:`factor_descent`.

    Returns
    -------
    RankResult

    Raises
    ------
    InvalidInput
        D missing or < 1.
    """
    D = problem.d if D is None else D
    if D is None or isinstance(D, bool) or not isinstance(D, int | np.integer) or D < 1:
        raise InvalidInput(f"the hidden width D must be a positive integer; got {D!r}")
    D = int(D)
    if sol is None:
        sol = problem.solve(solver=solver)
    Y = np.asarray(problem.Y, dtype=float)
    rho, E_W, E_H = problem.rho, problem.E_W, problem.E_H
    Zc = sol.Z - sol.Z.mean(axis=0, keepdims=True)
    cands: dict[str, np.ndarray] = {}
    U, s, _ = np.linalg.svd(Zc, full_matrices=False)
    rank = int(np.sum(s > 1e-7 * max(s[0], 1e-300)))
    if rank <= D:
        cands["convex optimum (rank <= D)"] = Zc
    else:
        cands["spectrum truncation"] = truncate(Zc, D, rho if problem.budget_active else
                                                float(s[:D].sum()))
        cands["top-D column space"] = subspace_optimum(Y, U[:, :D], rho, solver)
        if is_cyclic_block(problem.codes):  # exact comparison of the entries
            m = Y.shape[0]
            strength = np.linalg.norm(np.fft.fft(Zc, axis=0), axis=1)  # per frequency
            for S in _frequency_sets(m, strength, D, fourier_keep):
                cands[f"Fourier modes {list(S)}"] = subspace_optimum(
                    Y, fourier_basis(m, S), rho, solver)
        else:  # unions of eigenspaces of Z Z^T: invariant under every symmetry of the optimum
            for idx in _eigenspace_sets(s[:rank], D, fourier_keep):
                dims = "+".join(str(len(c)) for c in idx)
                cols = [i for c in idx for i in c]
                cands[f"eigenspaces {dims}"] = subspace_optimum(Y, U[:, cols], rho, solver)
    losses = {k: cross_entropy(Z, Y) for k, Z in cands.items()}
    best = min(losses, key=losses.get)
    W, H = balanced_factors(cands[best], D, E_W, E_H)
    if descent and rank > D:
        W2, H2 = factor_descent(Y, W, H, E_W, E_H)
        l2 = cross_entropy(W2 @ H2, Y)
        losses[f"descent from {best}"] = l2
        if l2 < losses[best]:
            W, H, best = W2, H2, f"descent from {best}"
    loss = cross_entropy(W @ H, Y)
    exact = rank <= D or (loss - sol.dual_bound) <= RELAX_EXACT_TOL * max(abs(loss), 1e-300)
    return RankResult(D=D, W=W, H=H, loss=loss, construction=best, convex_loss=sol.loss,
                      convex_lower=sol.dual_bound, convex_rank=rank, exact=exact,
                      candidates=losses, solution=sol)


def rank_certificate(problem: Any, D: int | None = None, *, result: RankResult | None = None,
                     sol: Any = None, solver: str | None = None, **kw: Any) -> dict:
    """Search (:func:`rank_constrained`, from the convex solution ``sol`` when given, unless
    ``result`` is given) and certify: a
    ``layer-peeled-rank-bracket`` for hidden width D (keywords: ``eps``, ``eps_mode``,
    ``precision``, ``provenance`` of :func:`logitgeom.certify.rank.rank_bracket_certificate`).

    Raises
    ------
    InvalidInput
        Y not exact, D not a positive integer.

    Examples
    --------
    >>> from logitgeom.convex.problem import LayerPeeled
    >>> from logitgeom.convex.targets import cyclic_orbit
    >>> lp = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/8", "1/8"], exact=True), 1, 4, d=2)
    >>> rank_certificate(lp)["d"]
    2
    """
    from logitgeom.certify.rank import rank_bracket_certificate

    if result is None:
        result = rank_constrained(problem, D, sol=sol, solver=solver)
    return rank_bracket_certificate(problem, result, **kw)
