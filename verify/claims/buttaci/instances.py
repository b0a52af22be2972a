"""Instrumented runs and exact predictions for the claims of Buttaci & Calafiore (Buttaci & Calafiore, "Aiding Global
Convergence in Federated Learning via Local Perturbation and Mutual Similarity Information").

:func:`instrumented_run` drives an algorithm through its protocol (``init``/``round``/``output``) with full
participation and records every gradient query: the query points (for PFL the perturbed iterates w̃_{t,k}^i, for
FedAvg/FedProx the local iterates w_{t,k}^i) and the returned (stochastic) gradients, together with the server model
after every round.  From these records the paper's *virtual* averages are formed by its own definitions, independently
of the algorithm's internal state:

* PFL, rule (3):     w_{t,k}^i = w̄_{t,0} − γ Σ_{j<k} g_i(w̃_{t,j}^i),   w̄_{t,k} = Σ_i p_i w_{t,k}^i;
* FedProx/FedAvg:    the query points are w_{t,k}^i themselves, w̄_{t,k} = Σ_i p_i w_{t,k}^i.

:func:`mode_factors` gives the exact per-round spectral maps on common-Hessian quadratics (Lemmas A.3/B.3 of the
paper evaluated at every eigenvalue): ē_{t+1} = ψ_α(H) ē_t (FedProx) and ē_{t+1} = φ_β(H) ē_t (PFL, by Lemma 1).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache
from fedrates.solvers.errors import InputError

__all__ = ["Run", "instrumented_run", "instance", "psi", "phi", "mode_factors"]


@observed_cache
def _instance(params_json: str) -> tuple[Any, Any, dict]:
    from fedrates.solvers import problems, reference
    from fedrates.solvers.problems.similar_quadratic import exact_constants

    params = json.loads(params_json)
    preset = params.pop("preset", None)
    problem = problems.make("similar_quadratic", preset, **params)
    consts = exact_constants(problem)
    # the closed-form optimum (linear solve) is certified by the same certificate as any reference
    consts["reference_gap"] = float(reference.certify(problem, consts["w_star"]))
    ref = reference.solve(problem)
    return problem, ref, consts


def instance(params: dict) -> tuple[Any, Any, dict]:
    """(problem, certified reference, exact constants) of a similar_quadratic instance (cached per process)."""
    return _instance(json.dumps(params, sort_keys=True))


@dataclass
class Run:
    """Records of one instrumented run with R replicas, T rounds, E local steps, K clients, dimension d."""

    x: np.ndarray  # (T+1, R, d) server models w̄_{t,0}
    queries: np.ndarray  # (T, E, R, K, d) gradient query points
    grads: np.ndarray  # (T, E, R, K, d) returned gradients
    finite: bool

    @property
    def rounds(self) -> int:
        return int(self.queries.shape[0])


class _Recorder:
    def __init__(self, oracle: Any) -> None:
        self.oracle = oracle
        self.points: list[np.ndarray] = []
        self.grads: list[np.ndarray] = []

    def __call__(self, W: np.ndarray, clients: np.ndarray | None = None) -> np.ndarray:
        G = self.oracle(W, clients)
        self.points.append(np.array(W, dtype=float))
        self.grads.append(np.array(G, dtype=float))
        return G


def instrumented_run(alg: Any, problem: Any, rounds: int, seeds: list[int], w0: np.ndarray,
                     exact: bool, steps: Any = None) -> Run:
    """Run ``alg`` for ``rounds`` rounds with full participation, recording every gradient query (see module).
    ``steps`` (optional, one per round) gives the round's step size γ_t (the algorithm's ``step`` otherwise)."""
    import dataclasses

    from fedrates.solvers.algorithms.base import RoundContext
    from fedrates.solvers.oracles import GradientOracle, make_streams_many

    reason = alg.supports(problem)
    if reason:
        raise InputError(reason)
    K, R, E = problem.clients, len(seeds), alg.local_steps
    streams = make_streams_many(seeds, K)
    oracle = GradientOracle(problem, [st.clients for st in streams], alg.batch, exact=exact)
    recorder = _Recorder(oracle)
    clients = np.broadcast_to(np.arange(K), (R, K))
    weights = np.broadcast_to(problem.weights, (R, K))
    W0 = np.broadcast_to(np.asarray(w0, dtype=float), (R,) + problem.shape).copy()
    state = alg.init(problem, W0)
    xs = [np.array(alg.output(state))]
    finite = True
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(rounds):
            oracle.begin_round(clients, E)
            alg_t = alg if steps is None else dataclasses.replace(alg, step=float(steps[t]))
            state = alg_t.round(state, problem, RoundContext(t, clients, weights, recorder))
            xs.append(np.array(alg.output(state)))
            if not np.all(np.isfinite(xs[-1])) or np.max(np.abs(xs[-1])) > 1e150:
                finite = False
                break
    T = len(xs) - 1
    if len(recorder.points) != T * E:
        raise InputError(f"{alg.name} queried gradients {len(recorder.points)} times in {T} rounds; expected "
                         f"E = {E} queries per round")
    shape = (T, E, R, K, problem.dim)
    return Run(x=np.stack(xs), queries=np.stack(recorder.points).reshape(shape),
               grads=np.stack(recorder.grads).reshape(shape), finite=finite)


#: the misalignment clip of the instances' graphs (identical messages): A_in ≤ −ln(1e-12)
DEF2_CLIP = 1e-12


def def2_graph(problem: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The similarity graph of a ``similar_quadratic`` instance recomputed from its raw data by the paper's own
    definitions, independently of :mod:`fedrates.solvers.similarity`: m_i the top right-singular vector of the
    client's data matrix (X_i, or [X_i, y_i] for ``message=data``) by SVD, sign fixed by its entry of largest
    magnitude; mis(i, n) = (1 − m_iᵀm_n)/2 (Def. 1); [A]_in = −ln max(mis(i, n), clip)·1{i ≠ n} (Def. 2);
    p_in = [A]_in/(𝟏ᵀA𝟏) and p_i = Σ_n p_in (Algorithm 1).  Returns (A, P, p)."""
    X, y = problem.extras["data"]  # the raw data (the datafit of shifted clients is an explicit quadratic)
    data = np.concatenate([X, y[:, :, None]], axis=2) if problem.params.get("message") == "data" else X
    M = np.stack([np.linalg.svd(x, full_matrices=False)[2][0] for x in data])
    lead = M[np.arange(M.shape[0]), np.argmax(np.abs(M), axis=1)]
    M = M * np.sign(lead)[:, None]
    C = M.shape[0]
    A = np.zeros((C, C))
    for i in range(C):
        for n in range(C):
            if i != n:
                A[i, n] = -math.log(max((1.0 - float(M[i] @ M[n])) / 2.0, DEF2_CLIP))
    P = A / A.sum()
    return A, P, P.sum(axis=1)


