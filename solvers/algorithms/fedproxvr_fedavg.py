"""FedAvg as the baseline of Dinh et al. (ICPP 2020, §5: "SGD-based FedAvg [20]", the only baseline of the paper's
experiments; Tables 1-2 list it with μ = 0).

The paper gives no pseudo-code; its experiments run (digest §2.4) every device from the server point, τ plain SGD
steps with minibatches of B samples and the same step η = 1/(βL) as FedProxVR, the *last* local iterate, and the
D_n/D server average of Algorithm 1 line 12:

    w⁽⁰⁾ = w̄^{(s−1)};   w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η∇f_{I_t}(w⁽ᵗ⁾),  t = 0..τ−1  (I_t: B indices i.i.d. uniform on 𝒟_n)
    w_n^{(s)} = w⁽τ⁾;   w̄^{(s)} = Σ_n (D_n/D) w_n^{(s)}

No proximal term (μ = 0), no full-gradient step, no random output.  On a realisable quadratic (every ∇f_i(w*) = 0)
E[w⁽ᵗ⁺¹⁾ − w*] = (I − ηA_n)E[w⁽ᵗ⁾ − w*], so E[w̄^{(1)}] − w* = Σ_n p_n (I − ηA_n)^τ (w̄⁰ − w*) (claim
``dinh.baseline/fedavg-mean``).  Randomness: per round, device n of replica r draws τB uniforms from its own stream
(as :mod:`fedrates.solvers.algorithms._fedproxvr`), index ⌊u·D_n⌋.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms._fedproxvr import client_streams, instance_L
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.problems.finite_sum import finite_sum, sample_gradients

__all__ = ["FedAvgSGD"]


@register
@dataclass(frozen=True, kw_only=True)
class FedAvgSGD(Algorithm):
    """FedAvg with τ plain SGD steps and the last local iterate (Dinh et al.'s baseline, module docstring)."""

    name = "fedavg_sgd"
    summary = "FedAvg baseline of FedProxVR (Dinh et al. §5): tau plain SGD steps, last local iterate, D_n/D average"

    tau: int = hyper(10, "local SGD steps tau >= 1 per round", low=1)
    beta: float = hyper(10.0, "step parameter beta > 0, eta = 1/(beta L) as FedProxVR's", low=0.0, strict=True)
    L: float = hyper(0.0, "smoothness L of (3) for eta = 1/(beta L); 0 = the instance's exact L", low=0.0)
    batch: int = hyper(1, "minibatch size B >= 1", low=1)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.local_steps != 1 and self.tau == 10:
            object.__setattr__(self, "tau", self.local_steps)
        object.__setattr__(self, "local_steps", self.tau)

    def step_size(self, problem: Any) -> float:
        """η = 1/(βL)."""
        return 1.0 / (self.beta * (self.L if self.L > 0 else instance_L(problem)[0]))

    def supports(self, problem: Any) -> str | None:
        if finite_sum(problem) is None:
            return (f"{self.name} needs per-sample losses (finite sums); problem {problem.name} has none "
                    "(use dinh_ls or dinh_nc)")
        if problem.penalty.name != "zero" and problem.penalty.lam > 0:
            return f"{self.name} handles smooth objectives only; problem has an {problem.penalty.name} penalty"
        if problem.radius is not None:
            return f"{self.name} is unconstrained; problem has a ball of radius {problem.radius:g}"
        return None

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        return {"x": np.array(w0, dtype=float)}

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        fs = finite_sum(problem)
        streams, exact = client_streams(ctx)
        clients = ctx.clients
        R, m = clients.shape
        eta, tau, B = self.step_size(problem), self.tau, self.batch
        x = problem.flat(state["x"])
        u = np.empty((R, m, tau * B))
        for r in range(R):
            for j, k in enumerate(clients[r]):
                streams[r][k].random(out=u[r, j])
        sizes = fs.sizes[clients][..., None] if hasattr(fs, "sizes") else fs.samples
        idx = np.minimum((u * sizes).astype(np.intp), sizes - 1).reshape(R, m, tau, B)
        W = np.broadcast_to(x[:, None, :], (R, m, problem.dim)).copy()
        for t in range(tau):
            if exact:
                from fedrates.solvers.algorithms._fedproxvr import full_gradients

                G = full_gradients(problem, fs, W, clients)
            else:
                G = sample_gradients(fs, W, clients, idx[:, :, t])
            W = W - eta * G
        ctx.count(tau, m * tau)
        return {"x": problem.unflat(weighted_mean(ctx.weights, W))}

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]
