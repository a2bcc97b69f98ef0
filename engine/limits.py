"""Refusal bounds: estimate the work of a command from the sizes of its input, before any work.

Each estimate is a deterministic function of the input's shape and structure (never of a
clock), meant as an upper bound on the expensive step, in "units" of roughly one exact
rational operation or one permutation step.  A command whose estimate exceeds its limit
stops at once with one line naming the estimate, the limit and the flag that raises it
(``--max-work N``); nothing is computed.

============================  ===================================  =====================
command                       estimate (units)                     default limit
============================  ===================================  =====================
``certify argmax``            k (k - 1) (d + 1): one LP of k - 1   :data:`ARGMAX_LIMIT`
                              rows per label, re-checked exactly
``symmetry gram`` (|G|)       m^2 L^2 g: a stabiliser chain of     :data:`GROUP_LIMIT`
                              base length L <= min(m - 1, log2|G|)
``symmetry detect``           u * sum of s^3 over classes of s     :data:`DETECT_LIMIT`
                              rows with equal values (u distinct
                              columns): the backtracking search
``certify solve``             7 k^2 (k + n) exact Gram products,   :data:`SOLVE_LIMIT`
                              plus (k + n)^4 / 8 for ``--method
                              full`` (the interior-point SDP)
============================  ===================================  =====================

Examples
--------
>>> argmax_work(5000, 3)
99980000
>>> check_work(3, 5, what="a test")
>>> check_work(10, None, 5, what="a test")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
logitgeom.errors.TooLarge: a test: estimated 10 units of work, over the limit of 5; ...
"""

from __future__ import annotations

from collections.abc import Sequence

from logitgeom.errors import InexactResult, InvalidInput, TooLarge

__all__ = ["as_size", "as_flag", "as_executor", "ARGMAX_LIMIT", "GROUP_LIMIT", "DETECT_LIMIT",
           "SOLVE_LIMIT", "check_work",
           "argmax_work", "check_argmax", "group_work", "check_group", "detect_work",
           "check_detect", "solve_work", "check_solve", "GAP_LIMIT", "SCALE_LIMIT",
           "check_gap", "check_scale", "FACTOR_LIMIT", "check_width"]

#: ``certify argmax``: the checker's default budget (every witness is re-checked exactly).
ARGMAX_LIMIT = 20_000_000
#: ``symmetry gram``: about 40 CPU s of sympy's Schreier-Sims (S_100 passes, S_200 does not).
GROUP_LIMIT = 200_000_000
#: ``symmetry detect``: about 30 CPU s of search (about 140 identical rows).
DETECT_LIMIT = 3_000_000
#: ``certify solve``: about 5 CPU minutes of exact Gram products (a 160 x 160 target passes).
SOLVE_LIMIT = 100_000_000
#: a float solve is "optimal" only with a relative duality gap (loss - dual bound) /
#: max(1, |loss|) at most this (the accurate tiers reach 1e-10..1e-8, SCS's loosest 1e-5)
GAP_LIMIT = 1e-4
#: the layer-peeled family's column weights and feature-budget weights lie in
#: [1 / SCALE_LIMIT, SCALE_LIMIT]: beyond it the float program is meaningless (a weight of
#: 1e300 swamps every other column; Clarabel's factorisation panics at 1e-300)
SCALE_LIMIT = 1e9
#: the factors W (m x d) and H (d x n) of a hidden width d hold at most this many entries
#: each (800 MB of floats); a d above min(m, n) only adds zero columns
FACTOR_LIMIT = 100_000_000


def check_work(work: int, limit: int | None, default: int | None = None, *, what: str,
               flag: str = "--max-work", advice: str = "") -> None:
    """Raise :class:`TooLarge` when ``work`` exceeds ``limit`` (``None``: ``default``).

    Parameters
    ----------
    work : int
        The estimate.
    limit : int or None
        The user's limit (``--max-work``); ``None`` means ``default``.
    default : int, optional
        The command's default limit.
    what : str
        What is estimated (starts the message).
    flag : str
        The option that raises the limit.
    advice : str
        An extra sentence (e.g. a command that scales better).

    Raises
    ------
    InvalidInput
        A limit that is not a positive integer.
    TooLarge
        Over the limit.
    """
    lim = default if limit is None else limit
    if isinstance(lim, bool) or not isinstance(lim, int) or lim < 1:
        raise InvalidInput(f"{flag} must be a positive integer; got {lim!r}")
    if work > lim:
        raise TooLarge(f"{what}: estimated {work:,} units of work, over the limit of {lim:,}; "
                       f"refused before any work (pass {flag} {work} to run it anyway"
                       + (f"; {advice}" if advice else "") + ")")


