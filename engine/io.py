"""Reading matrices from files as people save them: ``.csv``, ``.tsv``, ``.txt``, ``.npy``,
``.npz`` and ``.json``.

Exact readers return :data:`logitgeom.exact.numbers.ExactMatrix`; text entries may be
integers, decimals (with exponents, as ``np.savetxt`` writes them) or ``"p/q"`` strings (a
decimal ``0.1`` is exactly 1/10; a binary float from ``.npy`` is its exact binary rational).
JSON numbers are read from their text too (``0.1`` in a ``.json`` is 1/10, as in a
``.csv``; ``1e-400`` is 10**-400, not 0), and an extended-precision ``.npy`` array
(float128) becomes the exact rationals it holds, never rounded to float64; the table is in
docs/limits.md ("What a number in a file means").

Text files (``.csv``, ``.tsv``, ``.txt``):

* the delimiter is a tab for ``.tsv``; otherwise a comma when the first data line has one,
  else a tab when it has one, else runs of spaces (``np.savetxt``'s default);
* lines starting with ``#`` (``np.savetxt``'s ``header=``/``footer=``) and blank lines are
  skipped; a first row in which no cell is a number is a header row and is skipped; when
  that header starts with an empty cell (``pandas.DataFrame.to_csv``), the first column
  is an index column and is dropped too;
* cells may be quoted (``"1/2"``).

``.npz`` archives: the single array, else the array named ``W`` (or ``matrix``, ``data``,
``Y``); ``FILE.npz:KEY`` picks an array by key.  JSON: a list of rows, or an object with a
``W`` / ``matrix`` / ``data`` / ``Y`` entry.

Every error names the file, and for text files the line and column (JSON: the line and
column of a syntax error, the entry's indices otherwise).  Files are read only when they
are regular files of at most :data:`MAX_FILE_BYTES` bytes (``/dev/zero`` or a directory
named ``W.csv`` is a clear error).

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "W.csv")
>>> _ = open(path, "w").write("1,1/2\\n-3,0.25\\n")
>>> read_matrix(path)[1]
(Fraction(-3, 1), Fraction(1, 4))
>>> _ = open(path, "w").write("# saved by np.savetxt\\n1.000e+00 5.000e-01\\n")
>>> read_matrix(path)
((Fraction(1, 1), Fraction(1, 2)),)
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np

from logitgeom import _fsio
from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.numbers import (
    MAX_DIGITS,
    ExactMatrix,
    ExactVector,
    check_number_text,
    exact_if_extended,
    to_fraction,
    to_matrix,
    to_vector,
)

__all__ = ["read_raw", "read_matrix", "read_vector", "read_text", "read_number_list",
           "check_input_file", "check_npy_header", "MAX_FILE_BYTES", "TEXT_SUFFIXES"]

#: Largest matrix file read (bytes).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Most entries of an extended-precision (float128) array read as exact rationals (each
#: becomes a Fraction: about 200 bytes).
MAX_EXTENDED_ENTRIES = 1_000_000
#: Text formats (delimited tables).
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
_JSON_KEYS = ("W", "matrix", "data", "Y")
_MAX_JSON_DEPTH = 64


class _Table:
    """Rows of text cells with the (line, column) of each cell, 1-based."""

    def __init__(self, path: Path):
        self.path = path
        self.rows: list[list[str]] = []
        self.where: list[list[tuple[int, int]]] = []

    def at(self, i: int, j: int | None = None) -> str:
        line, col = self.where[i][0 if j is None else j]
        if j is None:
            return f"{self.path}, line {line}"
        return f"{self.path}, line {line}, column {col}"


def _split_path(path: str | Path) -> tuple[Path, str | None]:
    """``FILE.npz:KEY`` -> (FILE.npz, KEY) when FILE.npz exists and the whole does not."""
    p = Path(path).expanduser()
    text = str(path)
    if not p.exists() and ".npz:" in text:
        head, _, key = text.rpartition(":")
        if Path(head).expanduser().exists():
            return Path(head).expanduser(), key
    return p, None


def check_input_file(path: str | Path, what: str = "matrix file", *,
                     max_bytes: int | None = MAX_FILE_BYTES) -> Path:
    """``path`` if it is an existing regular file of at most ``max_bytes`` bytes (default
    :data:`MAX_FILE_BYTES`; None: any size, for files read in pieces).

    A missing file is "not found"; a directory, pipe (FIFO), device or socket is refused at
    once, naming what it is (:func:`logitgeom._fsio.check_input_file`).

    Raises
    ------
    InvalidInput
        Missing, or not a regular file.
    TooLarge
        Larger than ``max_bytes``.

    Examples
    --------
    >>> check_input_file("/dev/null", "weights file")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: /dev/null is a character device, not a regular file; ...
    >>> check_input_file("/no/such/W.csv")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: matrix file not found: /no/such/W.csv
    """
    p = _fsio.check_input_file(path, what)
    size = p.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise TooLarge(f"{p} has {size} bytes; {what}s are read up to {max_bytes} bytes "
                       "(see docs/limits.md)")
    return p


def _checked(p: Path, what: str = "matrix file") -> Path:
    return check_input_file(p, what)


def read_text(path: str | Path, what: str = "text file") -> str:
    """A UTF-8 text file, checked as every input file is (a regular file, at most
    :data:`MAX_FILE_BYTES` bytes: never a pipe or a device, which could block or never end).

    Parameters
    ----------
    path : path
    what : str
        What the file is (named in messages).

    Returns
    -------
    str

    Raises
    ------
    InvalidInput
        Missing, a directory, a pipe or device, or not UTF-8.
    TooLarge
        Larger than :data:`MAX_FILE_BYTES`.

    Examples
    --------
    >>> read_text("/dev/zero")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: /dev/zero is a character device, not a regular file; ...
    """
    p = _checked(Path(path).expanduser(), what)
    return _decode(p, p.read_bytes())


def _decode(p: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InvalidInput(f"{p}, line {line}, column {col}: not UTF-8 text (byte "
                           f"0x{data[exc.start]:02x}); save the file as UTF-8") from None


def _is_number(cell: str) -> bool:
    try:
        check_number_text(cell)
    except InvalidInput:
        return False
    return True


def _cells(line: str, delim: str | None) -> list[tuple[int, str]]:
    """(column, cell) pairs of one line; column is 1-based."""
    if delim is None:
        return [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", line)]
    out, start = [], 0
    for piece in line.split(delim):
        lead = len(piece) - len(piece.lstrip())
        cell = piece.strip()
        if len(cell) >= 2 and cell[0] == cell[-1] and cell[0] in "\"'":
            cell = cell[1:-1].strip()
        out.append((start + lead + 1, cell))
        start += len(piece) + len(delim)
    return out


def _read_table(p: Path) -> _Table:
    text = _decode(p, p.read_bytes())
    lines = text.splitlines()
    data = [(n, ln) for n, ln in enumerate(lines, 1)
            if ln.strip() and not ln.lstrip().startswith("#")]
    table = _Table(p)
    if not data:
        return table
    if p.suffix.lower() == ".tsv":
        delim: str | None = "\t"
    else:
        first = data[0][1]
        delim = "," if "," in first else "\t" if "\t" in first else None
    parsed = []
    for n, ln in data:
        cells = _cells(ln, delim)
        if delim is not None and len(cells) > 1 and cells[-1][1] == "":
            cells = cells[:-1]  # a trailing delimiter
        parsed.append((n, cells))
    drop_first_column = False
    n0, head = parsed[0]
    if not any(_is_number(c) for _, c in head) and len(parsed) > 1:
        parsed = parsed[1:]  # a header row
        drop_first_column = head[0][1] == "" and len(head) > 1
    for n, cells in parsed:
        if drop_first_column:
            cells = cells[1:]
        for j, (col, c) in enumerate(cells):
            if c == "":
                raise InvalidInput(f"{p}, line {n}, column {col}: empty entry")
            try:  # text checked here, so every reader's error has a line and column
                check_number_text(c, what=f"entry [{len(table.rows)},{j}]")
            except InvalidInput as exc:
                raise InvalidInput(f"{p}, line {n}, column {col}: {exc}") from None
        table.rows.append([c for _, c in cells])
        table.where.append([(n, col) for col, _ in cells] or [(n, 1)])
    return table


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise InvalidInput(f"an integer of {len(text.lstrip('-'))} digits (limit {MAX_DIGITS}; "
                           "see docs/limits.md)")
    return int(text)


def _json_float(text: str) -> Fraction:
    """A JSON number with a fraction or exponent, read from its text as the exact rational
    it writes (``0.1`` is 1/10, ``1e-400`` is 10**-400), as in a .csv file: never through a
    binary float."""
    return Fraction(check_number_text(text, what="a JSON number"))


def _json_constant(name: str) -> float:
    raise InvalidInput(f"{name} is not a finite number")


def _depth_ok(text: str) -> bool:
    """Cheap over-estimate: no more than the allowed number of open brackets in a row."""
    depth = best = 0
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', '""', text):
        if ch in "[{":
            depth += 1
            best = max(best, depth)
            if best > _MAX_JSON_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _json_object(pairs: list) -> dict:
    """A JSON object whose keys are all distinct (a repeated key is an error, not the last
    value silently kept)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise InvalidInput(f"the JSON key {key!r} appears twice in one object")
        out[key] = value
    return out


