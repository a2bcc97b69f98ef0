"""Print the checker's verdict on every certificate file and on a seeded mutation battery.

A refactoring of the trusted checker must not change a verdict: run this with the checker
of two commits and diff the outputs (issue 42)::

    git archive BASE certificates | tar -x -C /tmp/old   # then rename to the package name
    mv /tmp/old/certificates /tmp/old/logitgeom_certificates
    python scripts/verdict_table.py --checker /tmp/old > old.txt
    python scripts/verdict_table.py > new.txt
    diff old.txt new.txt

One line per file (``path ok kind failed_check location``) for ``certificates/paper``,
``certificates/examples`` and any folders given with ``--extra`` (e.g. a pytest
``--basetemp``), then one line per mutated certificate (the fuzz battery's mutation,
``scripts/fuzz_battery.py``) with its verdict.  ``--checker DIR``: import
``logitgeom_certificates`` from DIR (a folder holding that package) instead of the
installed one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checker", help="folder holding the logitgeom_certificates package")
    ap.add_argument("--extra", nargs="*", default=[], help="more folders of *.json files")
    ap.add_argument("--mutations", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.checker:
        sys.path.insert(0, os.path.abspath(args.checker))
    from logitgeom_certificates.api import check, check_file  # the public entry points

    sys.path.insert(0, str(ROOT / "scripts"))
    from fuzz_battery import _mutate

    files = sorted((ROOT / "certificates" / "paper").rglob("*.json"))
    files += sorted((ROOT / "certificates" / "examples").rglob("*.json"))
    for extra in args.extra:
        files += sorted(Path(extra).rglob("*.json"))
    for p in files:
        v = check_file(str(p))
        print(p, v.ok, v.kind, v.failed_check, v.location)
    rng = random.Random(args.seed)
    ex = sorted((ROOT / "certificates" / "examples").glob("valid-*.json"))
    ex += sorted((ROOT / "certificates" / "paper").glob("*.json"))
    small = [json.loads(p.read_text()) for p in ex]
    small = [o for o in small if len(json.dumps(o)) < 20_000]
    os.chdir(ROOT / "certificates" / "examples")  # the examples' relative references
    for n in range(args.mutations):
        v = check(_mutate(rng.choice(small), rng))
        print("mutation", n, v.ok, v.kind, v.failed_check, v.location)
    return 0


if __name__ == "__main__":
    sys.exit(main())
