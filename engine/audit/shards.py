"""The argmax audit's shard files: block entries of the resume state, and never-proofs of any
size split over hashed part files (certificates/SPEC.md section 9; docs/argmax-audit.md
section 5).

Examples
--------
>>> block_files("block-000000.jsonl", "ab")
[('block-000000.jsonl', 'ab')]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from logitgeom._fsio import write_atomic

__all__ = ["PROOF_PART_BYTES", "split_proofs", "read_block", "block_files", "split_lines"]


#: A never-proof whose multipliers pass this many bytes of text is written to proof part
#: files of at most about this size (``shards/proof-LLLLLLLL-DOM-PPPP.json``, each a JSON
#: list of multiplier texts, referenced by hash from its record: certificates/SPEC.md
#: section 9), so no proof is too large for the checker's 64 MiB per file.
PROOF_PART_BYTES = 16 * 1024 * 1024


def split_proofs(rec: dict, shards: Path, limit: int) -> tuple[dict, list[list[str]]]:
    """The record with each long never-proof's multipliers moved to part files of at most
    ``limit`` bytes (a longer single number alone in its part), and the [file, sha256] of
    the parts written (file relative to the output folder)."""
    out, written = dict(rec), []
    for dom, e in rec.items():
        if dom == "label" or e.get("verdict") != "never" or \
                not isinstance(e.get("multipliers"), list) or \
                sum(len(t) + 3 for t in e["multipliers"]) <= limit:
            continue
        chunks: list[list[str]] = [[]]
        size = 0
        for t in e["multipliers"]:
            if chunks[-1] and size + len(t) + 3 > limit:
                chunks.append([])
                size = 0
            chunks[-1].append(t)
            size += len(t) + 3
        refs = []
        for i, ch in enumerate(chunks):
            name = f"proof-{rec['label']:08d}-{dom}-{i:04d}.json"
            data = (json.dumps(ch, separators=(",", ":")) + "\n").encode()
            write_atomic(shards / name, data)
            refs.append({"file": f"shards/{name}", "sha256": hashlib.sha256(data).hexdigest()})
            written.append([f"shards/{name}", refs[-1]["sha256"]])
        out[dom] = {**e, "multipliers": {"parts": refs}}
    return out, written


def block_files(name: str, entry) -> list[tuple[str, str]]:
    """(file, sha256) of a finished block's shard parts, from its ``run.json`` entry."""
    if isinstance(entry, str):
        return [(name, entry)]
    return [(str(f), str(h)) for f, h in entry]


def read_block(out_dir: Path, name: str, entry) -> list[dict]:
    """The records of a finished block, from its shard parts."""
    records: list[dict] = []
    for f, _h in block_files(name, entry):
        text = (out_dir / "shards" / f).read_text()
        records.extend(json.loads(line) for line in text.splitlines() if line)
    return records


def split_lines(lines: list[str], limit: int) -> list[bytes]:
    """The lines, encoded, grouped in order into chunks of at most ``limit`` bytes (a line
    longer than ``limit`` alone in its chunk); always at least one chunk."""
    out: list[bytes] = []
    cur: list[bytes] = []
    size = 0
    for line in lines:
        data = line.encode()
        if cur and size + len(data) > limit:
            out.append(b"".join(cur))
            cur, size = [], 0
        cur.append(data)
        size += len(data)
    out.append(b"".join(cur))
    return out