def _read_json(p: Path):
    text = _decode(p, p.read_bytes())
    if not _depth_ok(text):
        raise InvalidInput(f"{p}: JSON nested deeper than {_MAX_JSON_DEPTH} levels; a matrix "
                           "is a list of rows")
    try:
        data = json.loads(text, parse_int=_json_int, parse_float=_json_float,
                          parse_constant=_json_constant,
                          object_pairs_hook=_json_object)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{p}, line {exc.lineno}, column {exc.colno}: not valid JSON: "
                           f"{exc.msg}") from None
    except InvalidInput as exc:
        raise InvalidInput(f"{p}: {exc}") from None
    except RecursionError:
        raise InvalidInput(f"{p}: JSON nested too deeply") from None
    if isinstance(data, dict):
        for key in _JSON_KEYS:
            if key in data:
                return data[key]
        raise InvalidInput(f"{p}: a JSON object needs a 'W' or 'matrix' entry "
                           f"(it has {sorted(data)[:10]})")
    return data


def check_npy_header(p: str | Path) -> None:
    """Refuse a .npy file whose header does not describe its data: a negative dimension, or
    a shape and dtype promising more (or fewer) bytes than the file holds.  Such a header
    would otherwise surface as "out of memory", an overflow or an mmap error.

    Raises
    ------
    InvalidInput
        Not a .npy file, or its header and its size disagree (the message says both).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "W.npy")
    >>> np.save(path, np.eye(2))
    >>> check_npy_header(path)
    >>> with open(path, "r+b") as fh:
    ...     _ = fh.seek(0); head = fh.read(128)
    ...     _ = fh.seek(0); _ = fh.write(head.replace(b"(2, 2)", b"(9, 2)"))
    >>> check_npy_header(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: ...W.npy: the .npy header says shape (9, 2) of float64 ...
    """
    p = Path(p)
    fmt = np.lib.format
    try:
        with open(p, "rb") as fh:
            version = fmt.read_magic(fh)
            read = fmt.read_array_header_1_0 if version == (1, 0) else \
                fmt.read_array_header_2_0
            shape, _, dtype = read(fh)
            start = fh.tell()
    except (ValueError, OSError, EOFError, SyntaxError, TypeError, OverflowError) as exc:
        raise InvalidInput(f"{p} is not a readable .npy array: {exc}") from None
    if any(int(n) < 0 for n in shape):
        raise InvalidInput(f"{p}: the .npy header says shape {tuple(shape)}, with a negative "
                           "dimension; the file is damaged")
    if dtype.hasobject:
        return  # np.load refuses it (allow_pickle=False) with its own message
    need = int(np.prod(shape, dtype=object)) * dtype.itemsize
    have = p.stat().st_size - start
    if need != have:
        raise InvalidInput(f"{p}: the .npy header says shape {tuple(shape)} of {dtype} "
                           f"({need:,} bytes) but the file holds {have:,} bytes of data; the "
                           "file is damaged or its header is wrong")


