r"""Certified constants of least squares with implicit features
(:mod:`fedrates.solvers.problems.implicit_least_squares`).

Each constant comes with a witness evaluated from the instance's own routines (the definition) and a second route
that recomputes the per-(client, coordinate) sums from the raw (j, s, y) arrays a second way (sorting the keys
k·d + j and summing runs with ``add.reduceat``, not the stored λ, β nor the ``bincount`` that built them):

* L = max_k λ_max(Q_k), μ = min_k λ_min(Q_k): witness client k and direction v = Cᵀe_j, Rayleigh quotient
  vᵀ(∇f_k(v) − ∇f_k(0))/vᵀv from the gradient routine; other side a Cholesky factorisation of uI − Q_k (resp.
  Q_k − lI) for every client when the dense stack fits (:data:`~fedrates.solvers.problems.implicit_least_squares.
  DENSE_BUDGET`), else the exhaustive maximum (minimum) of the recomputed λ_kj times 1 ± (‖ĈᵀĈ − I‖_F + γ).  Why it
  bounds: the routines apply the computed transform Ĉ (formed densely by applying it to the identity), so the
  quadratic they evaluate has Hessian ĈᵀΛ_kĈ and ‖ĈᵀΛĈ‖₂ ≤ max λ ‖Ĉ‖₂² ≤ max λ (1 + ‖ĈᵀĈ − I‖₂), λ_min(ĈᵀΛĈ) ≥
  min λ σ_min(Ĉ)² ≥ min λ (1 − ‖ĈᵀĈ − I‖₂), with ‖·‖₂ ≤ ‖·‖_F; γ = (c + 3)u/(1 − (c + 3)u) bounds the rounding of
  a sum of c ≤ ⌈n/d⌉ positive terms s², a division by n and a square;
* L_F, μ_F of F = Σ_k π_k f_k: witness Cᵀe_j with the Rayleigh quotient of ∇F(v) − ∇F(0) (every client's
  gradient); other side a Cholesky factorisation of uI − Q̄ (resp. Q̄ − lI) on the dense mean quadratic;
* ζ*² = Σ_k π_k ‖∇f_k(w*)‖²: witness the clients' gradients at w* (original coordinates); other side the closed
  form Σ_k π_k Σ_j (λ_kj z*_j − β_kj)² from the recomputed sums;
* Γ = F* − Σ_k π_k min f_k: witness F(w*) − Σ_k π_k f_k(ŵ_k) at the client minimisers ŵ_k = Cᵀ(β_k/λ_k) (client
  losses from the residuals); other side the lower bound F* − Σ_k π_k min f_k ≥ F(w*) − ‖∇F(w*)‖²/(2μ_F) −
  Σ_k π_k f_k(ŵ_k) (min f_k ≤ f_k(ŵ_k); Cholesky-certified μ_F);
* σ²_ref = max_k E‖g_k(w*) − ∇f_k(w*)‖² (minibatch B): witness the finite-population formula evaluated by
  enumerating the client's per-sample gradients ∇ℓ_ki(w*) = a_ki(a_kiᵀw* − y_ki) in original coordinates,
  φ(n, B)·(1/n)Σ_i ‖∇ℓ_ki(w*) − ∇f_k(w*)‖²; other side the exhaustive maximum over clients of the closed form
  φ·(Σ_j p_kj z*_j² − 2 Σ_j q_kj z*_j + r_k) from the recomputed sums;
* σ² = max_k sup_{‖w‖≤ρ} E‖g_k(w) − ∇f_k(w)‖² (problems with a radius): witness the per-sample enumeration at the
  maximiser (‖w‖ ≤ ρ checked); other side the Lagrangian dual of each client's diagonal trust-region problem,
  sup ≤ Σ_j q_j²/(θ − p_j) + r + θρ² for every θ > max_j p_j (θ from the client's multiplier, moved up until
  admissible), maximum over clients.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from fedrates.solvers import certify_scalable as shared
from fedrates.solvers.certify import EPS, CertifiedConstant
from fedrates.solvers.problems import implicit_least_squares as ils

__all__ = ["for_implicit", "raw_sums"]

def _gamma(m: int) -> float:
    return m * EPS / (1 - m * EPS)


def raw_sums(fit: Any, sl: slice, powers: tuple[tuple[int, int], ...]) -> list[np.ndarray]:
    """(1/n) Σ_{i: j_ki = j} s_ki^a y_ki^b per (client, coordinate) of the clients ``sl``, (c, d) each: the keys
    k·d + j sorted (stable) and each run summed with ``add.reduceat`` (a coordinate no sample sees sums to 0)."""
    J = fit.index[sl].astype(np.int64)
    c, n = J.shape
    d = fit.dim
    keys = (np.arange(c, dtype=np.int64)[:, None] * d + J).reshape(-1)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    present = sorted_keys[starts]
    S, Y = fit.scale[sl].reshape(-1)[order], fit.y[sl].reshape(-1)[order]
    out = []
    for a, b in powers:
        vals = S**a * Y**b if b else S**a
        full = np.zeros(c * d)
        full[present] = np.add.reduceat(vals, starts)
        out.append(full.reshape(c, d) / n)
    return out


def _chunks(fit: Any) -> range:
    return range(0, fit.clients, fit._client_step())


def _own_minimum_values(problem: Any) -> float:
    """Σ_k π_k f_k(ŵ_k) at ŵ_k = Cᵀ(β_k/λ_k) (recomputed sums), each loss from the residuals at ŵ_k, chunked."""
    fit, p = problem.datafit, problem.weights
    total = 0.0
    for s in _chunks(fit):
        sl = slice(s, s + fit._client_step())
        lam, beta = raw_sums(fit, sl, ((2, 0), (1, 1)))
        z = fit.to_coeff(fit.from_coeff(beta / lam))
        r = fit.scale[sl] * np.take_along_axis(z, fit.index[sl].astype(np.intp), axis=1) - fit.y[sl]
        total += float(p[sl] @ (0.5 * np.mean(r * r, axis=1)))
    return total


def _variance_by_samples(fit: Any, k: int, w: np.ndarray, batch: int, replace: bool) -> float:
    """φ(n, B)·(1/n)Σ_i ‖∇ℓ_ki(w) − ∇f_k(w)‖² with the per-sample gradients a_ki(a_kiᵀw − y_ki) formed in original
    coordinates (a_ki = s_ki Cᵀe_{j_ki}, the rows of C obtained by transforming unit vectors)."""
    E = np.zeros((fit.samples, fit.dim))
    E[np.arange(fit.samples), fit.index[k]] = fit.scale[k]
    A = fit.from_coeff(E)  # rows a_ki
    G = A * (A @ w - fit.y[k])[:, None]
    dev = G - G.mean(axis=0)
    return float(np.sum(dev * dev) / fit.samples) * ils.batch_factor(fit.samples, batch, replace)


def _variance_pieces(fit: Any, sl: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, q, r) of V_k/φ from the recomputed sums (see the module docstring of the family)."""
    lam, beta, nu, gam = raw_sums(fit, sl, ((2, 0), (1, 1), (4, 0), (3, 1)))
    S, Y = fit.scale[sl], fit.y[sl]
    kappa = np.mean(S * S * Y * Y, axis=1)
    return np.maximum(nu - lam * lam, 0.0), gam - lam * beta, kappa - np.einsum("kd,kd->k", beta, beta)


