"""Figures of the reproduction, drawn on a given Figure in the shared style.

Every function draws on a Figure made by :meth:`logitgeom.reproduce._artifacts.Context.figure`
(:mod:`logitgeom.plotstyle`: 3.3 in wide, text >= 7 pt).  Labels are 1-based, as in both papers
(the engine and the JSON artifacts are 0-based; the captions say so).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from logitgeom.plotstyle import COLORS, label

__all__ = ["equivalent_models", "argmax_regions", "point_configurations", "heatmaps",
           "ranking_sectors", "training_curves"]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _arrows(ax, W: np.ndarray, lim: float, *, lw: float = 1.3) -> None:
    for i, w in enumerate(W):
        c = COLORS[i % len(COLORS)]
        ax.annotate("", xy=w, xytext=(0, 0),
                    arrowprops={"arrowstyle": "-|>", "color": c, "lw": lw,
                                "mutation_scale": 7, "shrinkA": 0, "shrinkB": 0})
        r = float(np.linalg.norm(w)) or 1.0
        ax.text(*(w + 0.14 * lim * w / r), label(i), color=c, fontsize=7, ha="center",
                va="center", fontweight="bold")
    ax.axhline(0, color="0.85", lw=0.5, zorder=0)
    ax.axvline(0, color="0.85", lw=0.5, zorder=0)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def equivalent_models(fig, Ws: Sequence[np.ndarray]) -> None:
    """Fig. 1 style: three models' unembeddings (top) and their identical probabilities."""
    from matplotlib.lines import Line2D

    names = ["W", "W'", "W''"]
    gs = fig.add_gridspec(2, 3, height_ratios=[1.0, 1.25])
    for n, (W, name) in enumerate(zip(Ws, names, strict=False)):
        ax = fig.add_subplot(gs[0, n])
        lim = 1.3 * float(np.abs(W).max())          # each panel on its own scale
        _arrows(ax, W, lim)
        ax.set_title(f"{name}\ncos = {_cos(W[0], W[1]):+.2f}", fontsize=7)
    ax = fig.add_subplot(gs[1, :])
    th = np.linspace(0, 2 * np.pi, 361)
    X = np.stack([np.cos(th), np.sin(th)], axis=1)
    styles = ["-", "--", ":"]
    for W, ls in zip(Ws, styles, strict=False):
        Z = X @ W.T
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        for i in range(W.shape[0]):
            ax.plot(np.degrees(th), P[:, i], ls, color=COLORS[i], lw=2.2 if ls == "-" else 1.0)
    ax.set_xlabel("input x = (cos t, sin t); t in degrees")
    ax.set_ylabel("p(label | x)")
    ax.set_xlim(0, 360)
    ax.set_xticks([0, 90, 180, 270, 360])
    handles = [Line2D([], [], color=COLORS[i], lw=1.5, label=f"label {label(i)}")
               for i in range(Ws[0].shape[0])]
    handles += [Line2D([], [], color="0.2", ls=ls, lw=1.0, label=name)
                for ls, name in zip(styles, names, strict=False)]
    ax.legend(handles=handles, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.38),
              columnspacing=1.0)


def argmax_regions(fig, Ws: Sequence[np.ndarray], titles: Sequence[str]) -> None:
    """For 2-D unembeddings: the region where each label is the most likely, and the rows."""
    from matplotlib.colors import ListedColormap

    axes = fig.subplots(1, len(Ws))
    lim = 1.3 * max(float(np.abs(W).max()) for W in Ws)
    g = np.linspace(-lim, lim, 401)
    X, Y = np.meshgrid(g, g)
    pts = np.stack([X.ravel(), Y.ravel()], axis=1)
    for ax, W, t in zip(axes, Ws, titles, strict=True):
        k = W.shape[0]
        lab = np.argmax(pts @ W.T, axis=1).reshape(X.shape)
        ax.imshow(lab, origin="lower", extent=(-lim, lim, -lim, lim), alpha=0.25,
                  cmap=ListedColormap(list(COLORS[:k])), vmin=-0.5, vmax=k - 0.5)
        _arrows(ax, W, lim, lw=1.0)
        present = sorted(set(lab.ravel().tolist()))
        missing = [label(i) for i in range(k) if i not in present]
        ax.set_title(f"{t}\nnever first: {', '.join(missing) or 'none'}")


def _ranking_of(P: np.ndarray, u: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort(-(P @ u), kind="stable"))


