"""Checker of ``argmax-audit`` batch certificates (certificates/SPEC.md, section 9).

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
>>> check_argmax_audit(cert, "")
>>> cert["records"][1]["all"]["multipliers"] = ["1", "1", "1"]
>>> try:
...     check_argmax_audit(cert, "")
... except Fail as e:
...     print(e.check, e.location)
gordan-combination /records/1/all
"""

from __future__ import annotations

import ast
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

if not __package__:  # run as a script: find the package, as certificates/check.py does
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from certificates.errors import Fail  # noqa: E402
from certificates.semantics import FILE_BASE as _BASE  # noqa: E402
from certificates.semantics import (  # noqa: E402
    base_dir,
    get,
    read_int,
    read_list,
    read_number,
)

__all__ = ["check_argmax_audit", "check_file", "base_dir", "main", "VERDICTS"]

VERDICTS = ("argmaxable", "never", "undecided")
DOMAINS = ("all", "box")

#: Restrict checking to these labels (None: all); set by this module's command line.
_ONLY: contextvars.ContextVar = contextvars.ContextVar("audit_only", default=None)


def _resolve(name, loc) -> str:
    if not isinstance(name, str) or not name:
        raise Fail("schema", loc, "expected a file name")
    if os.path.isabs(name):
        return name
    base = _BASE.get()
    if base is None and not os.path.exists(name):
        raise Fail("file", loc, f"{name!r} not found relative to the current folder; "
                             "certificates.check resolves relative paths there, "
                             "certificates.check_audit FILE against the certificate's folder")
    return os.path.join(base, name) if base else name


def _read_bytes(path, offset, nbytes, sha, loc) -> bytes:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(nbytes)
    except OSError as exc:
        raise Fail("file", loc, f"cannot read {path}: {exc}") from None
    if len(data) != nbytes:
        raise Fail("file", loc, f"{path} is truncated")
    if hashlib.sha256(data).hexdigest() != sha:
        raise Fail("file-hash", loc, f"SHA-256 of the head bytes in {path} differs from the "
                                  "certificate")
    return data


def _floats(data: bytes, dtype: str, loc) -> list[float]:
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
        raise Fail("schema", loc, f"unsupported head dtype {dtype!r}")
    if sys.byteorder != "little" and dtype != "BF16":
        a.byteswap()
    if not all(map(math.isfinite, a)):
        raise Fail("number", loc, "the head has a NaN or infinite entry")
    return a


class _FileRows:
    """Rows of a head held as one flat array (row-major, or column-major when transposed)."""

    def __init__(self, vals, k, d, transpose):
        self.vals, self.k, self.d, self.t = vals, k, d, transpose

    def __len__(self):
        return self.k

    def __getitem__(self, i):
        return self.vals[i::self.k] if self.t else self.vals[i * self.d:(i + 1) * self.d]


