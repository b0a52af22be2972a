r"""Certified constants of the shared-basis quadratics (:mod:`fedrates.solvers.problems.structured_quadratic`).

Each constant comes with a witness evaluated from the instance's gradients (the definition) and a second route:

* L = max_k λ_max(Q_k), μ = min_k λ_min(Q_k): witness client k and direction v = V e_j, Rayleigh quotient
  vᵀ(∇f_k(v) − ∇f_k(0))/vᵀv; other side a Cholesky factorisation of uI − Q_k (resp. Q_k − lI) for every client
  when the dense stack fits (:data:`~fedrates.solvers.problems.structured_quadratic.DENSE_BUDGET`), else the
  exhaustive maximum (minimum) of the stored eigenvalues times 1 ± ‖VᵀV − I‖_F (V formed densely by applying its
  reflections to the identity: ‖V Λ Vᵀ‖₂ ≤ max λ ‖V‖₂² ≤ max λ (1 + ‖VᵀV − I‖));
* L_F, μ_F of F = Σ_k π_k f_k: witness V e_j with the Rayleigh quotient of ∇F(v) − ∇F(0) (every client's gradient);
  other side a Cholesky factorisation of uI − Q̄ (resp. Q̄ − lI) on the dense mean quadratic;
* ζ*² = Σ_k π_k ‖∇f_k(w*)‖²: witness the clients' gradients at w* (original coordinates); other side the closed
  form Σ_k π_k Σ_j λ_kj²(z*_j − c̃_kj)² in the basis;
* Γ = F* − Σ_k π_k min f_k = F* (min f_k = 0, attained at c_k): witness F(w*) ≥ F* from the client losses; other
  side the strong-convexity lower bound F* ≥ F(w*) − ‖∇F(w*)‖²/(2μ_F) (:func:`exact_reference`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.solvers.certify import EPS, CertifiedConstant, lambda_max_upper, lambda_min_lower
from fedrates.solvers.problems import structured_quadratic as sq

__all__ = ["for_structured"]

ASSUMPTION = "every f_k L-smooth and mu-strongly convex; F L_F-smooth and mu_F-strongly convex"


def _client_hvp(problem: Any, k: int, v: np.ndarray) -> np.ndarray:
    """∇f_k(v) − ∇f_k(0) from the instance's gradient routine (one client)."""
    fit = problem.datafit
    kk = np.array([[k]])
    return (fit.pair_gradients(v[None, None], kk) - fit.pair_gradients(np.zeros((1, 1, fit.dim)), kk))[0, 0]


