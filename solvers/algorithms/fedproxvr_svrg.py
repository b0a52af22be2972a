"""FedProxVR with the SVRG local solver (Dinh et al., ICPP 2020, Algorithm 1 with estimator (8b)).

v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾) − ∇f_{I_t}(w⁽⁰⁾) + v⁽⁰⁾ (SVRG estimator with snapshot w⁽⁰⁾ = w̄^{(s−1)}, (8b)/(34)); the round,
the prox step (10), the random local output and the server average are in :mod:`fedrates.solvers.algorithms._fedproxvr`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fedrates.solvers.algorithms._fedproxvr import FedProxVRBase
from fedrates.solvers.algorithms.base import register


@register
@dataclass(frozen=True, kw_only=True)
class FedProxVRSVRG(FedProxVRBase):
    """FedProxVR with the SVRG estimator."""

    name = "fedproxvr_svrg"
    summary = "FedProxVR: tau proximal SVRG steps on J_n = F_n + (mu/2)||w - wbar||^2, random local output"
    estimator = "svrg"
