"""Notebook display of result objects: a short ``repr``, an HTML table, a data frame.

A result of an enumeration can hold hundreds of thousands of patterns; the dataclass
``repr`` printed all of them (1.3 million characters for a 9 x 5 ranking pattern).  The
result classes delegate here with one-line methods:

* :func:`short_repr`: one line with the sizes and the outcome, never the data;
* :func:`html`: a small HTML table (the counts, then the first :data:`HTML_ROWS` rows) that
  Jupyter shows through ``_repr_html_``;
* :func:`dataframe`: the whole table as a :class:`pandas.DataFrame` (pandas is in the
  ``notebooks`` extra); without pandas, a dict of equal-length lists.

Labels are 0-based, as everywhere in the engine.

Examples
--------
>>> from logitgeom.geometry import ranking_pattern
>>> r = ranking_pattern([[1, 0], [0, 1], [1, 1]])
>>> r
PatternResult(kind='ranking', k=3, d=2, count=6, complete=True, completeness='zaslavsky')
>>> "<table" in r._repr_html_() and "6 rankings" in r._repr_html_()
True
>>> list(table_of(r))
['rank 1', 'rank 2', 'rank 3']
"""

from __future__ import annotations

import html as _html
from typing import Any

import numpy as np

__all__ = ["HTML_ROWS", "short_repr", "html", "dataframe", "table_of"]

#: rows shown by ``_repr_html_`` (the data frame has all of them)
HTML_ROWS = 10


def _kv(obj: Any) -> list[tuple[str, Any]]:
    """The few fields that describe a result (name, value), by class."""
    name = type(obj).__name__
    if name == "PatternResult":
        out = [("kind", str(obj.kind)), ("k", obj.k), ("d", obj.d)]
        if obj.top is not None:
            out.append(("top", obj.top))
        if obj.bias is not None:
            out.append(("bias", True))
        out += [("count", obj.count), ("complete", obj.complete),
                ("completeness", str(obj.completeness))]
        if obj.ties:
            out.append(("ties", len(obj.ties)))
        return out
    if name == "ArgmaxResult":
        return [("k", len(obj.W)), ("d", len(obj.W[0])), ("labels", list(obj.labels)),
                ("never_first", [i for i in range(len(obj.W)) if i not in obj.labels])]
    if name == "GridCell":
        return [("n", obj.n), ("d", obj.d), ("seed", obj.seed), ("sign_count", obj.sign_count),
                ("ranking_count", obj.ranking_count), ("passed", obj.passed)]
    if name == "GridResult":
        return [("cells", len(obj.cells)), ("method", obj.method), ("passed", obj.passed)]
    if name == "LayerPeeledSolution":
        return [("shape", tuple(obj.Z.shape)), ("method", obj.method), ("status", obj.status),
                ("loss", float(f"{obj.loss:.10g}")), ("gap", float(f"{obj.gap:.3g}")),
                ("rank", obj.rank), ("rho", float(f"{obj.rho:.6g}"))]
    return [(k, v) for k, v in vars(obj).items() if np.isscalar(v)][:8]


def short_repr(obj: Any) -> str:
    """``ClassName(field=value, ...)`` with sizes and outcomes only (never the data).

    Examples
    --------
    >>> from logitgeom.geometry import sign_pattern
    >>> short_repr(sign_pattern([[1]]))
    "PatternResult(kind='sign', k=1, d=1, count=2, complete=True, completeness='zaslavsky')"
    """
    return f"{type(obj).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in _kv(obj)) + ")"


def _pattern_table(r: Any) -> dict[str, list]:
    P = r.pattern_array()
    kind = str(r.kind)
    if kind == "sign":
        cols = {f"label {i}": P[:, i].tolist() for i in range(P.shape[1])}
    else:
        cols = {f"rank {i + 1}": P[:, i].tolist() for i in range(P.shape[1])}
    return cols


def table_of(obj: Any) -> dict[str, list]:
    """The result as columns (name -> list of cells), for :func:`dataframe` and :func:`html`.

    Sign patterns: one column per label (entries -1, 0, 1).  Rankings: ``rank 1`` is the
    most likely label.  Argmaxable labels: one row per label.  Grids: one row per head.
    """
    name = type(obj).__name__
    if name == "PatternResult":
        return _pattern_table(obj)
    if name == "ArgmaxResult":
        from logitgeom.exact.numbers import vector_to_str

        k = len(obj.W)
        wit = [None if w is None else "(" + ", ".join(vector_to_str(w)) + ")"
               for w in obj.witnesses]
        return {"label": list(range(k)), "argmaxable": [i in obj.labels for i in range(k)],
                "witness x": wit}
    if name == "GridResult":
        rows = [c.to_json() for c in obj.cells]
        keys = ["n", "d", "seed", "sign_count", "lemma_5_3", "ranking_count", "theorem_5_6",
                "passed"]
        return {k: [r[k] for r in rows] for k in keys}
    if name == "LayerPeeledSolution":
        sv = np.asarray(obj.singular_values, float).tolist()
        return {"i": list(range(len(sv))), "singular value of Z*": sv}
    raise TypeError(f"{name} has no table form")


def dataframe(obj: Any):
    """:func:`table_of` as a :class:`pandas.DataFrame` (a dict of lists without pandas)."""
    cols = table_of(obj)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the notebooks extra
        return cols
    return pd.DataFrame(cols)


def html(obj: Any, rows: int = HTML_ROWS) -> str:
    """A compact HTML view: the summary fields, then the first ``rows`` table rows."""
    esc = _html.escape
    head = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(str(v))}</td></tr>"
                   for k, v in _kv(obj))
    out = [f"<div><b>{esc(type(obj).__name__)}</b>",
           f"<table style='margin-bottom:0.5em'>{head}</table>"]
    try:
        cols = table_of(obj)
    except TypeError:
        return "".join(out) + "</div>"
    n = len(next(iter(cols.values()), []))
    what = {"sign": "sign patterns", "ranking": "rankings", "ranking-top": "prefixes"}.get(
        str(getattr(obj, "kind", "")), "rows")
    th = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{esc(str(cols[c][i]))}</td>" for c in cols) + "</tr>"
                   for i in range(min(n, rows)))
    more = (f"<p>first {rows} of {n} {what}; <code>.to_dataframe()</code> has them all</p>"
            if n > rows else f"<p>{n} {what}</p>")
    out.append(f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>{more}</div>")
    return "".join(out)


class ResultDisplay:
    """Mixin: a short ``repr``, an HTML table for notebooks and ``to_dataframe()``.

    Use on dataclasses declared with ``repr=False`` (otherwise the dataclass writes its own
    ``__repr__`` over this one).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return short_repr(self)

    def _repr_html_(self) -> str:
        return html(self)

    def to_dataframe(self):
        """The table of this result as a pandas DataFrame (see :mod:`logitgeom._display`)."""
        return dataframe(self)
