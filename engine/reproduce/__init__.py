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

# Each module registers its claims; SUMMARY.md lists them in this import order.
# isort: off
from logitgeom.reproduce import _cosine_paper, _cosine_grid, _cosine_facts  # noqa: F401
from logitgeom.reproduce import _symmetry_paper, _symmetry_facts, _real_models  # noqa: F401
from logitgeom.reproduce import trained, lm  # noqa: F401
from logitgeom.reproduce import _family  # noqa: F401  (beyond the papers: the layer-peeled family)
from logitgeom.reproduce import _spacy_rows  # noqa: F401
from logitgeom.reproduce import _beyond  # noqa: F401  (rows beyond the papers)
# isort: on
from logitgeom.reproduce.registry import CLAIMS, Claim, Row, Status, claim, select_claims
from logitgeom.reproduce.runner import Report, check_certificates, reproduce, summary_markdown

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
