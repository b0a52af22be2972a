"""Federated low-rank matrix estimation (trace regression), Bao et al. 2022, Example 3.2 and §4 (Figure 2).

Model: y = ⟨X, W°⟩ + ε with W° = diag(1_r, 0) (times ``signal``) of size d1 × d2, client covariates
X = Z_k + A with a heterogeneity matrix Z_k ~ N(0, h²) drawn once **per client** and A with i.i.d. N(0, 1) entries,
ε ~ N(0, σ_ε²).  (The released experiment code reuses one client's Z for every client, which makes the data IID;
fedrates draws a different Z_k per client, as the paper describes.)

Objective (empirical):  φ(W) = Σ_k π_k (1/2n) Σ_i (y_ki − ⟨X_ki, W⟩)² + λ‖W‖_nuc over {‖W‖_F ≤ ρ}.
Objective (population): φ(W) = Σ_k π_k ½‖vec(W − W°)‖²_{I + z_k z_kᵀ} + ½σ_ε² + λ‖W‖_nuc, z_k = vec(Z_k).

Preset ``bao-trace``: 32 × 32, rank 16, 64 clients × 128 samples, h = 1, σ_ε = 1, λ = 0.1.
"""

from __future__ import annotations

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Nuclear
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import GaussianPopulation, SampleLeastSquares

PARAMETERS = {
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "samples": Param(64, "int", "samples per client n_k >= 1", low=1),
    "rows": Param(6, "int", "rows d1 >= 1 of the matrix model", low=1),
    "cols": Param(6, "int", "columns d2 >= 1 of the matrix model", low=1),
    "rank": Param(2, "int", "rank r of the ground truth, 0 <= r <= min(rows, cols)", low=0),
    "signal": Param(1.0, "float", "nonzero singular value of the ground truth"),
    "heterogeneity": Param(1.0, "float", "std h of the per-client shift matrix Z_k >= 0", low=0.0),
    "noise": Param(1.0, "float", "std of the observation noise >= 0", low=0.0),
    "lam": Param(0.1, "float", "regularisation lambda >= 0", low=0.0),
    "radius": Param(None, "optional_float", "radius rho > 0 of the Frobenius-ball domain (none = unconstrained)",
                    low=0.0, low_inclusive=False),
    "sampling": Param("empirical", "choice", "stochastic gradient sampling", choices=("empirical", "population")),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    "bao-trace": {"clients": 64, "samples": 128, "rows": 32, "cols": 32, "rank": 16, "heterogeneity": 1.0,
                  "noise": 1.0, "lam": 0.1},
}


def _check(p: dict) -> None:
    if p["rank"] > min(p["rows"], p["cols"]):
        raise InputError(f"parameter rank={p['rank']} exceeds min(rows, cols)={min(p['rows'], p['cols'])}")


def build(params: dict, preset: str | None = None) -> Problem:
    K, n, d1, d2 = params["clients"], params["samples"], params["rows"], params["cols"]
    d = d1 * d2
    data_rng, shift_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(params["seed"]).spawn(2))
    truth = np.zeros((d1, d2))
    r = params["rank"]
    truth[np.arange(r), np.arange(r)] = params["signal"]
    shifts = params["heterogeneity"] * shift_rng.standard_normal((K, d1, d2))
    weights = np.full(K, 1.0 / K)
    if params["sampling"] == "population":
        datafit = GaussianPopulation(means=shifts.reshape(K, d), cov=np.eye(d), cov_factor=np.eye(d),
                                     truth=truth.reshape(d), noise_std=params["noise"])
    else:
        X = shifts[:, None] + data_rng.standard_normal((K, n, d1, d2))
        y = np.einsum("knij,ij->kn", X, truth) + params["noise"] * data_rng.standard_normal((K, n))
        datafit = SampleLeastSquares(X=X.reshape(K, n, d), y=y)
    return Problem(
        family="trace", preset=preset, params=params, shape=(d1, d2), weights=weights, datafit=datafit,
        penalty=Nuclear(lam=params["lam"]), radius=params["radius"], truth=truth, sampling=params["sampling"],
        description="federated low-rank trace regression (Bao et al. 2022, Example 3.2)",
        extras={"shifts": shifts},
    )


FAMILY = Family("trace", "low-rank trace regression with a nuclear-norm penalty (Bao et al. 2022 §4)",
                PARAMETERS, PRESETS, build, (_check,))
