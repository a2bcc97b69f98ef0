"""``benchmarks/bench_readme.py``'s registry of the figures README.md and docs/ quote.

Every figure it re-measures is still quoted where it says (its text on exactly one line of
that file), so the printed ``file:line`` is right; every figure-quoting line ``--list``
finds is either re-measured, a limit/constant or an estimate, and no line of the pages
labels a figure as a record of an earlier round (those live in benchmarks/records.md);
every registered measurement names a case or group that produces it; and the group output
parsers read the lines the benchmark scripts print."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_readme as b  # noqa: E402


def _line(path: str, text: str) -> tuple[int, str]:
    loc = b.where(path, text)
    assert "?" not in loc, loc
    n = int(loc.split(":")[1])
    return n, (ROOT / path).read_text().splitlines()[n - 1]


def test_every_measured_figure_is_found_where_it_is_quoted():
    for key, value, _unit, path, text in b.FIGURES:
        _, line = _line(path, text)
        assert f"{value:g}".replace(".0", "") in line.replace(",", ""), (key, value, line)
    assert any(n for _, n, _ in b.figure_lines())


def test_every_measured_figure_names_what_produces_it():
    whole = {"cpu_s", "cpu_min", "peak_rss_mb", "peak_rss_gb"}
    for key, *_ in b.FIGURES:
        prefix, name = key.split(" ")
        if prefix.startswith("group:"):
            group = prefix[len("group:"):]
            assert group in b.GROUPS, key
            parsed = {k for g, k, _ in b.GROUP_FIGURES if g == group}
            extra = {"reproduce": {"out_mb"},
                     "certified": {"paper_emit_cpu_s", "paper_check_cpu_s"},
                     "family": {"worst_solve_cpu_s", "worst_emit_cpu_s",
                                "worst_check_cpu_s"}}.get(group, set())
            assert name in whole | parsed | extra, key
        else:
            assert prefix in b.CASES, key


def test_every_figure_line_is_measured_or_labelled():
    for path, text, kind, why in b.NOT_MEASURED:
        assert kind in b.KIND_LABEL and why, (path, text)
        _line(path, text)
    rows = b.classify()
    left = [(p, n, line) for p, n, kind, _, line in rows if kind == "not"]
    assert not left, left


def test_no_page_quotes_a_record_of_an_earlier_round():
    assert not b.dated_records(), b.dated_records()
    assert b.RECORD_RE.search("(a record of 2026-12-01: about 16 CPU s)")
    assert (ROOT / "benchmarks" / "records.md").is_file()


def test_group_parsers_read_the_scripts_lines():
    text = {
        "symmetry": "cyclic96  auto         96    0.390    0.162     195        437.81  1e-06  1\n"
                    "cyclic96  none         96  129.084   45.361    1253        437.81  4e-08 97\n"
                    "agl101    auto      10100    2.164    0.871     245      46610.78  3e-10  1\n"
                    "agl101    none          -     >150        -       -       timeout  -  -\n"
                    "s10       auto    3628800   17.817    4.374     660    8355411.08  6e-08  1\n",
        "certified": "worst check 0.116 s (goal <= 1 s), worst emit 0.230 s (goal <= 5 s); "
                     "peak RSS 363 MB\n",
        "family": "minority curve (9 ratios + bisection): 4.5 s CPU; verdicts 1:s\n"
                  "peak RSS 204 MB\n",
        "coq": "export: audit.v, 0.63 MB; 0.4 CPU s\n"
               "coqc: accepted; 20.7 CPU s (user + sys of coqc; goal <= 60)\n",
        "coq-stream": "        head  regions  files   refuted    LPs   .v MB export s  check s "
                      "peak MB  verdict\n"
                      "       shi-6    16807      5     76666    175     4.1      4.8     59.3"
                      "     641  accepted\n"
                      "       shi-7   262144     67   1515758    321    80.3     86.0   1349.6"
                      "    1761  accepted\n",
        "coq-grid": "export: grid.v, 0.66 MB, prefix-tree refutations 2288 (rankings) + 2478 "
                    "(sign vectors); 9.7 CPU s\ncoqc: accepted; 18.8 CPU s (user + sys of coqc)\n",
        "models": "load 7 rows (memory-mapped)               0.010 s wall    0.002 s CPU\n"
                  "cosine audit + certificate check          1.408 s wall    0.471 s CPU\n",
        "occupancy": "1,000,000 inputs, 50 x 64 head: 14.6 CPU s (user + sys, all threads), "
                     "32.5 s wall; shards 89 MB; peak RSS 1500 MB\n",
        "patterns": "S(W) k=20 d=5: 10072 regions in 0.90 s (count_regions 0.012 s)\n",
        "patterns-rw": "S(W) k=20 d=5: 10072 regions in 0.91 s (count_regions 0.012 s)\n"
                       "R(W) k=10 d=6: 557640 rankings in 40.9 s with witnesses (24.1 s "
                       "without); count_rankings 0.310 s; peak RSS main 609 MB, workers "
                       "120 MB\n",
        "grid": "exact grid: all passed = True\n"
                "  method enumerate: 99.5 s wall (whole grid; cells sum to 196.2 s)\n"
                "  method transport: 55.7 s wall (whole grid; cells sum to 111.1 s)\n",
        "audit": "--- ordinary labels: 50174; wall 310.3 s, CPU 300.9 s (6.0 ms CPU per "
                 "label)\n",
        "coq-witnesses": "export (never-proofs, --no-witnesses): audit.v, 0.21 MB; 0.4 CPU s\n"
                         "coqc: accepted; 13.1 CPU s (user + sys of coqc; goal <= 60)\n"
                         "export (never-proofs and 988 witnesses): audit.v, 3.10 MB; 2.2 "
                         "CPU s\ncoqc: accepted; 281.0 CPU s (user + sys of coqc)\n",
    }
    want = {("symmetry", "cyclic96_cpu_s"): 0.162, ("symmetry", "cyclic96_rss_mb"): 195,
            ("symmetry", "cyclic96_undecomposed_cpu_s"): 45.361,
            ("symmetry", "agl101_cpu_s"): 0.871, ("symmetry", "s10_rss_mb"): 660,
            ("certified", "rss_mb"): 363, ("family", "curve_cpu_s"): 4.5,
            ("family", "rss_mb"): 204, ("coq", "coqc_cpu_s"): 20.7,
            ("coq-grid", "export_cpu_s"): 9.7, ("coq-grid", "coqc_cpu_s"): 18.8,
            ("coq-grid", "coq_mb"): 0.66, ("coq-stream", "shi6_check_cpu_s"): 59.3,
            ("coq-stream", "shi7_check_cpu_s"): 1349.6, ("coq-stream", "shi7_peak_mb"): 1761,
            ("coq-stream", "shi7_export_cpu_s"): 86.0, ("models", "read_rows_cpu_s"): 0.002,
            ("models", "audit_cpu_s"): 0.471, ("occupancy", "cpu_s"): 14.6,
            ("occupancy", "shards_mb"): 89, ("patterns", "sw_wall_s"): 0.9,
            ("patterns-rw", "rw_witnesses_wall_s"): 40.9, ("patterns-rw", "rw_wall_s"): 24.1,
            ("patterns-rw", "rw_main_rss_mb"): 609, ("patterns-rw", "rw_workers_rss_mb"): 120,
            ("coq-witnesses", "witnesses_coqc_cpu_s"): 281.0,
            ("grid", "transport_wall_s"): 55.7, ("grid", "enumerate_wall_s"): 99.5,
            ("audit", "ordinary_ms_per_label"): 6.0}
    import re

    got = {}
    for group, key, pattern in b.GROUP_FIGURES:
        m = re.search(pattern, text[group], re.M)
        if m:
            got[group, key] = float(m.group(1))
    for k, v in want.items():
        assert got.get(k) == v, (k, got.get(k))
    rows = ("Thm 1 weekdays                            7 x 7    0.061   0.022    0.008    "
            "1.0e-10     10.2  True\n"
            "PSL(2,7), solved group                  8 x 168    0.133   0.230    0.116    "
            "4.4e-15    154.3  True\n")
    fam = ("case                                              solve s   emit s  check s  "
           "rel width\n"
           "CE minority 5+5, R = 100 (full)                      0.07     0.03     0.02    "
           "8.5e-12\n"
           "MSE 6 x 12 weighted                                  0.03     0.01     0.00    "
           "2.8e-12\n")
    assert b._family_worst(fam) == {"worst_solve_cpu_s": 0.07, "worst_emit_cpu_s": 0.03,
                                    "worst_check_cpu_s": 0.02}
    assert b._paper_instances(rows) == {"paper_emit_cpu_s": 0.022, "paper_check_cpu_s": 0.008}
