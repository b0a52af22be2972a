"""Dinh et al.: the instances of the claims — realisable finite-sum federations whose sample gradients vanish at w*
(exact σ_n, λ = 0⁺), their exact constants and reference, memoised per process; the presets the claims share; the
exact moment recursion of a run (:mod:`fedrates.verify.claims.dinh.exact.moments`); the theory's configurations
(θ, μ, β, τ placed by the conditions of Lemma 1 and Theorem 1) and the single-device problem of Lemma 1."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache

__all__ = ["EXACT_LS", "EXACT_NC", "THEORY_LS", "THEOREM_LS", "SVRG_LS", "UNEQUAL_LS", "NOISY_LS", "NOISY_PRESET",
           "instance", "theory_config", "sharp_config", "lemma1_config", "device_problem"]

_TINY = float(np.finfo(float).tiny)
_EPS = float(np.finfo(float).eps)

#: small instances (d = 2, 3 devices) where every exact prediction is cheap; EXACT_LS is the catalogue's dinh-tiny
#: preset (N = 3, D_n = 4, d = 2, scale spread 0.5, seed 0), so that the claims build it through the preset
EXACT_LS = {"preset": "dinh-tiny"}
EXACT_NC = {"clients": 2, "samples": 4, "dim": 2, "shift": 1.0, "seed": 0}
THEORY_LS = {"clients": 3, "samples": 6, "dim": 2, "scale_spread": 0.3, "seed": 0}
#: Theorem 1's sharp instance: unequal sizes D_n = (12, 6, 12), p = (0.4, 0.2, 0.4)
THEOREM_LS = {"clients": 3, "samples": 12, "dim": 2, "scale_spread": 0.2, "seed": 0, "size_levels": 1}
#: near-homogeneous devices with unequal sizes D_n = (32, 16, 32): σ̄² = 0.16, where SVRG's Lemma 1(b) and Θ > 0 meet
SVRG_LS = {"clients": 3, "samples": 32, "dim": 2, "scale_spread": 0.0, "seed": 0, "size_levels": 1}
#: unequal device sizes D_n = (8, 4, 2), p_n = D_n/D = (4, 2, 1)/7: the D_n/D server average and objective (2) matter
UNEQUAL_LS = {"clients": 3, "samples": 8, "dim": 2, "scale_spread": 0.5, "seed": 0, "size_levels": 2}
NOISY_LS = {"clients": 4, "samples": 16, "dim": 4, "scale_spread": 0.3, "noise": 0.5, "seed": 0}
#: the catalogue's noisy preset (N = 4, D_n = 16, d = 4, label noise 0.5: assumption (5) fails, σ̄² = ∞)
NOISY_PRESET = {"preset": "dinh-noisy"}
_ALG_NAME = {"sarah": "fedproxvr_sarah", "svrg": "fedproxvr_svrg", "sgd": "fedprox_sgd"}


# ---- instances and constants -------------------------------------------------------------------------------------
@observed_cache
def _instance(family: str, params_json: str) -> tuple[Any, Any]:
    from fedrates.solvers import fedproxvr_constants, problems

    problem = problems.make(family, **json.loads(params_json))
    return problem, fedproxvr_constants.compute(problem)


def instance(family: str, params: dict) -> tuple[Any, Any]:
    """(problem, exact constants) of a finite-sum instance (cached per process)."""
    return _instance(family, json.dumps(params, sort_keys=True))


@dataclass(frozen=True)
class _Reference:
    """Closed-form optimum w* = Ā⁻¹b̄; ``gap`` bounds the rounding error of F̄(w*) (κ(Ā)·d·ε·scale)."""

    w: np.ndarray
    value: float
    gap: float


def _reference(consts: Any) -> _Reference:
    cond = float(np.linalg.cond(consts.Abar))
    scale = float(abs(consts.F_star) + consts.Delta + 1.0)
    return _Reference(consts.w_star, consts.F_star, cond * len(consts.w_star) * _EPS * scale)


def _moments(problem: Any, consts: Any, alg: Any, *, exact: bool = False) -> Any:
    from fedrates.solvers.problems.finite_sum import finite_sum
    from fedrates.verify.claims.dinh.exact.moments import FedProxVRMoments

    mom = FedProxVRMoments(finite_sum(problem), problem.weights, alg.estimator, 1.0 / (alg.beta * consts.L), alg.mu,
                           alg.tau, alg.batch, exact, alg.output_rule)
    mom.check_realisable()
    return mom


def _theta_values(consts: Any, *, mu: float, beta: float, tau: float, theta: float, T: float = 1.0,
                  Delta: float | None = None) -> dict[str, float]:
    """Symbol values of the dinh.* theorems (λ = 0 enters as the limit 0⁺: the catalogue's symbols are positive)."""
    return {"L": consts.L, "lam": max(consts.lam, _TINY), "mu": mu, "beta": beta, "tau": float(tau), "theta": theta,
            "sigma_bar_sq": max(consts.sigma_bar_sq, _TINY), "Delta": max(consts.Delta if Delta is None else Delta,
                                                                          _TINY), "T": float(T)}


_CONFIGS: dict[tuple, dict[str, float]] = {}


def theory_config(consts: Any, theta: float, estimator: str = "sarah") -> dict[str, float]:
    """:func:`_compute_theory_config`, cached per (L, λ, σ̄², θ, estimator)."""
    key = (float(consts.L), float(consts.lam), float(consts.sigma_bar_sq), float(theta), estimator)
    if key not in _CONFIGS:
        _CONFIGS[key] = _compute_theory_config(consts, theta, estimator)
    return dict(_CONFIGS[key])


def _compute_theory_config(consts: Any, theta: float, estimator: str = "sarah") -> dict[str, float]:
    """A configuration inside every condition: μ = argmax_μ Θ (log-grid), β = 1.05β_min (SARAH, (15)) or 1.02× the
    smallest SVRG-feasible β, τ = ⌈τ_lower(β)⌉ (13)/(14)."""
    from fedrates.bounds import fedproxvr as fb

    L, lam = consts.L, consts.lam
    mus = lam + L * np.geomspace(4.0, 1e4, 600)
    th = np.array([fb.Theta(L, lam, m, theta, consts.sigma_bar_sq) for m in mus])
    mu = float(mus[int(np.argmax(th))])
    if estimator == "svrg":
        b, _ = fb.beta_min_svrg(L, mu, lam, theta)
        beta = 1.02 * b
    else:
        beta = 1.05 * fb.beta_min(L, mu, lam, theta)[0]
    tau = int(math.ceil(fb.tau_lower(beta, L, mu, lam, theta)))
    return {"mu": mu, "beta": float(beta), "tau": tau, "theta": theta}


def lemma1_config(consts: Any, theta: float, mu_factor: float, estimator: str = "sarah") -> dict[str, float]:
    """Lemma 1's own regime, from the certified per-device constants only (L of (3) = max_{n,i}‖Q_i‖₂ and λ of (4)
    = max_n λ_n, each λ_n from device n's own Hessian): μ = λ + mu_factor·L, so that every J_n is μ̃-strongly convex
    with μ̃ = mu_factor·L.  SARAH: β = 1.05β_min of (15), τ = ⌈τ_lower(β)⌉ of (13).  SVRG: β = 1.02ᵏ·β_min^SVRG for
    the smallest k ≥ 0 at which the integer τ = ⌈τ_lower(β)⌉ meets (14), τ ≤ τ_max^SVRG(β) (needs θ²μ̃/L > 15.18,
    Remark 1(1)).  No global optimum and no σ̄² enter: Lemma 1 is a per-device statement (Θ is Theorem 1's)."""
    from fedrates.bounds import fedproxvr as fb

    L, lam = consts.L, consts.lam
    mu = lam + mu_factor * L
    if estimator == "svrg":
        b, _ = fb.beta_min_svrg(L, mu, lam, theta)
        if not math.isfinite(b):
            raise ValueError(f"Lemma 1(b) is infeasible at theta={theta}, mu_factor={mu_factor} "
                             "(theta^2 mu~/L <= 15.18)")
        beta = b
        for _ in range(200):
            if math.ceil(fb.tau_lower(beta, L, mu, lam, theta)) <= fb.tau_max_svrg(beta):
                break
            beta *= 1.02
    else:
        beta = 1.05 * fb.beta_min(L, mu, lam, theta)[0]
    tau = int(math.ceil(fb.tau_lower(beta, L, mu, lam, theta)))
    return {"mu": float(mu), "beta": float(beta), "tau": tau, "theta": theta}


def device_problem(problem: Any, n: int) -> Any:
    """The one-device federation of device n (same samples, weight 1)."""
    from fedrates.solvers.problems.base import Problem
    from fedrates.solvers.problems.datafits import DenseQuadratic
    from fedrates.solvers.problems.finite_sum import FiniteSum, ShiftedSampleLeastSquares, finite_sum

    fs = finite_sum(problem)
    one = slice(n, n + 1)
    extras = {}
    if isinstance(problem.datafit, DenseQuadratic):
        fit = problem.datafit
        sub = DenseQuadratic(Q=fit.Q[one], b=fit.b[one], c=fit.c[one])
        extras = {"finite_sum": FiniteSum(fs.X[one], fs.y[one], fs.E[one], fs.c, shifted=fs.shifted)}
    else:
        sub = ShiftedSampleLeastSquares(X=fs.X[one], y=fs.y[one], E=fs.E[one], centre=fs.c)
    return Problem(family=problem.family, preset=None, params={**problem.params, "device": n}, shape=problem.shape,
                   weights=np.ones(1), datafit=sub, penalty=problem.penalty, truth=problem.truth,
                   sampling=problem.sampling, noise_std=problem.noise_std, extras=extras)


def sharp_config(consts: Any, theta: float, mu_factor: float, estimator: str = "sarah") -> dict[str, float]:
    """A configuration where Theorem 1's bound is within a few × of the data: μ = λ + mu_factor·L (far past argmax Θ,
    so the L/μ̃ terms of Θ are small and Θ ≈ (1 − θ√(2(1 + σ̄²)))/μ), β = 3 + √(9 + μ²/L²) (the minimiser of
    τ_lower(β) of (13)), τ = ⌈τ_lower(β)⌉; τ ≤ (5β² − 4β)/8 is a condition the claim evaluates.  SVRG: β is the
    larger of that minimiser and 1.02× the smallest β where (14) is feasible (needs θ²μ̃/L > 15.18)."""
    from fedrates.bounds import fedproxvr as fb

    L, lam = consts.L, consts.lam
    mu = lam + mu_factor * L
    beta = 3.0 + math.sqrt(9.0 + (mu / L) ** 2)
    if estimator == "svrg":
        b, _ = fb.beta_min_svrg(L, mu, lam, theta)
        beta = max(beta, 1.02 * b) if math.isfinite(b) else beta
    tau = int(math.ceil(fb.tau_lower(beta, L, mu, lam, theta)))  # τ ≤ τ_upper is a condition the claim evaluates
    return {"mu": mu, "beta": float(beta), "tau": tau, "theta": theta}


_EXACT_REGIME = ("Realisable finite-sum least squares (N = 3 devices, D_n = 4, d = 2, heterogeneous covariances): "
                 "every sample gradient vanishes at w*, so the round is linear with random coefficients and its "
                 "moments are exact.")
_EXACT_WHY = "exact expectation from the update rules, checked two-sided at 99.9% family-wise confidence"
_MEAN_HYPER = {"beta": 4.0, "mu": 2.0, "tau": 10, "batch": 2}
_THEORY_REGIME = ("Realisable least squares (N = 3, D_n = 6, d = 2); θ = 0.3, μ = argmax Θ, β = 1.05β_min of (15), "
                  "τ = ⌈τ_lower(β)⌉: every condition of Lemma 1(a) and Theorem 1 holds with the exact constants "
                  "(L = max_i‖x_i‖², λ = 0⁺, σ̄² = Σp_n‖(A_n − Ā)Ā⁻¹‖²).")
_NC_LEMMA1_REGIME = ("Non-convex quadratics (N = 2, D_n = 4, d = 2): both devices' Hessians A_n indefinite "
                     "(λ_n = 0.641, 0.134 from each device's own Hessian; λ = max_n λ_n = 0.641, L = 2.47), PD "
                     "average; Lemma 1 run device by device on one-device federations (each with an indefinite "
                     "Hessian)")
