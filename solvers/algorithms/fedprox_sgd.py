"""FedProx with proximal SGD as the local solver: the baseline of FedProxVR (Dinh et al., ICPP 2020, §4.1 names plain
SGD as the estimator that FedProxVR replaces).

v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾), w⁽ᵗ⁺¹⁾ = prox_{ηh_s}(w⁽ᵗ⁾ − ηv⁽ᵗ⁾): Algorithm 1 of Dinh et al. with the plain stochastic
gradient, the same prox (10), step η = 1/(βL), random local output and server average
(:mod:`fedrates.solvers.algorithms._fedproxvr`).  The registered ``fedprox`` (Li et al. 2020) differs: it takes
explicit gradient steps on the proximal term and returns the last local iterate, so it is not reused here.
"""

from __future__ import annotations

from dataclasses import dataclass

from fedrates.solvers.algorithms._fedproxvr import FedProxVRBase
from fedrates.solvers.algorithms.base import register


@register
@dataclass(frozen=True, kw_only=True)
class FedProxSGD(FedProxVRBase):
    """FedProx with proximal SGD local steps (the FedProxVR baseline)."""

    name = "fedprox_sgd"
    summary = "FedProx baseline of FedProxVR: tau proximal SGD steps on J_n, random local output"
    estimator = "sgd"