def local_iterates(run: Run, step: Any) -> np.ndarray:
    """PFL's w_{t,k}^i for k = 0..E (T, E+1, R, K, d) by rule (3): w̄_{t,0} − γ_t Σ_{j<k} g_i(w̃_{t,j}^i); ``step``
    is γ, or one γ_t per round."""
    T, E, R, K, d = run.queries.shape
    base = run.x[:T, None, :, None, :]
    gam = np.broadcast_to(np.asarray(step, dtype=float), (T,))[:, None, None, None, None]
    return np.concatenate([np.broadcast_to(base, (T, 1, R, K, d)), base - gam * np.cumsum(run.grads, axis=1)],
                          axis=1)


def virtual_averages(run: Run, weights: np.ndarray, step: Any, perturbed: bool) -> np.ndarray:
    """w̄_{t,k} = Σ_i p_i w_{t,k}^i for k = 0..E−1: (T, E, R, d).  FedProx/FedAvg (``perturbed`` False): the query
    points are the local iterates; PFL: rule (3) (:func:`local_iterates`)."""
    W = local_iterates(run, step)[:, :-1] if perturbed else run.queries
    return np.einsum("i,tkrid->tkrd", weights, W)


def psi(lam: np.ndarray, alpha: float, gamma: float, E: int) -> np.ndarray:
    """FedProx/FedAvg per-round factor at eigenvalue λ: [α + λ(1 − γ(α + λ))^E]/(α + λ) (Lemma A.3, (24))."""
    lam = np.asarray(lam, dtype=float)
    return (alpha + lam * (1.0 - gamma * (alpha + lam)) ** E) / (alpha + lam)


