#!/usr/bin/env bash
# mypy reads packages from folders named as they are imported; the checkout's engine/ and
# certificates/ install as logitgeom and logitgeom_certificates (pyproject's package-dir),
# which mypy cannot see through the editable install's import hook. build/typing/ holds two
# links under the import names (made fresh each time; nothing in it is committed).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/typing
ln -sfn ../../engine build/typing/logitgeom
ln -sfn ../../certificates build/typing/logitgeom_certificates
