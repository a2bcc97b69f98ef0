"""The public checker API: everything outside :mod:`logitgeom_certificates` may use, and nothing
else.

The engine (which emits certificates) imports from here only, never a checker module or a
private name.  Names are loaded on first use, so importing this module (or ``logitgeom``) loads
no checker code it does not need: ``orbital_labels`` brings the small group module, not the
bracket checker with its ``decimal`` arithmetic.

Format and checking
    ``FORMAT``, ``VERSION``, ``THEOREMS`` (theorem kinds), ``KINDS``, ``MAX_DIGITS`` (the one
    digit limit of numbers, for engine and checker), ``Fail``, ``Verdict``, ``check``,
    ``check_file``, ``read_and_check``, ``main`` (the command line), ``check_audit_file``
    (an audit, optionally only a sample of its proofs), ``NPY_HEADER`` (the one head file
    layout an audit references), ``DEFAULT_MAX_WORK``, ``int_to_str`` / ``str_to_int``
    (decimal text of integers of any length, without the interpreter's digit limit).
Meaning of geometric data
    ``sign_rows``, ``ranking_rows``, ``arrangement``, ``pattern_key`` (streamed shards),
    ``default_budget`` (the default budget of a streamed certificate), ``line_units`` (the
    most units the check of one shard line charges).
Exact bracket arithmetic (the emitter states the bounds the checker recomputes)
    ``BRACKET_KINDS``, ``BRACKET_THEOREMS``, ``bracket_bounds``, ``check_bracket``,
    ``check_orbit_bracket`` (raise ``Fail``), ``decimal_context``, ``exp_up``, ``log_up``,
    ``loss_upper``, ``entropy_lower``, ``int_matrix``, ``matmul``, ``psd_fails``,
    ``group_order``, ``orbital_labels``, ``orbital_mean``; the layer-peeled family
    (weighted, MSE, BCE brackets and their theorems): ``FAMILY_KINDS``, ``FAMILY_LOSS_OF``,
    ``family_bounds``, ``check_family``.

Examples
--------
>>> from logitgeom_certificates import api
>>> api.orbital_labels(2, [[1, 0]])
[0, 1, 1, 0]
>>> api.MAX_DIGITS
4000
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> (module of certificates, name there)
_WHERE = {
    "FORMAT": ("kernel", "FORMAT"), "VERSION": ("kernel", "VERSION"),
    "MAX_DIGITS": ("kernel", "MAX_DIGITS"), "Fail": ("errors", "Fail"),
    "str_to_int": ("bigint", "str_to_int"),
    "Verdict": ("kernel", "Verdict"), "DEFAULT_MAX_WORK": ("meter", "DEFAULT_MAX_WORK"),
    "THEOREMS": ("check", "THEOREMS"),
    "KINDS": ("check", "KINDS"), "check": ("check", "check"),
    "check_file": ("_files", "check_file"), "read_and_check": ("_files", "read_and_check"),
    "main": ("check", "main"), "check_audit_file": ("check_audit", "check_file"),
    "NPY_HEADER": ("check_audit", "NPY_HEADER"),
    "sign_rows": ("semantics", "sign_rows"), "ranking_rows": ("semantics", "ranking_rows"),
    "arrangement": ("semantics", "arrangement"), "pattern_key": ("check_stream", "pattern_key"),
    "line_units": ("check_stream", "line_units"), "read_model": ("semantics", "read_model"),
    "integer_model": ("semantics", "integer_model"),
    "BRACKET_KINDS": ("check_bracket", "KINDS"), "BRACKET_THEOREMS": ("check_orbit", "THEOREMS"),
    "check_bracket": ("check_bracket", "check"),
    "check_orbit_bracket": ("check_orbit", "check_orbit"),
    "decimal_context": ("reals", "context"), "exp_up": ("reals", "exp_up"),
    "log_up": ("reals", "log_up"), "loss_upper": ("convex", "loss_upper"),
    "entropy_lower": ("convex", "entropy_lower"),
    "int_matrix": ("kernel", "scaled_matrix"), "matmul": ("kernel", "matmul"),
    "psd_fails": ("convex", "psd_fails"), "group_order": ("groups", "group_order"),
    "orbital_labels": ("groups", "orbital_labels"), "orbital_mean": ("groups", "orbital_mean"),
    "FAMILY_KINDS": ("check_family", "KINDS"), "FAMILY_LOSS_OF": ("check_family", "LOSS_OF"),
    "family_bounds": ("check_family", "bounds"), "check_family": ("check_family", "check"),
}
__all__ = sorted([*_WHERE, "bracket_bounds", "default_budget", "int_to_str"])

#: Largest integer converted by the built-in ``str`` (13,000 bits: under 3,914 + 1 digits).
_PIECE_BITS = 13000


def int_to_str(n: int) -> str:
    """Decimal text of the integer ``n`` (any length; ``"-"`` for negatives), in pieces
    below the interpreter's digit limit: how the engine writes long numbers (the checker
    reads them with ``str_to_int``, :mod:`.bigint`; writing decides no verdict).

    Examples
    --------
    >>> int_to_str(10 ** 5000) == "1" + "0" * 5000, int_to_str(-12)
    (True, '-12')
    >>> from logitgeom_certificates.bigint import str_to_int
    >>> s = int_to_str(7 ** 20000)                       # 16,902 digits
    >>> len(s), str_to_int(s) == 7 ** 20000
    (16902, True)
    """
    if n < 0:
        return "-" + int_to_str(-n)
    if n.bit_length() <= _PIECE_BITS:
        return str(n)
    from .bigint import pow10

    half = (n.bit_length() * 30103 // 100000) // 2  # about half the digits
    hi, lo = divmod(n, pow10(half))
    return int_to_str(hi) + int_to_str(lo).zfill(half)


def default_budget(obj: Any) -> int:
    """The default budget of a streamed certificate (assumes its fields parse): what
    ``check`` without ``--max-work`` allows, the default work plus the streamed check's own
    grant (:func:`.check_stream.allowance`; the checker grants it itself, so this figure
    decides no verdict).

    Examples
    --------
    >>> c = {"W": [["1"]], "pattern": "sign", "lattice": [{}, {}], "shards": [{"rows": 2}]}
    >>> from logitgeom_certificates.meter import DEFAULT_MAX_WORK
    >>> default_budget(c) - DEFAULT_MAX_WORK
    60
    """
    from .check_stream import allowance
    from .meter import DEFAULT_MAX_WORK

    return DEFAULT_MAX_WORK + allowance(len(obj["lattice"]), len(obj["W"]), len(obj["W"][0]),
                                        obj["pattern"], sum(s["rows"] for s in obj["shards"]))


def bracket_bounds(obj: Any) -> tuple[Any, Any]:
    """(a rational >= J(W H), a rational <= Ent(P) - rho_up s) of a ``layer-peeled-bracket``
    dict: the checker's own bounds, which the emitter states as ``upper`` and ``lower``
    (assumes the fields parse; the checker re-derives both)."""
    from . import convex as cv
    from .kernel import read_matrix, read_number

    Y, W, H, P = (read_matrix(obj[k], f"/{k}") for k in ("Y", "W", "H", "P"))
    ctx = cv.context(obj["precision"])
    low = cv.entropy_lower(P, ctx) - read_number(obj["rho_up"], "") * read_number(obj["s"], "")
    return cv.loss_upper(Y, W, H, ctx), low


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module '{__name__}' has no attribute {name!r}")
    module, attr = _WHERE[name]
    value = getattr(importlib.import_module(f"{__package__}.{module}"), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
