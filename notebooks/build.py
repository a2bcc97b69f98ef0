# ruff: noqa: E501  (cell sources are notebook code; the notebooks are excluded from ruff too)
"""Write the teaching notebooks (without outputs) from the cell lists below.

Run ``.venv/bin/python notebooks/build.py`` after editing; ``build.py --execute DIR`` writes
executed copies with outputs (``make demo`` puts them in ``reproduction/notebooks/``); the test
suite
(``tests/test_notebooks.py``) executes every notebook top to bottom and checks that the
committed files match this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
%matplotlib inline
import warnings
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm in a kernel without widgets
import numpy as np
import matplotlib.pyplot as plt
from fractions import Fraction
from logitgeom import plotstyle
plotstyle.use()  # the figure style of `logitgeom reproduce` and `inspect` (text >= 7 pt)

def show(M):
    \"\"\"Print an exact matrix with p/q entries.\"\"\"
    for row in M:
        print("  ".join(f"{str(x):>8}" for x in row))"""

NB: dict[str, list[tuple[str, str]]] = {}

NB["01_cosine_is_not_probability"] = [
    ("md", """\
# 1. Cosine similarity is not probability

A softmax classifier turns a hidden state $h$ into probabilities $\\mathrm{softmax}(W h)$;
row $w_i$ of $W$ is the *unembedding* of label $i$. People often read the cosine between two
unembeddings as "these labels are likely together". The cosine paper shows why that reading fails:

* **Lemma 3.1**: adding one vector $v$ to every unembedding ($W \\to W + \\mathbf 1 v^\\top$)
  adds $v\\cdot h$ to every logit, so **no probability changes, for any input**;
* **Lemmas 3.2 / 3.3**: such a translation can make the cosine of two chosen labels exactly
  $-1$ or exactly $+1$;
* **Theorem 3.4**: so three models with identical probabilities can have cosines $c$, $-1$, $+1$.

Everything below is exact rational arithmetic; floats are only used to draw."""),
    ("code", SETUP),
    ("code", """\
from logitgeom import translate, translation_for_cosine, cosine_matrix, difference_pairs

W = [[2, 1], [1, 3], [-1, -2]]          # three labels in the plane (exact integers)
v_minus = translation_for_cosine(W, 0, 1, -1)
v_plus = translation_for_cosine(W, 0, 1, +1)
W_minus, W_plus = translate(W, v_minus), translate(W, v_plus)
print("v' =", [str(x) for x in v_minus], "  v'' =", [str(x) for x in v_plus])
print("W'' ="); show(W_plus)
for name, M in [("W", W), ("W'", W_minus), ("W''", W_plus)]:
    print(f"cos(w_0, w_1) in {name:3s} = {cosine_matrix(M)[0, 1]:+.6f}")"""),
    ("md", """\
**Why the probabilities cannot change.** Softmax only sees differences of logits,
$z_i - z_j = (w_i - w_j)\\cdot h$. A translation leaves every difference of rows
$w_i - w_j$ untouched, which we check exactly:"""),
    ("code", """\
def row_differences(M):
    M = [[Fraction(x) for x in r] for r in M]
    return [[a - b for a, b in zip(M[i], M[j])] for i, j in difference_pairs(len(M))]

print(row_differences(W) == row_differences(W_minus) == row_differences(W_plus))"""),
    ("md", "A picture in the spirit of Fig. 1 of the cosine paper: three different-looking heads, one "
           "set of probability curves (inputs on the unit circle)."),
    ("code", """\
fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
colors = ["tab:blue", "tab:orange", "tab:green"]
models = [("W", W), ("W'", W_minus), ("W''", W_plus)]
for ax, (name, M) in zip(axes, models):
    A = np.array(M, dtype=float)
    for i, w in enumerate(A):
        ax.annotate("", xy=w, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=colors[i], lw=2))
        ax.text(*(1.1 * w), str(i), color=colors[i], fontweight="bold")
    ax.set_xlim(-8, 8); ax.set_ylim(-8, 8); ax.set_aspect("equal"); ax.grid(alpha=.3)
    ax.set_title(f"{name}: cos(w0, w1) = {cosine_matrix(M)[0, 1]:+.2f}")
t = np.linspace(0, 2 * np.pi, 400)
X = np.stack([np.cos(t), np.sin(t)])
for (name, M), ls in zip(models, ["-", "--", ":"]):
    Z = np.array(M, dtype=float) @ X
    P = np.exp(Z - Z.max(0)); P /= P.sum(0)
    for i in range(3):
        axes[3].plot(np.degrees(t), P[i], ls, color=colors[i], lw=3 if ls == "-" else 1.5)
axes[3].set_title("p(label | x): all three models coincide"); axes[3].set_xlabel("angle of x (degrees)")
plt.tight_layout()"""),
    ("md", """\
## A certificate anyone can check

The claim "W and W' give the same probabilities and cos(w'_0, w'_1) = -1" is written as a
small JSON file (numbers as `"p/q"` strings) that the trusted checker
`certificates/check.py` verifies with the Python standard library alone. Tampering with any
number is caught."""),
    ("code", """\
from logitgeom import emit
from logitgeom_certificates.check import check

cert = emit.translation_certificate(W, 0, 1, -1)
print(emit.dumps(cert)[:300], "...")
print(check(cert))
tampered = dict(cert, v=["1", "0"])
print(check(tampered))"""),
    ("md", """\
The cosine paper's Theorem 3.4 itself is a committed certificate (`certificates/paper/`);
`logitgeom check FILE --explain` states what it proves:"""),
    ("code", """\
import logitgeom_certificates
from pathlib import Path
from logitgeom_certificates.check import main as check_cli

paper = Path(logitgeom_certificates.__file__).parent / "paper"
check_cli([str(paper / "thm-3.4-translation.json"), "--explain"])"""),
    ("md", """\
**Centring does not help** (App. C.2/C.3): `logitgeom reproduce` also certifies a centred
head with $\\cos(w_0, w_1) \\ge 9/10$ where some input ranks label 0 first and label 1 last,
and a centred head whose rows have length exactly 1 with the same property."""),
]