def _dual_bound(p: np.ndarray, q: np.ndarray, r: np.ndarray, rho: float, theta: np.ndarray) -> np.ndarray:
    """min over θ ∈ {θ₀ + t·scale} with θ > max_j p_j of Σ_j q_j²/(θ − p_j) + r + θρ² (+ a rounding allowance),
    per row: q(z) ≤ q(z) + θ(ρ² − ‖z‖²) ≤ sup_z [zᵀ(diag(p) − θI)z − 2qᵀz] + r + θρ² for ‖z‖ ≤ ρ."""
    n_rows, d = p.shape
    p1 = p.max(axis=1)
    scale = np.maximum(np.maximum(np.abs(p1), np.linalg.norm(q, axis=1) / rho), np.finfo(float).tiny)
    best = np.full(n_rows, np.inf)
    for t in (0.0, 1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-1, 1.0, 10.0):
        th = theta + t * scale
        gap = th[:, None] - p
        ok = np.all(gap > 0, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(ok[:, None], q * q / np.where(gap > 0, gap, 1.0), np.inf)
        val = terms.sum(axis=1) + r + th * rho**2
        val += 8 * (d + 4) * EPS * (terms.sum(axis=1) + np.abs(r) + np.abs(th) * rho**2)
        best = np.minimum(best, np.where(ok, val, np.inf))
    return best


def for_implicit(problem: Any, values: Mapping[str, float] | None = None, batch: int = 1,
                 replace: bool = False) -> dict[str, CertifiedConstant]:
    """Certificates of L, μ, L_F, μ_F, ζ*², Γ, σ²_ref and (with a radius) σ² for minibatches of ``batch`` samples
    (see module docstring).  ``values`` overrides the claimed values (default:
    :func:`~fedrates.solvers.problems.implicit_least_squares.exact_constants`), so that a wrong formula can be put
    to the test."""
    fit = problem.datafit
    exact = ils.exact_constants(problem, batch, replace)
    names = ["L", "mu", "L_F", "mu_F", "zeta2", "Gamma", "sigma2_ref"]
    if problem.radius is not None:
        names.append("sigma2")
    vals = {name: float(exact[name]) for name in names}
    vals.update(values or {})
    out: dict[str, CertifiedConstant] = {}

    bounds = shared.dense_client_bounds(fit, vals, ils.DENSE_BUDGET)
    if bounds is not None:
        upper_L, lower_mu, how_L, how_mu = bounds
    else:
        C = fit.basis
        hi, lo, count = -math.inf, math.inf, 0
        for s in _chunks(fit):
            (lam,) = raw_sums(fit, slice(s, s + fit._client_step()), ((2, 0),))
            hi, lo = max(hi, float(lam.max())), min(lo, float(lam.min()))
        count = -(-fit.samples // fit.dim)
        defect = float(np.linalg.norm(C.T @ C - np.eye(fit.dim))) + 4 * fit.dim * EPS + _gamma(count + 3)
        upper_L, lower_mu = hi * (1 + defect), lo * (1 - defect)
        how_L = "exhaustive maximum of the recomputed lambda_kj x (1 + ||C^T C - I||_F + rounding)"
        how_mu = "exhaustive minimum of the recomputed lambda_kj x (1 - ||C^T C - I||_F - rounding)"
    for name, (k, j), other, how, sense in (("L", exact["witness_L"], upper_L, how_L, "sup"),
                                            ("mu", exact["witness_mu"], lower_mu, how_mu, "inf")):
        v = fit.from_coeff(np.eye(fit.dim)[j])
        out[name] = CertifiedConstant(
            name, vals[name], shared.client_rayleigh(problem, k, v), other, {"client": k, "basis_vector": j},
            "Rayleigh quotient v^T(grad f_k(v) - grad f_k(0))/v^T v at v = C^T e_j", how,
            "max_k lambda_max(Q_k)" if name == "L" else "min_k lambda_min(Q_k)", shared.ASSUMPTION, sense=sense,
            scale=vals["L"])

    out |= shared.mean_curvature(problem, vals, {
        name: (fit.from_coeff(np.eye(fit.dim)[j]), {"basis_vector": j}, "v = C^T e_j")
        for name, j in (("L_F", exact["witness_L_F"]), ("mu_F", exact["witness_mu_F"]))})

    w_star, z_star = exact["w_star"], exact["z_star"]
    p = problem.weights
    closed, ref_closed = 0.0, -math.inf
    factor = ils.batch_factor(fit.samples, batch, replace)
    for s in _chunks(fit):
        sl = slice(s, s + fit._client_step())
        lam, beta = raw_sums(fit, sl, ((2, 0), (1, 1)))
        g = lam * z_star - beta
        closed += float(p[sl] @ np.einsum("kd,kd->k", g, g))
        pk, qk, rk = _variance_pieces(fit, sl)
        ref_closed = max(ref_closed, factor * float(np.max(pk @ (z_star * z_star) - 2 * qk @ z_star + rk)))
    out["zeta2"] = shared.zeta2(problem, vals["zeta2"], w_star, closed,
                                "closed form sum_k pi_k sum_j (lambda_kj z*_j - beta_kj)^2 from the recomputed sums")
    gap = ils.certified_gap(problem, w_star, exact["mu_F"])[2]
    out["Gamma"] = shared.gamma(problem, vals["Gamma"], w_star, gap, _own_minimum_values(problem),
                                "min f_k = f_k(w_k) at the client minimisers w_k = C^T(beta_k/lambda_k)")

    k = int(exact["witness_sigma2_ref"])
    out["sigma2_ref"] = CertifiedConstant(
        "sigma2_ref", vals["sigma2_ref"], _variance_by_samples(fit, k, w_star, batch, replace), ref_closed,
        {"client": k, "batch": int(batch), "replace": bool(replace)},
        "phi(n, B) (1/n) sum_i ||grad l_ki(w*) - grad f_k(w*)||^2 from the client's per-sample gradients",
        "exhaustive maximum over clients of the closed-form variance quadratic in coefficients (recomputed sums)",
        "max_k E||g_k(w*) - grad f_k(w*)||^2 at the optimum (minibatch B)",
        "variance at the optimum (Assumption 4 restricted to w*)")

    if problem.radius is not None:
        rho = float(problem.radius)
        k, w = exact["witness_sigma2"]
        inside = float(np.linalg.norm(w)) <= rho * (1 + 1e-12)
        upper = -math.inf
        for s in _chunks(fit):
            sl = slice(s, s + fit._client_step())
            upper = max(upper, factor * float(np.max(np.maximum(
                _dual_bound(*_variance_pieces(fit, sl), rho, exact["sigma2_theta"][sl]), 0.0))))
        out["sigma2"] = CertifiedConstant(
            "sigma2", vals["sigma2"], _variance_by_samples(fit, k, w, batch, replace) if inside else math.nan, upper,
            {"client": int(k), "point": w.tolist(), "batch": int(batch), "replace": bool(replace)},
            "per-sample variance at the ball maximiser (||w|| <= rho checked)",
            "Lagrangian dual of the diagonal variance quadratic on the ball per client, max over clients",
            "max_k sup_{||w||<=rho} E||g_k(w) - grad f_k(w)||^2 (minibatch B)",
            "Bao et al. 2022 Assumption 4 (bounded variance)")
    return out
