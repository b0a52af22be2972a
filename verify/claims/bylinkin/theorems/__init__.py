"""Falsifiable claims of Bylinkin, Skorik, Bystrov, Berezin, Avetisyan, Beznosikov, "Accelerated Methods
with Complexity Separation Under Data Similarity for Federated Learning Problems".

The paper's claims are about **communication rounds counted per node group** (M_f, M_g) as functions of the
similarity constants δ_f, δ_g and of μ.  All instances are two-group quadratic federations with exactly prescribed
μ, δ_f, δ_g (:mod:`fedrates.solvers.problems.separation`); their unstated preconditions (h_1 convex; f_1 + g
convex; g convex) are evaluated with the theorem's conditions first.  Gaps are ½(x − x*)ᵀH(x − x*) against the
closed-form optimum (certified gap ‖∇h(x*)‖²/(2μ) passed as ``reference_gap``).

The paper's claims live in the modules of the standard layout: the theorems' statements (rates as scaling laws over δ
grids, recursions, criteria) here, in :mod:`.extragradient` (Theorems 4, 5, 8) and :mod:`.variance_reduced`
(Theorems 2, 3); exact maps, exact expectations and expected round counts in
:mod:`fedrates.verify.claims.bylinkin.exact`; the erratum claims in :mod:`fedrates.verify.claims.bylinkin.errata`;
instances and presets in :mod:`fedrates.verify.claims.bylinkin.instances`; tolerances, checks and the claims' base


class in :mod:`fedrates.verify.claims.bylinkin._checks`; broken variants in
:mod:`fedrates.verify.claims.bylinkin.variants`.

Claims of this package (predictions computed from the instance matrices, independently of the algorithms' code):

* ``bylinkin.thm4/separation-dg``  — C-AccExtragradient: rounds with M_f to reach Ψ_K ≤ εΨ_0 do not depend on δ_g
  (relative spread ≤ 5% over a δ_g grid spanning 1.8 decades) and stay below the exact count of the recursion;
* ``bylinkin.thm4/rate-df``        — the same rounds scale as (δ_f/μ)^{1/2}: fitted exponent 0.5 ± 0.1;
* ``bylinkin.thm4/aeg-baseline``   — the AEG baseline pays δ_g: its M_f rounds scale as ((δ_f + δ_g)/μ)^{1/2}
  over the same δ_g grid and exceed C-AccExtragradient's at every point;
* ``bylinkin.thm4.mg/inner-rounds`` — the inner phase's rounds with M_g over the same grid: exponent ½ in δ_g plus
  the drift of the Õ's log factor (band [0.45, 0.75]), and no outer step needs more inner iterations than Theorem 8's
  sufficient count;
* ``bylinkin.thm4/aeg-ratio``      — R_f(C-AccExtragradient)/R_f(AEG) has exponent −½ in (δ_f + δ_g)/δ_f and is < 1;
* ``bylinkin.thm4/l-free``         — the same M_f rounds over L ∈ [1, 1000] at fixed μ, δ_f, δ_g: exponent 0 ± 0.1 in L
  (no smoothness constant enters the paper's rates; L is only inside the log of Theorem 4's Õ);
* ``bylinkin.thm4/outer-criterion`` — the inner AccExtragradient stops only when criterion (6) holds;
* ``bylinkin.thm8.rate/recursion``  — Theorem 8's recursion with the corrected Lyapunov function, inner
  subproblems stopped exactly at 1/(10θ_g²);
* ``bylinkin.thm5.corrected/inexact-trajectory`` (and the erratum ``bylinkin.thm5/inexact-trajectory``) — Theorem
  5's one-step recursion along the method's own iterates, every server subproblem stopped exactly at criterion (4);
* ``bylinkin.thm2/rate-df``, ``bylinkin.thm2/separation-dg``, ``bylinkin.thm2.mg/rate-dg`` (VRCS) and
  ``bylinkin.thm3/rate-df``, ``bylinkin.thm3/separation-dg``, ``bylinkin.thm3.mg/rate-dg`` (AccVRCS) — rounds to a
  relative gap ε as scaling laws: exponent fitted over a δ grid with a bootstrap CI over seeds (1 and ½ in δ_f/μ, 0 in
  δ_g for M_f; for M_g the exponent of the theorem's explicit count over the grid); ``bylinkin.thm3/acceleration`` —
  VRCS epochs over AccVRCS iterations grow as (δ_f/μ)^{1/2};
* ``bylinkin.thm2/rate-df-fixed-mu`` and ``bylinkin.thm3/rate-df-fixed-mu`` — the δ_f exponents (1 and ½) over a δ_f
  grid at fixed μ and δ_g (p = q and the epoch length change along it);
"""

from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.bylinkin.theorems import extragradient, variance_reduced

__all__ = ["CLAIMS"]

CLAIMS: tuple[Claim, ...] = extragradient.CLAIMS + variance_reduced.CLAIMS