def ranking_sectors(P: np.ndarray) -> list[tuple[float, float, tuple[int, ...]]]:
    """The feature plane of W = [1 | P] cut into rankings: (angle from, angle to, ranking).

    The logits of ``x = (x_0, u)`` are ``x_0 + P u``; the ranking depends on the direction
    of ``u`` only and changes where ``u`` is orthogonal to some ``p_i - p_j``.
    """
    cuts = []
    for i in range(len(P)):
        for j in range(i + 1, len(P)):
            dx, dy = P[i] - P[j]
            a = np.arctan2(dy, dx) + np.pi / 2
            cuts += [a % (2 * np.pi), (a + np.pi) % (2 * np.pi)]
    cuts = np.unique(np.round(cuts, 12))
    out = []
    for a, b in zip(cuts, np.r_[cuts[1:], cuts[0] + 2 * np.pi], strict=True):
        m = (a + b) / 2
        out.append((float(a), float(b), _ranking_of(P, np.array([np.cos(m), np.sin(m)]))))
    return out


def point_configurations(fig, Ps: Sequence[np.ndarray], only: Sequence[list],
                         directions: Sequence[list]) -> None:
    """App. H.2: the two 5-point configurations (top) and their feature planes cut into
    rankings (bottom), the rankings only one configuration has highlighted.

    ``directions[n]`` holds, per ranking in ``only[n]``, a direction u such that sorting the
    points by u . p gives the ranking (the witness's last two coordinates).
    """
    from matplotlib.patches import Wedge

    axes = fig.subplots(2, len(Ps))
    for n, (P, rk) in enumerate(zip(Ps, only, strict=True)):
        ax = axes[0, n]
        for r, u in zip(rk, directions[n], strict=True):
            u = np.asarray(u, float) / np.linalg.norm(u)
            ax.annotate("", xy=1.15 * u, xytext=(0, 0),
                        arrowprops={"arrowstyle": "-|>", "color": "0.45", "lw": 0.9,
                                    "mutation_scale": 6})
            ax.text(*(0.6 * u + np.array([0, 0.2])), "".join(label(i) for i in r),
                    fontsize=7, color="0.2", ha="center", va="center")
        ax.scatter(P[:, 0], P[:, 1], s=14, c=[COLORS[i] for i in range(len(P))], zorder=3)
        for i, p in enumerate(P):
            ax.text(p[0] + 0.09, p[1] + 0.09, label(i), fontsize=7, color=COLORS[i],
                    fontweight="bold")
        ax.set_xlim(-1.6, 1.6)
        ax.set_ylim(-1.6, 1.6)
        ax.set_aspect("equal")
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
        ax.set_title(f"points of W{n + 1} = [1 | P{n + 1}]")
        ax = axes[1, n]
        sectors = ranking_sectors(P)
        exclusive = {tuple(r) for r in rk}
        mids = [(a + b) / 2 for a, b, _ in sectors]
        pos = _spread(mids, np.radians(13.0))
        for (a, b, r), m, q in zip(sectors, mids, pos, strict=True):
            hit = r in exclusive
            ax.add_patch(Wedge((0, 0), 1.0, np.degrees(a), np.degrees(b),
                               facecolor=COLORS[n] if hit else "white",
                               alpha=0.45 if hit else 1.0, edgecolor="0.55", lw=0.4))
            ax.plot([np.cos(m), 1.12 * np.cos(q)], [np.sin(m), 1.12 * np.sin(q)], color="0.6",
                    lw=0.4)
            deg = np.degrees(q) % 360
            left = 90 < deg < 270
            ax.text(1.15 * np.cos(q), 1.15 * np.sin(q), "".join(label(i) for i in r),
                    rotation=deg - 180 if left else deg, rotation_mode="anchor",
                    ha="right" if left else "left", va="center", fontsize=7,
                    fontweight="bold" if hit else "normal", color="0.0" if hit else "0.3")
        ax.set_xlim(-1.95, 1.95)
        ax.set_ylim(-1.95, 1.95)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"rankings of W{n + 1}\nby direction u")


def _spread(angles: Sequence[float], gap: float) -> list[float]:
    """Label angles near ``angles`` (sorted, on a circle) at least ``gap`` apart."""
    a = np.array(angles, float)
    for _ in range(200):
        moved = False
        for i in range(len(a)):
            j = (i + 1) % len(a)
            d = (a[j] - a[i]) % (2 * np.pi)
            if d < gap - 1e-12:
                push = (gap - d) / 2
                a[i] -= push
                a[j] += push
                moved = True
        if not moved:
            break
    return a.tolist()


def _ticks(ax, shape, names) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    for axis, k, nm in ((ax.xaxis, shape[1], names[1]), (ax.yaxis, shape[0], names[0])):
        if nm is not None and len(nm) == k:
            axis.set_ticks(range(k), labels=list(nm))
            if axis is ax.xaxis:
                ax.tick_params(axis="x", labelrotation=90)
        else:
            axis.set_major_locator(MaxNLocator(nbins=5, integer=True))
            axis.set_major_formatter(FuncFormatter(lambda x, _p: f"{int(round(x)) + 1}"))