NB["02_sign_and_ranking_patterns"] = [
    ("md", """\
# 2. Sign patterns and ranking patterns

For a **sigmoid** head (multi-label), label $i$ is predicted when $w_i\\cdot x > 0$; the
achievable label sets are the *sign pattern* $S(W)$: the regions cut out by the hyperplanes
$w_i\\cdot x = 0$. For a **softmax** head the question is which *orderings* of the labels
some input produces: the ranking pattern $R(W) = S(BW)$, where $B$ has rows $e_i - e_j$.

`logitgeom.geometry` enumerates both **exactly and completely**: every region comes with a
rational witness point, and completeness is certified by the exact Zaslavsky count of the
intersection lattice (no sampling, no float tolerance)."""),
    ("code", SETUP),
    ("code", """\
from logitgeom import sign_pattern, ranking_pattern, count_regions, count_rankings

W = [[3, 0], [1, 2], [-1, 2], [-2, -1]]      # 4 labels in R^2
S = sign_pattern(W)
print(S.count, "sign patterns, complete:", S.complete, f"({S.completeness})")
for p, x in list(zip(S.patterns, S.witnesses))[:3]:
    print(p, "witness x =", [str(v) for v in x])
R = ranking_pattern(W)
print(R.count, "rankings (most likely label first), e.g.", R.patterns[:4])"""),
    ("md", "A result shows itself briefly (counts and the first rows, never all of them); "
           "`to_dataframe()` has the whole table (column `rank 1` is the most likely label)."),
    ("code", """\
print(repr(R))
R.to_dataframe().head()"""),
    ("md", """\
In the plane a ranking changes exactly when $x$ crosses a line $(w_i - w_j)\\cdot x = 0$.
Below: those lines, and each region labelled by its ranking. Twelve of the $4! = 24$
orderings are possible."""),
    ("code", """\
A = np.array(W, dtype=float)
pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
angles = sorted({(np.arctan2(*(A[i] - A[j])[::-1]) + s * np.pi / 2) % (2 * np.pi)
                 for i, j in pairs for s in (1, -1)})
fig, ax = plt.subplots(figsize=(6.5, 6.5))
for i, j in pairs:
    n = A[i] - A[j]; d = np.array([-n[1], n[0]]) / np.linalg.norm(n)
    ax.plot([-d[0] * 5, d[0] * 5], [-d[1] * 5, d[1] * 5], color="0.6", lw=1)
found = set()
for a, b in zip(angles, angles[1:] + [angles[0] + 2 * np.pi]):
    mid = (a + b) / 2; x = np.array([np.cos(mid), np.sin(mid)])
    r = tuple(int(k) for k in np.argsort(-(A @ x)))
    found.add(r)
    ax.text(*(3.8 * x), ">".join(map(str, r)), ha="center", va="center", fontsize=9)
for i, w in enumerate(A):
    ax.annotate("", xy=w, xytext=(0, 0), arrowprops=dict(arrowstyle="->", lw=2, color=f"C{i}"))
    ax.text(*(1.12 * w), f"w{i}", color=f"C{i}", fontweight="bold")
ax.set_xlim(-5, 5); ax.set_ylim(-5, 5); ax.set_aspect("equal")
ax.set_title("regions of the ranking pattern R(W)")
print("drawn regions == exact R(W):", found == set(R.patterns))"""),
    ("md", """\
## Counting against Cover's formulas

For $k$ hyperplanes in general position through the origin of $\\mathbb R^d$ there are
$2\\sum_{i<d}\\binom{k-1}{i}$ regions (Cover 1965); rankings of $k$ labels in general position
number $Q(k,d)$ (Cover 1967). Exact counts (`count_regions`, `count_rankings`) come from the
intersection lattice and agree when the input is generic, and are smaller when it is not."""),
    ("code", """\
from logitgeom import cover_count, ranking_count_generic

rng = np.random.default_rng(0)
for k, d in [(4, 2), (5, 3), (6, 3), (7, 4)]:
    G = rng.integers(-9, 10, size=(k, d)).tolist()
    print(f"k={k} d={d}: regions {count_regions(G):4d} (Cover {cover_count(k, d):4d})   "
          f"rankings {count_rankings(G):5d} (Cover {ranking_count_generic(k, d):5d})")
parallel = [[1, 0], [2, 0], [0, 1]]            # rows 0 and 1 are one hyperplane
print("with parallel rows:", count_regions(parallel), "regions, generic formula", cover_count(3, 2))"""),
    ("md", """\
## The cosine paper's verification grid, one cell

Lemma 5.3 says the cosine matrix $C(W)$ determines $S(W)$; Theorem 5.6 says the cosines of
the *differences* $C(BW)$ determine $R(W)$. Since $C = D^{-1} G D^{-1}$ with $G = W W^\\top$ and
a positive diagonal $D$, $S(C) = S(G)$, which is rational. One grid cell, exactly
(`logitgeom reproduce` runs the whole grid $n\\in\\{3,5,10\\}$, $2 \\le d\\le\\min(6, n)$; the paper's text says $\\min(6, n-1)$, the tool
also runs $d = n$ for Lemma 5.3, and Theorem 5.6 only for $d < n$):"""),
    ("code", """\
from logitgeom import gram_exact

W5 = np.random.default_rng(53).integers(-5, 6, size=(5, 3)).tolist()
print("Lemma 5.3:", sign_pattern(W5).patterns == sign_pattern(gram_exact(W5)).patterns)
BW = [[a - b for a, b in zip(W5[i], W5[j])] for i in range(5) for j in range(i + 1, 5)]
R5 = ranking_pattern(W5)
as_signs = {tuple(1 if r.index(i) < r.index(j) else -1 for i in range(5) for j in range(i + 1, 5))
            for r in R5.patterns}
print("Thm 5.6:", as_signs == set(sign_pattern(gram_exact(BW)).patterns), f"({R5.count} rankings)")"""),
    ("md", """\
From the shell: `logitgeom patterns ranking W.csv --json out.json`,
`logitgeom count sign W.csv`, and `logitgeom certify pattern W.csv --ranking -o cert.json`
for a checkable completeness certificate."""),
]

