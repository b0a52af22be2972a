"""FedMiD and FedDA (Federated Dual Averaging) of Yuan, Zaheer & Reddi 2021, "Federated Composite Optimization".

Objective: φ(w) = Σ_k π_k f_k(w) + ψ(w), ψ = λR (zero, ℓ1 or nuclear), over ℝ^shape or the ball 𝒲 = {‖w‖ ≤ ρ}.
Euclidean mirror map ½‖·‖²; prox_{cψ}(v) = argmin_{w∈𝒲} ½‖w − v‖² + cψ(w) (soft thresholding / singular value
thresholding followed by the radial scaling onto the ball, exact: :mod:`solvers.penalties`).  Step sizes: client
η_c, server η_s; E local steps; participants S_r with weights p_k = π_k / Σ_{j∈S_r} π_j.

**FedMiD** (federated mirror descent; Yuan et al. Algorithm "FedMiD", Euclidean case):

    w_k ← x_r;  E times: w_k ← prox_{η_c ψ}(w_k − η_c g_k(w_k))            (local proximal SGD)
    Δ_r = Σ_k p_k (w_k − x_r)
    x_{r+1} = prox_{c ψ}(x_r + η_s Δ_r)   with c = η_s η_c E  (``server_prox="fco"``, Yuan et al.'s code),
                                               c = η_s η_c    (``server_prox="code"``, Bao et al.'s MATLAB),
                                               or Π_𝒲 only   (``server_prox="none"``: plain averaging).

Returned point: x_R.  Note: with the server prox, one client and one local step is *not* centralized prox-SGD
(the threshold is applied twice); ``server_prox="none"`` with η_s = 1 is.

**FedDA** (federated dual averaging; Yuan et al. Algorithm "FedDualAvg", Euclidean case).  Dual state z_0 = w_0.

    z_k ← z_r;  for e = 0..E−1:  η̃ = η_s η_c r E + η_c e;   w_k = prox_{η̃ψ}(z_k);   z_k ← z_k − η_c g_k(w_k)
    z_{r+1} = z_r + η_s Σ_k p_k (z_k − z_r)
    w_{r+1} = prox_{η_s η_c (r+1) E ψ}(z_{r+1})

Returned point: w_R.  With one client, E = 1 and η_s = 1 this is regularised dual averaging (Xiao 2010):
w_t = argmin_{w∈𝒲} ⟨Σ_{i<t} g_i, w⟩ + ‖w − w_0‖²/(2η_c) + tψ(w) = prox_{tη_cψ}(w_0 − η_c Σ_{i<t} g_i).
Rounds are 0-based as in Yuan et al.'s code (Bao et al.'s MATLAB uses 1-based r and e, shifting the thresholds by
about one round).  Neither paper uses a domain; with a ball every prox includes the projection (a deviation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _fused
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.penalties import project_ball

SUPPORTED_PENALTIES = ("zero", "l1", "nuclear")


def composite_support(name: str, problem: Any) -> str | None:
    """Refusal reason for a penalty the composite methods cannot handle."""
    if problem.penalty.name not in SUPPORTED_PENALTIES:
        return f"{name} supports penalties {', '.join(SUPPORTED_PENALTIES)}; problem has {problem.penalty.name}"
    return None


@register
@dataclass(frozen=True, kw_only=True)
class FedMiD(Algorithm):
    """Federated mirror descent (local proximal SGD, primal averaging, server prox); see module docstring."""

    name = "fedmid"
    summary = "federated mirror descent: local proximal SGD, primal averaging (Yuan et al. 2021)"
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    step: float = hyper(1e-3, "client step size eta_c > 0", low=0.0, strict=True)
    server_step: float = hyper(1.0, "server step size eta_s > 0", low=0.0, strict=True)
    server_prox: str = hyper("fco", "server prox threshold: fco (eta_s*eta_c*E), code (eta_s*eta_c) or none",
                             choices=("fco", "code", "none"))

    def supports(self, problem: Any) -> str | None:
        return composite_support(self.name, problem)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        return {"x": np.array(w0, dtype=float)}

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        x = state["x"]
        R, m = ctx.clients.shape
        lam = _fused.prox_lambda(problem)
        W = None if lam is None else _fused.local_sgd(problem, ctx, self.local_steps, x, self.step, 0.0, lam)
        if W is None:  # step by step (the reference of the fused kernel)
            W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
            for _ in range(self.local_steps):
                W = problem.prox(W - self.step * ctx.gradients(W), self.step)
        v = x + self.server_step * (weighted_mean(ctx.weights, W) - x)
        if self.server_prox == "none":
            return {"x": project_ball(v, problem.radius, len(problem.shape))}
        c = self.server_step * self.step * (self.local_steps if self.server_prox == "fco" else 1)
        return {"x": problem.prox(v, c)}

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]


@register
@dataclass(frozen=True, kw_only=True)
class FedDA(Algorithm):
    """Federated dual averaging (local dual accumulation, dual averaging at the server); see module docstring."""

    name = "fedda"
    summary = "federated dual averaging: clients accumulate gradients in the dual (Yuan et al. 2021)"
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    step: float = hyper(1e-3, "client step size eta_c > 0", low=0.0, strict=True)
    server_step: float = hyper(1.0, "server step size eta_s > 0", low=0.0, strict=True)

    def supports(self, problem: Any) -> str | None:
        return composite_support(self.name, problem)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        w0 = np.array(w0, dtype=float)
        return {"z": w0.copy(), "w": w0}

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        z = state["z"]
        R, m = ctx.clients.shape
        E, eta_c, eta_s, r = self.local_steps, self.step, self.server_step, ctx.round
        lam = _fused.prox_lambda(problem)
        Z = None if lam is None else _fused.local_da(problem, ctx, E, z, eta_c,
                                                     [eta_s * eta_c * r * E + eta_c * e for e in range(E)], lam)
        if Z is None:  # step by step (the reference of the fused kernel)
            Z = np.broadcast_to(z[:, None], (R, m) + problem.shape).copy()
            for e in range(E):
                W = problem.prox(Z, eta_s * eta_c * r * E + eta_c * e)
                Z = Z - eta_c * ctx.gradients(W)
        z_new = z + eta_s * (weighted_mean(ctx.weights, Z) - z)
        return {"z": z_new, "w": problem.prox(z_new, eta_s * eta_c * (r + 1) * E)}

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["w"]
