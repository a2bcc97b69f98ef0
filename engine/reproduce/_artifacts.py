"""Writing a run's artifacts deterministically: certificates, JSON results, figures.

Layout of the output directory: certificates at the top level (``DIR/*.json``, so
``logitgeom check DIR/*.json`` checks them all), solutions in ``DIR/solutions/``, other
results in ``DIR/results/``, figures in ``DIR/figures/`` (each as PNG and PDF).  JSON has
sorted keys, floats rounded to 10 significant digits (tiny values below 1e-11 in magnitude
become 0) and no timings, so two runs write byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom._fsio import OutputError, check_inside, write_atomic
from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import fraction_to_str

__all__ = ["Context", "clean_json", "SIG_DIGITS", "ZERO_BELOW"]

#: significant digits kept for floats in JSON artifacts
SIG_DIGITS = 10
#: floats smaller than this in magnitude are written as 0 (solver noise)
ZERO_BELOW = 1e-11


def _float(x: float) -> float | None:
    if not math.isfinite(x):
        return None
    if abs(x) < ZERO_BELOW:
        return 0.0
    return float(f"{x:.{SIG_DIGITS}g}")


def clean_json(obj: Any) -> Any:
    """A JSON-ready copy: floats rounded, Fractions as ``"p/q"``, arrays as lists.

    Examples
    --------
    >>> clean_json({"a": np.array([1/3, 1e-15]), "b": Fraction(1, 2), "c": (1, 2)})
    {'a': [0.3333333333, 0.0], 'b': '1/2', 'c': [1, 2]}
    """
    if isinstance(obj, dict):
        return {str(k): clean_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [clean_json(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return clean_json(obj.tolist())
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, Fraction):
        return fraction_to_str(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        return _float(float(obj))
    return obj


class Context:
    """Where a claim writes its artifacts; remembers what was written.

    Parameters
    ----------
    out : path
        The output directory (created if missing).

    Examples
    --------
    >>> import tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> ctx = Context(tmp.name)
    >>> ctx.write_json("results/x.json", {"b": 0.1 + 0.2, "a": 1})
    'results/x.json'
    >>> (ctx.out / "results/x.json").read_text()
    '{\\n "a": 1,\\n "b": 0.3\\n}\\n'
    >>> tmp.cleanup()
    """

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        #: certificate paths written (relative to ``out``), in order
        self.certificates: list[str] = []
        #: data claims share within one run (e.g. Grams for a summary figure)
        self.shared: dict = {}
        #: figure path -> caption (listed in SUMMARY.md)
        self.captions: dict[str, str] = {}
        #: files an earlier logitgeom run wrote here -> their SHA-256 then (None: unknown);
        #: they may be replaced while unchanged
        self.owned: dict[str, str | None] = {}
        #: replace any existing file (``--force``)
        self.force = True
        #: every file written by this context (relative to ``out``)
        self.written: set[str] = set()
        #: called with ``rel`` just before a file is first written (the run records it as
        #: its own first, so a run killed during the write may replace it when resumed)
        self.before_write: Callable[[str], None] | None = None

    def check_overwrite(self, rel: str) -> None:
        """Refuse (OutputError) to replace a file that no logitgeom run wrote, unless forced."""
        p = self.out / rel
        if p.is_dir():
            raise OutputError(f"cannot write {p}: it is a directory")
        if not p.exists() or self.force or rel in self.written:
            return
        if rel not in self.owned:
            raise OutputError(f"{p} exists and was not written by a logitgeom run; move it "
                              "away or pass --force to overwrite it")
        want = self.owned[rel]
        if want is not None and hashlib.sha256(p.read_bytes()).hexdigest() != want:
            raise OutputError(f"{p} was changed since a logitgeom run wrote it; move it away "
                              "or pass --force to overwrite it")

    def _path(self, rel: str) -> Path:
        self.check_overwrite(rel)
        p = self.out / rel
        check_inside(self.out, p)  # a linked results/ or figures/ would take writes outside
        p.parent.mkdir(parents=True, exist_ok=True)
        if self.before_write is not None:
            self.before_write(rel)
        self.written.add(rel)
        return p

    def write_json(self, rel: str, obj: Any) -> str:
        """Write ``obj`` (cleaned by :func:`clean_json`) as sorted, indented JSON."""
        text = json.dumps(clean_json(obj), sort_keys=True, indent=1, allow_nan=False)
        write_atomic(self._path(rel), text + "\n")
        return rel

    def write_certificate(self, name: str, cert: dict) -> str:
        """Write a certificate (``logitgeom.emit.dumps``) at the top level of ``out``.

        Raises
        ------
        InvalidInput
            ``name`` is not a top-level ``*.json`` file name.
        """
        from logitgeom.emit import dumps

        if "/" in name or not name.endswith(".json"):
            raise InvalidInput(f"certificate names are top-level *.json files; got {name!r}")
        write_atomic(self._path(name), dumps(cert))
        self.certificates.append(name)
        return name

    @contextmanager
    def figure(self, rel: str, caption: str, *, figsize: tuple[float, float] | None = None,
               **kw: Any):
        """Yield a matplotlib figure; save it as PNG at ``rel`` and as PDF next to it.

        ``caption`` says what the picture shows (listed under "Figures" in SUMMARY.md).
        The figure is drawn in the shared style (:mod:`logitgeom.plotstyle`: 3.3 in wide unless
        ``figsize`` says otherwise, text >= 7 pt, PNG at 300 dpi, PDF vector) on its own
        Agg canvas (no pyplot, no global backend change).
        """
        from logitgeom import plotstyle

        w, h = figsize or (plotstyle.COLUMN_WIDTH, 2.4)
        with plotstyle.style():
            fig = plotstyle.figure(w, h, **kw)
            yield fig
            png = self._path(rel)
            self._path(str(Path(rel).with_suffix(".pdf")))  # the PDF twin: same rules
            plotstyle.save(fig, png)
        self.captions[rel] = caption