def heatmaps(fig, mats: Sequence[np.ndarray], titles: Sequence[str], *, ncols: int | None = None,
             suptitle: str | None = None, names: Sequence | None = None,
             first_full_width: bool | None = None) -> None:
    """One heatmap (own colour bar, diverging around 0) per matrix.

    ``names[i]`` is ``(row names, column names)`` for panel i (or None: 1-based numbers).
    With three matrices (Z*, W W^T, H^T H) the first spans the top row.  Columns of a
    logit matrix that are exactly zero (a uniform target block: zero logits) are hatched
    and labelled, so they do not read as a missing block.
    """
    n = len(mats)
    names = list(names) if names is not None else [(None, None)] * n
    full = (n == 3) if first_full_width is None else first_full_width
    ncols = ncols or (2 if n > 1 else 1)
    axes = []
    if full:
        rest = n - 1
        nrows = 1 + -(-rest // ncols)
        gs = fig.add_gridspec(nrows, ncols)
        axes.append(fig.add_subplot(gs[0, :]))
        axes += [fig.add_subplot(gs[1 + i // ncols, i % ncols]) for i in range(rest)]
    else:
        nrows = -(-n // ncols)
        gs = fig.add_gridspec(nrows, ncols)
        axes = [fig.add_subplot(gs[i // ncols, i % ncols]) for i in range(n)]
    for idx, (ax, M, t) in enumerate(zip(axes, mats, titles, strict=False)):
        M = np.asarray(M, float)
        v = float(np.abs(M).max()) or 1.0
        im = ax.imshow(M, cmap="RdBu_r", vmin=-v, vmax=v, interpolation="nearest",
                       aspect="auto" if M.shape[1] > 2 * M.shape[0] else "equal")
        ax.set_title(t)
        _ticks(ax, M.shape, names[idx])
        cb = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
        cb.ax.tick_params(labelsize=7)
        zero = np.flatnonzero(np.abs(M).max(axis=0) <= 1e-9 * v)
        if 0 < len(zero) < M.shape[1] and np.all(np.diff(zero) == 1):
            _zero_block(ax, M, zero, square=(idx > 0 and M.shape[0] == M.shape[1]))
    if suptitle:
        fig.suptitle(suptitle)


def _zero_block(ax, M: np.ndarray, zero: np.ndarray, *, square: bool) -> None:
    """Hatch the all-zero columns (and, for a Gram, the matching rows) and say why."""
    from matplotlib.patches import Rectangle

    y0, h = (zero[0] - 0.5, len(zero)) if square else (-0.5, M.shape[0])
    ax.add_patch(Rectangle((zero[0] - 0.5, y0), len(zero), h, fill=False, hatch="////",
                           edgecolor="0.55", lw=0.5))
    text = "zero" if square else "uniform target:\nzero logits"
    ax.text((zero[0] + zero[-1]) / 2, y0 + (h - 1) / 2 + 0.5, text, ha="center", va="center",
            fontsize=7, color="0.1",
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.0})


def training_curves(fig, rows: Sequence[dict], WWt: np.ndarray, WWt_star: np.ndarray,
                    names: Sequence[str]) -> None:
    """Trained model vs layer-peeled optimum: distances over training, and the two Grams."""
    gs = fig.add_gridspec(2, 2, height_ratios=[1.1, 1.0])
    ax = fig.add_subplot(gs[0, :])
    steps = [r["step"] for r in rows]
    floor = 1e-12
    series = [("loss_gap", "|J(WH) - J*| / J*", "-o", lambda r: abs(r["loss_gap"]) / r["J_star"]),
              ("dist_WWt", "dist(W W^T, optimum)", "-s", lambda r: r["dist_WWt"]),
              ("dist_HtH", "dist(H^T H, optimum)", "-^", lambda r: r["dist_HtH"]),
              ("delta_circ", "delta_circ(W W^T)", "-d", lambda r: r["delta_circ"])]
    for n, (_, lab, st, f) in enumerate(series):
        ax.plot(steps, [max(f(r), floor) for r in rows], st, color=COLORS[n], ms=3, label=lab)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("relative distance")
    ax.legend(ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    v = float(max(np.abs(WWt).max(), np.abs(WWt_star).max()))
    for n, (M, t) in enumerate(((WWt, "trained W W^T"), (WWt_star, "optimum W* W*^T"))):
        a = fig.add_subplot(gs[1, n])
        a.imshow(M, cmap="RdBu_r", vmin=-v, vmax=v)
        a.set_title(t)
        _ticks(a, M.shape, (names, names))
