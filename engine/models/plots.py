"""Heatmaps of normalised Grams and probability matrices, as the symmetry paper shows them.

One panel per matrix, token labels on both axes, the diagnostic in the title, a shared
diverging colour scale centred at 0 for Grams and a sequential one for probabilities.
Drawn in the shared style of :mod:`logitgeom.plotstyle` (the one ``reproduce`` and the
notebooks use: column width per panel, text >= 7 pt, 300 dpi) with matplotlib's object API
on the Agg canvas: no pyplot, no global backend switch.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> p = os.path.join(tempfile.mkdtemp(), "g.png")
>>> save_heatmaps([Panel("W W^T", np.eye(3) - 1/3, ("a", "b", "c"), ("a", "b", "c"))], p)
>>> os.path.getsize(p) > 0
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["Panel", "draw_panels", "save_heatmaps"]


@dataclass(frozen=True)
class Panel:
    """One heatmap: title, matrix, row labels, column labels, and ``kind``.

    ``kind`` is ``"gram"`` (diverging colours centred at 0) or ``"prob"`` (0 to max).
    """

    title: str
    matrix: np.ndarray
    row_labels: Sequence[str]
    col_labels: Sequence[str]
    kind: str = "gram"


def save_heatmaps(panels: Sequence[Panel], path: str | Path, *, dpi: int | None = None) -> None:
    """Draw the panels side by side and save them to ``path`` (format from the suffix).

    Parameters
    ----------
    panels : sequence of Panel
    path : str or Path
        ``.png``, ``.pdf`` or ``.svg``.
    dpi : int, optional
        Default :data:`logitgeom.plotstyle.DPI`.

    Raises
    ------
    InvalidInput
        No panels, a label count that does not match the matrix, or an unwritable path.
    """
    from logitgeom import plotstyle

    if not panels:
        raise InvalidInput("nothing to plot")
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - matplotlib is in the notebooks extra
        raise InvalidInput("plots need matplotlib (the 'notebooks' extra)") from exc
    with plotstyle.style():
        fig = plotstyle.figure(plotstyle.COLUMN_WIDTH * len(panels), 3.2)
        draw_panels(fig, panels)
        out = Path(path)
        plotstyle.check_legible(fig)
        meta = {"png": {"Software": None},
                "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}
        try:
            import io

            from logitgeom._fsio import write_atomic

            buf = io.BytesIO()
            fig.savefig(buf, format=out.suffix.lstrip(".").lower() or "png",
                        dpi=dpi or plotstyle.DPI, metadata=meta.get(out.suffix[1:]))
            write_atomic(out, buf.getvalue())  # never a truncated image
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"cannot write the plot to {out}: {exc}") from exc


def draw_panels(fig, panels: Sequence[Panel]) -> None:
    """Draw the panels side by side on ``fig`` (a matplotlib figure in the shared style).

    Raises
    ------
    InvalidInput
        A label count that does not match the matrix.
    """
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, p in zip(axes, panels, strict=True):
        A = np.asarray(p.matrix, dtype=float)
        if A.shape != (len(p.row_labels), len(p.col_labels)):
            raise InvalidInput(f"panel {p.title!r}: matrix shape {A.shape} does not match "
                               f"{len(p.row_labels)} x {len(p.col_labels)} labels")
        if p.kind == "prob":
            im = ax.imshow(A, cmap="viridis", vmin=0.0, vmax=max(float(A.max()), 1e-12))
        else:
            v = max(float(np.abs(A).max()), 1e-12)
            im = ax.imshow(A, cmap="RdBu_r", vmin=-v, vmax=v)
        ax.set_xticks(range(A.shape[1]), labels=list(p.col_labels), rotation=60, ha="right")
        ax.set_yticks(range(A.shape[0]), labels=list(p.row_labels))
        ax.set_title(p.title)
        fig.colorbar(im, ax=ax, shrink=0.8)
