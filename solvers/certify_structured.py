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

from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.solvers import certify_scalable as shared
from fedrates.solvers.certify import EPS, CertifiedConstant
from fedrates.solvers.problems import structured_quadratic as sq

__all__ = ["for_structured"]

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
    out: dict[str, CertifiedConstant] = {}

    bounds = shared.dense_client_bounds(fit, vals, sq.DENSE_BUDGET)
    if bounds is not None:
        upper_L, lower_mu, how_L, how_mu = bounds
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
        out[name] = CertifiedConstant(
            name, vals[name], shared.client_rayleigh(problem, k, v), other, {"client": k, "basis_vector": j},
            "Rayleigh quotient v^T(grad f_k(v) - grad f_k(0))/v^T v at v = V e_j", how,
            "max_k lambda_max(Q_k)" if name == "L" else "min_k lambda_min(Q_k)", shared.ASSUMPTION, sense=sense,
            scale=vals["L"])

    out |= shared.mean_curvature(problem, vals, {
        name: (_basis_vector(fit, j), {"basis_vector": j}, "v = V e_j")
        for name, j in (("L_F", exact["witness_L_F"]), ("mu_F", exact["witness_mu_F"]))})
    w_star = exact["w_star"]
    out["zeta2"] = shared.zeta2(problem, vals["zeta2"], w_star, float(exact["zeta2"]),
                                "closed form sum_k pi_k sum_j lambda_kj^2 (z*_j - ctil_kj)^2 in the basis")
    out["Gamma"] = shared.gamma(problem, vals["Gamma"], w_star, sq.exact_reference(problem).gap)
    return out
