"""The hostile/careless-user battery: every command against bad input.

Runs each case in a forked child of a process that has already imported the engine (so a
case costs milliseconds of start-up, not seconds), with a wall-clock timeout, and classifies
the outcome:

* ``ok``          - exit 0 where success was expected;
* ``clear``       - a non-zero exit with a one-line message (no traceback);
* ``traceback``   - a Python traceback reached the user;
* ``hang``        - the case did not end within the timeout (the child is killed);
* ``wrong``       - a result disagrees with an independent computation (counts vs
                    enumeration vs brute force, a valid certificate rejected, a forged
                    verdict accepted, a known answer missed);
* ``overwrite``   - a file that existed before the case changed without ``--force``.

Usage::

    python scripts/fuzz_battery.py [--quick] [--timeout S] [--seed N] [--mutations M]

prints one line per bad case and the totals (inputs tried, clear errors, tracebacks,
hangs, wrong answers, overwrites); exit code 1 when any of the last four is non-zero.
``tests/test_fuzz_cli.py`` runs the ``--quick`` battery.

The second round adds: refusal bounds (huge groups, constant targets, big solve targets,
tall argmax heads), wide heads (2 x 2,000, certified and checked), negative token ids,
concurrent runs into one locked folder, the checker's referenced files (FIFOs, ``/dev/zero``,
truncated or flipped shards of the audit and stream kinds) and bracket certificates with
huge exponents; the mutation battery covers every valid example kind, referenced files
included (:func:`file_battery`).  The third round (``scripts/fuzz_round3.py``) adds the
failures issue 36 found: budgets outside the float range, pipes and devices as label files,
huge grids, worker counts and groups, huge numbers in the Python API, lying ``.npy``
headers, duplicated JSON keys, incomplete stream runs, and more.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import random
import signal
import stat
import struct
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

W_CYCLING = [["0", "0", "0"], ["-1/2", "2/3", "-17/3"],
             ["199999999999999999999/2", "-2", "-300000000000000000002/3"],
             ["99999999999999999998", "-1/100000000000000000000", "-300000000000000000002/3"]]


@dataclass
class Case:
    """One command run: argv for ``logitgeom``, what success means, files to watch."""

    name: str
    argv: list[str]
    expect_ok: bool | None = None  # None: either outcome is fine if it is clean
    watch: list[str] = field(default_factory=list)  # files that must not change
    stdout_closed: bool = False
    check: object = None  # callable(code, out, err) -> str | None (a wrong-answer reason)
    hold_lock: str | None = None  # a folder whose lock the parent holds during the case
    call: object = None  # a Python API call (no argv): an EngineError is a clear error


@dataclass
class Outcome:
    case: Case
    kind: str
    code: int | None
    seconds: float
    detail: str = ""


# ---------------------------------------------------------------------------- running


#: Address-space limit of every child (a case reading /dev/zero dies there, not the machine).
CHILD_MEMORY = 3 << 30


def _cap_memory() -> None:
    """CHILD_MEMORY of address space on top of what the forked child already maps (a fork
    of a long pytest process can map gigabytes before the case starts: an absolute cap
    would make the case fail for want of memory it never asked for)."""
    import resource

    try:
        with open("/proc/self/statm") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        mapped = 0
    resource.setrlimit(resource.RLIMIT_AS, (mapped + CHILD_MEMORY, mapped + CHILD_MEMORY))


def _child(case: Case, out_path: str, err_path: str) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _cap_memory()
    fo = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    fe = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    if case.stdout_closed:
        r, w = os.pipe()
        os.close(r)
        os.dup2(w, 1)
    else:
        os.dup2(fo, 1)
    os.dup2(fe, 2)
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=False)
    sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
    code = 99
    try:
        if case.call is not None:  # a Python API call, as a user makes it
            from logitgeom.errors import EngineError

            try:
                case.call()
                code = 0
            except EngineError as exc:
                print(f"{type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
                code = 2
        else:
            from logitgeom.cli.main import main

            code = main(case.argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:  # noqa: BLE001 - this IS the traceback we count
        import traceback

        traceback.print_exc()
        code = 98
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001
        pass
    try:
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(int(code) if isinstance(code, int) else 2)


def _digest(p: str) -> bytes | None:
    try:
        return Path(p).read_bytes()
    except OSError:
        return None


def run_case(case: Case, timeout: float, tmp: Path) -> Outcome:
    if case.hold_lock is not None:  # another "run" holds the output folder meanwhile
        from logitgeom._fsio import folder_lock

        with folder_lock(case.hold_lock):
            return _run_case(case, timeout, tmp)
    return _run_case(case, timeout, tmp)


def _run_case(case: Case, timeout: float, tmp: Path) -> Outcome:
    before = {w: _digest(w) for w in case.watch}
    out_path, err_path = str(tmp / "_out.txt"), str(tmp / "_err.txt")
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        _child(case, out_path, err_path)
    code = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.perf_counter() - t0 > timeout:
            for sig in (signal.SIGKILL,):
                try:
                    os.killpg(pid, sig)
                except OSError:
                    os.kill(pid, sig)
            os.waitpid(pid, 0)
            break
        time.sleep(0.005)
    secs = time.perf_counter() - t0
    out = Path(out_path).read_text(errors="replace") if Path(out_path).exists() else ""
    err = Path(err_path).read_text(errors="replace") if Path(err_path).exists() else ""
    changed = [w for w in case.watch if _digest(w) != before[w]]
    if code is None:
        return Outcome(case, "hang", None, secs, f"no end after {timeout:.0f} s")
    if "Traceback (most recent call last)" in out + err:
        tail = (out + err).strip().splitlines()[-1][:200]
        return Outcome(case, "traceback", code, secs, tail)
    if changed:
        return Outcome(case, "overwrite", code, secs, f"changed: {changed}")
    if case.check is not None:
        why = case.check(code, out, err)
        if why:
            return Outcome(case, "wrong", code, secs, why)
    if code == 0:
        if case.expect_ok is False:
            return Outcome(case, "wrong", code, secs, "succeeded on input that must fail: "
                           + out.strip()[-200:])
        return Outcome(case, "ok", code, secs)
    if case.expect_ok is True:
        return Outcome(case, "wrong", code, secs, "failed on valid input: " + err.strip()[-300:])
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if code not in (1, 2, 130) or (code == 2 and len(lines) > 3 and not out):
        return Outcome(case, "traceback", code, secs, f"exit {code}, stderr: {err[-200:]}")
    return Outcome(case, "clear", code, secs, (lines[-1] if lines else out.strip()[-120:])[:160])


# ---------------------------------------------------------------------------- inputs


def _w(p: Path, text: str | bytes) -> str:
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return str(p)


def matrix_inputs(d: Path, quick: bool) -> dict[str, tuple[str, bool | None]]:
    """name -> (path, expect_ok) for every matrix-taking command."""
    import numpy as np

    good = np.array([[1.0, 0.5], [-3.0, 0.25], [0.0, 2.0]])
    files: dict[str, tuple[str, bool | None]] = {}
    files["csv"] = (_w(d / "good.csv", "1,1/2\n-3,0.25\n0,2\n"), True)
    np.savetxt(d / "savetxt.txt", good)
    files["savetxt"] = (str(d / "savetxt.txt"), True)
    files["tsv-header"] = (_w(d / "h.tsv", "a\tb\n1\t2\n3\t-1\n0\t1\n"), True)
    np.savez(d / "m.npz", W=good)
    files["npz"] = (str(d / "m.npz"), True)
    files["json"] = (_w(d / "good.json", json.dumps([["1", "2"], [3, -1], [0, 1]])), True)
    files["non-utf8-csv"] = (_w(d / "latin.csv", b"1,2\n\xe9,3\n"), False)
    files["non-utf8-json"] = (_w(d / "latin.json", b'[["1", "\xe9"]]'), False)
    files["deep-json"] = (_w(d / "deep.json", "[" * 100_000 + "]" * 100_000), False)
    files["int-5000-digits"] = (_w(d / "bigint.json", "[[" + "7" * 5000 + ", 1]]"), False)
    files["1e5000"] = (_w(d / "e5000.csv", "1e5000,1\n2,3\n"), False)
    files["1e100000000"] = (_w(d / "e1e8.csv", "1e100000000,1\n2,3\n"), False)
    (d / "dir.csv").mkdir(exist_ok=True)
    files["directory-csv"] = (str(d / "dir.csv"), False)
    files["dev-zero"] = ("/dev/zero", False)
    files["empty"] = (_w(d / "empty.csv", ""), False)
    files["ragged"] = (_w(d / "ragged.csv", "1,2\n3\n"), False)
    files["nan"] = (_w(d / "nan.csv", "1,nan\n2,3\n"), False)
    files["hex"] = (_w(d / "hex.csv", "0x10,1\n2,3\n"), False)
    files["junk-npy"] = (_w(d / "junk.npy", b"\x93NUMPY\x01\x00garbage"), False)
    files["junk-npz"] = (_w(d / "junk.npz", b"PK\x03\x04garbage"), False)
    files["missing"] = (str(d / "no-such.csv"), False)
    files["1e300"] = (_w(d / "e300.json", json.dumps([["1e300", "2"], ["-1e300", "1"],
                                                      ["3", "-1e300"]])), None)
    files["cycling-4x3"] = (_w(d / "cycling.json", json.dumps(W_CYCLING)), None)
    if not quick:
        rng = np.random.default_rng(0)
        np.savetxt(d / "k200.csv", rng.integers(-9, 10, (200, 10)), fmt="%d", delimiter=",")
        files["k200-d10"] = (str(d / "k200.csv"), False)
        np.savetxt(d / "k30.csv", rng.integers(-9, 10, (30, 10)), fmt="%d", delimiter=",")
        files["k30-d10"] = (str(d / "k30.csv"), None)
        files["zero-row"] = (_w(d / "zero.csv", "0,0\n0,0\n"), None)
        files["one-cell"] = (_w(d / "one.csv", "5\n"), None)
        files["binary"] = (_w(d / "bin.csv", bytes(range(256))), False)
    return files


def matrix_cases(d: Path, quick: bool) -> list[Case]:
    cases = []
    for name, (path, ok) in matrix_inputs(d, quick).items():
        for cmd in (["patterns", "sign"], ["patterns", "ranking"], ["count", "sign"],
                    ["count", "ranking"], ["certify", "pattern"], ["certify", "argmax"],
                    ["certify", "translation", "--labels", "0", "1", "--cos", "-1"],
                    ["certify", "differs", path], ["solve"], ["symmetry", "detect"]):
            argv = [*cmd, path] if cmd[-1] != path else [*cmd[:-1], path, path]
            if cmd[0] == "patterns":
                argv.append("--no-progress")
            expect = ok
            if cmd[0] in ("solve", "symmetry") or cmd[:2] == ["certify", "translation"]:
                expect = None if ok is not False else False  # either way, if clean
            if name == "k200-d10" and cmd[:2] in (["certify", "argmax"],
                                                  ["certify", "translation"],
                                                  ["symmetry", "detect"], ["solve"]):
                expect = None  # k LPs, one translation, a symmetry search: fine either way
            cases.append(Case(f"{' '.join(cmd[:2])} <{name}>", argv, expect))
    return cases


def cycling_checks(d: Path) -> list[Case]:
    path = str(d / "cycling.json")

    def all_four(code, out, err):
        try:
            data = json.loads(out)
        except ValueError:
            return "no JSON output"
        got = sorted(p[0] for p in data["patterns"])
        return None if got == [0, 1, 2, 3] else f"top-1 labels {got}, expected [0, 1, 2, 3]"

    return [Case("patterns ranking --top 1 <cycling-4x3> (known answer)",
                 ["patterns", "ranking", path, "--top", "1", "--json", "--no-progress"],
                 True, check=all_four)]


def degenerate_cases(d: Path, n: int, seed: int) -> list[Case]:
    """Random degenerate small heads: count == enumeration == brute force; certificate OK."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _brute_geometry import brute_rankings, brute_regions

    rng = random.Random(seed)
    cases = []
    for t in range(n):
        k, dim = rng.randint(2, 6), rng.randint(1, 3)
        base = [[rng.choice([-2, -1, 0, 0, 1, 2]) for _ in range(dim)] for _ in range(k)]
        for i in range(k):  # repeats and multiples make it degenerate
            if rng.random() < 0.3:
                j = rng.randrange(k)
                base[i] = [rng.choice([1, 2, -1]) * x for x in base[j]]
        bias = [rng.choice([0, 0, 1, -1]) for _ in range(k)] if rng.random() < 0.4 else None
        wp = _w(d / f"deg{t}.json", json.dumps(base))
        extra = []
        if bias is not None:
            bp = _w(d / f"deg{t}-b.json", json.dumps(bias))
            extra = ["--bias", bp]
        for kind in ("sign", "ranking"):
            truth = (brute_regions if kind == "sign" else brute_rankings)(base, bias)

            def same(code, out, err, truth=truth):
                try:
                    got = json.loads(out)["count"]
                except (ValueError, KeyError):
                    return f"no count in output ({err.strip()[-120:]})"
                return None if got == truth else f"count {got}, brute force {truth}"

            cases.append(Case(f"count {kind} <degenerate {t}>",
                              ["count", kind, wp, *extra, "--json"], True, check=same))
            cases.append(Case(f"patterns {kind} <degenerate {t}>",
                              ["patterns", kind, wp, *extra, "--json", "--no-progress"], True,
                              check=same))
    return cases


