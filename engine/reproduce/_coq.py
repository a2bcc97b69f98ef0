"""The reproduction's Coq proofs: every discrete certificate exported beside its JSON.

Each covered certificate of the run gets ``<name>.v`` (and the folder the library
``Logitgeom.v``), compiled by coqc when it is installed; SUMMARY.md lists them
(docs/coq.md).  The ``layer-peeled-*`` kinds are listed as not covered, with the reason
"not discrete (convex bracket)" (exp/log enclosures).
"""

from __future__ import annotations

import re

from logitgeom._fsio import write_atomic

__all__ = ["coq_proofs"]


def coq_proofs(ctx, names: list[str], progress=None) -> list[str]:
    """Write the Coq files of the certificates ``names`` (relative to ``ctx.out``) and
    compile them when coqc is installed; return the lines of SUMMARY.md's section.

    ``progress(desc, total)``, when given, starts a reported step and returns
    ``advance(done, total, note)`` (see ``runner._step_reporter``): the export and each
    coqc compilation are reported as they finish."""
    from logitgeom.coq import LIBRARY, ExportError, check_coq_file, coqc_available
    from logitgeom.coq.export import export_file

    rows, files, skipped, taken = [], [], [], {"Logitgeom.v"}
    start = progress or (lambda desc, total: lambda done, total, note="": None)
    exported = start("exporting Coq proofs", len(names))
    for n in names:
        try:
            vname, text = export_file(ctx.out / n)
        except ExportError as exc:  # the reason without the file name, place and kind
            why = str(exc).split(": ", 2)[-1]
            why = re.sub(r"^kind '[^']*' is not covered by the Coq export: ", "", why)
            skipped.append(f"`{n}` ({why.split(': ')[0][:160]})")
            continue
        stem, k = vname[:-2], 1
        while vname in taken:
            k += 1
            vname = f"{stem}_{k}.v"
        taken.add(vname)
        write_atomic(ctx._path(vname), text)
        main = re.findall(r"^(?:Lemma|Theorem) +([\w']+)", text, re.M)[-1]
        rows.append([n, vname, main])
        files.append(ctx.out / vname)
    exported(len(names), len(names))
    if not rows:
        return []
    write_atomic(ctx._path("Logitgeom.v"), LIBRARY.read_text())
    if coqc_available():
        compiled = start("compiling Coq proofs (coqc, the referee's check)", len(files))
        for k, (row, f) in enumerate(zip(rows, files, strict=True), 1):
            v = check_coq_file(f)  # one at a time: each is reported as it finishes
            row.append("accepted by the referee's check" if v.ok else
                       "REJECTED: " + " ".join("; ".join(v.reasons).split())[:200]
                       .replace("|", "/"))
            compiled(k, len(files), f"{f.name}: {'accepted' if v.ok else 'REJECTED'}")
    else:
        for row in rows:
            row.append("not compiled (coqc not installed)")
    lines = ["## Coq proofs", "",
             "Each discrete certificate is also a Coq file here, its claim stated in the words "
             "of `Logitgeom.v` (the library, proven once) and proved by computation; compile "
             "with `coqc -Q . Logitgeom Logitgeom.v` and then `coqc -Q . Logitgeom FILE.v` "
             "(docs/coq.md); the last column is the referee's check (`logitgeom check-coq FILE.v`: "
             "the file's form, coqc, and `Print Assumptions` of its theorem).", "",
             "| certificate | Coq file | theorem | referee's check |", "|---|---|---|---|"]
    lines += [f"| `{n}` | `{v}` | `{t}` | {s} |" for n, v, t, s in rows]
    if skipped:
        lines += ["", "Not covered by the Coq export (checked by the stdlib checker only): "
                  + ", ".join(skipped) + "."]
    return lines + [""]
