"""Round three of the battery (issue 36): each failure a new user met, as a case.

Command cases run ``logitgeom ARGS``; API cases (``call=``) run a Python call in the forked
child, where an :class:`logitgeom.errors.EngineError` is a clear error and anything else that
escapes is a traceback.  ``expect``: True (must succeed), False (must fail cleanly).
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _says(*words):
    def chk(code, out, err):
        return None if all(w in err for w in words) else f"message without {words}: {err[-200:]}"
    return chk


def _api(expr: str):
    """A call the child evaluates (names: numpy as np, the engine's public API)."""
    def call():
        import numpy as np  # noqa: F401 - used by the expressions

        from logitgeom import LayerPeeled, audit_argmax, gram_exact, normalized_gram  # noqa: F401
        from logitgeom.geometry import open_result, random_head, verify_grid  # noqa: F401
        from logitgeom.symmetry import parse_group, predicted_gram_structure  # noqa: F401

        value = eval(expr)  # noqa: S307 - the battery's own fixed expressions
        repr(value)
    return call


def round3_cases(d: Path, Case) -> list:
    """The round-three cases, files made in ``d``."""
    import numpy as np

    y = d / "r3-Y.csv"
    y.write_text("0.5,0.25\n0.5,0.75\n")
    w = d / "r3-W.csv"
    w.write_text("1,0\n0,1\n1,1\n")
    big = d / "r3-big.csv"
    big.write_text("1e308,-1e308\n-1e308,1e308\n1,1\n")
    fifo = str(d / "r3-fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    dup = d / "r3-dup.json"
    dup.write_text('{"W": [[1, 0], [0, 1]], "W": [[1, 1], [2, 2]]}')
    lie = d / "r3-lie.npy"
    np.save(lie, np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    lie.write_bytes(lie.read_bytes().replace(b"(3, 2)", b"(300000, 200000)"))
    bad_man = d / "r3-badman"
    bad_man.mkdir(exist_ok=True)
    (bad_man / "manifest.json").write_text("[1, 2]")
    inc = d / "r3-incomplete"
    if not inc.exists():
        from logitgeom.geometry import enumerate_to_dir

        enumerate_to_dir([[1, 0], [0, 1], [1, 1]], inc, progress=False)
        man = json.loads((inc / "manifest.json").read_text())
        (inc / "manifest.json").write_text(json.dumps(dict(man, complete=False)))
    C = Case
    cases = [
        C("solve --eh 1e-400", ["solve", str(y), "--eh", "1e-400"], False,
          check=_says("smallest positive float")),
        C("certify solve --eh 1e-400", ["certify", "solve", str(y), "--eh", "1e-400", "-o",
                                        str(d / "r3-c1.json")], False,
          check=_says("smallest positive float")),
        C("audit-argmax --labels /dev/zero", ["audit-argmax", str(w), "--labels", "/dev/zero",
                                              "-o", str(d / "r3-a1")], False,
          check=_says("not a regular file")),
        C("audit-argmax --labels FIFO", ["audit-argmax", str(w), "--labels", fifo, "-o",
                                         str(d / "r3-a2")], False,
          check=_says("not a regular file")),
        C("verify-grid --n 3 --seeds 1e9", ["verify-grid", "--n", "3", "--seeds",
                                            "1000000000"], False, check=_says("over the limit")),
        C("verify-grid --n 1000", ["verify-grid", "--n", "1000"], False,
          check=_says("over the limit")),
        C("verify-grid --d-max 100", ["verify-grid", "--d-max", "100"], False,
          check=_says("over the limit")),
        C("patterns ranking -o d --workers 100000",
          ["patterns", "ranking", str(w), "-o", str(d / "r3-d"), "--workers", "100000"], False,
          check=_says("--workers")),
        C("certify pattern --top -1", ["certify", "pattern", str(w), "--top", "-1", "-o",
                                       str(d / "r3-c2.json")], False, check=_says("top must")),
        C("certify pattern --top 0", ["certify", "pattern", str(w), "--top", "0", "-o",
                                      str(d / "r3-c3.json")], False, check=_says("top must")),
        C("audit-argmax <entries +-1e308>", ["audit-argmax", str(big), "-o", str(d / "r3-a3"),
                                             "--no-progress"], True),
        C("count sign <duplicated JSON key>", ["count", "sign", str(dup)], False,
          check=_says("appears twice")),
        C("reproduce --only ''", ["reproduce", "--only", "", "--out", str(d / "r3-r")], False,
          check=_says("names no claim")),
        C("count sign <.npy header lying about its shape>", ["count", "sign", str(lie)], False,
          check=_says("header says shape")),
        C("certify pattern --from <incomplete run>",
          ["certify", "pattern", "--from", str(inc), "-o", str(d / "r3-c4.json")], False,
          check=_says("incomplete run")),
    ]
    for expr in ("LayerPeeled(np.array([[0.5, 0.25], [0.5, 0.75]]), '1e400', 1).solve()",
                 "LayerPeeled([[10**5000, 1], [1, 1]], 1, 1, normalize=True).solve()",
                 "audit_argmax([[10**5000, 1], [0, 1], [1, 0]], progress=False)",
                 "audit_argmax([[10**400, 1], [0, 1], [1, 0]], progress=False)",
                 "normalized_gram([[10**5000, 1], [0, 1]])",
                 "gram_exact([[10**5000, 1], [0, 1]])",
                 f"open_result({str(bad_man)!r})",
                 "verify_grid(ns=['a'])",
                 "predicted_gram_structure('S40 wr S40')",
                 "random_head(10**9, 10**9, 0)"):
        cases.append(C(f"api: {expr}", [], False, call=_api(expr)))
    for expr in ("repr(parse_group('S40 wr S40'))",
                 "LayerPeeled(np.eye(3), 3000, 3000).solve()"):
        cases.append(C(f"api: {expr}", [], True, call=_api(expr)))
    return cases
