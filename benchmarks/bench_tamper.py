"""One digit of a never-proof changed in an audit's output: does the stdlib checker refuse it?

Issue 44's acceptance asks that "tampering with one digit of a never-proof at d = 4,096 is
rejected".  This script takes the output folder of an audit (``audit.json`` and its
``shards/``; ``bench_audit_vocab.py`` writes one under its ``--cache``), copies it, and in
the copy changes the last digit of the first multiplier of the largest never-proof (in its
first part file when the proof is split, else inline in its shard record).  Two checks
follow, each by ``python -m logitgeom_certificates.check_audit --labels K`` in a process of
its own:

1. the digit changed and nothing else: the file hashes no longer match;
2. every hash made consistent again (the part file's in the shard record, the shard's in
   ``audit.json``): only the arithmetic can refuse the proof now.

Both must be refused.  ``--untampered`` first checks the copy as written (it must pass).
Prints one line per check: accepted or not, the checker's last line, its CPU seconds and
peak RSS.

Usage::

    python benchmarks/bench_tamper.py --out DIR [--untampered] [--keep]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit_vocab import proof_stats, stdlib_check  # noqa: E402


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _other_digit(text: str) -> str:
    """``text`` (a decimal integer) with its last digit changed."""
    last = text[-1]
    return text[:-1] + ("1" if last != "1" else "2")


def _records(shard: Path) -> list[dict]:
    return [json.loads(line) for line in shard.read_text().splitlines() if line.strip()]


def _write_records(shard: Path, recs: list[dict]) -> None:
    shard.write_text("".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n"
                             for r in recs))


def tamper(out: Path, label: int) -> tuple[Path, str]:
    """Change one digit of ``label``'s never-proof in the folder ``out`` (in place); return
    the shard holding its record and where the digit was (a part file or ``inline``)."""
    for shard in sorted((out / "shards").glob("block-*.jsonl")):
        recs = _records(shard)
        for rec in recs:
            if int(rec["label"]) != label:
                continue
            for dom, e in rec.items():
                if dom == "label" or not isinstance(e, dict) or e.get("verdict") != "never":
                    continue
                mult = e["multipliers"]
                if isinstance(mult, list):
                    mult[0] = _other_digit(mult[0])
                    _write_records(shard, recs)
                    return shard, "inline"
                part = out / mult["parts"][0]["file"]
                texts = json.loads(part.read_text())
                texts[0] = _other_digit(texts[0])
                part.write_text(json.dumps(texts, separators=(",", ":")) + "\n")
                return shard, str(part.relative_to(out))
    raise SystemExit(f"label {label} has no never-proof in {out}")


def rehash(out: Path, shard: Path) -> None:
    """Make every hash of ``out`` consistent with the files again: the part files' in the
    shard's records, then the shards' in ``audit.json``."""
    recs = _records(shard)

    def fix(obj) -> None:
        if isinstance(obj, dict):
            if isinstance(obj.get("file"), str) and "sha256" in obj:
                obj["sha256"] = _sha(out / obj["file"])
            for v in obj.values():
                fix(v)
        elif isinstance(obj, list):
            for v in obj:
                fix(v)

    fix(recs)
    _write_records(shard, recs)
    cert = json.loads((out / "audit.json").read_text())
    for ref in cert["shards"]:
        ref["sha256"] = _sha(out / ref["file"])
    (out / "audit.json").write_text(json.dumps(cert))


def _report(what: str, res: tuple[bool, str, float, float]) -> None:
    ok, line, cpu, rss = res
    print(f"{what}: {'accepted' if ok else 'refused'} in {cpu:.1f} CPU s, "
          f"peak {rss:.0f} MB: {line}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="an audit's output folder (required)")
    ap.add_argument("--untampered", action="store_true", help="check the copy first")
    ap.add_argument("--keep", action="store_true", help="keep the tampered copy")
    args = ap.parse_args(argv)
    if args.out is None:  # checked here, so that an unknown option is the error it names
        ap.error("--out DIR is required: an audit's output folder")
    stats = proof_stats(args.out)
    if not stats:
        raise SystemExit(f"{args.out} holds no never-proof")
    label = max(sorted(stats), key=lambda k: stats[k]["bytes"])
    s = stats[label]
    print(f"label {label}: a never-proof of {s['bytes']:,} bytes, {s['rows']} rows, "
          f"{s['digits']:,}-digit multipliers (stage {s['stage']})", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="tamper-"))
    try:
        copy = tmp / "out"
        shutil.copytree(args.out, copy)
        if args.untampered:
            _report("as written", stdlib_check(copy, labels=[label]))
        shard, where = tamper(copy, label)
        print(f"changed the last digit of the first multiplier ({where})", flush=True)
        first = stdlib_check(copy, labels=[label])
        _report("one digit changed", first)
        rehash(copy, shard)
        second = stdlib_check(copy, labels=[label])
        _report("hashes made consistent", second)
        return 0 if not first[0] and not second[0] else 1
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