def as_size(value: object, what: str, *, least: int = 0, most: int | None = None,
            allow_none: bool = False) -> int | None:
    """An integer argument (a size, a count, a limit) checked at a public entry point.

    Parameters
    ----------
    value : object
        The argument as given.
    what : str
        Its name in the message.
    least, most : int
        The allowed range (``most=None``: no upper bound).
    allow_none : bool
        Accept ``None`` (returned as is).

    Returns
    -------
    int or None

    Raises
    ------
    InvalidInput
        Not an integer (bools and floats are refused, nothing is rounded), or below ``least``.
    TooLarge
        Above ``most``.

    Examples
    --------
    >>> as_size(3, "k"), as_size(None, "max_regions", allow_none=True)
    (3, None)
    >>> as_size("abc", "max_regions")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: max_regions must be an integer >= 0; got 'abc'
    """
    if value is None and allow_none:
        return None
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidInput(f"{what} must be an integer >= {least}; got {value!r}")
    v = int(value)
    if v < least:
        raise InvalidInput(f"{what} must be an integer >= {least}; got {v}")
    if most is not None and v > most:
        raise TooLarge(f"{what} = {v:,} is above the largest supported value {most:,}")
    return v


def as_flag(value: object, what: str, *, allow_none: bool = False) -> bool | None:
    """A yes/no argument checked at a public entry point: ``True`` or ``False`` (numpy's
    too), or ``None`` when that means "decide for me"; nothing else is read as a truth value.

    Raises
    ------
    InvalidInput
        Any other value, naming the argument.

    Examples
    --------
    >>> as_flag(True, "normalize"), as_flag(None, "progress", allow_none=True)
    (True, None)
    >>> as_flag("no", "normalize")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: normalize must be True or False; got 'no'
    """
    import numpy as np

    if value is None and allow_none:
        return None
    if not isinstance(value, bool | np.bool_):
        raise InvalidInput(f"{what} must be True or False{' (or None)' if allow_none else ''}; "
                           f"got {value!r}"[:200])
    return bool(value)


def as_executor(value: object) -> None:
    """Refuse an ``executor=`` that is not None and has no ``submit`` method (a
    ``concurrent.futures`` executor or a ``dask.distributed`` Client).

    Examples
    --------
    >>> as_executor(None)
    >>> as_executor("a")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: executor must have a submit method (a concurrent.futures \
executor or a dask.distributed Client); got str 'a'
    """
    if value is not None and not callable(getattr(value, "submit", None)):
        raise InvalidInput(f"executor must have a submit method (a concurrent.futures executor "
                           f"or a dask.distributed Client); got {type(value).__name__} "
                           f"{value!r}"[:200])


# --------------------------------------------------------------------- certify argmax
def argmax_work(k: int, d: int) -> int:
    """Units of ``certify argmax`` on a k x d head: k rankings of k - 1 rows in d + 1 unknowns.

    Examples
    --------
    >>> argmax_work(2, 200_000)
    400002
    """
    return k * max(k - 1, 1) * (d + 1)


def check_argmax(W: Sequence[Sequence], limit: int | None = None) -> None:
    """Refuse ``certify argmax`` on a head too large to certify label by label.

    Examples
    --------
    >>> check_argmax([[1, 0], [0, 1]])
    """
    k, d = len(W), len(W[0]) if len(W) else 0
    check_work(argmax_work(k, d), limit, ARGMAX_LIMIT,
               what=f"certify argmax on a {k} x {d} head",
               advice="logitgeom audit-argmax decides large heads label by label, resumably")


# --------------------------------------------------------------------- symmetry gram
def group_work(m: int, gens: Sequence[Sequence[int]]) -> int:
    """Units of computing |G| (a stabiliser chain) for a group of degree ``m``
    (:func:`logitgeom.symmetry.group.order_work`, where the symmetry room gates its own work).

    Examples
    --------
    >>> group_work(200, [list(range(1, 200)) + [0]])  # C_200: one generator, short base
    2560000
    >>> group_work(200, [[1, 0] + list(range(2, 200)), list(range(1, 200)) + [0]]) > 10**9
    True
    """
    from logitgeom.symmetry.group import order_work

    return order_work(m, gens)


def check_group(G, limit: int | None = None, *, what: str = "symmetry gram") -> None:
    """Refuse a group whose order computation is estimated over the limit.

    ``G`` is a :class:`logitgeom.symmetry.GroupAction` (its row action is used).

    Examples
    --------
    >>> from logitgeom.symmetry import parse_group
    >>> check_group(parse_group("S10"))
    """
    gens = G.row_generators
    check_work(group_work(G.m, gens), limit, GROUP_LIMIT,
               what=f"{what} of {G.name or 'a group'} (degree {G.m}, {len(gens)} generators)")


