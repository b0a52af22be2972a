"""FedProxVR (Dinh, Tran, Nguyen, Bao, Zomaya, Zhou, "Federated Learning with Proximal Stochastic Variance Reduced
Gradient Algorithms", ICPP 2020, Algorithm 1): the shared round of the SVRG, SARAH and plain-SGD local solvers.

Problem (2): min_w F̄(w) = Σ_n (D_n/D) F_n(w), F_n = (1/D_n) Σ_{i∈𝒟_n} f_i (smooth, possibly non-convex).

Round s, every device n (all devices, synchronous; vectorised over replicas and devices), with η = 1/(βL) and
prox(x) = argmin_w (μ/2)‖w − w̄‖² + ‖w − x‖²/(2η) = (x + ημw̄)/(1 + ημ)  ((9)–(10), w̄ = w̄^{(s−1)}):

    w⁽⁰⁾ = w̄,   v⁽⁰⁾ = ∇F_n(w̄),   w⁽¹⁾ = prox(w⁽⁰⁾ − ηv⁽⁰⁾)
    for t = 1..τ−1:  draw I_t (B indices, i.i.d. uniform on 𝒟_n)
        SARAH (8a): v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾) − ∇f_{I_t}(w⁽ᵗ⁻¹⁾) + v⁽ᵗ⁻¹⁾
        SVRG  (8b): v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾) − ∇f_{I_t}(w⁽⁰⁾) + v⁽⁰⁾
        SGD        : v⁽ᵗ⁾ = ∇f_{I_t}(w⁽ᵗ⁾)                       (the FedProx-SGD baseline: same prox, same output)
        w⁽ᵗ⁺¹⁾ = prox(w⁽ᵗ⁾ − ηv⁽ᵗ⁾)
    w_n = w⁽ᵗ'⁾ with t' ~ U{0, …, τ}  (the random output the proof uses in (52); Alg. 1 line 10 misprints w⁽τ⁾)
    server: w̄^{(s)} = Σ_n p_n w_n  (line 12)

Algorithm 1 runs t = 1..τ and also computes w⁽τ⁺¹⁾, which no output rule uses, so the loop stops at τ − 1 (same
outputs, same random numbers for the draws that matter).  ∇f_I = (1/B) Σ_{i∈I} ∇f_i with the *same* I at both
points.  ``output_rule="last"`` returns w⁽τ⁾ instead (the released code's choice; not covered by the analysis).

``gradients="exact"``: every minibatch is the whole device (B = D_n), so all three estimators equal ∇F_n(w⁽ᵗ⁾) and
the local solver is deterministic proximal gradient descent on J_n (the output index t' is still random).

Randomness: per round, device n of replica r draws ``u = g.random((τ − 1)·B + 1)`` from its own stream
(:func:`fedrates.solvers.oracles.make_streams`): the first (τ−1)B give the indices ⌊u·D_n⌋, the last gives
t' = ⌊u·(τ + 1)⌋.  Equal seeds give bit-identical runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, weighted_mean
from fedrates.solvers.oracles import exact_gradients
from fedrates.solvers.problems.finite_sum import FiniteSum, finite_sum, sample_gradients

__all__ = ["FedProxVRBase", "ESTIMATORS", "instance_L"]

ESTIMATORS = ("sarah", "svrg", "sgd")


@cache
def _instance_constants(fingerprint: str, problem: Any) -> tuple[float, float]:
    from fedrates.solvers import fedproxvr_constants

    c = fedproxvr_constants.device_constants(problem)  # per device: defined for an indefinite single device too
    return c.L, c.lam


def instance_L(problem: Any) -> tuple[float, float]:
    """(L of (3), λ of (4)) of a finite-sum problem (cached by fingerprint); softmax losses carry their own L and are
    convex (λ = 0)."""
    fs = finite_sum(problem)
    if fs is not None and not isinstance(fs, FiniteSum):
        return fs.L, 0.0
    return _instance_constants(problem.fingerprint, problem)


def full_gradients(problem: Any, fs: Any, W: np.ndarray, clients: np.ndarray) -> np.ndarray:
    """∇F_n at per-(replica, device) points (the structure's own full gradients when it has them)."""
    if fs is not None and not isinstance(fs, FiniteSum):
        return fs.full_gradients(W, clients)
    return exact_gradients(problem, W, clients)


def client_streams(ctx: RoundContext) -> Any:
    """The per-client random streams of the run (``streams[r][k]``) and whether gradients are exact.

    The round context exposes only minibatch gradients at one point; the SVRG/SARAH estimators need the same sample
    at two points, so they draw their indices from the same per-client streams the oracle uses."""
    return ctx.client_rngs, ctx.exact


@dataclass(frozen=True, kw_only=True)
class FedProxVRBase(Algorithm):
    """FedProxVR round (module docstring); subclasses set ``estimator``."""

    estimator: ClassVar[str] = "sarah"

    tau: int = hyper(10, "local iterations tau >= 1 per round (Alg. 1)", low=1)
    beta: float = hyper(10.0, "step parameter beta > 3, eta = 1/(beta L) (Lemma 1)", low=3.0, strict=True)
    mu: float = hyper(10.0, "proximal weight mu > lambda of h_s (7)", low=0.0, strict=True)
    L: float = hyper(0.0, "smoothness L of (3) for eta = 1/(beta L); 0 = the instance's exact L", low=0.0)
    batch: int = hyper(1, "minibatch size B >= 1 (Alg. 1: B = 1)", low=1)
    output_rule: str = hyper("random", "local output: random (t' ~ U{0..tau}, analysis) or last (w^(tau))",
                        choices=("random", "last"))

    def __post_init__(self) -> None:
        super().__post_init__()
        # τ is the paper's name for the local steps: an explicit local_steps (e.g. --local-steps) sets τ when τ is
        # left at its default; afterwards local_steps mirrors τ
        if self.local_steps != 1 and self.tau == 10:
            object.__setattr__(self, "tau", self.local_steps)
        object.__setattr__(self, "local_steps", self.tau)

    # ---- helpers --------------------------------------------------------------------------------------------
    def smoothness(self, problem: Any) -> float:
        return self.L if self.L > 0 else instance_L(problem)[0]

    def step_size(self, problem: Any) -> float:
        """η = 1/(βL)."""
        return 1.0 / (self.beta * self.smoothness(problem))

    def supports(self, problem: Any) -> str | None:
        if finite_sum(problem) is None:
            return (f"{self.name} needs per-sample losses (finite sums); problem {problem.name} has none "
                    "(use dinh_ls, dinh_nc or lasso)")
        if problem.penalty.name != "zero" and problem.penalty.lam > 0:
            return f"{self.name} handles smooth objectives only; problem has an {problem.penalty.name} penalty"
        if problem.radius is not None:
            return f"{self.name} is unconstrained; problem has a ball of radius {problem.radius:g}"
        lam = instance_L(problem)[1]
        if not self.mu > lam:
            return (f"hyperparameter mu={self.mu:g} of {self.name} is out of range; expected mu > lambda = {lam:.6g} "
                    "(weak-convexity modulus of the instance, (4))")
        return None

    # ---- protocol -------------------------------------------------------------------------------------------
    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        return {"x": np.array(w0, dtype=float)}

    def direction(self, fs: Any, W: np.ndarray, Wprev: np.ndarray, W0: np.ndarray, v: np.ndarray, v0: np.ndarray,
                  clients: np.ndarray, idx: np.ndarray | None, problem: Any) -> np.ndarray:
        """The estimator v⁽ᵗ⁾ (8a)/(8b)/SGD at W = w⁽ᵗ⁾; ``idx`` None means exact gradients."""
        if idx is None:
            return full_gradients(problem, fs, W, clients)
        if self.estimator == "sarah":
            g, g_prev = sample_gradients(fs, W, clients, idx, Wprev)
            return g - g_prev + v
        if self.estimator == "svrg":
            g, g_snap = sample_gradients(fs, W, clients, idx, W0)
            return g - g_snap + v0
        return sample_gradients(fs, W, clients, idx)

    def prox(self, Z: np.ndarray, anchor: np.ndarray, eta: float) -> np.ndarray:
        """prox_{ηh_s}(Z) = (Z + ημ w̄)/(1 + ημ) (10)."""
        return (Z + (eta * self.mu) * anchor) / (1.0 + eta * self.mu)

    def local_output(self, iterates_out: np.ndarray, pick: np.ndarray, t: int, W: np.ndarray) -> np.ndarray:
        """Keep w⁽ᵗ⁾ where the drawn output index equals t."""
        return np.where((pick == t)[..., None], W, iterates_out)

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        fs = finite_sum(problem)
        streams, exact = client_streams(ctx)
        clients = ctx.clients
        R, m = clients.shape
        eta = self.step_size(problem)
        tau, B, n = self.tau, self.batch, fs.samples
        x = problem.flat(state["x"])
        W0 = np.broadcast_to(x[:, None, :], (R, m, problem.dim)).copy()
        anchor = W0
        # draws: (τ−1)B indices and one output index per (replica, device), from the device's own stream
        u = np.empty((R, m, (tau - 1) * B + 1))
        for r in range(R):
            for j, k in enumerate(clients[r]):
                streams[r][k].random(out=u[r, j])
        # indices uniform on each device's own D_n samples (padded structures hold different sizes per device)
        sizes = fs.sizes[clients][..., None] if hasattr(fs, "sizes") else n
        idx_all = np.minimum((u[..., :-1] * sizes).astype(np.intp), sizes - 1).reshape(R, m, tau - 1, B)
        pick = np.minimum((u[..., -1] * (tau + 1)).astype(np.intp), tau) if self.output_rule == "random" else \
            np.full((R, m), tau)
        v0 = full_gradients(problem, fs, W0, clients)
        out = self.local_output(W0.copy(), pick, 0, W0)
        Wprev, W, v = W0, self.prox(W0 - eta * v0, anchor, eta), v0
        out = self.local_output(out, pick, 1, W)
        for t in range(1, tau):
            idx = None if exact else idx_all[:, :, t - 1]
            v = self.direction(fs, W, Wprev, W0, v, v0, clients, idx, problem)
            Wprev, W = W, self.prox(W - eta * v, anchor, eta)
            out = self.local_output(out, pick, t + 1, W)
        self._account(ctx, m)
        return {"x": problem.unflat(weighted_mean(ctx.weights, out))}

    def _account(self, ctx: RoundContext, m: int) -> None:
        """Trace counters: τ local iterations; one full gradient plus (2 or 1) minibatch gradients per step."""
        per_step = 1 if self.estimator == "sgd" else 2
        ctx.count(self.tau, m * (1 + per_step * (self.tau - 1)))

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]


