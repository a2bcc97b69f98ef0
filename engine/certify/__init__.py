"""Certificate building: the engine side of :mod:`logitgeom_certificates`, one room for every kind.

One floor, just above the exact kernel: every builder here works from exact data handed to
it and imports nothing above :mod:`logitgeom.exact` (no enumeration, no solver), so every
result can delegate its ``.certificate()`` here without an arrow back up.  One module per
family, all on the header and canonical text of :mod:`logitgeom.certify.common`:
:mod:`logitgeom.certify.geometry` (patterns, rankings, argmaxable labels, grid bundles),
:mod:`logitgeom.certify.convex` (layer-peeled brackets and their theorems),
:mod:`logitgeom.certify.audit` (argmax audits of real heads) and :mod:`logitgeom.certify.stream`
(streamed complete enumerations).  The entry points that start from a bare matrix and
enumerate first live one floor up, in :mod:`logitgeom.emit` (``from logitgeom import emit``);
the papers' certificates that ``logitgeom certify paper`` writes in
:mod:`logitgeom.reproduce.paper`.  This package depends on :mod:`logitgeom_certificates` (for the
format
constants and the meaning of the rows it proves); :mod:`logitgeom_certificates` never imports it.
"""
