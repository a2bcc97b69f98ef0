"""The referee's check of a Coq file (``logitgeom check-coq FILE.v``, ``export coq --compile``).

coqc's exit status alone is not a verdict: a file may end a proof with ``Admitted``, declare
an ``Axiom``, or redefine a word of the library (``Definition strict_argmax ... := False``)
and still compile.  A file is **accepted** only if

1. it is plain ASCII without string literals, and read sentence by sentence (comments
   removed, nested ones included) it holds nothing but the library import (the five
   sentences of :data:`logitgeom.coq.export.HEADER`), data ``Definition`` s and
   ``Lemma`` / ``Theorem`` s proved between ``Proof.`` and ``Qed.``; no name of
   ``Logitgeom.v`` is defined again, no name twice, and no sentence uses a word of
   :data:`FORBIDDEN` (``Admitted``, ``Axiom``, ``Parameter``, ``Unset``, ``native_compute``,
   ``Notation``, ``Ltac``, ...), and no name it defines is one of Coq's standard library
   either (coqc confirms each is unbound after the import);
2. coqc, against the project's own library (never a copy that came with the file), accepts
   it; and
3. ``Print Assumptions`` of its last theorem (the top theorem: the file's claim) lists no
   axiom beyond :data:`ALLOWED_AXIOMS` (the standard library's reals) and the kernel's
   primitive 63-bit integer operations :data:`PRIMITIVES`.

The statement of the top theorem is returned for the referee to read, with the data
definitions it names (docs/coq.md).

Examples
--------
>>> from logitgeom.coq.export import HEADER
>>> scan(HEADER + "Axiom f : False.")[0]
"line 6: 'Axiom' is not allowed in a checked file"
>>> scan(HEADER + "Lemma t : True. Proof. exact I. Qed.")[1:]
('t', 'True')
"""

from __future__ import annotations

import re
import resource
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from logitgeom.coq.export import HEADER, library_names

__all__ = ["ALLOWED_AXIOMS", "PRIMITIVES", "FORBIDDEN", "Verdict", "scan", "check_coq_file",
           "imports_of",
           "axioms_listed", "defined_names", "MAX_BYTES"]

#: The axioms of Coq 8.16's standard library of real numbers: what a claim over the reals
#: (softmax, cosine) rests on; the rational claims use none.
ALLOWED_AXIOMS = frozenset({"ClassicalDedekindReals.sig_not_dec",
                            "ClassicalDedekindReals.sig_forall_dec",
                            "FunctionalExtensionality.functional_extensionality_dep"})
#: Coq's primitive 63-bit integer type and operations (``Qrow`` / ``Ql`` read long numbers
#: with them): kernel primitives ``Print Assumptions`` lists, not axioms about them.
PRIMITIVES = frozenset(f"{p}{n}" for p in ("", "PrimInt63.") for n in
                       ("int", "sub", "lsr", "land", "ltb", "leb", "eqb", "add", "mul", "lsl",
                        "lor"))
#: Words no sentence of a checked file may contain (as whole words).
FORBIDDEN = frozenset(
    "Admitted admit give_up Abort Axiom Axioms Parameter Parameters Hypothesis Hypotheses "
    "Variable Variables Conjecture Context Unset Set Local Global Export Require Import Load "
    "Declare Module Section End Notation Infix Reserved Ltac Tactic Fixpoint CoFixpoint "
    "Inductive CoInductive Record Structure Class Instance Existing Canonical Coercion "
    "Arguments Opaque Transparent Strategy Hint Primitive Register Program Obligation Universe "
    "Polymorphic Monomorphic Extraction Defined Let Fact Remark Corollary Example Goal "
    "Proposition Instance Add Remove Drop Redirect Time Timeout Fail Print Check Eval Compute "
    "Search Locate Back Reset Restore Debug Typeclasses native_compute native_cast_no_check "
    "exact_no_check change_no_check Derive Equations Scheme Combined Include Open Close Bind "
    "Delimit Undelimit Attributes".split())
#: The largest file read (an exported audit of a 1,000 x 64 head is about 1 MB).
MAX_BYTES = 64 << 20

