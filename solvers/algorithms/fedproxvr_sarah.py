"""FedProxVR with the SARAH local solver (Dinh et al., ICPP 2020, Algorithm 1 with estimator (8a)).

v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾) − ∇f_{I_t}(w⁽ᵗ⁻¹⁾) + v⁽ᵗ⁻¹⁾ (recursive SARAH estimator, (8a)/(32)); the round,
the prox step (10), the random local output and the server average are in :mod:`fedrates.solvers.algorithms._fedproxvr`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fedrates.solvers.algorithms._fedproxvr import FedProxVRBase
from fedrates.solvers.algorithms.base import register


@register
@dataclass(frozen=True, kw_only=True)
class FedProxVRSARAH(FedProxVRBase):
    """FedProxVR with the SARAH estimator."""

    name = "fedproxvr_sarah"
    summary = "FedProxVR: tau proximal SARAH steps on J_n = F_n + (mu/2)||w - wbar||^2, random local output"
    estimator = "sarah"
