"""The trusted checker: SPEC examples, exit codes, stdlib-only isolation, rendering."""

from __future__ import annotations

import doctest
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import logitgeom.emit
import logitgeom.reproduce.paper
import logitgeom_certificates._cli
import logitgeom_certificates._files
import logitgeom_certificates._render
import logitgeom_certificates.check
import logitgeom_certificates.check_bracket
import logitgeom_certificates.check_family
import logitgeom_certificates.check_geometry
import logitgeom_certificates.check_orbit
import logitgeom_certificates.check_stream
import logitgeom_certificates.convex
import logitgeom_certificates.kernel
import logitgeom_certificates.linear
import logitgeom_certificates.reals
import logitgeom_certificates.semantics
from logitgeom_certificates.check import check, check_file, main
from logitgeom_certificates.kernel import FILE_BASE
from logitgeom_certificates.meter import setting

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "certificates" / "examples"
PAPER = ROOT / "certificates" / "paper"
SPEC = (ROOT / "certificates" / "SPEC.md").read_text()
VALID = sorted(EXAMPLES.glob("valid-*.json"))
INVALID = sorted(EXAMPLES.glob("invalid-*.json"))


def _expected(p: Path) -> str:
    return p.name[len("invalid-"):-len(".json")]


def test_examples_exist():
    kinds = {json.loads(p.read_text())["kind"] for p in VALID}
    assert kinds == set(logitgeom_certificates.check.KINDS)
    assert len(INVALID) >= 25


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_checks(path):
    v = check_file(path)
    assert v.ok and v.failed_check is None and v.exit_code == 0, v


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_example_rejected_with_documented_check(path):
    v = check_file(path)
    assert not v.ok
    assert v.failed_check == _expected(path), v
    assert v.location and v.message


def test_spec_documents_every_example_and_check():
    for p in VALID:
        assert p.name in SPEC, p.name
    documented = set(re.findall(r"^\| `([a-z-]+)` \| [12] \|", SPEC, flags=re.M))
    assert documented == {_expected(p) for p in INVALID}


def test_exit_codes(capsys):
    valid, invalid = str(VALID[0]), str(EXAMPLES / "invalid-witness.json")
    assert main([valid]) == 0
    assert main([valid, invalid]) == 1
    assert main([valid, str(EXAMPLES / "invalid-unreadable.json")]) == 2
    assert main([invalid, str(EXAMPLES / "invalid-unsupported-version.json")]) == 2
    assert main([str(ROOT / "no-such-file.json")]) == 2
    out = capsys.readouterr().out
    assert "INVALID" in out and "failed_check=witness" in out


