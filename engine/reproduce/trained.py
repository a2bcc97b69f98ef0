"""The nonconvex layer-peeled program solved by gradient descent (weekday target).

The symmetry paper ("Uncovering Symmetry Transfer in Large Language Models via Layer-Peeled
Optimization", Du, He and Su) proves that the optimum of the layer-peeled program inherits
the symmetry of the targets.  This module minimises that nonconvex program over (W, H) by
gradient descent, with each context's feature produced by a small MLP from a free
per-context embedding (so in effect a free feature per context), and checks that the
iterates approach the convex program's optimum.  It is not a language model: the trained
transformer LM is :mod:`logitgeom.reproduce.lm`.

The task ("Today is <day>. Tomorrow is ..."): context ``j`` (one of ``n = 7`` weekdays, a
token) has the next-token distribution ``y_j = P^j y`` over ``m = 7`` day tokens (the
weekday target of Thm 1, rotated: the columns of ``cyclic_orbit(y)``).  The network maps a
context token through an embedding and a two-layer MLP to a feature ``h_j`` in ``R^d``;
the head ``W`` (``m x d``, no bias) gives the logits ``W h_j``.  Training minimises the
expected next-token cross-entropy (the soft targets are the expectation over a corpus
sampled from ``y_j``), summed over contexts as in ``J``, plus weight decay on the head and
on the features::

    J(W H) + lam_W ||W||_F^2 + lam_H ||H||_F^2        (H = [h_1 ... h_n])

A minimiser of this penalised loss also minimises ``J`` under the budgets it ends with,
``E_W = ||W||_F^2`` and ``E_H = ||H||_F^2`` (a feasible point with a lower ``J`` would lower
the penalised loss).  So at each checkpoint the trained ``(W, H)`` is compared with the
layer-peeled optimum *for the matching budgets* (solved by :class:`logitgeom.convex.LayerPeeled`,
DFT reduction): the loss gap ``J(W H) - J*`` (>= 0 up to solver accuracy, since ``(W, H)``
is feasible), the relative Frobenius distances of ``W W^T`` and ``H^T H`` to the optimum's
Grams, and ``delta_circ`` of the trained ``W W^T``.  Deterministic (fixed seed, one thread)
and about 3 s of CPU.  See docs/paper-output.md.

Examples
--------
>>> tr = train_cyclic(steps=300, checkpoints=(100, 300))     # doctest: +SKIP
>>> tr.rows[-1]["loss_gap"] < tr.rows[0]["loss_gap"]         # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["WEEKDAYS", "TrainingTrace", "train_cyclic"]

#: label names of the weekday task (context j is "today is WEEKDAYS[j]")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: the weekday target of Thm 1: mass on the next days, none on today
WEEKDAY_Y = ("0", "1/2", "1/4", "1/8", "1/16", "1/32", "1/32")


@dataclass(frozen=True)
class TrainingTrace:
    """Checkpoints of one training run and the matching layer-peeled optima.

    Attributes
    ----------
    rows : list of dict
        Per checkpoint: ``step``, ``loss`` (``J(W H)``), ``E_W``, ``E_H``, ``J_star``,
        ``loss_gap``, ``dist_WWt``, ``dist_HtH`` (relative Frobenius distances to the
        optimum's Grams) and ``delta_circ`` (of the trained ``W W^T``).
    WWt, HtH : numpy.ndarray
        The trained Grams at the last checkpoint.
    WWt_star, HtH_star : numpy.ndarray
        The optimum's Grams for the last checkpoint's budgets.
    settings : dict
        Everything that defines the run (seed, widths, penalties, steps).
    """

    rows: list[dict[str, Any]]
    WWt: np.ndarray = field(repr=False)
    HtH: np.ndarray = field(repr=False)
    WWt_star: np.ndarray = field(repr=False)
    HtH_star: np.ndarray = field(repr=False)
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "checkpoints": self.rows,
                "WWt": self.WWt, "WWt_star": self.WWt_star, "HtH": self.HtH,
                "HtH_star": self.HtH_star}


def _rel(A: np.ndarray, B: np.ndarray) -> float:
    return float(np.linalg.norm(A - B) / np.linalg.norm(B))


def train_cyclic(y=WEEKDAY_Y, *, d: int | None = None, hidden: int = 32, lam_W: float = 0.05,
                 lam_H: float = 0.0125, steps: int = 1500, lr: float = 0.02, seed: int = 0,
                 checkpoints=(5, 15, 40, 100, 250, 600, 1500)) -> TrainingTrace:
    """Train the weekday model and compare it with the layer-peeled optimum at checkpoints.

    Parameters
    ----------
    y : sequence of numbers
        The first context's next-token distribution; context ``j`` gets ``y`` rotated by j.
    d : int, optional
        Feature width (default ``m``).
    hidden : int
        Width of the MLP's hidden layer.
    lam_W, lam_H : float
        Weight decay on the head and on the features (the penalty, not the budgets).
    steps : int
        Adam steps (full batch: all ``n`` contexts), learning rate cosine-decayed from ``lr``.
    seed : int
        Seeds the initialisation (torch).
    checkpoints : sequence of int
        Steps at which the model is compared with the optimum (each <= ``steps``).

    Returns
    -------
    TrainingTrace

    Raises
    ------
    InvalidInput
        A bad penalty, width or checkpoint.
    """
    import torch

    from logitgeom.convex import LayerPeeled, cyclic_orbit
    from logitgeom.convex.loss import cross_entropy
    from logitgeom.models.diagnostics import delta_circ

    if lam_W <= 0 or lam_H <= 0:
        raise InvalidInput(f"weight decays must be > 0; got lam_W={lam_W}, lam_H={lam_H}")
    cps = sorted(set(int(c) for c in checkpoints))
    if not cps or cps[0] < 1 or cps[-1] > steps:
        raise InvalidInput(f"checkpoints must lie in 1..steps={steps}; got {list(checkpoints)}")
    Yq = cyclic_orbit(list(y), exact=True)
    Y = np.array(Yq, dtype=np.float64)
    m, n = Y.shape
    d = m if d is None else int(d)
    if d < 1 or hidden < 1:
        raise InvalidInput(f"d and hidden must be >= 1; got d={d}, hidden={hidden}")

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # deterministic reductions
    try:
        g = torch.Generator().manual_seed(seed)
        dt = torch.float64

        def init(*shape, scale):
            return (torch.randn(*shape, generator=g, dtype=dt) * scale).requires_grad_()

        emb = init(n, hidden, scale=1.0)
        A1, b1 = init(hidden, hidden, scale=hidden ** -0.5), init(hidden, scale=0.0)
        A2, b2 = init(d, hidden, scale=hidden ** -0.5), init(d, scale=0.0)
        W = init(m, d, scale=d ** -0.5)
        params = [emb, A1, b1, A2, b2, W]
        Yt = torch.tensor(Y, dtype=dt)
        opt = torch.optim.Adam(params, lr=lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=lr * 1e-3)

        def features() -> torch.Tensor:  # d x n: one column per context token
            h = torch.nn.functional.gelu(emb @ A1.T + b1)
            return (h @ A2.T + b2).T

        rows, last = [], None
        for step in range(1, steps + 1):
            opt.zero_grad()
            H = features()
            Z = W @ H
            ce = -(Yt * torch.log_softmax(Z, dim=0)).sum()
            loss = ce + lam_W * (W ** 2).sum() + lam_H * (H ** 2).sum()
            loss.backward()
            opt.step()
            sched.step()
            if step in cps:
                with torch.no_grad():
                    Wn, Hn = W.numpy().copy(), features().numpy().copy()
                E_W, E_H = float((Wn ** 2).sum()), float((Hn ** 2).sum())
                sol = LayerPeeled(Yq, E_W, E_H).solve("circulant")
                J = cross_entropy(Wn @ Hn, Y)
                WWt, HtH = Wn @ Wn.T, Hn.T @ Hn
                rows.append({"step": step, "loss": J, "E_W": E_W, "E_H": E_H,
                             "J_star": sol.loss, "loss_gap": J - sol.loss,
                             "dist_WWt": _rel(WWt, sol.WWt), "dist_HtH": _rel(HtH, sol.HtH),
                             "delta_circ": delta_circ(WWt)})
                last = (WWt, HtH, sol.WWt, sol.HtH)
    finally:
        torch.set_num_threads(threads)
    settings = {"y": list(y), "m": m, "n": n, "d": d, "hidden": hidden, "lam_W": lam_W,
                "lam_H": lam_H, "steps": steps, "lr": lr, "seed": seed, "optimizer":
                "Adam, cosine-decayed learning rate, full batch, float64, one thread"}
    return TrainingTrace(rows, *last, settings=settings)


def _trained_row(ctx):
    """The nonconvex layer-peeled program (free feature per context) solved by gradient
    descent approaches the convex optimum (weekday target, torch on CPU)."""
    from logitgeom.reproduce.registry import needs_extra

    skipped = needs_extra("Nonconvex layer-peeled program by gradient descent (Thm 1, "
                          "weekdays)", ("torch",), "models")
    if skipped is not None:
        return skipped
    from logitgeom.reproduce import _plots
    from logitgeom.reproduce.registry import Row, Status

    tr = train_cyclic()
    first, last = tr.rows[0], tr.rows[-1]
    gap = abs(last["loss_gap"]) / last["J_star"]
    ok = (gap <= 1e-6 and last["dist_WWt"] <= 1e-4 and last["dist_HtH"] <= 1e-4
          and last["delta_circ"] <= 1e-4 and first["dist_WWt"] > 100 * last["dist_WWt"])
    res = ctx.write_json("results/layer-peeled-gd-weekdays.json", {
        k: (np.round(v, 6) if isinstance(v, np.ndarray) else v) for k, v in tr.to_json().items()})
    fig = "figures/layer-peeled-gd-weekdays.png"
    with ctx.figure(fig, "The nonconvex layer-peeled program by gradient descent (weekday "
                    "target, m = n = 7): top, "
                    "distances of the trained model to the layer-peeled optimum for the "
                    "budgets it ends each checkpoint with (relative loss gap, W W^T and H^T H "
                    "to the optimum's Grams, distance of W W^T to the circulant matrices; "
                    "values below 1e-12 drawn at 1e-12; the plateaus near 1e-6 and 1e-11 are "
                    "the convex solver's accuracy); bottom, the trained W W^T and the "
                    "optimum's W* W*^T (day names on the axes).", figsize=(3.3, 3.6)) as f:
        _plots.training_curves(f, tr.rows, tr.WWt, tr.WWt_star, WEEKDAYS)
    s = tr.settings
    return Row(
        "Nonconvex layer-peeled program by gradient descent (Thm 1, weekdays)",
        f"embedding + 2-layer MLP (width {s['hidden']}) -> features in R^{s['d']}, head 7 x "
        f"{s['d']}; 7 contexts 'today is <day>' with next-day targets y rotated; weight decay "
        f"{s['lam_W']} (head), {s['lam_H']} (features); Adam, {s['steps']} steps, seed "
        f"{s['seed']}, float64",
        "torch on CPU (one thread); each checkpoint compared with the DFT-reduced layer-peeled "
        "program at the checkpoint's own budgets E_W = ||W||^2, E_H = ||H||^2",
        f"step {first['step']} -> {last['step']}: loss gap {first['loss_gap']:.1e} -> "
        f"{abs(last['loss_gap']):.0e}; dist(W W^T) {first['dist_WWt']:.1e} -> "
        f"{last['dist_WWt']:.0e}; dist(H^T H) {first['dist_HtH']:.1e} -> "
        f"{last['dist_HtH']:.0e}; delta_circ(W W^T) {first['delta_circ']:.1e} -> "
        f"{last['delta_circ']:.0e} (final budgets E_W = {last['E_W']:.4g}, E_H = "
        f"{last['E_H']:.4g}). This is the layer-peeled program itself (a free feature per "
        "context, soft targets), solved by gradient descent; the trained transformer LM is "
        "the sym-trained-lm row",
        (res, fig), Status.MEASURED if ok else Status.FAIL)


def _register() -> None:
    from logitgeom.reproduce.registry import claim

    claim("sym-layer-peeled-gd", "symmetry")(_trained_row)


_register()
