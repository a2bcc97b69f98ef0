"""Constructors of symmetric targets: cyclic orbits, group orbits, multi-block Y.

A permutation ``g`` (``g[i]`` = image of label i) acts by ``(g o y)[g[i]] = y[i]``
(docs/layer-peeled.md, section 4).  Entries given as ``Fraction``/``"p/q"`` stay exact with
``exact=True`` (an object array of ``Fraction``); otherwise a float64 array.

Examples
--------
>>> cyclic_orbit([0.5, 0.3, 0.2]).tolist()
[[0.5, 0.2, 0.3], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]
>>> group_orbit(["1/2", "1/2", 0], symmetric_group(3), exact=True)[:, 1].tolist()
[Fraction(1, 2), Fraction(0, 1), Fraction(1, 2)]
>>> concat_blocks(cyclic_orbit([1, 0]), cyclic_orbit([0.5, 0.5])).shape
(2, 4)
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from engine.errors import InvalidInput
from engine.exact.numbers import to_vector

__all__ = ["cyclic_orbit", "group_orbit", "concat_blocks", "symmetric_group", "affine_group",
           "cyclic_group"]


def _vec(y: Any, exact: bool) -> np.ndarray:
    v = to_vector(y, what="y")
    if not v:
        raise InvalidInput("y is empty")
    if exact:
        out = np.empty(len(v), dtype=object)
        out[:] = list(v)
        return out
    return np.array([float(q) for q in v], dtype=float)


def cyclic_orbit(y: Any, *, exact: bool = False) -> np.ndarray:
    """``circ(y) = [y, P y, ..., P^{m-1} y]`` with ``(P y)_i = y_{i-1 mod m}``.

    Parameters
    ----------
    y : sequence of numbers
    exact : bool
        Return an object array of ``Fraction`` instead of float64.

    Returns
    -------
    numpy.ndarray
        m x m.

    Examples
    --------
    >>> cyclic_orbit([1, 0, 0]).astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    """
    v = _vec(y, exact)
    return np.stack([np.roll(v, j) for j in range(v.size)], axis=1)


def _perms(group: Any, m: int) -> list[tuple[int, ...]]:
    if hasattr(group, "generate") and hasattr(group, "degree"):
        if group.degree != m:
            raise InvalidInput(f"group acts on {group.degree} points but y has {m} entries")
        perms = sorted(tuple(int(x) for x in g.array_form) for g in group.generate())
    else:
        perms = [tuple(int(x) for x in g) for g in group]
    if not perms:
        raise InvalidInput("group has no elements")
    for k, g in enumerate(perms):
        if sorted(g) != list(range(m)):
            raise InvalidInput(f"group element {k} = {list(g)} is not a permutation of "
                               f"0..{m - 1}")
    if len(set(perms)) != len(perms):
        raise InvalidInput("group lists an element twice; give each element once")
    return perms


def group_orbit(y: Any, group: Any, *, exact: bool = False) -> np.ndarray:
    """``[g o y : g in group]``, one column per element, in the order given.

    Parameters
    ----------
    y : sequence of numbers
    group : sympy PermutationGroup or sequence of permutations
        All elements of the group (a sympy group is enumerated, sorted).
    exact : bool

    Returns
    -------
    numpy.ndarray
        m x |group|.

    Raises
    ------
    InvalidInput
        An element that is not a permutation of ``range(m)``, a repeated element.

    Examples
    --------
    >>> group_orbit([0.7, 0.2, 0.1], cyclic_group(3)).tolist()[0]
    [0.7, 0.1, 0.2]
    """
    v = _vec(y, exact)
    cols = []
    for g in _perms(group, v.size):
        c = np.empty_like(v)
        c[list(g)] = v
        cols.append(c)
    return np.stack(cols, axis=1)


def concat_blocks(*blocks: Any) -> np.ndarray:
    """Side-by-side concatenation ``[Y_1 | ... | Y_b]`` (multi-block targets).

    Raises
    ------
    InvalidInput
        Blocks with different numbers of rows.

    Examples
    --------
    >>> concat_blocks(np.eye(2), np.eye(3))
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: block 1 has 3 rows but block 0 has 2
    """
    if len(blocks) == 1 and isinstance(blocks[0], list | tuple):
        blocks = tuple(blocks[0])
    if not blocks:
        raise InvalidInput("concat_blocks needs at least one block")
    arrs = [np.asarray(b) for b in blocks]
    for i, a in enumerate(arrs):
        if a.ndim != 2 or a.shape[0] != arrs[0].shape[0]:
            raise InvalidInput(f"block {i} has {a.shape[0] if a.ndim else 0} rows but block 0 "
                               f"has {arrs[0].shape[0]}")
    return np.concatenate(arrs, axis=1)


def symmetric_group(m: int) -> list[tuple[int, ...]]:
    """All m! permutations of ``range(m)`` in lexicographic order.

    Examples
    --------
    >>> len(symmetric_group(4))
    24
    """
    return list(itertools.permutations(range(m)))


def cyclic_group(m: int) -> list[tuple[int, ...]]:
    """The m rotations ``i -> i + j mod m`` (j = 0..m-1)."""
    return [tuple((i + j) % m for i in range(m)) for j in range(m)]


def affine_group(p: int) -> list[tuple[int, ...]]:
    """AGL(1, p): ``x -> a x + b mod p`` for a != 0 (2-transitive; order p (p - 1)).

    Examples
    --------
    >>> len(affine_group(5))
    20
    """
    if p < 2 or any(p % q == 0 for q in range(2, int(p ** 0.5) + 1)):
        raise InvalidInput(f"affine_group needs a prime p; got {p}")
    return [tuple((a * x + b) % p for x in range(p)) for a in range(1, p) for b in range(p)]


