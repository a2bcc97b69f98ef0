"""Constructors of symmetric targets: cyclic orbits, group orbits, multi-block Y.

The groups themselves come from :mod:`logitgeom.symmetry` (``symmetric``, ``cyclic``,
``affine_line``, ...: one name each).

A permutation ``g`` (``g[i]`` = image of label i) acts by ``(g o y)[g[i]] = y[i]``
(docs/layer-peeled.md, section 4).  Entries given as ``Fraction``/``"p/q"`` stay exact with
``exact=True`` (an object array of ``Fraction``); otherwise a float64 array.

Examples
--------
>>> cyclic_orbit([0.5, 0.3, 0.2]).tolist()
[[0.5, 0.2, 0.3], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]
>>> from logitgeom.symmetry import symmetric
>>> group_orbit(["1/2", "1/2", 0], symmetric(3), exact=True)[:, 1].tolist()
[Fraction(1, 2), Fraction(0, 1), Fraction(1, 2)]
>>> concat_blocks(cyclic_orbit([1, 0]), cyclic_orbit([0.5, 0.5])).shape
(2, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import to_vector

__all__ = ["cyclic_orbit", "group_orbit", "concat_blocks"]


def _vec(y: Any, exact: bool) -> np.ndarray:
    from logitgeom.limits import as_flag

    exact = as_flag(exact, "exact")  # type: ignore[assignment]
    v = to_vector(y, what="y")
    if not v:
        raise InvalidInput("y is empty")
    if exact:
        out = np.empty(len(v), dtype=object)
        out[:] = list(v)
        return out
    try:
        return np.array([float(q) for q in v], dtype=float)
    except OverflowError:
        raise InvalidInput("y has an entry beyond the float range (|x| > 1.8e308); pass "
                           "exact=True to keep it exact") from None


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

    Raises
    ------
    InvalidInput
        y is not a sequence of numbers.

    Examples
    --------
    >>> cyclic_orbit([1, 0, 0]).astype(int).tolist()
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    """
    v = _vec(y, exact)
    return np.stack([np.roll(v, j) for j in range(v.size)], axis=1)


def group_orbit(y: Any, group: Any, *, exact: bool = False) -> np.ndarray:
    """``[g o y : g in G]``, one column per element of the group G (sorted array forms).

    Parameters
    ----------
    y : sequence of numbers
    group : any spelling :func:`logitgeom.symmetry.as_group` accepts
        A GroupAction (e.g. ``logitgeom.symmetry.symmetric(3)``), a sympy PermutationGroup, a spec
        string, or a list of generators (all elements also work: they generate it).
    exact : bool

    Returns
    -------
    numpy.ndarray
        m x |G|; column k is ``g_k o y`` for the k-th element in lexicographic order of
        array forms (column 0: the identity).

    Raises
    ------
    InvalidInput
        A group that is not on ``len(y)`` labels or not a group spelling.

    Examples
    --------
    >>> from logitgeom.symmetry import cyclic
    >>> group_orbit([0.7, 0.2, 0.1], cyclic(3)).tolist()[0]
    [0.7, 0.1, 0.2]
    """
    from logitgeom.symmetry.constructors import as_group

    v = _vec(y, exact)
    G = as_group(group, m=v.size)
    if G.n != 0:
        raise InvalidInput(f"group acts on {G.n} columns already; give the group on the labels")
    els = G.row_elements()
    out = np.empty((v.size, len(els)), dtype=v.dtype)
    out[els, np.arange(len(els))[:, None]] = v[None, :]
    return out


def concat_blocks(*blocks: Any) -> np.ndarray:
    """Side-by-side concatenation ``[Y_1 | ... | Y_b]`` (multi-block targets).

    Raises
    ------
    InvalidInput
        No block, a block that is not a 2-D matrix, or blocks with different numbers of
        rows.

    Parameters
    ----------
    *blocks : 2-D arrays
        The blocks (or one list of them), with equal numbers of rows.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> concat_blocks(np.eye(2), np.eye(3))
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: block 1 has 3 rows but block 0 has 2
    """
    if len(blocks) == 1 and isinstance(blocks[0], list | tuple):
        blocks = tuple(blocks[0])
    if not blocks:
        raise InvalidInput("concat_blocks needs at least one block")
    arrs = [np.asarray(b) for b in blocks]
    for i, a in enumerate(arrs):
        if a.ndim != 2:
            raise InvalidInput(f"block {i} must be a 2-D matrix; got shape {a.shape}")
        if a.shape[0] != arrs[0].shape[0]:
            raise InvalidInput(f"block {i} has {a.shape[0] if a.ndim else 0} rows but block 0 "
                               f"has {arrs[0].shape[0]}")
    return np.concatenate(arrs, axis=1)
