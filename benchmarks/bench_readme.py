"""Re-measure the enumeration and certification figures README.md and docs/ quote.

Each case runs in a fresh interpreter (so imports and peak memory are its own) and is
measured in CPU seconds of that process and its children (user + sys,
``resource.getrusage(RUSAGE_CHILDREN)``), never wall time: the machine may be shared.
The script prints, per figure, the value measured here beside the value quoted and where it
is quoted, and the ratio.  Usage::

    python benchmarks/bench_readme.py            # every case but perm-9 (about 8 CPU-minutes)
    python benchmarks/bench_readme.py --full     # also perm-9 (about 100 more CPU s)
    python benchmarks/bench_readme.py --repeats 1   # each case once (default: the median
                                                    # of 3 runs; Dask, footprint, wide once)
    python benchmarks/bench_readme.py shi-7 f64-40x6   # some cases
    python benchmarks/bench_readme.py --only shi-7,notebooks   # cases and groups
    python benchmarks/bench_readme.py --all      # every case and every group: every quoted
                                                 # figure (about 50 CPU-minutes)
    python benchmarks/bench_readme.py --list     # every figure README.md and docs/ quote,
                                                 # file:line, re-measured here or not
    make bench-readme

Each re-measured figure is printed as ``KEY: measured X, quoted Q at FILE:LINE (ratio
X/Q)``; :data:`FIGURES` lists them (the quoting line is found by its text, so the line
number follows edits; ``tests/test_bench_readme_figures.py`` checks each is still there).
``--list`` greps README.md and docs/*.md for CPU, memory, disk, rate and wall-time figures
and marks each line: re-measured here (its keys), a limit/constant (a size or bound, not a
measurement) or an estimate (arithmetic on a quoted figure: :data:`NOT_MEASURED`); the test
fails on a figure line that is none of these.  Figures of earlier revisions (before/after
comparisons, one-off runs) are not quoted by the pages: they are logged, with date,
revision, command and machine, in ``benchmarks/records.md`` (the streamed enumeration's in
``benchmarks/scale-log.md``); ``--list`` also flags any line of the pages that still labels
a figure "a record of DATE" (:data:`RECORD_RE`), and its summary ends "0 labelled records,
0 not re-measured" when every figure is re-measured, a limit or an estimate.

Cases: ``resonance-6`` and ``perm-8``/``perm-9`` (``bench_scale.py _case``, streamed with
witnesses, certified complete; with the manifest's steps: ``count_cpu_s``,
``phase1_cpu_s``, ``phase2_cpu_s``, ``certify_cpu_s``, docs/enumeration-at-scale.md's
table); ``f64-40x6``, ``f32-40x6``, ``int-40x6`` (``logitgeom patterns sign HEAD --out
DIR``, serial, on a random N(0, 1) float64 / float32 head and an integer head with entries
up to 10^6, seed 7: all three have 1,335,856 regions); ``shi-7`` (the Shi arrangement in
R^7: enumeration, ``certify pattern --from``, the default ``check`` and its rate in
regions per CPU second); every enumeration case also prints ``regions_per_cpu_s`` (the
README's measured range of enumeration rates); ``wide-2x200k`` (``certify argmax`` /
``certify pattern`` on a 2 x 200,000 head: peak RSS, docs/limits.md; about 1 CPU-minute);
``dask-demicube-7`` (a Dask ``LocalCluster`` of 2 against a pool of 2 on the D_7
arrangement, alternating runs: ``dask_over_pool``, ``task_dask_over_pool``,
``pool_cpu_s``, ``dask_cpu_s``, ``cluster_cpu_s``); ``footprint`` (the virtualenv and
torch on disk).

The other README rows come from their own scripts; ``--groups`` runs them (each in its
own process, CPU seconds and peak memory of the process and its children) and prints
each group's output beside the README figures that group stands for (the scripts print
their own detailed figures)::

    python benchmarks/bench_readme.py --quick            # the cheap groups only
    python benchmarks/bench_readme.py --groups patterns,counting,certified
    python benchmarks/bench_readme.py --groups all       # every group (long, see below)

Groups and their cost in CPU (shared 2-core machine, 2026-12-03): ``patterns``
(``bench_patterns.py --quick``, about 1 CPU-minute), ``patterns-rw``
(``bench_patterns.py`` in full: R(W) for k = 10, d = 6 and the scaling table; its whole
cost not yet measured), ``counting`` (``bench_counting.py --quick``, under 1 minute), ``certified``
(``bench_certified.py``, 6 CPU s), ``family`` (``bench_family.py``, 7 CPU s), ``symmetry``
(``bench_symmetry.py --goals-only --s10``, about 2 CPU-minutes, most of it the
undecomposed programs), ``coq`` (``bench_coq.py --rows 1000 --cols 64``, 27 CPU s),
``coq-witnesses`` (the same with ``--witnesses``: about 5 CPU-minutes, most of it coqc on
the 988 witnesses), ``coq-grid`` (``bench_coq.py --grid 10 2``, about 30 CPU s),
``occupancy`` (``bench_occupancy.py``, 20 CPU s, 1.7 GB), ``grid`` (``bench_grid.py``,
about 2 CPU-minutes), ``models`` (``bench_models.py``, 29 CPU s plus a 512 MiB file),
``notebooks`` (about 42 CPU s); heavy: ``audit`` and ``audit-32k`` (``bench_audit.py`` at
the two README sizes: 8 + 6 CPU-minutes, 1.7 GB), ``reproduce`` (``logitgeom reproduce``:
about 150 CPU s, 8 minutes wall on a shared machine). Figures of a group's output are read
by :data:`GROUP_FIGURES`; its whole CPU and peak memory need none. ``--quick`` runs
``patterns``, ``counting`` and ``certified``; ``all`` runs every group (about 40 minutes
of CPU). The enumeration cases above take, after the cache of
:func:`logitgeom.geometry.arrangement.exact.regions`, well under a CPU-minute each."""

from __future__ import annotations

import itertools
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _args import guard

ROOT = Path(__file__).resolve().parents[1]

