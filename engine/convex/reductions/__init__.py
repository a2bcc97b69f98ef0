"""Reductions of the logit-level layer-peeled program (accepts / apply / invert).

The registry maps a ``method=`` name to the reduction class that implements it, as a
lazy ``"module:Class"`` path (importing this package stays cheap and free of cycles).
To add a reduction, add one line to :data:`REGISTRY` and, if ``method="auto"`` should
consider it, insert its name in :data:`AUTO_ORDER` (cheapest first; ``"full"`` last,
it accepts every problem).  Keyword options given to ``LayerPeeled.solve`` (e.g.
``group=``) reach ``accepts`` and ``apply`` unchanged.

Examples
--------
>>> sorted(REGISTRY)[:3]
['circulant', 'etf', 'full']
>>> get_reduction("full").name
'full'
"""

from __future__ import annotations

import importlib

from logitgeom.convex.reductions.base import Acceptance, Plan, ReducedProblem, Reduction
from logitgeom.errors import InvalidInput

__all__ = [
    "AUTO_ORDER",
    "GENERAL",
    "REGISTRY",
    "Acceptance",
    "Plan",
    "ReducedProblem",
    "Reduction",
    "get_reduction",
]

#: method name -> "module:Class" of its :class:`Reduction` subclass.
REGISTRY: dict[str, str] = {
    "full": "logitgeom.convex.reductions.full:FullReduction",
    "circulant": "logitgeom.convex.reductions.circulant:CirculantReduction",
    "etf": "logitgeom.convex.reductions.etf:ETFReduction",
    "orbit": "logitgeom.convex.reductions.orbit:OrbitReduction",
}

#: the general program: it accepts every problem (``auto`` falls back to it when a closed
#: form leaves the float range).
GENERAL = "full"

#: the order in which ``method="auto"`` asks reductions whether they accept.
AUTO_ORDER: tuple[str, ...] = ("etf", "circulant", "orbit", GENERAL)


def get_reduction(name: str) -> Reduction:
    """A fresh instance of the reduction registered under ``name``.

    Raises
    ------
    InvalidInput
        Unknown name, or a registered reduction whose module is not (yet) present.
    """
    key = str(name).lower()
    if key not in REGISTRY:
        choices = ", ".join(["auto", *sorted(REGISTRY)])
        raise InvalidInput(f"unknown method {name!r}; choose one of {choices}")
    module, _, cls = REGISTRY[key].partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            raise InvalidInput(f"method {name!r} is registered but {module} is not installed "
                               "in this build") from None
        raise
    return getattr(mod, cls)()
