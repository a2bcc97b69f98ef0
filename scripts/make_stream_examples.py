"""Regenerate the pattern-complete-stream examples (certificates/SPEC.md section 10).

    .venv/bin/python scripts/make_stream_examples.py

Writes certificates/examples/valid-pattern-complete-stream.json, invalid-shard.json,
invalid-order.json and their shard files in certificates/examples/pattern-stream/.
Deterministic: the same files on every run.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from logitgeom.emit import dumps, stream_certificate
from logitgeom.geometry import enumerate_to_dir

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "certificates" / "examples"
DIR = EX / "pattern-stream"
W = [[1, 0], [0, 1], [1, 1]]


def _write(name: str, lines: list[dict]) -> dict:
    path = DIR / name
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                mtime=0) as gz:
        for r in lines:
            gz.write((json.dumps(r, separators=(",", ":")) + "\n").encode())
    return {"file": f"pattern-stream/{name}",
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "rows": len(lines)}


def _lines(name: str) -> list[dict]:
    with gzip.open(DIR / name, "rt") as fh:
        return [json.loads(line) for line in fh]


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    try:
        enumerate_to_dir(W, tmp / "R", progress=False)
        if DIR.exists():
            shutil.rmtree(DIR)
        cert = stream_certificate(tmp / "R", EX / "cert.json", twin=DIR, buckets=2,
                                  statement="S(W) is complete (streamed shards)")
    finally:
        shutil.rmtree(tmp)
    (EX / "valid-pattern-complete-stream.json").write_text(dumps(cert))
    a, b = _lines("part-00000.jsonl.gz"), _lines("part-00001.jsonl.gz")
    bad = json.loads(json.dumps(cert))  # one line moved from shard 0 to shard 1
    bad["shards"] = [_write("bad-shard-00000.jsonl.gz", a[1:]),
                     _write("bad-shard-00001.jsonl.gz",
                            sorted(b + a[:1], key=lambda r: tuple(r["pattern"])))]
    (EX / "invalid-shard.json").write_text(dumps(bad))
    bad = json.loads(json.dumps(cert))  # shard 0 in reverse order
    bad["shards"][0] = _write("bad-order-00000.jsonl.gz", a[::-1])
    (EX / "invalid-order.json").write_text(dumps(bad))


if __name__ == "__main__":
    main()
