"""Certificate building: the engine side of :mod:`certificates`, one room for every kind.

One floor, just above the exact kernel: every builder here works from exact data handed to
it and imports nothing above :mod:`engine.exact` (no enumeration, no solver), so every
result can delegate its ``.certificate()`` here without an arrow back up.  One module per
family, all on the header and canonical text of :mod:`engine.certify.common`:
:mod:`engine.certify.geometry` (patterns, rankings, argmaxable labels, grid bundles),
:mod:`engine.certify.convex` (layer-peeled brackets and their theorems),
:mod:`engine.certify.audit` (argmax audits of real heads) and :mod:`engine.certify.stream`
(streamed complete enumerations).  The entry points that start from a bare matrix and
enumerate first live one floor up, in :mod:`engine.emit` (``from engine import emit``);
the papers' certificates that ``logitgeom certify paper`` writes in
:mod:`engine.reproduce.paper`.  This package depends on :mod:`certificates` (for the format
constants and the meaning of the rows it proves); :mod:`certificates` never imports it.
"""
