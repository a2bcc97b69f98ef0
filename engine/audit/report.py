"""The *write* stage's citable outputs: a per-label table, a ranking and a figure.

Each audited label gets one row: ``label``, ``name`` (token string or the user's label
name), ``verdict`` (and ``verdict_box`` with a radius), ``margin`` and ``proof``.

* ``margin``: for an ``argmaxable`` label, the smallest margin min_i (w_k - w_i) . x +
  (b_k - b_i) at the certificate's witness x divided by ||x||_2 (at x = 0, the smallest bias
  gap): a float figure describing the proven witness (how far from losing the argmax it is
  there), not a proof and not the largest possible margin; empty for ``never``.
* ``proof``: ``witness:<stage>`` (row, center, bias, ascent, lp, exact) or
  ``gordan:<n rows>``, or ``undecided:<reason>``.

The labels *nearest to unargmaxable* are the argmaxable ones with the smallest margin.

Examples
--------
>>> rows = table_rows([{"label": 0, "all": {"verdict": "never", "rows": [1, 2],
...                     "multipliers": ["1", "1"], "stage": "lp"}}], {}, {}, ("all",))
>>> rows[0]["proof"], rows[0]["margin"]
('gordan:2', None)
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

__all__ = ["table_rows", "write_table", "nearest", "plot_margins", "read_label_names"]


def _proof(e: dict, sizes: dict) -> str:
    """The proof column; ``sizes``: label -> rows of the never entries so far that list their
    rows (a never entry may name one's, ``{"as": label}``: certificates/SPEC.md section 9)."""
    if e["verdict"] == "argmaxable":
        return f"witness:{e.get('stage', '')}"
    if e["verdict"] == "never":
        rows = e["rows"]
        return f"gordan:{sizes[rows['as']] if isinstance(rows, dict) else len(rows)}"
    return f"undecided:{e.get('reason', '')}"


def table_rows(records, names: dict, margins: dict, domains) -> list[dict]:
    """One dict per label record (see the module docstring)."""
    out = []
    sizes: dict[int, int] = {}
    for r in records:
        k = r["label"]
        first = r[domains[0]]
        e = r.get("all", first)
        row = {"label": k, "name": names.get(k), "verdict": e["verdict"]}
        if "box" in domains:
            row["verdict_box"] = r["box"]["verdict"]
        m = margins.get(k)
        row["margin"] = None if m is None or not math.isfinite(m) else float(m)
        row["proof"] = _proof(e, sizes)
        if e["verdict"] == "never" and isinstance(e["rows"], list):
            sizes[k] = len(e["rows"])
        out.append(row)
    return out


def write_table(rows: list[dict], folder: Path, write) -> list[Path]:
    """``labels.csv`` (always) and ``labels.parquet`` (when pyarrow is installed), written
    with ``write(path, bytes)``; returns the paths written."""
    cols = list(rows[0]) if rows else ["label", "name", "verdict", "margin", "proof"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: ("" if r[c] is None else (repr(r[c]) if isinstance(r[c], float)
                                                  else r[c])) for c in cols})
    paths = [folder / "labels.csv"]
    write(paths[0], buf.getvalue().encode())
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - optional
        return paths
    tbl = pa.table({c: [r[c] for r in rows] for c in cols})
    sink = pa.BufferOutputStream()
    pq.write_table(tbl, sink)
    paths.append(folder / "labels.parquet")
    write(paths[1], sink.getvalue().to_pybytes())
    return paths


def nearest(rows: list[dict], n: int = 20) -> list[dict]:
    """The ``n`` argmaxable labels with the smallest margin (ties by label).

    Examples
    --------
    >>> nearest([{"label": 0, "verdict": "argmaxable", "margin": 0.5},
    ...          {"label": 1, "verdict": "argmaxable", "margin": 0.1},
    ...          {"label": 2, "verdict": "never", "margin": None}], 1)[0]["label"]
    1
    """
    cand = [r for r in rows if r["verdict"] == "argmaxable" and r["margin"] is not None]
    return sorted(cand, key=lambda r: (r["margin"], r["label"]))[:n]