def phi(lam: np.ndarray, beta: float, gamma: float, E: int) -> np.ndarray:
    """PFL per-round factor at eigenvalue λ: 1 − 1/β + (1/β)(1 − βγλ)^E (Lemma B.3, (123))."""
    lam = np.asarray(lam, dtype=float)
    return 1.0 - 1.0 / beta + (1.0 / beta) * (1.0 - beta * gamma * lam) ** E


def mode_factors(algorithm: str, lam: np.ndarray, gamma: float, E: int, alpha: float = 0.0,
                 beta: float = 1.0) -> np.ndarray:
    """The exact per-round multiplier of each eigen-component of ē = w̄ − w* on a common-Hessian quadratic."""
    if algorithm == "pfl":
        return phi(lam, beta, gamma, E)
    return psi(lam, alpha, gamma, E)


def round_map(problem: Any, algorithm: str, gamma: float, E: int, alpha: float = 0.0,
              beta: float = 1.0, graph: tuple[np.ndarray, np.ndarray] | None = None
              ) -> tuple[np.ndarray, np.ndarray, int]:
    """The affine round map z ↦ J z + c of a deterministic round on a quadratic federation, built from the client
    Hessians H_i, linear terms b_i, weights p_i and similarity weights p_in (not from the algorithm's code).
    ``graph`` = (P, p) replaces the instance's similarity weights and degrees (e.g. by :func:`def2_graph`'s).

    FedProx/FedAvg: z = w̄_{t,0} (d); each local step is w ↦ (I − γ(H_i + αI)) w + γα w̄_{t,0} + γ b_i ((11)).
    PFL: z = (w̄_{t,0}, u_t^1, …, u_t^C) ((C+1)d); each local step is w ↦ (I − γβH_i) w − γ(1−β)H_i u^i + γ b_i
    ((3), (5)), then w̄_{t+1,0} = Σ_i p_i w_{t,E}^i and u_{t+1}^i = Σ_n (p_in/p_i) w_{t,E}^n.
    Returns (J, c, d).
    """
    H, b = problem.datafit.hessians, problem.datafit.linear_terms
    P_sim, p = (np.asarray(problem.extras["similarity_weights"]), problem.weights) if graph is None else graph
    K, d = b.shape
    eye = np.eye(d)
    if algorithm == "pfl":
        A = eye - gamma * beta * H
    else:
        A = eye - gamma * (H + alpha * eye)
    M = np.stack([np.linalg.matrix_power(A[i], E) for i in range(K)])
    N = np.stack([sum(np.linalg.matrix_power(A[i], j) for j in range(E)) for i in range(K)])
    if algorithm != "pfl":
        J = np.einsum("i,ide->de", p, M + gamma * alpha * N)
        c = gamma * np.einsum("i,ide,ie->d", p, N, b)
        return J, c, d
    # w_{t,E}^i = M_i x + B_i u^i + c_i
    B = -gamma * (1 - beta) * np.einsum("ide,ief->idf", N, H)
    ci = gamma * np.einsum("ide,ie->id", N, b)
    Q = P_sim / p[:, None]
    n = (K + 1) * d
    # rows: the next state's blocks (x', u'^1..u'^K) as linear combinations of the K client outputs
    out_rows = np.vstack([p[None], Q])  # (K+1, K)
    J = np.zeros((n, n))
    c = np.zeros(n)
    for r in range(K + 1):
        for i in range(K):
            w = out_rows[r, i]
            if w == 0.0:
                continue
            J[r * d:(r + 1) * d, :d] += w * M[i]
            J[r * d:(r + 1) * d, (i + 1) * d:(i + 2) * d] += w * B[i]
            c[r * d:(r + 1) * d] += w * ci[i]
    return J, c, d


