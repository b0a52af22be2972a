"""Exact claims of Dinh et al.: FedProxVR on realisable instances is a linear recursion with random coefficients, so its
moments are exact (:mod:`.moments`, written from the paper's update rules) and the claims check the implementation
against them two-sided.

* :mod:`.expectations` — ``dinh.alg1/mean-*``, ``dinh.alg1/cov-*``, ``dinh.alg1/limit-*``, ``dinh.alg1/inner-*``:
  the mean and covariance of w̄^{(s)}, the limit w*, one round with exact gradients in closed form (also with unequal
  D_n and on non-convex devices);
* :mod:`.output` — ``dinh.output/*`` and ``dinh.baseline/fedavg-mean``: the returned point of Algorithm 1 (lines
  10, 12 with the proof's (52)) decoded exactly, and the FedAvg baseline's exact mean.
"""

from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.dinh.exact import expectations, output

__all__ = ["CLAIMS"]

CLAIMS: tuple[Claim, ...] = expectations.CLAIMS + output.CLAIMS