def marked(rows: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """The figure's three groups: argmaxable labels with a positive margin, labels never the
    argmax (over all inputs), and labels argmaxable over all inputs but never inside the box
    (``verdict_box``).

    Examples
    --------
    >>> rows = [{"label": 0, "verdict": "argmaxable", "margin": 0.5, "verdict_box": "never"},
    ...         {"label": 1, "verdict": "never", "margin": None, "verdict_box": "never"}]
    >>> [[r["label"] for r in g] for g in marked(rows)]
    [[0], [1], [0]]
    """
    arg = [r for r in rows if r["verdict"] == "argmaxable" and r["margin"] is not None
           and r["margin"] > 0]
    nev = [r for r in rows if r["verdict"] == "never"]
    nev_box = [r for r in rows if r["verdict"] != "never" and r.get("verdict_box") == "never"]
    return arg, nev, nev_box


def plot_margins(rows: list[dict], norms, path: Path, write) -> Path | None:
    """Figure: margin at the witness against row norm, never-labels marked (and, with a
    radius, the labels never the argmax in the box, :func:`marked`); PNG bytes written with
    ``write``.  None when matplotlib is missing or cannot draw the axes (values near the
    float range)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - optional
        return None
    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=120)
    finite = [math.isfinite(float(v)) for v in norms]  # rows near 1.8e308: no point
    arg, nev, nev_box = ([r for r in group if finite[r["label"]]] for group in marked(rows))
    arg = [r for r in arg if r["margin"] < math.inf]
    if arg:
        ax.scatter([norms[r["label"]] for r in arg], [r["margin"] for r in arg], s=4,
                   label=f"argmaxable ({len(arg)})", color="tab:blue")
        ax.set_yscale("log")
    if nev:
        lo = min((r["margin"] for r in arg), default=1.0)
        ax.scatter([norms[r["label"]] for r in nev], [lo / 4] * len(nev), s=12, marker="x",
                   color="tab:red", label=f"never the argmax ({len(nev)})")
    if nev_box:  # argmaxable somewhere, but never inside the box max_j |x_j| <= R
        lo = min((r["margin"] for r in arg), default=1.0)
        ax.scatter([norms[r["label"]] for r in nev_box], [lo / 2] * len(nev_box), s=14,
                   marker="v", color="tab:orange",
                   label=f"never the argmax in the box ({len(nev_box)})")
    ax.set_xlabel("row norm ||w_k||")
    ax.set_ylabel("margin at the witness / ||x||")
    ax.set_title("Argmax audit: how far each label is from losing")
    ax.legend(loc="best", fontsize=8)
    buf = io.BytesIO()
    try:
        fig.tight_layout()
        fig.savefig(buf, format="png", metadata={"Software": None})
    except (OverflowError, ValueError):  # axes spanning ~1e308: matplotlib cannot tick them
        return None
    finally:
        plt.close(fig)
    write(path, buf.getvalue())
    return path


def read_label_names(spec, k: int) -> dict[int, str]:
    """Label names from a list, or a file: a JSON list, or one name per line.

    Examples
    --------
    >>> read_label_names(["cat", "dog"], 2)
    {0: 'cat', 1: 'dog'}
    """
    import json

    from logitgeom.errors import InvalidInput

    if isinstance(spec, str | Path):
        from logitgeom.io import read_text

        p = Path(spec)
        try:  # a regular file of bounded size: never a FIFO or /dev/zero
            text = read_text(p, "label-names file")
        except OSError as exc:
            raise InvalidInput(f"cannot read label names from {p}: {exc}") from None
        if text.lstrip().startswith("["):
            try:
                names = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{p} is not a JSON list of label names: {exc}") from None
        else:
            names = text.splitlines()
            while names and names[-1] == "":
                names.pop()
    elif isinstance(spec, bytes) or not hasattr(spec, "__iter__"):
        raise InvalidInput(f"label names must be a list of strings or a file; got "
                           f"{type(spec).__name__} {spec!r}"[:200])
    else:
        names = list(spec)
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InvalidInput("label names must be a list of strings")
    if len(names) != k:
        raise InvalidInput(f"{len(names)} label names given but the head has {k} rows")
    return dict(enumerate(names))