def output_cases(d: Path) -> list[Case]:
    w = str(d / "good.csv")
    ro = d / "readonly"
    ro.mkdir(exist_ok=True)
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    existing = _w(d / "existing.json", "precious\n")
    summary_dir = d / "userdir"
    summary_dir.mkdir(exist_ok=True)
    summary = _w(summary_dir / "SUMMARY.md", "my notes\n")
    cases = []
    for cmd in (["patterns", "sign", w, "--no-progress"], ["count", "sign", w],
                ["certify", "pattern", w], ["solve", str(d / "Y.csv")]):
        _w(d / "Y.csv", "1/2,1\n1/2,0\n")
        for label, out, watch in (("missing parent", str(d / "nope" / "o.json"), []),
                                  ("output is a directory", str(d), []),
                                  ("read-only folder", str(ro / "o.json"), []),
                                  ("existing file", existing, [existing])):
            # root may write into a read-only folder: then either outcome is fine
            expect = None if label == "read-only folder" and os.geteuid() == 0 else False
            if label == "output is a directory" and cmd[0] == "patterns":
                expect = None  # patterns -o DIR streams shards into a folder (by design)
            cases.append(Case(f"{cmd[0]} -o <{label}>", [*cmd, "-o", out], expect, watch))
        if cmd[0] != "certify":
            cases.append(Case(f"{cmd[0]} --json <existing file>", [*cmd, "--json", existing],
                              False, [existing]))
        cases.append(Case(f"{cmd[0]} | closed pipe", cmd, None, stdout_closed=True))
    cases.append(Case("reproduce into a folder with the user's SUMMARY.md",
                      ["reproduce", "--out", str(summary_dir), "--only", "cos-lemma-3.2",
                       "--no-progress"], False, [summary]))
    cases.append(Case("solve --ew 1e400", ["solve", str(d / "Y.csv"), "--ew", "1e400"], None))
    cases.append(Case("solve --ew 1e100000000",
                      ["solve", str(d / "Y.csv"), "--ew", "1e100000000"], False))
    cases.append(Case("solve --ew abc", ["solve", str(d / "Y.csv"), "--ew", "abc"], False))
    return cases


