"""Certificate building: the engine side of :mod:`certificates`, one room for every kind.

One module per family, all on the header and canonical text of
:mod:`engine.certify.common`: :mod:`engine.certify.geometry` (patterns, rankings,
argmaxable labels, grid bundles, from exact data; the results' ``.certificate()``
methods delegate here), and the convex, audit and stream families beside it.
:mod:`engine.certify.emit` is the index (``from engine.certify import emit``) with the
entry points that start from a bare matrix; :mod:`engine.certify.paper` is the set of the
papers' results that ``logitgeom certify paper`` writes.  This package depends on
:mod:`certificates` (for the format constants and the meaning of the rows it proves);
:mod:`certificates` never imports it.
"""
