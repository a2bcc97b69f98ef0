"""The argmax audit's shard files: block entries of the resume state, never-proofs of any
size split over hashed part files, and never entries on a shared support written as a
reference to the earlier entry that lists its rows (certificates/SPEC.md section 9;
docs/argmax-audit.md section 5).

Examples
--------
>>> block_files("block-000000.jsonl", "ab")
[('block-000000.jsonl', 'ab')]
>>> recs = [{"label": k, "all": {"verdict": "never", "rows": [0, 1, 2],
...          "multipliers": ["1", "1", "1"]}} for k in (3, 4)]
>>> shared = share_rows(recs)
>>> shared[1]["all"]["rows"]
{'as': 3}
>>> expand_rows(shared) == recs
True
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from logitgeom._fsio import write_atomic

__all__ = ["PROOF_PART_BYTES", "split_proofs", "read_block", "block_files", "split_lines",
           "share_rows", "expand_rows"]


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


def _nevers(rec: dict):
    """(domain, entry) of a record's never entries."""
    return [(dom, e) for dom, e in rec.items()
            if dom != "label" and isinstance(e, dict) and e.get("verdict") == "never"]


def share_rows(recs: list[dict]) -> list[dict]:
    """The records (in label order) with each never entry whose rows list equals that of the
    most recent never entry of its domain that lists its rows written ``{"as": label}`` (the
    same proof, its support written once: certificates/SPEC.md section 9).  Records given
    with references are read as their lists first, so the result depends only on the
    proofs; the input is not changed."""
    last: dict[str, tuple[int, list]] = {}
    out = []
    for rec in expand_rows([{**r, **{dom: dict(e) for dom, e in _nevers(r)}} for r in recs]):
        for dom, e in _nevers(rec):
            if dom in last and last[dom][1] == e["rows"]:
                e["rows"] = {"as": last[dom][0]}
            else:
                last[dom] = (rec["label"], e["rows"])
        out.append(rec)
    return out


def expand_rows(recs: list[dict]) -> list[dict]:
    """The records with every rows reference ``{"as": label}`` replaced, in place, by (a
    copy of) the rows list of that label's never entry in the same domain: the form every
    reader of records in the engine sees (reports, resume, the Coq export)."""
    lists: dict[str, dict[int, list]] = {}
    for rec in recs:
        for dom, e in _nevers(rec):
            rows = e.get("rows")
            if isinstance(rows, dict):
                e["rows"] = list(lists.get(dom, {})[rows["as"]])
            else:
                lists.setdefault(dom, {})[rec["label"]] = rows
    return recs


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
    return expand_rows(records)


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
