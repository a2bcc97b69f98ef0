"""Figures of an occupancy run: coverage against the number of inputs, and the histogram of
the distances to the nearest argmax boundary (logitgeom.plotstyle: 3.3 in wide, PNG + PDF)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from logitgeom import plotstyle

__all__ = ["plot_coverage", "plot_margins"]


def plot_coverage(coverage: dict, path: Path) -> list[str]:
    """Distinct regions realized among the first N inputs, per kind (log-log)."""
    with plotstyle.style():
        fig = plotstyle.figure(height=2.4)
        ax = fig.add_subplot()
        for (kind, (xs, ys)), col in zip(coverage.items(), plotstyle.COLORS, strict=False):
            ax.plot(xs, np.maximum(ys, 0), label=kind, color=col)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xlabel("number of inputs N")
        ax.set_ylabel("regions realized")
        ax.legend(loc="upper left")
        return plotstyle.save(fig, path)


def plot_margins(dist: np.ndarray, path: Path) -> list[str]:
    """Histogram of each input's distance to the nearest argmax boundary (ties excluded)."""
    with plotstyle.style():
        fig = plotstyle.figure(height=2.2)
        ax = fig.add_subplot()
        pos = dist[dist > 0] if dist is not None else np.zeros(0)
        if pos.size:
            lo, hi = float(pos.min()), float(pos.max())
            bins = np.geomspace(lo, hi if hi > lo else lo * 2, 40)
            ax.hist(pos, bins=bins, color=plotstyle.COLORS[0])
            ax.set_xscale("log")
        ax.set_xlabel("distance to the nearest argmax boundary")
        ax.set_ylabel("inputs")
        return plotstyle.save(fig, path)
