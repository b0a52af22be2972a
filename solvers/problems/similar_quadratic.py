"""Least-squares federations with controllable mutual similarity (Buttaci & Calafiore, "Aiding Global
Convergence in Federated Learning via Local Perturbation and Mutual Similarity Information").

Client i holds data X_i (n × d) and targets y_i; its loss is f_i(w) = (1/2n)‖X_i w − y_i‖², so
H_i = X_iᵀX_i/n and b_i = X_iᵀy_i/n.  The global objective is f = Σ_i p_i f_i with p_i the **degrees of the
similarity graph** built from the clients' messages (:mod:`fedrates.solvers.similarity`): the "Adjacency scheme"
that the paper's analysis (Lemma 1) and all its experiments use, so the certified optimum, Γ and S of the instance
are those of the objective the theorems bound.

Construction (exact second moments, so every constant is exact):

* K clusters; cluster c has its own orthonormal basis Q_c (an independent Haar draw per cluster;
  ``hessian=common``: one basis for everybody) and the spectrum λ log-spaced in [μ, L] (λ_max = L simple,
  λ_min = μ);
* client i belongs to cluster c(i) = i mod K (``sizes=equal``) or to contiguous clusters of sizes proportional to
  1, 2, ..., K (``sizes=unequal``, which the clustered presets use: clients of a small cluster have fewer similar
  neighbours, so the graph's degrees p_i spread, 0.10–0.21 on ``buttaci-clustered``); client i has
  Q_i = R_i Q_c, R_i a rotation by ``angle`` degrees in the plane of the top eigenvector and a random orthogonal
  direction (``hessian=common``: R_i = I);
* X_i = Z_i diag(√λ) Q_iᵀ with Z_iᵀZ_i = n I (QR of a Gaussian matrix), so H_i = Q_i diag(λ) Q_iᵀ exactly and the
  uncentered PCA of X_i returns ±(top column of Q_i);
* y_i = X_i w_i + ``noise``·N(0, I), w_i = centre_{c(i)} + ``within``·N(0, I), centre_c ~ ``spread``·N(0, I);
* messages: first PC of X_i (``message=features``) or of [X_i, y_i] (``message=data``, the dataset including its
  labels: with a common Hessian the features' PCs coincide and only the labels separate the clients);
* ``curvature_shift`` s > 0: client Hessians H_i − s t_i I with t_i ∈ [−1, 1], Σ_i p_i t_i = 0 and max |t_i| = 1,
  so f is unchanged in curvature (Σ p_i H_i) while clients with s t_i > μ are nonconvex (for Theorems 2 and 4,
  which need only smoothness and a lower bound of f); the datafit is then an explicit quadratic.

Stochastic gradients are exact gradients plus N(0, (σ²/d) I) noise (E‖ζ‖² = σ², Assumption 2 with equality).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic, SampleLeastSquares
from fedrates.solvers.problems.quadratic import haar_orthogonal, spectrum
from fedrates.solvers.similarity import build_graph, messages

__all__ = ["FAMILY", "build", "exact_constants"]

PARAMETERS = {
    "clients": Param(6, "int", "number of clients C >= 2", low=2),
    "dim": Param(4, "int", "dimension d >= 1", low=1),
    "samples": Param(8, "int", "samples per client n >= dim", low=1),
    "clusters": Param(2, "int", "number of clusters >= 1", low=1),
    "sizes": Param("equal", "choice", "cluster sizes: equal (client i in cluster i mod K) or unequal (proportional "
                   "to 1, 2, ..., K, contiguous)", choices=("equal", "unequal")),
    "hessian": Param("clustered", "choice", "client Hessians: one basis per cluster, or one common Hessian",
                     choices=("clustered", "common")),
    "mu": Param(0.1, "float", "smallest eigenvalue of every client Hessian mu > 0", low=0.0, low_inclusive=False),
    "L": Param(5.0, "float", "largest eigenvalue of every client Hessian L >= mu", low=0.0, low_inclusive=False),
    "angle": Param(5.0, "float", "rotation in degrees of a client's top eigenvector within its cluster >= 0",
                   low=0.0),
    "spread": Param(2.0, "float", "std of the cluster optima >= 0", low=0.0),
    "within": Param(0.3, "float", "std of client optima around their cluster optimum >= 0", low=0.0),
    "noise": Param(0.1, "float", "std of the target noise >= 0", low=0.0),
    "message": Param("features", "choice", "data whose first principal component is the message",
                     choices=("features", "data")),
    "curvature_shift": Param(0.0, "float", "client Hessian shifts s t_i (nonconvex clients when s > mu) >= 0",
                             low=0.0),
    "sigma": Param(0.0, "float", "stochastic gradient noise level sigma >= 0 (E||noise||^2 = sigma^2)", low=0.0),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    # regime (a): common Hessian, heterogeneous optima -- the per-round multipliers are exactly the lemma factors
    "buttaci-common": {"hessian": "common", "message": "data", "clients": 6, "dim": 4, "mu": 0.1, "L": 5.0,
                       "spread": 2.0, "within": 0.5},
    # regime (b): cluster-specific Hessians (the paper's heterogeneous setting in miniature)
    "buttaci-clustered": {"hessian": "clustered", "clients": 6, "dim": 4, "clusters": 2, "sizes": "unequal",
                          "mu": 0.1, "L": 5.0, "angle": 5.0, "spread": 2.0, "within": 0.3},
    # nonconvex clients, strongly convex average (Theorems 2 and 4)
    "buttaci-nonconvex": {"hessian": "clustered", "clients": 6, "dim": 4, "clusters": 2, "sizes": "unequal",
                          "mu": 0.1, "L": 5.0,
                          "angle": 5.0, "spread": 2.0, "within": 0.3, "curvature_shift": 0.5},
}


def _check(p: dict) -> None:
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")
    if p["samples"] < p["dim"]:
        raise InputError(f"parameter samples={p['samples']} is smaller than dim={p['dim']}; expected samples >= dim "
                         "(exact second moments)")
    if p["clusters"] > p["clients"]:
        raise InputError(f"parameter clusters={p['clusters']} exceeds clients={p['clients']}")


def _labels(K: int, G: int, sizes: str) -> np.ndarray:
    """Cluster of every client: i mod G (``equal``), or contiguous blocks with sizes proportional to 1, ..., G
    (largest remainders, every cluster non-empty; ``unequal``)."""
    if sizes == "equal" or G == 1:
        return np.arange(K) % G
    share = (K - G) * np.arange(1, G + 1) / (G * (G + 1) / 2)
    count = 1 + np.floor(share).astype(int)
    order = np.argsort(-(share - np.floor(share)), kind="stable")
    count[order[: K - int(count.sum())]] += 1
    return np.repeat(np.arange(G), count)


def _rotation(rng: np.random.Generator, u: np.ndarray, theta: float) -> np.ndarray:
    """Rotation by ``theta`` radians in the plane of unit u and a random unit vector orthogonal to u."""
    d = u.shape[0]
    if d == 1 or theta == 0.0:
        return np.eye(d)
    v = rng.standard_normal(d)
    v -= (v @ u) * u
    v /= np.linalg.norm(v)
    return (np.eye(d) + np.sin(theta) * (np.outer(v, u) - np.outer(u, v))
            + (np.cos(theta) - 1.0) * (np.outer(u, u) + np.outer(v, v)))


def build(params: dict, preset: str | None = None) -> Problem:
    K, d, n, G = params["clients"], params["dim"], params["samples"], params["clusters"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    lam = spectrum(params["mu"], params["L"], d)
    labels = _labels(K, G, params["sizes"])
    common = params["hessian"] == "common"
    # one independent Haar draw per cluster (a list repeated with * would share one matrix across clusters)
    bases = np.stack([haar_orthogonal(rng, d) for _ in range(1 if common else G)])
    centres = params["spread"] * rng.standard_normal((G, d))
    theta = np.deg2rad(params["angle"])
    X = np.empty((K, n, d))
    optima = np.empty((K, d))
    for i in range(K):
        Qc = bases[0 if common else labels[i]]
        Qi = Qc if common else _rotation(rng, Qc[:, -1], theta) @ Qc
        Z, _ = np.linalg.qr(rng.standard_normal((n, d)))
        X[i] = np.sqrt(n) * Z * np.sqrt(lam) @ Qi.T
        optima[i] = centres[labels[i]] + params["within"] * rng.standard_normal(d)
    y = np.einsum("knd,kd->kn", X, optima) + params["noise"] * rng.standard_normal((K, n))
    data = X if params["message"] == "features" else np.concatenate([X, y[:, :, None]], axis=2)
    graph = build_graph(messages(data))
    p = graph.degrees
    fit: Any = SampleLeastSquares(X=X, y=y)
    shifts = np.zeros(K)
    if params["curvature_shift"] > 0:
        z = rng.standard_normal(K)
        t = z - p @ z
        shifts = params["curvature_shift"] * t / np.max(np.abs(t))
        Q = fit.hessians - shifts[:, None, None] * np.eye(d)
        fit = DenseQuadratic(Q=0.5 * (Q + np.swapaxes(Q, 1, 2)), b=fit.linear_terms.copy(), c=fit.offsets.copy())
    return Problem(
        family="similar_quadratic", preset=preset, params=params, shape=(d,), weights=p, datafit=fit,
        penalty=Zero(), radius=None, sampling="gaussian", noise_std=params["sigma"],
        description=f"least squares with a similarity graph ({params['hessian']} Hessians)",
        extras={"graph": graph, "similarity_weights": graph.weights, "labels": labels, "client_optima": optima,
                "curvature_shifts": shifts, "data": (X, y)},
    )


def exact_constants(problem: Problem) -> dict[str, Any]:
    """Constants of Buttaci & Calafiore on an instance, with the aggregation weights p_i of the problem.

    L = max_i ‖H_i‖₂ and μ = min_i λ_min(H_i) (Assumptions 4–5: every f_i; μ < 0 for nonconvex clients),
    w* = (Σ p_i H_i)⁻¹ Σ p_i b_i and f* = f(w*) in closed form, S = Σ p_i², and Γ = f* − Σ_i p_i min f_i (Def. 3;
    NaN when some f_i is unbounded below).  Also μ_f, L_f of f and the per-client minimisers.
    """
    fit = problem.datafit
    H, b, c = fit.hessians, fit.linear_terms, fit.offsets
    p = problem.weights
    eig = np.linalg.eigvalsh(H)
    Hbar, bbar, cbar = problem.quadratic
    w_star = np.linalg.solve(Hbar, bbar)
    f_star = float(0.5 * w_star @ Hbar @ w_star - bbar @ w_star + cbar)
    convex = bool(np.all(eig[:, 0] > 0))
    if convex:
        client_min = np.linalg.solve(H, b[..., None])[..., 0]
        f_i_star = c - 0.5 * np.einsum("kd,kd->k", b, client_min)
        gamma = float(f_star - p @ f_i_star)
    else:
        client_min, f_i_star, gamma = None, None, float("nan")
    eig_f = np.linalg.eigvalsh(Hbar)
    return {"L": float(np.max(np.abs(eig))), "mu": float(eig[:, 0].min()), "L_f": float(eig_f[-1]),
            "mu_f": float(eig_f[0]), "S": float(p @ p), "Gamma": gamma, "w_star": w_star, "f_star": f_star,
            "client_minimisers": client_min, "client_minima": f_i_star, "convex_clients": convex,
            "sigma2": float(problem.noise_std) ** 2}


FAMILY = Family("similar_quadratic", "least squares with a similarity graph and degree weights (Buttaci & Calafiore)",
                PARAMETERS, PRESETS, build, (_check,))