def _st(p: Path, header: str | dict, data: bytes = b"") -> str:
    h = header if isinstance(header, str) else json.dumps(header)
    p.write_bytes(struct.pack("<Q", len(h.encode())) + h.encode() + data)
    return str(p)


def model_cases(d: Path) -> list[Case]:
    e = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    bad = {
        "negative offsets": ({"lm_head.weight": {**e, "data_offsets": [-16, 0]}}, b"\0" * 16),
        "offsets past the end": ({"lm_head.weight": e}, b"\0" * 8),
        "overlap": ({"a": e, "lm_head.weight": {**e, "data_offsets": [8, 24]}}, b"\0" * 24),
        "size mismatch": ({"lm_head.weight": {**e, "data_offsets": [0, 12]}}, b"\0" * 16),
        "bad shape": ({"lm_head.weight": {**e, "shape": "x"}}, b"\0" * 16),
        "header not JSON": ("{not json", b""),
        "header a list": ("[1, 2]", b""),
    }
    cases = []
    for name, (h, data) in bad.items():
        p = _st(d / f"{name.replace(' ', '_')}.safetensors", h, data)
        cases.append(Case(f"inspect <safetensors: {name}>",
                          ["inspect", p, "--tokens", "0,1", "--no-progress"], False))
    import pickle

    p = d / "foreign.bin"
    p.write_bytes(pickle.dumps({"x": object}))
    cases.append(Case("inspect <foreign pickle .bin>",
                      ["inspect", str(p), "--tokens", "0,1", "--no-progress"], False))
    try:
        import torch

        torch.save({"lm_head.weight": torch.randn(4, 3)}, d / "legacy.bin",
                   _use_new_zipfile_serialization=False)
        cases.append(Case("inspect <legacy pickle .bin>",
                          ["inspect", str(d / "legacy.bin"), "--tokens", "0,1,2",
                           "--no-progress"], None))
    except ImportError:  # pragma: no cover
        pass
    return cases


