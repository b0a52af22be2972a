"""Instances of Das et al.'s claims and the closed forms computed on them, independently of the algorithms' code.

Every claim runs the algorithm under test (``dp_fedavg_clip``, ``dp_normfedavg`` or ``fedavg``) with exact local
gradients on federated quadratics f_i(w) = ½(w − c_i)ᵀQ_i(w − c_i) (so f_i* = 0 and Δ_i* = f_i(w*) exactly), and
compares what it measures with predictions computed *here* from the closed form of E local GD steps on a quadratic:

    u_i(w) = P_i (w − c_i),   P_i = Σ_{τ<E} Q_i(I − ηQ_i)^τ = V_i diag((1 − (1 − ηλ)^E)/η) V_iᵀ.

This module holds the :class:`Instance` (exact constants, memoised per parameter set), the presets of the claims
(``TIGHT``, ``HETERO``, ``ALIGNED``, the Figure 1 recipes), the closed forms (client updates, clip and norm maps, the
exact moment recursions without clipping, Proposition 1's Ĉ), the noise calibration by the PLD accountant, and the
runner :func:`trajectory` with which every claim runs the algorithm.  Readings of the paper used throughout: σ is the
std of the server-averaged noise (Alg. 1 line 10–12), u is the per-unit-step update (line 9), and the random output
is uniform on {w_0, …, w_{K−1}} (line 13, read after the loop).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fedrates.solvers.certify import observed_cache

if TYPE_CHECKING:
    from fedrates.verify.claims.base import Claim

__all__ = ["ALIGNED", "FIG_PAPER", "HETERO", "TIGHT", "Instance", "calibrated", "calibrated_rho", "clip_ref",
           "config_sigma", "exact_no_clip_moments", "exact_poisson_moments", "instance", "norm_ref", "trajectory",
           "update_matrices", "updates"]


# ---- instances with exact constants -------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Instance:
    """A federated quadratic with its exact pieces: Q (n, d, d), centres c (n, d), eigen-decompositions, the
    certified optimum w* (reference), f* and Δ_i* = f_i(w*) (f_i* = 0), L = max_i λ_max(Q_i)."""

    problem: Any
    reference: Any
    Q: np.ndarray
    c: np.ndarray
    lam: np.ndarray
    V: np.ndarray
    w_star: np.ndarray
    f_star: float
    Qbar: np.ndarray
    Delta: np.ndarray
    L: float

    @property
    def n(self) -> int:
        return int(self.Q.shape[0])

    @property
    def d(self) -> int:
        return int(self.Q.shape[1])

    def client_values(self, W: np.ndarray) -> np.ndarray:
        """f_i(w) for W (..., d) -> (..., n)."""
        D = W[..., None, :] - self.c
        return 0.5 * np.einsum("...ni,nij,...nj->...n", D, self.Q, D)

    def client_grads(self, W: np.ndarray) -> np.ndarray:
        """∇f_i(w) for W (..., d) -> (..., n, d)."""
        return np.einsum("nij,...nj->...ni", self.Q, W[..., None, :] - self.c)

    def gap(self, W: np.ndarray) -> np.ndarray:
        """f(w) − f* = ½(w − w*)ᵀQ̄(w − w*) (exact for a quadratic with minimiser w*)."""
        D = W - self.w_star
        return 0.5 * np.einsum("...i,ij,...j->...", D, self.Qbar, D)

    @property
    def reference_gap(self) -> float:
        return float(self.reference.gap)


@observed_cache
def _instance(params_json: str) -> Instance:
    from fedrates.solvers import problems, reference

    params = json.loads(params_json)
    preset = params.pop("preset", None)
    problem = problems.make("quadratic", preset, **params)
    ref = reference.solve(problem)
    Q = np.asarray(problem.datafit.Q, dtype=float)
    c = np.asarray(problem.extras["centres"], dtype=float)
    lam, V = np.linalg.eigh(Q)
    lam = np.maximum(lam, 0.0)
    w = np.asarray(ref.w, dtype=float).reshape(-1)
    weights = np.asarray(problem.weights, dtype=float)
    Qbar = np.einsum("n,nij->ij", weights, Q)
    inst = Instance(
        problem=problem,
        reference=ref,
        Q=Q,
        c=c,
        lam=lam,
        V=V,
        w_star=w,
        f_star=float(ref.value),
        Qbar=Qbar,
        Delta=np.zeros(0),
        L=float(lam[:, -1].max()),
    )
    return dataclasses.replace(inst, Delta=inst.client_values(w))


def instance(params: dict) -> Instance:
    """The (cached) :class:`Instance` of the quadratic family with ``params`` (optional ``preset`` key)."""
    return _instance(json.dumps(params, sort_keys=True))


def update_matrices(inst: Instance, eta: float, E: int) -> np.ndarray:
    """P_i = Σ_{τ<E} Q_i(I − ηQ_i)^τ = V diag((1 − (1 − ηλ)^E)/η) Vᵀ, so that u_i(w) = P_i(w − c_i): (n, d, d)."""
    s = (1.0 - (1.0 - eta * inst.lam) ** E) / eta
    return np.einsum("nij,nj,nkj->nik", inst.V, s, inst.V)


def updates(inst: Instance, P: np.ndarray, W: np.ndarray) -> np.ndarray:
    """u_i(w) for W (..., d) -> (..., n, d)."""
    return np.einsum("nij,...nj->...ni", P, W[..., None, :] - inst.c)


def clip_ref(U: np.ndarray, C: float) -> np.ndarray:
    """clip(u, C) (eq. 4), written independently of the algorithm module."""
    nrm = np.linalg.norm(U, axis=-1, keepdims=True)
    return U * np.minimum(1.0, C / np.maximum(nrm, 1e-300))


def norm_ref(U: np.ndarray, C: float) -> np.ndarray:
    """norm(u, C) = Cu/‖u‖ (eq. 12); a zero update is sent as zero (fedrates' definition)."""
    nrm = np.linalg.norm(U, axis=-1, keepdims=True)
    return np.where(nrm > 0, C * U / np.maximum(nrm, 1e-300), 0.0)


# ---- running the algorithm under test ----------------------------------------------------------------------------
def _make(claim: Claim, name: str, **hyper: Any) -> Any:
    from fedrates.solvers import algorithms

    override = claim.algorithm_override
    if override is not None and name == override.name:
        known = {f.name for f in dataclasses.fields(override)}
        return dataclasses.replace(override, **{k: v for k, v in hyper.items() if k in known})
    return algorithms.make(name, **hyper)


def trajectory(
    alg: Any, inst: Instance, rounds: int, seeds: list[int], w0: np.ndarray, keep_updates: bool = False,
    output: bool = False,
) -> dict[str, np.ndarray]:
    """Run ``alg`` with exact gradients; return the iterates X (S, K+1, d) (w_0..w_K), with ``keep_updates`` the
    algorithm's own client updates U (S, K, n, d) and aggregates G (S, K, d) = (1/r)Σ_{i∈S_k}g_k^(i), and with
    ``output`` the point w (S, d) the algorithm returns after K rounds (line 13)."""
    from fedrates.solvers.algorithms import run_batch

    S = len(seeds)
    X = np.empty((S, rounds + 1, inst.d))
    X[:, 0] = w0
    U = np.empty((S, rounds, inst.n, inst.d)) if keep_updates else None
    G = np.empty((S, rounds, inst.d)) if keep_updates else None
    returned: dict[str, np.ndarray] = {}

    def grab(r: int, state: Any) -> None:
        X[:, r] = state["x"]
        if keep_updates:
            U[:, r - 1] = state["u"]
            G[:, r - 1] = state["g_mean"]
        if output and r == rounds:
            returned["w"] = np.array(alg.output(state), dtype=float)

    trace = run_batch(
        alg,
        inst.problem,
        rounds,
        seeds=seeds,
        gradients="exact",
        w0=w0,
        reference=inst.reference,
        record_every=rounds,
        callback=grab,
    )
    out = {"X": X, "diverged": np.asarray(trace.diverged)}
    if keep_updates:
        out["U"], out["G"] = U, G
    out.update(returned)
    return out


def local_basis(inst: Instance, eta: float, E: int) -> tuple[np.ndarray, np.ndarray]:
    """(B (n, d, m), s (n, m)) with P_i = B_i diag(s_i) B_iᵀ: the eigenvectors of Q_i with eigenvalue > 1e-12·L
    (m = the largest such rank; padding columns get s = 0) and s = (1 − (1 − ηλ)^E)/η.  The dropped eigenvalues
    (≤ 1e-12·L, the numerical zeros of rank-deficient Q_i) change u by at most a relative 1e-12·E·L·η-free amount."""
    keep = inst.lam > 1e-12 * inst.L
    m = max(int(keep.sum(axis=1).max()), 1)
    lam = inst.lam[:, -m:]
    B = np.ascontiguousarray(inst.V[:, :, -m:])
    s = np.where(lam > 1e-12 * inst.L, -np.expm1(E * np.log1p(-eta * lam)) / eta, 0.0)
    return B, s


def closed_form_local(alg: Any, inst: Instance) -> Any:
    """``alg`` (its own class: transform, noise, aggregation, server step and output unchanged) with the local
    phase — E exact GD steps from w_k — replaced by its closed form u_i = P_i(w_k − c_i) in low rank, so that
    paper-size runs (n = 100, d = 200, E = 20, K = 500) take seconds.  Claims that use it check that it agrees with
    the algorithm's own local phase (:func:`local_phase_errors`): a class whose local phase differs fails there."""
    B, s = local_basis(inst, alg.step, alg.local_steps)
    n, d, m = B.shape
    Bt = np.ascontiguousarray(np.swapaxes(B, 1, 2))  # (n, m, d)
    B_all = np.ascontiguousarray(np.transpose(B, (1, 0, 2)).reshape(d, n * m))  # [B_1 … B_n]: one product for all
    cB = np.einsum("nd,ndm->nm", inst.c, B)  # c_iᵀB_i
    base = type(alg)

    @dataclass(frozen=True, kw_only=True)
    class ClosedFormLocal(base):  # type: ignore[misc, valid-type]
        def client_updates(self, x: np.ndarray, problem: Any, ctx: Any) -> np.ndarray:
            y = (x @ B_all).reshape(len(x), n, m) - cB  # (R, n, m): B_iᵀ(x − c_i), every client in one product
            y *= s
            return np.swapaxes(np.swapaxes(y, 0, 1) @ Bt, 0, 1)  # (R, n, d): B_i diag(s_i) B_iᵀ(x − c_i)

    return ClosedFormLocal(**{f.name: getattr(alg, f.name) for f in dataclasses.fields(alg)})


def local_phase_errors(alg: Any, fast: Any, inst: Instance, seeds: Sequence[int], w0: np.ndarray) -> np.ndarray:
    """Per seed, max relative difference of w_1 between ``alg`` (its own E local steps) and ``fast`` (closed form),
    one round from ``w0`` with the same seed (hence the same noise): (len(seeds),)."""
    a = trajectory(alg, inst, 1, list(seeds), w0)["X"][:, 1]
    b = trajectory(fast, inst, 1, list(seeds), w0)["X"][:, 1]
    a, b = a.reshape(len(seeds), -1), b.reshape(len(seeds), -1)
    return np.max(np.abs(a - b), axis=1) / (1.0 + np.max(np.abs(a), axis=1))


# ---- instances used by the claims -----------------------------------------------------------------------------
#: heterogeneous, full-rank client Hessians with spectra exactly in [0.2, 1] (L = 1): small Δ* so that the tight
#: regime Ĉ ≥ 4√(L maxΔ*) is reachable with clipping still active when w_0 is far from w*
TIGHT = {"structure": "random", "clients": 10, "dim": 8, "mu": 0.2, "L": 1.0, "spread": 0.05, "seed": 3}
#: larger heterogeneity (spread 1) for the exactness claims
HETERO = {"structure": "random", "clients": 10, "dim": 8, "mu": 0.2, "L": 1.0, "spread": 1.0, "seed": 4}


def _start(inst: Instance, offset: float, seed: int = 11) -> np.ndarray:
    """w_0 = w* + offset·v with v a fixed unit vector (the same for every seed and algorithm)."""
    v = np.random.default_rng(seed).standard_normal(inst.d)
    return inst.w_star + offset * v / np.linalg.norm(v)


#: all clients share one minimiser (c_i = c): far from it the client updates are nearly aligned, the case where
#: step (23) fails the most
ALIGNED = {"structure": "realisable", "clients": 10, "dim": 6, "mu": 0.5, "L": 1.0, "spread": 1.0, "seed": 5}


# ---- Figure 1 (§5.3) ----------------------------------------------------------------------------------------------
#: reduced §5.3 recipe for the quick/standard profiles: same construction (Q_i = A_iA_iᵀ of rank d/10, c_i ~ N(0, I)),
#: 20 clients in d = 40; factor_std scaled by √(200/40) so that the client spectra have the preset's scale
FIG_REDUCED = {
    "structure": "factors",
    "clients": 20,
    "dim": 40,
    "inner": 4,
    "factor_std": 0.05 * math.sqrt(5.0),
    "spread": 1.0,
    "seed": 0,
}
FIG_PAPER = {"preset": "das-quadratic", "seed": 0}


@observed_cache
def _light_constants(params_json: str) -> dict[str, float]:
    from fedrates.solvers import problems

    params = json.loads(params_json)
    preset = params.pop("preset", None)
    pr = problems.make("quadratic", preset, **params)
    Q = np.asarray(pr.datafit.Q, dtype=float)
    c = np.asarray(pr.extras["centres"], dtype=float)
    wts = np.asarray(pr.weights, dtype=float)
    Qbar, bbar = np.einsum("n,nij->ij", wts, Q), np.einsum("n,nij,nj->i", wts, Q, c)
    w = np.linalg.solve(Qbar, bbar)  # Q̄ ≻ 0 on these instances: the unique minimiser in closed form
    D = w - c
    grads = np.einsum("nij,nj->ni", Q, D)
    return {
        "L": float(np.linalg.eigvalsh(Q)[:, -1].max()),
        "Delta_max": float(np.max(0.5 * np.einsum("ni,ni->n", D, grads))),
        "mean_grad": float(np.mean(np.linalg.norm(grads, axis=1))),
    }


def light_constants(params: dict) -> dict[str, float]:
    """L, max_i Δ_i* and mean_i‖∇f_i(w*)‖ of a quadratic instance from the closed-form minimiser (no certificate:
    used only for the reported clip threshold and the C scale of reduced instances)."""
    return _light_constants(json.dumps(params, sort_keys=True))


#: the paper's C values (E = 20) on its own instance
PAPER_C = (40.0, 50.0, 100.0)
#: the quick profile runs the reduced recipe; standard and full run the paper's instance (n = 100, d = 200, K = 500)
FIG_INSTANCES = {"quick": FIG_REDUCED, "standard": FIG_PAPER, "full": FIG_PAPER}
FIG_ROUNDS = {"quick": 100, "standard": 500, "full": 500}
#: largest relative difference of w_1 allowed between the algorithm's own local phase and its closed form
LOCAL_PHASE_LIMIT = 1e-9


# ---- closed forms ------------------------------------------------------------------------------------------------
def exact_no_clip_moments(
    inst: Instance, eta: float, beta: float, E: int, sigma: float, rounds: int, w0: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(E f(w_k) − f*, sd of f(w_k) − f*) for k = 0..K of Algorithm 1 without clipping, full participation:
    w_{k+1} = w_k − β(P̄w_k − p̄) − βξ_k, ξ_k ~ N(0, σ²I), P̄ = (1/n)ΣP_i, p̄ = (1/n)ΣP_ic_i (equal weights).
    For w ~ N(m, Σ): E = ½eᵀQ̄e + ½tr(Q̄Σ), Var = eᵀQ̄ΣQ̄e + ½tr((Q̄Σ)²), e = m − w*."""
    P = update_matrices(inst, eta, E)
    weights = np.asarray(inst.problem.weights, dtype=float)
    Pbar = np.einsum("n,nij->ij", weights, P)
    pbar = np.einsum("n,nij,nj->i", weights, P, inst.c)
    M = np.eye(inst.d) - beta * Pbar
    m, Sig = np.array(w0, dtype=float), np.zeros((inst.d, inst.d))
    mean, sd = np.empty(rounds + 1), np.empty(rounds + 1)
    for k in range(rounds + 1):
        e = m - inst.w_star
        QS = inst.Qbar @ Sig
        mean[k] = 0.5 * e @ inst.Qbar @ e + 0.5 * np.trace(QS)
        sd[k] = math.sqrt(max(e @ inst.Qbar @ Sig @ inst.Qbar @ e + 0.5 * np.trace(QS @ QS), 0.0))
        m = M @ m + beta * pbar
        Sig = M @ Sig @ M.T + (beta * sigma) ** 2 * np.eye(inst.d)
    return mean, sd


def exact_poisson_moments(inst: Any, eta: float, beta: float, E: int, sigma: float, rate: float, rounds: int,
                          w0: np.ndarray) -> np.ndarray:
    """E f(w_k) − f* for k = 0..K of Algorithm 1 without clipping under Poisson sampling (rate p, r = pn):
    w_{k+1} = w_k − β(1/r)Σ_{i∈S}(A_iw_k − b_i + ζ_i), A_i = P_i, b_i = P_ic_i.  With m = E w, Σ = Cov w:
    m' = m − β(Ām − b̄),  Σ' = MΣMᵀ + β²(p(1 − p)/r²)Σ_i E[(A_iw − b_i)(A_iw − b_i)ᵀ] + β²σ²I,  M = I − βĀ,
    E[(A_iw − b_i)(A_iw − b_i)ᵀ] = A_iΣA_iᵀ + (A_im − b_i)(A_im − b_i)ᵀ;  E f − f* = ½eᵀQ̄e + ½tr(Q̄Σ), e = m − w*."""
    P = update_matrices(inst, eta, E)
    n, d = inst.n, inst.d
    b = np.einsum("nij,nj->ni", P, inst.c)
    Pbar, bbar = P.mean(axis=0), b.mean(axis=0)
    r = rate * n
    M = np.eye(d) - beta * Pbar
    m, Sig = np.array(w0, dtype=float), np.zeros((d, d))
    out = np.empty(rounds + 1)
    for k in range(rounds + 1):
        e = m - inst.w_star
        out[k] = 0.5 * e @ inst.Qbar @ e + 0.5 * np.trace(inst.Qbar @ Sig)
        res = np.einsum("nij,j->ni", P, m) - b  # (n, d)
        samp = np.einsum("nij,jk,nlk->il", P, Sig, P) + res.T @ res
        Sig = M @ Sig @ M.T + beta**2 * (rate * (1 - rate) / r**2) * samp + (beta * sigma) ** 2 * np.eye(d)
        m = M @ m + beta * bbar
    return out


def grad_norms(inst: Instance, W: np.ndarray) -> np.ndarray:
    """‖∇f_i(w)‖ for W (..., d) -> (..., n) (closed form, independent of the algorithm)."""
    return np.linalg.norm(inst.client_grads(W), axis=-1)


def lambda_plus(inst: Instance) -> float:
    """λ of Assumption 1(i) for quadratics: min_i of the smallest nonzero eigenvalue of Q_i (relative cut 1e-12·L)."""
    return float(np.min(np.where(inst.lam > 1e-12 * inst.L, inst.lam, np.inf)))


def g_zero(inst: Instance, w0: np.ndarray, factor: float) -> float:
    """The Lipschitz constant G used on a quadratic (not globally Lipschitz): ``factor`` × the largest client
    gradient norm at w_0 and at w*; the claims check that every visited w_k stays within it."""
    return factor * float(max(grad_norms(inst, w0).max(), grad_norms(inst, inst.w_star).max()))


def prop1_chat(G: float, E: int, rho: float, lam: float, L: float) -> float:
    """Ĉ = G(1 − 11(E − 1)ρλ²/(64L²)) (Proposition 1)."""
    return G * (1.0 - 11.0 * (E - 1) * rho * lam**2 / (64.0 * L**2))


# ---- noise calibrated by the PLD accountant ------------------------------------------------------------------------
#: δ of the calibrated noise of the sampling claims
DELTA = 1e-5


def calibrated(eps: float, rounds: int, clip: float, clients: int, rate: float) -> float:
    """σ (std of the server-averaged noise) for which K rounds at Poisson rate p are (ε, 1e-5)-DP at client level
    (add/remove, sum sensitivity C) by the PLD accountant: σ = zC/r."""
    from fedrates.solvers import privacy as P

    return P.calibrated_sigma(eps, DELTA, rounds, clip, clients, rate * clients, accountant="pld")


def config_sigma(cfg: dict, clients: int, rounds: int) -> float:
    """σ of a claim configuration: ``cfg["sigma"]`` when given, else :func:`calibrated` at ``cfg["eps"]`` with the
    configuration's clip C, K = ``rounds`` and Poisson rate ``cfg.get("rate", 1)`` (client level, add/remove)."""
    if "sigma" in cfg:
        return float(cfg["sigma"])
    return calibrated(cfg["eps"], int(rounds), cfg["C"], clients, cfg.get("rate", 1.0))


def calibrated_rho(eps: float, clients: int, dim: int) -> float:
    """The q-free ρ = √d σ/(C√K) of Theorems 2–4 whose noise σ = Cρ√(K/d) is client-level (ε, 1e-5)-DP at full
    participation for *every* K (add/remove, sum sensitivity C): ρ = √d z₁/n with z₁ the PLD-calibrated multiplier
    of one round.  K rounds then have multiplier z = nσ/C = z₁√K, and K unsampled Gaussian compositions with
    multiplier z₁√K are exactly one Gaussian mechanism with multiplier z₁ (μ-GDP with μ = √K/z = 1/z₁; Dong, Roth &
    Su 2019, Cor. 3.3), so the privacy does not depend on K; the claims re-check ε at the realised K by PLD."""
    from fedrates.solvers import privacy as P

    z1 = P.noise_multiplier_for(eps, DELTA, 1.0, 1, accountant="pld")
    return math.sqrt(dim) * z1 / clients


def privacy_text(eps: float, rate: float, rounds: int) -> str:
    """How the noise of :func:`calibrated` was set, for a claim's message."""
    return f"noise calibrated to (eps, delta) = ({eps:g}, {DELTA:g}) by PLD, add/remove, K = {rounds}, rate {rate:g}"
