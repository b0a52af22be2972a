"""Claims of Das et al. on the statements of its theorems, gathered from the topic modules:

* :mod:`.bounds` — the rate bounds of Theorems 2–6 and eqs. (8)/(11) on the tight-spread and heterogeneous
  instances at given noise;
* :mod:`.lemmas` — Lemmas 1–4, eq. (65), the per-client inequalities (44)/(83), Fact 3, Proposition 1 and the
  per-round bound (46), deterministic along the algorithm's run;
* :mod:`.privacy` — Theorem 1: the accountants and the noise the algorithms release (eq. 5);
* :mod:`.heterogeneity` — Theorems 5/6 where the heterogeneity term matters and Theorems 2/4 at α = 4, at
  accountant-calibrated noise;
* :mod:`.local_steps` — Section 4(c)'s trade-off in E (eq. 11) at fixed privacy (its over-claim erratum is gathered
  with the errata).
"""

from __future__ import annotations

from fedrates.verify.claims.das.theorems import bounds, heterogeneity, lemmas, local_steps, privacy

__all__ = ["CLAIMS"]

CLAIMS = bounds.CLAIMS + lemmas.CLAIMS + privacy.CLAIMS + heterogeneity.CLAIMS + local_steps.CLAIMS
