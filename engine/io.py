"""Reading matrices from files: ``.csv``, ``.npy`` and ``.json``.

Exact readers return :data:`engine.exact.numbers.ExactMatrix`; CSV and JSON
entries may be integers, decimals or ``"p/q"`` strings (a decimal ``0.1`` is
exactly 1/10, a binary float from ``.npy`` is its exact binary rational).

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "W.csv")
>>> _ = open(path, "w").write("1,1/2\\n-3,0.25\\n")
>>> read_matrix(path)[1]
(Fraction(-3, 1), Fraction(1, 4))
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from engine.errors import InvalidInput
from engine.exact.numbers import ExactMatrix, ExactVector, to_matrix, to_vector

__all__ = ["read_raw", "read_matrix", "read_vector", "read_float_matrix"]


def read_raw(path: str | Path) -> list | np.ndarray:
    """Read a file into nested lists (csv/json) or a numpy array (npy), unconverted."""
    p = Path(path)
    if not p.exists():
        raise InvalidInput(f"file not found: {p}")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except ValueError as exc:
            raise InvalidInput(f"{p} is not a readable .npy array: {exc}") from exc
        return arr
    if suffix == ".json":
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{p} is not valid JSON: {exc}") from exc
        if isinstance(data, dict):
            for key in ("W", "matrix", "data", "Y"):
                if key in data:
                    return data[key]
            raise InvalidInput(f"{p}: a JSON object needs a 'W' or 'matrix' entry")
        return data
    if suffix in {".csv", ".txt", ".tsv"}:
        delim = "\t" if suffix == ".tsv" else ","
        rows = []
        with p.open(newline="") as fh:
            for row in csv.reader(fh, delimiter=delim):
                cells = [c.strip() for c in row]
                if not cells or all(c == "" for c in cells) or cells[0].startswith("#"):
                    continue
                rows.append(cells)
        return rows
    raise InvalidInput(f"{p}: unsupported file type '{suffix}' (use .csv, .npy or .json)")


def read_matrix(path: str | Path, *, what: str | None = None) -> ExactMatrix:
    """Read a matrix file into exact rationals (see module docstring)."""
    raw = read_raw(path)
    name = what or Path(path).name
    if isinstance(raw, np.ndarray) and raw.ndim == 1:
        raise InvalidInput(f"{name} must be 2-D; got shape {raw.shape}")
    return to_matrix(raw, what=name)


def read_vector(
    path: str | Path, *, length: int | None = None, what: str | None = None
) -> ExactVector:
    """Read a vector (one row, one column, or a flat JSON list) into exact rationals."""
    raw = read_raw(path)
    name = what or Path(path).name
    if isinstance(raw, np.ndarray):
        flat = raw.reshape(-1) if raw.ndim == 2 and 1 in raw.shape else raw
        return to_vector(flat, what=name, length=length)
    if raw and all(isinstance(r, list) for r in raw):
        if len(raw) == 1:
            raw = raw[0]
        elif all(len(r) == 1 for r in raw):
            raw = [r[0] for r in raw]
        else:
            raise InvalidInput(f"{name} must be a vector (one row or one column)")
    return to_vector(raw, what=name, length=length)


def read_float_matrix(path: str | Path, *, what: str | None = None) -> np.ndarray:
    """Read a matrix file as float64 (exact entries rounded to nearest; for the float side)."""
    M = read_matrix(path, what=what)
    return np.array([[float(x) for x in r] for r in M], dtype=float)