NB["03_counterexamples"] = [
    ("md", """\
# 3. The two counterexamples

* **Theorem 5.5**: the cosine matrix does *not* determine the ranking pattern. Seven
  unembeddings around a circle; shortening one of them (multiplying a row by a positive
  number, $W' = DW$) keeps every cosine but changes which labels can ever be ranked first.
* **App. H.2** (Björner et al., *Oriented Matroids* §1.10): even the sign pattern does not
  determine the ranking pattern: two point configurations $W = [\\mathbf 1 \\mid P]$ with the
  same $S(W)$ but different $R(W)$.

Both are decided exactly and shipped as certificates."""),
    ("code", SETUP),
    ("code", """\
from logitgeom.reproduce.paper import THM_5_5_W1, THM_5_5_W2, APP_H2_W1, APP_H2_W2
from logitgeom import argmaxable, cosine_equal, ranking_pattern, sign_pattern

print("C(W) == C(W'):", cosine_equal(THM_5_5_W1, THM_5_5_W2))
a1, a2 = argmaxable(THM_5_5_W1), argmaxable(THM_5_5_W2)
print("labels that can be ranked first:", a1.labels, "vs", a2.labels)
print("label 2 is never first under W': Gordan multipliers", a2.multipliers[2])"""),
    ("md", "The shaded regions show where each label is the most likely (the argmax)."),
    ("code", """\
g = np.linspace(-6, 6, 401); X, Y = np.meshgrid(g, g)
fig, axes = plt.subplots(1, 2, figsize=(11, 5))
for ax, M, t in zip(axes, [THM_5_5_W1, THM_5_5_W2], ["W", "W' = D W"]):
    A = np.array(M, dtype=float)
    lab = np.argmax(np.stack([X.ravel(), Y.ravel()], 1) @ A.T, 1).reshape(X.shape)
    ax.imshow(lab, origin="lower", extent=(-6, 6, -6, 6), cmap="tab10", vmin=0, vmax=9, alpha=.3)
    for i, w in enumerate(A):
        ax.annotate("", xy=w, xytext=(0, 0), arrowprops=dict(arrowstyle="->", lw=2, color=f"C{i}"))
        ax.text(*(1.1 * w), str(i), fontweight="bold", color=f"C{i}")
    ax.set_title(f"{t}: argmax regions")
plt.tight_layout()"""),
    ("code", """\
S1, S2 = sign_pattern(APP_H2_W1), sign_pattern(APP_H2_W2)
R1, R2 = set(ranking_pattern(APP_H2_W1).patterns), set(ranking_pattern(APP_H2_W2).patterns)
print("S(W1) == S(W2):", S1.patterns == S2.patterns, f"({S1.count} patterns)")
print("rankings only under W1:", sorted(R1 - R2))
print("rankings only under W2:", sorted(R2 - R1))"""),
    ("code", """\
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
for ax, M, t in zip(axes, [APP_H2_W1, APP_H2_W2], ["W1", "W2"]):
    P = np.array([[float(Fraction(x)) for x in r[1:]] for r in M])
    ax.scatter(P[:, 0], P[:, 1], c=[f"C{i}" for i in range(5)], s=70)
    for i, p in enumerate(P):
        ax.text(p[0] + .05, p[1] + .07, str(i), fontsize=12)
    ax.set_xlim(-1.4, 1.4); ax.set_ylim(-1.4, 1.4); ax.set_aspect("equal"); ax.grid(alpha=.3)
    ax.set_title(f"{t} = [1 | P]: points p_i")
plt.tight_layout()"""),
    ("md", """\
A ranking of $W = [\\mathbf 1\\mid P]$ is the order of the points along some direction, so the
two pictures have the same "which side of a line" structure (same chirotope) but not the
same orderings. The certificates prove both results with integer arithmetic only:"""),
    ("code", """\
import logitgeom_certificates
from pathlib import Path
from logitgeom_certificates.check import check_file

paper = Path(logitgeom_certificates.__file__).parent / "paper"
for name in ["thm-5.5-cosine-ranking.json", "app-h.2-sign-ranking.json"]:
    print(name, check_file(paper / name))"""),
]

