"""C-FedDA and MC-FedDA (Bao, Crawshaw, Luo, Liu, ICML 2022, Algorithms 2 and 3, §3.3–3.4, Theorems 3.1–3.2).

Objective φ(w) = Σ_k π_k f_k(w) + λR(w) over 𝒲 = {‖w‖ ≤ ρ}, R = ℓ1, nuclear, or (zero penalty) the Euclidean
norm used only for the constraint.

**C-FedDA (Algorithm 2).**  Per-*round* weights α_r = (r + a)², A_r = Σ_{j≤r} α_j, γ = 2μa³, and

    CProx_r(z) = argmin_{w∈𝒲, R(w−w₀)≤ε₀} ⟨w, z − γEw₀⟩ + (μA_r/2 + γ)E‖w‖²/2 + A_rEλR(w)        (§3.3)

computed exactly by :func:`fedrates.solvers.cprox.cprox` (reduced form v = (γEw₀ − z)/(Ec), κ = A_rλ/c, c = μA_r/2 + γ).
Round r: every participating client starts at the server point w̄_r with the server's cumulative gradient g and,
for t = rE, …, rE + E − 1,

    g^k ← g^k + α_r ∇f_k(w^k; ξ)            (line 7, round weight α_r)
    w^k ← CProx_r(g^k − μE w̃_r/2)           (line 9 as in §3.3's text, not at the last step)

then the server sets g = Σ_k π_k g^k, w̄_{r+1} = CProx_r(g − μE w̃_r/2), w̃_{r+1} = w̃_r + α_{r+1} w̄_{r+1}.

**Returned point** (Theorem 3.1): ŵ = (1/A_R) Σ_{r=0}^{R} α_r w̄_{r+1} — server points only, so computable in a
real federation.  Before the first round: w₀.

**MC-FedDA (Algorithm 3).**  Stages m = 0..M−1 with λ_m = max(2^{−m}λ₀, λ_opt), ε_m = 108Ψ²λ_m/μ, each a fresh
C-FedDA run (fresh α, A, g, w̃) centred at the previous stage's output ŵ_m (ŵ₀ = w₀), ŵ_{m+1} = C-FedDA(ŵ_m, ...).
λ_opt is the problem's own λ; λ₀ = 2^{M−1}λ_opt by default so that M = log₂(λ₀/λ_opt) + 1 (Alg. 3), or λ₀ is
given and M = ⌈log₂(λ₀/λ_opt)⌉ + 1.  Ψ (Definition 1) defaults to the ground truth's: √s with s = ‖w*‖₀ for ℓ1,
√r* with r* = rank(W*) for the nuclear norm (the paper's §3.5 value; Negahban et al.'s M̄ would give √(2r*),
I-26), 1 for the Euclidean norm.  Stage m runs ``stage_rounds`` rounds (the last stage runs until the run ends);
all stages use the same E.  Returned point: the current stage's C-FedDA output, i.e. ŵ_M once the last stage
has started.

**Deviations from the printed paper** (checked against the text):

* I-9: line 9 writes w_t^k = CProx_r(g_t^k …); §3.3's text has w_{t+1}^k.
* I-10: the clients' start point in a round is unstated; we use w̄_r (the authors' code; consistent with 𝓛(w̄_r)
  in (37)).
* I-11: line 2 sets w̃₀ = w₀; CProx_r is the minimiser of (17) only with w̃₀ = α₀w₀, which we use.
* I-12: the proof of Theorem 3.1 writes γ = μa³, which breaks μA_r + 2γ − 2(L+μ)α_r ≥ μr³/3 + 2μa³ at r = 0;
  Theorem 3.1 states γ = 2μa³, which we use.
* I-16: stages are m = 0..M−1 and λ_{M−1} = λ_opt (the text says λ_M = λ_opt).
* The authors' code approximates CProx by "soft-threshold then project", which is wrong when w₀ ≠ 0 (the normal
  MC-FedDA case); we solve CProx exactly.

Domain: Theorem 3.1 assumes the ball 𝒲.  A problem without a ball is run on {R(w − w₀) ≤ ε₀} alone (still
bounded) and ``check`` reports it; ε₀ must then be given.  Defaults: ``mu`` = 0 → the problem's exact μ,
``a`` = 0 → 4L/μ, ``gamma`` = 0 → 2μa³ (as Fast-FedDA); ``eps0`` = 0 → R(w₀) + Ψ_max ρ with Ψ_max = √p (ℓ1),
√min(d₁, d₂) (nuclear), 1 (Euclidean), an upper bound of R(w₀ − ŵ) for every ŵ in the ball, so the hypothesis
R(w₀ − ŵ) ≤ ε₀ of Theorem 3.1 always holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _fused
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.algorithms.fast_fedda import resolve_weights, weight_conditions
from fedrates.solvers.algorithms.fedda import composite_support
from fedrates.solvers.cprox import cfedda_prox_arguments, cprox
from fedrates.solvers.errors import InputError

__all__ = ["CFedDA", "MCFedDA", "psi_from_truth"]

#: CProx as defined in :mod:`fedrates.solvers.cprox` (a replaced one forces step-by-step rounds)
_EXACT_CPROX, _EXACT_ARGUMENTS = cprox, cfedda_prox_arguments


def _R(problem: Any, x: np.ndarray) -> np.ndarray:
    return problem.penalty.norm(np.asarray(x, dtype=float))


def _auto_eps0(name: str, problem: Any, w0: np.ndarray) -> float:
    if problem.radius is None:
        hint = ""
        if problem.truth is not None:
            dist = float(np.max(_R(problem, np.asarray(w0) - np.asarray(problem.truth))))
            hint = f"; here R(w0 - w_truth) = {dist:.6g}, so e.g. eps0={2 * dist:.6g}"
        raise InputError(f"{name} needs eps0 > 0 when the problem has no ball (radius): pass eps0=E, the radius of "
                         f"the R-ball {{R(w - w0) <= E}}, with E >= R(w0 - w_opt) (Theorem 3.1){hint}")
    kind = problem.penalty.name
    psi_max = math.sqrt(problem.dim) if kind == "l1" else (math.sqrt(min(problem.shape)) if kind == "nuclear"
                                                           else 1.0)
    return float(np.max(_R(problem, w0))) + psi_max * problem.radius


def psi_from_truth(problem: Any) -> float | None:
    """Ψ of Definition 1 from the ground truth: √s (ℓ1), √rank (nuclear), 1 (Euclidean); None without truth."""
    kind = problem.penalty.name
    if kind == "zero":
        return 1.0
    if problem.truth is None:
        return None
    w = np.asarray(problem.truth, dtype=float)
    if kind == "l1":
        s = int(np.count_nonzero(w))
    else:
        sv = np.linalg.svd(w, compute_uv=False)
        s = int(np.sum(sv > max(w.shape) * np.spacing(sv[0]))) if sv.size and sv[0] > 0 else 0
    return math.sqrt(s) if s else None


def _check_centre(name: str, problem: Any, w0: np.ndarray) -> None:
    if problem.radius is not None and np.any(problem.norm(w0) > problem.radius * (1 + 1e-12)):
        raise InputError(f"{name} needs w0 inside the ball of radius {problem.radius:g} (it is the CProx centre)")


def _stage_state(centre: np.ndarray, a: float) -> dict[str, Any]:
    """Fresh C-FedDA state centred at ``centre`` (w̄₀ = w₀, w̃₀ = α₀w₀, g = 0, no output yet)."""
    return {"w0": centre, "wbar": centre.copy(), "wt": a**2 * centre, "g": np.zeros_like(centre),
            "num": np.zeros_like(centre), "A": 0.0, "r": 0}


def _fused_local_steps(state: dict[str, Any], problem: Any, ctx: RoundContext, E: int, alpha: float, A: float,
                       lam: float, eps: float) -> np.ndarray | None:
    """The clients' accumulated gradients G (R, m, d) after the round's E local steps from one fused kernel, with
    CProx_r in closed form (:func:`fedrates.solvers._kernels_numba.local_cfedda`: the thresholded, ball-scaled
    point, which is CProx's minimiser whenever it lies in the R-ball around w₀ — the KKT point with θ = 0).  When
    some client leaves that R-ball, the round is redone step by step with the exact CProx on the same minibatches
    (``ctx.replay``), and None is returned as when the round cannot be fused at all (CProx or its arguments
    replaced, or see ``_fused``)."""
    if cprox is not _EXACT_CPROX or cfedda_prox_arguments is not _EXACT_ARGUMENTS:
        return None
    rl = _fused.prox_lambda(problem)
    if rl is None:
        return None
    l1 = rl >= 0
    if not l1 and lam != 0:
        return None
    mu, gamma = state["mu"], state["gamma"]
    c = mu * A / 2 + gamma
    res = _fused.local_cfedda(problem, ctx, E, state["g"], state["wbar"], state["w0"], 0.5 * mu * E * state["wt"],
                              alpha, gamma * E, 1.0 / (E * c), A * lam / c, eps, l1)
    if res is None:
        return None
    G, rows = res
    if G is None:
        ctx.replay(rows)
    return G


def _cfedda_round(state: dict[str, Any], problem: Any, ctx: RoundContext, E: int, lam: float, eps: float,
                  tol: float) -> dict[str, Any]:
    """One C-FedDA round (module docstring) on the keys of :func:`_stage_state`; returns the updated dict."""
    mu, a, gamma, r = state["mu"], state["a"], state["gamma"], state["r"]
    alpha = (r + a) ** 2
    A = state["A"] + alpha  # A_r
    R_, m = ctx.clients.shape
    shape = (R_, m) + problem.shape
    centre = state["w0"]
    centre_b = centre.reshape((R_, 1) + problem.shape)
    wt = state["wt"]
    shift = 0.5 * mu * E * wt.reshape((R_, 1) + problem.shape)

    def cp(z: np.ndarray, c: np.ndarray) -> np.ndarray:
        v, kappa = cfedda_prox_arguments(z, c, mu=mu, gamma=gamma, A=A, E=E, lam=lam)
        return cprox(problem.penalty, v, kappa, c, eps, problem.radius, tol=tol).w

    G = _fused_local_steps(state, problem, ctx, E, alpha, A, lam, eps)
    if G is None:  # step by step (the reference of the fused kernel)
        G = np.broadcast_to(state["g"][:, None], shape).copy()
        W = np.broadcast_to(state["wbar"][:, None], shape).copy()
        for e in range(E):
            G += alpha * ctx.gradients(W)
            if e < E - 1:
                W = cp(G - shift, centre_b)
    g = weighted_mean(ctx.weights, G)
    wbar = cp(g - 0.5 * mu * E * wt, centre)
    return dict(state, g=g, wbar=wbar, wt=wt + (r + 1 + a) ** 2 * wbar, num=state["num"] + alpha * wbar, A=A,
                r=r + 1)


def _stage_output(state: dict[str, Any]) -> np.ndarray:
    return state["w0"] if state["A"] == 0 else state["num"] / state["A"]


@dataclass(frozen=True, kw_only=True)
class _ConstrainedDA(Algorithm):
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    mu: float = hyper(0.0, "(restricted) strong-convexity parameter mu > 0 (0 = the problem's exact mu)", low=0.0)
    a: float = hyper(0.0, "weight offset a in alpha_r = (r+a)^2 (0 = 4L/mu)", low=0.0)
    gamma: float = hyper(0.0, "regularisation gamma (0 = 2 mu a^3)", low=0.0)
    tol: float = hyper(1e-15, "relative certified-gap tolerance of the exact CProx", low=0.0, strict=True)

    def supports(self, problem: Any) -> str | None:
        return composite_support(self.name, problem)

    def _weights(self, problem: Any) -> dict[str, float]:
        mu, a, gamma = resolve_weights(self.name, problem, self.mu, self.a, self.gamma)
        return {"mu": mu, "a": a, "gamma": gamma}

    def _common_checks(self, problem: Any) -> list[str]:
        w = self._weights(problem)
        out = weight_conditions(self.name, problem, w["mu"], w["a"], w["gamma"])
        if problem.radius is None:
            out.append(f"{self.name}: Theorem 3.1 assumes a ball domain; running on the R-ball around w0 alone")
        out.append(f"{self.name}: Theorem 3.1 also needs R >= a = {w['a']:g} rounds (per stage)")
        return out


@register
@dataclass(frozen=True, kw_only=True)
class CFedDA(_ConstrainedDA):
    """Constrained federated dual averaging with per-round weights and an exact CProx; see module docstring."""

    name = "c_fedda"
    summary = "constrained federated dual averaging, exact CProx, weighted server average (Bao et al. 2022, Alg. 2)"

    eps0: float = hyper(0.0, "radius eps0 of the R-ball around w0 (0 = R(w0) + Psi_max*rho)", low=0.0)

    def check(self, problem: Any) -> list[str]:
        return self._common_checks(problem)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        w0 = np.array(w0, dtype=float)
        _check_centre(self.name, problem, w0)
        w = self._weights(problem)
        eps = self.eps0 or _auto_eps0(self.name, problem, w0)
        return dict(_stage_state(w0, w["a"]), eps=float(eps), **w)

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        return _cfedda_round(state, problem, ctx, self.local_steps, problem.penalty.lam, state["eps"], self.tol)

    def output(self, state: dict[str, Any]) -> np.ndarray:
        return _stage_output(state)


@register
@dataclass(frozen=True, kw_only=True)
class MCFedDA(_ConstrainedDA):
    """Multi-stage C-FedDA with halving λ and shrinking R-balls (homotopy); see module docstring."""

    name = "mc_fedda"
    summary = "multi-stage C-FedDA: halving lambda, radius 108 Psi^2 lambda_m/mu, warm starts (Bao et al., Alg. 3)"

    stages: int = hyper(3, "number of stages M >= 1 (used when lam0 = 0)", low=1)
    lam0: float = hyper(0.0, "initial lambda_0 >= lambda_opt (0 = 2^(M-1) lambda_opt)", low=0.0)
    stage_rounds: int = hyper(20, "rounds R_m per stage (the last stage runs to the end)", low=1)
    psi: float = hyper(0.0, "subspace Lipschitz constant Psi (0 = from the ground truth)", low=0.0)

    def schedule(self, problem: Any) -> tuple[list[float], list[float]]:
        """(λ_m, ε_m) for m = 0..M−1."""
        lam_opt = problem.penalty.lam
        if problem.penalty.name != "zero" and lam_opt <= 0:
            raise InputError(f"{self.name} needs the problem's lambda > 0 (it is lambda_opt)")
        if self.lam0:
            if self.lam0 < lam_opt:
                raise InputError(f"{self.name}: lam0={self.lam0:g} is below the problem's lambda {lam_opt:g}")
            M = math.ceil(math.log2(self.lam0 / lam_opt) - 1e-9) + 1 if lam_opt > 0 else self.stages
            lam0 = self.lam0
        else:
            M, lam0 = self.stages, 2.0 ** (self.stages - 1) * lam_opt
        lams = [max(lam0 * 2.0**-m, lam_opt) for m in range(M)]
        lams[-1] = lam_opt
        psi = self.psi or psi_from_truth(problem)
        if not psi:
            raise InputError(f"{self.name} needs psi > 0: the problem has no ground truth to take Psi from")
        mu = self._weights(problem)["mu"]
        eps = [108 * psi**2 * lam / mu for lam in lams]
        if problem.penalty.name == "zero":
            raise InputError(f"{self.name} needs an l1 or nuclear penalty (lambda_m halves the regulariser)")
        return lams, eps

    def supports(self, problem: Any) -> str | None:
        reason = composite_support(self.name, problem)
        if reason is None and problem.penalty.name == "zero":
            return f"{self.name} needs an l1 or nuclear penalty; the problem has none"
        return reason

    def check(self, problem: Any) -> list[str]:
        return self._common_checks(problem)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        w0 = np.array(w0, dtype=float)
        _check_centre(self.name, problem, w0)
        lams, eps = self.schedule(problem)
        w = self._weights(problem)
        return dict(_stage_state(w0, w["a"]), stage=0, lams=tuple(lams), epss=tuple(eps), **w)

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        m = state["stage"]
        if state["r"] >= self.stage_rounds and m + 1 < len(state["lams"]):
            m += 1
            state = dict(state, **_stage_state(_stage_output(state), state["a"]), stage=m)
        return _cfedda_round(state, problem, ctx, self.local_steps, state["lams"][m], state["epss"][m], self.tol)

    def output(self, state: dict[str, Any]) -> np.ndarray:
        return _stage_output(state)
