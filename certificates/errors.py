"""The one error vocabulary of :mod:`logitgeom_certificates` (standard library only).

Every check of the trusted checker that fails raises :class:`Fail`, which carries the
identifier of the failed check (listed in ``certificates/SPEC.md``), a JSON-pointer-like
location and a message; :func:`logitgeom_certificates.check.check` turns it into a ``Verdict``.

Examples
--------
>>> f = Fail("witness", "/witness", "row 0 is not strictly positive at the witness")
>>> isinstance(f, CertificateError), f.check, f.location
(True, 'witness', '/witness')
"""

from __future__ import annotations


class CertificateError(Exception):
    """Base class of every certificate error."""


class Fail(CertificateError):
    """One failed check: identifier (see SPEC.md), location and message."""

    def __init__(self, check: str, location: str, message: str):
        super().__init__(message)
        self.check, self.location, self.message = check, location, message
