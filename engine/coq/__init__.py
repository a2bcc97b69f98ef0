"""Machine-checked proofs: certificates exported to the Coq proof assistant (docs/coq.md).

:func:`export_certificate` writes one Coq file per certificate whose theorem states the
claim in the words of the library ``certificates/coq/Logitgeom.v`` and proves it by
computation; :mod:`logitgeom.coq.build` compiles the library and the files with ``coqc``.
The generator is not trusted: coqc decides.
"""

from logitgeom.coq._read import ExportError
from logitgeom.coq.build import (
           LIBRARY,
           compile_files,
           compile_library,
           coqc_available,
           export_files,
)
from logitgeom.coq.export import export_certificate, export_file
from logitgeom.coq.referee import check_coq_file

__all__ = ["ExportError", "check_coq_file", "LIBRARY", "compile_files", "compile_library",
           "coqc_available", "export_certificate", "export_file", "export_files"]
