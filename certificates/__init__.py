"""Self-contained proof files for logitgeom's claims, and their trusted checker.

Standard library only, and nothing from :mod:`engine`: ``python -m certificates.check``
runs on a bare Python.  The layers, in the order they trust each other:

* :mod:`certificates.semantics` - the trusted base: numbers, sign and ranking rows, the
  arrangement, covers and Zaslavsky's count (what a certificate *means*);
* :mod:`certificates.check` - reads a file and dispatches on its ``kind``;
  ``certificates/check_<kind>.py`` modules add kinds, one dispatch line each;
* :mod:`certificates.errors` - the one error vocabulary (:class:`Fail`).

Emission (building certificates from a model) lives on the engine side, in
:mod:`engine.certify`, which depends on this package and never the reverse.
"""

from certificates.errors import CertificateError, Fail

__all__ = ["CertificateError", "Fail"]
