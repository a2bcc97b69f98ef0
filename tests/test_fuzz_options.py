"""Every option of every command, and the public API, against bad input
(``scripts/fuzz_options.py``): 0 tracebacks, 0 hangs, 0 exit-0 on bad input, 0 raw
exceptions.

The coverage tests fail when an argparse option has no bad-input case, or a public callable
no working call.  The fast form (the first bad input of each option; the API with four bad
values) runs here; the full form is marked slow.  A case that fails and is not fixed yet
would be ``xfail(strict=True)`` with its reason in ``KNOWN_CLI`` / ``KNOWN_API`` (strict: a
mark left on a fixed case fails); both are empty: every case passes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import fuzz_options as fo  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the battery forks")

#: no case may take longer (wall clock, so also CPU) on these small files
TIMEOUT = 60.0

#: CLI case name -> reason (see the module docstring); exact names, as the battery prints
#: them.  Empty: every case of the battery passes.
KNOWN_CLI: dict[str, str] = {}

#: (public callable, argument) -> indices into fuzz_options.API_BAD that raise raw today
KNOWN_API: dict[tuple[str, str], tuple[int, ...]] = {}
_RAW = "a raw exception from the public API (issue 43, \"18 raw exceptions ...\")"

KNOWN = KNOWN_CLI | {name: _RAW for name, f, slot, _ in fo.api_case_specs(full=True)
                     if int(name.rsplit("#", 1)[1]) in KNOWN_API.get((f, str(slot)), ())}


def _params(names):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN[n]))
            if n in KNOWN else n for n in names]


def _api_names(full):
    return [n for n, *_ in fo.api_case_specs(full)]


@pytest.fixture(scope="module")
def battery(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz-options")
    import logitgeom.cli.main  # noqa: F401 - imported once; the children fork from here

    cases = fo.cli_cases(d / "files", full=True) | fo.api_cases(d / "api", full=True)
    return d, cases


def _assert_clean(battery, name):
    d, cases = battery
    r = fo.run_one(cases[name], d, TIMEOUT)
    assert r.kind not in fo.BAD_KINDS, f"{r.kind}: {r.detail}"
    if cases[name].argv:  # a CLI case: bad input is refused
        assert r.kind == "clear", f"{r.kind}: {r.detail}"


# ---------------------------------------------------------------------------- coverage
def test_every_option_of_every_command_has_a_bad_input_case():
    assert fo.missing_cases() == []


def test_every_public_callable_has_a_working_call():
    base = fo._api_base()
    assert set(fo.api_names()) - fo.API_RESULT_TYPES == set(base)
    import logitgeom

    for name, (args, kw) in base.items():  # the battery changes one argument of these
        getattr(logitgeom, name)(*args, **kw)


def test_known_failures_name_existing_cases():
    assert set(KNOWN) <= set(fo.case_names(full=True) + _api_names(full=True))


# --------------------------------------------------------------------------- the fast form
@pytest.mark.parametrize("name", _params(fo.case_names()))
def test_bad_option_is_refused(battery, name):
    _assert_clean(battery, name)


@pytest.mark.parametrize("name", _params(_api_names(full=False)))
def test_bad_api_argument_raises_an_engine_error(battery, name):
    _assert_clean(battery, name)


# --------------------------------------------------------------------------- the full form
_FAST = set(fo.case_names()) | set(_api_names(full=False))


@pytest.mark.slow
@pytest.mark.parametrize("name", _params([n for n in fo.case_names(full=True) + _api_names(True)
                                          if n not in _FAST]))
def test_full_battery(battery, name):
    _assert_clean(battery, name)
