"""Every figure ``benchmarks/bench_readme.py`` re-measures is still quoted where it says
(its text on exactly one line of that file), so the printed ``file:line`` is right."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_measured_figure_is_found_where_it_is_quoted():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_readme as b

    for key, value, unit, path, text in b.FIGURES:
        loc = b.where(path, text)
        assert "?" not in loc, (key, loc)
        line = (ROOT / path).read_text().splitlines()[int(loc.split(":")[1]) - 1]
        assert f"{value:g}".replace(".0", "") in line.replace(",", "") or unit == "CPU s" \
            and key.startswith("group:audit"), (key, value, line)
    assert any(n for _, n, _ in b.figure_lines())
