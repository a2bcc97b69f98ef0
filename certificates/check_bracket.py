"""Kind ``layer-peeled-bracket`` (the fields shared by every plain bracket kind: FIELDS).

Standard library only; the derivations are in docs/certified-optima.md, the format in
certificates/SPEC.md section 8.  Each kind reads its fields and hands them to the one
bracket obligation (:func:`.convex.bracket`: cross-entropy with unit weights):

* ``layer-peeled-bracket``: Y (exact probability columns: ``target``), W, H, P;
* ``layer-peeled-orbit-bracket``: Y = [P_g y_b : g in G, b] is never built: the bases
  (``target``), the generators (``generator``), the group order (computed by Schreier-Sims:
  ``group-order``), W invariant under every generator (``structure-invariant``); every column
  sum is |G| times a sum over the bases, and (P - Y)(P - Y)^T = |G| x the orbital mean of
  sum_b v_b v_b^T, v_b = p_b - y_b;
* ``layer-peeled-theorem``: its one bracket part (checked first) carries the structure
  claims and the generators the theorem's hypotheses need.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-bracket",
...         "Y": [["1/2"], ["1/2"]], "E_W": "1", "E_H": "1", "W": [["0"], ["0"]],
...         "H": [["0"]], "P": [["1/2"], ["1/2"]], "s": "0", "rho_up": "1",
...         "precision": 30, "lower": "693147/1000000", "upper": "693149/1000000",
...         "eps": "1/100000", "eps_mode": "absolute", "structure": []}
>>> check(cert).upper
Fraction(693149, 1000000)
"""

from __future__ import annotations

from . import convex as C
from . import kernel as K

KINDS = ("layer-peeled-bracket", "layer-peeled-theorem", "layer-peeled-orbit-bracket")
FIELDS = C.FIELDS | {"Y", "H", "P"}


def check(obj: K.Obj, loc: str = "", parts: object = None, W: K.Mat | None = None) -> C.Reading:
    """A ``layer-peeled-bracket``: the bracket obligation on Y, W, H, P (``W``: already read
    by the caller, never read twice)."""
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    C.stochastic(Y, "target", f"{loc}/Y")
    W = W or K.read_field(K.read_matrix, obj, "W", loc, rows=m)  # a matrix has >= 1 row
    K.fail_if(len(W) != m, "shape", f"{loc}/W", f"expected {m} entries, got {len(W)}")
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=len(W[0]), cols=n)
    P = K.read_field(K.read_matrix, obj, "P", loc, rows=m, cols=n)
    return C.bracket(obj, loc, Y, W, H, P)


KIND_TABLE = {KINDS[0]: (check, FIELDS)}
