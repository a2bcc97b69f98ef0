"""Benchmark of logitgeom.models on a synthetic LLM-sized head (no network, no real weights).

Writes a bf16 ``lm_head.weight`` of VOCAB x D (default 131072 x 2048, 512 MiB, like a
7B-class model's head) into a temp folder as two safetensors shards with an index, then
times: listing tensors, reading the 7 weekday rows (memory-mapped: only those rows are
touched), the delta diagnostics, the cosine audit with its certificate (exact rationals
in d = D dimensions, checked by the trusted checker), and the exact projection to 3
dimensions (plus the ranking enumeration when logitgeom.geometry.patterns is available).

Run:  .venv/bin/python benchmarks/bench_models.py [--vocab 131072] [--d 2048]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _write_bf16_shard(path: Path, name: str, bits: np.ndarray) -> None:
    header = {name: {"dtype": "BF16", "shape": list(bits.shape),
                     "data_offsets": [0, bits.nbytes]}}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with path.open("wb") as fh:
        fh.write(len(h).to_bytes(8, "little"))
        fh.write(h)
        bits.tofile(fh)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=131072)
    ap.add_argument("--d", type=int, default=2048)
    ap.add_argument("--dim", type=int, default=3)
    args = ap.parse_args()

    from logitgeom.models import cosine_audit, diagnose, list_tensors, load_lm_head

    tmp = Path(tempfile.mkdtemp(prefix="bench-models-"))
    try:
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        bits = np.empty((args.vocab, args.d), dtype=np.uint16)
        for s in range(0, args.vocab, 8192):
            bits[s:s + 8192] = _bf16_bits(0.02 * rng.standard_normal(
                (min(8192, args.vocab - s), args.d), dtype=np.float32))
        _write_bf16_shard(tmp / "model-00002-of-00002.safetensors", "lm_head.weight", bits)
        _write_bf16_shard(tmp / "model-00001-of-00002.safetensors", "model.norm.weight",
                          _bf16_bits(np.ones(args.d)))
        (tmp / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
            "lm_head.weight": "model-00002-of-00002.safetensors",
            "model.norm.weight": "model-00001-of-00002.safetensors"}}))
        del bits
        print(f"setup: wrote {args.vocab} x {args.d} bf16 head "
              f"({args.vocab * args.d * 2 / 2**20:.0f} MiB) in {time.perf_counter() - t:.2f} s")

        ids = [int(i) for i in rng.choice(args.vocab, 7, replace=False)]
        rows = {}
        for label, fn in [
            ("list_tensors (sharded folder)", lambda: list_tensors(tmp)),
            ("load 7 rows (memory-mapped)", lambda: rows.setdefault("h", load_lm_head(tmp,
                                                                                  rows=ids))),
            ("diagnose (delta_ETF, delta_circ)", lambda: diagnose(rows["h"].weight)),
            ("cosine audit + certificate check", lambda: cosine_audit(rows["h"].weight)),
        ]:
            t, c = time.perf_counter(), time.process_time()
            out = fn()
            print(f"{label:38s} {time.perf_counter() - t:8.3f} s wall "
                  f"{time.process_time() - c:8.3f} s CPU")
        assert out.verified
        t, c = time.perf_counter(), time.process_time()
        try:
            a = cosine_audit(rows["h"].weight, dim=args.dim, progress=False)
            print(f"{'audit with exact projection, dim=' + str(args.dim):38s} "
                  f"{time.perf_counter() - t:8.3f} s wall {time.process_time() - c:8.3f} s CPU"
                  f"  ({len(a.projection.rankings)} rankings, "
                  f"{sum(a.projection.argmaxable)}/7 argmaxable)")
        except NotImplementedError:
            print("ranking enumeration: logitgeom.geometry.patterns not available yet")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
