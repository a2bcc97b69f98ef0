"""Building the ``argmax-audit`` certificate (certificates/SPEC.md, section 9).

The audit (:mod:`logitgeom.audit`) decides labels and writes shards; this module assembles the
batch certificate from what the run produced (head reference or inline rows, bias, labels,
counts, records or shard hashes, the user's source file) and re-checks it with the stdlib
checker: a certificate that does not check is never returned.

Examples
--------
>>> cert = audit_certificate(head={"W": [["1", "0"], ["0", "1"]]}, rows=2, cols=2,
...                          domains=["all"], labels=[0, 1], counts={"all": {
...                          "argmaxable": 2, "never": 0, "undecided": 0}},
...                          records=[{"label": 0, "all": {"verdict": "argmaxable",
...                          "witness": {"scale": "1"}, "stage": "row"}},
...                          {"label": 1, "all": {"verdict": "argmaxable",
...                          "witness": {"scale": "1"}, "stage": "row"}}])
>>> cert["kind"], cert["labels"]
('argmax-audit', [[0, 1]])
>>> self_check(cert).ok
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from logitgeom._version import __version__
from logitgeom.certify.common import FORMAT, VERSION, header

__all__ = ["FORMAT", "VERSION", "audit_certificate", "label_runs", "self_check"]


def label_runs(labels: Sequence[int]) -> list[list[int]]:
    """Increasing labels as [first, last] runs (compact in the certificate).

    Examples
    --------
    >>> label_runs([0, 1, 2, 5, 7, 8])
    [[0, 2], [5, 5], [7, 8]]
    """
    out: list[list[int]] = []
    for lab in labels:
        if out and out[-1][1] == lab - 1:
            out[-1][1] = lab
        else:
            out.append([lab, lab])
    return out


def audit_certificate(*, head: dict, rows: int, cols: int, domains: Sequence[str],
                      labels: Sequence[int], counts: dict, bias: list[str] | None = None,
                      radius: str | None = None, records: list[dict] | None = None,
                      shards: list[dict] | None = None, source: dict | None = None) -> dict:
    """The certificate dict; exactly one of ``records`` (inline) and ``shards`` is given.

    Parameters
    ----------
    head : dict
        ``{"W": rows as strings}`` or a file reference ``{"format", "file", "sha256", ...}``.
    rows, cols : int
        Shape of the head.
    domains : sequence of str
        ``"all"`` and/or ``"box"``.
    labels : sequence of int
        The audited labels, increasing.
    counts : dict
        ``{domain: {verdict: n}}``.
    bias : list of str, optional
    radius : str, optional
    records, shards : list of dict
        Inline records as the engine writes them (a never entry on the support of the most
        recent one of its domain names it, ``"rows": {"as": L}``:
        :func:`logitgeom.audit.shards.share_rows`), or the shard references.
    source : dict, optional
        ``{"file": basename, "sha256": hex}`` of the user's head file (provenance only).

    Returns
    -------
    dict
    """
    if (records is None) == (shards is None):
        raise ValueError("give exactly one of records and shards")
    cert = {**header("argmax-audit"), "head": head, "rows": rows, "cols": cols,
            "domains": list(domains), "labels": label_runs(labels), "counts": counts,
            "provenance": {"engine": f"logitgeom {__version__}", "tool": "audit-argmax"}}
    if bias is not None:
        cert["bias"] = bias
    if radius is not None:
        cert["radius"] = radius
    if source is not None:
        cert["source"] = {"file": str(source["file"]), "sha256": str(source["sha256"])}
    if records is not None:
        cert["records"] = records
    else:
        cert["shards"] = shards
    return cert


def self_check(cert: dict | str | Path, labels: Sequence[int] | None = None):
    """Check a certificate (a dict, or the path of a written ``audit.json`` whose references
    resolve against its folder) with the stdlib checker; only the proofs of ``labels`` when
    given (structure, hashes, coverage and counts are always checked).

    Returns the checker's verdict object (``.ok``, ``.message``).
    """
    if isinstance(cert, dict):
        from logitgeom_certificates.api import check

        return check(cert, None)
    from logitgeom_certificates.api import check_audit_file

    return check_audit_file(str(cert), labels=None if labels is None else set(labels),
                      max_work=None)
