"""The composite-group examples of the symmetry paper App. F (targets of docs/symmetry.md).

Readings chosen where the extracted text is ambiguous (each target sums to exactly 1):

* direct sum S2 x S3 x S2: ``y = [1/16, 1/3 | 1/4, 3/16, 0 | 1/8, 1/24]`` as printed;
* direct sum S2 x S3: no target is printed; we use the first two blocks of the previous
  one renormalised to sum 1, ``[3/40, 2/5 | 3/10, 9/40, 0]``;
* direct product S2 x S3: the printed ``P = [[1/12, 1/6, 1/10], [2/12, 1/12, 4/10]]`` read
  row by row as a 2 x 3 matrix; S2 permutes its rows, S3 its columns; ``y = vec(P)``
  stacks columns (label of P[i, j] is ``i + 2 j``);
* direct product S3 x S2: the transpose ``P^T`` (3 x 2) of the same matrix, so both
  readings of the printed numbers are covered;
* direct product S3 x S3: ``P = [[0, 1/18, 1/12], [1/9, 1/9, 1/6], [1/18, 1/6, 1/4]]``,
  rows as printed;
* wreath S3 wr S2: ``y = [1/12, 1/4, 1/4 | 0, 1/6, 1/4]`` (two blocks of three);
* wreath S2 wr S3: no target is printed; the same six numbers read as three blocks of
  two, ``[1/12, 1/4 | 1/4, 0 | 1/6, 1/4]``.

Examples
--------
>>> ex = app_f_examples()
>>> [(k, e.group.order) for k, e in ex.items()][:2]
[('direct_sum_S2_S3', 12), ('direct_sum_S2_S3_S2', 24)]
>>> all(sum(e.y) == 1 for e in ex.values())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import ExactVector, to_vector
from logitgeom.symmetry.constructors import direct_product, direct_sum, symmetric, wreath
from logitgeom.symmetry.group import GroupAction
from logitgeom.symmetry.predict import (
    GramStructure,
    direct_product_form,
    direct_sum_form,
    wreath_form,
)

__all__ = ["AppFExample", "app_f_examples", "vec"]


@dataclass(frozen=True, eq=False)
class AppFExample:
    """One App. F example: the labels' group, the base vector, its block form (docs/symmetry.md)."""

    name: str
    group: GroupAction
    y: ExactVector
    form: GramStructure


def vec(P: list[list[object]]) -> list[object]:
    """Column-stacking vec of a matrix given as rows: ``vec(P)[i + a j] = P[i][j]``.

    Examples
    --------
    >>> vec([[1, 2, 3], [4, 5, 6]])
    [1, 4, 2, 5, 3, 6]
    """
    a, b = len(P), len(P[0])
    return [P[i][j] for j in range(b) for i in range(a)]


_P23 = [["1/12", "1/6", "1/10"], ["2/12", "1/12", "4/10"]]
_P33 = [["0", "1/18", "1/12"], ["1/9", "1/9", "1/6"], ["1/18", "1/6", "1/4"]]
_W6 = ["1/12", "1/4", "1/4", "0", "1/6", "1/4"]


def app_f_examples() -> dict[str, AppFExample]:
    """The seven App. F examples, keyed by name, in the order of the symmetry paper's figures."""
    S = symmetric
    P32 = [list(r) for r in zip(*_P23, strict=True)]
    raw = [
        ("direct_sum_S2_S3", direct_sum(S(2), S(3)), ["3/40", "2/5", "3/10", "9/40", "0"],
         direct_sum_form([2, 3])),
        ("direct_sum_S2_S3_S2", direct_sum(S(2), S(3), S(2)),
         ["1/16", "1/3", "1/4", "3/16", "0", "1/8", "1/24"], direct_sum_form([2, 3, 2])),
        ("direct_product_S2_S3", direct_product(S(2), S(3)), vec(_P23),
         direct_product_form(2, 3)),
        ("direct_product_S3_S2", direct_product(S(3), S(2)), vec(P32),
         direct_product_form(3, 2)),
        ("direct_product_S3_S3", direct_product(S(3), S(3)), vec(_P33),
         direct_product_form(3, 3)),
        ("wreath_S2_S3", wreath(S(2), S(3)), _W6, wreath_form(2, 3)),
        ("wreath_S3_S2", wreath(S(3), S(2)), _W6, wreath_form(3, 2)),
    ]
    out = {}
    for name, G, y, form in raw:
        v = to_vector(y, what=name)
        if sum(v, Fraction(0)) != 1:  # pragma: no cover - a typo in the table above
            raise InvalidInput(f"App. F example {name}: the base vector does not sum to 1")
        out[name] = AppFExample(name, G, v, form)
    return out
