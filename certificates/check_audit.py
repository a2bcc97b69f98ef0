"""Checker of ``argmax-audit`` batch certificates (certificates/SPEC.md, section 8).

Standard library only, like ``certificates/check.py`` (which dispatches the kind here).  A
batch certificate states, per audited label k and per domain, one of

* ``argmaxable``: a witness x (``{"x": [...]}`` or ``{"scale": t}`` meaning x = t w_k) with
  (w_k - w_i) . x + (b_k - b_i) > 0 for every i != k (and max_j abs(x_j) <= R in the box);
* ``never``: positive multipliers c on rows S (k not in S, at most d + 1 rows, d + 2 with a
  bias) with sum c_i (w_k - w_i) = 0 and sum c_i (b_k - b_i) <= 0 (domain ``all``), or
  sum c_i (b_k - b_i) + R ||sum c_i (w_k - w_i)||_1 <= 0 (domain ``box``);
* ``undecided``: no claim.

Every claim is re-checked in integer arithmetic from the head itself: inline ``W`` or a
referenced ``.npy`` / ``.safetensors`` file whose tensor bytes must have the stated SHA-256.
Label records are inline (``records``) or in JSON-lines ``shards`` (SHA-256 checked), paths
relative to the certificate's folder.  Checking is O(k d) integer operations per label and
domain; for vocabulary-sized heads check a sample::

    python -m certificates.check_audit audit.json [--labels 0,5,9-12] [--sample N]

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "argmax-audit",
...         "head": {"W": [["1", "0"], ["-1", "0"], ["0", "1"], ["0", "1/4"]]},
...         "rows": 4, "cols": 2, "domains": ["all"], "labels": [[2, 3]],
...         "counts": {"all": {"argmaxable": 1, "never": 1, "undecided": 0}},
...         "records": [{"label": 2, "all": {"verdict": "argmaxable",
...                                           "witness": {"scale": "1"}}},
...                     {"label": 3, "all": {"verdict": "never", "rows": [0, 1, 2],
...                                           "multipliers": ["3", "3", "2"]}}]}
>>> check_audit(cert, "", Exception)
>>> cert["records"][1]["all"]["multipliers"] = ["1", "1", "1"]
>>> try:
...     check_audit(cert, "", ValueError)
... except ValueError as e:
...     print(e.args[0])
gordan-combination
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import hashlib
import json
import math
import os
import random
import struct
import sys
from array import array
from fractions import Fraction

__all__ = ["check_audit", "run", "check_file", "base_dir", "main", "VERDICTS"]

VERDICTS = ("argmaxable", "never", "undecided")
DOMAINS = ("all", "box")

#: Folder against which file references are resolved (set by ``check_file``).
_BASE: contextvars.ContextVar = contextvars.ContextVar("audit_base", default=None)
#: Restrict checking to these labels (None: all); set by this module's command line.
_ONLY: contextvars.ContextVar = contextvars.ContextVar("audit_only", default=None)


@contextlib.contextmanager
def base_dir(path):
    """Resolve the certificate's relative file references against ``path``."""
    token = _BASE.set(path)
    try:
        yield
    finally:
        _BASE.reset(token)


class _Ctx:
    def __init__(self, fail):
        self.fail = fail

    def __call__(self, check, loc, msg):
        exc = self.fail(check, loc or "/", msg)
        if not hasattr(exc, "check"):
            exc.check, exc.location, exc.message = check, loc or "/", msg
        return exc


