"""Solve and certify in one call, in the form whose check fits the default work budget.

A ``layer-peeled-bracket`` holds Y, H and P in full: its check evaluates an exp and a log
bound per entry, so an 11 x 7,920 target (the orbit of one column under the Mathieu group
M11) gives a 9.5 MB file whose check takes about 29 million units of exact work, more
than the checker's default budget (20 million, docs/limits.md).  A
``layer-peeled-orbit-bracket`` of the same optimum holds the base columns and the group's
generators only (m x m sized).  :func:`certified_solve` estimates the full file's check
work from the shape before building it (:func:`bracket_check_work`); when the estimate
exceeds the budget and Y is the orbit target of a known group (``group=``, or the group
the solve's plan verified exactly on Y), it writes the orbit form and says so.  Otherwise
it builds the full form, meters its check exactly, and (when that exceeds the budget)
takes the orbit form if it can, or says what the check needs and how to get the orbit
form (``certify solve --bases FILE --group G``).

Examples
--------
>>> from logitgeom.convex import LayerPeeled
>>> out = certified_solve(LayerPeeled([["1/2", "1/4"], ["1/2", "3/4"]], 1, 1))
>>> str(out.form), out.certificate["kind"], out.work <= out.budget
('full', 'layer-peeled-bracket', True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from logitgeom.errors import InvalidInput

__all__ = ["CertifiedSolve", "Form", "bracket_check_work", "certified_solve", "orbit_form"]


class Form(enum.StrEnum):
    """The certificate forms (a ``str`` enum: ``Form.FULL == "full"``)."""

    #: the orbit form when the full one's check would exceed the budget and Y is an orbit
    #: target of a known group, else the full form
    AUTO = "auto"
    #: ``layer-peeled-bracket``: Y, W, H and P in full
    FULL = "full"
    #: ``layer-peeled-orbit-bracket``: base columns and generators (Y must be the orbit
    #: target of a known group)
    ORBIT = "orbit"


@dataclass(frozen=True, eq=False)
class CertifiedSolve:
    """A certificate, the solution it was built from, and how its form was chosen.

    Attributes
    ----------
    certificate : dict
        Accepted by the stdlib checker (checked, metered, before it was returned).
    solution : LayerPeeledSolution
        The solve the certificate was built from (of the orbit target for the orbit form).
    form : Form
        ``Form.FULL`` or ``Form.ORBIT``.
    work : int
        The exact work of the certificate's check (units of :mod:`logitgeom_certificates.meter`).
    budget : int
        The budget the form was chosen for (the checker's default unless given).
    note : str
        What was chosen and why, or what a check of a certificate over the budget needs
        ("" when the full form fits).
    """

    certificate: dict
    solution: Any
    form: Form
    work: int
    budget: int
    note: str = ""


def bracket_check_work(m: int, n: int, precision: int | None = None) -> int:
    """An estimate of the exact work of checking an m x n ``layer-peeled-bracket``: the
    exp bound of every entry of Z and the log bound of every entry of P (each
    ``100 + precision^2 / 40`` units in the checker).  The other steps add to it (M11's
    11 x 7,920 certificate: estimate 24,393,600, metered 29,158,584), so an estimate over
    the budget means the check is over it too, unless many logits lie 300 below their
    column's maximum (their exp bound is free).

    Examples
    --------
    >>> bracket_check_work(11, 7920)
    24393600
    """
    from logitgeom.certify.convex import DEFAULT_PRECISION

    prec = DEFAULT_PRECISION if precision is None else int(precision)
    return 2 * int(m) * int(n) * (100 + prec * prec // 40)


def orbit_form(problem: Any, generators: Any) -> Any:
    """Y as an :class:`logitgeom.symmetry.OrbitTargets` of the label group ``generators``
    (exact base columns: the checker's orbit bracket has exactly Y's columns), or None
    when Y is no orbit target of that group (:func:`logitgeom.symmetry.orbit_bases`).

    Examples
    --------
    >>> from logitgeom.convex import LayerPeeled
    >>> from logitgeom.symmetry import affine_line, orbit_targets
    >>> T = orbit_targets(affine_line(5), ["1/2", "1/4", "1/8", "1/8", "0"])
    >>> orbit_form(LayerPeeled(T.exact_Y(), 1, 1), affine_line(5)).base == T.base
    True
    """
    from logitgeom.symmetry import GroupAction, as_group, orbit_bases, orbit_targets

    G = generators if isinstance(generators, GroupAction) and generators.n == 0 else \
        as_group([list(g) for g in generators] if not isinstance(generators, GroupAction)
                 else generators.row_generators, m=problem.m)
    bases = orbit_bases(G, problem.codes)
    if bases is None:
        return None
    rows = problem.exact_entries()
    return orbit_targets(G, [[r[b] for r in rows] for b in bases])


def certified_solve(problem: Any, method: str = "auto", solver: str | None = None, *,
                    eps: Any = None, eps_mode: str = "relative", group: Any = None,
                    generators: Any = None, form: str = "auto", budget: int | None = None,
                    provenance: dict | None = None, **options: Any) -> CertifiedSolve:
    """Solve ``problem`` and certify the optimum in the form whose check fits ``budget``.

    Parameters
    ----------
    problem : LayerPeeled
        The program (exact probability columns; an OrbitTargets target gives the orbit
        form directly unless ``form="full"``).
    method, solver, **options
        As for :meth:`LayerPeeled.solve` (``group=`` is passed on when the method takes it).
    eps, eps_mode, generators, provenance
        As for :meth:`LayerPeeledSolution.certificate` (``generators`` only in the full form).
    group : any spelling of :func:`logitgeom.symmetry.as_group`, optional
        A label group preserving Y: the orbit form uses it (default: the group the solve's
        plan verified exactly on Y, ``Plan.label_generators``).
    form : {"auto", "full", "orbit"} or Form
        See :class:`Form`.
    budget : int, optional
        Work units a default check may spend (default: the checker's
        ``DEFAULT_MAX_WORK``).

    Returns
    -------
    CertifiedSolve

    Raises
    ------
    InvalidInput
        Unknown form; ``form="orbit"`` for a Y that is not the orbit target of the group;
        as for :meth:`LayerPeeled.solve` and the certificate builders.
    SolverFailed
        The solver's status is not optimal.
    EngineError
        The certificate built failed the checker (an emitter bug).

    Examples
    --------
    >>> from logitgeom.convex import LayerPeeled
    >>> from logitgeom.symmetry import affine_line, orbit_targets
    >>> Y = orbit_targets(affine_line(5), ["1/2", "1/4", "1/8", "1/8", "0"]).exact_Y()
    >>> out = certified_solve(LayerPeeled(Y, 1, 1), budget=10_000)
    >>> str(out.form), out.certificate["group_order"]
    ('orbit', 20)
    >>> out.note.split(";")[0]
    'the full bracket (5 x 20) would take about 28,000 units of exact work to check (over ...)'
    >>> out.work <= 10_000
    True
    """
    from logitgeom.errors import EngineError
    from logitgeom_certificates.api import DEFAULT_MAX_WORK, check

    try:
        form = Form(form)
    except ValueError:
        raise InvalidInput(f"unknown certificate form {form!r}; choose one of "
                           f"{', '.join(f.value for f in Form)}") from None
    limit = DEFAULT_MAX_WORK if budget is None else int(budget)
    over = f"over the {'default ' if budget is None else ''}check budget of {limit:,}"
    m, n = problem.shape
    kw = {"eps": eps, "eps_mode": eps_mode, "provenance": provenance}
    solve_opts = dict(options)
    if group is not None and _takes_group(method):
        solve_opts["group"] = group

    def orbit_cert(T: Any, why: str) -> CertifiedSolve:
        from logitgeom.convex.problem import LayerPeeled

        target = problem if T is problem.orbit_target else LayerPeeled(
            T, problem.E_W_exact, problem.E_H_exact)
        opts = {k: v for k, v in solve_opts.items() if k != "group"}
        sol = target.solve(method, solver, **opts)
        cert = sol.certificate(orbit=True, **kw)
        work = _checked(cert)
        order, bases = T.action.order, len(T.base)
        note = "" if not why else (
            f"{why}; Y is the orbit of {bases} column{'s' * (bases != 1)} under a group of "
            f"order {order:,}: wrote the orbit bracket instead (layer-peeled-orbit-bracket, "
            f"its check: {work:,} units)")
        return CertifiedSolve(cert, sol, Form.ORBIT, work, limit, note)

    def _checked(cert: dict) -> int:
        verdict = check(cert, 1 << 62)  # metered: the exact work, never write a rejected one
        if not verdict.ok:  # pragma: no cover - would be an emitter bug
            raise EngineError(f"emitted certificate failed {verdict.failed_check} at "
                              f"{verdict.location}: {verdict.message} (please report this bug)")
        return int(verdict.work or 0)

    if problem.orbit_target is not None and form is not Form.FULL:
        return orbit_cert(problem.orbit_target, "")
    estimate = bracket_check_work(m, n)
    known = group
    if form is Form.ORBIT or (form is Form.AUTO and estimate > limit):
        if known is None:  # the group the reduction verified exactly on Y, if any
            _, acceptance = problem.choose(method, **solve_opts)
            known = getattr(acceptance.plan, "label_generators", None)
        T = orbit_form(problem, known) if known else None
        if T is not None:
            return orbit_cert(T, f"the full bracket ({m} x {n}) would take about "
                                 f"{estimate:,} units of exact work to check ({over})"
                                 if form is Form.AUTO else "")
        if form is Form.ORBIT:
            raise InvalidInput("Y is not the orbit target of " + (
                "the given group" if group is not None else "a group the solve verified "
                "exactly on Y (pass group=)") + ": its columns are not the images of a few "
                "base columns, |G| each")
    sol = problem.solve(method, solver, **solve_opts)
    cert = sol.certificate(generators=generators, **kw)
    work = _checked(cert)
    if work <= limit or form is Form.FULL:
        return CertifiedSolve(cert, sol, Form.FULL, work, limit, _over(work, over, None)
                              if work > limit else "")
    tried = known is not None
    if known is None:
        known = getattr(getattr(sol.reduction, "plan", None), "label_generators", None)
    T = orbit_form(problem, known) if known and not (tried and estimate > limit) else None
    if T is not None:
        return orbit_cert(T, f"the full bracket ({m} x {n}) takes {work:,} units of exact "
                             f"work to check ({over})")
    return CertifiedSolve(cert, sol, Form.FULL, work, limit, _over(work, over, known))


def _over(work: int, over: str, known: Any) -> str:
    """What a check of a full bracket over the budget needs, and the orbit form's recipe."""
    return (f"checking this certificate takes {work:,} units of exact work ({over}): "
            f"check it with `logitgeom check --max-work {work} "
            "FILE`; if Y is the orbit of a few columns under a group G, `logitgeom certify "
            "solve --bases FILE --group G` writes the orbit bracket instead (m x m sized)"
            + ("" if known is None else " (the group found preserves Y, but Y is not the "
               "orbit of base columns under it, |G| columns each)"))


def _takes_group(method: str) -> bool:
    """Whether ``method`` (or some reduction "auto" asks) understands ``group=``."""
    from logitgeom.convex.reductions import REGISTRY, get_reduction

    name = str(method).lower()
    if name == "auto":
        return True
    return name in REGISTRY and "group" in get_reduction(name).options