# ---------------------------------------------------------------------------- certificates


def _mutate(obj, rng: random.Random):
    """One random mutation of a certificate (numbers, keys, nesting, types)."""
    o = copy.deepcopy(obj)
    paths = []

    def walk(x, path):
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, (*path, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, (*path, i))

    walk(o, ())
    path = rng.choice(paths[1:] or [()])
    parent = o
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1] if path else None
    choice = rng.randrange(12)
    values = ["1e100000000", "9" * 5000, "1/0", "-0", "NaN", "\x1b[31mred", 10**5000, -1,
              [], {}, None, True, "0", "1", "-1", "1/2", "3/1"]
    if key is None:
        return o
    if choice < 5:
        v = rng.choice(values)
        parent[key] = v
    elif choice == 5 and isinstance(parent, dict):
        parent["bi\u0430s" if rng.random() < 0.5 else "bias1"] = parent.pop(key)
    elif choice == 6 and isinstance(parent, dict):
        parent[str(key) + "x"] = parent[key]
    elif choice == 7:
        parent[key] = [parent[key]] * 2
    elif choice == 8 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
    elif choice == 9 and isinstance(parent, list) and len(parent) > 1:
        parent.pop(key)
    elif choice == 10:
        parent[key] = rng.choice(["2", "-2", "1/3", "0"])
    else:
        parent[key] = {"statement": "\x1b]0;owned\x07"}
    return o


def certificate_battery(d: Path, n: int, seed: int, timeout: float) -> Counter:
    """Mutated certificates through the stdlib checker, in process with a time limit.

    Counts verdicts; a crash (exception out of ``check``) or a verdict slower than
    ``timeout`` is counted as a traceback / hang.
    """
    from logitgeom_certificates.check import check

    rng = random.Random(seed)
    ex = sorted((ROOT / "certificates" / "examples").glob("valid-*.json"))
    ex += sorted((ROOT / "certificates" / "paper").glob("*.json"))
    objs = [json.loads(p.read_text()) for p in ex]
    small = [o for o in objs if len(json.dumps(o)) < 20_000]
    tally: Counter = Counter()

    def alarm(signum, frame):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        for _ in range(n):
            obj = _mutate(rng.choice(small), rng)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                v = check(obj)
                tally["valid" if v.ok else "invalid"] += 1
            except TimeoutError:
                tally["hang"] += 1
            except Exception as exc:  # noqa: BLE001
                tally["traceback"] += 1
                tally[f"exc:{type(exc).__name__}"] += 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return tally


