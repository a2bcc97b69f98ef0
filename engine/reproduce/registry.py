"""The claims registry: one small function per claim of the source papers, each returning a row.

A claim function takes a :class:`~logitgeom.reproduce._artifacts.Context` (where to write
artifacts) and returns a :class:`Row`.  Claims register themselves with :func:`claim` in
the order the papers state them; the runner (:mod:`logitgeom.reproduce.runner`) runs them.

Examples
--------
>>> r = Row("Lemma 3.1", "W 3 x 2", "exact", "B W' = B W", ("a.json",), Status.CERTIFIED)
>>> r.ok, r.markdown_cells()[-1]
(True, 'CERTIFIED')
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from logitgeom.errors import InvalidInput

__all__ = ["Status", "Row", "Claim", "CLAIMS", "claim", "select_claims", "needs_extra"]


class Status(StrEnum):
    """Outcome of one claim: what kind of evidence its row is.

    A claim function returns PASS when its claim holds; the runner turns it into CERTIFIED
    (the row wrote certificates and the stdlib checker verified every one) or COMPUTED (the
    engine computed it, exactly or within the tolerance the row states, and no checked file
    backs it).  Experiments return MEASURED.  SUMMARY.md shows only CERTIFIED, COMPUTED,
    MEASURED, NEEDS WEIGHTS and FAIL.
    """

    #: returned by a claim function whose claim holds (resolved by the runner)
    PASS = "PASS"
    #: every certificate the row wrote was verified by the stdlib checker in a subprocess
    CERTIFIED = "CERTIFIED"
    #: computed by the engine (exact, or numerical within the tolerance the row states);
    #: no checked file
    COMPUTED = "COMPUTED"
    FAIL = "FAIL"
    #: a claim about real models whose weights are not on this machine (or an optional extra
    #: that brings them is not installed): the row gives the command; not a failure
    NEEDS_WEIGHTS = "NEEDS WEIGHTS"
    #: the weights are here but do not fit the memory: refused before loading, with the
    #: estimate (an alias of NEEDS_WEIGHTS; the row says why); not a failure
    NEEDS_MEMORY = "NEEDS WEIGHTS"
    #: an experiment's outcome (a trained model, a real model's hidden states), with its
    #: figure or numbers; not a proof
    MEASURED = "MEASURED"


#: Status values of runs written before the evidence kinds (read back for --only merges).
_OLD_VALUES = {"needs local weights": "NEEDS WEIGHTS", "needs more memory": "NEEDS WEIGHTS",
               "measured": "MEASURED"}


@dataclass(frozen=True)
class Row:
    """One line of ``SUMMARY.md``.

    Attributes
    ----------
    claim : str
        The paper's name for the claim ("Thm 3.4", "App. F").
    instance : str
        The concrete instance it was run on.
    method : str
        How it was decided (exact rational arithmetic, which program, which checker).
    result : str
        What was found, in a few words with the key numbers.
    artifacts : tuple of str
        Paths of the written files, relative to the output directory.
    status : Status
    paper, ours : float or None
        Real-model rows: the paper's printed delta and the measured one (SUMMARY compares).
    """

    claim: str
    instance: str
    method: str
    result: str
    artifacts: tuple[str, ...]
    status: Status
    #: real-model rows: the delta the paper prints (reference) and ours (when measured)
    paper: float | None = None
    ours: float | None = None

    @property
    def ok(self) -> bool:
        """Whether the claim passed (or could not run: no local weights, not enough memory)."""
        return self.status is not Status.FAIL

    def markdown_cells(self) -> list[str]:
        """The table cells (pipes escaped)."""
        art = "<br>".join(f"`{a}`" for a in self.artifacts) or "-"
        cells = [self.claim, self.instance, self.method, self.result, art, str(self.status)]
        return [c.replace("|", "\\|").replace("\n", " ") for c in cells]


@dataclass(frozen=True)
class Claim:
    """A registered claim: a key (for ``--only``), the paper it comes from, a function, and a
    one-line description (``reproduce --list``)."""

    key: str
    paper: str
    func: Callable
    description: str = ""


#: Registered claims, in the order the runner executes them (filled by the claim modules).
CLAIMS: dict[str, Claim] = {}

#: What the papers state and no row checks, with the reason (SUMMARY.md and the README list
#: these, so "every claim" is every claim with a row or on this list).
NOT_COVERED: tuple[tuple[str, str], ...] = (
    ("symmetry paper, App. B: Lemmas 1, 2, 4, 10 and 11",
     "their statements are lost in the extracted text (only the citations survive: von "
     "Neumann's trace inequality, the nuclear norm's SDP form, Horn and Johnson, Serre); the "
     "facts the theorem rows use are derived in docs/layer-peeled.md and docs/symmetry.md "
     "and tested there"),
    ("symmetry paper, Thm 8, 'only if' in general",
     "row sym-lemma-8-thm-8 checks Lemma 8 and the 'if' exactly on two groups and shows one "
     "non-scalar Sigma breaking the orbit; the general converse is the paper's proof"),
)


def claim(key: str, paper: str, description: str | None = None
          ) -> Callable[[Callable], Callable]:
    """Register a claim function under ``key`` (decorator).

    Parameters
    ----------
    key : str
        Unique, lower-case, e.g. ``"cos-thm-3.4"``; ``--only`` patterns match it.
    paper : str
        ``"cosine"`` (the cosine paper) or ``"symmetry"`` (the symmetry paper).
    description : str, optional
        One line for ``reproduce --list``; default: the first sentence of the function's
        docstring.

    Raises
    ------
    InvalidInput
        The key is already registered.
    """

    def deco(func: Callable) -> Callable:
        if key in CLAIMS:
            raise InvalidInput(f"claim {key!r} is registered twice")
        first = " ".join((func.__doc__ or "").strip().split("\n\n")[0].split())
        if len(first) > 110:  # one line: cut at a word boundary
            first = first[:107].rsplit(" ", 1)[0] + "..."
        CLAIMS[key] = Claim(key, paper, func, " ".join((description or first).split()))
        return func

    return deco


def select_claims(only: str | None = None) -> list[Claim]:
    """The registered claims matching ``only`` (comma-separated globs or prefixes).

    Parameters
    ----------
    only : str or None
        E.g. ``"cos-thm-3.4,sym-app-f*"``; None selects every claim.  A pattern
        without ``*`` matches keys that start with it.

    Returns
    -------
    list of Claim
        In registration order.

    Raises
    ------
    InvalidInput
        A pattern matches no claim (the known keys are listed), or ``only`` names none.

    Examples
    --------
    >>> import logitgeom.reproduce
    >>> [c.key for c in select_claims("cos-thm-3.4")]
    ['cos-thm-3.4']
    """
    if only is None:
        return list(CLAIMS.values())
    if not isinstance(only, str):
        raise InvalidInput(f"only must be a string of claim keys; got {only!r}")
    pats = [p.strip().lower() for p in only.split(",") if p.strip()]
    if not pats:
        raise InvalidInput(f"--only {only!r} names no claim; give claim keys or globs such as "
                           "'cos-thm-3.4' (logitgeom reproduce --list shows them)")
    out = []
    for p in pats:
        glob = p if "*" in p or "?" in p else p + "*"
        hit = [k for k in CLAIMS if fnmatch.fnmatchcase(k, glob)]
        if not hit:
            raise InvalidInput(f"--only pattern {p!r} matches no claim; known claims: "
                               + ", ".join(CLAIMS))
        out += [k for k in hit if k not in out]
    return [CLAIMS[k] for k in CLAIMS if k in out]


def needs_extra(claim_name: str, modules: tuple[str, ...], extra: str) -> Row | None:
    """A NEEDS WEIGHTS row saying the claim was skipped, when one of ``modules`` is missing
    (an optional extra is not installed), else None.

    Examples
    --------
    >>> needs_extra("x", ("json",), "models") is None
    True
    >>> needs_extra("x", ("no_such_module_here",), "models").status.value
    'NEEDS WEIGHTS'
    """
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return Row(claim_name, "-", "-", f"skipped: the optional '{extra}' extra is not installed "
               f"({', '.join(missing)} missing; pip install '.[{extra}]'); not a failure", (),
               Status.NEEDS_WEIGHTS)