_HEADER = [s.strip() for s in HEADER.replace("\n", " ").split(".") if s.strip()]
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_DEF = re.compile(r"Definition\s+([A-Za-z_][A-Za-z0-9_']*)\s*:(.*?):=(.*)", re.S)
#: The one import of sibling files a file may add after the library's (a streamed
#: enumeration's files: its data, its subtrees).
_IMPORT = re.compile(r"From Logitgeom Require Import( [A-Za-z][A-Za-z0-9_]*)+")
_LEMMA = re.compile(r"(Lemma|Theorem)\s+([A-Za-z_][A-Za-z0-9_']*)\s*:(.*)", re.S)


@dataclass
class Verdict:
    """The referee's verdict on one file: ``ok``; the reasons it is not; the top theorem's
    name and statement; the axioms ``Print Assumptions`` listed; coqc's CPU seconds."""

    path: Path
    ok: bool
    reasons: list[str] = field(default_factory=list)
    theorem: str | None = None
    statement: str | None = None
    axioms: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0


def _strip_comments(text: str) -> str | None:
    """The text with comments (nested) replaced by spaces, line breaks kept; None when a
    comment is not closed."""
    out, depth, i = [], 0, 0
    while i < len(text):
        two = text[i:i + 2]
        if two == "(*":
            depth, i = depth + 1, i + 2
            out.append("  ")
        elif two == "*)" and depth:
            depth, i = depth - 1, i + 2
            out.append("  ")
        else:
            out.append(text[i] if not depth or text[i] == "\n" else " ")
            i += 1
    return None if depth else "".join(out)


def _sentences(code: str) -> list[tuple[int, str]]:
    """(line, sentence without its final dot): a sentence ends at a dot followed by white
    space or the end (qualified names such as ``Z.opp`` have no space after the dot)."""
    out, start = [], 0
    for m in re.finditer(r"\.(?=\s|$)", code):
        s = code[start:m.start()]
        if s.strip():
            line = code.count("\n", 0, start + len(s) - len(s.lstrip())) + 1
            out.append((line, " ".join(s.split())))
        start = m.end()
    if code[start:].strip():
        out.append((code.count("\n", 0, start) + 1, " ".join(code[start:].split())))
    return out


def scan(text: str, *, need_theorem: bool = True) -> tuple[str | None, str | None, str | None]:
    """Read a file's text as the referee's check does (step 1 of the module docstring);
    ``need_theorem`` False: a file of data only is accepted (a file another imports).

    Returns
    -------
    (reason, top theorem's name, its statement)
        ``reason`` is None when the file's form is accepted.
    """
    if not text.isascii():
        return "the file is not plain ASCII", None, None
    if '"' in text:
        return "the file holds a string literal (a double quote)", None, None
    code = _strip_comments(text)
    if code is None:
        return "a comment is not closed", None, None
    sents = _sentences(code)
    if not code.rstrip().endswith("."):
        return "the file does not end with a complete sentence", None, None
    lib, defined = library_names(), set()
    top: tuple[str, str] | None = None
    head = [s for _, s in sents[:len(_HEADER)]]
    if head != _HEADER:
        return ("the file does not start with exactly the library import: "
                + "; ".join(_HEADER)), None, None
    i = len(_HEADER)
    if i < len(sents) and _IMPORT.fullmatch(sents[i][1]):  # sibling files (streams)
        if "Logitgeom" in sents[i][1].split()[4:]:
            return f"line {sents[i][0]}: the library is imported once, first", None, None
        i += 1
    while i < len(sents):
        line, s = sents[i]
        bad = next((w for w in _WORD.findall(s) if w in FORBIDDEN), None)
        if bad:
            return f"line {line}: {bad!r} is not allowed in a checked file", None, None
        m = _DEF.fullmatch(s) or _LEMMA.fullmatch(s)
        if m is None or not s.startswith(("Definition ", "Lemma ", "Theorem ")):
            return (f"line {line}: only data Definitions and Lemma/Theorem ... Proof. ... Qed. "
                    f"are allowed: {s[:80]!r}"), None, None
        name = m.group(1) if s.startswith("Definition") else m.group(2)
        if name in lib:
            return f"line {line}: {name!r} redefines a name of Logitgeom.v", None, None
        if name in defined:
            return f"line {line}: {name!r} is defined twice", None, None
        defined.add(name)
        i += 1
        if s.startswith("Definition"):
            continue
        if i >= len(sents) or sents[i][1] != "Proof":
            return f"line {line}: {name} has no 'Proof.'", None, None
        i += 1
        while i < len(sents) and sents[i][1] != "Qed":
            pl, p = sents[i]
            bad = next((w for w in _WORD.findall(p) if w in FORBIDDEN or w == "Proof"), None)
            if bad:
                return f"line {pl}: {bad!r} is not allowed in a checked file", None, None
            i += 1
        if i >= len(sents):
            return f"line {line}: the proof of {name} does not end with 'Qed.'", None, None
        i += 1
        top = (name, m.group(3).strip())
    if top is None and need_theorem:
        return "the file states no Lemma or Theorem", None, None
    return None, top[0] if top else None, top[1] if top else None