NB["04_cyclic_symmetry"] = [
    ("md", """\
# 4. Cyclic symmetry: weekdays and months

The symmetry paper models next-token targets with the **layer-peeled program**
$\\min_{W,H} \\sum_j \\mathrm{CE}(\\mathrm{softmax}(WH)_{:,j}, Y_{:,j})$ with
$\\|W\\|_F^2\\le E_W$, $\\|H\\|_F^2\\le E_H$. At the logit level $Z = WH$ it is convex:
$\\min_Z J(Z)$ s.t. $\\|Z\\|_* \\le \\sqrt{E_W E_H}$.

"Today is Monday. Tomorrow is ___": shifting the day shifts the target, so $Y$ is a cyclic
orbit $[y, Py, \\dots, P^{m-1}y]$. **Theorem 1**: the optimum is circulant, and the DFT turns
the nuclear norm into $\\sum_k |\\hat z_k|$: a program with $m$ variables instead of $m n$."""),
    ("code", SETUP),
    ("code", """\
from logitgeom import LayerPeeled, cyclic_orbit

y = ["0", "1/2", "1/4", "1/8", "1/16", "1/32", "1/32"]   # mostly "the next day"
Y = cyclic_orbit(y, exact=True)
problem = LayerPeeled(Y, 1, 4)                         # E_W = 1, E_H = 4: rho = 2
sol = problem.solve()                                  # auto-detects the cyclic structure
print(sol.method, "loss", round(sol.loss, 8), "dual gap", f"{sol.gap:.1e}", "rank", sol.rank)
full = problem.solve("full")
print("full nuclear-norm program:", round(full.loss, 8))"""),
    ("md", "The DFT identity $\\|\\mathrm{circ}(z)\\|_* = \\sum_k |\\hat z_k|$ on the solution:"),
    ("code", """\
z = sol.Z[:, 0]
print(np.abs(np.fft.fft(z)).sum(), np.linalg.svd(sol.Z, compute_uv=False).sum(), sol.rho)"""),
    ("code", """\
def heatmaps(mats, titles):
    fig, axes = plt.subplots(1, len(mats), figsize=(4.3 * len(mats), 3.8))
    for ax, M, t in zip(np.atleast_1d(axes), mats, titles):
        v = np.abs(M).max()
        im = ax.imshow(M, cmap="RdBu_r", vmin=-v, vmax=v); ax.set_title(t)
        fig.colorbar(im, ax=ax, fraction=.046)
    plt.tight_layout()

heatmaps([sol.Z, sol.WWt, sol.HtH], ["Z* (logits)", "W W^T (days)", "H^T H (contexts)"])"""),
    ("md", """\
Each matrix is constant along its (wrapped) diagonals. `predicted_geometry` measures how far a
solution is from the predicted structure (the full program's answer is circulant too, to
solver accuracy):"""),
    ("code", """\
from logitgeom import predicted_geometry
print(predicted_geometry(sol).deviation)
print(predicted_geometry(full).deviation)"""),
    ("md", "Months ($m = 12$), and two target orbits at once (Theorem 5, multi-block): "
           "all blocks share one DFT basis."),
    ("code", """\
from logitgeom import concat_blocks
months = cyclic_orbit(["0", "3/5", "1/5", "1/10", "1/20", "1/20"] + ["0"] * 6, exact=True)
two = concat_blocks(months, cyclic_orbit(["1/2"] + ["0"] * 10 + ["1/2"], exact=True))
m_sol = LayerPeeled(two, 1, 4).solve()
print(m_sol.method, m_sol.info.get("blocks"), "blocks, loss", round(m_sol.loss, 6))
heatmaps([m_sol.WWt, m_sol.HtH], ["W W^T (months)", "H^T H (24 contexts)"])"""),
    ("md", """\
## The nonconvex layer-peeled program by gradient descent

The theorem is about the optimum of the convex program. Does gradient descent on the
*nonconvex* program over $(W, H)$ find it? With torch on CPU (a few seconds): each of the 7
contexts "today is <day>" gets a free embedding, a two-layer MLP turns it into its feature
$h_j \\in \\mathbb R^7$ (so in effect a free feature per context, as in the layer-peeled
model), a head $W$ gives the logits $W h_j$, and the loss is the cross-entropy against the
rotated weekday target $y_j = P^j y$ plus weight decay
$\\lambda_W\\|W\\|_F^2 + \\lambda_H\\|H\\|_F^2$. A minimiser of that loss minimises $J$ under the
budgets it ends with, $E_W = \\|W\\|_F^2$, $E_H = \\|H\\|_F^2$, so at every checkpoint we solve
the layer-peeled program for those budgets and measure the distance (the `reproduce` row
"Nonconvex layer-peeled program by gradient descent"). This is not a language model; the
row "Symmetry transfer in a trained transformer LM" trains one (`logitgeom.reproduce.lm`)."""),
    ("code", """\
from logitgeom.reproduce.trained import train_cyclic

trace = train_cyclic()          # deterministic: seed 0, one thread, float64
for r in trace.rows:
    print(f"step {r['step']:5d}  J - J* = {r['loss_gap']:+.1e}  dist(WW^T) = {r['dist_WWt']:.1e}  "
          f"dist(H^T H) = {r['dist_HtH']:.1e}  delta_circ(WW^T) = {r['delta_circ']:.1e}")
heatmaps([trace.WWt, trace.WWt_star], ["trained W W^T", "optimum W* W*^T (same budgets)"])"""),
]

