"""The layer-peeled family: weighted columns, per-column feature budgets, three losses.

The program (docs/layer-peeled-family.md, section 1):

    minimise   sum_j w_j L(W h_j; y_j)
    subject to ||W||_F^2 <= E_W,   sum_j beta_j ||h_j||^2 <= E_H,

with column weights ``w_j > 0`` (``weights``), per-column budget weights ``beta_j > 0``
(``h_budget``) and a loss ``L`` in {"ce", "mse", "bce"} (:mod:`logitgeom.convex.losses`).
With ``Z' = W H diag(sqrt(beta))`` it is the convex program

    minimise   sum_j w_j L(z'_j / sqrt(beta_j); y_j)   subject to  ||Z'||_* <= rho = sqrt(E_W E_H),

i.e. a *weighted* nuclear-norm ball ``||Z diag(sqrt(beta))||_* <= rho`` on the logits Z.
``equal_rows`` (a set B of labels) restricts the program to classifiers with ``w_b`` equal
for every b in B (logits with equal rows on B): the *collapsed* program of the minority
collapse question.  Fang, He, Long and Su's imbalanced model is built by
:func:`minority_program` (one column per class) and :func:`minority_samples` (one column
per sample); both have the same value (tests).

Examples
--------
>>> P = minority_program(2, 2, 10)
>>> sol = P.solve()
>>> sol.method, sol.gap < 1e-4        # a bracket, not the solver's last digits
('two-orbit', True)
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import cvxpy as cp
import numpy as np

from logitgeom.convex.losses import Loss, get_loss
from logitgeom.convex.reductions.full import nuclear_ball_constraints
from logitgeom.errors import InvalidInput, SolverFailed
from logitgeom.exact.numbers import to_fraction, to_matrix

__all__ = ["LayerPeeledFamily", "FamilySolution", "FamilyMethod", "minority_program",
           "minority_samples", "two_orbits", "two_orbit_generators", "mse_projection",
           "sm_mse_value", "METHODS"]


class FamilyMethod(enum.StrEnum):
    """The family program's methods (a ``str`` enum: ``FamilyMethod.SVT == "svt"``)."""

    AUTO = "auto"
    #: the general program
    FULL = "full"
    #: Y = I with the labels in at most two classes: one variable per orbit
    TWO_ORBIT = "two-orbit"
    #: the MSE closed form (singular value thresholding)
    SVT = "svt"


METHODS = tuple(m.value for m in FamilyMethod)


def _positive_vector(x: Any, n: int, name: str) -> list[Fraction]:
    """``n`` exact positive numbers (a scalar is repeated)."""
    if x is None:
        return [Fraction(1)] * n
    scalar = isinstance(x, int | float | str | Fraction | np.number)
    vals = [x] * n if scalar else list(np.ravel(np.asarray(x, dtype=object)))
    if len(vals) != n:
        raise InvalidInput(f"{name} must have one entry per column of Y ({n}); got {len(vals)}")
    out = [to_fraction(v, what=f"{name}[{j}]") for j, v in enumerate(vals)]
    for j, q in enumerate(out):
        if q <= 0:
            raise InvalidInput(f"{name}[{j}] must be > 0; got {vals[j]!r}")
    return out


def _budget(x: Any, name: str) -> Fraction:
    q = to_fraction(x, what=name)
    if q <= 0:
        raise InvalidInput(f"{name} must be > 0 (a squared Frobenius budget); got {x!r}")
    return q