# --------------------------------------------------------------------- symmetry detect
def detect_work(codes) -> int:
    """Units of the symmetry search on an integer code matrix (equal codes = equal values).

    Rows are grouped by the sorted multiset of their values over the distinct columns; a
    class of s interchangeable rows costs about s^3 steps per distinct column.

    Examples
    --------
    >>> import numpy as np
    >>> detect_work(np.zeros((300, 300), dtype=int))
    27000000
    >>> detect_work(np.arange(9).reshape(3, 3))
    9
    """
    import numpy as np

    c = np.asarray(codes)
    u = np.unique(c, axis=1).shape[1]
    key = np.sort(np.unique(c, axis=1), axis=1)
    _, counts = np.unique(key, axis=0, return_counts=True)
    return int(sum(int(s) ** 3 for s in counts.tolist())) * u


def check_detect(Y, *, tol: float = 0.0, limit: int | None = None) -> None:
    """Refuse ``symmetry detect`` on a target whose search is estimated over the limit.

    With ``tol > 0`` values closer than ``tol`` may merge, so every row is counted in one
    class (an upper bound).

    Examples
    --------
    >>> check_detect([[1, 2], [3, 4]])
    """
    from logitgeom.symmetry.values import value_codes

    codes, _ = value_codes(Y)
    m, n = codes.shape
    work = m ** 3 * n if tol and tol > 0 else detect_work(codes)
    check_work(work, limit, DETECT_LIMIT, what=f"symmetry detect on a {m} x {n} target")


# --------------------------------------------------------------------- certify solve
def solve_work(k: int, n: int, method: str = "auto") -> int:
    """Units of ``certify solve`` on a k x n target.

    Examples
    --------
    >>> solve_work(400, 400)
    896000000
    """
    work = 7 * k * k * (k + n)
    if str(method).lower() == "full":
        work += (k + n) ** 4 // 8
    return work


def check_solve(Y, method: str = "auto", limit: int | None = None) -> None:
    """Refuse ``certify solve`` on a target estimated over the limit.

    Examples
    --------
    >>> check_solve([[1, 0], [0, 1]])
    """
    k, n = len(Y), len(Y[0]) if len(Y) else 0
    check_work(solve_work(k, n, method), limit, SOLVE_LIMIT,
               what=f"certify solve on a {k} x {n} target (method {method})")


def check_gap(loss: float, dual_bound: float, *, what: str) -> float:
    """The relative duality gap of a float solve, or :class:`InexactResult` when it exceeds
    :data:`GAP_LIMIT` (or is not a number): such a point is not "optimal".

    Examples
    --------
    >>> check_gap(1.0, 1.0 - 1e-9, what="a test") < GAP_LIMIT
    True
    >>> check_gap(2.0, -5.0, what="a test")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InexactResult: a test: relative duality gap 3.5 exceeds ...
    """
    gap = abs(loss - dual_bound) / max(1.0, abs(loss))
    if not gap <= GAP_LIMIT:  # also nan
        raise InexactResult(f"{what}: relative duality gap {gap:.3g} exceeds {GAP_LIMIT:g} "
                            f"(GAP_LIMIT, engine/limits.py; loss {loss:.6g}, dual bound "
                            f"{dual_bound:.6g}): the solver's point is not optimal; rescale the "
                            "input or try another solver")
    return gap


def check_scale(values: Sequence, *, what: str) -> None:
    """Refuse (:class:`InvalidInput`) a weight outside [1 / SCALE_LIMIT, SCALE_LIMIT].

    Examples
    --------
    >>> check_scale([1, 2, 3], what="weights")
    >>> check_scale([1e300, 1, 1], what="weights")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: weights[0] = 1e+300 is outside [1e-09, 1e+09] ...
    """
    from fractions import Fraction

    lo, hi = 1 / SCALE_LIMIT, SCALE_LIMIT
    for j, v in enumerate(values):
        q = Fraction(v)  # exact: a Fraction beyond the float range compares without overflow
        if not Fraction(lo) <= q <= Fraction(hi):
            shown = f"{float(v):.6g}" if abs(q.numerator).bit_length() < 1000 \
                and q.denominator.bit_length() < 1000 else "a number"
            raise InvalidInput(f"{what}[{j}] = {shown} is outside [{lo:g}, {hi:g}] "
                               "(SCALE_LIMIT, engine/limits.py; docs/limits.md): at that scale "
                               "a float solve is meaningless; rescale the weights")


def check_width(d: int, m: int, n: int) -> None:
    """Refuse (:class:`TooLarge`) a hidden width d whose factors W (m x d) or H (d x n) would
    hold more than :data:`FACTOR_LIMIT` entries.

    Examples
    --------
    >>> check_width(3, 3, 3)
    >>> check_width(10**20, 3, 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.TooLarge: hidden width d = 100000000000000000000: W (3 x d) and H ...
    """
    if max(m, n) * d > FACTOR_LIMIT:
        raise TooLarge(f"hidden width d = {d}: W ({m} x d) and H (d x {n}) would hold "
                       f"{max(m, n) * d:,} entries, over {FACTOR_LIMIT:,} (FACTOR_LIMIT, "
                       f"engine/limits.py); a d above min(m, n) = {min(m, n)} changes nothing "
                       "(the factors only get zero columns)")