NB["05_permutation_symmetry"] = [
    ("md", """\
# 5. Permutation symmetry: the simplex ETF

Exchangeable alternatives ({fork, knife, plate, cup, glass}) give targets that are orbits of
a **2-transitive** group $G$ (e.g. all permutations $S_m$): $Y = [g\\circ y : g\\in G]$.
Theorems 2-4 of the symmetry paper: then $W^*W^{*\\top} = \\frac{E_W}{m-1}(I - \\tfrac1m J)$, a simplex
equiangular tight frame, whatever $y$ is; and $Z^* = -\\kappa (A - Y)$ where the columns of $A$
are $g\\circ\\alpha$ and $\\alpha$ solves a scalar stationarity system
$\\log\\alpha_i + \\kappa(\\alpha_i - y_i) = \\frac1m\\sum_r \\log\\alpha_r$."""),
    ("code", SETUP),
    ("code", """\
from logitgeom import LayerPeeled, group_orbit, predicted_geometry, symmetric

y = ["1/2", "1/4", "1/4", "0"]
Y = group_orbit(y, symmetric(4), exact=True)      # 4 x 24
sol = LayerPeeled(Y, 1, 4).solve()
print(sol.method, "loss", round(sol.loss, 8), "gap", f"{sol.gap:.1e}")
g = predicted_geometry(sol)
print("predicted W W^T (exact):"); print(g.WWt_exact)
print("deviation from the prediction:", g.deviation)"""),
    ("md", "The stationarity system at the solution: $\\alpha$ is the softmax of the identity column."),
    ("code", """\
alpha = sol.probabilities[:, 0]
yv = np.array([float(Fraction(v)) for v in y])
kappa = g.details["kappa"]
lhs = np.log(alpha) + kappa * (alpha - yv)
print("alpha =", alpha.round(6), " kappa =", round(kappa, 6))
print("log a_i + kappa (a_i - y_i) - mean log a =", (lhs - np.log(alpha).mean()).round(12))"""),
    ("code", """\
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, M, t in zip(axes, [sol.WWt, sol.Z], ["W W^T: a simplex ETF", "Z* = -kappa (A - Y), 24 contexts"]):
    v = np.abs(M).max(); im = ax.imshow(M, cmap="RdBu_r", vmin=-v, vmax=v, aspect="auto")
    ax.set_yticks(range(4)); ax.set_title(t); fig.colorbar(im, ax=ax)
plt.tight_layout()"""),
    ("md", """\
**Not only $S_m$** (Theorem 4): the affine group AGL(1,5) = $\\{x\\mapsto ax+b \\bmod 5\\}$ has
order 20, much smaller than $|S_5| = 120$, yet it is 2-transitive, so the same ETF appears."""),
    ("code", """\
from logitgeom import affine_line

Y5 = group_orbit(["1/2", "1/4", "1/8", "1/8", "0"], affine_line(5), exact=True)
s5 = LayerPeeled(Y5, 1, 4).solve("etf", group=affine_line(5))
print(Y5.shape, s5.method, "W W^T * (m-1)/E_W ="); print((s5.WWt * 4).round(6))"""),
    ("md", """\
**Multi-block** (Theorem 6): the symmetry paper's animals example stacks the orbit of a one-hot
target and a uniform one; each block gets its own $\\alpha_i$, one $\\kappa$ is shared, the
label Gram is still the ETF."""),
    ("code", """\
from logitgeom import concat_blocks
S3 = symmetric(3)
Ym = concat_blocks(group_orbit([1, 0, 0], S3, exact=True),
                   group_orbit(["1/3", "1/3", "1/3"], S3, exact=True))
sm = LayerPeeled(Ym, 1, 4).solve()
print(sm.method, "loss", round(sm.loss, 8)); print(sm.WWt.round(6))
print("full program agrees:", round(LayerPeeled(Ym, 1, 4).solve("full").loss, 8))"""),
]

NB["06_composite_groups"] = [
    ("md", """\
# 6. Composite groups (the symmetry paper, App. F)

Real label sets carry richer symmetries: several exchangeable families side by side (a
**direct sum** $S_2\\oplus S_3$), a grid of attributes permuted independently (a **direct
product** $S_a\\times S_l$ acting on $P \\mapsto P_s P P_t^\\top$), or families that are
themselves exchangeable (a **wreath product** $S_3 \\wr S_2$). `logitgeom.symmetry` takes any
finite permutation group; the orbit reduction solves the layer-peeled program with one
variable per column orbit and, in a symmetry-adapted basis of the labels, one small block per
irreducible type of the group (see `docs/symmetry-reduction.md`), whatever $|G|$ is."""),
    ("code", SETUP),
    ("code", """\
from logitgeom import LayerPeeled, orbit_targets, detect_symmetry, predicted_gram_structure
from logitgeom.symmetry.examples import app_f_examples

examples = app_f_examples()
for name, ex in examples.items():
    print(f"{name:22s} |G| = {ex.group.order:3d}  m = {ex.group.m}  y = {[str(v) for v in ex.y]}")"""),
    ("code", """\
grams = {}
for name, ex in examples.items():
    T = orbit_targets(ex.group, ex.y)
    sol = LayerPeeled(T.exact_Y(), 4, 16).solve("orbit", group=T.action)   # rho = 8
    pred = predicted_gram_structure(ex.group)
    det = detect_symmetry(T.Y)
    grams[name] = sol.WWt
    print(f"{name:22s} n = {T.Y.shape[1]:3d}  loss {sol.loss:10.6f}  "
          f"Gram vs predicted pattern: {pred.check(sol.WWt).relative:.0e}  detected |G| = {det.row_order}")"""),
    ("md", """\
The predicted Gram patterns: diagonal blocks $\\alpha_i I + \\beta_i (J - I)$ and constant
off-diagonal blocks for direct sums; Kronecker-type forms for products. Equal colours below
are entries the group forces to be equal."""),
    ("code", """\
fig, axes = plt.subplots(2, 4, figsize=(15, 7))
for ax, (name, G) in zip(axes.ravel(), grams.items()):
    v = np.abs(G).max(); im = ax.imshow(G, cmap="RdBu_r", vmin=-v, vmax=v)
    ax.set_title(name.replace("_", " "), fontsize=10); fig.colorbar(im, ax=ax, fraction=.046)
axes.ravel()[-1].set_visible(False)
plt.tight_layout()"""),
    ("md", """\
The orbit reduction scales with the number of orbits, not with $|G|$: here a wreath product
$S_3\\wr S_3$ ($|G| = 1296$ contexts) solved in well under a second, where the full nuclear-norm
program would need a $1305\\times 1305$ semidefinite constraint."""),
    ("code", """\
import time
from logitgeom import symmetric, wreath
G = wreath(symmetric(3), symmetric(3))
T = orbit_targets(G, ["1/6", "1/6", "1/6", "1/4", "1/12", "0", "1/12", "1/12", "0"])
t0 = time.perf_counter()
s = LayerPeeled(T.exact_Y(), 1, 4).solve("orbit", group=T.action)
print(T.Y.shape, "solved in", round(time.perf_counter() - t0, 2), "s; isotypic blocks:",
      s.info["isotypic_blocks"])"""),
]