def test_cli_check_calls_the_checker(capsys):
    from logitgeom.cli.main import main as cli

    assert cli(["check", str(EXAMPLES / "valid-translation.json"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "OK translation" in out and "cos(w'_0, w'_1) = -1" in out
    assert cli(["check", str(EXAMPLES / "invalid-count.json")]) == 1


def test_non_object_and_bool_version():
    assert check([1, 2]).failed_check == "schema"
    c = json.loads((EXAMPLES / "valid-sign-feasible.json").read_text())
    assert check(dict(c, version=True)).failed_check == "unsupported-version"
    assert check(dict(c, W=[[1, 0], [0, 1], [1, 1]])).failed_check == "number"
    assert check(dict(c, W=[["2/4", "0"], ["0", "1"], ["1", "1"]])).failed_check == "number"


@pytest.mark.parametrize("where", [("version",), ("labels", 0, 0), ("counts", "all", "never"),
                                   ("rows",), ("head", "W", 0, 0)])
def test_an_integer_past_the_str_limit_is_named_not_malformed(where):
    """An object given to check() (no parse_json) with an integer of over 4,300 digits in a
    field read as an int (or as a number): rejected at that field, saying its bit length,
    never 'malformed' (printing it raised ValueError deep inside the check)."""
    c = json.loads((EXAMPLES / "valid-argmax-audit.json").read_text())
    node = c
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = -10 ** 5000
    v = check(c)
    assert not v.ok and v.failed_check == "number", v
    assert v.location == "/" + "/".join(map(str, where))
    assert "16610 bits" in v.message and "at most 20 digits" in v.message
    assert "malformed" not in v.message and "4300" not in v.message


BLOCKER = r"""
import sys
BLOCKED = ("numpy", "cvxpy", "cdd", "engine", "logitgeom", "logitgeom_certificates", "scipy",
           "sympy", "clarabel", "scs")
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: the checker must use the stdlib alone")
        return None
sys.meta_path.insert(0, Blocker())
sys.path.insert(0, sys.argv[1])
from certificates.check import main  # the checkout's folder, by its own name
code = main(sys.argv[2:])
leaked = [m for m in sys.modules if m.split(".")[0] in BLOCKED]
assert not leaked, leaked
sys.exit(code)
"""


def test_checker_runs_on_stdlib_alone():
    files = [str(p) for p in VALID + sorted(PAPER.glob("*.json"))]
    run = subprocess.run([sys.executable, "-I", "-c", BLOCKER, str(ROOT), *files, "--explain"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr + run.stdout
    assert run.stdout.count(": OK ") == len(files)
    run = subprocess.run([sys.executable, "-I", "-c", BLOCKER, str(ROOT),
                          str(EXAMPLES / "invalid-count.json"), "--latex"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "failed_check=count" in run.stdout, run.stderr
    run = subprocess.run([sys.executable, "-m", "logitgeom_certificates.check", str(VALID[0])],
                         cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and ": OK " in run.stdout, run.stderr


def test_checker_runs_as_a_script_by_path(tmp_path):
    """`python -I path/to/certificates/check.py FILE` (no package on sys.path, any cwd)."""
    run = subprocess.run([sys.executable, "-I", str(ROOT / "certificates" / "check.py"),
                          str(VALID[0])], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and ": OK " in run.stdout, run.stderr


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_explain_and_latex_render(path):
    c = json.loads(path.read_text())
    text = logitgeom_certificates._render.explain(c)
    assert text.startswith("Claim: ") and ("W" in text)
    tex = logitgeom_certificates._render.latex(c)
    assert "\\begin{pmatrix}" in tex and "\\paragraph{Claim.}" in tex


@pytest.mark.parametrize("mod", [logitgeom_certificates.check, logitgeom_certificates._render,
                                 logitgeom_certificates.kernel, logitgeom_certificates.linear,
                                 logitgeom_certificates.convex, logitgeom_certificates.reals,
                                 logitgeom_certificates.check_bracket,
                                 logitgeom_certificates.check_orbit,
                                 logitgeom_certificates.check_family,
                                 logitgeom_certificates.check_geometry,
                                 logitgeom_certificates.check_stream, logitgeom_certificates._cli,
                                 logitgeom_certificates._files, logitgeom_certificates.semantics,
                                 logitgeom.emit,
                                 logitgeom.reproduce.paper], ids=lambda m: m.__name__)
def test_doctests(mod):
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert res.failed == 0


def test_duplicate_keys_and_deep_nesting_rejected(tmp_path):
    text = (EXAMPLES / "valid-sign-feasible.json").read_text()
    dup = tmp_path / "dup.json"
    dup.write_text(text.replace('"signs":', '"witness": ["5", "5"],\n "signs":'))
    assert check_file(dup).failed_check == "schema"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    assert check_file(deep).failed_check in ("unreadable", "schema")



def test_semantics_moebius_and_count_agree_with_the_engine():
    """The checker's Zaslavsky count (its own Moebius values) against the engine's lattice."""
    import random
    from fractions import Fraction

    from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact, flats
    from logitgeom_certificates import kernel as K
    from logitgeom_certificates import semantics as sm

    rng = random.Random(5)
    for _ in range(25):
        k, d = rng.randint(1, 6), rng.randint(1, 3)
        W = tuple(tuple(Fraction(rng.randint(-2, 2)) for _ in range(d)) for _ in range(k))
        b = tuple(Fraction(rng.randint(-1, 1)) for _ in range(k))
        for bias in (None, b):
            bz = bias or (Fraction(0),) * k
            fl = flats(W, bias) if any(any(r) for r in W) else ()
            lattice = [{"hyperplanes": list(f.hyperplanes), "rank": f.rank} for f in fl]
            if fl:
                assert sm.zaslavsky(sm.arrangement(W, bz, "sign"), lattice, "", d) == \
                    count_regions_exact(W, bias)
                # the generated lattice and its (Weisner) Moebius values equal the engine's
                R = {i: sm.primitive(K.scaled((*a, c))[0])
                     for i, (a, c) in enumerate(sm.arrangement(W, bz, "sign")) if any(a)}
                gen, mu = sm._generate(R, (0,) * d + (1,), len(fl), d + 1)
                masks = [sum(1 << h for h in f.hyperplanes) for f in fl]
                assert sorted(gen) == sorted(masks)
                assert [mu[m] for m in masks] == [f.mobius for f in fl]
                assert [gen[m][0] for m in masks] == [f.rank for f in fl]
        if k > 1:
            H = sm.arrangement(W, (Fraction(0),) * k, "ranking")
            if any(any(a) for a, _ in H):
                fl = flats([a for a, _ in H])
                lattice = [{"hyperplanes": list(f.hyperplanes), "rank": f.rank} for f in fl]
                assert sm.zaslavsky(H, lattice, "", d) == count_rankings_exact(W)


def test_lattice_generation_rejects_every_tampered_list():
    """The lattice generated upwards (one step per cover) against tampered lists of the
    engine's lattice: a flat dropped, a rank changed, a flat listed twice, a flat widened by
    a hyperplane; each rejected with the check that names it, the true list accepted."""
    import random
    from fractions import Fraction

    from logitgeom.exact.lattice import count_regions_exact, flats
    from logitgeom_certificates import semantics as sm
    from logitgeom_certificates.errors import Fail

    rng = random.Random(11)
    tried = 0
    while tried < 30:
        k, d = rng.randint(2, 7), rng.randint(1, 4)
        W = tuple(tuple(Fraction(rng.randint(-2, 2)) for _ in range(d)) for _ in range(k))
        b = tuple(Fraction(rng.randint(-1, 1)) for _ in range(k))
        if not all(any(r) for r in W):
            continue
        fl = flats(W, b)
        if len(fl) < 3:
            continue
        tried += 1
        H = sm.arrangement(W, b, "sign")
        good = [{"hyperplanes": list(f.hyperplanes), "rank": f.rank} for f in fl]
        assert sm.zaslavsky(H, good, "", d) == count_regions_exact(W, b)

        def verdict(lat, H=H, d=d):
            try:
                sm.zaslavsky(H, lat, "", d)
            except Fail as exc:
                return exc.check
            return "ok"

        i = rng.randrange(1, len(good))
        assert verdict(good[:i] + good[i + 1:]) == "lattice-incomplete"
        assert verdict(good[1:]) in ("lattice-bottom", "lattice-incomplete")
        bad = [dict(f) for f in good]
        bad[i]["rank"] += 1
        assert verdict(bad) == "flat-rank"
        assert verdict(good + [good[i]]) == "flat-duplicate"
        extra = [h for h in range(k) if h not in good[i]["hyperplanes"]]
        if extra:
            wide = sorted(good[i]["hyperplanes"] + [rng.choice(extra)])
            if wide not in [f["hyperplanes"] for f in good]:
                got = verdict(good + [{"hyperplanes": wide, "rank": good[i]["rank"]}])
                assert got in ("flat-empty", "flat-rank", "flat-closed"), got


# ------------------------------------------------------------ the kernel: hostile input
def _copy_with(tmp_path, name, edit):
    """The example certificate ``name`` copied to tmp_path with its files, edited by
    ``edit(obj, folder)`` (which may rewrite referenced files and their hashes)."""
    src = EXAMPLES / name
    obj = json.loads(src.read_text())
    for sub in ("argmax-audit", "pattern-stream"):
        if (EXAMPLES / sub).is_dir():
            shutil.copytree(EXAMPLES / sub, tmp_path / sub, dirs_exist_ok=True)
    edit(obj, tmp_path / src.relative_to(EXAMPLES).parent)
    out = tmp_path / src.relative_to(EXAMPLES)
    out.write_text(json.dumps(obj))
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_duplicate_key_in_an_audit_shard_line_rejected(tmp_path):
    def edit(obj, folder):
        p = folder / obj["shards"][0]["file"]
        lines = p.read_bytes().split(b"\n")
        lines[0] = lines[0].replace(b'{"label": 0', b'{"label": 0, "label": 0', 1) \
            if b'{"label": 0' in lines[0] else b'{"label": 0, ' + lines[0][1:]
        p.write_bytes(b"\n".join(lines))
        obj["shards"][0]["sha256"] = _sha(p.read_bytes())

    v = check_file(_copy_with(tmp_path, "argmax-audit/valid-sharded.json", edit))
    assert v.failed_check == "schema" and "duplicate" in v.message, v


def test_duplicate_key_in_a_stream_shard_line_rejected(tmp_path):
    def edit(obj, folder):
        sh = obj["shards"][0]
        p = folder / sh["file"]
        lines = gzip.decompress(p.read_bytes()).split(b"\n")
        lines[0] = lines[0].replace(b'{"pattern":', b'{"witness":["0","0"],"pattern":', 1)
        p.write_bytes(gzip.compress(b"\n".join(lines), mtime=0))
        sh["sha256"] = _sha(p.read_bytes())

    v = check_file(_copy_with(tmp_path, "valid-pattern-complete-stream.json", edit))
    assert v.failed_check == "schema" and "duplicate" in v.message, v


def test_long_and_exponent_numbers_rejected_in_brackets():
    b = json.loads((EXAMPLES / "valid-layer-peeled-bracket.json").read_text())
    v = check(dict(b, E_W="1" * 4100))
    assert v.failed_check == "number" and "4000 digits" in v.message, v
    v = check(dict(b, E_W="1e100000000"))  # rejected from its text, never parsed
    assert v.failed_check == "number" and v.location == "/E_W", v
    assert check(dict(b, version=1.0)).failed_check == "unsupported-version"
    assert check(dict(b, version=True)).failed_check == "unsupported-version"


def test_budget_inactive_is_never_accepted():
    forged = sorted((EXAMPLES / "budget-inactive").glob("invalid-*.json"))
    assert len(forged) == 2
    for p in forged:
        v = check_file(p)
        assert v.failed_check == "structure-inactive", (p.name, v)
        c = json.loads(p.read_text())
        c["structure"] = [s for s in c["structure"] if s["claim"] != "budget-inactive"]
        assert check(c).ok  # the bracket itself is genuine


@pytest.mark.parametrize("where", ["audit-shard", "audit-head", "stream-shard"])
def test_special_files_are_refused(tmp_path, where):
    targets = ["/dev/zero"] if Path("/dev/zero").exists() else []
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        targets.append(str(tmp_path / "fifo"))
    if not targets:
        pytest.skip("no FIFO or /dev/zero here")
    for target in targets:
        def edit(obj, folder, target=target):
            if where == "audit-shard":
                obj["shards"][0]["file"] = target
            elif where == "audit-head":
                obj["head"] = {"format": "npy", "file": target, "sha256": "0" * 64}
            else:
                obj["shards"][0]["file"] = target

        name = "valid-pattern-complete-stream.json" if where == "stream-shard" \
            else "argmax-audit/valid-sharded.json"
        v = check_file(_copy_with(tmp_path, name, edit))
        # a shard outside the certificate's folder is refused before it is opened
        assert v.failed_check == "file" and ("not a regular file" in v.message or (
            where != "audit-head" and "inside the certificate's folder" in v.message)), (target, v)


@pytest.mark.parametrize("name", ["valid-pattern-complete-stream.json",
                                  "argmax-audit/valid-sharded.json"])
@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_shard_paths_stay_inside_the_certificates_folder(tmp_path, name, how):
    """Issue 43: a shard named by an absolute path, a path with '..', or a symlink leaving
    the certificate's folder is refused (``file``), even when its bytes are the right ones;
    before, each of the three was read and the certificate accepted."""
    import shutil

    outside = tmp_path / "outside"
    outside.mkdir()

    def edit(obj, folder):
        src = folder / obj["shards"][0]["file"]
        copy = outside / src.name
        shutil.copy(src, copy)
        if how == "absolute":
            obj["shards"][0]["file"] = str(copy)
        elif how == "dotdot":
            obj["shards"][0]["file"] = f"../outside/{src.name}"
        else:
            src.unlink()
            src.symlink_to(copy)

    v = check_file(_copy_with(tmp_path / "in", name, edit))
    assert v.failed_check == "file" and not v.ok, v


def _audit(tmp_path, **change):
    c = json.loads((EXAMPLES / "valid-argmax-audit.json").read_text()) | change
    p = tmp_path / f"audit-{len(list(tmp_path.iterdir()))}.json"
    p.write_text(json.dumps(c))
    return p


def test_audit_labels_and_samples(tmp_path, capsys):
    from logitgeom_certificates import _cli, check_audit

    p = _audit(tmp_path)
    assert _cli.audit_main([str(p), "--labels", "999999"], check_audit.check_file) == 1
    assert "not among the audited labels" in capsys.readouterr().out
    assert check_file(_audit(tmp_path, labels=[[0, 0]])).failed_check == "labels"
    huge = _audit(tmp_path, rows=10 ** 15, labels=[[0, 10 ** 15 - 1]])  # never expanded
    assert _cli.audit_main([str(huge), "--sample", "3"], check_audit.check_file) == 1
    assert "INVALID" in capsys.readouterr().out
    assert main([str(p), "--sample", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"checked \d+ of 6 witnesses", out), out
    c = json.loads(p.read_text())
    c.pop("radius")
    c["domains"] = ["all"]
    c["counts"] = {"all": c["counts"]["all"]}
    c["records"] = [{"label": r["label"], "all": r["all"]} for r in c["records"]]
    p.write_text(json.dumps(c))
    assert main([str(p), "--explain", "--latex"]) == 0  # no radius: no KeyError
    text = capsys.readouterr().out
    assert "5 argmaxable" in text and "[" not in text.split("\n")[1][:1]
    src = {"file": "head.npy", "sha256": "a" * 64}
    assert check(dict(c, source=src)).ok
    assert check(dict(c, source=dict(src, sha256="xyz"))).failed_check == "schema"


def test_audit_reads_one_head_layout(tmp_path):
    """A referenced head is a version 1.0 .npy of a 2-D C-ordered little-endian float64 or
    float32 matrix, nothing else (the engine writes every other head in that layout)."""
    import numpy as np

    c = json.loads((EXAMPLES / "valid-argmax-audit.json").read_text())
    W = np.array([[float(Fraction(x)) for x in r] for r in c["head"]["W"]])
    cases = {"<f8": (W.astype("<f8"), None), "<f4": (W.astype("<f4"), None),
             "<f2": (W.astype("<f2"), "file"), ">f8": (W.astype(">f8"), "file"),
             "fortran": (np.asfortranarray(W), "file"), "transposed": (W.T.copy(), "shape"),
             "3-D": (W[None], "file")}
    for name, (A, fails) in cases.items():
        p = tmp_path / f"{name}.npy"
        np.save(p, A)
        raw = p.read_bytes()
        data = raw[10 + int.from_bytes(raw[8:10], "little"):]
        ref = {"format": "npy", "file": str(p), "sha256": _sha(data)}
        v = check(dict(c, head=ref))
        assert (v.failed_check if fails else v.ok) == (fails or True), (name, v)
    for ref in ({"format": "safetensors", "file": str(p), "sha256": "0" * 64},
                {"format": "npy", "file": str(p), "sha256": "0" * 64, "transpose": False}):
        assert check(dict(c, head=ref)).failed_check == "schema", ref


def test_metered_work_bounds_every_file():
    """Every valid example and paper certificate checks within the default budget (the
    meter, charged as the check goes, is the only bound); work beyond it is refused."""
    for p in VALID + sorted(EXAMPLES.glob("*/valid-*.json")) + sorted(PAPER.glob("*.json")):
        obj = json.loads(p.read_text())
        with setting(FILE_BASE, str(p.parent)):
            assert check(obj).ok, p.name
            assert check(obj, 10).failed_check == "work-budget", p.name
    o = json.loads((EXAMPLES / "valid-layer-peeled-orbit-bracket.json").read_text())
    m = 80  # S_80: the order is 80!, computing it exceeds the default budget
    o.update(bases=[["1"] + ["0"] * (m - 1)], W=[["0"] * m] * m, H_bases=[["0"] * m],
             P_bases=[["1"] + ["0"] * (m - 1)],
             generators=[[1, 0, *range(2, m)], [*range(1, m), 0]])
    v = check(o)
    assert v.failed_check == "work-budget" and v.exit_code == 2, v


def test_explain_uses_the_bytes_it_checked(monkeypatch, capsys):
    calls = []
    import logitgeom_certificates.kernel

    real = logitgeom_certificates.kernel.read_file
    monkeypatch.setattr(logitgeom_certificates.kernel, "read_file",
                        lambda p, *a, **k: calls.append(p) or real(p, *a, **k))
    assert main([str(VALID[0]), "--explain"]) == 0
    assert len(calls) == 1


def test_broken_pipe_is_quiet():
    files = [str(p) for p in VALID]
    cmd = f"{sys.executable} -m logitgeom_certificates.check {' '.join(files)} | head -1"
    run = subprocess.run(cmd,
                         shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.stdout.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr


def test_audit_ok_line_counts_undecided_labels(tmp_path, capsys):
    """Issue 43: an audit with an undecided record said "OK ... all 5 labels"; the OK line
    now says how many labels are decided and how many are not."""
    obj = json.loads((EXAMPLES / "valid-argmax-audit.json").read_text())
    obj["domains"] = ["all"]
    obj.pop("radius", None)
    for r in obj["records"]:
        r.pop("box", None)
    obj["records"][4]["all"] = {"verdict": "undecided", "reason": "not tried"}
    c = obj["counts"] = {"all": {"argmaxable": 4, "never": 0, "undecided": 1}}
    assert sum(c["all"].values()) == 5
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(obj))
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "4 labels decided, 1 undecided" in out, out


def test_family_theorem_label_is_not_part_of_the_claim(tmp_path, capsys):
    """Issue 43: a family theorem's free-text label was printed as part of the proven claim
    ("minority-collapse (R = 30)" on a file proven at R = 100); it is not checked, so it is
    not printed there."""
    obj = json.loads((EXAMPLES / "valid-layer-peeled-family-theorem.json").read_text())
    obj["label"] = "R = 30"
    path = tmp_path / "t.json"
    path.write_text(json.dumps(obj))
    assert main([str(path), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "OK layer-peeled-family-theorem" in out and "R = 30" not in out, out


def _bracket_order(dual: str) -> tuple[str, ...]:
    """The failed checks of ``convex.bracket`` in the order it makes them (``structure``: the
    structure claims' checks); ``dual``: the dual point's check."""
    return ("budget", "precision", "equal-rows", "upper", dual, "spectral", "radius", "lower",
            "width", "structure")


#: Each layer-peeled kind's failed checks in the order its checker makes them (issue 42).
#: The checker never reads these tuples (they decide no verdict), so they live here rather
#: than in the counted modules; a change of order in ``convex.bracket`` or a kind module
#: changes them, SPEC.md's "Order" lines and this table together.
CHECK_ORDER = {
    "layer-peeled-bracket": ("target", *_bracket_order("dual-stochastic")),
    "layer-peeled-theorem": ("theorem-parts", "theorem-mismatch", "transitivity"),
    "layer-peeled-orbit-bracket": ("target", "generator", "group-order", "structure-invariant",
                                   *_bracket_order("dual-stochastic")),
    **{k: ("target", "weights", *_bracket_order("dual-admissible"))
       for k in logitgeom_certificates.check_family.LOSS_OF},
    "layer-peeled-family-theorem": ("theorem-parts", "theorem-mismatch", "theorem-hypothesis",
                                    "theorem-inequality"),
    "layer-peeled-rank-bracket": ("rank-bound", "target", *_bracket_order("dual-stochastic"),
                                  "relaxation-exact"),
    "layer-peeled-stability": ("target", *_bracket_order("dual-stochastic"), "target-invariant",
                               "structure-invariant", "average", "spectral", "stability", "gap",
                               "strong-convexity", "distance"),
}


def test_spec_states_each_kinds_order_of_checks():
    """Issue 42: every layer-peeled kind's obligation order is a tuple (CHECK_ORDER above),
    and SPEC.md's "Order (`kind`): ..." line lists the same checks in that order."""
    import re

    spec = (ROOT / "certificates" / "SPEC.md").read_text()
    orders = CHECK_ORDER
    assert len(orders) == 9
    for kind, order in orders.items():
        line = re.search(rf"^Order \(`{re.escape(kind)}`\): (.*)$", spec, re.M)
        assert line, kind
        assert tuple(re.findall(r"`([a-z-]+)`", line.group(1))) == order, kind


def test_centred_cosine_labels_must_be_a_pair():
    """A centred-cosine theorem with three labels fails at its labels, as schema."""
    c = json.loads((ROOT / "certificates" / "paper" / "app-c.2-centred-cosine.json").read_text())
    c["parameters"]["labels"] = [0, 1, 2]
    v = check(c)
    assert (v.ok, v.failed_check, v.location) == (False, "schema", "/parameters/labels")