class LayerPeeledFamily:
    """``min sum_j w_j L(W h_j; y_j)`` s.t. ``||W||_F^2 <= E_W``,
    ``sum_j beta_j ||h_j||^2 <= E_H`` (optionally with equal classifiers on a label set).

    Parameters
    ----------
    Y : array_like
        m x n targets (probability columns for "ce", entries in [0, 1] for "bce", any
        numbers for "mse"); taken exactly (floats as their binary values).
    E_W, E_H : number
        Budgets (> 0).
    loss : {"ce", "mse", "bce"}
    weights : number or sequence of n numbers, optional
        Column weights ``w_j > 0`` of the loss (default 1).
    h_budget : number or sequence of n numbers, optional
        Budget weights ``beta_j > 0`` of the feature norms (default 1).
    equal_rows : sequence of labels, optional
        Restrict to ``w_b`` equal for all b in the set (at least two labels).

    Raises
    ------
    InvalidInput
        Unknown loss, a weight or budget <= 0 or of the wrong length, a target the loss
        does not accept, bad ``equal_rows``.

    Examples
    --------
    >>> LayerPeeledFamily([[1, 0], [0, 1]], 1, 1, weights=[1, -2])
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: weights[1] must be > 0; got -2
    >>> LayerPeeledFamily([[1, 0], [0, 1]], 1, 1, loss="hinge")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: unknown loss 'hinge'; choose one of ce, mse, bce
    """

    def __init__(self, Y: Any, E_W: Any, E_H: Any, *, loss: str = "ce", weights: Any = None,
                 h_budget: Any = None, equal_rows: Any = None) -> None:
        self.loss: Loss = get_loss(loss)
        self.exact_Y = [list(r) for r in to_matrix(Y, what="Y")]
        self.Y = np.array([[float(x) for x in r] for r in self.exact_Y])
        m, n = self.Y.shape
        self.loss.check_target(self.Y, self.exact_Y)
        self.E_W_exact, self.E_H_exact = _budget(E_W, "E_W"), _budget(E_H, "E_H")
        self.E_W, self.E_H = float(self.E_W_exact), float(self.E_H_exact)
        self.rho = math.sqrt(self.E_W * self.E_H)
        self.weights_exact = _positive_vector(weights, n, "weights")
        self.h_budget_exact = _positive_vector(h_budget, n, "h_budget")
        from logitgeom.limits import check_scale

        check_scale(self.weights_exact, what="weights")
        check_scale(self.h_budget_exact, what="h_budget")
        self.weights = np.array([float(q) for q in self.weights_exact])
        self.h_budget = np.array([float(q) for q in self.h_budget_exact])
        self.equal_rows: tuple[int, ...] = ()
        if equal_rows is not None:
            from logitgeom.limits import as_size

            if isinstance(equal_rows, str | bytes) or not hasattr(equal_rows, "__iter__"):
                raise InvalidInput(f"equal_rows must be a list of labels; got {equal_rows!r}")
            B = sorted({as_size(b, "an entry of equal_rows") for b in equal_rows})
            if len(B) < 2 or B[0] < 0 or B[-1] >= m:
                raise InvalidInput(f"equal_rows must name at least two labels in 0..{m - 1}; "
                                   f"got {list(equal_rows)!r}")
            self.equal_rows = tuple(B)

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        return self.Y.shape

    def project_rows(self, V: np.ndarray) -> np.ndarray:
        """The rows of V on ``equal_rows`` replaced by their mean (the projection Pi)."""
        V = np.array(V, dtype=float)
        if self.equal_rows:
            B = list(self.equal_rows)
            V[B] = V[B].mean(axis=0, keepdims=True)
        return V

    def objective(self, Z: np.ndarray) -> float:
        """``sum_j w_j L(z_j; y_j)`` at logits Z (float)."""
        return self.loss.value(Z, self.Y, self.weights)

    def nuclear(self, Z: np.ndarray) -> float:
        """``||Z diag(sqrt(beta))||_*``."""
        return float(np.linalg.svd(Z * np.sqrt(self.h_budget), compute_uv=False).sum())

    def dual_bound(self, Z: np.ndarray, A: np.ndarray | None = None) -> float:
        """The float lower bound ``sum_j w_j c(a_j; y_j) - rho sigma_max(Pi (A - Y)
        diag(w / sqrt(beta)))`` at ``A`` (default: the dual point of Z)."""
        A = self.loss.dual_point(Z) if A is None else A
        V = self.project_rows((A - self.Y) * (self.weights / np.sqrt(self.h_budget)))
        C = float(self.loss.conjugate_constant(A, self.Y) @ self.weights)
        return C - self.rho * float(np.linalg.norm(V, 2))

    # -- solving -------------------------------------------------------------------
    def select(self, method: str = "auto") -> FamilyMethod:
        """The method ``solve`` uses: "two-orbit" when :func:`two_orbits` finds the
        structure (Y the identity, labels in at most two classes of equal weight and
        budget), else "full".

        Raises
        ------
        InvalidInput
            Unknown method, or "two-orbit" asked for a problem without that structure.
        """
        try:
            chosen = FamilyMethod(method)
        except ValueError:
            raise InvalidInput(f"unknown method {method!r}; choose one of "
                               f"{', '.join(METHODS)}") from None
        orbits = two_orbits(self)
        svt = (self.loss.name == "mse" and not self.equal_rows
               and len(set(self.weights_exact)) == 1 and set(self.h_budget_exact) == {1})
        if chosen is FamilyMethod.SVT and not svt:
            raise InvalidInput("method 'svt' (the MSE closed form) needs loss 'mse', equal "
                               "weights, h_budget 1 and no equal_rows")
        if chosen is FamilyMethod.TWO_ORBIT and orbits is None:
            raise InvalidInput("method 'two-orbit' needs Y = I with the labels in at most two "
                               "classes of equal weight and h_budget (and equal_rows one of them)")
        if chosen is FamilyMethod.AUTO:
            return FamilyMethod.SVT if svt else FamilyMethod.TWO_ORBIT if orbits is not None \
                else FamilyMethod.FULL
        return chosen

    def solve(self, method: str = "auto", solver: str | None = None) -> FamilySolution:
        """Solve the convex form; the solution is scaled into (onto, when better) the ball.

        Raises
        ------
        InvalidInput
            See :meth:`select`; an unknown solver name.
        SolverUnavailable
            ``solver`` is not installed (or MOSEK without a licence).
        SolverFailed
            A status other than optimal.
        """
        from logitgeom.convex.solvers import resolve_solver
        from logitgeom.convex.solvers import solve as conic_solve

        if solver is not None:  # refused by name also where the closed form needs no solver
            resolve_solver(solver)
        method = self.select(method)
        m, n = self.shape
        sq = np.sqrt(self.h_budget)
        if method is FamilyMethod.SVT:
            Z, tau = mse_projection(self.Y, self.rho)
            return FamilySolution(Z=Z, problem=self, method=str(method), solver="closed form",
                                  status="optimal", loss=self.objective(Z),
                                  dual_bound=self.dual_bound(Z), info={"tau": tau})
        if method is FamilyMethod.TWO_ORBIT:
            prob, getz = _two_orbit_program(self, two_orbits(self))
        else:
            Zp = cp.Variable((m, n))
            cons = nuclear_ball_constraints(Zp, self.rho)
            if self.equal_rows:
                b0 = self.equal_rows[0]
                cons += [Zp[b, :] == Zp[b0, :] for b in self.equal_rows[1:]]
            prob = cp.Problem(cp.Minimize(self.loss.expr(Zp @ np.diag(1 / sq), self.Y,
                                                         self.weights)), cons)

            def getz() -> np.ndarray:
                return np.asarray(Zp.value, dtype=float)
        rep = conic_solve(prob, solver, accurate=True)
        Zp_val = getz()
        if Zp_val is None or not np.all(np.isfinite(Zp_val)):
            raise SolverFailed(f"the solver returned no point for method {method!r}")
        if self.equal_rows:  # exactly equal rows (the solver's are equal to its tolerance)
            B = list(self.equal_rows)
            Zp_val[B] = Zp_val[B].mean(axis=0, keepdims=True)
        Z = Zp_val / sq
        nuc = self.nuclear(Z)
        if nuc > self.rho:
            Z = Z * (self.rho / nuc)
        elif 0 < nuc < self.rho and self.objective(Z * (self.rho / nuc)) < self.objective(Z):
            Z = Z * (self.rho / nuc)
        sol = FamilySolution(Z=Z, problem=self, method=str(method), solver=rep.solver,
                             status=str(rep.status), loss=self.objective(Z),
                             dual_bound=self.dual_bound(Z))
        from logitgeom.limits import check_gap

        check_gap(sol.loss, sol.dual_bound, what=f"{rep.solver} on method {method}")
        return sol


