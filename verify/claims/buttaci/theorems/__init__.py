"""Bound claims of Buttaci & Calafiore ("Aiding Global Convergence in Federated Learning via Local Perturbation and
Mutual Similarity Information"), gathered from the topic modules:

* :mod:`.core` — Lemmas A.3/B.3 round by round, Theorems 1–4 on least-squares federations (nonconvex clients for
  Theorems 2 and 4), Theorem 3's floor as β → 0, Sec. 5's ε-complexity comparison and Corollary 1 with E = T^{1/3};
* :mod:`.schedules` — Corollary 1 against other schedules E = T^a: the exponent Theorem 4's bound predicts for
  each a and the measured one;
* :mod:`.robust` — Theorems 2 and 4 (and Lemmas A.4/B.4 round by round) on a non-quadratic nonconvex federation:
  Cauchy-loss regression, smooth with a certified L and globally bounded gradients.
"""

from __future__ import annotations

from fedrates.verify.claims.buttaci.theorems import core, robust, schedules

__all__ = ["CLAIMS"]

CLAIMS = core.CLAIMS + schedules.CLAIMS + robust.CLAIMS