def check_cases(d: Path) -> list[Case]:
    valid = str(ROOT / "certificates" / "examples" / "valid-sign-feasible.json")
    run = d / "run"
    run.mkdir(exist_ok=True)
    (run / "a.json").write_text(Path(valid).read_text())
    (run / "CERTIFICATES.sha256").write_bytes(b"\xff\xfe\x00binary\n")
    files = {
        "dev-zero": "/dev/zero",
        "int-5000-digits": _w(d / "c-bigint.json", '{"format": "logitgeom-certificate", '
                              '"version": 1, "kind": "sign-feasible", "W": [[' + "7" * 5000
                              + "]]}"),
        "1e100000000": _w(d / "c-exp.json", json.dumps({
            "format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
            "W": [["1e100000000"]], "signs": [1], "witness": ["1"]})),
        "deep": _w(d / "c-deep.json", "[" * 100_000 + "]" * 100_000),
        "non-utf8": _w(d / "c-latin.json", b'{"format": "\xe9"}'),
        "directory": str(d / "dir.csv"),
    }
    cases = [Case(f"check <{k}>", ["check", v], False) for k, v in files.items()]
    cases.append(Case("check <batch: huge int then a valid file>",
                      ["check", files["int-5000-digits"], valid], False,
                      check=lambda c, o, e: None if f"{valid}: OK" in o else
                      "the batch stopped before the valid file"))
    cases.append(Case("check <binary CERTIFICATES.sha256>", ["check", str(run / "a.json")],
                      None))
    cases.append(Case("check --json <valid>", ["check", "--json", valid], True,
                      check=lambda c, o, e: None if o.lstrip().startswith("{")
                      and json.loads(o)["valid"] == 1 else f"not a valid verdict: {o[-200:]!r}"))
    cases.append(Case("check --explain <escape codes in statement>",
                      ["check", "--explain", _w(d / "c-esc.json", json.dumps({
                          **json.loads(Path(valid).read_text()),
                          "statement": "\x1b[2J\x1b]0;owned\x07 all good"}))], None,
                      check=lambda c, o, e: "raw escape code printed" if "\x1b" in o else None))
    return cases


def planted_checker_case(d: Path) -> Case:
    out = d / "planted"
    (out / "certificates").mkdir(parents=True, exist_ok=True)
    marker = d / "PLANTED-RAN"
    code = f"open({str(marker)!r}, 'w').write('x')\n"
    (out / "certificates" / "__init__.py").write_text(code)
    (out / "certificates" / "check.py").write_text(code)

    def not_run(c, o, e):
        return "the planted certificates package ran" if marker.exists() else None

    return Case("reproduce with a planted certificates/ package",
                ["reproduce", "--out", str(out), "--only", "cos-lemma-3.2", "--no-progress",
                 "--force"], True, check=not_run)


# ---------------------------------------------------------------------------- second round


def _refused(*words):
    def chk(code, out, err):
        return None if all(w in err for w in words) else f"refusal without {words}: {err[-200:]}"
    return chk