@dataclass(frozen=True)
class FamilySolution:
    """A solve of :class:`LayerPeeledFamily`: logits Z (original coordinates), the loss at Z
    (an upper bound: Z is feasible), the float dual bound and the factors."""

    Z: np.ndarray
    problem: LayerPeeledFamily = field(repr=False)
    method: str
    solver: str
    status: str
    loss: float
    dual_bound: float
    info: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """``loss - dual_bound`` (float)."""
        return self.loss - self.dual_bound

    def factors(self) -> tuple[np.ndarray, np.ndarray]:
        """Balanced factors ``(W, H)`` (m x r, r x n) with ``W H = Z``, ``||W||_F^2 <= E_W``
        and ``sum_j beta_j ||h_j||^2 <= E_H``: from ``Z' = Z diag(sqrt(beta)) = U S V^T``,
        ``W = c U S^(1/2)``, ``H = c^-1 S^(1/2) V^T diag(1/sqrt(beta))``, c = (E_W/E_H)^(1/4)."""
        p = self.problem
        sq = np.sqrt(p.h_budget)
        U, S, Vt = np.linalg.svd(self.Z * sq, full_matrices=False)
        c = (p.E_W / p.E_H) ** 0.25
        return c * U * np.sqrt(S), (np.sqrt(S)[:, None] * Vt) / c / sq

    @property
    def WWt(self) -> np.ndarray:  # noqa: N802
        """``W W^T = sqrt(E_W/E_H) (Z' Z'^T)^(1/2)``."""
        W = self.factors()[0]
        return W @ W.T

    def row_cosines(self) -> np.ndarray:
        """Cosines between the classifiers (rows of W)."""
        G = self.WWt
        d = np.sqrt(np.clip(np.diag(G), 1e-300, None))
        return G / d[:, None] / d[None, :]

    def to_dict(self) -> dict:
        """Plain-JSON data (floats and nested lists; write with sorted keys)."""
        p = self.problem
        W, H = self.factors()
        return {"format": "logitgeom.layer_peeled_family_solution", "version": 1,
                "loss": p.loss.name, "shape": list(p.shape), "E_W": p.E_W, "E_H": p.E_H,
                "rho": p.rho, "weights": [str(x) for x in p.weights_exact],
                "h_budget": [str(x) for x in p.h_budget_exact],
                "equal_rows": list(p.equal_rows), "method": self.method,
                "solver": self.solver, "status": self.status, "loss_value": self.loss,
                "dual_bound": self.dual_bound, "gap": self.gap, "Z": self.Z.tolist(),
                "W": W.tolist(), "H": H.tolist(), "WWt": (W @ W.T).tolist(),
                "info": {k: (v if isinstance(v, int | float | str) else str(v))
                         for k, v in self.info.items()}}

    def certificate(self, **kw: Any) -> dict:
        """The certified bracket of this solution
        (:func:`logitgeom.certify.family.family_certificate`); ``generators`` defaults to
        S_A x S_B when :func:`two_orbits` finds that structure (claim ``invariant``)."""
        from logitgeom.certify.family import family_certificate

        if "generators" not in kw:
            orb = two_orbits(self.problem)
            kw["generators"] = two_orbit_generators(*orb, self.problem.shape[0]) if orb else None
        return family_certificate(self.problem, self.Z, **kw)


