"""The lines of the stdlib-readable twin shards, formatted a batch at a time.

:meth:`logitgeom.geometry.stream.StoredResult.write_twins` writes one line
``{"pattern":[...],"witness":["p/q",...]}`` per row (certificates/SPEC.md section 10).  This
module builds those lines from the stored arrays with numpy doing the per-number work
(``gcd``, division, decimal text) and Python only joining strings, and gives each line a
sort key whose string order is the order of the patterns as integer tuples (what the
checker requires within a shard).  The bytes are those of the row-by-row formatting
(tested against it).

Examples
--------
>>> import numpy as np
>>> keys, lines, buckets = twin_lines(np.array([[1, -1]], np.int8),
...                                   np.array([[2, 1, -4]]), affine=True, buckets=3)
>>> lines[0]
'{"pattern":[1,-1],"witness":["1/2","-2"]}\\n'
"""

from __future__ import annotations

import math
import zlib

import numpy as np

__all__ = ["twin_lines", "twin_line"]

#: sign vectors are joined from chunks of this many signs (a table of 3^6 strings)
_CHUNK = 6
_TABLES: dict[int, np.ndarray] = {}


def _table(length: int) -> np.ndarray:
    """The text of every chunk of ``length`` signs, indexed by sum (s_i + 1) 3^i."""
    got = _TABLES.get(length)
    if got is None:
        tok = ("-1", "0", "1")
        got = np.empty(3 ** length, dtype=object)
        for code in range(3 ** length):
            got[code] = ",".join(tok[code // 3 ** i % 3] for i in range(length))
        _TABLES[length] = got
    return got


def _pattern_texts(pats: np.ndarray, signs: bool) -> list[str]:
    """The JSON list of each row (no spaces)."""
    n, k = pats.shape
    if k == 0:
        return ["[]"] * n
    if not signs:
        return ["[" + ",".join(map(str, p)) + "]" for p in pats.tolist()]
    digits = pats.astype(np.int64) + 1
    cols = []
    for lo in range(0, k, _CHUNK):
        part = digits[:, lo:lo + _CHUNK]
        codes = part @ (3 ** np.arange(part.shape[1], dtype=np.int64))
        cols.append(_table(part.shape[1])[codes].tolist())
    return ["[" + ",".join(row) + "]" for row in zip(*cols, strict=True)]


def _witness_texts(X: np.ndarray, affine: bool) -> list[str]:
    """The JSON list of canonical rationals ``"p/q"`` / ``"p"`` of each stored witness
    (homogeneous ``(x_0, x)``, ``x_0 > 0``, when affine)."""
    if X.dtype == object or X.dtype.kind not in "iu":
        return [_witness_row(x, affine) for x in X.tolist()]
    n, d = X.shape[0], X.shape[1] - affine
    if d <= 0:
        return ['[]'] * n
    if affine:  # numpy: gcd and division; Python: decimal text (str of an int is C-fast)
        x0 = X[:, :1]
        g = np.gcd(X[:, 1:], x0)
        num = list(map(str, (X[:, 1:] // g).ravel().tolist()))
        den = list(map(str, (np.broadcast_to(x0, g.shape) // g).ravel().tolist()))
        parts = [a if b == "1" else a + "/" + b for a, b in zip(num, den, strict=True)]
    else:
        parts = list(map(str, X.ravel().tolist()))
    return ['["' + '","'.join(parts[i:i + d]) + '"]' for i in range(0, n * d, d)]


def _witness_row(x: list, affine: bool) -> str:
    """One witness's text, row by row (numbers beyond 64 bits)."""
    if affine:
        x0, parts = int(x[0]), []
        for a in x[1:]:
            a = int(a)
            g = math.gcd(a, x0)
            parts.append(str(a // g) if g == x0 else f"{a // g}/{x0 // g}")
    else:
        parts = [str(int(a)) for a in x]
    return '["' + '","'.join(parts) + '"]'


def twin_line(pattern: list[int], x: list[int], affine: bool) -> str:
    """One line, formatted row by row (the reference the batch formatting is tested
    against).

    Parameters
    ----------
    pattern : list of int
        The sign vector or ranking.
    x : list of int
        The stored witness (homogeneous ``(x_0, x)`` when ``affine``; a run stores
        ``x_0 > 0``, which the text assumes).
    affine : bool
        Homogeneous witness.

    Returns
    -------
    str
        ``{"pattern":[...],"witness":[...]}`` and a newline.

    Examples
    --------
    >>> twin_line([1, -1], [2, 1, -4], True)
    '{"pattern":[1,-1],"witness":["1/2","-2"]}\\n'
    """
    return (f'{{"pattern":[{",".join(map(str, pattern))}],'
            f'"witness":{_witness_row(x, affine)}}}\n')


def twin_lines(pats: np.ndarray, X: np.ndarray, *, affine: bool, buckets: int,
               signs: bool = True) -> tuple[list[str], list[str], list[int]]:
    """(sort keys, lines, shard numbers) of a batch of rows.

    Parameters
    ----------
    pats : ndarray (n, k)
        Sign vectors (``signs``) or rankings, as the user sees them.
    X : ndarray (n, D)
        Stored integer witnesses (int64, or objects for larger numbers).
    affine : bool
        Homogeneous witnesses ``(x_0, x)``.
    buckets : int
        Number of shards: a line goes to ``crc32(its pattern's JSON list) mod buckets``.
    signs : bool
        Sign vectors (entries in {-1, 0, 1}) rather than rankings.

    Returns
    -------
    keys, lines, shards : lists
        ``keys[i]`` sorts (as a string) like the pattern as a tuple of integers; all keys
        of a batch have the same length ``k``.

    Raises
    ------
    ValueError
        ``pats`` and ``X`` differ in length.
    """
    if len(pats) != len(X):
        raise ValueError(f"{len(pats)} patterns but {len(X)} witnesses")
    n, k = pats.shape
    texts = _pattern_texts(pats, signs)
    wits = _witness_texts(X, affine)
    crc = zlib.crc32
    shards = [crc(t.encode("ascii")) % buckets for t in texts]
    lines = [f'{{"pattern":{t},"witness":{w}}}\n' for t, w in zip(texts, wits, strict=True)]
    if k:  # entries (>= -1) as characters from U+00FF: string order = tuple order
        codes = np.ascontiguousarray(pats.astype(np.int64) + 0x100, dtype=np.uint32)
        keys = codes.view(f"U{k}").ravel().tolist()
    else:
        keys = [""] * n
    return keys, lines, shards
