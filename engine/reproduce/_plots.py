"""Figures of the reproduction (matplotlib, drawn on a given Figure; no pyplot state)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["equivalent_models", "argmax_regions", "point_configurations", "heatmaps"]

_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:gray", "tab:olive", "tab:cyan"]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _arrows(ax, W: np.ndarray, lim: float) -> None:
    for i, w in enumerate(W):
        ax.annotate("", xy=w, xytext=(0, 0),
                    arrowprops={"arrowstyle": "->", "color": _COLORS[i % 10], "lw": 2})
        ax.text(*(w * 1.08), f"{i}", color=_COLORS[i % 10], fontsize=11, ha="center",
                va="center", fontweight="bold")
    ax.axhline(0, color="0.85", lw=0.8, zorder=0)
    ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")


def equivalent_models(fig, Ws: Sequence[np.ndarray]) -> None:
    """Fig. 1 style: three models' unembeddings, and their (identical) probabilities."""
    names = ["W", "W' = W + 1 v'^T", "W'' = W + 1 v''^T"]
    lim = 1.25 * max(float(np.abs(W).max()) for W in Ws)
    axes = fig.subplots(1, 4)
    for ax, W, name in zip(axes, Ws, names, strict=False):
        _arrows(ax, W, lim)
        ax.set_title(f"{name}\ncos(w_0, w_1) = {_cos(W[0], W[1]):+.3f}", fontsize=10)
    th = np.linspace(0, 2 * np.pi, 361)
    X = np.stack([np.cos(th), np.sin(th)], axis=1)
    ax = axes[3]
    for W, ls, name in zip(Ws, ["-", "--", ":"], names, strict=False):
        Z = X @ W.T
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        for i in range(W.shape[0]):
            ax.plot(np.degrees(th), P[:, i], ls, color=_COLORS[i], lw=2.5 if ls == "-" else 1.5,
                    label=f"p({i}|x), {name.split(' ')[0]}")
    ax.set_xlabel("input x = (cos t, sin t), t in degrees")
    ax.set_title("probabilities: the three models coincide", fontsize=10)
    ax.set_xlim(0, 360)
    ax.legend(fontsize=6, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.subplots_adjust(left=0.03, right=0.99, bottom=0.3, top=0.82, wspace=0.3)


def argmax_regions(fig, Ws: Sequence[np.ndarray], titles: Sequence[str]) -> None:
    """For 2-D unembeddings: the region where each label is the most likely, and the rows."""
    from matplotlib.colors import ListedColormap

    axes = fig.subplots(1, len(Ws))
    lim = 1.2 * max(float(np.abs(W).max()) for W in Ws)
    g = np.linspace(-lim, lim, 401)
    X, Y = np.meshgrid(g, g)
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    for ax, W, t in zip(axes, Ws, titles, strict=True):
        k = W.shape[0]
        lab = np.argmax(pts @ W.T, axis=1).reshape(X.shape)
        ax.imshow(lab, origin="lower", extent=(-lim, lim, -lim, lim), alpha=0.25,
                  cmap=ListedColormap(_COLORS[:k]), vmin=-0.5, vmax=k - 0.5)
        _arrows(ax, W, lim)
        present = sorted(set(lab.ravel().tolist()))
        missing = [i for i in range(k) if i not in present]
        ax.set_title(f"{t}\nargmax regions (shaded); never first: {missing or 'none'}",
                     fontsize=10)
    fig.tight_layout()


def point_configurations(fig, Ps: Sequence[np.ndarray], only: Sequence[list],
                         directions: Sequence[list]) -> None:
    """App. H.2: the two 5-point configurations with the rankings only one of them has.

    ``directions[n]`` holds, per ranking in ``only[n]``, a direction u such that sorting the
    points by u . p gives the ranking (the witness's last two coordinates).
    """
    axes = fig.subplots(1, len(Ps))
    for n, (ax, P, rk) in enumerate(zip(axes, Ps, only, strict=True)):
        for r, u in zip(rk, directions[n], strict=True):
            u = np.asarray(u, float) / np.linalg.norm(u)
            ax.annotate("", xy=0.9 * u, xytext=(0, 0),
                        arrowprops={"arrowstyle": "->", "color": "0.5", "lw": 1.5})
            ax.text(*(0.6 * u + np.array([0, 0.12])), "ranking " + "".join(map(str, r)),
                    fontsize=9, color="0.25", ha="center", va="center")
        ax.scatter(P[:, 0], P[:, 1], s=60, c=[_COLORS[i] for i in range(len(P))], zorder=3)
        for i, p in enumerate(P):
            ax.text(p[0] + 0.06, p[1] + 0.06, str(i), fontsize=12, color=_COLORS[i],
                    fontweight="bold")
        ax.set_xlim(-1.4, 1.4)
        ax.set_ylim(-1.4, 1.4)
        ax.set_aspect("equal")
        ax.grid(alpha=0.3)
        rs = ", ".join("".join(map(str, r)) for r in rk)
        ax.set_title(f"W{n + 1} = [1 | P{n + 1}]\nrankings only here: {rs}", fontsize=10)
    fig.suptitle("same sign pattern S(W1) = S(W2), different ranking patterns (grey arrows: "
                 "directions ordering the points as the ranking, most likely first)", fontsize=10)
    fig.tight_layout()


def heatmaps(fig, mats: Sequence[np.ndarray], titles: Sequence[str], *, ncols: int | None = None,
             suptitle: str | None = None) -> None:
    """One heatmap (own colour bar, diverging around 0) per matrix."""
    from matplotlib.ticker import MaxNLocator

    n = len(mats)
    ncols = ncols or n
    nrows = -(-n // ncols)
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).ravel()
    for ax, M, t in zip(axes, mats, titles, strict=False):
        v = float(np.abs(M).max()) or 1.0
        im = ax.imshow(M, cmap="RdBu_r", vmin=-v, vmax=v, interpolation="nearest",
                       aspect="auto" if M.shape[1] > 2 * M.shape[0] else "equal")
        ax.set_title(t, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    for ax in axes[n:]:
        ax.set_visible(False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout()