class _Streams:
    """The per-client streams and counters a FedProxVR round reads from its context (as the runner's oracle)."""

    def __init__(self, client_rngs: list, exact: bool) -> None:
        self.client_rngs = client_rngs
        self.exact = exact
        self.steps = 0
        self.evaluations = 0


def run_states(alg: FedProxVRBase, problem: Any, rounds: int, seeds: list[int], w0: np.ndarray,
               gradients: str = "stochastic") -> np.ndarray:
    """Server iterates w̄^{(0..rounds)} of ``alg`` for every seed as one replica batch: (rounds + 1, R, dim).

    For finite sums without a quadratic form (the softmax losses of :mod:`fedrates.solvers.problems.dinh_synthetic`),
    where the generic runner's metrics do not apply.  Same streams as :func:`fedrates.solvers.algorithms.run_batch`
    (``make_streams(seed, K)``), so the iterates are bit-identical to its runs; a diverging replica keeps running
    (its values become inf/nan; the caller measures divergence)."""
    from fedrates.solvers.algorithms.base import RoundContext
    from fedrates.solvers.errors import InputError
    from fedrates.solvers.oracles import make_streams_many

    reason = alg.supports(problem)
    if reason:
        raise InputError(reason)
    K, R = problem.clients, len(seeds)
    oracle = _Streams([st.clients for st in make_streams_many(seeds, K)], exact=(gradients == "exact"))
    clients = np.broadcast_to(np.arange(K), (R, K))
    weights = np.broadcast_to(problem.weights, (R, K))
    state = alg.init(problem, np.broadcast_to(np.asarray(w0, dtype=float), (R,) + problem.shape).copy())
    xs = [problem.flat(state["x"]).copy()]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        for s in range(rounds):
            state = alg.round(state, problem, RoundContext(s, clients, weights, oracle))
            xs.append(problem.flat(state["x"]).copy())
    return np.stack(xs)