def _head_from_file(ref, k, d, loc) -> _FileRows:
    fmt = get(ref, "format", loc)
    _only(ref, {"format", "file", "sha256", "tensor", "transpose"}, loc)
    path = _resolve(get(ref, "file", loc), f"{loc}/file")
    sha = get(ref, "sha256", loc)
    transpose = ref.get("transpose", False)
    if not isinstance(transpose, bool):
        raise Fail("schema", f"{loc}/transpose", "transpose must be true or false")
    try:
        with open(path, "rb") as fh:
            if fmt == "npy":
                magic = fh.read(8)
                if magic[:6] != b"\x93NUMPY":
                    raise Fail("file", loc, f"{path} is not a .npy file")
                hl = struct.unpack("<H", fh.read(2))[0] if magic[6] == 1 else \
                    struct.unpack("<I", fh.read(4))[0]
                header = ast.literal_eval(fh.read(hl).decode("latin1"))
                dtype, shape = header["descr"], tuple(header["shape"])
                if header.get("fortran_order"):
                    raise Fail("file", loc, "Fortran-ordered .npy is not supported")
                offset = fh.tell()
            elif fmt == "safetensors":
                n = struct.unpack("<Q", fh.read(8))[0]
                header = json.loads(fh.read(n))
                e = header[get(ref, "tensor", loc)]
                dtype, shape = e["dtype"], tuple(e["shape"])
                offset = 8 + n + int(e["data_offsets"][0])
            else:
                raise Fail("schema", f"{loc}/format", f"unknown head format {fmt!r}")
    except (OSError, ValueError, KeyError, SyntaxError, struct.error) as exc:
        raise Fail("file", loc, f"cannot read the head from {path}: {exc!r}") from None
    size = {"<f8": 8, "F64": 8, "<f4": 4, "F32": 4, "<f2": 2, "F16": 2, "BF16": 2}.get(dtype)
    if size is None:
        raise Fail("schema", loc, f"unsupported head dtype {dtype!r}")
    want = (d, k) if transpose else (k, d)
    if shape != want:
        raise Fail("shape", loc, f"head in {path} has shape {shape}, expected {want}")
    vals = _floats(_read_bytes(path, offset, k * d * size, sha, loc), dtype, loc)
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
def _labels(runs, k, loc) -> list[int]:
    out: list[int] = []
    for n, run in enumerate(read_list(runs, loc)):
        r = read_list(run, f"{loc}/{n}", 2)
        a = read_int(r[0], f"{loc}/{n}/0", 0, k - 1)
        b = read_int(r[1], f"{loc}/{n}/1", a, k - 1)
        if out and a <= out[-1]:
            raise Fail("schema", f"{loc}/{n}", "label runs must be increasing and disjoint")
        out.extend(range(a, b + 1))
    if not out:
        raise Fail("schema", loc, "no labels")
    return out


def _records(obj, loc):
    if "records" in obj:
        for n, r in enumerate(read_list(obj["records"], f"{loc}/records")):
            yield f"{loc}/records/{n}", r
        return
    shards = read_list(get(obj, "shards", loc), f"{loc}/shards")
    for s, sh in enumerate(shards):
        sloc = f"{loc}/shards/{s}"
        _only(sh, {"file", "sha256"}, sloc)
        path = _resolve(get(sh, "file", sloc), f"{sloc}/file")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise Fail("file", sloc, f"cannot read shard {path}: {exc}") from None
        if hashlib.sha256(data).hexdigest() != get(sh, "sha256", sloc):
            raise Fail("file-hash", sloc, f"SHA-256 of shard {path} differs from the certificate")
        for n, line in enumerate(data.decode("utf-8").splitlines()):
            if not line.strip():
                continue

            def _no_float(x, _loc=f"{sloc}:{n + 1}"):
                raise Fail("number", _loc, f"JSON number {x} is not allowed; write 'p/q'")

            try:
                rec = json.loads(line, parse_float=_no_float, parse_constant=_no_float)
            except json.JSONDecodeError as exc:
                raise Fail("schema", f"{sloc}:{n + 1}", f"not JSON: {exc}") from None
            yield f"{sloc}:{n + 1}", rec


class _Model:
    """Exact rows on demand: row i as integers over its own denominator L_i."""

    #: Integer rows are cached when the head has at most this many entries.
    CACHE = 1 << 22

    def __init__(self, W, bias, k, d):
        self.k, self.d = k, d
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
                raise Fail("witness", f"{loc}", f"label {k}: margin against label {i} is not "
                                             "positive at the witness")

    def gordan(self, k, rows, c, radius, loc):
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
                raise Fail("gordan-combination", loc, f"label {k}: sum c_i (w_k - w_i) != 0 or "
                                                   "sum c_i (b_k - b_i) > 0")
        else:
            total = Fraction(beta, self.LB) + radius * Fraction(sum(map(abs, v)), L)
            if total > 0:
                raise Fail("gordan-combination", loc, f"label {k}: sum c_i (b_k - b_i) + R "
                                                   "||sum c_i (w_k - w_i)||_1 > 0")


#: Fields of an entry per verdict (``stage`` and ``reason`` are notes, never checked).
_ENTRY = {"argmaxable": {"verdict", "witness", "stage"},
          "never": {"verdict", "rows", "multipliers", "stage"},
          "undecided": {"verdict", "reason", "stage"}}


