"""Emission of certificates: the engine side of :mod:`certificates`.

:mod:`engine.certify.emit` builds certificates (plain dicts, format in
``certificates/SPEC.md``) from exact data with the engine's exact LP and enumeration;
:mod:`engine.certify.paper` is the set of the papers' results that
``logitgeom certify paper`` writes.  This package depends on :mod:`certificates` (to check
what it emits); :mod:`certificates` never imports it.
"""
