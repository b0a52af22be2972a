"""Fast-FedDA (Bao, Crawshaw, Luo, Liu, ICML 2022, Algorithm 1, §2.1, Theorem 2.1).

Objective φ(w) = Σ_k π_k f_k(w) + h(w) over 𝒲 = {‖w‖ ≤ ρ} (or ℝ^shape), f_k μ-strongly convex and L-smooth.

Weights α_t = (t + a)², A_t = Σ_{i≤t} α_i, γ = 2μa³, and the proximal operator (§2.1)

    Prox_t(z) = argmin_{w∈𝒲} ⟨w, z − γw₀⟩ + (μA_t/2 + γ)‖w‖²/2 + A_t h(w)
              = prox_{(A_t/c) h, 𝒲}((γw₀ − z)/c),   c = μA_t/2 + γ   (exact; :meth:`Problem.prox`).

Round r covers steps t = rE, …, rE + E − 1.  Every participating client k starts from the server state
(g, w̃, w) of the last synchronisation and, at each step t,

    g_t^k = g_{t−1}^k + α_t ∇f_k(w_t^k; ξ_t^k)                                   (Alg. 1 line 7)
    w_{t+1}^k = Prox_t(g_t^k − μw̃_t^k/2),  w̃_{t+1}^k = w̃_t^k + α_{t+1}w_{t+1}^k     (line 9; not at the last step)

and the server forms g = Σ_k π_k g^k, w̃ = Σ_k π_k w̃^k at t* = rE + E − 1, w_{(r+1)E} = Prox_{t*}(g − μw̃/2),
w̃ ← w̃ + α_{(r+1)E} w_{(r+1)E} (lines 15–16), and every client restarts from (g, w̃, w) (line 17).

**Returned point** (Theorem 2.1 as resolved, proof in App. B.2): the α-weighted average of the *virtual*
sequence w_{t+1} = Prox_t(ḡ_t − μ\\bar{w̃}_t/2) (eq. (12), with ḡ_t, \\bar{w̃}_t the π-averages over clients) over
every step t = 0..T, T = (R+1)E − 1 for R+1 rounds:  ŵ = (1/A_T) Σ_t α_t w_{t+1}.  At synchronisation steps the
virtual point is the server point; in between no real server can form it (the paper says so in §3.3) — the
simulator does.  Before the first round the output is w₀.

**Deviations from the printed paper** (each checked against the paper text):

* I-1: Theorem 2.1's estimator prints Prox(Σπ_k(g_t^k **+** μw̃_t^k/2)); Alg. 1, (12), (13) and the proof use
  "−".  We use "−".  ``estimator_sign="plus"`` builds the printed estimator so that verification can show that it
  does not converge (the algorithm's own iterates always use "−").
* I-2: the estimator prints Prox_{t+1}; (12) and the telescoping proof use Prox_t, paired with weight α_t.
* I-3: "t_R = (R+1)E = T" contradicts t_r = rE; we take T = (R+1)E − 1 so that w_{T+1} is the last server point.
* I-4: App. B.2 writes a ≥ 2L/μ; its key inequality μA_t + 2γ − 2Lα_t ≥ μt³/3 + μa³ fails then (a = 7, t = 26),
  so the default is the theorem's a = 4L/μ.
* I-5: w̃₀^k is never initialised; w̃₀ = α₀w₀ (the definition w̃_t = Σ_{i≤t} α_i w_i), g_{−1} = 0.
* I-6: line 17 resets g and w̃ only; we also reset w^k to the server point, as (13)/(14) require.
* I-7: line 15's Σ_{k=1}^{k} read as Σ_{k=1}^{K}.
* With partial participation (not analysed) the averages run over the participants with renormalised π.

Defaults and why: ``mu`` = 0 means the problem's exact μ = min_k λ_min(Q_k) (Assumption 1); ``a`` = 0 means
4L/μ with the problem's exact L = max_k λ_max(Q_k) and the method's μ — the smallest value Theorem 2.1 allows, so
the fastest admissible weights; ``gamma`` = 0 means 2μa³.  ``alpha_power`` (default 2) exists only to build
deliberately broken variants (α_t = (t + a)^p) for soundness tests of the verification layer; p ≠ 2 is not the
analysed algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _fused
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.algorithms.fedda import composite_support
from fedrates.solvers.errors import InputError

__all__ = ["FastFedDA", "exact_curvature", "resolve_weights"]

_CURVATURE: dict[str, tuple[float, float]] = {}


def exact_curvature(problem: Any) -> tuple[float, float]:
    """(L, μ) = (max_k λ_max(Q_k), min_k λ_min(Q_k)) of the client Hessians (Bao et al. Assumption 1), cached in
    memory and on disk beside the reference (:func:`fedrates.solvers.constants.curvature`)."""
    key = problem.fingerprint
    if key not in _CURVATURE:
        from fedrates.solvers.constants import curvature

        _CURVATURE[key] = curvature(problem)
    return _CURVATURE[key]


def resolve_weights(name: str, problem: Any, mu: float, a: float, gamma: float) -> tuple[float, float, float]:
    """The (μ, a, γ) actually used: 0 means the defaults μ = exact μ, a = 4L/μ, γ = 2μa³ (see module docstring)."""
    L, mu_exact = exact_curvature(problem)
    mu = mu or mu_exact
    if mu <= 0:
        raise InputError(f"{name} needs mu > 0 but the problem's local losses are not strongly convex "
                         f"(min eigenvalue {mu_exact:g}); pass mu=VALUE")
    a = a or 4 * L / mu
    gamma = gamma or 2 * mu * a**3
    return mu, a, gamma


def weight_conditions(name: str, problem: Any, mu: float, a: float, gamma: float) -> list[str]:
    """Conditions a ≥ 4L/μ, γ ≥ 2μa³ and μ ≤ exact μ of Theorems 2.1/3.1 that the values violate."""
    L, mu_exact = exact_curvature(problem)
    out = []
    if mu > mu_exact * (1 + 1e-12):
        out.append(f"{name}: mu={mu:g} exceeds the problem's strong convexity {mu_exact:g} (Assumption 1)")
    if a < 4 * L / mu * (1 - 1e-12):
        out.append(f"{name}: a={a:g} < 4L/mu = {4 * L / mu:g} (Theorem condition a >= 4L/mu)")
    if abs(gamma - 2 * mu * a**3) > 1e-12 * gamma:
        out.append(f"{name}: gamma={gamma:g} differs from 2*mu*a^3 = {2 * mu * a**3:g}")
    return out


@register
@dataclass(frozen=True, kw_only=True)
class FastFedDA(Algorithm):
    """Fast federated dual averaging for strongly convex composite problems; see module docstring."""

    name = "fast_fedda"
    summary = "fast federated dual averaging, (t+a)^2 weights, virtual weighted average (Bao et al. 2022, Alg. 1)"
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    mu: float = hyper(0.0, "strong-convexity parameter mu > 0 of the method (0 = the problem's exact mu)", low=0.0)
    a: float = hyper(0.0, "weight offset a in alpha_t = (t+a)^2 (0 = 4L/mu)", low=0.0)
    gamma: float = hyper(0.0, "regularisation gamma (0 = 2 mu a^3)", low=0.0)
    alpha_power: float = hyper(2.0, "exponent p of alpha_t = (t+a)^p; only p=2 is analysed (soundness tests)",
                               low=0.0)
    estimator_sign: str = hyper("minus", "sign of mu*w~/2 in the output estimator: minus (Alg. 1) or plus "
                                "(Theorem 2.1 as printed, erratum I-1)", choices=("minus", "plus"))

    def supports(self, problem: Any) -> str | None:
        return composite_support(self.name, problem)

    def check(self, problem: Any) -> list[str]:
        mu, a, gamma = resolve_weights(self.name, problem, self.mu, self.a, self.gamma)
        out = weight_conditions(self.name, problem, mu, a, gamma)
        if self.alpha_power != 2:
            out.append(f"{self.name}: alpha_power={self.alpha_power:g} is not the analysed weight (t+a)^2")
        if self.estimator_sign != "minus":
            out.append(f"{self.name}: estimator_sign=plus is the printed (erroneous) estimator of Theorem 2.1")
        if problem.radius is None:
            out.append(f"{self.name}: Theorem 2.1 assumes a ball domain; the problem is unconstrained")
        return out

    def resolved_hyperparameters(self, problem: Any) -> dict[str, Any]:
        """The hyperparameters with the defaults 0 of μ, a, γ replaced by the values used on ``problem``."""
        mu, a, gamma = resolve_weights(self.name, problem, self.mu, self.a, self.gamma)
        return {**self.hyperparameters(), "mu": mu, "a": a, "gamma": gamma}

    def check_rounds(self, problem: Any, rounds: int) -> list[str]:
        """Theorem 2.1's condition T ≥ a on the run's T = rounds × local_steps (warned only when it fails)."""
        _, a, _ = resolve_weights(self.name, problem, self.mu, self.a, self.gamma)
        T = int(rounds) * int(self.local_steps)
        if T < a:
            return [f"{self.name}: Theorem 2.1 needs T >= a = {a:g} local steps per client; this run has "
                    f"T = rounds x local_steps = {T}"]
        return []

    def _alpha(self, t: int, a: float) -> float:
        return float((t + a) ** self.alpha_power)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        mu, a, gamma = resolve_weights(self.name, problem, self.mu, self.a, self.gamma)
        w0 = np.array(w0, dtype=float)
        return {"w0": w0, "w": w0.copy(), "g": np.zeros_like(w0), "wt": self._alpha(0, a) * w0,
                "num": np.zeros_like(w0), "A": 0.0, "t": 0, "mu": mu, "a": a, "gamma": gamma}

    @staticmethod
    def prox_t(problem: Any, z: np.ndarray, w0: np.ndarray, A: float, mu: float, gamma: float) -> np.ndarray:
        """Prox_t(z) with A = A_t (z of shape (R, m, *shape) or (R, *shape); w0 (R, *shape))."""
        c = mu * A / 2 + gamma
        w0 = w0.reshape(w0.shape[:1] + (1,) * (z.ndim - w0.ndim) + w0.shape[1:])
        return problem.prox((gamma * w0 - z) / c, A / c)

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        mu, a, gamma = state["mu"], state["a"], state["gamma"]
        w0, t, A, num = state["w0"], state["t"], state["A"], state["num"].copy()
        fused = self._fused_round(state, problem, ctx, num)
        if fused is not None:
            return fused
        R, m = ctx.clients.shape
        shape = (R, m) + problem.shape
        G = np.broadcast_to(state["g"][:, None], shape).copy()
        WT = np.broadcast_to(state["wt"][:, None], shape).copy()
        W = np.broadcast_to(state["w"][:, None], shape).copy()
        sign = 1.0 if self.estimator_sign == "plus" else -1.0
        E = self.local_steps
        for e in range(E):  # step by step (the reference of the fused kernel)
            alpha = self._alpha(t, a)
            A += alpha
            G += alpha * ctx.gradients(W)
            gbar, wtbar = weighted_mean(ctx.weights, G), weighted_mean(ctx.weights, WT)
            server = self.prox_t(problem, gbar - 0.5 * mu * wtbar, w0, A, mu, gamma)  # virtual w_{t+1} (12)
            virtual = server if sign < 0 else self.prox_t(problem, gbar + 0.5 * mu * wtbar, w0, A, mu, gamma)
            num += alpha * virtual
            if e < E - 1:
                W = self.prox_t(problem, G - 0.5 * mu * WT, w0, A, mu, gamma)
                WT = WT + self._alpha(t + 1, a) * W
            t += 1
        wt_new = wtbar + self._alpha(t, a) * server
        return dict(state, w=server, g=gbar, wt=wt_new, num=num, A=A, t=t)

    def _fused_round(self, state: dict[str, Any], problem: Any, ctx: RoundContext,
                     num: np.ndarray) -> dict[str, Any] | None:
        """The round of :meth:`round` with the clients' local steps in one fused kernel (:mod:`._fused`) and the
        E virtual points in one vectorised prox; None when it must go step by step (``prox_t`` replaced, or see
        ``_fused``).  Weights α come from :meth:`_alpha`, so a variant that changes them is honoured."""
        if type(self).prox_t is not FastFedDA.prox_t:
            return None
        lam = _fused.prox_lambda(problem)
        if lam is None:
            return None
        mu, a, gamma = state["mu"], state["a"], state["gamma"]
        w0, t, A = state["w0"], state["t"], state["A"]
        E = self.local_steps
        alphas = [self._alpha(t + e, a) for e in range(E + 1)]
        As = []
        for e in range(E):
            A += alphas[e]
            As.append(A)
        cs = [mu * A_e / 2 + gamma for A_e in As]
        kappas = [A_e / c * lam if lam >= 0 else -1.0 for A_e, c in zip(As, cs, strict=True)]
        res = _fused.local_fast_da(problem, ctx, state["g"], state["wt"], state["w"], w0, alphas,
                                   [1.0 / c for c in cs], kappas, 0.5 * mu, gamma)
        if res is None:
            return None
        gbar, wtbar = res
        # the virtual points w_{t+1} = Prox_t(ḡ_t − μw̃̄_t/2) of the E steps (12), one prox over (R, E) rows
        if self.estimator_sign != "plus":  # compiled, the same values as the numpy expressions below
            server = _fused.fast_da_server(problem, gbar, wtbar, w0, cs, kappas, 0.5 * mu, gamma, alphas[:E], num)
        else:
            R = gbar.shape[0]
            c_arr = np.array(cs)[None, :, None]
            steps = np.broadcast_to(np.array([A_e / c for A_e, c in zip(As, cs, strict=True)]), (R, E))
            server = problem.prox((gamma * w0[:, None] - (gbar - 0.5 * mu * wtbar)) / c_arr, steps)
            virtual = problem.prox((gamma * w0[:, None] - (gbar + 0.5 * mu * wtbar)) / c_arr, steps)
            for e in range(E):
                num += alphas[e] * virtual[:, e]
        last = server[:, E - 1]
        wt_new = wtbar[:, E - 1] + self._alpha(t + E, a) * last
        return dict(state, w=last, g=gbar[:, E - 1], wt=wt_new, num=num, A=As[-1], t=t + E)

    def output(self, state: dict[str, Any]) -> np.ndarray:
        if state["A"] == 0:
            return state["w0"]
        return state["num"] / state["A"]
