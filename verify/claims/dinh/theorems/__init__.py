"""Falsifiable claims of Dinh, Tran, Nguyen, Bao, Zomaya, Zhou, "Federated Learning with Proximal Stochastic
Variance Reduced Gradient Algorithms" (ICPP 2020).

Instances are finite-sum federations (:mod:`fedrates.solvers.problems.finite_sum`) whose sample gradients all vanish
at w*, so that (i) assumption (5) holds with the exact σ_n = ‖(A_n − Ā)Ā⁻¹‖₂ and (ii) FedProxVR is a linear
recursion with random coefficients: its exact first and second moments
(:mod:`fedrates.verify.claims.dinh.exact.moments`, written from the paper's update rules) are the predictions of the
exactness claims, checked two-sided.

The claims live in the modules of the standard layout: the lemmas' and theorems' statements here, in :mod:`.lemmas`
(Lemmas 1-2, (33)/(35), Remarks 1(2), 2(2)) and :mod:`.rates` (Theorem 1, Corollary 1, Lemma 3, (86)); the exact
moments, limits and the returned point in :mod:`fedrates.verify.claims.dinh.exact`; §5's experiments in
:mod:`fedrates.verify.claims.dinh.experiments`; the errata (Remark 1, Tables 1-2's configurations) in
:mod:`fedrates.verify.claims.dinh.errata`; instances, presets and the theory's configurations in
:mod:`fedrates.verify.claims.dinh.instances`; broken variants in :mod:`fedrates.verify.claims.dinh.variants`.

* ``dinh.lem1/*``          Lemma 1 at its own τ = ⌈τ_lower⌉: E‖∇J_n(w_n)‖² ≤ θ²‖∇F_n(w̄)‖² (11′), MC against the
  exact value (two-sided) and the exact value against θ² and against (53);
* ``dinh.lem2/*``, ``dinh.eq35/*``, ``dinh.lem3/sarah``: Lemma 2 (36) with the algorithm's prox, the estimator-error
  bounds (33)/(35) (exact), Lemma 3 on the real algorithm;
* ``dinh.tradeoff/tau``, ``dinh.tradeoff/mu``: Remark 1(2) (accuracy improves with τ, below (53)) and Remark 2(2)
  (rounds to ε grow like μ);
* ``dinh.thm1.eq86/*``     per-round descent: adversarial θ-inexact oracle (deterministic) and the real algorithm;
* ``dinh.thm1.corrected/sarah``, ``dinh.thm1/sarah``, ``dinh.cor1/sarah``: Theorem 1 over the proved (0..T−1) and
  printed (1..T) index ranges and Corollary 1 in a sharp regime (:func:`sharp_config`: μ = 20L, β minimising
  τ_lower, unequal D_n, T such that a never-moving local solver exceeds Δ/(ΘT) by 1.5×), checked at T/4, T/2, T;
  ``dinh.pl/sarah`` the derived PL rate (1 − 2mΘ)^TΔ;
* ``dinh.thm1*/sarah-nc``, ``dinh.thm1*/svrg``: (86) and Theorem 1 on the non-convex instance and with SVRG
  (Theorem 1 there is ``informational``: its conditions force τ ≈ 800 or Θμ ≤ 0.07);
* ``dinh.thm1.eq86/adversarial-argmax*``: (86) at μ = argmax Θ, where Θ's L/μ̃ terms weigh most;
* ``dinh.rem2/theta-threshold``, ``dinh.rem2/mu-threshold``: Remarks 2(1) and 2(3) — Θ's thresholds in θ and μ at
  certified constants against their closed forms (:mod:`.remarks`);
* ``dinh.ass5/realisable-quadratic``: assumption (5) with its exact σ_n on the realisable-quadratic preset (shared
  minimiser; no finite σ_n without it);

Readings of the paper followed: the random local
output is the proof's (52) (Alg. 1 line 10 misprints w^{(τ)}), θ is read in the second-moment form (11′) that the
proof of Lemma 1 delivers and Lemma 3 uses.
"""

from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.dinh.theorems import lemmas, rates, remarks

__all__ = ["CLAIMS"]

CLAIMS: tuple[Claim, ...] = lemmas.CLAIMS + rates.CLAIMS + remarks.CLAIMS