# ---- instances, starting points and a-posteriori constants shared by the claims --------------------------------
#: the common-Hessian instance (exact per-round multipliers, eq. (9), the speedup erratum)
COMMON = {"preset": "buttaci-common"}
#: the cluster-specific instance with messages of (x, y) (Lemma 1, round maps, deviations, the returned point)
LEMMA1_INSTANCE = {"preset": "buttaci-clustered", "message": "data"}

COMMON_REGIME = ("Least squares, C = 6, d = 4, one common Hessian (spectrum log-spaced in [0.1, 5], L/μ = 50), "
                 "client optima in 2 clusters, messages from (x, y), degree weights p_i ∈ [0.009, 0.23]; "
                 "exact gradients, theorem step sizes.")
CLUSTER_REGIME = ("Least squares, C = 6, d = 4, 2 clusters of 2 and 4 clients with independent Haar bases (spectra "
                  "in [0.1, 5], 5° rotations within a cluster; top eigenvectors |cos| ≥ 0.985 within, ≤ 0.63 "
                  "across clusters), degree weights of the similarity graph (0.10–0.21; 0.017–0.24 with messages "
                  "from (x, y)); theorem step sizes.")


def _start(problem: Any, consts: dict, scale: float = 2.0) -> np.ndarray:
    """A fixed initial point w* + scale·u with u a unit vector with a component on every eigen-direction."""
    u = np.random.default_rng(20_040).standard_normal(problem.dim)
    return consts["w_star"] + scale * u / np.linalg.norm(u)


def _gap(problem: Any, consts: dict, X: np.ndarray) -> np.ndarray:
    return np.asarray(problem.smooth_value(X)) - consts["f_star"]


def _g2(problem: Any, run: Run) -> float:
    """A-posteriori G²: max over visited (t, k, i, replica) of ‖∇f_i(query point)‖² + σ² (Assumption 3 at the
    points where gradients are taken: w for FedProx, the perturbed w̃ for PFL)."""
    return float(np.max(_g2_per_replica(problem, run)))


def _g2_per_replica(problem: Any, run: Run) -> np.ndarray:
    """:func:`_g2` of each replica's own visited points, (R,): a seed's value does not depend on the seeds run
    beside it (the claims take the max over all seeds when they judge)."""
    G = problem.client_gradients(run.queries)  # (T, E, R, K, d)
    return np.max(np.sum(G * G, axis=-1), axis=(0, 1, 3)) + float(problem.noise_std) ** 2


def _reach_per_replica(run: Run, centre: np.ndarray, radius: float) -> np.ndarray:
    """max over each replica's visited query points of ‖query − centre‖/radius, (R,)."""
    return np.max(np.linalg.norm(run.queries - centre, axis=-1), axis=(0, 1, 3)) / radius


def _ball_g2(problem: Any, consts: dict, w0: np.ndarray) -> tuple[float, float]:
    """A-priori G² on the ball B(w*, ρ), ρ = ‖w0 − w*‖ + max_i ‖w_i* − w*‖ (local gradient steps with γ ≤ 1/L on
    strongly convex quadratics do not move away from w_i*): G = max_i ‖∇f_i(w*)‖ + L_i ρ, plus σ² (Assumption 3
    computed from the instance, independently of the run; the run is checked to stay inside the ball)."""
    ws = consts["w_star"]
    radius = float(np.linalg.norm(w0 - ws) + np.max(np.linalg.norm(consts["client_minimisers"] - ws, axis=-1)))
    grads = problem.client_gradients(np.broadcast_to(ws, (problem.clients, problem.dim)))
    L_i = np.max(np.abs(np.linalg.eigvalsh(problem.datafit.hessians)), axis=-1)
    G = float(np.max(np.linalg.norm(grads, axis=-1) + L_i * radius))
    return G * G + float(problem.noise_std) ** 2, radius


def _perturb_weights(P: np.ndarray) -> np.ndarray:
    """p_in + D, D symmetric with zero row sums on clients 0–3 (degrees unchanged, p_in ≥ 0)."""
    P = np.array(P, dtype=float)
    delta = 0.5 * min(P[0, 2], P[1, 3])
    D = np.zeros_like(P)
    for (i, j), sign in {(0, 1): 1, (2, 3): 1, (0, 2): -1, (1, 3): -1}.items():
        D[i, j] = D[j, i] = sign * delta
    return P + D
