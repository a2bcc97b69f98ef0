"""The package as a user installs it: import names, the wheel outside the checkout, a fast CLI.

The repository keeps ``engine/`` and ``certificates/``; pyproject's ``package-dir`` installs
them as ``logitgeom`` and ``logitgeom_certificates``.  These tests check that mapping is whole
(every subpackage listed), that a wheel built from the tree works in a fresh virtual
environment outside the checkout (package data included, nothing of ours importable as
``engine`` or ``certificates``, and an unrelated ``certificates`` distribution installed beside
it breaks nothing), that the command line's start-up imports no numerical library, and that
every benchmark script answers ``--help`` and refuses an unknown option.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_package_list_is_every_folder():
    """``[tool.setuptools] packages`` lists every folder with an ``__init__.py`` (mapped)."""
    tool = PYPROJECT["tool"]["setuptools"]
    assert tool["package-dir"] == {"logitgeom": "engine", "logitgeom_certificates": "certificates"}
    want = {"logitgeom_certificates"}
    for init in (ROOT / "engine").rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT / "engine").parts
        want.add(".".join(("logitgeom", *rel)))
    assert set(tool["packages"]) == want
    assert not list((ROOT / "certificates").rglob("*/__init__.py")), "a checker subpackage " \
        "would need its own line in pyproject's packages"


# ---------------------------------------------------------------------- start-up imports
HEAVY = ("numpy", "scipy", "cvxpy", "sympy", "networkx", "pandas", "pyarrow", "distributed",
         "dask", "flint", "cdd", "highspy", "matplotlib", "torch")


def _commands() -> list[list[str]]:
    import argparse

    from logitgeom.cli.main import build_parser

    out: list[list[str]] = []

    def walk(p: argparse.ArgumentParser, prefix: list[str]) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    out.append([*prefix, name])
                    walk(sp, [*prefix, name])

    walk(build_parser(), [])
    return out


def _imported_by(argv: list[str]) -> list[str]:
    code = ("import sys\nfrom logitgeom.cli.main import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return eval(r.stdout.strip().splitlines()[-1])  # a list literal printed above


def test_help_and_check_import_no_numerical_library():
    """``--help``, every ``COMMAND --help`` and ``check`` of a small certificate start
    without numpy, scipy, cvxpy, ...: the start-up cost is the interpreter's, not theirs
    (benchmarks/bench_startup.py measures the CPU)."""
    cases = [["--help"], *[[*c, "--help"] for c in _commands()],
             ["check", str(ROOT / "certificates" / "paper" / "app-c.2-centred-cosine.json")]]
    bad = {" ".join(c): got for c in cases if (got := _imported_by(c))}
    assert not bad, bad


def test_import_logitgeom_is_lazy():
    r = subprocess.run([sys.executable, "-c", "import sys, logitgeom; "
                        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})));"
                        "print(logitgeom.sign_pattern.__module__)"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.split("\n")[:2]
    assert first == "[]"
    assert second.startswith("logitgeom.geometry")


# ---------------------------------------------------------------------- benchmark scripts
BENCH = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", BENCH, ids=[p.name for p in BENCH])
def test_benchmark_answers_help_and_refuses_unknown_options(script):
    h = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    assert h.returncode == 0 and "usage" in h.stdout.lower(), (h.stdout[-500:], h.stderr[-500:])
    b = subprocess.run([sys.executable, str(script), "--no-such-option"], capture_output=True,
                       text=True, timeout=300, cwd=ROOT)
    assert b.returncode == 2 and "no-such-option" in b.stderr, (b.stdout[-500:], b.stderr[-500:])


# ---------------------------------------------------------------------- the wheel
def _run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=900, **kw)
    assert r.returncode == 0, (argv, r.stdout[-2000:], r.stderr[-2000:])
    return r


@pytest.mark.slow
def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    """Build the sdist and wheel, install the wheel into a fresh venv outside the checkout
    (its dependencies from this environment's site-packages through a ``.pth`` file, so no
    download), and run the command line, a certificate check and a Coq export from it."""
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)])
    wheel = next(dist.glob("logitgeom-*.whl"))
    assert next(dist.glob("logitgeom-*.tar.gz"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    # The dependencies, not logitgeom: a path added by a .pth file gets no .pth processing
    # of its own, so this environment's editable-install hook stays inactive there.
    (site / "_logitgeom_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(py), "-m", "pip", "install", "--no-deps", "--force-reinstall", "--no-index",
          "-q", str(wheel)])
    out = tmp_path / "run"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    kw = {"cwd": out, "env": env}
    where = _run([str(py), "-c", "import logitgeom, logitgeom_certificates as c; "
                  "print(logitgeom.__file__); print(c.__file__)"], **kw).stdout.split()
    assert all(w.startswith(str(venv)) for w in where), where
    for name in ("engine", "certificates"):  # nothing of ours under the generic names
        r = subprocess.run([str(py), "-c", f"import {name}"], capture_output=True, text=True,
                           **kw)
        assert r.returncode != 0 and "No module named" in r.stderr, (name, r.stderr)
    cli = str(venv / "bin" / "logitgeom")
    _run([cli, "--version"], **kw)
    _run([cli, "demo"], **kw)
    paper = Path(where[1]).parent / "paper"
    certs = sorted(paper.glob("*.json"))
    assert len(certs) >= 10 and (Path(where[1]).parent / "SPEC.md").is_file()
    assert (Path(where[1]).parent / "examples" / "pattern-stream").is_dir()
    assert list((Path(where[1]).parent / "coq").glob("*.v"))
    _run([cli, "check", *map(str, certs)], **kw)
    _run([str(py), "-m", "logitgeom_certificates.check", str(certs[0])], **kw)
    sign = paper / "app-h.2-sign-ranking.json"
    _run([cli, "export", "coq", str(sign), "--out", str(out / "coq"), "--compile"], **kw)
    # An unrelated distribution named `certificates` beside ours breaks nothing.
    other = subprocess.run([str(py), "-m", "pip", "install", "-q", "certificates"],
                           capture_output=True, text=True, timeout=600, env=env)
    if other.returncode != 0:
        pytest.fail(f"could not install the unrelated 'certificates' package: {other.stderr}")
    _run([str(py), "-c", "import certificates, logitgeom_certificates"], **kw)
    _run([cli, "check", str(certs[0])], **kw)
    _run([str(py), "-m", "logitgeom_certificates.check", str(certs[0])], **kw)