_npy_header_fits = check_npy_header


def _read_npy(p: Path) -> np.ndarray:
    _npy_header_fits(p)
    try:
        arr = np.load(p, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InvalidInput(f"{p} is not a readable .npy array: {exc}") from None
    return _numeric(p, arr)


def _numeric(p: Path | str, arr: object) -> np.ndarray:
    """The array, checked real; an extended-precision float array (float96/float128) becomes
    an object array of the exact Fractions it holds (never rounded to float64)."""
    if not isinstance(arr, np.ndarray):
        raise InvalidInput(f"{p} does not hold an array")
    if arr.dtype.kind not in "iuf":
        raise InvalidInput(f"{p} holds an array of dtype {arr.dtype}; a matrix of real numbers "
                           "is needed")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        if arr.size > MAX_EXTENDED_ENTRIES:
            raise TooLarge(f"{p}: {arr.size:,} extended-precision ({arr.dtype}) entries; they "
                           f"are read as exact rationals up to {MAX_EXTENDED_ENTRIES:,} "
                           "entries (see docs/limits.md)")
        try:
            return np.asarray(exact_if_extended(np.asarray(arr), what=Path(str(p)).name))
        except InvalidInput as exc:
            raise InvalidInput(f"{p}: {exc}") from None
    return arr


def _read_npz(p: Path, key: str | None) -> np.ndarray:
    try:
        with np.load(p, allow_pickle=False) as z:
            keys = list(z.files)
            if key is None:
                if len(keys) == 1:
                    key = keys[0]
                else:
                    key = next((k for k in _JSON_KEYS if k in keys), None)
                    if key is None:
                        raise InvalidInput(
                            f"{p} holds {len(keys)} arrays {keys[:10]}; pick one as "
                            f"{p}:KEY (none is named W, matrix, data or Y)")
            elif key not in keys:
                raise InvalidInput(f"{p} has no array named {key!r}; it has {keys[:20]}")
            arr = z[key]
    except InvalidInput:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise InvalidInput(f"{p} is not a readable .npz archive: {exc}") from None
    return _numeric(f"{p}:{key}", arr)


def read_raw(path: str | Path, what: str = "matrix file") -> list | np.ndarray:
    """Read a file into nested lists (text, json) or a numpy array (npy, npz), unconverted.

    Raises
    ------
    InvalidInput
        Missing file, a directory or device, undecodable text, invalid JSON, unsupported
        type; the message names the file (and the line and column where there is one).
    TooLarge
        The file is larger than :data:`MAX_FILE_BYTES`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "Y.tsv")
    >>> _ = open(path, "w").write("a\\tb\\n1/2\\t1\\n1/2\\t0\\n")
    >>> read_raw(path)
    [['1/2', '1'], ['1/2', '0']]
    """
    p, key = _split_path(path)
    _checked(p, what)
    suffix = p.suffix.lower()
    if key is not None and suffix != ".npz":
        raise InvalidInput(f"{p}: only .npz archives take a ':KEY'")
    if suffix == ".npy":
        return _read_npy(p)
    if suffix == ".npz":
        return _read_npz(p, key)
    if suffix == ".json":
        return _read_json(p)
    if suffix in TEXT_SUFFIXES:
        return _read_table(p).rows
    raise InvalidInput(f"{p}: unsupported file type '{suffix}' (use .csv, .tsv, .txt, .npy, "
                       ".npz or .json)")


def _exact_rows(path: str | Path, name: str,
                kind: str = "matrix file") -> list[list] | np.ndarray:
    """Rows converted to Fractions, each error naming file, line and column."""
    p, key = _split_path(path)
    if p.suffix.lower() not in TEXT_SUFFIXES or key is not None:
        raw = read_raw(path, kind)
        if isinstance(raw, np.ndarray) or not isinstance(raw, list):
            return raw
        try:
            return [[to_fraction(x, what=f"{name}[{i},{j}]") for j, x in enumerate(r)]
                    if isinstance(r, list) else r for i, r in enumerate(raw)]
        except InvalidInput as exc:
            raise InvalidInput(f"{p}: {exc}") from None
    table = _read_table(_checked(p, kind))
    rows = []
    for i, r in enumerate(table.rows):
        if i and len(r) != len(table.rows[0]):
            raise InvalidInput(f"{table.at(i)}: {name} is ragged: this row has {len(r)} entries "
                               f"but the first row ({table.at(0)}) has {len(table.rows[0])}")
        out = []
        for j, cell in enumerate(r):
            try:
                out.append(to_fraction(cell, what=f"{name}[{i},{j}]"))
            except InvalidInput as exc:
                raise InvalidInput(f"{table.at(i, j)}: {exc}") from None
        rows.append(out)
    return rows


def read_matrix(path: str | Path, *, what: str | None = None) -> ExactMatrix:
    """Read a matrix file into exact rationals (see the module docstring).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "W.csv")
    >>> _ = open(path, "w").write("x,y\\n1,2\\n3,z\\n")
    >>> read_matrix(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: ...W.csv, line 3, column 3: entry [1,1] = 'z' is not a number ...
    """
    name = what or Path(path).name
    raw = _exact_rows(path, name, f"{what} file" if what else "matrix file")
    if isinstance(raw, np.ndarray) and raw.ndim != 2:
        raise InvalidInput(f"{path}: {name} must be 2-D; got shape {raw.shape}")
    try:
        return to_matrix(raw, what=name)
    except InvalidInput as exc:
        if str(path) in str(exc):
            raise
        raise InvalidInput(f"{path}: {exc}") from None


def read_vector(
    path: str | Path, *, length: int | None = None, what: str | None = None
) -> ExactVector:
    """Read a vector (one row, one column, or a flat JSON list) into exact rationals."""
    name = what or Path(path).name
    raw = _exact_rows(path, name, f"{what} file" if what else "vector file")
    try:
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
    except InvalidInput as exc:
        raise InvalidInput(f"{path}: {exc}") from None


#: suffixes that make an option value a file name rather than a comma-separated list
_FILE_SUFFIXES = (*TEXT_SUFFIXES, ".npy", ".npz", ".json")


def read_number_list(text: str | None, what: str, kind=str) -> list | None:
    """An option's list of numbers: ``"1,2,3"``, or the name of a file holding one row or
    column of numbers.

    A value that names an existing path, contains a path separator or ends in a matrix file
    suffix is a file, checked as every input file is (a missing one is "not found", a pipe
    or device is refused); anything else is split at commas and each item converted by
    ``kind``.

    Parameters
    ----------
    text : str or None
    what : str
        The option's name without dashes (named in messages).
    kind : callable
        Converts one comma-separated item (``str`` keeps the text for an exact reading).

    Returns
    -------
    list or None
        None when ``text`` is None.

    Raises
    ------
    InvalidInput
        A missing or unreadable file, or an item ``kind`` refuses.

    Examples
    --------
    >>> read_number_list("1, 1/2", "weights")
    ['1', '1/2']
    >>> read_number_list("w.csv", "weights")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: --weights: file not found: w.csv
    """
    if text is None:
        return None
    p = Path(text).expanduser()
    items = [x.strip() for x in text.split(",") if x.strip()]
    looks_like_file = (os.path.lexists(p) or p.suffix.lower() in _FILE_SUFFIXES
                       or (os.sep in text and not all(_is_number(x) for x in items)))
    if looks_like_file:
        try:
            check_input_file(p, f"--{what} file")
        except InvalidInput as exc:
            msg = str(exc)
            if "not found" in msg:
                raise InvalidInput(f"--{what}: file not found: {p}") from None
            raise
        return [x for r in read_matrix(p, what=what) for x in r]
    try:
        return [kind(x) for x in items]
    except ValueError:
        raise InvalidInput(f"--{what} {text!r} is not a comma-separated list") from None
