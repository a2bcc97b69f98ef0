"""Argmax audit at vocabulary scale: which labels of a head can ever be the strict argmax.

Every verdict carries a certificate checked by ``logitgeom_certificates.check`` (kind
``argmax-audit``): a witness input confirmed exactly, or Gordan multipliers verified in
integer arithmetic.  Maths: docs/argmax-audit.md.

Examples
--------
>>> r = audit_argmax([[2, 0], [0, 2], [1, 1]], progress=False)
>>> r.verdicts["all"]
{0: 'argmaxable', 1: 'argmaxable', 2: 'never'}
"""

from logitgeom.audit.decide import Options
from logitgeom.audit.run import VERDICTS, AuditResult, audit_argmax

__all__ = ["AuditResult", "Options", "VERDICTS", "audit_argmax"]