def _only(obj, allowed, loc):
    """Reject unknown keys (a look-alike key must not change what is checked)."""
    extra = sorted(set(obj) - set(allowed), key=str) if isinstance(obj, dict) else []
    if extra:
        raise Fail("schema", loc, f"unknown field {ascii(extra[0])[:60]} (allowed: "
                                  f"{', '.join(sorted(allowed))})")


def _check_entry(M: _Model, k, e, dom, radius, loc, do_math):
    verdict = get(e, "verdict", loc)
    if verdict not in VERDICTS:
        raise Fail("schema", f"{loc}/verdict", f"unknown verdict {verdict!r}")
    _only(e, _ENTRY[verdict], loc)
    if verdict == "undecided":
        return verdict
    if verdict == "argmaxable":
        w = get(e, "witness", loc)
        if not isinstance(w, dict) or len(w) != 1 or len(set(w) & {"x", "scale"}) != 1:
            raise Fail("schema", f"{loc}/witness", "witness is {'x': [...]} or {'scale': t}")
        if "scale" in w:
            t = read_number(w["scale"], f"{loc}/witness/scale")
            if t <= 0:
                raise Fail("witness", f"{loc}/witness/scale", "scale must be positive")
            x = [t * Fraction(v) for v in M_row(M, k)] if do_math else None
        else:
            x = [read_number(s, f"{loc}/witness/x/{j}")
                 for j, s in enumerate(read_list(w["x"], f"{loc}/witness/x", M.d))]
        if not do_math:
            return verdict
        if dom == "box" and max(abs(v) for v in x) > radius:
            raise Fail("box", f"{loc}/witness", f"label {k}: witness outside max_j |x_j| <= "
                                             f"{radius}")
        M.margins_positive(k, x, f"{loc}/witness")
        return verdict
    rows = [read_int(r, f"{loc}/rows/{n}", 0, M.k - 1)
            for n, r in enumerate(read_list(get(e, "rows", loc), f"{loc}/rows"))]
    c = [read_number(s, f"{loc}/multipliers/{n}") for n, s in
         enumerate(read_list(get(e, "multipliers", loc), f"{loc}/multipliers", len(rows)))]
    cap = M.d + (2 if M.IB is not None else 1)
    if not rows:
        raise Fail("gordan-nonzero", f"{loc}/rows", f"label {k}: no multipliers")
    if k in rows or len(set(rows)) != len(rows) or len(rows) > cap:
        raise Fail("gordan-support", f"{loc}/rows", f"label {k}: rows must be distinct, exclude "
                                                 f"the label itself and number at most {cap}")
    if any(q <= 0 for q in c):
        raise Fail("gordan-nonnegative", f"{loc}/multipliers", f"label {k}: multipliers must be "
                                                            "positive")
    if do_math:
        den = math.lcm(*(q.denominator for q in c))
        M.gordan(k, rows, [q.numerator * (den // q.denominator) for q in c],
                 radius if dom == "box" else None, loc)
    return verdict


def M_row(M: _Model, k):
    r, L = M.row(k)
    return [Fraction(v, L) for v in r]


def check_argmax_audit(obj, loc) -> None:
    """Check an ``argmax-audit`` certificate; raise :class:`certificates.errors.Fail`."""
    k = read_int(get(obj, "rows", loc), f"{loc}/rows", 2)
    d = read_int(get(obj, "cols", loc), f"{loc}/cols", 1)
    head = get(obj, "head", loc)
    if isinstance(head, dict) and "W" in head:
        _only(head, {"W"}, f"{loc}/head")
        rows = read_list(head["W"], f"{loc}/head/W", k)
        W = [[read_number(s, f"{loc}/head/W/{i}/{j}")
              for j, s in enumerate(read_list(r, f"{loc}/head/W/{i}", d))]
             for i, r in enumerate(rows)]
    else:
        W = _head_from_file(head, k, d, f"{loc}/head")
    bias = None
    if obj.get("bias") is not None:
        bias = [read_number(s, f"{loc}/bias/{i}")
                for i, s in enumerate(read_list(obj["bias"], f"{loc}/bias", k))]
    domains = read_list(get(obj, "domains", loc), f"{loc}/domains")
    if not domains or any(x not in DOMAINS for x in domains) or len(set(domains)) != len(domains):
        raise Fail("schema", f"{loc}/domains", "domains: a non-empty subset of ['all', 'box']")
    radius = None
    if "box" in domains:
        radius = read_number(get(obj, "radius", loc), f"{loc}/radius")
        if radius <= 0:
            raise Fail("schema", f"{loc}/radius", "radius must be positive")
    elif obj.get("radius") is not None:
        raise Fail("schema", f"{loc}/radius", "a radius needs the 'box' domain")
    labels = _labels(get(obj, "labels", loc), k, f"{loc}/labels")
    M = _Model(W, bias, k, d)
    only = _ONLY.get()
    counts = {dom: dict.fromkeys(VERDICTS, 0) for dom in domains}
    seen: list[int] = []
    for rloc, rec in _records(obj, loc):
        lab = read_int(get(rec, "label", rloc), f"{rloc}/label", 0, k - 1)
        _only(rec, {"label", *domains}, rloc)
        if seen and lab <= seen[-1]:
            raise Fail("schema", f"{rloc}/label", "records must be in increasing label order, "
                                               "each label once")
        seen.append(lab)
        do_math = only is None or lab in only
        for dom in domains:
            v = _check_entry(M, lab, get(rec, dom, rloc), dom, radius, f"{rloc}/{dom}",
                             do_math)
            counts[dom][v] += 1
    if seen != labels:
        missing = sorted(set(labels) - set(seen))[:5]
        extra = sorted(set(seen) - set(labels))[:5]
        raise Fail("labels", f"{loc}/labels", f"records do not match the audited labels "
                                           f"(missing {missing}, extra {extra})")
    stated = get(obj, "counts", loc)
    if stated != counts:
        raise Fail("count", f"{loc}/counts", f"stated counts {stated} differ from the records "
                                          f"{counts}")


def check_file(path, labels=None, max_work="default"):
    """``certificates.check.check_file`` with file references resolved against the
    certificate's folder and, optionally, only the proofs of ``labels`` re-checked (then no
    work budget applies unless ``max_work`` is given: the caller chose the sample)."""
    import certificates.check_audit as mod  # the module check.py dispatches to (not __main__)
    from certificates import check as _check

    if max_work == "default":
        max_work = None if labels is not None else _check.DEFAULT_MAX_WORK
    t1 = mod._BASE.set(os.path.dirname(os.path.abspath(path)))
    t2 = mod._ONLY.set(None if labels is None else frozenset(labels))
    try:
        return _check.check_file(path, max_work)
    finally:
        mod._ONLY.reset(t2)
        mod._BASE.reset(t1)


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

    from certificates import check as _check

    ap = argparse.ArgumentParser(prog="python -m certificates.check_audit",
                                 description="Check an argmax-audit certificate (stdlib only); "
                                             "optionally only some labels' proofs.")
    ap.add_argument("file")
    ap.add_argument("--labels", help="check the proofs of these labels only ('0,5,9-12')")
    ap.add_argument("--sample", type=int, help="check the proofs of N random labels only")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    ap.add_argument("--max-work", type=int, help="work budget of a full check (default: the "
                                                  "checker's); none with --labels/--sample")
    args = ap.parse_args(argv)
    only = None
    if args.labels:
        only = _parse_labels(args.labels)
    if args.sample is not None:
        obj = _check.load(args.file)
        labs = _labels(obj.get("labels"), int(obj.get("rows", 0)), "")
        only = (only or set()) | set(random.Random(args.seed).sample(labs,
                                                                     min(args.sample,
                                                                         len(labs))))
    v = check_file(args.file, only, args.max_work if args.max_work is not None else "default")
    scope = "all labels" if only is None else f"{len(only)} labels' proofs"
    if v.ok:
        print(f"{args.file}: OK {v.kind} ({scope}; structure and counts of every record)")
    else:
        print(f"{args.file}: INVALID {v.kind} failed_check={v.failed_check} "
              f"location={v.location}: {v.message}")
    return v.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
