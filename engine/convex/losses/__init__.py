"""The losses of the layer-peeled family: cross-entropy, MSE and binary cross-entropy.

Each loss is a convex function ``L(z; y)`` of one logit column ``z`` (target column ``y``)
with a Fenchel lower bound of one common shape (docs/layer-peeled-family.md, section 3):

    L(z; y) >= c(a; y) + (a - y) . z        for every admissible a,

with equality at ``a = grad L(z; y) + y`` (the *dual point*):

==========  ===============================  ==========================  ===================
loss        L(z; y)                          c(a; y)                     admissible a
==========  ===============================  ==========================  ===================
``"ce"``    lse(z) - y . z                   Ent(a)                      a in the simplex
``"mse"``   ||z - y||^2 / 2                  (||y||^2 - ||a||^2) / 2     any a
``"bce"``   sum_i log(1 + e^{z_i}) - y . z   sum_i H_b(a_i)              a in [0, 1]^m
==========  ===============================  ==========================  ===================

(H_b(t) = -t log t - (1 - t) log(1 - t).)  The dual point is softmax(z), z itself, and
sigmoid(z) respectively.  Targets: probability columns for ``"ce"``, entries in [0, 1] for
``"bce"``, any real numbers for ``"mse"``.

Examples
--------
>>> import numpy as np
>>> z, y = np.array([[1.0], [0.0]]), np.array([[1.0], [0.0]])
>>> round(get_loss("mse").value(z, y), 12), get_loss("ce").name
(0.0, 'ce')
>>> get_loss("hinge")
Traceback (most recent call last):
...
logitgeom.errors.InvalidInput: unknown loss 'hinge'; choose one of ce, mse, bce
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np

from logitgeom.convex.loss import cross_entropy, softmax
from logitgeom.errors import InvalidInput

__all__ = ["LOSSES", "Loss", "get_loss"]

#: the loss names, in the order the CLI lists them
LOSSES = ("ce", "mse", "bce")


def _bin_ent(A: np.ndarray) -> np.ndarray:
    """Entrywise H_b(a) (0 log 0 = 0)."""
    A = np.clip(np.asarray(A, dtype=float), 0.0, 1.0)
    out = np.zeros_like(A)
    for T in (A, 1.0 - A):
        pos = T > 0
        out[pos] -= T[pos] * np.log(T[pos])
    return out


def _softplus(Z: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, Z)


@dataclass(frozen=True)
class Loss:
    """One member of the family (see the module docstring); stateless."""

    name: str

    def per_column(self, Z: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """``L(z_j; y_j)`` for every column j (float)."""
        Z, Y = np.asarray(Z, dtype=float), np.asarray(Y, dtype=float)
        if self.name == "ce":
            return np.array([cross_entropy(Z[:, j:j + 1], Y[:, j:j + 1])
                             for j in range(Z.shape[1])])
        if self.name == "mse":
            return 0.5 * np.sum((Z - Y) ** 2, axis=0)
        return np.sum(_softplus(Z) - Y * Z, axis=0)

    def value(self, Z: np.ndarray, Y: np.ndarray, weights: np.ndarray | None = None) -> float:
        """``sum_j w_j L(z_j; y_j)`` (w = 1 by default)."""
        per = self.per_column(Z, Y)
        return float(per.sum() if weights is None else per @ np.asarray(weights, dtype=float))

    def dual_point(self, Z: np.ndarray) -> np.ndarray:
        """``a = grad L(z; y) + y`` column by column: softmax, identity or sigmoid."""
        Z = np.asarray(Z, dtype=float)
        if self.name == "ce":
            return softmax(Z)
        if self.name == "mse":
            return Z.copy()
        return 0.5 * (1.0 + np.tanh(0.5 * Z))

    def conjugate_constant(self, A: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """``c(a_j; y_j)`` for every column (float)."""
        A, Y = np.asarray(A, dtype=float), np.asarray(Y, dtype=float)
        if self.name == "ce":
            return _shannon(A)
        if self.name == "mse":
            return 0.5 * (np.sum(Y ** 2, axis=0) - np.sum(A ** 2, axis=0))
        return _bin_ent(A).sum(axis=0)

    def admissible(self, A: np.ndarray) -> np.ndarray:
        """A projected (in float) onto the admissible set: columns on the simplex (clip and
        renormalise), entries in [0, 1], or unchanged."""
        A = np.asarray(A, dtype=float)
        if self.name == "ce":
            A = np.maximum(A, 0.0)
            return A / A.sum(axis=0, keepdims=True)
        if self.name == "bce":
            return np.clip(A, 0.0, 1.0)
        return A

    def expr(self, Z: Any, Y: np.ndarray, weights: np.ndarray) -> Any:
        """The CVXPY expression of ``sum_j w_j L(z_j; y_j)`` for a matrix expression Z."""
        w = np.asarray(weights, dtype=float)
        if self.name == "ce":
            return w @ cp.log_sum_exp(Z, axis=0) - w @ cp.sum(cp.multiply(Y, Z), axis=0)
        if self.name == "mse":
            return 0.5 * cp.sum(cp.multiply(np.broadcast_to(w, Y.shape), cp.square(Z - Y)))
        return cp.sum(cp.multiply(np.broadcast_to(w, Y.shape), cp.logistic(Z) - cp.multiply(Y, Z)))

    def check_target(self, Y: np.ndarray, exact: list[list[Any]] | None = None) -> None:
        """Refuse a target the loss is not defined for (one line naming the entry).

        Raises
        ------
        InvalidInput
            CE: a negative entry or a column not summing to 1 (exactly, for exact input);
            BCE: an entry outside [0, 1]; any loss: NaN or infinity.
        """
        Y = np.asarray(Y, dtype=float)
        if not np.all(np.isfinite(Y)):
            raise InvalidInput("Y has a NaN or infinite entry")
        if self.name == "bce" and (np.any(Y < 0) or np.any(Y > 1)):
            i, j = np.argwhere((Y < 0) | (Y > 1))[0]
            raise InvalidInput(f"loss 'bce' needs targets in [0, 1]; Y[{i}, {j}] = {Y[i, j]!r}")
        if self.name == "ce":
            if np.any(Y < 0):
                i, j = np.argwhere(Y < 0)[0]
                raise InvalidInput(f"loss 'ce' needs probability columns; Y[{i}, {j}] < 0")
            sums = [sum(c) for c in zip(*exact, strict=True)] if exact is not None \
                else list(Y.sum(axis=0))
            for j, t in enumerate(sums):
                if abs(float(t) - 1.0) > 1e-9:
                    raise InvalidInput(f"loss 'ce' needs probability columns; Y column {j} "
                                       f"sums to {float(t):.12g}, not 1")


def _shannon(A: np.ndarray) -> np.ndarray:
    """sum_i -a_i log a_i per column (0 log 0 = 0)."""
    A = np.clip(np.asarray(A, dtype=float), 0.0, 1.0)
    L = np.zeros_like(A)
    pos = A > 0
    L[pos] = A[pos] * np.log(A[pos])
    return -L.sum(axis=0)


def get_loss(name: Any) -> Loss:
    """The loss called ``name`` ("ce", "mse" or "bce", case-insensitive).

    Raises
    ------
    InvalidInput
        Any other name (the message lists the choices).

    Examples
    --------
    >>> get_loss("MSE").name
    'mse'
    """
    key = str(name).lower() if isinstance(name, str) else None
    if key not in LOSSES:
        raise InvalidInput(f"unknown loss {name!r}; choose one of {', '.join(LOSSES)}")
    return Loss(key)
