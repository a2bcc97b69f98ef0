"""One plotting style for every figure: ``reproduce``, ``inspect`` and the notebooks.

Figures are drawn at the width they are printed at: :data:`COLUMN_WIDTH` (3.3 in, one
column of a two-column paper) unless a figure needs the full text width
(:data:`TEXT_WIDTH`).  Every piece of text is at least :data:`MIN_FONT` points at that
width (checked by :func:`check_legible` when a figure is saved); figures are written as
PDF (vector) and PNG at :data:`DPI` dots per inch, with no timestamps, so two runs write
identical files.  Labels follow the papers: 1-based (``label(i)``) unless a caption says
otherwise; day names where the labels are days.  See docs/paper-output.md.

Matplotlib's object API only (a Figure on its own Agg canvas): no pyplot, no global
backend switch, so importing this module never changes a notebook's settings.  The
notebooks call :func:`use` once to apply :data:`RC` to pyplot figures as well.

Examples
--------
>>> import os, tempfile
>>> with style():
...     fig = figure(height=1.5)
...     ax = fig.add_subplot()
...     _ = ax.plot([0, 1], [0, 1], label="a")
...     _ = ax.legend()
>>> out = save(fig, os.path.join(tempfile.mkdtemp(), "f.png"))
>>> [os.path.splitext(p)[1] for p in out]
['.png', '.pdf']
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from logitgeom.errors import InvalidInput

__all__ = ["COLUMN_WIDTH", "TEXT_WIDTH", "MIN_FONT", "DPI", "RC", "COLORS", "style", "use",
           "figure", "save", "check_legible", "label", "labels", "WEEKDAYS"]

#: one column of a two-column paper, inches
COLUMN_WIDTH = 3.3
#: the full text width, inches
TEXT_WIDTH = 6.9
#: smallest font size (points) of any text at the printed width
MIN_FONT = 7.0
#: PNG resolution
DPI = 300
#: day names (labels of the weekday examples)
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: colour-blind safe qualitative colours (Okabe-Ito, then tab10's extras)
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
          "#000000", "#8c564b", "#7f7f7f")

RC = {
    "font.size": 8.0,
    "axes.titlesize": 8.0,
    "axes.labelsize": 8.0,
    "xtick.labelsize": 7.0,
    "ytick.labelsize": 7.0,
    "legend.fontsize": 7.0,
    "legend.title_fontsize": 7.0,
    "figure.titlesize": 8.5,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.2,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "legend.frameon": False,
    "legend.handlelength": 1.6,
    "axes.titlepad": 3.0,
    "pdf.fonttype": 42,  # TrueType in PDFs: journals reject Type 3 fonts
    "ps.fonttype": 42,
    "svg.hashsalt": "logitgeom",
    "image.interpolation": "nearest",
}


@contextmanager
def style() -> Iterator[None]:
    """Apply :data:`RC` while figures are built (text picks its size when created)."""
    import matplotlib

    with matplotlib.rc_context(RC):
        yield


def use() -> None:
    """Apply :data:`RC` globally (for notebooks using pyplot)."""
    import matplotlib

    matplotlib.rcParams.update(RC)


def figure(width: float = COLUMN_WIDTH, height: float = 2.4, **kw):
    """A Figure on its own Agg canvas, ``width`` x ``height`` inches, constrained layout."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    kw.setdefault("layout", "constrained")
    fig = Figure(figsize=(width, height), **kw)
    FigureCanvasAgg(fig)
    return fig


def check_legible(fig, min_font: float = MIN_FONT) -> None:
    """Raise if any visible text of ``fig`` is smaller than ``min_font`` points.

    Raises
    ------
    InvalidInput
        Names the text and its size.
    """
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_fontsize() < min_font - 1e-9:
            raise InvalidInput(f"figure text {t.get_text()[:40]!r} is {t.get_fontsize():g} pt; "
                               f"at least {min_font:g} pt is needed at the printed width")


def save(fig, path: str | Path, *, formats: Sequence[str] = ("png", "pdf")) -> list[str]:
    """Save ``fig`` as PNG (:data:`DPI`) and PDF next to each other; returns the paths.

    ``path`` names the PNG (its suffix is replaced for the other formats).  Metadata that
    changes between runs (dates, software versions) is left out.
    """
    check_legible(fig)
    p = Path(path)
    out = []
    for fmt in formats:
        q = p.with_suffix("." + fmt)
        meta = ({"Software": None} if fmt == "png" else
                {"Creator": None, "Producer": None, "CreationDate": None} if fmt == "pdf"
                else None)
        try:
            import io

            from logitgeom._fsio import write_atomic

            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, dpi=DPI, metadata=meta)
            write_atomic(q, buf.getvalue())  # never a truncated figure
        except (OSError, ValueError) as exc:
            raise InvalidInput(f"cannot write the figure to {q}: {exc}") from exc
        out.append(str(q))
    return out


def label(i: int, *, one_based: bool = True) -> str:
    """The printed name of label ``i`` (0-based in the engine): ``i + 1`` by default."""
    return str(i + 1 if one_based else i)


def labels(k: int, *, one_based: bool = True, names: Sequence[str] | None = None) -> list[str]:
    """Tick labels for ``k`` labels: ``names`` when given, else 1-based numbers."""
    if names is not None:
        if len(names) != k:
            raise InvalidInput(f"{len(names)} names for {k} labels")
        return list(names)
    return [label(i, one_based=one_based) for i in range(k)]