NB["07_model_geometry"] = [
    ("md", """\
# 7. A model's geometry

`logitgeom inspect` reads an LM head from local files (safetensors, npz/npy, a PyTorch state
dict; never downloads), resolves words to token ids with the model's `tokenizer.json`, and
reports for a token set: $\\delta_{\\mathrm{circ}}$, $\\delta_{\\mathrm{ETF}}$ (how far the
centred Gram of their unembeddings is from circulant / simplex-ETF structure; 0 = exact),
$\\delta_G$ for a group, and the cosine audit of the cosine paper (a translated head with the same
probabilities where a pair has cosine -1 / +1, with a certificate).

Here we build a tiny model ourselves: a tokenizer trained on weekday sentences and a head
whose weekday rows are planted as an exact circulant configuration."""),
    ("code", SETUP),
    ("code", """\
import tempfile
from pathlib import Path
from safetensors.numpy import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
folder = Path(tempfile.mkdtemp())
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
corpus = [f"Today is {a}. Tomorrow is {b}." for a, b in zip(DAYS, DAYS[1:] + DAYS[:1])] * 50
tok.train_from_iterator(corpus, trainers.BpeTrainer(
    vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
tok.save(str(folder / "tokenizer.json"))
ids = [tok.encode(" " + d).ids[0] for d in DAYS]

rng = np.random.default_rng(0)
V, d = tok.get_vocab_size(), 16
W = rng.standard_normal((V, d))
k = np.arange(7)
planted = np.stack([np.cos(2 * np.pi * k / 7), np.sin(2 * np.pi * k / 7),
                    .5 * np.cos(4 * np.pi * k / 7), .5 * np.sin(4 * np.pi * k / 7)], 1)
Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
W[ids] = 3 * np.pad(planted, ((0, 0), (0, d - 4))) @ Q + rng.standard_normal(d)  # rotated, shifted
save_file({"lm_head.weight": W}, str(folder / "model.safetensors"))
print(sorted(p.name for p in folder.iterdir()), "vocab", V, "d", d)"""),
    ("code", """\
from logitgeom.models import inspect_model

report = inspect_model(folder, DAYS, group="cyclic", progress=False)
print("\\n".join(report.summary()))"""),
    ("md", "The Gram of the centred weekday rows: constant along wrapped diagonals "
           "(circulant), as Theorem 1 predicts for a cyclic target."),
    ("code", """\
from logitgeom import normalized_gram, delta_circ, delta_etf
G = normalized_gram(W[ids])
plt.imshow(G, cmap="RdBu_r", vmin=-np.abs(G).max(), vmax=np.abs(G).max())
plt.xticks(range(7), [d[:3] for d in DAYS]); plt.yticks(range(7), [d[:3] for d in DAYS])
plt.colorbar(); plt.title(f"weekday Gram: delta_circ = {delta_circ(G):.1e}, delta_ETF = {delta_etf(G):.2f}")
random_rows = rng.standard_normal((7, d))
print("a random head instead: delta_circ =", round(delta_circ(normalized_gram(random_rows)), 3))"""),
    ("md", """\
## Pointing it at real weights

With a model folder on disk (for example one downloaded earlier with `huggingface-cli`):

```bash
logitgeom inspect /path/to/model --tokens "Monday,Tuesday,Wednesday,Thursday,Friday,Saturday,Sunday" \\
    --group cyclic --json weekdays.json --plot weekdays.png
logitgeom inspect /path/to/model --tokens "fork,knife,plate,cup,glass" --plot utensils.png
# context embeddings (needs torch + transformers): run the model on a prompt template
logitgeom inspect /path/to/model --tokens "Monday,...,Sunday" --prompt "Today is {TOKEN}. Tomorrow is"
```

The symmetry paper reports $\\delta_{\\mathrm{circ}} \\approx 0.2$ for weekdays and
$\\delta_{\\mathrm{ETF}} \\approx 0.2$ for the utensils on GPT-OSS-20B. Words that split
into several tokens are reported, never silently truncated."""),
]


