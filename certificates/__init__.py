"""Self-contained proof files for logitgeom's claims, and their trusted checker.

Standard library only, and nothing from :mod:`logitgeom`: ``python -m logitgeom_certificates.check``
runs on a bare Python.  The layers, in the order they trust each other:

* :mod:`logitgeom_certificates.kernel` (with :mod:`logitgeom_certificates.meter` and
  :mod:`logitgeom_certificates.errors`)
  - the one code path of every kind: JSON and shard lines, numbers, referenced files,
  integer scaling, PSD / Gordan / witness checks, work metering, verdicts;
* :mod:`logitgeom_certificates.semantics` - what geometric data *mean*: sign and ranking rows, the
  arrangement, flat covers and Zaslavsky's count;
* :mod:`logitgeom_certificates.check` - reads a file and dispatches on its ``kind``;
  ``certificates/check_<kind>.py`` modules add kinds, one dispatch line each, each stating
  its proof obligation.

Emission (building certificates from a model) lives on the engine side, in
:mod:`logitgeom.certify`, which uses :mod:`logitgeom_certificates.api` (the public names) and never
the
reverse.
"""

from .errors import CertificateError, Fail

__all__ = ["CertificateError", "Fail"]