def imports_of(text: str) -> list[str]:
    """The sibling files a file imports after the library (``From Logitgeom Require Import
    A B.``: ``A.v``, ``B.v`` in its folder), [] when none.

    Examples
    --------
    >>> from logitgeom.coq.export import HEADER
    >>> imports_of(HEADER + "From Logitgeom Require Import x_data x_s00000.")
    ['x_data', 'x_s00000']
    """
    sents = _sentences(_strip_comments(text) or "")
    if len(sents) > len(_HEADER) and _IMPORT.fullmatch(sents[len(_HEADER)][1]):
        return sents[len(_HEADER)][1].split()[4:]
    return []


def defined_names(text: str) -> list[str]:
    """The names a file's Definitions, Lemmas and Theorems define (comments ignored)."""
    code = _strip_comments(text) or ""
    return re.findall(r"(?:^|(?<=\.)|(?<=\s))(?:Definition|Lemma|Theorem)\s+([A-Za-z_][\w']*)",
                      code)


def _limits(cpu: int, mem: int):
    def apply() -> None:  # pragma: no cover - runs in the child
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    return apply


def axioms_listed(output: str) -> list[str] | None:
    """The names ``Print Assumptions`` listed, [] when closed; None if it printed neither."""
    if "Closed under the global context" in output:
        return []
    if "Axioms:" not in output:
        return None
    return re.findall(r"^([A-Za-z_][\w.']*) :", output.split("Axioms:", 1)[1], re.M)


