"""Exact claims of Das et al. (expectations, limits, identities and the returned point), gathered from:

* :mod:`.identities` — full participation: the linear-Gaussian recursion without clipping, the exact one-round
  drift with clipping or normalisation, the clip/norm and FedAvg equivalences, the FedAvg fixed point;
* :mod:`.sampling` — the printed algorithm with Poisson client sampling and calibrated noise: the same drift and
  moment identities with the sampling terms, and the law of the random returned point.
"""

from __future__ import annotations

from fedrates.verify.claims.das.exact import identities, sampling

__all__ = ["CLAIMS"]

CLAIMS = identities.CLAIMS + sampling.CLAIMS
