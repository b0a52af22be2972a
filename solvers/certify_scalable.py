r"""Certificates shared by the scalable families (shared basis, diagonal plus rank one, implicit features).

Each family certifies its own client curvature (L, μ: its structure gives the second route) and its own extras;
what they share is built here, from the instance's gradient routine (``gradients_at``), never from the closed form
being certified:

* L_F, μ_F of F = Σ_k π_k f_k: witness the Rayleigh quotient vᵀ(∇F(v) − ∇F(0))/vᵀv at the family's extreme
  eigenvector v of Q̄ (∇F summed from every client's gradient, :func:`fedrates.solvers.closed_form.mean_gradient`);
  other side a Cholesky factorisation of uI − Q̄ (resp. Q̄ − lI) on the dense mean quadratic (d × d);
* ζ*² = Σ_k π_k ‖∇f_k(w*)‖²: witness every client's gradient at w*; other side the family's closed form;
* Γ = F* − Σ_k π_k min f_k: witness F(w*) − Σ_k π_k min f_k from the client losses; other side the strong-convexity
  lower bound F* ≥ F(w*) − ‖∇F(w*)‖²/(2μ_F) with μ_F certified.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.solvers.certify import CertifiedConstant, lambda_max_upper, lambda_min_lower
from fedrates.solvers.closed_form import client_gradients_at, heterogeneity, mean_gradient

__all__ = ["ASSUMPTION", "client_rayleigh", "dense_client_bounds", "gamma", "mean_curvature", "zeta2"]

ASSUMPTION = "every f_k L-smooth and mu-strongly convex; F L_F-smooth and mu_F-strongly convex"


def client_rayleigh(problem: Any, k: int, v: np.ndarray) -> float:
    """vᵀ(∇f_k(v) − ∇f_k(0))/vᵀv = vᵀQ_kv/vᵀv from client k's gradient routine (the definition of its curvature)."""
    fit, ks = problem.datafit, np.array([k])
    hv = client_gradients_at(fit, v, ks)[0] - client_gradients_at(fit, np.zeros(fit.dim), ks)[0]
    return float(v @ hv / (v @ v))


def dense_client_bounds(fit: Any, values: Mapping[str, float], budget: int) -> tuple[float, float, str, str] | None:
    """(upper side of L, lower side of μ, how each was computed) by Cholesky factorisations of uI − Q_k and Q_k − lI
    for every client, when the dense Hessian stack (K·d² entries) is within ``budget``; None otherwise (the family's
    structure then gives the other side)."""
    if fit.clients * fit.dim**2 > budget:
        return None
    return (lambda_max_upper(fit.hessians, values["L"]), lambda_min_lower(fit.hessians, values["mu"]),
            "Cholesky of uI − Q_k for every client", "Cholesky of Q_k − lI for every client")


def mean_curvature(problem: Any, values: Mapping[str, float],
                   witnesses: Mapping[str, tuple[np.ndarray, Mapping[str, Any], str]]) -> dict[str, CertifiedConstant]:
    """Certificates of ``L_F`` and ``μ_F`` (module docstring); ``witnesses[name]`` = (v, the witness as recorded,
    where v is in words, e.g. "v = V e_j"); ``values`` the claimed L_F, μ_F and L (the scale)."""
    Qbar = problem.quadratic[0]
    zero_grad = mean_gradient(problem, np.zeros(problem.datafit.dim))
    out = {}
    for name, sense in (("L_F", "sup"), ("mu_F", "inf")):
        v, witness, where = witnesses[name]
        ray = float(v @ (mean_gradient(problem, v) - zero_grad) / (v @ v))
        other = (lambda_max_upper(Qbar[None], values[name]) if sense == "sup"
                 else lambda_min_lower(Qbar[None], values[name]))
        out[name] = CertifiedConstant(
            name, values[name], ray, other, dict(witness), f"Rayleigh quotient of grad F(v) - grad F(0) at {where}",
            f"Cholesky of {'uI - Qbar' if sense == 'sup' else 'Qbar - lI'} (dense mean quadratic)",
            "lambda_max(sum_k pi_k Q_k)" if sense == "sup" else "lambda_min(sum_k pi_k Q_k)", ASSUMPTION,
            sense=sense, scale=values["L"])
    return out


def zeta2(problem: Any, value: float, w_star: np.ndarray, closed: float, closed_method: str) -> CertifiedConstant:
    """ζ*²: witness Σ_k π_k ‖∇f_k(w*)‖² from every client's gradient; other side the family's ``closed`` form."""
    return CertifiedConstant(
        "zeta2", value, heterogeneity(problem, w_star), closed, {"point": "w*"},
        "sum_k pi_k ||grad f_k(w*)||^2 from every client's gradient at w*", closed_method,
        "heterogeneity at the optimum sum_k pi_k ||grad f_k(w*)||^2", "bounded gradient dissimilarity at w*",
        scale=closed)


def gamma(problem: Any, value: float, w_star: np.ndarray, gap: float, minima: float = 0.0,
          minima_method: str = "min f_k = f_k(c_k) = 0") -> CertifiedConstant:
    """Γ = F* − Σ_k π_k min f_k: witness F(w*) − ``minima`` (client losses at w*; ``minima`` = Σ_k π_k min f_k as the
    family evaluates it, ``minima_method`` says how); other side F(w*) − ``gap`` − ``minima`` with ``gap`` ≥ F(w*) −
    F* the certified gap of w* (‖∇F(w*)‖²/(2μ_F))."""
    f_at = float(problem.smooth_value(w_star))
    return CertifiedConstant(
        "Gamma", value, f_at - minima, f_at - gap - minima if math.isfinite(gap) else -math.inf, {"point": "w*"},
        f"F(w*) - sum_k pi_k min f_k with {minima_method} (client losses at w*)",
        "F* >= F(w*) - ||grad F(w*)||^2 / (2 mu_F) (Cholesky-certified mu_F)",
        "F* - sum_k pi_k min f_k", "Buttaci & Calafiore Def. 3; Das et al. Delta*", sense="inf",
        scale=max(abs(f_at), abs(minima), 1.0))
