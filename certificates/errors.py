"""The one exception hierarchy of :mod:`certificates` (standard library only).

Examples
--------
>>> issubclass(VerificationFailed, CertificateError)
True
"""

from __future__ import annotations

__all__ = [
    "CertificateError",
    "MalformedCertificate",
    "UnsupportedVersion",
    "VerificationFailed",
]


class CertificateError(Exception):
    """Base class of every certificate error."""


class MalformedCertificate(CertificateError, ValueError):
    """The file is not a well-formed certificate (bad JSON, missing field, bad number)."""


class UnsupportedVersion(CertificateError):
    """The certificate's format name or version is not one this checker knows."""


class VerificationFailed(CertificateError):
    """The certificate is well formed but one of its checks fails."""
