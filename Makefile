# The two commands of the README are `make demo` and `make test`.
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test test-fast lint bench-readme

setup:
	@bash scripts/setup.sh

demo: setup
	$(BIN)/logitgeom --version
	$(BIN)/logitgeom reproduce
	$(BIN)/python notebooks/build.py --execute reproduction/notebooks

# the lint (ruff, mypy) first, then every test
test: lint
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test-fast: setup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not slow"

lint: setup
	$(BIN)/python -m ruff check .
	@bash scripts/typing-links.sh
	MYPYPATH=build/typing $(BIN)/python -m mypy -p logitgeom.exact -p logitgeom.certify -p logitgeom.audit
	MYPYPATH=build/typing $(BIN)/python -m mypy --strict -p logitgeom_certificates
	MYPYPATH=build/typing $(BIN)/python -m mypy --strict -p logitgeom.exact

# Re-measure the enumeration and certification figures README.md and docs/ quote (CPU s)
bench-readme: setup
	$(BIN)/python benchmarks/bench_readme.py
