"""Every option of every command, and the public API, against bad input
(``scripts/fuzz_options.py``): 0 tracebacks, 0 hangs, 0 exit-0 on bad input, 0 raw
exceptions.

The coverage tests fail when an argparse option has no bad-input case, or a public callable
no working call.  The fast form (the first bad input of each option; the API with four bad
values) runs here; the full form is marked slow.  Cases whose fix belongs to another
developer of issue 43 are ``xfail(strict=True)`` with the issue bullet: the lead removes the
mark when the fix is merged (strict: a mark left on a fixed case fails).
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

_DROPPED = ('fixed by h2opt: issue 43 "Options silently dropped" / "Every option is honoured '
            'or refused, on every command and in the API"')
_TOL = ('fixed by h2opt: issue 43 "solve --tol -1 (nan, inf, 1e400) exits 0 and ignores it; '
        'certify solve refuses it"')
_SHARD = ('fixed by h2opt: issue 43 "--shard-rows 0 and --transpose --rows-are-labels '
          'together are accepted"')
_RAW = ('fixed by h2opt: issue 43 "18 raw exceptions come out of the new API calls '
        '(occupancy(top=\'a\'), chunk_rows=1.5, out=5, solve_layer_peeled(d=10**20), an '
        'OverflowError from well-typed numbers, ...)"')

def _names(reason, *names):
    return dict.fromkeys(names, reason)


_PANIC = ('fixed by h2opt: issue 43 "--h-budget 1e-300,1,1 or --weights 1e300,1,1 raise '
          'Clarabel\'s PanicException as a traceback through the CLI"')

#: CLI case name -> reason (see the module docstring); exact names, as the battery prints them
KNOWN_CLI = {
    **_names(_DROPPED,
             "certify solve --solver #0: --solver bogus",
             "solve --solver #0: --solver bogus",
             "inspect --device #0: --device bogus",
             "symmetry detect --tol #2: --tol inf",
             "audit-argmax --tensor #0: --tensor no.such.tensor",
             "audit-argmax --tokenizer #0: --tokenizer {missing}",
             "occupancy --tensor #0: --tensor no.such.tensor",
             "occupancy --device #0: --device bogus",
             "occupancy --dtype #0: --dtype bogus"),
    **_names(_TOL, "solve --tol #0: --tol -1", "solve --tol #1: --tol nan",
             "solve --tol #2: --tol inf", "solve --tol #3: --tol 1e400"),
    **_names(_SHARD,
             "patterns sign --shard-rows #0: -o {out} --shard-rows 0",
             "patterns ranking --shard-rows #0: -o {out} --shard-rows 0",
             "audit-argmax --rows-are-labels #0: --rows-are-labels --transpose"),
    **_names(_PANIC,
             "certify solve --weights #2: --weights 1e300,1,1",
             "certify solve --h-budget #1: --h-budget 1e-300,1,1",
             "solve --weights #2: --weights 1e300,1,1",
             "solve --h-budget #1: --h-budget 1e-300,1,1"),
}

#: (public callable, argument) -> indices into fuzz_options.API_BAD that raise raw today
KNOWN_API = {
    ("GroupAction", "0"): (0, 2, 3, 4, 5, 6, 9, 10),
    ("GroupAction", "m"): (0, 1, 3, 4, 7, 8, 9),
    ("GroupAction", "n"): (0, 1, 3, 4, 7, 8, 9),
    ("LayerPeeled", "equal_rows"): (1, 2, 3, 4, 5, 6, 8, 9, 10),
    ("audit_argmax", "out"): (2, 3, 4, 5, 6, 7, 8, 9, 10),
    ("audit_argmax", "domains"): (2, 3, 4, 5, 6, 9, 10),
    ("audit_argmax", "label_names"): (2, 3, 4, 5, 6, 9, 10),
    ("solve_layer_peeled", "d"): (2,),
}

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