# ----------------------------------------------------------------------------- reading
def _num(F, s, loc) -> Fraction:
    if not isinstance(s, str):
        raise F("number", loc, f"numbers are canonical strings 'p/q'; got {s!r}")
    try:
        q = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise F("number", loc, f"{s!r} is not a rational 'p/q'") from None
    if str(q) != s:
        raise F("number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


def _int(F, v, loc, lo=None, hi=None) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise F("schema", loc, f"expected a JSON integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise F("schema", loc, f"integer {v} out of range [{lo}, {hi}]")
    return v


def _get(F, obj, key, loc):
    if not isinstance(obj, dict):
        raise F("schema", loc, "expected a JSON object")
    if key not in obj:
        raise F("schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def _list(F, v, loc, n=None) -> list:
    if not isinstance(v, list):
        raise F("schema", loc, f"expected a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise F("shape", loc, f"expected {n} entries, got {len(v)}")
    return v


def _resolve(F, name, loc) -> str:
    if not isinstance(name, str) or not name:
        raise F("schema", loc, "expected a file name")
    if os.path.isabs(name):
        return name
    base = _BASE.get()
    if base is None and not os.path.exists(name):
        raise F("file", loc, f"{name!r} not found relative to the current folder; "
                             "certificates.check resolves relative paths there, "
                             "certificates.check_audit FILE against the certificate's folder")
    return os.path.join(base, name) if base else name


def _read_bytes(F, path, offset, nbytes, sha, loc) -> bytes:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(nbytes)
    except OSError as exc:
        raise F("file", loc, f"cannot read {path}: {exc}") from None
    if len(data) != nbytes:
        raise F("file", loc, f"{path} is truncated")
    if hashlib.sha256(data).hexdigest() != sha:
        raise F("file-hash", loc, f"SHA-256 of the head bytes in {path} differs from the "
                                  "certificate")
    return data


def _floats(F, data: bytes, dtype: str, loc) -> list[float]:
    if dtype in ("<f8", "F64"):
        a = array("d")
        a.frombytes(data)
    elif dtype in ("<f4", "F32"):
        a = array("f")
        a.frombytes(data)
    elif dtype in ("<f2", "F16"):
        a = array("d", (v[0] for v in struct.iter_unpack("<e", data)))
    elif dtype == "BF16":
        wide = bytearray(2 * len(data))
        wide[2::4] = data[0::2]
        wide[3::4] = data[1::2]
        a = array("f")
        a.frombytes(bytes(wide))
    else:
        raise F("schema", loc, f"unsupported head dtype {dtype!r}")
    if sys.byteorder != "little" and dtype != "BF16":
        a.byteswap()
    if not all(map(math.isfinite, a)):
        raise F("number", loc, "the head has a NaN or infinite entry")
    return a


class _FileRows:
    """Rows of a head held as one flat array (row-major, or column-major when transposed)."""

    def __init__(self, vals, k, d, transpose):
        self.vals, self.k, self.d, self.t = vals, k, d, transpose

    def __len__(self):
        return self.k

    def __getitem__(self, i):
        return self.vals[i::self.k] if self.t else self.vals[i * self.d:(i + 1) * self.d]


def _head_from_file(F, ref, k, d, loc) -> _FileRows:
    fmt = _get(F, ref, "format", loc)
    path = _resolve(F, _get(F, ref, "file", loc), f"{loc}/file")
    sha = _get(F, ref, "sha256", loc)
    transpose = ref.get("transpose", False)
    if not isinstance(transpose, bool):
        raise F("schema", f"{loc}/transpose", "transpose must be true or false")
    try:
        with open(path, "rb") as fh:
            if fmt == "npy":
                magic = fh.read(8)
                if magic[:6] != b"\x93NUMPY":
                    raise F("file", loc, f"{path} is not a .npy file")
                hl = struct.unpack("<H", fh.read(2))[0] if magic[6] == 1 else \
                    struct.unpack("<I", fh.read(4))[0]
                header = ast.literal_eval(fh.read(hl).decode("latin1"))
                dtype, shape = header["descr"], tuple(header["shape"])
                if header.get("fortran_order"):
                    raise F("file", loc, "Fortran-ordered .npy is not supported")
                offset = fh.tell()
            elif fmt == "safetensors":
                n = struct.unpack("<Q", fh.read(8))[0]
                header = json.loads(fh.read(n))
                e = header[_get(F, ref, "tensor", loc)]
                dtype, shape = e["dtype"], tuple(e["shape"])
                offset = 8 + n + int(e["data_offsets"][0])
            else:
                raise F("schema", f"{loc}/format", f"unknown head format {fmt!r}")
    except (OSError, ValueError, KeyError, SyntaxError, struct.error) as exc:
        raise F("file", loc, f"cannot read the head from {path}: {exc!r}") from None
    size = {"<f8": 8, "F64": 8, "<f4": 4, "F32": 4, "<f2": 2, "F16": 2, "BF16": 2}.get(dtype)
    if size is None:
        raise F("schema", loc, f"unsupported head dtype {dtype!r}")
    want = (d, k) if transpose else (k, d)
    if shape != want:
        raise F("shape", loc, f"head in {path} has shape {shape}, expected {want}")
    vals = _floats(F, _read_bytes(F, path, offset, k * d * size, sha, loc), dtype, loc)
    return _FileRows(vals, k, d, transpose)


def _common_den(rows) -> int:
    dens = set()
    for r in rows:
        dens.update(v.as_integer_ratio()[1] for v in r)
    return math.lcm(*dens) if dens else 1


def _ints(r, L) -> list[int]:
    out = []
    for v in r:
        p, q = v.as_integer_ratio()
        out.append(p * (L // q))
    return out


def _int_matrix(rows) -> tuple[list[list[int]], int]:
    """Exact integer rows and one common denominator L (value = int / L)."""
    L = _common_den(rows)
    return [_ints(r, L) for r in rows], L


# ----------------------------------------------------------------------------- checks
def _labels(F, runs, k, loc) -> list[int]:
    out: list[int] = []
    for n, run in enumerate(_list(F, runs, loc)):
        r = _list(F, run, f"{loc}/{n}", 2)
        a = _int(F, r[0], f"{loc}/{n}/0", 0, k - 1)
        b = _int(F, r[1], f"{loc}/{n}/1", a, k - 1)
        if out and a <= out[-1]:
            raise F("schema", f"{loc}/{n}", "label runs must be increasing and disjoint")
        out.extend(range(a, b + 1))
    if not out:
        raise F("schema", loc, "no labels")
    return out


def _records(F, obj, loc):
    if "records" in obj:
        for n, r in enumerate(_list(F, obj["records"], f"{loc}/records")):
            yield f"{loc}/records/{n}", r
        return
    shards = _list(F, _get(F, obj, "shards", loc), f"{loc}/shards")
    for s, sh in enumerate(shards):
        sloc = f"{loc}/shards/{s}"
        path = _resolve(F, _get(F, sh, "file", sloc), f"{sloc}/file")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise F("file", sloc, f"cannot read shard {path}: {exc}") from None
        if hashlib.sha256(data).hexdigest() != _get(F, sh, "sha256", sloc):
            raise F("file-hash", sloc, f"SHA-256 of shard {path} differs from the certificate")
        for n, line in enumerate(data.decode("utf-8").splitlines()):
            if not line.strip():
                continue

            def _no_float(x, _loc=f"{sloc}:{n + 1}"):
                raise F("number", _loc, f"JSON number {x} is not allowed; write 'p/q'")

            try:
                rec = json.loads(line, parse_float=_no_float, parse_constant=_no_float)
            except json.JSONDecodeError as exc:
                raise F("schema", f"{sloc}:{n + 1}", f"not JSON: {exc}") from None
            yield f"{sloc}:{n + 1}", rec


class _Model:
    """Exact rows on demand: row i as integers over its own denominator L_i."""

    #: Integer rows are cached when the head has at most this many entries.
    CACHE = 1 << 22

    def __init__(self, F, W, bias, k, d):
        self.F, self.k, self.d = F, k, d
        self.W = W
        self._cache = {} if k * d <= self.CACHE else None
        if bias is None:
            self.IB, self.LB = None, 1
        else:
            IB, self.LB = _int_matrix([bias])
            self.IB = IB[0]

    def row(self, i) -> tuple[list[int], int]:
        if self._cache is not None and i in self._cache:
            return self._cache[i]
        pq = [v.as_integer_ratio() for v in self.W[i]]
        L = math.lcm(*{q for _, q in pq})
        out = ([p * (L // q) for p, q in pq], L)
        if self._cache is not None:
            self._cache[i] = out
        return out

    def margins_positive(self, k, x: list[Fraction], loc):
        F = self.F
        IX, LX = _int_matrix([x])
        IX = IX[0]
        wk, Lk = self.row(k)
        dk = sum(map(int.__mul__, wk, IX))
        for i in range(self.k):
            if i == k:
                continue
            wi, Li = self.row(i)
            di = sum(map(int.__mul__, wi, IX))
            # margin = (dk / Lk - di / Li) / LX + (b_k - b_i) / LB, times Lk Li LX LB > 0
            val = (dk * Li - di * Lk) * self.LB
            if self.IB is not None:
                val += (self.IB[k] - self.IB[i]) * Lk * Li * LX
            if val <= 0:
                raise F("witness", f"{loc}", f"label {k}: margin against label {i} is not "
                                             "positive at the witness")

    def gordan(self, k, rows, c, radius, loc):
        F = self.F
        R = [self.row(i) for i in (k, *rows)]
        L = math.lcm(*(Li for _, Li in R))
        wk = [v * (L // R[0][1]) for v in R[0][0]]
        v = [0] * self.d
        beta = 0
        for (wi, Li), i, ci in zip(R[1:], rows, c, strict=True):
            f = L // Li
            for j in range(self.d):
                t = wk[j] - wi[j] * f
                if t:
                    v[j] += ci * t
            if self.IB is not None:
                beta += ci * (self.IB[k] - self.IB[i])
        if radius is None:
            if any(v) or beta > 0:
                raise F("gordan-combination", loc, f"label {k}: sum c_i (w_k - w_i) != 0 or "
                                                   "sum c_i (b_k - b_i) > 0")
        else:
            total = Fraction(beta, self.LB) + radius * Fraction(sum(map(abs, v)), L)
            if total > 0:
                raise F("gordan-combination", loc, f"label {k}: sum c_i (b_k - b_i) + R "
                                                   "||sum c_i (w_k - w_i)||_1 > 0")


def _check_entry(F, M: _Model, k, e, dom, radius, loc, do_math):
    verdict = _get(F, e, "verdict", loc)
    if verdict not in VERDICTS:
        raise F("schema", f"{loc}/verdict", f"unknown verdict {verdict!r}")
    if verdict == "undecided":
        return verdict
    if verdict == "argmaxable":
        w = _get(F, e, "witness", loc)
        if not isinstance(w, dict) or len(set(w) & {"x", "scale"}) != 1:
            raise F("schema", f"{loc}/witness", "witness is {'x': [...]} or {'scale': t}")
        if "scale" in w:
            t = _num(F, w["scale"], f"{loc}/witness/scale")
            if t <= 0:
                raise F("witness", f"{loc}/witness/scale", "scale must be positive")
            x = [t * Fraction(v) for v in M_row(M, k)] if do_math else None
        else:
            x = [_num(F, s, f"{loc}/witness/x/{j}")
                 for j, s in enumerate(_list(F, w["x"], f"{loc}/witness/x", M.d))]
        if not do_math:
            return verdict
        if dom == "box" and max(abs(v) for v in x) > radius:
            raise F("box", f"{loc}/witness", f"label {k}: witness outside max_j |x_j| <= "
                                             f"{radius}")
        M.margins_positive(k, x, f"{loc}/witness")
        return verdict
    rows = [_int(F, r, f"{loc}/rows/{n}", 0, M.k - 1)
            for n, r in enumerate(_list(F, _get(F, e, "rows", loc), f"{loc}/rows"))]
    c = [_num(F, s, f"{loc}/multipliers/{n}") for n, s in
         enumerate(_list(F, _get(F, e, "multipliers", loc), f"{loc}/multipliers", len(rows)))]
    cap = M.d + (2 if M.IB is not None else 1)
    if not rows:
        raise F("gordan-nonzero", f"{loc}/rows", f"label {k}: no multipliers")
    if k in rows or len(set(rows)) != len(rows) or len(rows) > cap:
        raise F("gordan-support", f"{loc}/rows", f"label {k}: rows must be distinct, exclude "
                                                 f"the label itself and number at most {cap}")
    if any(q <= 0 for q in c):
        raise F("gordan-nonnegative", f"{loc}/multipliers", f"label {k}: multipliers must be "
                                                            "positive")
    if do_math:
        den = math.lcm(*(q.denominator for q in c))
        M.gordan(k, rows, [q.numerator * (den // q.denominator) for q in c],
                 radius if dom == "box" else None, loc)
    return verdict


def M_row(M: _Model, k):
    r, L = M.row(k)
    return [Fraction(v, L) for v in r]


def check_audit(obj, loc, fail) -> None:
    """Check an ``argmax-audit`` certificate; raise ``fail(check, location, message)``.

    ``fail`` is the caller's exception class (``certificates.check.Fail``).
    """
    F = _Ctx(fail)
    k = _int(F, _get(F, obj, "rows", loc), f"{loc}/rows", 2)
    d = _int(F, _get(F, obj, "cols", loc), f"{loc}/cols", 1)
    head = _get(F, obj, "head", loc)
    if isinstance(head, dict) and "W" in head:
        rows = _list(F, head["W"], f"{loc}/head/W", k)
        W = [[_num(F, s, f"{loc}/head/W/{i}/{j}")
              for j, s in enumerate(_list(F, r, f"{loc}/head/W/{i}", d))]
             for i, r in enumerate(rows)]
    else:
        W = _head_from_file(F, head, k, d, f"{loc}/head")
    bias = None
    if obj.get("bias") is not None:
        bias = [_num(F, s, f"{loc}/bias/{i}")
                for i, s in enumerate(_list(F, obj["bias"], f"{loc}/bias", k))]
    domains = _list(F, _get(F, obj, "domains", loc), f"{loc}/domains")
    if not domains or any(x not in DOMAINS for x in domains) or len(set(domains)) != len(domains):
        raise F("schema", f"{loc}/domains", "domains: a non-empty subset of ['all', 'box']")
    radius = None
    if "box" in domains:
        radius = _num(F, _get(F, obj, "radius", loc), f"{loc}/radius")
        if radius <= 0:
            raise F("schema", f"{loc}/radius", "radius must be positive")
    elif obj.get("radius") is not None:
        raise F("schema", f"{loc}/radius", "a radius needs the 'box' domain")
    labels = _labels(F, _get(F, obj, "labels", loc), k, f"{loc}/labels")
    M = _Model(F, W, bias, k, d)
    only = _ONLY.get()
    counts = {dom: dict.fromkeys(VERDICTS, 0) for dom in domains}
    seen: list[int] = []
    for rloc, rec in _records(F, obj, loc):
        lab = _int(F, _get(F, rec, "label", rloc), f"{rloc}/label", 0, k - 1)
        if seen and lab <= seen[-1]:
            raise F("schema", f"{rloc}/label", "records must be in increasing label order, "
                                               "each label once")
        seen.append(lab)
        do_math = only is None or lab in only
        for dom in domains:
            v = _check_entry(F, M, lab, _get(F, rec, dom, rloc), dom, radius, f"{rloc}/{dom}",
                             do_math)
            counts[dom][v] += 1
    if seen != labels:
        missing = sorted(set(labels) - set(seen))[:5]
        extra = sorted(set(seen) - set(labels))[:5]
        raise F("labels", f"{loc}/labels", f"records do not match the audited labels "
                                           f"(missing {missing}, extra {extra})")
    stated = _get(F, obj, "counts", loc)
    if stated != counts:
        raise F("count", f"{loc}/counts", f"stated counts {stated} differ from the records "
                                          f"{counts}")


run = check_audit


def check_file(path, labels=None):
    """``certificates.check.check_file`` with file references resolved against the
    certificate's folder and, optionally, only the proofs of ``labels`` re-checked."""
    try:
        from certificates import check as _check
    except ImportError:  # run as a plain script
        import check as _check
    t1 = _BASE.set(os.path.dirname(os.path.abspath(path)))
    t2 = _ONLY.set(None if labels is None else frozenset(labels))
    try:
        return _check.check_file(path)
    finally:
        _ONLY.reset(t2)
        _BASE.reset(t1)


# ----------------------------------------------------------------------------- CLI
def _parse_labels(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out


def main(argv=None) -> int:
    """``python -m certificates.check_audit FILE [--labels L] [--sample N] [--seed S]``."""
    import argparse

    try:
        from certificates import check as _check
    except ImportError:  # run as a plain script
        import check as _check
    ap = argparse.ArgumentParser(prog="python -m certificates.check_audit",
                                 description="Check an argmax-audit certificate (stdlib only); "
                                             "optionally only some labels' proofs.")
    ap.add_argument("file")
    ap.add_argument("--labels", help="check the proofs of these labels only ('0,5,9-12')")
    ap.add_argument("--sample", type=int, help="check the proofs of N random labels only")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    args = ap.parse_args(argv)
    only = None
    if args.labels:
        only = _parse_labels(args.labels)
    if args.sample is not None:
        obj = _check.load(args.file)
        labs = _labels(_Ctx(_check.Fail), obj.get("labels"), int(obj.get("rows", 0)), "")
        only = (only or set()) | set(random.Random(args.seed).sample(labs,
                                                                     min(args.sample,
                                                                         len(labs))))
    v = check_file(args.file, only)
    scope = "all labels" if only is None else f"{len(only)} labels' proofs"
    if v.ok:
        print(f"{args.file}: OK {v.kind} ({scope}; structure and counts of every record)")
    else:
        print(f"{args.file}: INVALID {v.kind} failed_check={v.failed_check} "
              f"location={v.location}: {v.message}")
    return v.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