def _mean_gradient(problem: Any, w: np.ndarray) -> np.ndarray:
    """∇F(w) = Σ_k π_k ∇f_k(w) from every client's gradient, chunked (original coordinates)."""
    fit, p = problem.datafit, problem.weights
    out = np.zeros(fit.dim)
    step = max(1, sq._CHUNK // fit.dim)
    for s in range(0, fit.clients, step):
        ks = np.arange(s, min(s + step, fit.clients))[None]
        G = fit.pair_gradients(np.broadcast_to(w, (1, ks.shape[1], fit.dim)), ks)[0]
        out += p[ks[0]] @ G
    return out


def _heterogeneity(problem: Any, w: np.ndarray) -> float:
    """Σ_k π_k ‖∇f_k(w)‖² from every client's gradient, chunked (original coordinates)."""
    fit, p = problem.datafit, problem.weights
    total = 0.0
    step = max(1, sq._CHUNK // fit.dim)
    for s in range(0, fit.clients, step):
        ks = np.arange(s, min(s + step, fit.clients))[None]
        G = fit.pair_gradients(np.broadcast_to(w, (1, ks.shape[1], fit.dim)), ks)[0]
        total += float(p[ks[0]] @ np.einsum("kd,kd->k", G, G))
    return total


def _basis_vector(fit: Any, j: int) -> np.ndarray:
    e = np.zeros(fit.dim)
    e[j] = 1.0
    return fit.from_basis(e)


def for_structured(problem: Any, values: Mapping[str, float] | None = None) -> dict[str, CertifiedConstant]:
    """Certificates of L, μ, L_F, μ_F, ζ*² and Γ (see module docstring).  ``values`` overrides the claimed values
    (default: :func:`~fedrates.solvers.problems.structured_quadratic.exact_constants`), so that a wrong formula can
    be put to the test."""
    fit = problem.datafit
    exact = sq.exact_constants(problem)
    vals = {name: float(exact[name]) for name in ("L", "mu", "L_F", "mu_F", "zeta2", "Gamma")}
    vals.update(values or {})
    dense = fit.clients * fit.dim**2 <= sq.DENSE_BUDGET
    out: dict[str, CertifiedConstant] = {}

    if dense:
        upper_L = lambda_max_upper(fit.hessians, vals["L"])
        lower_mu = lambda_min_lower(fit.hessians, vals["mu"])
        how_L, how_mu = "Cholesky of uI − Q_k for every client", "Cholesky of Q_k − lI for every client"
    else:
        V = fit.basis
        defect = float(np.linalg.norm(V.T @ V - np.eye(fit.dim))) + 4 * fit.dim * EPS
        upper_L = float(fit.lam.max()) * (1 + defect)
        lower_mu = float(fit.lam.min()) * (1 - defect)
        how_L = "exhaustive maximum of the stored eigenvalues x (1 + ||V^T V - I||_F)"
        how_mu = "exhaustive minimum of the stored eigenvalues x (1 - ||V^T V - I||_F)"
    for name, (k, j), other, how, sense in (("L", exact["witness_L"], upper_L, how_L, "sup"),
                                            ("mu", exact["witness_mu"], lower_mu, how_mu, "inf")):
        v = _basis_vector(fit, j)
        ray = float(v @ _client_hvp(problem, k, v) / (v @ v))
        out[name] = CertifiedConstant(
            name, vals[name], ray, other, {"client": k, "basis_vector": j},
            "Rayleigh quotient v^T(grad f_k(v) - grad f_k(0))/v^T v at v = V e_j", how,
            "max_k lambda_max(Q_k)" if name == "L" else "min_k lambda_min(Q_k)", ASSUMPTION, sense=sense,
            scale=vals["L"])

    Qbar = problem.quadratic[0]
    zero_grad = _mean_gradient(problem, np.zeros(fit.dim))
    for name, j, sense in (("L_F", exact["witness_L_F"], "sup"), ("mu_F", exact["witness_mu_F"], "inf")):
        v = _basis_vector(fit, j)
        ray = float(v @ (_mean_gradient(problem, v) - zero_grad) / (v @ v))
        other = lambda_max_upper(Qbar[None], vals[name]) if sense == "sup" else lambda_min_lower(Qbar[None],
                                                                                                 vals[name])
        out[name] = CertifiedConstant(
            name, vals[name], ray, other, {"basis_vector": j},
            "Rayleigh quotient of grad F(v) - grad F(0) at v = V e_j",
            f"Cholesky of {'uI - Qbar' if sense == 'sup' else 'Qbar - lI'} (dense mean quadratic)",
            "lambda_max(sum_k pi_k Q_k)" if sense == "sup" else "lambda_min(sum_k pi_k Q_k)", ASSUMPTION,
            sense=sense, scale=vals["L"])

    w_star = exact["w_star"]
    out["zeta2"] = CertifiedConstant(
        "zeta2", vals["zeta2"], _heterogeneity(problem, w_star), float(exact["zeta2"]), {"point": "w*"},
        "sum_k pi_k ||grad f_k(w*)||^2 from every client's gradient at w*",
        "closed form sum_k pi_k sum_j lambda_kj^2 (z*_j - ctil_kj)^2 in the basis",
        "heterogeneity at the optimum sum_k pi_k ||grad f_k(w*)||^2", "bounded gradient dissimilarity at w*",
        scale=float(exact["zeta2"]))

    ref = sq.exact_reference(problem)
    f_at = float(problem.smooth_value(w_star))
    out["Gamma"] = CertifiedConstant(
        "Gamma", vals["Gamma"], f_at, f_at - ref.gap if math.isfinite(ref.gap) else -math.inf, {"point": "w*"},
        "F(w*) - sum_k pi_k min f_k with min f_k = f_k(c_k) = 0 (client losses at w*)",
        "F* >= F(w*) - ||grad F(w*)||^2 / (2 mu_F) (Cholesky-certified mu_F)",
        "F* - sum_k pi_k min f_k", "Buttaci & Calafiore Def. 3; Das et al. Delta*", sense="inf",
        scale=max(abs(f_at), 1.0))
    return out
