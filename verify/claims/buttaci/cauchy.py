"""A non-quadratic nonconvex federation for Theorems 2 and 4 of Buttaci & Calafiore ("Aiding Global Convergence in
Federated Learning via Local Perturbation and Mutual Similarity Information"): Cauchy-loss (robust) regression on the
data of a ``similar_quadratic`` instance.

Client i holds the data (X_i, y_i) of the instance (n × d, noise-free targets y_i = X_i w_i) and the loss

    f_i(w) = (1/n) Σ_s ρ(x_sᵀw − y_s),   ρ(r) = (c²/2) ln(1 + r²/c²),

so ∇f_i(w) = (1/n) Σ_s ρ'(r_s) x_s with ρ'(r) = r/(1 + r²/c²), |ρ'| ≤ c/2, and
∇²f_i(w) = (1/n) Σ_s ρ''(r_s) x_s x_sᵀ with ρ''(r) = (1 − r²/c²)/(1 + r²/c²)² ∈ [−1/8, 1].  Hence, with
H_i = X_iᵀX_i/n:

* **Assumption 4 (smoothness)**: −H_i/8 ⪯ ∇²f_i(w) ⪯ H_i for every w, so every f_i is L-smooth with
  L = max_i ‖H_i‖₂; the value is attained at the client's own optimum w_i, where every residual is 0 and
  ∇²f_i(w_i) = H_i (the witness of the certificate);
* **Assumption 6 (lower bound)**: ρ ≥ 0, so f = Σ_i p_i f_i ≥ 0 =: f_inf's certified lower bound (Δ = f(w̄_{0,0})
  − 0 is a valid Δ of Theorems 2 and 4); the best local minimum found is reported;
* **Assumption 3 (bounded gradients)** holds globally: ‖∇f_i(w)‖ ≤ (c/2)(1/n)Σ_s‖x_s‖ (the claims use the smaller
  a-posteriori G² along the run, as for the quadratics);
* f itself is nonconvex (the clusters' optima are apart by several c): the smallest eigenvalue of ∇²f at the visited
  points is reported, and is negative.

The aggregation weights and the similarity graph are those of the underlying instance (Def. 1–2 on the messages of
(x, y), degree weights p_i, the Adjacency scheme), so Lemma 1 and every step of the nonconvex proofs apply.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.certify import CertifiedConstant, abs_eig_upper, observed_cache
from fedrates.solvers.problems.datafits import Datafit

__all__ = ["CauchyRegression", "CAUCHY_INSTANCE", "CAUCHY_REGIME", "cauchy_instance", "certificates"]


@dataclass(eq=False)
class CauchyRegression(Datafit):
    """f_k(w) = (1/n) Σ_s (c²/2) ln(1 + (x_{k,s}ᵀw − y_{k,s})²/c²) with X: (K, n, d), y: (K, n) (module docstring).
    Not a quadratic: ``hessians`` are the data second moments H_k = X_kᵀX_k/n (the curvature at zero residual), and
    :meth:`gradients_at` gives the exact gradients to the oracles."""

    X: np.ndarray
    y: np.ndarray
    scale: float = 1.0
    clients: int = field(init=False)
    dim: int = field(init=False)
    samples: int = field(init=False)

    def __post_init__(self) -> None:
        self.X = np.ascontiguousarray(self.X, dtype=float)
        self.y = np.ascontiguousarray(self.y, dtype=float)
        self.clients, self.samples, self.dim = self.X.shape

    def _psi(self, r: np.ndarray) -> np.ndarray:
        return r / (1.0 + (r / self.scale) ** 2)

    def client_values(self, w: np.ndarray) -> np.ndarray:
        r = np.einsum("kid,...d->...ki", self.X, w) - self.y
        return 0.5 * self.scale**2 * np.mean(np.log1p((r / self.scale) ** 2), axis=-1)

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        r = np.einsum("kid,...kd->...ki", self.X, W) - self.y
        return np.einsum("kid,...ki->...kd", self.X, self._psi(r)) / self.samples

    def gradients_at(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """∇f_k at per-(replica, client) points: Wf (R, m, d), clients (R, m) -> (R, m, d)."""
        X, y = self.X[clients], self.y[clients]  # (R, m, n, d), (R, m, n)
        r = np.einsum("rmnd,rmd->rmn", X, Wf) - y
        return np.einsum("rmnd,rmn->rmd", X, self._psi(r)) / self.samples

    def hessian_at(self, k: int, w: np.ndarray) -> np.ndarray:
        """∇²f_k(w) = (1/n) Σ_s ρ''(r_s) x_s x_sᵀ."""
        z = ((self.X[k] @ w - self.y[k]) / self.scale) ** 2
        return np.einsum("sd,s,se->de", self.X[k], (1.0 - z) / (1.0 + z) ** 2, self.X[k]) / self.samples

    @cached_property
    def hessians(self) -> np.ndarray:
        return np.einsum("kid,kie->kde", self.X, self.X) / self.samples

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        raise TypeError("the Cauchy-loss regression is not a quadratic: it has no (Q̄, b̄, c̄)")


#: the instance: the cluster-specific least squares with messages of (x, y) and noise-free targets, Cauchy scale 1
CAUCHY_INSTANCE = {"preset": "buttaci-clustered", "message": "data", "noise": 0.0, "cauchy_scale": 1.0}
CAUCHY_REGIME = ("Cauchy-loss regression ρ(r) = ½ ln(1 + r²) on the data of the cluster-specific instance (C = 6, "
                 "d = 4, n = 8, 2 clusters of 2 and 4 clients, noise-free targets, messages from (x, y), degree "
                 "weights 0.017–0.24): every f_i is L-smooth (L = 5 certified) and nonconvex, f is nonconvex "
                 "(λ_min(∇²f) down to about −0.3) and bounded below by 0; exact gradients, γ = 1/(2L_α√(TE)).")


@observed_cache
def _cauchy(params_json: str) -> tuple[Any, dict]:
    from fedrates.solvers import problems

    params = json.loads(params_json)
    scale = float(params.pop("cauchy_scale"))
    preset = params.pop("preset", None)
    base = problems.make("similar_quadratic", preset, **params)
    X, y = base.extras["data"]
    fit = CauchyRegression(X=X, y=y, scale=scale)
    # the loss in the parameters: the fingerprint (cache key) differs from the least-squares instance's on the same data
    problem = replace(base, datafit=fit, params={**base.params, "loss": "cauchy", "cauchy_scale": scale},
                      description="Cauchy-loss regression with a similarity graph")
    H = fit.hessians
    L = float(np.max(np.linalg.eigvalsh(H)[:, -1]))
    p = problem.weights
    Hbar = np.einsum("k,kde->de", p, H)
    centre = np.linalg.solve(Hbar, np.einsum("k,kid,ki->d", p / fit.samples, X, y))
    consts = {"L": L, "S": float(p @ p), "f_star": 0.0, "w_star": centre, "curvature_low": -L / 8.0,
              "G2_global": float(np.max(0.5 * scale * np.mean(np.linalg.norm(X, axis=-1), axis=-1))) ** 2,
              "client_optima": np.asarray(base.extras["client_optima"], dtype=float), "reference_gap": 0.0}
    return problem, consts


def cauchy_instance(params: dict | None = None) -> tuple[Any, dict]:
    """(problem, constants) of the Cauchy-loss federation (cached per process).  ``f_star`` is f_inf's certified
    lower bound 0 (so Δ = f(w0) − 0), ``w_star`` the degree-weighted least-squares solution (the runs' centre)."""
    return _cauchy(json.dumps(params or CAUCHY_INSTANCE, sort_keys=True))


def certificates(problem: Any, consts: dict) -> dict[str, CertifiedConstant]:
    """Certificate of L (Assumption 4 for every f_i): witness ‖∇²f_k(w_k)‖₂ at client k's noise-free optimum w_k
    (zero residuals, ρ'' = 1, evaluated with the loss's Hessian formula at the point), upper side
    sup_r |ρ''(r)| · max_i ‖X_iᵀX_i/n‖₂ = max_i ‖H_i‖₂ certified by Cholesky tests (:func:`abs_eig_upper`)."""
    fit = problem.datafit
    optima = consts["client_optima"]
    norms = [float(np.max(np.abs(np.linalg.eigvalsh(fit.hessian_at(k, optima[k]))))) for k in range(fit.clients)]
    k = int(np.argmax(norms))
    L = float(consts["L"])
    return {"L": CertifiedConstant(
        "L", L, norms[k], abs_eig_upper(fit.hessians, L), {"client": k, "point": optima[k].tolist()},
        "‖∇²f_k(w_k)‖₂ at the client's own optimum (zero residuals)",
        "sup|ρ''| = 1 times max_i ‖X_iᵀX_i/n‖₂ (Cholesky of uI ∓ H_i)", "max_i sup_w ‖∇²f_i(w)‖₂",
        "Buttaci & Calafiore Assumption 4 (every f_i)")}


def min_curvature(problem: Any, points: np.ndarray) -> float:
    """min over ``points`` (N, d) of λ_min(∇²f(w)) with ∇²f = Σ_i p_i ∇²f_i (f nonconvex where negative)."""
    fit, p = problem.datafit, problem.weights
    out = math.inf
    for w in np.asarray(points, dtype=float).reshape(-1, problem.dim):
        Hf = sum(p[k] * fit.hessian_at(k, w) for k in range(fit.clients))
        out = min(out, float(np.linalg.eigvalsh(Hf)[0]))
    return out


def oracle_error(problem: Any, run: Any, samples: int = 12, h: float = 1e-5) -> float:
    """max relative error of the recorded gradients g_i(w̃) against central differences of f_i's values,
    (f_i(w + h e_j) − f_i(w − h e_j))/(2h), at ``samples`` (t, k) query points spread over the run (all clients,
    first replica); relative to max(‖g‖, 1e-3)."""
    T, E = run.queries.shape[:2]
    flat = np.linspace(0, T * E - 1, min(samples, T * E)).round().astype(int)
    fit, d = problem.datafit, problem.dim
    worst = 0.0
    for idx in flat:
        t, k = divmod(int(idx), E)
        W, G = run.queries[t, k, 0], run.grads[t, k, 0]  # (K, d)
        for i in range(fit.clients):
            fd = np.array([(fit.client_values(W[i] + h * e)[i] - fit.client_values(W[i] - h * e)[i]) / (2 * h)
                           for e in np.eye(d)])
            worst = max(worst, float(np.linalg.norm(fd - G[i]) / max(float(np.linalg.norm(G[i])), 1e-3)))
    return worst
