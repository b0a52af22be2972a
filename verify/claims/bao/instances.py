"""Instances of the Bao et al. claims (Bao, Crawshaw, Luo, Liu, "Fast Composite Optimization and Statistical Recovery
in Federated Learning", ICML 2022): the memoised problems and certified references the claims measure against, the
client quadratics (Q_k, b_k) with ∇f_k(w) = Q_kw − b_k from which the exact claims build their predictions, and the
instance presets of the exact and limit claims.

Everything here is cached per process (:func:`fedrates.solvers.certify.observed_cache`): a claim's simulate and
judge see the same instance and the same constants.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache

__all__ = ["COMPOSITE", "IDENTICAL", "LASSO", "POP_LASSO", "POP_TRACE", "QUAD", "SKEWED", "certified_distance2",
           "client_quadratics", "closed_form_optimum", "instance", "problem_and_reference", "problem_of",
           "reference_of", "shared_basis", "spectra"]


# ---- problems and references (cached per process) ------------------------------------------------------------------
@observed_cache
def _problem(family: str, params_json: str, weights_json: str) -> Any:
    from fedrates.solvers import problems

    params = json.loads(params_json)
    problem = problems.make(family, None, **params)
    weights = json.loads(weights_json)
    if weights:
        problem = dataclasses.replace(problem, weights=np.asarray(weights, dtype=float))
    return problem


def problem_of(family: str, params: dict, weights: tuple[float, ...] = ()) -> Any:
    """The claim's instance (``weights``: client weights π_k replacing the family's, for minibatch federations)."""
    return _problem(family, json.dumps(params, sort_keys=True), json.dumps(list(weights)))


def closed_form_optimum(problem: Any) -> np.ndarray:
    """argmin Σπ_kf_k of an unconstrained smooth quadratic federation: Q̄w = b̄ with Q̄ = Σπ_kQ_k, b̄ = Σπ_kb_k built
    here from the client data (not from the solver's reference)."""
    Q, b = client_quadratics(problem)
    w = problem.weights
    return np.linalg.solve(np.einsum("k,kij->ij", w, Q), np.einsum("k,ki->i", w, b))


def client_quadratics(problem: Any) -> tuple[np.ndarray, np.ndarray]:
    """(Q_k, b_k) with ∇f_k(w) = Q_kw − b_k, built here from the client data: Q_k itself (Gaussian-noise
    quadratics), V diag(λ_k) Vᵀ and V(λ_k ⊙ c̃_k) (shared-basis quadratics, V multiplied out here), diag(δ_k) +
    u_ku_kᵀ and Q_kc_k (diagonal plus rank one), X_kᵀX_k/n and X_kᵀy_k/n (samples; implicit features formed from
    their scales and DCT rows), or C + m_km_kᵀ and Q_kw° (population least squares with x ~ N(m_k, C), y = xᵀw° + ε,
    Bao et al. §2)."""
    fit = problem.datafit
    if hasattr(fit, "Q"):
        return np.asarray(fit.Q), np.asarray(fit.b)
    if hasattr(fit, "reflectors"):
        V = shared_basis(np.asarray(fit.reflectors, dtype=float), fit.dim)
        lam = np.asarray(fit.lam, dtype=float)
        return np.einsum("ij,kj,lj->kil", V, lam, V), (lam * np.asarray(fit.ctil, dtype=float)) @ V.T
    if hasattr(fit, "centres"):  # diagonal plus rank one: Q_k = diag(δ_k) + u_k u_kᵀ, b_k = Q_k c_k
        delta, u = np.asarray(fit.delta, dtype=float), np.asarray(fit.u, dtype=float)
        Q = np.einsum("kd,de->kde", delta, np.eye(fit.dim)) + np.einsum("kd,ke->kde", u, u)
        return Q, np.einsum("kde,ke->kd", Q, np.asarray(fit.centres, dtype=float))
    if hasattr(fit, "means"):
        m, C = np.asarray(fit.means, dtype=float), np.asarray(fit.cov, dtype=float)
        Q = C[None] + np.einsum("kd,ke->kde", m, m)
        return Q, Q @ np.asarray(fit.truth, dtype=float).reshape(-1)
    if getattr(fit, "X", None) is None and hasattr(fit, "to_sample_least_squares"):  # implicit features, formed here
        fit = fit.to_sample_least_squares()
    X, y = np.asarray(fit.X), np.asarray(fit.y)
    return np.einsum("kni,knj->kij", X, X) / X.shape[1], np.einsum("kni,kn->ki", X, y) / X.shape[1]


def shared_basis(reflectors: np.ndarray, dim: int) -> np.ndarray:
    """V = H₁H₂⋯H_r with H_i = I − 2u_iu_iᵀ, multiplied out densely here (the shared basis of a
    ``structured_quadratic`` federation, Q_k = V diag(λ_k) Vᵀ, c_k = V c̃_k; r = 0: V = I)."""
    V = np.eye(dim)
    for u in reflectors:
        V = V @ (np.eye(dim) - 2.0 * np.outer(u, u))
    return V


def spectra(problem: Any) -> tuple[float, float, float, float]:
    """(L_max, µ_min) over clients and (L, µ) of the mean Hessian, from the client data at check time."""
    Q, _ = client_quadratics(problem)
    ev = np.linalg.eigvalsh(Q)
    evm = np.linalg.eigvalsh(np.einsum("k,kij->ij", problem.weights, Q))
    return float(ev[:, -1].max()), float(ev[:, 0].min()), float(evm[-1]), float(evm[0])


def certified_distance2(problem: Any, w: np.ndarray) -> float:
    """A certified bound on ‖w − w_opt‖² (the reference's gap in the units of a squared distance): 2·gap/µ̄."""
    from fedrates.solvers import reference

    gap = float(reference.certify(problem, w))
    _, _, _, mu_bar = spectra(problem)
    return 2.0 * max(gap, 0.0) / mu_bar



@observed_cache
def _problem_and_reference(family: str, params_json: str) -> tuple[Any, Any]:
    from fedrates.solvers import problems, reference

    params = json.loads(params_json)
    preset = params.pop("preset", None)
    problem = problems.make(family, preset, **params)
    return problem, reference.solve(problem)


def problem_and_reference(family: str, params: dict) -> tuple[Any, Any]:
    """(problem, certified reference) of ``family`` with ``params`` (an optional ``preset`` key), cached."""
    return _problem_and_reference(family, json.dumps(params, sort_keys=True))


@observed_cache
def _instance(family: str, params_json: str, batch: int) -> tuple[Any, Any, Any]:
    from fedrates.solvers import constants

    problem, ref = _problem_and_reference(family, params_json)
    consts = constants.compute(problem, batch=batch, reference_point=ref.w)
    return problem, ref, consts


def instance(family: str, params: dict, batch: int = 1) -> tuple[Any, Any, Any]:
    """(problem, certified reference, constants for minibatches of ``batch``) of ``family`` with ``params``, cached."""
    return _instance(family, json.dumps(params, sort_keys=True), int(batch))


@observed_cache
def _reference_cached(fingerprint: str, family: str, params_json: str) -> Any:
    from fedrates.solvers import reference

    return reference.solve(problem_of(family, json.loads(params_json)))


def reference_of(problem: Any) -> Any:
    """The certified reference of a problem built by :func:`problem_of` (solved once per instance)."""
    params = dict(problem.params)
    return _reference_cached(problem.fingerprint, problem.family, json.dumps(params, sort_keys=True))


# ---- presets of the exact and limit claims ---------------------------------------------------------------------
QUAD = {"structure": "random", "clients": 4, "dim": 6, "mu": 0.5, "L": 2.0, "spread": 1.0, "sigma": 2.0,
        "weight_skew": 1.0, "seed": 3}
LASSO = {"clients": 4, "samples": 12, "dim": 5, "sparsity": 2, "lam": 0.0, "heterogeneity": 1.0, "seed": 2}
SKEWED = (0.1, 0.2, 0.3, 0.4)
COMPOSITE = {"structure": "random", "clients": 4, "dim": 6, "mu": 0.5, "L": 2.0, "spread": 2.0, "sigma": 0.0,
             "weight_skew": 1.0, "lam": 0.3, "radius": 1.0, "seed": 5}

#: identical clients (one cluster, no rotation, no spread): FedMiD with the server prox off is then E·R steps of
#: proximal gradient on F + λ‖·‖₁ over the ball
IDENTICAL = {"structure": "clustered", "clusters": 1, "angle": 0.0, "within": 0.0, "clients": 4, "dim": 6, "mu": 0.5,
             "L": 2.0, "spread": 2.0, "sigma": 0.0, "lam": 0.3, "radius": 1.0, "seed": 5}

POP_LASSO = {"clients": 4, "dim": 5, "sparsity": 2, "lam": 0.0, "heterogeneity": 1.0, "correlation": 0.5,
             "sampling": "population", "seed": 4}
POP_TRACE = {"clients": 4, "rows": 2, "cols": 3, "rank": 1, "lam": 0.0, "heterogeneity": 1.0,
             "sampling": "population", "seed": 4}