#: every figure README.md and docs/ quote that this script re-measures: (measurement key,
#: quoted value, unit, file, a piece of text of the quoting line).  The line number is
#: looked up when printed (the text must occur on exactly one line of the file);
#: ``--list`` shows every figure-like line of README.md and docs/ and which are not here.
FIGURES = [
    ("resonance-6 cpu_s", 11.9, "CPU s", "README.md", "| 11.9 s CPU | 374 MB peak"),
    ("resonance-6 peak_rss_mb", 374, "MB", "README.md", "| 374 MB peak, 11.8 B/region"),
    ("resonance-6 bytes_per_region", 11.8, "B/region", "README.md",
     "| 374 MB peak, 11.8 B/region"),
    ("perm-8 cpu_s", 4.1, "CPU s", "README.md", "| 4.1 s CPU / 34.4 s |"),
    ("perm-8 peak_rss_mb", 327, "MB", "README.md", "| 327 MB / 439 MB peak"),
    ("perm-8 bytes_per_region", 8.0, "B/region", "README.md", "8.0 / 10.9 B/region"),
    ("perm-9 cpu_s", 34.4, "CPU s", "README.md", "| 4.1 s CPU / 34.4 s |"),
    ("perm-9 peak_rss_mb", 439, "MB", "README.md", "| 327 MB / 439 MB peak"),
    ("perm-9 bytes_per_region", 10.9, "B/region", "README.md", "8.0 / 10.9 B/region"),
    ("f64-40x6 cpu_s", 24.1, "CPU s", "README.md", "| 24.1 / 21.6 / 20.9 s CPU"),
    ("f32-40x6 cpu_s", 21.6, "CPU s", "README.md", "| 24.1 / 21.6 / 20.9 s CPU"),
    ("int-40x6 cpu_s", 20.9, "CPU s", "README.md", "| 24.1 / 21.6 / 20.9 s CPU"),
    ("f64-40x6 cpu_s", 24.1, "CPU s", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 24.1"),
    ("f64-40x6 phase1_cpu_s", 17.2, "CPU s", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 24.1"),
    ("f64-40x6 certification_cpu_s", 1, "CPU s (bound)", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 24.1"),
    ("f32-40x6 cpu_s", 21.6, "CPU s", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 21.6"),
    ("f32-40x6 phase1_cpu_s", 15.7, "CPU s", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 21.6"),
    ("f32-40x6 certification_cpu_s", 1, "CPU s (bound)", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 21.6"),
    ("int-40x6 cpu_s", 20.9, "CPU s", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 20.9"),
    ("int-40x6 phase1_cpu_s", 15.2, "CPU s", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 20.9"),
    ("int-40x6 certification_cpu_s", 1, "CPU s (bound)", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 20.9"),
    ("shi-7 enumerate_cpu_s", 9.8, "CPU s", "README.md", "| enumerate 9.8 s"),
    ("shi-7 certify_cpu_s", 7.4, "CPU s", "README.md", "`certify pattern --from` 7.4 s"),
    ("shi-7 check_cpu_s", 5.7, "CPU s", "README.md", "default `check` 5.7 s CPU"),
    ("shi-7 check_regions_per_cpu_s", 45_910, "regions/CPU s", "README.md",
     "45,910 regions per CPU second"),
    ("shi-7 enumerate_cpu_s", 9.8, "CPU s", "docs/enumeration-at-scale.md",
     "enumeration 9.8 CPU s"),
    ("shi-7 certify_cpu_s", 7.4, "CPU s", "docs/enumeration-at-scale.md",
     "`certify pattern --from` 7.4 CPU s"),
    ("shi-7 check_cpu_s", 5.7, "CPU s", "docs/enumeration-at-scale.md",
     "`logitgeom check` 5.7 CPU s"),
    ("group:notebooks cpu_s", 35.4, "CPU s", "README.md", "| 35.4 s CPU (median of three"),
    ("group:notebooks peak_rss_mb", 482, "MB", "README.md", "| 482 MB peak |"),
    ("group:audit cpu_min", 2.9, "CPU-minutes", "README.md", "| 2.9 CPU-minutes (1.9 ms"),
    ("group:audit peak_rss_mb", 530, "MB", "README.md", "| 530 MB |"),
    ("group:audit-32k cpu_min", 4.1, "CPU-minutes", "README.md",
     "| 4.1 CPU-minutes, all 32,000 decided"),
    ("group:audit-32k peak_rss_gb", 1.82, "GB", "README.md", "| 1.82 GB peak incl. the checker"),
    ("footprint venv_gb", 2.42, "GB", "README.md", "with every extra is 2.42 GB"),
    ("footprint torch_mb", 750, "MB", "README.md", "with every extra is 2.42 GB"),
    ("group:reproduce out_mb", 6, "MB", "README.md", "`reproduction/` is about 6 MB before"),
    ("group:symmetry cyclic96_cpu_s", 0.2, "CPU s (bound)", "README.md",
     "| at most 0.2 s / 1.2 s / 9 s CPU end to end"),
    ("group:symmetry agl101_cpu_s", 1.2, "CPU s (bound)", "README.md",
     "| at most 0.2 s / 1.2 s / 9 s CPU end to end"),
    ("group:symmetry s10_cpu_s", 9, "CPU s (bound)", "README.md",
     "| at most 0.2 s / 1.2 s / 9 s CPU end to end"),
    ("group:symmetry cyclic96_undecomposed_cpu_s", 38, "CPU s", "README.md",
     "| at most 0.2 s / 1.2 s / 9 s CPU end to end"),
    ("group:symmetry cyclic96_rss_mb", 195, "MB", "README.md", "| 195 MB / 245 MB / 659 MB |"),
    ("group:symmetry agl101_rss_mb", 245, "MB", "README.md", "| 195 MB / 245 MB / 659 MB |"),
    ("group:symmetry s10_rss_mb", 659, "MB", "README.md", "| 195 MB / 245 MB / 659 MB |"),
    ("group:symmetry cyclic96_cpu_s", 0.2, "CPU s (bound)", "docs/symmetry-reduction.md",
     "cyclic m = 96 at most 0.2 s, 195 MB"),
    ("group:symmetry cyclic96_rss_mb", 195, "MB", "docs/symmetry-reduction.md",
     "cyclic m = 96 at most 0.2 s, 195 MB"),
    ("group:symmetry cyclic96_undecomposed_cpu_s", 38, "CPU s", "docs/symmetry-reduction.md",
     "cyclic m = 96 at most 0.2 s, 195 MB"),
    ("group:symmetry agl101_cpu_s", 1.2, "CPU s (bound)", "docs/symmetry-reduction.md",
     "AGL(1,101) at most 1.2 s, 245 MB"),
    ("group:symmetry agl101_rss_mb", 245, "MB", "docs/symmetry-reduction.md",
     "AGL(1,101) at most 1.2 s, 245 MB"),
    ("group:symmetry s10_cpu_s", 9, "CPU s (bound)", "docs/symmetry-reduction.md",
     "at most 9 s, 659 MB (three quiet runs"),
    ("group:symmetry s10_rss_mb", 659, "MB", "docs/symmetry-reduction.md",
     "at most 9 s, 659 MB (three quiet runs"),
    ("group:certified paper_emit_cpu_s", 0.1, "CPU s (bound)", "README.md",
     "| emit <= 0.1 s, check <= 0.05 s CPU"),
    ("group:certified paper_check_cpu_s", 0.05, "CPU s (bound)", "README.md",
     "| emit <= 0.1 s, check <= 0.05 s CPU"),
    ("group:certified rss_mb", 363, "MB", "README.md", "| 363 MB | `bench_readme.py --only cert"),
    ("group:family curve_cpu_s", 3.8, "CPU s", "README.md",
     "threshold bisection 3.8 s CPU"),
    ("group:family rss_mb", 204, "MB", "README.md", "| 204 MB | `bench_readme.py --only family"),
    ("group:coq coqc_cpu_s", 10.8, "CPU s", "README.md", "| 10.8 CPU s of coqc"),
    ("group:coq peak_rss_gb", 0.57, "GB", "README.md", "| 10.8 CPU s of coqc"),
    ("group:models read_rows_cpu_s", 0.01, "CPU s (bound)", "README.md",
     "| under 0.01 s CPU to read 7 rows"),
    ("group:models audit_cpu_s", 0.38, "CPU s", "README.md", "| under 0.01 s CPU to read 7 rows"),
    ("group:coq-grid export_cpu_s", 7.5, "CPU s", "README.md", "| export 7.5 CPU s, coqc 11.2"),
    ("group:coq-grid coqc_cpu_s", 11.2, "CPU s", "README.md", "| export 7.5 CPU s, coqc 11.2"),
    ("group:coq-grid peak_rss_gb", 0.63, "GB", "README.md", "| export 7.5 CPU s, coqc 11.2"),
    ("group:coq-grid coq_mb", 0.66, "MB", "docs/coq.md", "0.66 MB of Coq, 2,288 + 2,478"),
    ("group:coq-grid export_cpu_s", 7.5, "CPU s", "docs/coq.md",
     "is exported in 7.5 CPU s and compiled in 11.2"),
    ("group:coq-grid coqc_cpu_s", 11.2, "CPU s", "docs/coq.md",
     "is exported in 7.5 CPU s and compiled in 11.2"),
    ("group:coq-grid peak_rss_gb", 0.63, "GB", "docs/coq.md",
     "compiled in 11.2 CPU s, 0.63 GB"),
    ("group:coq coqc_cpu_s", 10.8, "CPU s", "docs/coq.md", "compiles in 10.8 CPU s on this"),
    ("shi-7 regions_per_cpu_s", 27_000, "regions/CPU s", "README.md",
     "exact enumeration is output-sensitive: 27,000 to"),
    ("perm-9 regions_per_cpu_s", 105_000, "regions/CPU s", "README.md",
     "105,000 regions per CPU second on the instances above"),
    ("f64-40x6 regions_per_cpu_s", 55_000, "regions/CPU s", "README.md",
     "heads 55,000 / 62,000 / 64,000, resonance-6 90,000"),
    ("f32-40x6 regions_per_cpu_s", 62_000, "regions/CPU s", "README.md",
     "heads 55,000 / 62,000 / 64,000, resonance-6 90,000"),
    ("int-40x6 regions_per_cpu_s", 64_000, "regions/CPU s", "README.md",
     "heads 55,000 / 62,000 / 64,000, resonance-6 90,000"),
    ("resonance-6 regions_per_cpu_s", 90_000, "regions/CPU s", "README.md",
     "heads 55,000 / 62,000 / 64,000, resonance-6 90,000"),
    ("perm-8 regions_per_cpu_s", 89_000, "regions/CPU s", "README.md",
     "perm-8 89,000, perm-9 105,000: symmetric"),
    ("group:occupancy cpu_s", 19.3, "CPU s", "README.md", "| 19.3 CPU s | 1.4 GB peak"),
    ("group:occupancy peak_rss_gb", 1.4, "GB", "README.md", "| 1.4 GB peak | `bench_readme"),
    ("group:occupancy cpu_s", 19.3, "CPU s", "docs/occupancy.md",
     "and both figures, in 19.3 CPU s"),
    ("group:occupancy shards_mb", 89, "MB", "docs/occupancy.md", "89 MB of shards, 1.4 GB peak"),
    ("group:occupancy peak_rss_gb", 1.4, "GB", "docs/occupancy.md", "89 MB of shards, 1.4 GB peak"),
    ("wide-2x200k certify_argmax_rss_gb", 0.4, "GB (bound)", "docs/limits.md",
     "0.4 GB (`python benchmarks/bench_readme.py wide-2x200k`"),
    ("wide-2x200k certify_pattern_rss_gb", 0.4, "GB (bound)", "docs/limits.md",
     "0.4 GB (`python benchmarks/bench_readme.py wide-2x200k`"),
    ("wide-2x200k certify_argmax_rss_gb", 0.27, "GB", "docs/limits.md",
     "0.27 / 0.31 GB peak, 16 / 31 CPU s)"),
    ("wide-2x200k certify_pattern_rss_gb", 0.31, "GB", "docs/limits.md",
     "0.27 / 0.31 GB peak, 16 / 31 CPU s)"),
    ("wide-2x200k certify_argmax_cpu_s", 16, "CPU s", "docs/limits.md",
     "0.27 / 0.31 GB peak, 16 / 31 CPU s)"),
    ("wide-2x200k certify_pattern_cpu_s", 31, "CPU s", "docs/limits.md",
     "0.27 / 0.31 GB peak, 16 / 31 CPU s)"),
    ("group:patterns sw_wall_s", 0.15, "s wall", "README.md", "| 0.15 s wall"),
    ("group:patterns-rw rw_witnesses_wall_s", 15.0, "s wall", "README.md",
     "| 15.0 s wall with a witness each"),
    ("group:patterns-rw rw_wall_s", 10.7, "s wall", "README.md",
     "| 15.0 s wall with a witness each"),
    ("group:patterns-rw rw_main_rss_mb", 675, "MB", "README.md", "| 675 MB main + 150 MB"),
    ("group:patterns-rw rw_workers_rss_mb", 150, "MB", "README.md", "| 675 MB main + 150 MB"),
    ("group:coq-witnesses witnesses_coqc_cpu_s", 239, "CPU s", "README.md",
     "| 239 CPU s of coqc"),
    ("group:coq-witnesses peak_rss_gb", 0.9, "GB", "README.md", "| 239 CPU s of coqc"),
    ("group:coq-witnesses witnesses_coqc_cpu_s", 239, "CPU s", "docs/coq.md",
     "compiles in 239 CPU s, 0.9 GB"),
    ("group:coq-witnesses peak_rss_gb", 0.9, "GB", "docs/coq.md",
     "compiles in 239 CPU s, 0.9 GB"),
    ("group:grid transport_wall_s", 51.7, "s wall", "README.md", "| 51.7 s wall on 2 cores (87.7"),
    ("group:grid enumerate_wall_s", 87.7, "s wall", "README.md", "| 51.7 s wall on 2 cores (87.7"),
    ("group:audit ordinary_ms_per_label", 1.9, "ms CPU", "README.md",
     "| 2.9 CPU-minutes (1.9 ms"),
    ("group:family worst_solve_cpu_s", 0.1, "CPU s (bound)", "README.md",
     "| solve <= 0.1 s, emit <= 0.05 s, check <= 0.05 s CPU each"),
    ("group:family worst_emit_cpu_s", 0.05, "CPU s (bound)", "README.md",
     "| solve <= 0.1 s, emit <= 0.05 s, check <= 0.05 s CPU each"),
    ("group:family worst_check_cpu_s", 0.05, "CPU s (bound)", "README.md",
     "| solve <= 0.1 s, emit <= 0.05 s, check <= 0.05 s CPU each"),
    ("group:reproduce cpu_s", 334, "CPU s", "README.md", "| 334 s CPU (`make demo`"),
    ("group:reproduce peak_rss_mb", 817, "MB", "README.md", "| 817 MB peak |"),
    # docs/enumeration-at-scale.md section 8: the serial rows and the manifest's steps
    ("resonance-6 cpu_s", 11.9, "CPU s", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("resonance-6 count_cpu_s", 2.2, "CPU s", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("resonance-6 phase1_cpu_s", 7.0, "CPU s", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("resonance-6 phase2_cpu_s", 3, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("resonance-6 certify_cpu_s", 1, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("resonance-6 peak_rss_mb", 374, "MB", "docs/enumeration-at-scale.md",
     "| resonance-6, serial | 1,066,044 |"),
    ("perm-8 cpu_s", 4.1, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-8 count_cpu_s", 0.1, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-8 phase1_cpu_s", 2.0, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-8 phase2_cpu_s", 2, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-8 certify_cpu_s", 1, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-8 peak_rss_mb", 327, "MB", "docs/enumeration-at-scale.md",
     "| perm-8, serial | 362,880 |"),
    ("perm-9 cpu_s", 34.4, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("perm-9 count_cpu_s", 0.6, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("perm-9 phase1_cpu_s", 28.9, "CPU s", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("perm-9 phase2_cpu_s", 4, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("perm-9 certify_cpu_s", 2, "CPU s (bound)", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("perm-9 peak_rss_mb", 439, "MB", "docs/enumeration-at-scale.md",
     "| perm-9, serial | 3,628,800 |"),
    ("dask-demicube-7 dask_over_pool", 1.18, "ratio", "docs/enumeration-at-scale.md",
     "Dask over the pool 1.18 pooled"),
    ("dask-demicube-7 cluster_cpu_s", 1.0, "CPU s", "docs/enumeration-at-scale.md",
     "costs about 1.0 CPU s more than the pool"),
    ("group:coq-stream shi6_check_cpu_s", 64.3, "CPU s", "docs/coq.md", "| Shi in R^6 | 16,807"),
    ("group:coq-stream shi7_check_cpu_s", 1558.5, "CPU s", "docs/coq.md",
     "| Shi in R^7 | 262,144"),
    ("group:coq-stream shi7_peak_mb", 1799, "MB", "docs/coq.md", "| Shi in R^7 | 262,144"),
    ("group:coq-stream shi7_export_cpu_s", 61.2, "CPU s", "docs/coq.md",
     "| Shi in R^7 | 262,144"),
]
#: figures of the groups (``--only GROUP``): (group, key, regex on the group's output whose
#: first group is the figure).  ``cpu_s`` and ``peak_rss_mb`` of the whole group (its
#: process and every descendant: ``wait4``) need no regex.
GROUP_FIGURES = [
    ("symmetry", "cyclic96_cpu_s", r"^cyclic96 +auto +\d+ +\S+ +([\d.]+)"),
    ("symmetry", "cyclic96_rss_mb", r"^cyclic96 +auto +\d+ +\S+ +\S+ +([\d.]+)"),
    ("symmetry", "agl101_cpu_s", r"^agl101 +auto +\d+ +\S+ +([\d.]+)"),
    ("symmetry", "agl101_rss_mb", r"^agl101 +auto +\d+ +\S+ +\S+ +([\d.]+)"),
    ("symmetry", "s10_cpu_s", r"^s10 +auto +\d+ +\S+ +([\d.]+)"),
    ("symmetry", "s10_rss_mb", r"^s10 +auto +\d+ +\S+ +\S+ +([\d.]+)"),
    ("symmetry", "cyclic96_undecomposed_cpu_s", r"^cyclic96 +none +\d+ +\S+ +([\d.]+)"),
    ("certified", "rss_mb", r"worst emit .*peak RSS ([\d.]+) MB"),
    ("family", "curve_cpu_s", r"minority curve .*?: ([\d.]+) s CPU"),
    ("family", "rss_mb", r"^peak RSS ([\d.]+) MB"),
    ("coq", "coqc_cpu_s", r"^coqc: accepted; ([\d.]+) CPU s"),
    ("coq-grid", "export_cpu_s", r"^export: .*; ([\d.]+) CPU s"),
    ("coq-grid", "coqc_cpu_s", r"^coqc: accepted; ([\d.]+) CPU s"),
    ("coq-grid", "coq_mb", r"^export: \S+, ([\d.]+) MB"),
    ("coq-stream", "shi6_check_cpu_s", r"^ +shi-6 +16807 +(?:\S+ +){5}([\d.]+)"),
    ("coq-stream", "shi7_check_cpu_s", r"^ +shi-7 +262144 +(?:\S+ +){5}([\d.]+)"),
    ("coq-stream", "shi7_peak_mb", r"^ +shi-7 +262144 +(?:\S+ +){6}([\d.]+)"),
    ("coq-stream", "shi7_export_cpu_s", r"^ +shi-7 +262144 +(?:\S+ +){4}([\d.]+)"),
    ("models", "read_rows_cpu_s", r"^load 7 rows .* ([\d.]+) s CPU"),
    ("models", "audit_cpu_s", r"^cosine audit \+ certificate check .* ([\d.]+) s CPU"),
    ("occupancy", "cpu_s", r"head: ([\d.]+) CPU s"),
    ("occupancy", "shards_mb", r"shards ([\d.]+) MB"),
    ("patterns", "sw_wall_s", r"^S\(W\) k=20 d=5: \d+ regions in ([\d.]+) s"),
    ("patterns-rw", "rw_witnesses_wall_s", r"^R\(W\) k=10 d=6: \d+ rankings in ([\d.]+) s with"),
    ("patterns-rw", "rw_wall_s", r"^R\(W\) k=10 d=6: .*\(([\d.]+) s without\)"),
    ("patterns-rw", "rw_main_rss_mb", r"^R\(W\) k=10 d=6: .*peak RSS main ([\d.]+) MB"),
    ("patterns-rw", "rw_workers_rss_mb", r"^R\(W\) k=10 d=6: .*, workers ([\d.]+) MB"),
    ("grid", "transport_wall_s", r"method transport: ([\d.]+) s wall \(whole grid"),
    ("grid", "enumerate_wall_s", r"method enumerate: ([\d.]+) s wall \(whole grid"),
    ("audit", "ordinary_ms_per_label",
     r"--- ordinary labels: \d+; wall [\d.]+ s, CPU [\d.]+ s \(([\d.]+) ms CPU per label\)"),
    ("coq-witnesses", "witnesses_coqc_cpu_s",
     r"^export \(never-proofs and \d+ witnesses\).*\ncoqc: accepted; ([\d.]+) CPU s"),
]
#: the old name: key -> (quoted value, unit, where), the README's quote of each key
QUOTED = {k: (v, u, f) for k, v, u, f, _ in reversed(FIGURES)}
#: what makes a line of README.md or docs/*.md quote a figure (``--list``)
FIGURE_RE = re.compile(r"\d[\d,.]*\s*(?:s CPU|CPU[ -]?s\b|CPU seconds|CPU-minutes|CPU-hours|"
                       r"MB\b|GB\b|MiB\b|B/region|regions per|us per|us a row|ms per|"
                       r"s wall\b|min \d+ s\b|s \|)|\d s / \d+ s \(")


#: figure-quoting lines that are not measurements this script repeats, each with its kind
#: and why: (file, a piece of text of the line, kind, why).  Kinds: ``limit`` (a limit,
#: a constant or a size that follows from a shape: not a measurement) and ``estimate``
#: (arithmetic on a figure quoted beside it, said to be an estimate).  A line claiming
#: current performance belongs in :data:`FIGURES`, not here; a figure of an earlier round
#: (a before/after comparison, a one-off run) belongs in benchmarks/records.md, not in
#: README.md or docs/.
NOT_MEASURED = [
    ("README.md", "set-up step (system packages, the venv, about 2.4 GB of Python packages",
     "estimate", "the footprint figure of the .venv (2.42 GB), rounded"),
    ("docs/argmax-audit.md", "a never-proof whose multipliers pass 16 MiB of text", "limit",
     "engine/audit/shards.py's PROOF_PART_BYTES"),
    ("docs/coq.md", "The check's cost grows about linearly with the number of regions", "estimate",
     "262,144 regions over 1558.5 CPU s, the Shi R^7 row of the table beside it"),
    ("docs/argmax-audit.md", "renamed atomically; a block whose lines pass 32 MiB", "limit",
     "engine/audit/run.py's SHARD_BYTES"),
    ("docs/argmax-audit.md", "full-precision float32 rows alone is about 6.5 MB", "limit",
     "a proof's size follows from d and the precision; the checker's 64 MiB a file"),
    ("docs/coq.md", "never-proofs alone; the goal was 60 CPU s;", "limit", "a goal, not a figure"),
    ("docs/argmax-audit.md", "81 ms per label, and 256,000 x 81 ms", "estimate",
     "arithmetic on the sampled 2.99 ms (benchmarks/records.md), said to be a prediction"),
    ("docs/argmax-audit.md", "With the measured c = 14.8 ms that is about", "estimate",
     "arithmetic on the 14.8 ms of benchmarks/records.md (section 6's sampled runs)"),
    ("docs/argmax-audit.md", "CPU seconds, about 17 CPU-hours for the screens", "estimate",
     "arithmetic on the 14.8 ms of benchmarks/records.md (section 6's sampled runs)"),
    ("docs/argmax-audit.md", "a bfloat16 256,000 x 8,192 head is 4.2 GB", "limit",
     "the size of a head of that shape, and of an n x B float64 block"),
    ("docs/argmax-audit.md", "block holds an n x B float64 product, 524 MB", "limit",
     "the size of an n x B float64 block (256,000 x 256 x 8 bytes)"),
    ("docs/certified-optima.md", "a 9.5 MB file whose check takes 29,158,584", "limit",
     "the size and work count of one file, exact and deterministic (not a timing)"),
    ("docs/enumeration-at-scale.md", "otherwise keep about 45 GB of phase-1 files", "estimate",
     "resonance-7's phase-1 rows times their size (benchmarks/scale-log.md)"),
    ("docs/enumeration-at-scale.md", "grows past the checker's 64 MB", "limit",
     "the checker's file-size limit"),
    ("docs/limits.md", "It reads only regular files of at most 256 MiB", "limit",
     "engine/io.py's MAX_FILE_BYTES"),
    ("docs/limits.md", "| certificate file size | 64 MiB", "limit",
     "the checker's file-size limit"),
    ("docs/paper-output.md", "GPT-OSS-20B needs about 42 GB as bfloat16", "limit",
     "a model's weights in bfloat16 (parameters x 2 bytes)"),
    ("docs/paper-output.md", "a CPU, GPT-OSS-120B about 234 GB.", "limit",
     "a model's weights in bfloat16 (parameters x 2 bytes)"),

]
KIND_LABEL = {"limit": "a limit/constant, not a measurement",
              "estimate": "an estimate by arithmetic on a quoted figure"}
#: the wording of a dated record of an earlier round ("a record of 2026-12-01"): such
#: figures belong in benchmarks/records.md (or benchmarks/scale-log.md), not in the pages
RECORD_RE = re.compile(r"\brecords? of (?:\d{4}-\d\d-\d\d|that round|an earlier)|"
                       r"labelled record", re.I)


def where(path: str, text: str) -> str:
    """``file:line`` of the one line of ``path`` holding ``text`` (``file:?`` if it is not
    there exactly once: the quote moved or changed)."""
    lines = (ROOT / path).read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    return f"{path}:{hits[0]}" if len(hits) == 1 else f"{path}:? ({len(hits)} lines hold {text!r})"


def figure_lines() -> list[tuple[str, int, str]]:
    """Every line of README.md and docs/*.md quoting a CPU, memory, disk or rate figure."""
    out = []
    for path in ["README.md", *sorted(str(p.relative_to(ROOT))
                                      for p in (ROOT / "docs").glob("*.md"))]:
        for i, line in enumerate((ROOT / path).read_text().splitlines()):
            if FIGURE_RE.search(line):
                out.append((path, i + 1, line.strip()))
    return out


def dated_records() -> list[tuple[str, int, str]]:
    """Lines of README.md and docs/*.md that label a figure as a record of an earlier round
    (:data:`RECORD_RE`): there should be none, such figures live in benchmarks/records.md."""
    out = []
    for path in ["README.md", *sorted(str(p.relative_to(ROOT))
                                      for p in (ROOT / "docs").glob("*.md"))]:
        for i, line in enumerate((ROOT / path).read_text().splitlines()):
            if RECORD_RE.search(line):
                out.append((path, i + 1, line.strip()))
    return out


def classify() -> list[tuple[str, int, str, str, str]]:
    """Every figure-quoting line as (file, line, kind, what, text): kind ``measured`` (what:
    the keys of :data:`FIGURES` on it), ``limit``, ``estimate`` (what: why, from
    :data:`NOT_MEASURED`) or ``not`` (not re-measured and not classified)."""
    mapped: dict = {}
    for key, val, unit, path, text in FIGURES:
        mapped.setdefault(where(path, text), []).append(f"{key} (quoted {val} {unit})")
    noted = {where(path, text): (kind, why) for path, text, kind, why in NOT_MEASURED}
    out = []
    for path, n, line in figure_lines():
        keys = mapped.get(f"{path}:{n}")
        if keys:
            out.append((path, n, "measured", "; ".join(keys), line))
        elif f"{path}:{n}" in noted:
            kind, why = noted[f"{path}:{n}"]
            out.append((path, n, kind, why, line))
        else:
            out.append((path, n, "not", "", line))
    return out


def list_figures() -> int:
    """Print every figure-quoting line: measured here, a limit, an estimate, or not
    re-measured; and any line still labelling a figure as a record of an earlier round."""
    rows = classify()
    for path, n, kind, what, line in rows:
        tag = ("MEASURED " + what if kind == "measured" else "not re-measured here"
               if kind == "not" else f"{KIND_LABEL[kind]}: {what}")
        print(f"{path}:{n}: [{tag}] {line[:160]}")
    count = {k: sum(r[2] == k for r in rows) for k in ("measured", *KIND_LABEL, "not")}
    dated = dated_records()
    for path, n, line in dated:
        print(f"{path}:{n}: [a dated record: move it to benchmarks/records.md] {line[:160]}")
    print(f"# {len(rows)} lines quote figures; {count['measured']} re-measured by this script "
          f"({len(FIGURES)} figures), {count['limit']} limits/constants, {count['estimate']} "
          f"estimates, {len(dated)} labelled records, {count['not']} not re-measured")
    return 0


def _run(cmd: list[str]) -> tuple[float, str]:
    """(CPU seconds of the child and its children, stdout) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return round(cpu, 2), p.stdout


def _engine(*args: str) -> list[str]:
    return [sys.executable, "-m", "logitgeom", *args]


def _scale(name: str, tmp: Path) -> dict:
    cpu, out = _run([sys.executable, str(ROOT / "benchmarks" / "bench_scale.py"), "_case", name,
                     str(tmp / name)])
    row = json.loads(out.strip().splitlines()[-1])
    s = row["steps"]  # the manifest's steps, read as bench_scale.py's report reads them
    return {"cpu_s": row["cpu_s"], "peak_rss_mb": row["peak_rss_mb"],
            "bytes_per_region": row["bytes_per_region_on_disk"], "process_cpu_s": cpu,
            "regions_per_cpu_s": round(row["regions"] / row["cpu_s"], -3),
            "count_cpu_s": round(s["count"]["cpu_driver"] + s["count"].get("cpu_tasks", 0), 1),
            "phase1_cpu_s": round(s["phase1"]["cpu_tasks"], 1),
            "phase2_cpu_s": round(s["phase2"]["cpu_tasks"], 1),
            "certify_cpu_s": round(s["certify"]["cpu_tasks"], 1)}


def heads(tmp: Path) -> dict[str, Path]:
    """The 40 x 6 heads of the float-filter figures (seed 7)."""
    rng = np.random.default_rng(7)
    f64 = rng.standard_normal((40, 6))
    f32 = rng.standard_normal((40, 6)).astype(np.float32)
    i64 = rng.integers(-10 ** 6, 10 ** 6, (40, 6))
    out = {}
    for name, W in (("f64-40x6", f64), ("f32-40x6", f32), ("int-40x6", i64)):
        out[name] = tmp / f"{name}.npy"
        np.save(out[name], W)
    return out


def _head(name: str, tmp: Path) -> dict:
    path = heads(tmp)[name]
    cpu, _ = _run(_engine("patterns", "sign", str(path), "--out", str(tmp / f"o-{name}"),
                          "--no-progress"))
    man = json.loads((tmp / f"o-{name}" / "manifest.json").read_text())
    steps = man["steps"]
    return {"cpu_s": cpu, "regions": man["rows_written"],
            "regions_per_cpu_s": round(man["rows_written"] / cpu, -3),
            "phase1_cpu_s": steps["phase1"]["cpu_tasks"],
            "certification_cpu_s": steps["certify"]["cpu_driver"]}


def shi(n: int, tmp: Path) -> tuple[Path, Path]:
    """The Shi arrangement in R^n: x_i - x_j in {0, 1} for i < j ((n+1)^(n-1) regions)."""
    W, b = [], []
    for i, j in itertools.combinations(range(n), 2):
        for c in (0, -1):
            r = [0] * n
            r[i], r[j] = 1, -1
            W.append(r)
            b.append(c)
    wf, bf = tmp / "shiW.csv", tmp / "shib.csv"
    wf.write_text("\n".join(",".join(map(str, r)) for r in W) + "\n")
    bf.write_text("\n".join(map(str, b)) + "\n")
    return wf, bf


def _shi(tmp: Path) -> dict:
    wf, bf = shi(7, tmp)
    d = tmp / "o-shi"
    enum, _ = _run(_engine("patterns", "sign", str(wf), "--bias", str(bf), "--out", str(d),
                           "--no-progress"))
    cert = d / "cert.json"
    certify, _ = _run(_engine("certify", "pattern", "--from", str(d), "-o", str(cert)))
    check, out = _run(_engine("check", str(cert)))
    regions = json.loads((d / "manifest.json").read_text())["rows_written"]
    return {"enumerate_cpu_s": enum, "certify_cpu_s": certify, "check_cpu_s": check,
            "check_ok": ": OK " in out, "regions": regions,
            "regions_per_cpu_s": round(regions / enum, -3),
            "check_regions_per_cpu_s": round(regions / check)}


def demicube(n: int, tmp: Path) -> Path:
    """The D_n reflection arrangement x_i +- x_j = 0 in R^n (demicube-7: 42 hyperplanes,
    322,560 chambers)."""
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        for s in (1, -1):
            r = [0] * n
            r[i], r[j] = 1, s
            rows.append(r)
    path = tmp / f"d{n}.csv"
    path.write_text("\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return path


def _dask(tmp: Path) -> dict:
    """Dask ``LocalCluster`` of 2 against a pool of 2 on demicube-7, alternating pool, Dask,
    Dask, pool, twice (the tasks are 0.1-0.7 CPU s each, so one round varies by about 10 %):
    CPU of the whole command (workers, nannies and scheduler included) and the phase-1 task
    CPU the manifest records, pooled over the runs; ``cluster_cpu_s`` is the difference of
    the means (what starting and closing the cluster costs)."""
    path = demicube(7, tmp)
    cpu: dict[str, list[float]] = {"pool": [], "dask": []}
    task: dict[str, list[float]] = {"pool": [], "dask": []}
    for i, how in enumerate(("pool", "dask", "dask", "pool") * 2):
        out = tmp / f"o-d7-{i}"
        extra = ["--scheduler", "local"] if how == "dask" else []
        c, _ = _run(_engine("patterns", "sign", str(path), "--out", str(out), "--workers", "2",
                            *extra, "--no-progress"))
        man = json.loads((out / "manifest.json").read_text())
        assert man["rows_written"] == 322560, man["rows_written"]
        cpu[how].append(c)
        task[how].append(man["steps"]["phase1"]["cpu_tasks"])
    mean = {k: sum(v) / len(v) for k, v in cpu.items()}
    tmean = {k: sum(v) / len(v) for k, v in task.items()}
    return {"pool_cpu_s": round(mean["pool"], 1), "dask_cpu_s": round(mean["dask"], 1),
            "cluster_cpu_s": round(mean["dask"] - mean["pool"], 1),
            "runs_cpu_s": cpu, "dask_over_pool": round(mean["dask"] / mean["pool"], 2),
            "phase1_task_cpu_s": task,
            "task_dask_over_pool": round(tmean["dask"] / tmean["pool"], 2)}


def _run_rss(cmd: list[str]) -> tuple[float, float, int]:
    """(CPU seconds, peak RSS in GB, exit status) of one command and its descendants
    (``wait4``: this child's rusage only)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, ru = os.wait4(p.pid, 0)
    return (round(ru.ru_utime + ru.ru_stime, 2), round(ru.ru_maxrss / 2 ** 20, 3),
            os.waitstatus_to_exitcode(status))


def _wide(tmp: Path) -> dict:
    """``certify argmax`` and ``certify pattern`` on a 2 x 200,000 integer head (seed 0, as
    tests/test_fuzz_memory.py): CPU seconds and peak RSS of each."""
    W = np.random.default_rng(0).integers(-999, 1000, (2, 200_000))
    np.savetxt(tmp / "wide.csv", W, fmt="%d", delimiter=",")
    out = {}
    for kind in ("argmax", "pattern"):
        cpu, gb, code = _run_rss(_engine("certify", kind, str(tmp / "wide.csv"), "-o",
                                         str(tmp / f"wide-{kind}.json"), "--force"))
        out |= {f"certify_{kind}_cpu_s": cpu, f"certify_{kind}_rss_gb": gb,
                f"certify_{kind}_status": code}
    return out


def _size(path: Path) -> int:
    """Bytes on disk under ``path`` (``du``: allocated blocks, symbolic links not followed)."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            st = os.lstat(os.path.join(dirpath, f))
            total += st.st_blocks * 512
    return total


def _footprint(tmp: Path) -> dict:
    """The install's footprint: the virtualenv (``sys.prefix``) and torch's package folder."""
    import importlib.util

    out = {"venv_gb": round(_size(Path(sys.prefix).resolve()) / 2 ** 30, 2)}
    spec = importlib.util.find_spec("torch")
    if spec and spec.submodule_search_locations:
        out["torch_mb"] = round(_size(Path(list(spec.submodule_search_locations)[0]))
                                / 2 ** 20)
    return out


#: group -> (command after ``python``, README figures it stands for, as quoted)
GROUPS = {
    "patterns": (["benchmarks/bench_patterns.py", "--quick"],
                 "README limits: S(W) k=20, d=5 0.90 s wall"),
    "patterns-rw": (["benchmarks/bench_patterns.py"],
                    "README limits: R(W) k=10, d=6 40.9 s wall with witnesses, 24.1 s "
                    "without; 609 MB main + 120 MB workers"),
    "counting": (["benchmarks/bench_counting.py", "--quick"],
                 "the exact-count goals (count_rankings k=10, d=6; count_regions k=20, d=5)"),
    "certified": (["benchmarks/bench_certified.py"],
                  "README limits: emit <= 0.09 s, check <= 0.05 s CPU, 363 MB"),
    "symmetry": (["benchmarks/bench_symmetry.py", "--goals-only", "--s10"],
                 "README limits: orbit 0.16 s / 0.67-0.87 s / S_10 2.4-4.4 s CPU; 195 / 245 / "
                 "660 MB"),
    "grid": (["benchmarks/bench_grid.py"], "README limits: the whole grid 62 s on 2 cores"),
    "models": (["benchmarks/bench_models.py"],
               "README limits: 0.002 s CPU to read 7 rows, 0.47 s CPU audit + certificate"),
    "notebooks": (["notebooks/build.py", "--execute", "{tmp}/nb"],
                  "README limits: 42.1 s CPU, 484 MB peak"),
    # the README's rows are the runs without near-boundary labels (83 / 8 planted)
    "audit": (["benchmarks/bench_audit.py", "--rows", "50257", "--cols", "768",
               "--triangles", "0"],
              "README limits: 2.9 CPU-minutes, 530 MB"),
    "audit-32k": (["benchmarks/bench_audit.py", "--rows", "32000", "--cols", "4096",
                   "--plant", "4", "--shrunken", "0", "--triangles", "0"],
                  "README limits: 4.1 CPU-minutes, 1.82 GB peak incl. the checker"),
    "family": (["benchmarks/bench_family.py"],
               "README limits: the whole minority curve 4.5 s CPU, 204 MB"),
    "coq": (["benchmarks/bench_coq.py", "--rows", "1000", "--cols", "64"],
            "README limits: coqc 20.7 CPU s, 0.62 GB"),
    "coq-witnesses": (["benchmarks/bench_coq.py", "--rows", "1000", "--cols", "64",
                       "--witnesses"],
                      "README limits: coqc 281 CPU s with the witnesses, 0.9 GB"),
    "coq-grid": (["benchmarks/bench_coq.py", "--grid", "10", "2"],
                 "README limits: export 8.7 CPU s, coqc 17.7 CPU s, 0.66 GB"),
    "coq-stream": (["benchmarks/bench_coq.py", "--stream-shi", "5", "6", "7"],
                   "docs/coq.md: Shi in R^7 checked in 1558.5 CPU s, 1,799 MB peak"),
    "occupancy": (["benchmarks/bench_occupancy.py"],
                  "README limits: 14.6 CPU s, 1.5 GB peak"),
    "reproduce": (["-m", "logitgeom", "reproduce", "-o", "{tmp}/repro", "--no-progress"],
                  "README limits: 177 s CPU, 775 MB peak"),
}
QUICK_GROUPS = ("patterns", "counting", "certified")


def _paper_instances(text: str) -> dict:
    """bench_certified.py's worst emit and check CPU seconds over the paper instances (the
    rows of at most 72 columns; its own "worst" line also counts PSL(2,7)'s 168)."""
    rows = [m.groups() for m in re.finditer(
        r"^.{34} +\d+ x (\d+) +[\d.]+ +([\d.]+) +([\d.]+) ", text, re.M)]
    paper = [(float(e), float(c)) for n, e, c in rows if int(n) <= 72]
    if not paper:
        return {}
    return {"paper_emit_cpu_s": max(e for e, _ in paper),
            "paper_check_cpu_s": max(c for _, c in paper)}


def _family_worst(text: str) -> dict:
    """bench_family.py's worst solve, emit and check CPU seconds over its cases."""
    rows = [m.groups() for m in re.finditer(
        r"^(?:   \| )?(?:CE|MSE|BCE) .*? +([\d.]+) +([\d.]+) +([\d.]+) +[\d.]+e[+-]\d+$",
        text, re.M)]
    if not rows:
        return {}
    return {f"worst_{k}_cpu_s": max(float(r[i]) for r in rows)
            for i, k in enumerate(("solve", "emit", "check"))}


def _group(name: str, tmp: Path) -> dict:
    """Run one group's script; its CPU seconds, peak memory and last lines of output."""
    args, quoted = GROUPS[name]
    cmd = [sys.executable, *(a.format(tmp=tmp) for a in args)]
    log = tmp / f"{name}.log"
    with open(log, "w") as f:  # wait4: the rusage of this child and its descendants only
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text()
    tail = (text.strip().splitlines() or [""])[-25:]
    got: dict = {"group": name, "returncode": p.returncode,
                 "cpu_s": round(ru.ru_utime + ru.ru_stime, 1),
                 "cpu_min": round((ru.ru_utime + ru.ru_stime) / 60, 1),
                 "peak_rss_mb": round(ru.ru_maxrss / 1024, 1),
                 "peak_rss_gb": round(ru.ru_maxrss / 2 ** 20, 2)}
    out_dir = tmp / "repro"
    if name == "reproduce" and out_dir.is_dir():  # before the executed notebooks
        got["out_mb"] = round(_size(out_dir) / 2 ** 20, 1)
    for group, key, pattern in GROUP_FIGURES:
        m = re.search(pattern, text, re.M) if group == name else None
        if m:
            got[key] = float(m.group(1))
    if name == "certified":
        got |= _paper_instances(text)
    if name == "family":
        got |= _family_worst(text)
    return {**got, "quoted": quoted, "output": tail}


CASES = {
    "resonance-6": lambda tmp: _scale("resonance-6", tmp),
    "perm-8": lambda tmp: _scale("perm-8", tmp),
    "perm-9": lambda tmp: _scale("perm-9", tmp),
    "f64-40x6": lambda tmp: _head("f64-40x6", tmp),
    "f32-40x6": lambda tmp: _head("f32-40x6", tmp),
    "int-40x6": lambda tmp: _head("int-40x6", tmp),
    "shi-7": _shi,
    "dask-demicube-7": _dask,
    "wide-2x200k": _wide,
    "footprint": _footprint,
}


#: a re-measured figure reproduces its quote when measured / quoted is within this factor
#: (the issue's 20 %); a bound ("(bound)" in its unit) when the measurement is at most it
TOLERANCE = 1.2
#: every comparison printed so far: (figure key, where, ratio, reproduced)
VERDICTS: list[tuple[str, str, float, bool]] = []


def reproduced(measured: float, quoted: float, unit: str) -> bool:
    """Whether a measurement reproduces its quote: at most the quote for a bound, else
    within :data:`TOLERANCE` either way.

    Examples
    --------
    >>> reproduced(11.0, 10.0, "CPU s"), reproduced(13.0, 10.0, "CPU s")
    (True, False)
    >>> reproduced(0.2, 0.4, "GB (bound)")
    True
    """
    if "(bound)" in unit:
        return measured <= quoted
    return quoted / TOLERANCE <= measured <= quoted * TOLERANCE


#: cases run once whatever ``--repeats`` says: the Dask comparison repeats itself (eight
#: runs), the footprint is no timing, the wide head takes a CPU-minute a run
ONCE = ("dask-demicube-7", "footprint", "wide-2x200k")
#: runs of each case; its figures are the medians (identical runs of a 30-second case vary
#: by up to a third on a quiet machine: perm-9 31.6 and 41.3 CPU s, 2026-12-03)
REPEATS = 3


def _repeated(name: str, tmp: Path, n: int) -> dict:
    """Run case ``name`` ``n`` times (each in a directory of its own): each numeric figure
    is the median of the runs, and ``runs`` keeps every run's value of it."""
    import statistics

    rows = []
    for i in range(n):
        d = tmp / f"{name}-run{i}"
        d.mkdir()
        rows.append(CASES[name](d))
    if n == 1:
        return rows[0]
    out = dict(rows[0])
    spread = {}
    for k in rows[0]:
        vals = [r.get(k) for r in rows]
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            out[k] = statistics.median(vals)
            spread[k] = vals
    out["runs"] = spread
    return out


def _report(prefix: str, got: dict) -> None:
    """Each quoted figure of these measurements: measured, quoted, where, ratio, and
    whether it reproduces (:func:`reproduced`)."""
    for key, val in got.items():
        for fkey, quoted, unit, path, text in FIGURES:
            if fkey == f"{prefix} {key}" and isinstance(val, (int, float)):
                ok = reproduced(val, quoted, unit)
                at = where(path, text)
                VERDICTS.append((fkey, at, val / quoted, ok))
                print(f"   {fkey}: measured {val} {unit}, quoted {quoted} at {at} "
                      f"(ratio {val / quoted:.2f}{'' if ok else '; NOT within 20 %'})")


def _summary() -> None:
    """How many of the figures compared reproduce, and which do not."""
    bad = [v for v in VERDICTS if not v[3]]
    print(f"# {len(VERDICTS)} quoted figures compared: {len(VERDICTS) - len(bad)} reproduced "
          f"(within 20 %, or under a bound), {len(bad)} not")
    for fkey, at, ratio, _ in bad:
        print(f"#   not reproduced: {fkey} at {at} (ratio {ratio:.2f})")


def main(argv: list[str]) -> int:
    guard(argv, __doc__, ("--list", "--repeats", "--all", "--full", "--only", "--groups",
                          "--quick", "--no-cases"))
    if "--list" in argv:
        return list_figures()
    repeats = REPEATS
    if "--repeats" in argv:
        i = argv.index("--repeats")
        try:
            repeats = int(argv[i + 1])
        except (IndexError, ValueError):
            raise SystemExit("--repeats needs a positive integer") from None
        if repeats < 1:
            raise SystemExit("--repeats needs a positive integer")
        argv = argv[:i] + argv[i + 2:]
    if "--all" in argv:  # every case (perm-9 included) and every group
        argv = [a for a in argv if a != "--all"] + ["--only", ",".join([*CASES, *GROUPS])]
    full = "--full" in argv
    groups: list[str] = []
    if "--only" in argv:  # cases and groups, comma-separated
        i = argv.index("--only")
        if i + 1 >= len(argv):
            raise SystemExit("--only needs a comma-separated list of cases and groups")
        picked = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
        bad = [x for x in picked if x not in CASES and x not in GROUPS]
        if bad:
            raise SystemExit(f"unknown case or group {bad[0]!r}; cases: {', '.join(CASES)}; "
                             f"groups: {', '.join(GROUPS)}")
        groups = [x for x in picked if x in GROUPS]
        argv = argv + [x for x in picked if x in CASES]
        if not any(x in CASES for x in picked):
            argv.append("--no-cases")
    if "--groups" in argv:
        i = argv.index("--groups")
        if i + 1 >= len(argv):
            raise SystemExit("--groups needs a comma-separated list of groups, or all")
        groups = list(GROUPS) if argv[i + 1] == "all" else argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
        bad = [g for g in groups if g not in GROUPS]
        if bad:
            raise SystemExit(f"unknown group {bad[0]!r}; groups: {', '.join(GROUPS)}")
    if "--quick" in argv:
        groups = groups or list(QUICK_GROUPS)
    names = [a for a in argv if not a.startswith("--")]
    bad = [n for n in names if n not in CASES]
    if bad:
        raise SystemExit(f"unknown case {bad[0]!r}; cases: {', '.join(CASES)}")
    if not names and not groups and "--no-cases" not in argv:
        names = [c for c in CASES if full or c != "perm-9"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"# commit {commit}; load average {os.getloadavg()[0]:.1f} at the start "
          "(CPU seconds are the fair figure on a shared machine)")
    with tempfile.TemporaryDirectory(prefix="bench_readme_") as t:
        tmp = Path(t)
        for name in names:
            got = _repeated(name, tmp, 1 if name in ONCE else repeats)
            print(json.dumps({"case": name, **got}))
            _report(name, got)
        for g in groups:
            r = _group(g, tmp)
            print(json.dumps({k: v for k, v in r.items() if k != "output"}))
            _report(f"group:{g}", r)
            print("\n".join(f"   | {line}" for line in r["output"]))
    _summary()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