NB["08_layer_peeled_family"] = [
    ("md", """\
# 8. The layer-peeled family: imbalanced classes, MSE and sigmoid heads

Beyond the two papers. Fang, He, Long and Su (2021) study the layer-peeled model with
**imbalanced classes**: $K_A$ majority classes with $n_A$ samples each, $K_B$ minority classes
with $n_B$, the loss averaged over samples and the feature budget averaged per class. They
prove that as the ratio $R = n_A/n_B \\to \\infty$ the minority classifiers collapse onto each
other (*minority collapse*). Here every point is a **certified bracket**, and at each ratio a
certificate proves either *separation* (no optimum has equal minority classifiers) or
*collapse* (some optimum has exactly equal ones). Derivations: `docs/layer-peeled-family.md`."""),
    ("code", SETUP),
    ("code", """\
from logitgeom_certificates.api import check
from logitgeom.convex.family import minority_program, minority_samples

P = minority_program(5, 5, 10, 3, 3)     # K_A = K_B = 5, R = 10, per-class budgets 3
print("weights n_k/N:", [str(w) for w in P.weights_exact])
sol = P.solve()                          # detects S_5 x S_5: six numbers instead of 100
print(sol.method, sol.loss, sol.gap)
# the unreduced program (one column per sample) has the same value
print(minority_samples(2, 2, 3, 1, 3, 3).solve("full").loss,
      minority_program(2, 2, 3, 3, 3).solve("full").loss)"""),
    ("md", """\
**The curve.** `minority_curve` certifies every ratio (a bracket of the value and the
structure of the file's own point) and proves a verdict; between the last separated and the
first collapsed ratio it bisects, each step proven again. The cosines are those of the
certificate's own exact $W$."""),
    ("code", """\
from logitgeom.convex.minority import minority_curve

pts, (lo, hi) = minority_curve((1, 3, 10, 30, 100, 1000, 10**5), threshold_steps=4)
for p in pts:
    print(f"R = {float(p.ratio):>8g}  {p.verdict:9s}  cos(minority) = {p.cos_minority:+.6f}  "
          f"cos(majority, minority) = {p.cos_majority_minority:+.4f}  "
          f"J* in [{float(p.lower):.10f}, {float(p.upper):.10f}]  "
          f"checked: {check(p.bracket).ok and check(p.theorem).ok}")
print(f"threshold: separated (proven) at R = {float(lo.ratio):.4g}, "
      f"collapsed (proven) at R = {float(hi.ratio):.4g}")"""),
    ("code", """\
shown = sorted({p.ratio: p for p in (*pts, lo, hi)}.values(), key=lambda p: p.ratio)
fig, ax = plt.subplots(figsize=(5, 3))
R = [float(p.ratio) for p in shown]
ax.semilogx(R, [p.cos_minority for p in shown], "o-", label="minority-minority")
ax.semilogx(R, [p.cos_majority_minority for p in shown], "s--", label="majority-minority")
ax.axvspan(float(lo.ratio), float(hi.ratio), color="0.85")
ax.set_xlabel("R = n_A / n_B"); ax.set_ylabel("cosine"); ax.legend(); plt.show()"""),
    ("md", """\
**What this shows.** The minority classifiers become *exactly* equal at a finite ratio
(between the two proven ratios above), not only in the limit: the nuclear norm has a kink at a
zero singular value, so once the minority weight $w_B$ falls below the budget's multiplier
the separating direction is switched off exactly (the `minority-collapse` theorem checks a
secant slope of the collapsed program's value against $w_B$). What is proven is the verdict at
each computed ratio, for some optimum; monotonicity between computed ratios and uniqueness are
not claimed.

**Other losses.** MSE ($\\|z - y\\|^2/2$) on an $S_m$ orbit target has a closed form (singular
value thresholding) and an ETF of centred classifiers; BCE is the loss of sigmoid heads."""),
    ("code", """\
from logitgeom.convex.family import LayerPeeledFamily, sm_mse_value
from logitgeom.symmetry import orbit_targets, symmetric

base = ["1/2", "1/4", "1/8", "1/8"]
Q = LayerPeeledFamily(orbit_targets(symmetric(4), base).exact_Y(), 4, 4, loss="mse")
s = Q.solve()
print(s.method, s.loss, sm_mse_value(base, Q.rho)[0])
c = s.certificate(claims=("span-I-J",), generators=[[1, 0, 2, 3], [1, 2, 3, 0]])
print(c["kind"], check(c).ok, [x["claim"] for x in c["structure"]])
b = LayerPeeledFamily([[1, 1, 0], [1, 0, 1], [0, 1, 1]], 2, 2, loss="bce").solve().certificate()
print(b["kind"], check(b).ok, float(Fraction(b["upper"]) - Fraction(b["lower"])))"""),
]


