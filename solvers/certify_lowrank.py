r"""Certified constants of the diagonal-plus-rank-one quadratics (:mod:`fedrates.solvers.problems.lowrank_quadratic`).

Each constant comes with a witness evaluated from the instance's gradients (the definition) and a second route:

* L = max_k λ_max(Q_k), μ = min_k λ_min(Q_k), Q_k = diag(δ_k) + u_ku_kᵀ: witness the extreme client k and its
  eigenvector v from the secular equation, Rayleigh quotient vᵀ(∇f_k(v) − ∇f_k(0))/vᵀv; other side a Cholesky
  factorisation of uI − Q_k (resp. Q_k − lI) for every client when the dense stack fits
  (:data:`~fedrates.solvers.problems.lowrank_quadratic.DENSE_BUDGET`), else the sign of the secular function
  g_k(t) = 1 − Σ_j u_kj²/(t − δ_kj) for every client, without forming Q_k (:func:`secular_upper`,
  :func:`secular_lower`):

  - upper side of L: t > max_j δ_kj and g_k(t) > 0 for every k.  Then tI − D_k ≻ 0, the rank-one downdate
    tI − Q_k = (tI − D_k) − u_ku_kᵀ has at most one non-positive eigenvalue, and det(tI − Q_k) = det(tI − D_k)·g_k(t)
    > 0 (matrix determinant lemma), so tI − Q_k ≻ 0: λ_max(Q_k) < t;
  - lower side of μ: for every k either t ≤ δ_(1),k (then λ_min(Q_k) ≥ δ_(1),k ≥ t by Weyl, u_ku_kᵀ ⪰ 0), or
    δ_(1),k < t < δ_(2),k and g_k(t) < 0.  In the second case D_k − tI has exactly one negative eigenvalue, the
    rank-one update Q_k − tI = (D_k − tI) + u_ku_kᵀ has at most one (interlacing), and det(Q_k − tI) =
    det(D_k − tI)·g_k(t) > 0 (both factors negative), so Q_k − tI ≻ 0: λ_min(Q_k) > t.

  The signs are decided with a rounding margin: every computed term u_j²/(t − δ_j) carries a relative error of at
  most γ_3 and a sum of n non-negative terms at most γ_{n−1} (γ_n = nu/(1 − nu), u the unit roundoff; Higham,
  *Accuracy and Stability of Numerical Algorithms*, §3.1 and §4.2), so the tests use γ_{d+8} on sums and γ_8 on
  single terms (absorbing the roundings of the comparison itself), plus d·2⁻¹⁰⁶⁰/(distance to the nearest pole)
  for underflow.  The first t tried is the claimed value moved outwards by 8(d + 8)u·(|value| + scale); if some
  client fails there, bisection between t and a bound that holds by Weyl's inequality (max δ_k + 2‖u_k‖², resp.
  min δ_(1),k), with the same test, over the failing clients only.
* L_F, μ_F of F = Σ_k π_k f_k: witness the eigenvector v of Q̄ with the Rayleigh quotient of ∇F(v) − ∇F(0) (every
  client's gradient); other side a Cholesky factorisation of uI − Q̄ (resp. Q̄ − lI) on the dense mean quadratic;
* ζ*² = Σ_k π_k ‖∇f_k(w*)‖²: witness the clients' gradients at w*; other side the expanded closed form
  Σ_k π_k (Σ_j δ_kj² r_kj² + 2a_k Σ_j δ_kj u_kj r_kj + ‖u_k‖² a_k²), r_k = w* − c_k, a_k = u_kᵀr_k;
* Γ = F* − Σ_k π_k min f_k = F* (min f_k = 0, attained at c_k): witness F(w*) ≥ F* from the client losses; other
  side the strong-convexity lower bound F* ≥ F(w*) − ‖∇F(w*)‖²/(2μ_F) (:func:`exact_reference`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from fedrates.solvers import certify_scalable as shared
from fedrates.solvers.certify import EPS, CertifiedConstant
from fedrates.solvers.problems import lowrank_quadratic as lq

__all__ = ["for_lowrank", "secular_upper", "secular_lower"]

#: additive allowance per term for underflow of u_j² (below the smallest normal number)
_UNDERFLOW = 2.0**-1060


def _gamma(n: int) -> float:
    return n * EPS / (1 - n * EPS)


def _upper_ok(t: float, delta: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per client (rows): t > max_j δ_j and g(t) > 0 with the rounding margin (module docstring), i.e. λ_max < t."""
    d = delta.shape[1]
    dmax = delta.max(axis=1)
    ok = t > dmax
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        S = np.sum(u * u / (t - delta), axis=1)
        bound = S * (1 + _gamma(d + 8)) + d * _UNDERFLOW / (t - dmax)
    return ok & (bound < 1.0)


