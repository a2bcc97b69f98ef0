"""Geometry of real models: local LM heads and tokenizers, delta diagnostics, context
embeddings, cosine audits.

Nothing here downloads: every path is a local file or folder.  torch and transformers
(the ``models`` extra) are imported only by :func:`context_embeddings` and when a PyTorch
state dict is read.
"""

from logitgeom.models.audit import (
    CosineAudit,
    Projection,
    ProjectionAudit,
    cosine_audit,
    exact_projection,
)
from logitgeom.models.context import ContextResult, context_embeddings, fill_template
from logitgeom.models.diagnostics import (
    GeometryDiagnostics,
    centre_and_scale,
    delta_circ,
    delta_etf,
    delta_group,
    diagnose,
    double_centre,
    nearest_circulant,
    nearest_etf,
    nearest_invariant,
    normalized_gram,
    orbitals,
    simplex_etf_gram,
)
from logitgeom.models.loaders import LMHead, list_tensors, load_lm_head
from logitgeom.models.plots import Panel, save_heatmaps
from logitgeom.models.report import InspectReport, find_tokenizer, group_from_spec, inspect_model
from logitgeom.models.tokens import TokenSet, load_tokenizer, parse_token_list, resolve_tokens

__all__ = [
    "ContextResult",
    "CosineAudit",
    "InspectReport",
    "Panel",
    "Projection",
    "ProjectionAudit",
    "cosine_audit",
    "exact_projection",
    "find_tokenizer",
    "group_from_spec",
    "inspect_model",
    "save_heatmaps",
    "GeometryDiagnostics",
    "LMHead",
    "TokenSet",
    "centre_and_scale",
    "context_embeddings",
    "delta_circ",
    "delta_etf",
    "delta_group",
    "diagnose",
    "double_centre",
    "fill_template",
    "list_tensors",
    "load_lm_head",
    "load_tokenizer",
    "nearest_circulant",
    "nearest_etf",
    "nearest_invariant",
    "normalized_gram",
    "orbitals",
    "parse_token_list",
    "resolve_tokens",
    "simplex_etf_gram",
]