# ------------------------------------------------------------------ the MSE closed form
def mse_projection(Y: np.ndarray, rho: float) -> tuple[np.ndarray, float]:
    """The optimum of ``min ||Z - Y||_F^2 / 2 s.t. ||Z||_* <= rho``: the projection onto the
    nuclear ball, ``Z = U (S - tau)_+ V^T`` with ``sum (s_i - tau)_+ = rho`` (tau = 0 when
    ``||Y||_* <= rho``); returns ``(Z, tau)``.  The value is ``sum_i min(s_i, tau)^2 / 2``
    (docs/layer-peeled-family.md, section 3).

    Examples
    --------
    >>> Z, tau = mse_projection(np.diag([3.0, 1.0]), 2.0)
    >>> Z.round(12).tolist(), tau
    ([[2.0, 0.0], [0.0, 0.0]], 1.0)
    """
    U, S, Vt = np.linalg.svd(np.asarray(Y, dtype=float), full_matrices=False)
    if S.sum() <= rho:
        return np.asarray(Y, dtype=float).copy(), 0.0
    tau = 0.0
    for k in range(1, len(S) + 1):  # tau with the top k singular values above it
        t = (S[:k].sum() - rho) / k
        if t >= 0 and (k == len(S) or S[k] <= t) and S[k - 1] > t:
            tau = t
            break
    return (U * np.maximum(S - tau, 0.0)) @ Vt, float(tau)


def sm_mse_value(y: Any, rho: float) -> tuple[float, float, float]:
    """Closed-form optimum of the MSE program on the S_m orbit of ``y`` (n = m! columns):
    ``(J*, sigma_0, sigma_c)`` with ``sigma_0 = |sum y| sqrt(n/m)`` (the all-ones
    direction), ``sigma_c = sqrt(n/(m-1)) ||y - mean(y) 1||`` (m - 1 times) and
    ``J* = (min(sigma_0, tau)^2 + (m - 1) min(sigma_c, tau)^2) / 2``.

    Examples
    --------
    >>> round(sm_mse_value([1, 0], 1.0)[0], 12)
    0.25
    """
    y = np.asarray([float(to_fraction(v, what="y")) for v in y])
    m = len(y)
    n = math.factorial(m)
    s0 = abs(y.sum()) * math.sqrt(n / m)
    sc = math.sqrt(n / (m - 1)) * float(np.linalg.norm(y - y.mean()))
    S = np.array(sorted([s0] + [sc] * (m - 1), reverse=True))
    tau = 0.0
    if S.sum() > rho:
        for k in range(1, m + 1):
            t = (S[:k].sum() - rho) / k
            if t >= 0 and (k == m or S[k] <= t) and S[k - 1] > t:
                tau = t
                break
    else:
        return 0.0, s0, sc
    return 0.5 * float(np.sum(np.minimum(S, tau) ** 2)), s0, sc


