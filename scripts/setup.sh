#!/usr/bin/env bash
# Idempotent set-up: system packages (cddlib + GMP headers for pycddlib's exact
# arithmetic), a virtual environment in .venv, and the project with all extras.
# Fast when already done: a stamp records the hash of pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv

# 1. System packages. pycddlib has no Linux wheel; it compiles against these.  pdflatex
# (texlive-latex-base; amsmath/longtable from texlive-latex-recommended) compiles the output
# of `logitgeom check --latex` in the tests; coq (coqc) compiles the proofs of
# `logitgeom export coq` in the tests (docs/coq.md).
missing=()
for pkg in libcdd-dev libgmp-dev gcc texlive-latex-base texlive-latex-recommended coq; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ! "$PY" -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"; then
  missing+=(python3-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. Virtual environment.
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PY" -m venv "$VENV"
fi

# 3. The project with every extra (tests cover notebooks, MOSEK-unlicensed and models).
stamp="$VENV/.logitgeom-stamp"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing logitgeom and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip 2> >(grep -v -E "is ignored: it is neither" >&2)
  # setuptools' "Editable installation" banner (a BuildBackendWarning about folders that
  # shadow the package) is silenced: the checkout IS the package; other warnings still show.
  PYTHONWARNINGS="ignore:Editable installation" \
    "$VENV/bin/python" -m pip install -q -e ".[dev,notebooks,mosek,models,spacy]" \
    2> >(grep -v -E "is ignored: it is neither a file nor a directory" >&2)
  "$VENV/bin/python" -c "import cdd.gmp" || { echo "setup: cdd.gmp (exact arithmetic) did not import" >&2; exit 1; }
  echo "$want" > "$stamp"
fi
echo "setup: ready ($VENV)"