def bound_cases(d: Path, quick: bool) -> list[Case]:
    """Refusal bounds, wide heads, tokens, locks: the engine cases of the second round."""
    import numpy as np

    rng = np.random.default_rng(1)
    const = d / "const300.csv"
    np.savetxt(const, np.ones((300, 300), int), fmt="%d", delimiter=",")
    y400 = d / "y400.csv"
    np.savetxt(y400, np.full((400, 400), "1/400", dtype=object), fmt="%s", delimiter=",")
    tall = d / "tall5000.csv"
    np.savetxt(tall, rng.integers(-99, 100, (5000, 3)), fmt="%d", delimiter=",")
    wide = d / "wide2000.csv"
    np.savetxt(wide, rng.integers(-999, 1000, (2, 2000)), fmt="%d", delimiter=",")
    big = d / "csv300.csv"
    np.savetxt(big, rng.integers(-9, 10, (300, 300)), fmt="%d", delimiter=",")
    head = d / "head5.npy"
    np.save(head, rng.normal(size=(5, 3)))
    npz = _w(d / "corrupt.npz", b"PK\x03\x04" + bytes(range(256)) * 4)
    cases = [
        Case("symmetry gram S200 (refusal bound)", ["symmetry", "gram", "S200"], False,
             check=_refused("--max-work")),
        Case("symmetry target S200 (refusal bound)", ["symmetry", "target", "S200", "1"],
             False, check=_refused("--max-work")),
        Case("symmetry detect <constant 300 x 300>", ["symmetry", "detect", str(const)], False,
             check=_refused("--max-work")),
        Case("certify solve <400 x 400>", ["certify", "solve", str(y400)], False,
             check=_refused("--max-work")),
        Case("certify argmax <5000 x 3>", ["certify", "argmax", str(tall)], False,
             check=_refused("--max-work")),
        Case("certify argmax --max-work 0", ["certify", "argmax", str(wide), "--max-work", "0"],
             False),
        Case("audit-argmax --tokens=-1,2", ["audit-argmax", str(head), "--tokens=-1,2",
                                            "--out", str(d / "tok-a"), "--no-progress"], False),
        Case("inspect --tokens=-1,2", ["inspect", str(head), "--tokens=-1,2", "--no-progress"],
             False),
        Case("audit-argmax --no-shared-supports", ["audit-argmax", str(head),
                                                   "--no-shared-supports", "--out",
                                                   str(d / "nss-a"), "--no-progress"], True),
        Case("audit-argmax --shared-supports", ["audit-argmax", str(head), "--shared-supports",
                                                "--out", str(d / "ss-a"), "--no-progress"],
             True),
        Case("audit-argmax <corrupt .npz>", ["audit-argmax", npz, "--out", str(d / "npz-a"),
                                             "--no-progress"], False),
        Case("audit-argmax <300 x 300 CSV>", ["audit-argmax", str(big), "--out",
                                              str(d / "csv-a"), "--no-progress"], True),
    ]
    for cmd in (["certify", "argmax"], ["certify", "pattern"]):
        out = d / f"wide-{cmd[1]}.json"

        def valid(code, o, e, out=out):
            from logitgeom_certificates.check import check_file

            v = check_file(str(out), None)
            return None if v.ok else f"emitted certificate rejected: {v.message}"

        cases.append(Case(f"{' '.join(cmd)} <2 x 2000>", [*cmd, str(wide), "-o", str(out)],
                          True, check=valid))
    locked = d / "locked-run"
    w3 = _w(d / "w3.csv", "1,0\n0,1\n1,1\n")
    for argv in (["patterns", "sign", w3, "-o", str(locked), "--no-progress"],
                 ["audit-argmax", w3, "--out", str(locked), "--no-progress"],
                 ["reproduce", "--out", str(locked), "--only", "cos-lemma-3.2",
                  "--no-progress"]):
        cases.append(Case(f"{argv[0]} into a folder another run holds", argv, False,
                          hold_lock=str(locked), check=_refused("another logitgeom run")))
    return cases


def _copy_examples(d: Path) -> Path:
    import shutil

    ex = d / "examples"
    if not ex.exists():
        shutil.copytree(ROOT / "certificates" / "examples", ex)
    return ex


def checker_file_cases(d: Path) -> list[Case]:
    """Referenced files and bracket numbers through ``logitgeom check`` (kinds of round two)."""
    ex = _copy_examples(d)
    cases = []
    br = json.loads((ex / "valid-layer-peeled-bracket.json").read_text())
    for key in ("E_W", "lower"):
        c = dict(br, **{key: "1e100000000"})
        cases.append(Case(f"check <bracket {key} 1e100000000>",
                          ["check", _w(d / f"br-{key}.json", json.dumps(c))], False))
    aud = json.loads((ex / "argmax-audit" / "valid-sharded.json").read_text())
    fifo_dir = d / "fifo"
    fifo_dir.mkdir(exist_ok=True)
    if hasattr(os, "mkfifo"):
        for name in ("records.jsonl", "head.npy"):
            if not (fifo_dir / name).exists():
                os.mkfifo(fifo_dir / name)
        c = copy.deepcopy(aud)
        c["shards"][0]["file"] = str(fifo_dir / "records.jsonl")
        cases.append(Case("check <audit shard is a FIFO>",
                          ["check", _w(d / "a-fifo.json", json.dumps(c))], False))
        c = copy.deepcopy(aud)
        c["head"] = {"format": "npy", "file": str(fifo_dir / "head.npy"), "sha256": "0" * 64}
        cases.append(Case("check <audit head is a FIFO>",
                          ["check", _w(d / "h-fifo.json", json.dumps(c))], False))
        st = json.loads((ex / "valid-pattern-complete-stream.json").read_text())
        st["shards"][0]["file"] = str(fifo_dir / "records.jsonl")
        cases.append(Case("check <stream shard is a FIFO>",
                          ["check", _w(d / "s-fifo.json", json.dumps(st))], False))
    c = copy.deepcopy(aud)
    c["shards"][0]["file"] = "/dev/zero"
    cases.append(Case("check <audit shard is /dev/zero>",
                      ["check", _w(d / "a-zero.json", json.dumps(c))], False))
    c = copy.deepcopy(aud)
    c["shards"][0]["file"] = str(ex / "argmax-audit" / "records.jsonl")
    cases.append(Case("check <audit, shard by absolute path> (refused: outside the folder)",
                      ["check", _w(d / "a-abs.json", json.dumps(c))], False))
    return cases + audit_check_cases(ex / "argmax-audit")


