#!/usr/bin/env bash
# Idempotent set-up: system packages (cddlib + GMP headers for pycddlib's exact
# arithmetic), a virtual environment in .venv, and the project with all extras.
# Fast when already done: a stamp records the hash of pyproject.toml.
# Every step prints a line saying what it does and about how big it is; a step that runs
# long prints a heartbeat at least every 20 s (elapsed time, size so far).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
BEAT=${SETUP_HEARTBEAT_SECONDS:-20}

# Run "$@" in the background and print a heartbeat every $BEAT s until it ends; its exit
# status is ours.  $1 is the label, $2 a folder whose size the heartbeat reports ("-": none).
with_heartbeat() {
  local label=$1 folder=$2
  shift 2
  "$@" &
  local pid=$! start=$SECONDS next=$((SECONDS + BEAT))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ "$SECONDS" -ge "$next" ]; then
      local size=""
      # du may meet files that pip removes while it counts: never let that end the set-up.
      if [ "$folder" != "-" ] && [ -d "$folder" ]; then
        size=", $( (du -sh "$folder" 2>/dev/null || true) | cut -f1) so far"
      fi
      echo "setup: ... $label: $((SECONDS - start)) s${size}"
      next=$((SECONDS + BEAT))
    fi
  done
  wait "$pid"
}

# pip's lines without the "already satisfied" ones (never fails: the status is pip's).
pip_lines() { grep -v -E "^Requirement already satisfied" || true; }

# apt-get, waiting for a lock held by another apt or dpkg (unattended upgrades, another
# set-up) instead of failing at once: a message, then a retry every 10 s for up to 15 min.
apt_wait() {
  local tries=0 err
  err=$(mktemp)
  while true; do
    if "$@" 2>"$err"; then rm -f "$err"; return 0; fi
    if grep -q -E "Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock" "$err" \
        && [ $tries -lt 90 ]; then
      [ $tries -eq 0 ] && echo "setup: another apt/dpkg holds the package lock; waiting for it (up to 15 min) ..."
      tries=$((tries + 1))
      [ $((tries % 3)) -eq 0 ] && echo "setup: ... still waiting for the package lock ($((tries * 10)) s)"
      sleep 10
      continue
    fi
    cat "$err" >&2
    rm -f "$err"
    return 1
  done
}

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
  echo "setup: [1/3] system packages: ${missing[*]} (about 600 MB with TeX and Coq; a few minutes)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: [1/3] apt-get update"
  with_heartbeat "apt-get update" - apt_wait $SUDO apt-get update -qq
  echo "setup: [1/3] apt-get install"
  with_heartbeat "apt-get install" - apt_wait env DEBIAN_FRONTEND=noninteractive \
    $SUDO apt-get install -y -q "${missing[@]}"
else
  echo "setup: [1/3] system packages: all present"
fi

# 2. Virtual environment.
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: [2/3] creating $VENV"
  "$PY" -m venv "$VENV"
else
  echo "setup: [2/3] $VENV exists"
fi

# 3. The project with every extra (tests cover notebooks, MOSEK-unlicensed and models).
stamp="$VENV/.logitgeom-stamp"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: [3/3] installing logitgeom and its dependencies into $VENV (about 2.4 GB with" \
       "every extra, torch alone 750 MB; 5-10 minutes on a fresh machine, seconds when done)"
  with_heartbeat "pip upgrade" "$VENV" \
    "$VENV/bin/python" -m pip install --progress-bar off --upgrade pip \
    2> >(grep -v -E "is ignored: it is neither" >&2) | pip_lines
  # setuptools' "Editable installation" banner (a BuildBackendWarning about folders that
  # shadow the package) is silenced: the checkout IS the package; other warnings still show.
  # pip prints a line per package it collects, downloads, builds and installs.
  PYTHONWARNINGS="ignore:Editable installation" \
    with_heartbeat "pip install" "$VENV" \
    "$VENV/bin/python" -m pip install --progress-bar off -e ".[dev,notebooks,mosek,models,spacy]" \
    2> >(grep -v -E "is ignored: it is neither a file nor a directory" >&2) | pip_lines
  "$VENV/bin/python" -c "import cdd.gmp" || { echo "setup: cdd.gmp (exact arithmetic) did not import" >&2; exit 1; }
  echo "$want" > "$stamp"
else
  echo "setup: [3/3] $VENV is up to date with pyproject.toml"
fi
echo "setup: ready ($VENV)"
