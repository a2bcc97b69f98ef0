"""The batch formatting of twin shard lines (engine/geometry/stream/twin.py) gives the bytes
of the row-by-row formatting, and its sort keys order lines as the patterns' integer
tuples."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from logitgeom.geometry.stream.twin import twin_line, twin_lines


@pytest.mark.parametrize("seed", range(6))
def test_batch_lines_equal_row_by_row_lines(seed):
    rng = np.random.default_rng(seed)
    n, k, d = int(rng.integers(0, 40)), int(rng.integers(0, 15)), int(rng.integers(1, 6))
    signs = seed % 3 != 2
    if signs:
        pats = rng.integers(-1, 2, (n, k)).astype(np.int8)
    else:
        pats = np.array([rng.permutation(k) for _ in range(n)], dtype=np.int64).reshape(n, k)
    affine = seed % 2 == 0
    X = rng.integers(-10 ** 12, 10 ** 12, (n, d + affine))
    if affine:
        X[:, 0] = rng.integers(1, 10 ** 6, n)
        X[: n // 3, 1:] *= X[: n // 3, :1]  # integral coordinates: "p" without "/q"
    big = X.astype(object)
    if n:
        big[0, -1] = 3 ** 90  # beyond 64 bits: the row-by-row path
    for arr in (X, big):
        keys, lines, shards = twin_lines(pats, arr, affine=affine, buckets=5, signs=signs)
        want = [twin_line(p, x, affine) for p, x in zip(pats.tolist(), arr.tolist(),
                                                        strict=True)]
        assert lines == want
        assert shards == [zlib.crc32(("[" + ",".join(map(str, p)) + "]").encode()) % 5
                          for p in pats.tolist()]
        order = sorted(range(n), key=keys.__getitem__)
        assert [tuple(pats[i].tolist()) for i in order] == sorted(map(tuple, pats.tolist()))


def test_twin_lines_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="2 patterns but 1 witnesses"):
        twin_lines(np.zeros((2, 1), np.int8), np.ones((1, 1), np.int64), affine=False,
                   buckets=1)


def test_sort_keys_of_sign_vectors_with_zeros():
    r = random.Random(3)
    pats = np.array([[r.choice((-1, 0, 1)) for _ in range(9)] for _ in range(200)], np.int8)
    keys, _, _ = twin_lines(pats, np.ones((200, 2), np.int64), affine=False, buckets=1)
    assert sorted(map(tuple, pats.tolist())) == [tuple(pats[i].tolist())
                                                 for i in sorted(range(200), key=keys.__getitem__)]