def _says(out_words=(), err_words=()):
    """A check that the verdict line (stdout) and stderr hold these words."""
    def chk(code, out, err):
        miss = [w for w in out_words if w not in out] + [w for w in err_words if w not in err]
        return f"missing {miss}: {out[-200:]} {err[-200:]}" if miss else None
    return chk


def audit_check_cases(ex: Path) -> list[Case]:
    """The options of checking an audit (issue 44, item 5): ``--workers`` of ``check`` and of
    ``python -m logitgeom_certificates.check_audit``, the cost line, the same failing check
    with workers, a budget below the printed cost, labels outside the audit.  A bad N is an
    argparse usage error (several lines of usage): ``scripts/fuzz_options.py`` has those of
    ``check --workers``, ``tests/test_check_workers.py`` those of both commands."""
    from logitgeom_certificates import _cli, check_audit

    valid, bad = str(ex / "valid-sharded.json"), str(ex / "invalid-gordan-combination.json")
    # shared supports (issue 44, item 2): labels 1-3's box rows are {"as": 0}; a reference to
    # a later label, or one that chains, is refused in every mode
    inline = json.loads((ex.parent / "valid-argmax-audit.json").read_text())
    refs = {}
    for name, label, target in (("later", 1, 3), ("chain", 3, 2)):
        c = copy.deepcopy(inline)
        c["records"][label]["box"]["rows"] = {"as": target}
        refs[name] = _w(ex / f"ref-{name}.json", json.dumps(c))

    def audit_main(*argv):  # the module's command line, its exit code as SystemExit
        def call():
            code = _cli.audit_main(list(argv), check_audit.check_file)
            if code:
                raise SystemExit(code)
        return call

    cost = "cost of a full check"
    return [
        Case("check --workers 2 <valid audit>", ["check", "--workers", "2", valid], True,
             check=_says(["OK argmax-audit (all 5 labels"], [cost])),
        Case("check --workers 2 <audit, wrong multipliers>", ["check", "--workers", "2", bad],
             False, check=_says(["failed_check=gordan-combination"])),
        Case("check --workers 2 --max-work 1 <valid audit>",
             ["check", "--workers", "2", "--max-work", "1", valid], False,
             check=_says(["NOT CHECKED", "work-budget"])),
        Case("check_audit --workers 2", [], True, call=audit_main(valid, "--workers", "2"),
             check=_says(["every proof"], [cost])),
        Case("check_audit --labels 0-2 --workers 3", [], True,
             call=audit_main(valid, "--labels", "0-2", "--workers", "3"),
             check=_says(["3 labels' proofs"])),
        Case("check_audit --labels 0,9 --workers 2 (label outside the audit)", [], False,
             call=audit_main(valid, "--labels", "0,9", "--workers", "2"),
             check=_says(["failed_check=labels"])),
        Case("check_audit --workers 2 <audit, wrong multipliers>", [], False,
             call=audit_main(bad, "--workers", "2"),
             check=_says(["failed_check=gordan-combination"])),
        Case("check_audit --workers 2 --max-work 1", [], False,
             call=audit_main(valid, "--workers", "2", "--max-work", "1"),
             check=_says(["NOT CHECKED"])),
        Case("check_audit --labels 3 <box rows {'as': 0}: label 0's support>", [], True,
             call=audit_main(valid, "--labels", "3"), check=_says(["1 labels' proofs"])),
        Case("check <audit, rows {'as': 3} in label 1: a later label>", ["check", refs["later"]],
             False, check=_says(["failed_check=gordan-support"])),
        Case("check_audit --workers 2 <audit, rows {'as': 2}: a chain>", [], False,
             call=audit_main(refs["chain"], "--workers", "2"),
             check=_says(["failed_check=gordan-support"])),
        Case("check_audit --labels 4 <audit, rows {'as': 2}: a chain, not among the labels>",
             [], False, call=audit_main(refs["chain"], "--labels", "4"),
             check=_says(["failed_check=gordan-support"])),
    ]


