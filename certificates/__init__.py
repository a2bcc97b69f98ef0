"""Self-contained proof files for logitgeom's claims, and their trusted checker.

This package imports nothing from :mod:`engine` at import time, so that
``python -m certificates.check`` runs on the standard library alone.
"""

from certificates.errors import (
    CertificateError,
    MalformedCertificate,
    UnsupportedVersion,
    VerificationFailed,
)

__all__ = [
    "CertificateError",
    "MalformedCertificate",
    "UnsupportedVersion",
    "VerificationFailed",
]