NB["09_beyond_symmetry"] = [
    ("md", """\
# 9. Beyond the symmetry paper: hidden width below the rank, and approximate symmetry

The symmetry paper proves its global results for hidden width $d \\geq m$ and exactly symmetric
targets, and names both limits as open directions. Here the engine proves what holds outside
them (derivations: `docs/beyond-symmetry.md`), each claim in a certificate the standard-library
checker verifies:

* **rank brackets**: for width $D$, $L \\leq J^*_{\\mathrm{conv}} \\leq J^*_D \\leq U$ with $U$ the loss
  of an exactly feasible point whose $W$ has $D$ columns; exact when the convex optimum has rank $\\leq D$;
* **stability**: $|J^*(Y) - J^*(Y_0)| \\leq \\rho\\,\\|Y - Y_0\\|_2$ for $Y$ near a $G$-invariant $Y_0$,
  the loss gap of the best $G$-invariant point, and how far the optimal logits are from it."""),
    ("code", SETUP),
    ("code", """\
from logitgeom_certificates.api import check
from logitgeom.convex.problem import LayerPeeled
from logitgeom.convex.targets import cyclic_orbit
from logitgeom.convex.lowrank import rank_constrained
from logitgeom.convex.lowrank import rank_certificate

m = 7
y = [Fraction(2 ** (m - 1 - k), 2 ** m - 1) for k in range(m)]   # a geometric cyclic target
problem = LayerPeeled(cyclic_orbit(y, exact=True), 1, m * m)     # rho = m
sol = problem.solve()
print("rank of the convex optimum:", sol.rank)
rows = []
for D in range(1, m):
    cert = rank_certificate(problem, D, result=rank_constrained(problem, D, sol=sol))
    lo, up = Fraction(cert["lower"]), Fraction(cert["upper"])
    rows.append((D, float((up - lo) / up)))
    print(f"D = {D}: J*_D in [{float(lo):.8f}, {float(up):.8f}]  {cert['relaxation']:5s}  "
          f"checker: {check(cert).ok}  best point: {cert['construction']}")"""),
    ("md", """\
Below the rank the bracket states the gap it proves (the relaxation gap is at most the width);
at $D$ = rank the two ends meet and the certificate says the relaxation is exact. For the
ETF target (the smoothed identity, $S_m$-invariant, optimum of rank $m - 1$) the width falls
slowly with $D$:"""),
    ("code", """\
b = (1 - Fraction(1, 2)) / (m - 1)
etf = np.array([[Fraction(1, 2) if i == j else b for j in range(m)] for i in range(m)], dtype=object)
pe = LayerPeeled(etf, 1, m * m)
se = pe.solve()
widths = []
for D in range(1, m):
    r = rank_constrained(pe, D, sol=se)
    widths.append(r.gap / r.loss)
fig, ax = plt.subplots(figsize=(5, 3))
ax.semilogy([d for d, _ in rows], [max(w, 1e-13) for _, w in rows], "o-", label="cyclic (geometric y)")
ax.semilogy(range(1, m), [max(w, 1e-13) for w in widths], "s-", label="ETF (smoothed identity)")
ax.set_xlabel("hidden width D"); ax.set_ylabel("relative width (U - L) / U"); ax.legend()
plt.show()"""),
    ("md", """\
## Approximate symmetry

A real target is never exactly symmetric. Perturb the cyclic target; $Y_0$ is its group
average (the orthogonal projection onto $G$-invariant matrices), and the certificate proves
both brackets, the stability bound, the gap of the best $G$-invariant point (its loss is
exactly $J^*(Y_0)$) and a distance bound from strong convexity."""),
    ("code", """\
from logitgeom.convex.stability import stability_certificate
from logitgeom.symmetry import cyclic
from logitgeom.symmetry.group import column_action
from logitgeom_certificates._render import explain

Y0 = cyclic_orbit(["2/5", "1/4", "1/5", "1/10", "1/20"], exact=True)
G = column_action(cyclic(5), Y0)
rng = np.random.default_rng(0)
Y = Y0.copy()
for j in range(5):
    col = [max(Fraction(0), Y0[i, j] + Fraction(int(rng.integers(-30, 31)), 1000)) for i in range(5)]
    Y[:, j] = [x / sum(col) for x in col]
cert = stability_certificate(Y, 1, 4, G)
print(check(cert))
print(explain(cert))"""),
    ("md", "The bound against the certified values, as the perturbation grows:"),
    ("code", """\
sizes, diffs, bounds = [], [], []
for size in (5, 10, 20, 40, 80):
    Y = Y0.copy()
    for j in range(5):
        col = [max(Fraction(0), Y0[i, j] + Fraction(int(rng.integers(-size, size + 1)), 1000)) for i in range(5)]
        Y[:, j] = [x / sum(col) for x in col]
    c = stability_certificate(Y, 1, 4, G)
    b1, b0 = c["brackets"]
    sizes.append(size / 1000)
    diffs.append(float(Fraction(b0["upper"]) - Fraction(b1["lower"])))   # >= J*(Y0) - J*(Y) >= 0
    bounds.append(float(Fraction(c["stability"])))
fig, ax = plt.subplots(figsize=(5, 3))
ax.loglog(sizes, bounds, "o-", label="proven bound rho ||Y - Y0||_2")
ax.loglog(sizes, diffs, "s-", label="certified J*(Y0) - J*(Y) (upper end)")
ax.set_xlabel("perturbation size"); ax.legend()
plt.show()"""),
]


def build(name: str, cells: list[tuple[str, str]]):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, src) in enumerate(cells):
        cell = new_markdown_cell(src) if kind == "md" else new_code_cell(src)
        cell["id"] = f"{name[:2]}-{i:02d}"  # deterministic ids (nbformat >= 4.5)
        nb.cells.append(cell)
    return nb


def execute(out: Path, timeout: int = 600, names=None) -> list[Path]:
    """Run every notebook top to bottom and write the executed copies (with outputs) to ``out``.

    ``make demo`` calls this (``build.py --execute reproduction/notebooks``) so the notebooks
    can be read with their outputs without running them.  The kernel is this interpreter.
    """
    import nbclient

    import tempfile

    from jupyter_client.manager import KernelManager

    out.mkdir(parents=True, exist_ok=True)
    written = []
    todo = [n for n in NB if names is None or n in names]
    for k, name in enumerate(todo, 1):
        cells = NB[name]
        # each notebook runs for seconds to a minute: say which one, before it starts
        print(f"[notebook {k}/{len(todo)}] executing {name} ...", flush=True)
        nb = build(name, cells)
        with tempfile.TemporaryDirectory(prefix="logitgeom-kernel-") as sock:
            # local IPC sockets in a private folder: no TCP port, no transport warning
            km = KernelManager(kernel_name="python3", transport="ipc",
                               ip=str(Path(sock) / "kernel"))
            try:
                nbclient.NotebookClient(nb, km=km, timeout=timeout,
                                        resources={"metadata": {"path": str(HERE)}}).execute()
            finally:
                if km.has_kernel:  # a kernel we passed in is ours to stop
                    km.shutdown_kernel()
        path = out / f"{name}.ipynb"
        nbformat.write(nb, path)
        written.append(path)
        print("executed", path, flush=True)
    return written


def main(check: bool = False) -> int:
    """Write (or with ``--check``, compare) every notebook; returns an exit code."""
    stale = []
    for name, cells in NB.items():
        path = HERE / f"{name}.ipynb"
        text = nbformat.writes(build(name, cells)) + "\n"
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run notebooks/build.py):", ", ".join(stale))
    return 1 if stale else 0


if __name__ == "__main__":
    if "--execute" in sys.argv:
        i = sys.argv.index("--execute")
        execute(Path(sys.argv[i + 1]) if len(sys.argv) > i + 1 else Path("reproduction/notebooks"))
        sys.exit(0)
    sys.exit(main(check="--check" in sys.argv))
