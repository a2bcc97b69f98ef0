"""A None where the audit needs a value is refused by name (the narrowing mypy asks for):
a head spec without its file or tensor name, a result without its certificate."""

from __future__ import annotations

import pytest

from logitgeom.audit.head import Head, HeadSpec
from logitgeom.audit.run import AuditResult
from logitgeom.errors import InvalidInput


@pytest.mark.parametrize("spec, what", [
    (HeadSpec("npy"), "needs a path"),
    (HeadSpec("safetensors", path="head.safetensors"), "needs a path and a tensor name"),
])
def test_head_spec_without_path_or_tensor(spec, what):
    with pytest.raises(InvalidInput, match=what):
        Head(spec)


def test_result_without_certificate_or_path():
    r = AuditResult(labels=(0,), verdicts={}, counts={}, names={}, radius=None,
                    certificate_path=None, stage_seconds={})
    with pytest.raises(ValueError, match="neither a certificate nor its path"):
        r.certificate()