def file_battery(d: Path, n: int, seed: int, timeout: float) -> Counter:
    """Mutated referenced files (audit shards, stream shards): truncated, a flipped byte,
    emptied, gzip of other bytes, swapped for a FIFO or ``/dev/zero``.  A mutated file with
    its recorded hash must never be accepted; counted like :func:`certificate_battery`."""
    import gzip

    ex = _copy_examples(d)
    rng = random.Random(seed)
    targets = [(ex / "argmax-audit" / "valid-sharded.json", "records.jsonl", False),
               (ex / "valid-pattern-complete-stream.json", "pattern-stream/part-00000.jsonl.gz",
                True)]
    tally: Counter = Counter()
    for _ in range(n):
        cert_path, rel, gz = rng.choice(targets)
        base = cert_path.parent
        shard = base / rel
        original = shard.read_bytes()
        how = rng.choice(["truncate", "flip", "empty", "regzip", "fifo", "zero"])
        try:
            shard.unlink()
            if how == "fifo" and hasattr(os, "mkfifo"):
                os.mkfifo(shard)
            elif how == "zero":
                os.symlink("/dev/zero", shard)
            else:
                b = bytearray(original)
                if how == "truncate":
                    b = b[:rng.randrange(len(b))]
                elif how == "flip" and b:
                    i = rng.randrange(len(b))
                    b[i] ^= 1 << rng.randrange(8)
                elif how == "empty":
                    b = bytearray()
                else:
                    raw = gzip.decompress(original) if gz else bytes(original)
                    raw = raw.replace(b"1", b"2", 1)
                    b = bytearray(gzip.compress(raw, mtime=0) if gz else raw)
                shard.write_bytes(bytes(b))
            changed = how in ("fifo", "zero") or shard.read_bytes() != original
            verdict = _check_in_child(cert_path, base, timeout)
            if verdict == "valid" and changed:
                tally["false accept"] += 1
            tally[verdict] += 1
        finally:
            if shard.is_symlink() or shard.exists():
                shard.unlink()
            shard.write_bytes(original)
    return tally


def _check_in_child(cert_path: Path, base: Path, timeout: float) -> str:
    """``check_file`` in a forked child (memory-capped, killed after ``timeout`` s):
    "valid", "invalid", "traceback" or "hang"."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 3
        try:
            _cap_memory()
            os.chdir(base)  # relative references resolve from the certificate's folder
            from logitgeom_certificates.check import check_file

            code = 0 if check_file(str(cert_path), None).ok else 1
        except BaseException:  # noqa: BLE001 - counted as a traceback
            code = 3
        os._exit(code)
    t0 = time.perf_counter()
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return {0: "valid", 1: "invalid"}.get(code, "traceback")
        if time.perf_counter() - t0 > timeout:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "hang"
        time.sleep(0.005)


# ---------------------------------------------------------------------------- main


def battery(quick: bool, timeout: float, seed: int, mutations: int,
            degenerate: int) -> tuple[list[Outcome], Counter]:
    import logitgeom.cli.main  # noqa: F401 - import once in the parent: children fork from it
    import logitgeom.geometry  # noqa: F401
    import logitgeom.io  # noqa: F401

    tmpdir = tempfile.mkdtemp(prefix="logitgeom-fuzz-")
    d = Path(tmpdir)
    cases = matrix_cases(d, quick) + cycling_checks(d) + output_cases(d) + check_cases(d)
    cases += degenerate_cases(d, degenerate, seed)
    cases += model_cases(d)
    cases.append(planted_checker_case(d))
    cases += bound_cases(d, quick) + checker_file_cases(d)
    from fuzz_round3 import round3_cases  # the failures of issue 36, each a case

    cases += round3_cases(d, Case)
    results = [run_case(c, timeout, d) for c in cases]
    certs = certificate_battery(d, mutations, seed, timeout)
    certs.update(file_battery(d, max(mutations // 10, 12), seed, timeout))
    try:
        os.chmod(d / "readonly", stat.S_IRWXU)
    except OSError:  # pragma: no cover
        pass
    return results, certs


def summarize(results: list[Outcome], certs: Counter) -> dict:
    kinds = Counter(r.kind for r in results)
    return {
        "inputs tried": len(results) + sum(v for k, v in certs.items()
                                           if k in ("valid", "invalid", "hang", "traceback")),
        "command runs": len(results),
        "mutated certificates and files": sum(v for k, v in certs.items()
                                               if k in ("valid", "invalid", "hang",
                                                        "traceback")),
        "ok": kinds["ok"],
        "clear errors": kinds["clear"],
        "tracebacks": kinds["traceback"] + certs["traceback"],
        "hangs": kinds["hang"] + certs["hang"],
        "wrong answers": kinds["wrong"] + certs["false accept"],
        "overwrites": kinds["overwrite"],
        "mutations accepted / rejected": f"{certs['valid']} / {certs['invalid']}",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the small battery of the tests")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mutations", type=int, default=None, help="mutated certificates")
    ap.add_argument("--degenerate", type=int, default=None, help="random degenerate heads")
    args = ap.parse_args(argv)
    mutations = args.mutations if args.mutations is not None else (300 if args.quick else 5000)
    degenerate = args.degenerate if args.degenerate is not None else (4 if args.quick else 60)
    t0 = time.perf_counter()
    results, certs = battery(args.quick, args.timeout, args.seed, mutations, degenerate)
    for r in results:
        if r.kind not in ("ok", "clear"):
            print(f"{r.kind.upper():9s} {r.case.name}: {r.detail}")
    summary = summarize(results, certs)
    for k, v in summary.items():
        print(f"{k}: {v}")
    print(f"wall time: {time.perf_counter() - t0:.0f} s")
    bad = summary["tracebacks"] + summary["hangs"] + summary["wrong answers"] + \
        summary["overwrites"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