def check_coq_file(path: str | Path, *, cpu_seconds: int = 1800,
                   memory_bytes: int = 4 << 30) -> Verdict:
    """The referee's check of one Coq file (module docstring): form, coqc, assumptions.

    Parameters
    ----------
    path : path
        The ``.v`` file (exported here or received from elsewhere).
    cpu_seconds, memory_bytes : int
        Limits of the coqc process (a file that exceeds them is rejected).

    Returns
    -------
    Verdict

    Raises
    ------
    logitgeom.coq.ExportError
        coqc is not installed, or the project's library does not compile.
    """
    from logitgeom.coq.build import _coqc, _run, compile_library

    p = Path(path)
    text, why = _read(p)
    if why:
        return Verdict(p, False, [why])
    reason, name, stmt = scan(text)
    if reason:
        return Verdict(p, False, [reason])
    files, why = _closure(p, text)
    if why:
        return Verdict(p, False, [why], name, stmt)
    names = [n for _, t in files for n in defined_names(t)]
    twice = sorted(n for n, c in Counter(names).items() if c > 1)
    if twice:
        return Verdict(p, False, [f"{twice[0]!r} is defined in two of the files"], name, stmt)
    lib = compile_library()
    cpu = 0.0
    with tempfile.TemporaryDirectory(prefix="logitgeom-referee-") as tmp:
        # every name the file defines is new: not one of Coq's standard library either
        # (a file's own NoDup or length would change what its statement says)
        (Path(tmp) / "Probe.v").write_text(HEADER + "".join(f"Fail Check {n}.\n"
                                                            for n in names))
        code, msg, _ = _run([_coqc(), "-Q", str(lib), "Logitgeom", "Probe.v"], Path(tmp),
                            preexec=_limits(120, memory_bytes))
        if code:
            bad = re.search(r"Fail Check ([\w']+)", "\n".join(
                (HEADER + "".join(f"Fail Check {n}.\n" for n in names)).splitlines()[
                    int(m.group(1)) - 1] for m in re.finditer(r"line (\d+)", msg)))
            what = repr(bad.group(1)) if bad else "a name"
            return Verdict(p, False, [f"{what} is a name of Coq's standard library: a file "
                                      "may not define it again"], name, stmt)
        for f, t in files[:-1]:  # the imported files, each before the files importing it
            (Path(tmp) / f.name).write_text(t)
            code, msg, c = _run([_coqc(), "-Q", str(lib), "Logitgeom", "-Q", ".", "Logitgeom",
                                 f.name], Path(tmp), preexec=_limits(cpu_seconds, memory_bytes))
            cpu += c
            if code:
                why = " ".join(msg.split())[:500] or f"coqc exit status {code}"
                return Verdict(p, False, [f"coqc rejects {f.name}: {why}"], name, stmt,
                               cpu_seconds=cpu)
        (Path(tmp) / p.name).write_text(text + f"\nPrint Assumptions {name}.\n")
        code, msg, c = _run([_coqc(), "-Q", str(lib), "Logitgeom", "-Q", ".", "Logitgeom",
                             p.name], Path(tmp), preexec=_limits(cpu_seconds, memory_bytes))
        cpu += c
    if code:
        why = " ".join(msg.split())[:500] or f"coqc exit status {code} (a limit reached?)"
        return Verdict(p, False, [f"coqc rejects it: {why}"], name, stmt, cpu_seconds=cpu)
    axioms = axioms_listed(msg)
    if axioms is None:
        return Verdict(p, False, ["Print Assumptions printed nothing"], name, stmt,
                       cpu_seconds=cpu)
    extra = sorted(set(axioms) - ALLOWED_AXIOMS - PRIMITIVES)
    reasons = [f"its theorem {name} assumes {', '.join(extra)}"] if extra else []
    return Verdict(p, not extra, reasons, name, stmt, sorted(axioms), cpu)


def _read(p: Path) -> tuple[str, str | None]:
    """(text, None), or ("", why the file is refused)."""
    try:
        if not p.is_file():
            return "", "not a regular file"
        if p.stat().st_size > MAX_BYTES:
            return "", f"larger than {MAX_BYTES >> 20} MB"
        return p.read_bytes().decode("ascii"), None
    except UnicodeDecodeError:
        return "", "the file is not plain ASCII"
    except OSError as exc:
        return "", f"cannot read it: {exc.strerror or exc}"


def _closure(p: Path, text: str) -> tuple[list[tuple[Path, str]], str | None]:
    """The file and the sibling files it imports (transitively), each after the files it
    imports, every one read and scanned as a checked file (a file of data only allowed);
    or why not."""
    order: list[tuple[Path, str]] = []
    state: dict[str, int] = {}  # 1: being visited, 2: done

    def visit(f: Path, t: str) -> str | None:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*\.v", f.name) or f.name == "Logitgeom.v":
            return f"{f.name}: a Coq file name is a letter, then letters, digits, _ (not " \
                "Logitgeom.v)"
        state[f.name] = 1
        for m in imports_of(t):
            g = f.parent / f"{m}.v"
            if state.get(g.name) == 1:
                return f"{f.name} and {g.name} import each other"
            if state.get(g.name) == 2:
                continue
            gt, why = _read(g)
            if why:
                return f"{g.name} (imported by {f.name}): {why}"
            reason = scan(gt, need_theorem=False)[0]
            if reason:
                return f"{g.name} (imported by {f.name}): {reason}"
            why = visit(g, gt)
            if why:
                return why
        state[f.name] = 2
        order.append((f, t))
        return None

    return order, visit(p, text)