# -------------------------------------------------------------- the two-orbit reduction
def two_orbits(problem: LayerPeeledFamily) -> tuple[list[int], list[int]] | None:
    """``(A, B)`` label classes when Y is exactly the identity (m = n) and (weight, budget)
    takes at most two values, A the labels of the first value; ``equal_rows`` must be empty
    or one of the classes.  S_A x S_B (permuting rows and columns alike) then preserves
    the program, and some optimum is invariant (docs/layer-peeled-family.md, section 2).

    Examples
    --------
    >>> two_orbits(minority_program(2, 3, 4))
    ([0, 1], [2, 3, 4])
    """
    m, n = problem.shape
    Y = problem.exact_Y
    if m != n or any(Y[i][j] != (i == j) for i in range(m) for j in range(n)):
        return None
    keys = list(zip(problem.weights_exact, problem.h_budget_exact, strict=True))
    vals = list(dict.fromkeys(keys))
    if len(vals) > 2:
        return None
    A = [i for i in range(m) if keys[i] == vals[0]]
    B = [i for i in range(m) if keys[i] != vals[0]]
    if problem.equal_rows and set(problem.equal_rows) not in (set(A), set(B)):
        return None
    return A, B


def two_orbit_generators(A: list[int], B: list[int], m: int) -> list[list[int]]:
    """Generators of S_A x S_B (a transposition and a cycle on each class), image form.

    Examples
    --------
    >>> two_orbit_generators([0, 1], [2, 3, 4], 5)
    [[1, 0, 2, 3, 4], [1, 0, 2, 3, 4], [0, 1, 3, 2, 4], [0, 1, 3, 4, 2]]
    """
    gens = []
    for S in (A, B):
        if len(S) < 2:
            continue
        t, c = list(range(m)), list(range(m))
        t[S[0]], t[S[1]] = S[1], S[0]
        for k, i in enumerate(S):
            c[i] = S[(k + 1) % len(S)]
        gens += [t, c]
    return gens


def _two_orbit_program(problem: LayerPeeledFamily, orbits: tuple[list[int], list[int]]):
    """The invariant program in six numbers: Z' = [[a I + b (J - I), c J], [d J, e I + f (J - I)]]
    on the (A, B) blocks (columns of A first).  ||Z'||_* = (K_A - 1)|a - b| + (K_B - 1)|e - f|
    + ||M||_*, M = [[a + (K_A - 1) b, c sqrt(K_A K_B)], [d sqrt(K_A K_B), e + (K_B - 1) f]]."""
    A, B = orbits
    kA, kB = len(A), len(B)
    loss, rho = problem.loss, problem.rho
    x = cp.Variable(6)  # a b c d e f (entries of Z')
    a, b, c, d, e, f = (x[i] for i in range(6))
    sA = math.sqrt(problem.h_budget[A[0]])
    wA = problem.weights[A[0]]
    r = math.sqrt(kA * kB)
    if kB:
        sB, wB = math.sqrt(problem.h_budget[B[0]]), problem.weights[B[0]]
        M = cp.bmat([[cp.reshape(a + (kA - 1) * b, (1, 1), order="F"),
                      cp.reshape(c * r, (1, 1), order="F")],
                     [cp.reshape(d * r, (1, 1), order="F"),
                      cp.reshape(e + (kB - 1) * f, (1, 1), order="F")]])
        nuc = (kA - 1) * cp.abs(a - b) + (kB - 1) * cp.abs(e - f) + cp.normNuc(M)
    else:
        nuc = (kA - 1) * cp.abs(a - b) + cp.abs(a + (kA - 1) * b)
    cons = [nuc <= rho]
    if problem.equal_rows:
        cons.append((a == b) if set(problem.equal_rows) == set(A) else (e == f))

    def col(own, other, third, k_own, k_third):
        """A column's logits as (value, multiplicity, target) triples."""
        return [(own, 1, 1.0), (other, k_own - 1, 0.0), (third, k_third, 0.0)]

    def L(parts, scale):
        parts = [(v / scale, k, y) for v, k, y in parts if k > 0]
        if loss.name == "ce":
            return cp.log_sum_exp(cp.hstack([v + math.log(k) for v, k, _ in parts])) - parts[0][0]
        if loss.name == "mse":
            return sum(0.5 * k * cp.square(v - y) for v, k, y in parts)
        return sum(k * (cp.logistic(v) - y * v) for v, k, y in parts)

    obj = kA * wA * L(col(a, b, d, kA, kB), sA)
    if kB:
        obj = obj + kB * wB * L(col(e, f, c, kB, kA), sB)
    prob = cp.Problem(cp.Minimize(obj), cons)

    def getz() -> np.ndarray | None:
        if x.value is None:
            return None
        av, bv, cv, dv, ev, fv = (float(t) for t in x.value)
        m = kA + kB
        Z = np.zeros((m, m))
        for i in A:
            for j in A:
                Z[i, j] = av if i == j else bv
            for j in B:
                Z[j, i] = dv
        for i in B:
            for j in B:
                Z[i, j] = ev if i == j else fv
            for j in A:
                Z[j, i] = cv
        return Z

    return prob, getz


