"""FedProx (Li et al. 2020, "Federated Optimization in Heterogeneous Networks", Algorithm 2).

Objective: F(w) = Σ_k π_k f_k(w) (smooth problems only), over ℝ^shape or the ball {‖w‖ ≤ ρ}.

Each participant k approximately minimises the proximal local objective

    h_k(w; x_r) = f_k(w) + (μ_prox/2)‖w − x_r‖²

by E (projected) local SGD steps w ← Π(w − η_c (g_k(w) + μ_prox (w − x_r))) from w = x_r (the paper's
γ-inexact solver, realised as a fixed number of steps as in its experiments); the server then averages exactly as
FedAvg (:mod:`solvers.algorithms.fedavg`), with server step size η_s (η_s = 1 in the paper).  Returned point: the
server iterate.  With μ_prox = 0 the method is FedAvg, bit for bit (the proximal term is skipped).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedrates.solvers.algorithms.base import hyper, register
from fedrates.solvers.algorithms.fedavg import FedAvg


@register
@dataclass(frozen=True, kw_only=True)
class FedProx(FedAvg):
    """FedProx: FedAvg on the proximal local objectives f_k(w) + (μ_prox/2)‖w − x_r‖²."""

    name = "fedprox"
    summary = "FedAvg with a proximal term (mu_prox/2)||w - w_server||^2 in the local objectives"

    mu_prox: float = hyper(0.01, "proximal coefficient mu_prox >= 0", low=0.0)

    def local_direction(self, G: np.ndarray, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        if self.mu_prox == 0.0:
            return G
        return G + self.mu_prox * (W - x)
