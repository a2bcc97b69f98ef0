"""The main job: regenerate every claim of the two source papers with checkable artifacts.

``logitgeom reproduce [--out DIR]`` runs :func:`reproduce`: one small function per claim
(:mod:`logitgeom.reproduce.registry`), the cosine paper (cosine, sign and ranking patterns)
decided in exact arithmetic with certificates, the symmetry paper (symmetry transfer) solved
by each reduction and by the full program; every certificate is verified by the stdlib
checker in a subprocess before the run reports success; ``DIR/SUMMARY.md`` tabulates the rows.

Examples
--------
>>> from logitgeom.reproduce import select_claims
>>> len(select_claims()) > 20
True
"""

from __future__ import annotations

import importlib
from typing import Any

#: The claim modules, imported (and so registered) on first use of a public name, in this
#: order: SUMMARY.md lists the claims in it.  Deferred so that a command that only needs
#: :mod:`logitgeom.reproduce.manifest` (``logitgeom check``) does not load every claim.
_CLAIM_MODULES = (
    "_cosine_paper", "_cosine_grid", "_cosine_facts",
    "_symmetry_paper", "_symmetry_facts", "_real_models",
    "trained", "lm",
    "_family",  # beyond the papers: the layer-peeled family
    "_spacy_rows",
    "_beyond",  # rows beyond the papers
)

_WHERE = {
    "CLAIMS": "registry", "Claim": "registry", "Row": "registry", "Status": "registry",
    "claim": "registry", "select_claims": "registry",
    "Report": "runner", "check_certificates": "runner", "reproduce": "runner",
    "summary_markdown": "runner",
}


def _load_claims() -> None:
    for name in _CLAIM_MODULES:
        importlib.import_module(f"{__name__}.{name}")


__all__ = [
    "CLAIMS",
    "Claim",
    "Report",
    "Row",
    "Status",
    "check_certificates",
    "claim",
    "reproduce",
    "select_claims",
    "summary_markdown",
]


def __getattr__(name: str) -> Any:
    """Register every claim, then return the public name (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load_claims()
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