# ------------------------------------------------------------- Fang et al.'s model
def minority_program(K_A: int, K_B: int, ratio: Any, E_W: Any = 1, E_H: Any = 1, *,
                     loss: str = "ce", collapsed: bool = False) -> LayerPeeledFamily:
    """Fang, He, Long and Su's imbalanced layer-peeled model, one column per class.

    K_A majority classes with ``n_A = ratio`` samples, K_B minority classes with
    ``n_B = 1``; loss averaged over the N = K_A n_A + K_B n_B samples, budgets averaged
    per class: ``(1/K) sum_k ||w_k||^2 <= E_W``, ``(1/K) sum_k (1/n_k) sum_i
    ||h_{k,i}||^2 <= E_H`` (K = K_A + K_B).  Jensen's inequality (the loss is convex in h,
    the norm too) makes the features of one class equal at an optimum, so this is
    ``Y = I_K``, ``w_k = n_k / N``, budgets ``K E_W`` and ``K E_H``, ``beta = 1``.
    ``collapsed``: restrict to equal minority classifiers.

    Raises
    ------
    InvalidInput
        K_A or K_B < 1, ratio <= 0.

    Examples
    --------
    >>> P = minority_program(2, 1, 3)
    >>> [str(w) for w in P.weights_exact], P.E_W
    (['3/7', '3/7', '1/7'], 3.0)
    """
    if int(K_A) < 1 or int(K_B) < 1:
        raise InvalidInput(f"K_A and K_B must be >= 1; got {K_A!r}, {K_B!r}")
    R = to_fraction(ratio, what="ratio")
    if R <= 0:
        raise InvalidInput(f"the imbalance ratio must be > 0; got {ratio!r}")
    K = int(K_A) + int(K_B)
    N = K_A * R + K_B
    w = [R / N] * K_A + [1 / N] * K_B
    return LayerPeeledFamily(np.eye(K, dtype=int).tolist(), K * _budget(E_W, "E_W"),
                             K * _budget(E_H, "E_H"), loss=loss, weights=w,
                             equal_rows=list(range(K_A, K)) if collapsed else None)


def minority_samples(K_A: int, K_B: int, n_A: int, n_B: int, E_W: Any = 1, E_H: Any = 1, *,
                     loss: str = "ce") -> LayerPeeledFamily:
    """The same model with one column per *sample* (the unreduced program): N columns,
    ``w_j = 1/N``, ``beta_j = 1 / (K n_k)``, budgets ``K E_W`` and ``E_H``.

    Examples
    --------
    >>> minority_samples(1, 1, 2, 1).shape
    (2, 3)
    """
    if min(int(K_A), int(K_B), int(n_A), int(n_B)) < 1:
        raise InvalidInput("K_A, K_B, n_A and n_B must be positive integers")
    K = K_A + K_B
    cls = [k for k in range(K) for _ in range(n_A if k < K_A else n_B)]
    N = len(cls)
    Y = [[int(k == c) for c in cls] for k in range(K)]
    beta = [Fraction(1, K * (n_A if c < K_A else n_B)) for c in cls]
    return LayerPeeledFamily(Y, K * _budget(E_W, "E_W"), E_H, loss=loss,
                             weights=[Fraction(1, N)] * N, h_budget=beta)
