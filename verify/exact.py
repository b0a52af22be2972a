"""Exact first and second moments of linear federated methods on quadratic federations.

On a quadratic federation f_k(w) = ½wᵀQ_kw − b_kᵀw (+ const) with full participation and no prox (zero penalty, no
ball, or constraints that never bind), every method of Bao et al. without a nonlinear prox is a *random affine
recursion*: one local step maps the client's homogeneous state u = (state, 1) to

    u' = F u + G g,   g = H_ξ (C u) − h_ξ (+ ζ),

where w = Cu is the point the gradient is taken at and (H_ξ, h_ξ, ζ) is the stochastic oracle:

* Gaussian noise (``sampling="gaussian"``): H = Q_k, h = b_k, ζ ~ N(0, (σ²/(dB)) I), so
  E[u'u'ᵀ] = T̄MT̄ᵀ + (σ²/(dB)) G Gᵀ with T̄ = F + G(Q_kC − b_k e_lastᵀ);
* minibatches of B of the client's n samples (``sampling="empirical"``): H = (1/B)Σ_{i∈b} x_ix_iᵀ,
  h = (1/B)Σ_{i∈b} y_ix_i, so T_ξ = F + (1/B)Σ_i N_i V_i with V_i = (Gx_i)(Cᵀx_i − y_ie_last)ᵀ (rank one) and N_i the
  number of times sample i is drawn; E[N_i] = B/n, E[N_iN_j] = B(B−1)/(n(n−1)) (i ≠ j, without replacement) or
  B(B−1)/n² (with replacement), E[N_i²] = B/n (without) or B/n + B(B−1)/n² (with).  Hence
  E[T M Tᵀ] = FMFᵀ + (1/n)(ΣV M Fᵀ + F M ΣVᵀ) + (1/B²)(c₂ ΣV M ΣVᵀ + (E[N_i²] − c₂) Σ_i V_iMV_iᵀ).

The second moment S = E[s sᵀ] of the homogeneous server state s carries the mean in its last column.  A round lifts
s to every client (u_k = Ls), applies E local steps with independent randomness per client, and aggregates
s' = q₀s + Σ_k q_k P u_k (q₀ + Σq_k = 1).  Conditionally on s the clients are independent, so with the round's
mean maps A_k = P T̄_k L and A = q₀I + Σ_k q_kA_k:

    E[s's'ᵀ] = A S Aᵀ + Σ_k q_k² (P Ψ_k(L S Lᵀ) Pᵀ − A_k S A_kᵀ),   Ψ_k = the E-fold second-moment map.

Everything here is written from the papers' pseudo-code in matrix form and shares no code with
:mod:`fedrates.solvers.algorithms`; the exactness claims (:mod:`fedrates.verify.claims.bao.exact`) compare the
algorithms' Monte-Carlo means with these moments.  Cost: O(R·E·K·D³) for state dimension D (a few ms for d ≤ 10).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Oracle", "LinearMethod", "Moments", "moments", "fedavg_like", "fast_fedda", "c_fedda", "mc_fedda",
           "squared_distance", "quadratic_oracle", "sample_oracle"]


# ---- stochastic oracles -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Oracle:
    """The per-client gradient model: Gaussian (Q, b, per-coordinate noise variance) or minibatch (X, y, B).

    ``exact=True`` makes the gradient deterministic (∇f_k exactly)."""

    Q: np.ndarray  # (K, d, d) client Hessians
    b: np.ndarray  # (K, d) linear terms: ∇f_k(w) = Q_k w − b_k
    noise_var: float = 0.0  # Gaussian: variance of each coordinate of ζ (σ²/(dB))
    X: np.ndarray | None = None  # (K, n, d) samples (minibatch oracle)
    y: np.ndarray | None = None  # (K, n)
    batch: int = 1
    replace: bool = False
    exact: bool = False

    @property
    def clients(self) -> int:
        return int(self.Q.shape[0])

    def mean_map(self, k: int, F: np.ndarray, G: np.ndarray, C: np.ndarray) -> np.ndarray:
        """T̄ = F + G(Q_k C − b_k e_lastᵀ)."""
        H = self.Q[k] @ C
        H[:, -1] -= self.b[k]
        return F + G @ H

    def second(self, k: int, F: np.ndarray, G: np.ndarray, C: np.ndarray, M: np.ndarray) -> np.ndarray:
        """E[(Tu)(Tu)ᵀ] for E[uuᵀ] = M (u independent of this step's randomness)."""
        if self.exact or self.X is None:
            T = self.mean_map(k, F, G, C)
            out = T @ M @ T.T
            return out if self.exact else out + self.noise_var * (G @ G.T)
        X, y = self.X[k], self.y[k]
        n, B = X.shape[0], self.batch
        GX = X @ G.T  # (n, D): rows G x_i
        Rv = X @ C  # (n, D): rows r_i = Cᵀx_i − y_i e_last
        Rv[:, -1] -= y
        SV = GX.T @ Rv  # Σ_i V_i with V_i = (G x_i) r_iᵀ
        if self.replace:
            c2, diag = B * (B - 1) / n**2, B / n + B * (B - 1) / n**2
        else:
            c2, diag = (B * (B - 1) / (n * (n - 1)) if n > 1 else 0.0), B / n
        s = np.einsum("id,de,ie->i", Rv, M, Rv)
        inner = (GX * s[:, None]).T @ GX  # Σ_i (r_iᵀMr_i)(Gx_i)(Gx_i)ᵀ = Σ_i V_i M V_iᵀ
        FM = F @ M
        return FM @ F.T + (SV @ FM.T + FM @ SV.T) / n + (c2 * SV @ M @ SV.T + (diag - c2) * inner) / B**2


def quadratic_oracle(problem, batch: int = 1, exact: bool = False) -> Oracle:
    """The oracle of a ``quadratic``-family problem (Gaussian noise E‖ζ‖² = σ²/B), from its Q_k and c_k only."""
    Q = np.asarray(problem.datafit.Q, dtype=float)
    b = np.asarray(problem.datafit.b, dtype=float)
    var = 0.0 if exact else float(problem.noise_std) ** 2 / (problem.dim * batch)
    return Oracle(Q=Q, b=b, noise_var=var, exact=exact)


def sample_oracle(problem, batch: int, replace: bool = False, exact: bool = False) -> Oracle:
    """The minibatch oracle of a sample-based problem: f_k(w) = (1/2n)‖X_kw − y_k‖², from X_k, y_k only (samples held
    implicitly are formed by the family, ``to_sample_least_squares``: the recursion is dense anyway)."""
    fit = problem.datafit
    if getattr(fit, "X", None) is None:
        if not hasattr(fit, "to_sample_least_squares"):
            from fedrates.solvers.errors import InputError

            raise InputError(f"problem {problem.family} has no sample matrix X; the exact minibatch recursion needs "
                             "the samples")
        fit = fit.to_sample_least_squares()
    X, y = np.asarray(fit.X, dtype=float), np.asarray(fit.y, dtype=float)
    n = X.shape[1]
    Q = np.einsum("kni,knj->kij", X, X) / n
    b = np.einsum("kni,kn->ki", X, y) / n
    return Oracle(Q=Q, b=b, X=X, y=y, batch=int(batch), replace=bool(replace), exact=exact)


# ---- methods as affine recursions ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinearMethod:
    """A method as a random affine recursion (module docstring).

    ``step(r, e)`` → (F, G, C) of local step e of round r (homogeneous local coordinates); ``lift``/``project``
    map server ↔ local states; ``weights(q)`` the aggregation (q₀, q_k); ``output(r)`` the (d, D+1) map from the
    server state after r rounds to the returned point; ``init`` the homogeneous initial server state."""

    init: np.ndarray
    lift: np.ndarray
    project: np.ndarray
    step: Callable[[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
    local_steps: int
    server_weight: float  # η_s: s' = (1 − η_s)s + η_s Σ π_k P u_k
    output: Callable[[int], np.ndarray]
    #: other points a wrong implementation could return (name → output map like ``output``): their exact means
    #: give the power of a returned-point check against them
    alternatives: Mapping[str, Callable[[int], np.ndarray]] = field(default_factory=dict)


@dataclass(frozen=True)
class Moments:
    """Mean (R+1, d) and covariance (R+1, d, d) of the returned point after r = 0..R rounds; ``alternatives``
    maps the name of each alternative output of the method to its exact mean (R+1, d)."""

    mean: np.ndarray
    cov: np.ndarray
    alternatives: Mapping[str, np.ndarray] = field(default_factory=dict)


def moments(method: LinearMethod, oracle: Oracle, weights: np.ndarray, rounds: int,
            participating: int | None = None) -> Moments:
    """Exact mean and covariance of the returned point after every round 0..``rounds``.

    ``participating`` = m < K: each round the server samples m of the K clients uniformly without replacement and
    aggregates with the renormalised weights p_k = π_k/Σ_{j∈S}π_j (the runner's client sampling).  Conditionally on
    the sample S the clients are independent, so E[s's'ᵀ] = (1/|𝒮|) Σ_S [A_S S A_Sᵀ + Σ_{k∈S} q_{k,S}²(PΨ_k(LSLᵀ)Pᵀ
    − A_k S A_kᵀ)] with q_{k,S} = η_s p_k and A_S = (1 − η_s)I + Σ_{k∈S} q_{k,S}A_k, averaged over all C(K, m)
    samples (exact; full participation is the single sample S = [K])."""
    weights = np.asarray(weights, dtype=float)
    K = oracle.clients
    m = K if participating is None else int(participating)
    if not 1 <= m <= K:
        raise ValueError(f"participating={m} must be in [1, {K}]")
    samples = list(itertools.combinations(range(K), m))
    s0 = np.asarray(method.init, dtype=float)
    S = np.outer(s0, s0)
    means, covs = [], []
    alts: dict[str, list[np.ndarray]] = {name: [] for name in method.alternatives}

    def record(r: int) -> None:
        O = method.output(r)
        m2 = O @ S @ O.T
        mu = O @ S[:, -1]
        means.append(mu)
        covs.append(0.5 * (m2 + m2.T) - np.outer(mu, mu))
        for name, out in method.alternatives.items():
            alts[name].append(out(r) @ S[:, -1])

    record(0)
    L, P, eta_s = method.lift, method.project, method.server_weight
    for r in range(rounds):
        steps = [method.step(r, e) for e in range(method.local_steps)]
        Aks, second = [], []
        for k in range(K):
            Tk = np.eye(L.shape[0])
            M = L @ S @ L.T
            for F, G, C in steps:
                Tk = oracle.mean_map(k, F, G, C) @ Tk
                M = oracle.second(k, F, G, C, M)
            Ak = P @ Tk @ L
            Aks.append(Ak)
            second.append(P @ M @ P.T - Ak @ S @ Ak.T)
        S_new = np.zeros_like(S)
        for sample in samples:
            total = float(sum(weights[k] for k in sample))
            A = (1.0 - eta_s) * np.eye(S.shape[0])
            extra = np.zeros_like(S)
            for k in sample:
                q = eta_s * weights[k] / total
                A = A + q * Aks[k]
                extra += q * q * second[k]
            S_new += A @ S @ A.T + extra
        S = S_new / len(samples)
        S = 0.5 * (S + S.T)
        record(r + 1)
    return Moments(np.array(means), np.array(covs), {k: np.array(v) for k, v in alts.items()})


def squared_distance(m: Moments, point: np.ndarray, gaussian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """E‖w_r − point‖² = ‖m_r − point‖² + tr Σ_r per round, and (Gaussian iterates only) its exact standard
    deviation √(2 tr Σ² + 4δᵀΣδ) (for non-Gaussian iterates None: the check uses the sample deviation)."""
    delta = m.mean - np.asarray(point, dtype=float)[None]
    expected = np.einsum("rd,rd->r", delta, delta) + np.trace(m.cov, axis1=1, axis2=2)
    if not gaussian:
        return expected, None
    var = 2 * np.einsum("rij,rji->r", m.cov, m.cov) + 4 * np.einsum("ri,rij,rj->r", delta, m.cov, delta)
    return expected, np.sqrt(np.maximum(var, 0.0))


# ---- builders from the pseudo-code --------------------------------------------------------------------------------
def _blocks(n: int, d: int) -> tuple[int, Callable[[int], slice]]:
    return n * d + 1, (lambda i: slice(i * d, (i + 1) * d))


def fedavg_like(d: int, *, step: float, local_steps: int, server_step: float = 1.0, mu_prox: float = 0.0,
                w0: np.ndarray | None = None) -> LinearMethod:
    """FedAvg / FedProx / (smooth, unconstrained) FedDA and FedMiD: local state (w, x, 1), server state (x, 1).

    w ← w − η(g(w) + μ_p(w − x)) for E steps from w = x;  x' = (1 − η_s)x + η_s Σ_k π_k w_k.  (FedDA without a prox
    is this recursion on the dual state z = w; FedMiD without a penalty is FedAvg.)"""
    D, blk = _blocks(2, d)
    I = np.eye(d)
    lift = np.zeros((D, d + 1))
    lift[blk(0), :d] = I
    lift[blk(1), :d] = I
    lift[-1, -1] = 1
    project = np.zeros((d + 1, D))
    project[:d, blk(0)] = I
    project[-1, -1] = 1
    F = np.eye(D)
    F[blk(0), blk(0)] = (1 - step * mu_prox) * I
    F[blk(0), blk(1)] = step * mu_prox * I
    G = np.zeros((D, d))
    G[blk(0)] = -step * I
    C = np.zeros((d, D))
    C[:, blk(0)] = I
    init = np.zeros(d + 1)
    init[:d] = 0.0 if w0 is None else w0
    init[-1] = 1
    O = np.zeros((d, d + 1))
    O[:, :d] = I
    return LinearMethod(init=init, lift=lift, project=project, step=lambda r, e: (F, G, C),
                        local_steps=local_steps, server_weight=server_step, output=lambda r: O)


def fast_fedda(d: int, *, mu: float, a: float, gamma: float, local_steps: int,
               w0: np.ndarray | None = None) -> LinearMethod:
    """Fast-FedDA (Bao et al. Alg. 1) without penalty or ball; state (g, w̃, w, num, 1).

    Step t (α_t = (t + a)², A_t = Σ_{i≤t} α_i, c_t = μA_t/2 + γ):  g ← g + α_t∇f_k(w);
    w ← (γw₀ − g + μw̃/2)/c_t  (Prox_t without penalty);  w̃ ← w̃ + α_{t+1}w;  num ← num + α_t w.  Every quantity is
    affine and Σπ_k = 1, so the server's averages of (12) and line 15 are the averages of the clients' states.
    Returned point num/A_T (w₀ before the first step)."""
    E = int(local_steps)
    D, blk = _blocks(4, d)
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float)
    I = np.eye(d)
    ig, iw, iwt, inum = blk(0), blk(2), blk(1), blk(3)

    def alpha(t: int) -> float:
        return (t + a) ** 2

    def A(t: int) -> float:  # Σ_{i≤t} α_i
        return float(sum(alpha(i) for i in range(t + 1)))

    def step(r: int, e: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = r * E + e
        c = mu * A(t) / 2 + gamma
        # N: after g has been updated, set w, then w̃ and num from the new w
        Nw = np.zeros((d, D))
        Nw[:, ig] = -I / c
        Nw[:, iwt] = mu / 2 * I / c
        Nw[:, -1] = gamma * w0 / c
        N = np.eye(D)
        N[iw] = Nw
        N[iwt] = N[iwt] + alpha(t + 1) * Nw
        N[inum] = N[inum] + alpha(t) * Nw
        Gin = np.zeros((D, d))
        Gin[ig] = alpha(t) * I
        C = np.zeros((d, D))
        C[:, iw] = I
        return N, N @ Gin, C

    init = np.zeros(D)
    init[iwt] = alpha(0) * w0
    init[iw] = w0
    init[-1] = 1

    def output(r: int) -> np.ndarray:
        O = np.zeros((d, D))
        if r == 0:
            O[:, -1] = w0
        else:
            O[:, inum] = I / A(r * E - 1)
        return O

    def last(r: int) -> np.ndarray:  # the last server point w_{T+1}
        O = np.zeros((d, D))
        O[:, iw] = I
        return O

    def shifted(r: int) -> np.ndarray:  # Σ_{t=0}^{T} α_t w_t / A_T = (w̃_{T+1} − α_{T+1}w_{T+1})/A_T: w₀ in, w_{T+1} out
        O = np.zeros((d, D))
        if r == 0:
            O[:, -1] = w0
        else:
            T = r * E - 1
            O[:, iwt] = I / A(T)
            O[:, iw] = -alpha(T + 1) * I / A(T)
        return O

    return LinearMethod(init=init, lift=np.eye(D), project=np.eye(D), step=step, local_steps=E, server_weight=1.0,
                        output=output, alternatives={"last server point": last,
                                                     "weights paired with w_t (index shifted by one)": shifted})


def c_fedda(d: int, *, mu: float, a: float, gamma: float, local_steps: int,
            w0: np.ndarray | None = None) -> LinearMethod:
    """C-FedDA (Bao et al. Alg. 2) with a constraint that never binds and no penalty; state (g, w̃, w̄, num, 1).

    Round r (α_r = (r + a)², A_r = Σ_{j≤r} α_j, c = μA_r/2 + γ), CProx_r(z) = (γEw₀ − z)/(Ec):
    every step g ← g + α_r∇f_k(w); w ← CProx_r(g − μEw̃_r/2) (w̃_r fixed within the round); after the last step
    w̃ ← w̃ + α_{r+1}w, num ← num + α_r w (the server's averages are the clients' averages: all maps are affine).
    Returned point num/A_R."""
    E = int(local_steps)
    D, blk = _blocks(4, d)
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float)
    I = np.eye(d)
    ig, iwt, iw, inum = blk(0), blk(1), blk(2), blk(3)

    def alpha(r: int) -> float:
        return (r + a) ** 2

    def A(r: int) -> float:
        return float(sum(alpha(j) for j in range(r + 1)))

    def step(r: int, e: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = mu * A(r) / 2 + gamma
        Nw = np.zeros((d, D))
        Nw[:, ig] = -I / (E * c)
        Nw[:, iwt] = mu * E / 2 * I / (E * c)
        Nw[:, -1] = gamma * E * w0 / (E * c)
        N = np.eye(D)
        N[iw] = Nw
        if e == E - 1:
            N[iwt] = N[iwt] + alpha(r + 1) * Nw
            N[inum] = N[inum] + alpha(r) * Nw
        Gin = np.zeros((D, d))
        Gin[ig] = alpha(r) * I
        C = np.zeros((d, D))
        C[:, iw] = I
        return N, N @ Gin, C

    init = np.zeros(D)
    init[iwt] = alpha(0) * w0
    init[iw] = w0
    init[-1] = 1

    def output(r: int) -> np.ndarray:
        O = np.zeros((d, D))
        if r == 0:
            O[:, -1] = w0
        else:
            O[:, inum] = I / A(r - 1)
        return O

    def last(r: int) -> np.ndarray:  # the last server point w̄_{R+1}
        O = np.zeros((d, D))
        O[:, iw] = I
        return O

    def shifted(r: int) -> np.ndarray:  # Σ_{j≤R} α_j w̄_j / A_R = (w̃_{R+1} − α_{R+1}w̄_{R+1})/A_R: centre in
        O = np.zeros((d, D))
        if r == 0:
            O[:, -1] = w0
        else:
            O[:, iwt] = I / A(r - 1)
            O[:, iw] = -alpha(r) * I / A(r - 1)
        return O

    return LinearMethod(init=init, lift=np.eye(D), project=np.eye(D), step=step, local_steps=E, server_weight=1.0,
                        output=output, alternatives={"last server point": last,
                                                     "weights paired with w̄_r (index shifted by one)": shifted})


def mc_fedda(d: int, *, mu: float, a: float, gamma: float, local_steps: int, stage_rounds: int, stages: int,
             w0: np.ndarray | None = None) -> LinearMethod:
    """MC-FedDA (Bao et al. Alg. 3) with constraints that never bind and a negligible penalty: ``stages`` C-FedDA
    stages (:func:`c_fedda`) of ``stage_rounds`` rounds each (the last runs to the end), stage m + 1 centred at
    stage m's output ŵ_{m+1} = num/A with fresh α, A, g, w̃.  State (g, w̃, w̄, num, centre, 1); the restart is the
    linear map g ← 0, centre ← num/A_{R_m − 1}, w̄ ← centre, w̃ ← α₀·centre, num ← 0, applied before the first
    gradient of the new stage.  Returned point: the current stage's output (its centre before its first round)."""
    E, Rs, M = int(local_steps), int(stage_rounds), int(stages)
    D, blk = _blocks(5, d)
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, dtype=float)
    I = np.eye(d)
    ig, iwt, iw, inum, ic = blk(0), blk(1), blk(2), blk(3), blk(4)

    def alpha(r: int) -> float:
        return (r + a) ** 2

    def A(r: int) -> float:
        return float(sum(alpha(j) for j in range(r + 1)))

    def stage_of(r: int) -> tuple[int, int]:  # (stage, round within the stage) of global round r
        m = min(r // Rs, M - 1)
        return m, r - m * Rs

    restart = np.eye(D)
    for blk_ in (ig, iwt, iw, inum, ic):
        restart[blk_] = 0.0
    restart[ic, inum] = I / A(Rs - 1)
    restart[iw, inum] = I / A(Rs - 1)
    restart[iwt, inum] = alpha(0) * I / A(Rs - 1)

    def step(r: int, e: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        m, rr = stage_of(r)
        c = mu * A(rr) / 2 + gamma
        Nw = np.zeros((d, D))
        Nw[:, ig] = -I / (E * c)
        Nw[:, iwt] = mu * E / 2 * I / (E * c)
        Nw[:, ic] = gamma * I / c
        N = np.eye(D)
        N[iw] = Nw
        if e == E - 1:
            N[iwt] = N[iwt] + alpha(rr + 1) * Nw
            N[inum] = N[inum] + alpha(rr) * Nw
        Gin = np.zeros((D, d))
        Gin[ig] = alpha(rr) * I
        C = np.zeros((d, D))
        C[:, iw] = I
        if e == 0 and rr == 0 and m > 0:
            return N @ restart, N @ Gin, C @ restart
        return N, N @ Gin, C

    init = np.zeros(D)
    init[iwt] = alpha(0) * w0
    init[iw] = w0
    init[ic] = w0
    init[-1] = 1

    def output(r: int) -> np.ndarray:
        O = np.zeros((d, D))
        if r == 0:
            O[:, ic] = I
        else:
            _, rr = stage_of(r - 1)
            O[:, inum] = I / A(rr)
        return O

    def last(r: int) -> np.ndarray:
        O = np.zeros((d, D))
        O[:, iw] = I
        return O

    def first_stage(r: int) -> np.ndarray:  # the output of stage 0 (no restart)
        O = np.zeros((d, D))
        if r <= Rs:
            return output(r)
        O[:, ic] = I  # the centre of the current stage: the previous stage's output
        return O

    return LinearMethod(init=init, lift=np.eye(D), project=np.eye(D), step=step, local_steps=E, server_weight=1.0,
                        output=output, alternatives={"last server point": last,
                                                     "the current stage's centre (previous stage output)":
                                                         first_stage})


def fixed_point(method: LinearMethod, oracle: Oracle, weights: np.ndarray) -> np.ndarray:
    """The fixed point of a time-invariant method's mean round map with exact gradients (e.g. FedAvg's biased
    limit for E > 1): s = A s, s_last = 1, solved as a linear system; returns the output point (d,)."""
    K = oracle.clients
    L, P = method.lift, method.project
    A = (1.0 - method.server_weight) * np.eye(L.shape[1])
    for k in range(K):
        Tk = np.eye(L.shape[0])
        for e in range(method.local_steps):
            Tk = oracle.mean_map(k, *method.step(0, e)) @ Tk
        A = A + method.server_weight * weights[k] * (P @ Tk @ L)
    n = A.shape[0] - 1
    s = np.linalg.solve(np.eye(n) - A[:n, :n], A[:n, -1])
    return method.output(1) @ np.append(s, 1.0)