def _lower_ok(t: float, delta: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per client (rows): t ≤ δ_(1), or δ_(1) < t < δ_(2) and g(t) < 0 with the rounding margin (module
    docstring), i.e. λ_min ≥ t."""
    n, d = delta.shape
    rows = np.arange(n)
    j1 = np.argmin(delta, axis=1)
    d1 = delta[rows, j1]
    d2 = np.partition(delta, 1, axis=1)[:, 1] if d >= 2 else np.full(n, np.inf)
    weyl = t <= d1
    inside = (t > d1) & (t < d2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pole = u[rows, j1] ** 2 / (t - d1)                       # the term of δ_(1): positive inside
        den = delta - t
        den[rows, j1] = np.inf
        N = np.sum(u * u / den, axis=1)                          # the others: δ_j ≥ δ_(2) > t, positive
        p_low = pole * (1 - _gamma(8)) - _UNDERFLOW / (t - d1)
        n_up = N * (1 + _gamma(d + 8)) + d * _UNDERFLOW / (d2 - t)
    return weyl | (inside & (p_low > 1.0 + n_up))


def _chunked(test: Callable[[float, np.ndarray, np.ndarray], np.ndarray], t: float, delta: np.ndarray,
             u: np.ndarray) -> np.ndarray:
    step = max(1, lq._CHUNK // delta.shape[1])
    return np.concatenate([test(t, delta[s:s + step], u[s:s + step]) for s in range(0, delta.shape[0], step)])


def _search(test: Callable, good: float, bad: float, delta: np.ndarray, u: np.ndarray) -> float:
    """Bisection between ``good`` (the test holds for every row) and ``bad`` (it fails for some) to a relative
    width of 1e-13; returns the last value at which the test held for every row."""
    for _ in range(200):
        mid = 0.5 * (good + bad)
        if abs(good - bad) <= 1e-13 * max(abs(good), abs(bad)) or mid in (good, bad):
            break
        if _chunked(test, mid, delta, u).all():
            good = mid
        else:
            bad = mid
    return good


def secular_upper(fit: Any, value: float) -> float:
    """Certified ū ≥ max_k λ_max(Q_k) from the sign of the secular function (module docstring), O(K·d) per test."""
    delta, u = fit.delta, fit.u
    d = fit.dim
    s = np.einsum("kd,kd->k", u, u)
    value = float(value) if math.isfinite(value) else float(delta.max())
    t = value + 8 * (d + 8) * EPS * (abs(value) + float(s.max()))
    ok = _chunked(_upper_ok, t, delta, u)
    if ok.all():
        return t
    fail = np.flatnonzero(~ok)  # only these clients can have an eigenvalue at or above t
    D, U = delta[fail], u[fail]
    weyl = float(np.max(D.max(axis=1) + 2 * s[fail])) * (1 + 4 * EPS) + 1e-300  # λ_max ≤ max δ + ‖u‖² < this
    for _ in range(64):
        if _chunked(_upper_ok, weyl, D, U).all():
            break
        weyl *= 2
    else:
        return math.inf
    return _search(_upper_ok, weyl, t, D, U)


def secular_lower(fit: Any, value: float, scale: float | None = None) -> float:
    """Certified l ≤ min_k λ_min(Q_k) from Weyl's bound and the sign of the secular function (module docstring),
    O(K·d) per test; ``scale`` (default: the largest diagonal entry) sets the first step below ``value``."""
    delta, u = fit.delta, fit.u
    d = fit.dim
    scale = float(delta.max()) if scale is None else float(scale)
    value = float(value) if math.isfinite(value) else float(delta.min())
    t = value - 8 * (d + 8) * EPS * (abs(value) + abs(scale))
    ok = _chunked(_lower_ok, t, delta, u)
    if ok.all():
        return t
    fail = np.flatnonzero(~ok)
    D, U = delta[fail], u[fail]
    weyl = float(D.min())  # λ_min(Q_k) ≥ min_j δ_kj for every k (Weyl): the test holds there
    return _search(_lower_ok, weyl, t, D, U)


def for_lowrank(problem: Any, values: Mapping[str, float] | None = None) -> dict[str, CertifiedConstant]:
    """Certificates of L, μ, L_F, μ_F, ζ*² and Γ (see module docstring).  ``values`` overrides the claimed values
    (default: :func:`~fedrates.solvers.problems.lowrank_quadratic.exact_constants`), so that a wrong formula can be
    put to the test."""
    fit = problem.datafit
    exact = lq.exact_constants(problem)
    vals = {name: float(exact[name]) for name in ("L", "mu", "L_F", "mu_F", "zeta2", "Gamma")}
    vals.update(values or {})
    out: dict[str, CertifiedConstant] = {}

    bounds = shared.dense_client_bounds(fit, vals, lq.DENSE_BUDGET)
    if bounds is not None:
        upper_L, lower_mu, how_L, how_mu = bounds
    else:
        upper_L = secular_upper(fit, vals["L"])
        lower_mu = secular_lower(fit, vals["mu"])
        how_L = "secular function g_k(u) > 0 and u > max_j delta_kj for every client (rounding margin)"
        how_mu = "Weyl l <= min_j delta_kj, or secular function g_k(l) < 0 inside (delta_(1), delta_(2)), every client"
    for name, k, other, how, sense in (("L", exact["witness_L"], upper_L, how_L, "sup"),
                                       ("mu", exact["witness_mu"], lower_mu, how_mu, "inf")):
        v = exact[f"witness_{name}_vector"]
        out[name] = CertifiedConstant(
            name, vals[name], shared.client_rayleigh(problem, k, v), other, {"client": k},
            "Rayleigh quotient v^T(grad f_k(v) - grad f_k(0))/v^T v at the eigenvector v = (lambda I - D_k)^-1 u_k",
            how, "max_k lambda_max(Q_k)" if name == "L" else "min_k lambda_min(Q_k)", shared.ASSUMPTION, sense=sense,
            scale=vals["L"])

    out |= shared.mean_curvature(problem, vals, {
        name: (exact[f"witness_{name}_vector"], {"vector": "eigenvector of Qbar"}, "the eigenvector v of Qbar")
        for name in ("L_F", "mu_F")})
    w_star = exact["w_star"]
    out["zeta2"] = shared.zeta2(
        problem, vals["zeta2"], w_star, float(exact["zeta2"]),
        "expanded closed form sum_k pi_k (sum_j delta_kj^2 r_kj^2 + 2 a_k sum_j delta_kj u_kj r_kj + ||u_k||^2 a_k^2)")
    out["Gamma"] = shared.gamma(problem, vals["Gamma"], w_star, lq.exact_reference(problem).gap)
    return out
