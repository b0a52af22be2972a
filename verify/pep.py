"""Tight worst cases of deterministic reductions with performance estimation (PEPit), compared with the theorems.

Performance estimation (Drori & Teboulle, "Performance of first-order methods for smooth convex minimization: a novel
approach", Math. Program. 2014; Taylor, Hendrickx & Glineur, "Smooth strongly convex interpolation and exact
worst-case performance of first-order methods", Math. Program. 2017) computes

    τ = sup { measure(method run on f) : f ∈ F, normalisation(x₀, f) ≤ 1 }

exactly as a small semidefinite program over the Gram matrix of the iterates and gradients.  PEPit (Goujaud et al.)
builds that SDP; here it is solved through cvxpy with Clarabel (open source, interior point; SCS as a fallback is
not used because its first-order accuracy is too coarse for the comparisons below).

**Reductions.**  A federated round with K = 1 client, exact gradients and a fixed step is a fixed composition of
gradient steps, so its worst case over the function class is a PEP:

* FedAvg (Buttaci & Calafiore App. A with α = 0): E steps w ← w − γ∇f(w) from the server point;
* FedProx (App. A (10)–(12)): w ← (1 − αγ)w + αγ w̄₀ − γ∇f(w), w̄₀ the round's start point;
* PFL(β) (App. B (4)–(5)): w ← w − γ∇f(βw + (1 − β)w̄₀) (with one client u_t = w̄_{t,0});
* local gradient descent of DP-FedAvg (Das et al., Lemmas 2–3): E steps of w ← w − η∇f(w);
* one outer iteration of Bylinkin et al.'s SC-AccExtragradient with exact oracles (the Accelerated Extragradient
  baseline) and the server subproblem solved exactly: a gradient step of r = h − h₁, an exact argmin (declared
  through its optimality condition) and an extrapolated gradient step of h (Theorem 5's Lyapunov function), and
  the same iteration of the inner AccExtragradient of C-AccExtragradient on A_θ^k (Theorem 8's factor).

With K = 1 and σ = 0 the additive terms of Lemmas A.3/B.3 vanish except those carrying G², so the contraction
factor κ alone must bound the per-round ratio ‖w̄_{t+1,0} − w★‖²/‖w̄_{t,0} − w★‖² on F_{μ,L}: a PEP worst case
above κ (beyond the SDP's accuracy) is an instance on which the lemma is false.  A worst case below κ gives the
looseness bound/worst.  Found: for FedAvg, FedProx and PFL with one client the tight factor of the *squared*
distance is κ² (attained by a quadratic along its μ-eigenvector), so Lemmas A.3/B.3 are loose by exactly 1/κ there.

**Two comparison forms.**  ``ratio``: the theorem's rhs at the case's normalised parameters is a number b, compared
with τ.  ``slack``: the rhs depends on the trajectory (e.g. Das Lemma 3's ‖∇f(w_τ)‖² − (2/(ηL) − 1)‖Δ∇f‖²); it is
linear in those quantities, its coefficients are read off the catalogue's sympy rhs (checked linear), and the PEP
maximises lhs − rhs; the theorem holds on the class iff the worst slack is ≤ 0.

**What is certified.**  Nothing is taken from a status string.  After the solve this module recomputes, from the
solver's primal Gram matrix and dual multipliers, (i) the primal infeasibility (most negative Gram eigenvalue, largest
constraint violation), (ii) the dual infeasibility (most negative eigenvalue of the dual PSD matrix, most negative
inequality multiplier), (iii) the error of the reconstructed proof (the combination of constraints that should equal
objective − τ), and (iv) the duality gap |dual − primal|.  The result's ``accuracy`` is the gap plus the proof error;
a comparison is conclusive only when every residual is ≤ :data:`RESIDUAL_TOL` and the gap ≤ :data:`GAP_TOL`
(relative to max(1, |τ|)).  Otherwise, or when the solver fails, the verdict is ``inconclusive`` with the solver's
message.  Verdicts: ``false-on-class`` (b < primal τ − accuracy: the primal Gram matrix is a certified instance
where the bound fails), ``holds`` (b ≥ dual τ + accuracy; reported with b/τ), ``tight`` (|b − τ| within the
accuracy), ``inconclusive``.

**Textbook gate.**  Before any federated comparison is reported, :func:`compare_theorem` solves the textbook case
(gradient descent on L-smooth convex functions, tight value L‖x₀ − x★‖²/(4NγL + 2), Drori & Teboulle 2014, Thm 3.1)
and checks it against the closed form within the certified accuracy; if that fails, every verdict is
``inconclusive``.

**Adding a case** (e.g. for a seed whose algorithm is a fixed composition of gradient/prox steps): write a builder
``(params) -> PEPProblem`` and append a :class:`PEPCase` to :data:`CASES` with the catalogue theorem id and a map
from the case's parameters to the theorem's symbols.
"""

from __future__ import annotations

import contextlib
import io
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError, unknown_name

__all__ = ["CASES", "PEPCase", "PEPComparison", "PEPProblem", "PEPResult", "compare", "compare_theorem", "get",
           "run_case", "solve", "textbook_gate"]

#: largest acceptable primal/dual infeasibility and proof-reconstruction error (absolute; every case is normalised so
#: that the initial quantity is ≤ 1 and L = 1, so the Gram entries are O(1)); Clarabel reaches ~1e-9 on these sizes
RESIDUAL_TOL = 1e-6
#: largest acceptable duality gap, relative to max(1, |τ|)
GAP_TOL = 1e-6
#: the SDP solver; Clarabel's default tolerances are 1e-8 (gap and feasibility)
SOLVER = "CLARABEL"


@dataclass
class PEPProblem:
    """A built PEP: the PEPit object, plus a description of what τ measures."""

    pep: Any
    measure: str
    normalisation: str


@dataclass(frozen=True)
class PEPResult:
    """One SDP solve with its own certificate (see module docstring)."""

    primal: float | None
    dual: float | None
    gap: float | None
    primal_residual: float | None
    dual_residual: float | None
    proof_residual: float | None
    status: str
    solver: str
    seconds: float
    message: str = ""

    @property
    def certified(self) -> bool:
        if None in (self.primal, self.dual, self.gap, self.primal_residual, self.dual_residual, self.proof_residual):
            return False
        scale = max(1.0, abs(self.dual))  # type: ignore[arg-type]
        return (max(self.primal_residual, self.dual_residual, self.proof_residual) <= RESIDUAL_TOL  # type: ignore
                and self.gap <= GAP_TOL * scale)  # type: ignore[operator]

    @property
    def accuracy(self) -> float:
        """Certified accuracy of τ: duality gap + proof-reconstruction error + primal infeasibility."""
        if not self.certified:
            return math.inf
        return float(self.gap + self.proof_residual + self.primal_residual)  # type: ignore[operator]

    @property
    def value(self) -> float | None:
        """The worst case τ (the dual value: an upper bound up to the proof residual)."""
        return self.dual

    def as_dict(self) -> dict[str, Any]:
        return {"primal": self.primal, "dual": self.dual, "gap": self.gap, "primal_residual": self.primal_residual,
                "dual_residual": self.dual_residual, "proof_residual": self.proof_residual, "status": self.status,
                "solver": self.solver, "seconds": self.seconds, "certified": self.certified,
                "accuracy": self.accuracy if self.certified else None, "message": self.message}


def _eig_min(M: np.ndarray) -> float:
    M = np.asarray(M, dtype=float)
    return float(np.linalg.eigvalsh(0.5 * (M + M.T))[0])


def _residuals(pep: Any, wc_value: float) -> tuple[float, float, float, float]:
    """(primal residual, dual residual, proof residual, dual objective) recomputed from the solver's variables.

    Mirrors the proof reconstruction of PEPit's ``PEP.check_feasibility`` but returns the numbers instead of printing
    them: the dual multipliers times the constraints must equal objective − τ up to the returned proof residual.
    """
    from PEPit.point import Point
    from PEPit.tools.dict_operations import prune_dict, symmetrize_dict

    primal = max(0.0, -_eig_min(pep.G_value))
    for c in pep._list_of_prepared_constraints:
        v = float(c.eval())
        primal = max(primal, v if c.equality_or_inequality == "inequality" else abs(v))
    for psd in pep._list_of_psd_sent_to_wrapper:
        primal = max(primal, -_eig_min(psd.eval()))
    dual = max(0.0, -_eig_min(pep.residual))
    combination = -np.dot(Point.list_of_leaf_points, np.dot(pep.residual, Point.list_of_leaf_points))
    for psd in pep._list_of_psd_sent_to_wrapper:
        dual = max(dual, -_eig_min(psd.eval_dual()))
        combination -= np.sum(psd.eval_dual() * psd.matrix_of_expressions)
    for c in pep._list_of_prepared_constraints:
        d = float(c.eval_dual())
        if c.equality_or_inequality == "inequality":
            dual = max(dual, -d)
        combination += d * c.expression
    decomposition = prune_dict(symmetrize_dict((pep.objective - combination).decomposition_dict))
    dual_objective = float(decomposition.get(1, 0.0))
    proof = float(np.sum(np.abs([v for k, v in decomposition.items() if k != 1]))) if decomposition else 0.0
    return primal, dual, proof, dual_objective


def solve(problem: PEPProblem, solver: str = SOLVER) -> PEPResult:
    """Solve a built PEP and certify it; never raises on solver trouble (the result is then not certified)."""
    start = time.perf_counter()
    status, name, message = "error", solver, ""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            problem.pep.solve(wrapper="cvxpy", solver=solver, verbose=0)
        wrapper = problem.pep.wrapper
        status = str(wrapper.prob.status)
        name = str(wrapper.solver_name)
        primal_value = float(problem.pep.objective.eval())
        p_res, d_res, proof, dual_value = _residuals(problem.pep, primal_value)
    except Exception as exc:  # noqa: BLE001 - any solver failure is reported as inconclusive with its message
        message = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return PEPResult(None, None, None, None, None, None, status, name, time.perf_counter() - start, message)
    gap = abs(dual_value - primal_value)
    if status not in ("optimal",):
        message = f"solver status '{status}'"
    return PEPResult(primal_value, dual_value, gap, p_res, d_res, proof, status, name,
                     time.perf_counter() - start, message)


# ---- cases ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PEPCase:
    """A deterministic reduction of a theorem's method, solvable as a PEP.

    ``build(params)`` returns the :class:`PEPProblem`; ``symbols(params)`` maps the case's parameters to the
    theorem's symbols (``theorem`` is a catalogue id, or ``None`` with ``closed_form`` for a textbook case).  In
    ``slack`` form ``trajectory`` names the rhs symbols that are measured along the run; ``build`` then receives the
    coefficients of the rhs in them (key ``"coefficients"``) and maximises lhs − rhs.
    """

    id: str
    title: str
    reduction: str
    function_class: str
    params: Mapping[str, float]
    build: Callable[[Mapping[str, Any]], PEPProblem]
    theorem: str | None = None
    symbols: Callable[[Mapping[str, float]], dict[str, float]] | None = None
    closed_form: Callable[[Mapping[str, float]], float] | None = None
    form: str = "ratio"
    trajectory: tuple[str, ...] = ()
    notes: str = ""
    expected: str = field(default="")


def _pep() -> Any:
    from PEPit import PEP

    return PEP()


def _gd_convex(p: Mapping[str, Any]) -> PEPProblem:
    """f(x_N) − f★ after N steps of GD with step γ on L-smooth convex f, ‖x₀ − x★‖² ≤ 1 (Drori–Teboulle)."""
    from PEPit.functions import SmoothConvexFunction

    pep = _pep()
    f = pep.declare_function(SmoothConvexFunction, L=p["L"])
    xs = f.stationary_point()
    fs = f(xs)
    x0 = pep.set_initial_point()
    pep.set_initial_condition((x0 - xs) ** 2 <= 1)
    x = x0
    for _ in range(int(p["N"])):
        x = x - p["gamma"] * f.gradient(x)
    pep.set_performance_metric(f(x) - fs)
    return PEPProblem(pep, "f(x_N) - f*", "||x_0 - x*||^2 <= 1")


def _round_distance(p: Mapping[str, Any], step: Callable[[Any, Any, Any, Any], Any]) -> PEPProblem:
    """‖w_E − w★‖² after one round of E local steps ``step(f, w, w0, p)`` on F_{μ,L}, ‖w₀ − w★‖² ≤ 1."""
    from PEPit.functions import SmoothStronglyConvexFunction

    pep = _pep()
    f = pep.declare_function(SmoothStronglyConvexFunction, L=p["L"], mu=p["mu"])
    ws = f.stationary_point()
    w0 = pep.set_initial_point()
    pep.set_initial_condition((w0 - ws) ** 2 <= 1)
    w = w0
    for _ in range(int(p["E"])):
        w = step(f, w, w0, p)
    pep.set_performance_metric((w - ws) ** 2)
    return PEPProblem(pep, "||w_E - w*||^2 (one round, K = 1)", "||w_0 - w*||^2 <= 1")


def _fedprox_step(f: Any, w: Any, w0: Any, p: Mapping[str, Any]) -> Any:
    # Buttaci & Calafiore (10)-(12): w <- (1 - alpha gamma) w + alpha gamma w0 - gamma grad f(w)
    return (1 - p["alpha"] * p["gamma"]) * w + p["alpha"] * p["gamma"] * w0 - p["gamma"] * f.gradient(w)


def _pfl_step(f: Any, w: Any, w0: Any, p: Mapping[str, Any]) -> Any:
    # Buttaci & Calafiore (4)-(5) with one client (u_t = w0): w <- w - gamma grad f(beta w + (1 - beta) w0)
    return w - p["gamma"] * f.gradient(p["beta"] * w + (1 - p["beta"]) * w0)


def _fedavg_round(p: Mapping[str, Any]) -> PEPProblem:
    return _round_distance({**p, "alpha": 0.0}, _fedprox_step)


def _fedprox_round(p: Mapping[str, Any]) -> PEPProblem:
    return _round_distance(p, _fedprox_step)


def _pfl_round(p: Mapping[str, Any]) -> PEPProblem:
    return _round_distance(p, _pfl_step)


def _local_gd_drift(p: Mapping[str, Any]) -> PEPProblem:
    """‖w₀ − w_τ‖² after τ steps of GD with step η on L-smooth convex f, f(w₀) − f★ ≤ 1 (Das et al. Lemma 2)."""
    from PEPit.functions import SmoothConvexFunction

    pep = _pep()
    f = pep.declare_function(SmoothConvexFunction, L=p["L"])
    xs = f.stationary_point()
    fs = f(xs)
    w0 = pep.set_initial_point()
    pep.set_initial_condition(f(w0) - fs <= 1)
    w = w0
    for _ in range(int(p["tau"])):
        w = w - p["eta"] * f.gradient(w)
    pep.set_performance_metric((w0 - w) ** 2)
    return PEPProblem(pep, "||w_0 - w_tau||^2", "f(w_0) - f* <= 1")


def _grad_monotone(convex: bool) -> Callable[[Mapping[str, Any]], PEPProblem]:
    def build(p: Mapping[str, Any]) -> PEPProblem:
        """Slack of Das et al. Lemma 3 after one GD step: ‖g₁‖² − (c_g2 ‖g₀‖² + c_dg2 ‖g₁ − g₀‖²), ‖g₀‖² ≤ 1."""
        from PEPit.functions import SmoothConvexFunction, SmoothFunction

        pep = _pep()
        f = pep.declare_function(SmoothConvexFunction if convex else SmoothFunction, L=p["L"])
        w0 = pep.set_initial_point()
        g0 = f.gradient(w0)
        pep.set_initial_condition(g0**2 <= 1)
        g1 = f.gradient(w0 - p["eta"] * g0)
        c = p["coefficients"]
        pep.set_performance_metric(g1**2 - c["g2"] * g0**2 - c["dg2"] * (g1 - g0) ** 2)
        return PEPProblem(pep, "||g_1||^2 - rhs(g2 = ||g_0||^2, dg2 = ||g_1 - g_0||^2)", "||g_0||^2 <= 1")

    return build


def _aeg_tuning(p: Mapping[str, Any]) -> dict[str, float]:
    """Tuning (9) of Bylinkin et al. with δ = δ_f + δ_g: θ = scale/δ, τ = √(μθ), η = min{1/(2μ), ½√(θ/μ)}, α = μ."""
    mu, theta = p["mu"], p["theta_scale"] / (p["delta_f"] + p["delta_g"])
    return {"theta": theta, "tau": math.sqrt(mu * theta), "eta": min(1 / (2 * mu), 0.5 * math.sqrt(theta / mu)),
            "alpha": mu}


def _extragradient_lyapunov(scheme: Callable[[Mapping[str, Any]], dict[str, Any]], start: str,
                            h1_convex: bool) -> Callable[[Mapping[str, Any]], PEPProblem]:
    """One outer iteration of SC-AccExtragradient with exact oracles (σ = 0: the AEG baseline of Bylinkin et al.,
    Kovalev et al. 2022) and the server subproblem solved exactly; τ measures the Lyapunov function of Theorem 5.

    Iteration (Algorithm 1 with ξ = ∇(h − h₁)(x̲), ζ = ∇h(x̄_{k+1})), r = h − h₁:

        x̲ = τx_k + (1 − τ)x̄_k,  x̄_{k+1} = argmin ⟨∇r(x̲), x⟩ + ‖x − x̲‖²/(2θ) + h₁(x),
        x_{k+1} = x_k + ηα(x̄_{k+1} − x_k) − η∇h(x̄_{k+1}).

    The exact argmin is the optimality condition ∇h(x̄) = ∇r(x̄) − ∇r(x̲) − (x̄ − x̲)/θ, imposed by declaring x̄ a
    free point whose h-gradient is that combination (as PEPit's proximal step does).  Lyapunov function
    Φ = c‖x − x★‖² + h(x̄) − h★ with c = τ/η (``printed``, = 2μ under (9)) or c = μ (``corrected``).
    ``scheme(params)`` gives the steps (θ, τ, η, α), the class constants (μ, δ) and the Lyapunov weights (``c_x``
    on ‖x − x★‖², ``c_gap`` on h(x̄) − h★, ``c_grad`` on ‖∇h(x̄_{k+1})‖² added to the measured side only).

    Classes: ``h1_convex=False``: h μ-strongly convex (Assumption 1) and r δ-smooth, possibly nonconvex (Assumption 2
    with δ = δ_f + δ_g, which is all the proof uses of it once ξ, ζ are exact) — h₁ = h − r is not required convex
    (a superclass of the paper's: a bound that holds here holds there).  ``h1_convex=True``: h₁ μ-strongly convex
    and L₁-smooth, r convex δ-smooth, h = h₁ + r (a subclass: every assumption, including h₁ convex and h smooth,
    holds on its instances, so a violation found here is a counterexample on the paper's class).

    ``start``: ``any`` (x_k, x̄_k arbitrary: the proof's statement, Φ_k ≤ 1), ``first`` (x̄₀ = x₀, Φ₀ ≤ 1) or
    ``second`` (the second iteration,
    from the state reached by one iteration from x̄₀ = x₀, normalised by Φ₁ ≤ 1; both sides are homogeneous of
    degree 2 under x ↦ sx, h ↦ s²h, so this is sup Φ₂/Φ₁ over reachable states).
    """
    def build(p: Mapping[str, Any]) -> PEPProblem:
        from PEPit import Expression, Point
        from PEPit.functions import (
            SmoothConvexFunction,
            SmoothFunction,
            SmoothStronglyConvexFunction,
            StronglyConvexFunction,
        )

        t = scheme(p)
        theta, tau, eta, alpha, delta, mu = (t[k] for k in ("theta", "tau", "eta", "alpha", "delta", "mu"))
        c, c_gap, c_grad = t["c_x"], t["c_gap"], t["c_grad"]
        pep = _pep()
        if h1_convex:
            h1 = pep.declare_function(SmoothStronglyConvexFunction, mu=mu, L=p["L1"])
            r = pep.declare_function(SmoothConvexFunction, L=delta)
            h = h1 + r
        else:
            h = pep.declare_function(StronglyConvexFunction, mu=mu)
            r = pep.declare_function(SmoothFunction, L=delta)
        xs = h.stationary_point()
        hs = h(xs)

        def iteration(x: Any, xb: Any) -> tuple[Any, Any, Any, Any]:
            xl = tau * x + (1 - tau) * xb
            xi = r.gradient(xl)
            xb_new = Point()
            gr = r.gradient(xb_new)
            gh = gr - xi - (xb_new - xl) / theta  # exact argmin of A_theta
            if h1_convex:
                h1.add_point((xb_new, gh - gr, Expression()))
                hv = h(xb_new)
            else:
                hv = Expression()
                h.add_point((xb_new, gh, hv))
            return x + eta * alpha * (xb_new - x) - eta * gh, xb_new, hv, gh

        x = pep.set_initial_point()
        if start == "second":
            x, xb, hv, _ = iteration(x, x)
        elif start == "first":
            xb, hv = x, h(x)
        else:
            xb = pep.set_initial_point()
            hv = h(xb)
        pep.set_initial_condition(c * (x - xs) ** 2 + c_gap * (hv - hs) <= 1)
        x1, _, hv1, gh1 = iteration(x, xb)
        measure = c * (x1 - xs) ** 2 + c_gap * (hv1 - hs)
        if c_grad:
            measure = measure + c_grad * gh1**2  # the gradient the method uses (h may be nonsmooth)
        pep.set_performance_metric(measure)
        name = t["name"]
        k, k1 = {"second": ("1", "2"), "first": ("0", "1")}.get(start, ("k", "k+1"))
        extra = f" + {c_grad:.6g} ||grad(xbar_{k1})||^2" if c_grad else ""
        return PEPProblem(pep, f"{name}_{k1}{extra} (one extragradient iteration, exact subproblem)",
                          f"{name}_{k} <= 1")

    return build


def _aeg_lyapunov(weight: str, start: str, h1_convex: bool) -> Callable[[Mapping[str, Any]], PEPProblem]:
    """Theorem 5's Lyapunov function (``printed`` or ``corrected``) over one outer iteration (see
    :func:`_extragradient_lyapunov`)."""
    def scheme(p: Mapping[str, Any]) -> dict[str, Any]:
        t = _aeg_tuning(p)
        c = t["tau"] / t["eta"] if weight == "printed" else p["mu"]
        return {**t, "delta": p["delta_f"] + p["delta_g"], "mu": p["mu"], "c_x": c, "c_gap": 1.0, "c_grad": 0.0,
                "name": "Phi" if weight == "printed" else "Phic"}

    return _extragradient_lyapunov(scheme, start, h1_convex)


def _inner_aeg_lyapunov(p: Mapping[str, Any]) -> PEPProblem:
    """Theorem 8: one iteration of the inner AccExtragradient on A = A_θ^k (exact subproblem B), with the redone
    Lyapunov function of the catalogue's erratum, Ψ = (1/η_g)‖x − A★‖² + (2/τ_g)(A(x̄) − A★), and the measured
    left side Ψ_{t+1} + (θ_g/(2τ_g))‖∇A(x̄_{t+1})‖².  Tuning (31): τ_g = ½√(θ_g/θ), α_g = 1/θ,
    η_g = min{θ/2, θ_g/(4τ_g)}; θ = θ_f = 1/(2δ_f) (Kovalev et al.'s θ = 1/(2L_p), catalogue erratum), θ_g =
    ``theta_g_scale``/(2δ_g).  Class: A (1/θ)-strongly convex (f₁ + g convex, the implicit assumption of Section 7),
    p_g = g − g₁ δ_g-smooth, possibly nonconvex (Assumption 2); q_g = A − p_g not required convex (a superclass)."""
    def scheme(q: Mapping[str, Any]) -> dict[str, Any]:
        theta = 1 / (2 * q["delta_f"])
        theta_g = q["theta_g_scale"] / (2 * q["delta_g"])
        tau_g = 0.5 * math.sqrt(theta_g / theta)
        eta_g = min(theta / 2, theta_g / (4 * tau_g))
        return {"theta": theta_g, "tau": tau_g, "eta": eta_g, "alpha": 1 / theta, "delta": q["delta_g"],
                "mu": 1 / theta, "c_x": 1 / eta_g, "c_gap": 2 / tau_g, "c_grad": theta_g / (2 * tau_g),
                "name": "Psi"}

    return _extragradient_lyapunov(scheme, "any", h1_convex=False)(p)


_AEG_PARAMS = {"mu": 0.01, "delta_f": 0.4, "delta_g": 0.6, "theta_scale": 1 / 3}


def _aeg_symbols(lyapunov: str) -> Callable[[Mapping[str, float]], dict[str, float]]:
    def symbols(p: Mapping[str, float]) -> dict[str, float]:
        # sigma = 0 (exact oracles) is the limit sigma -> 0+ of the rhs; catalogue symbols are positive
        return {"theta": p["theta_scale"] / (p["delta_f"] + p["delta_g"]), "mu": p["mu"], "sigma": _TINY,
                "delta_f": p["delta_f"], "delta_g": p["delta_g"], lyapunov: 1.0}

    return symbols


_TINY = float(np.finfo(float).tiny)

CASES: tuple[PEPCase, ...] = (
    PEPCase(
        id="textbook/gd-smooth-convex", title="Gradient descent on L-smooth convex functions (Drori & Teboulle 2014)",
        reduction="centralised gradient descent, N steps of step gamma <= 1/L",
        function_class="L-smooth convex", params={"L": 1.0, "gamma": 1.0, "N": 4}, build=_gd_convex,
        closed_form=lambda p: p["L"] / (4 * p["N"] * p["L"] * p["gamma"] + 2),
        notes="tight value L ||x0 - x*||^2/(4 N L gamma + 2) for gamma <= 1/L (Drori & Teboulle 2014, Thm 3.1; "
              "PEPit examples/unconstrained_convex_minimization/gradient_descent.py)",
    ),
    PEPCase(
        id="buttaci.lemA3.kappa/fedavg-K1", theorem="buttaci.lemA3.kappa",
        title="FedAvg with one client: one round of E local GD steps vs Lemma A.3's kappa (alpha = 0)",
        reduction="FedAvg, K = 1, exact gradients: E steps w <- w - gamma grad f(w)",
        function_class="L-smooth mu-strongly convex", params={"L": 1.0, "mu": 0.1, "gamma": 0.5, "E": 3},
        build=_fedavg_round,
        # alpha = 0 is the limit alpha -> 0+ of kappa (continuous); catalogue symbols are positive
        symbols=lambda p: {"alpha": _TINY, "mu": p["mu"], "gamma": p["gamma"], "E": p["E"], "L": p["L"]},
        notes="with K = 1 and sigma = 0 the additive term A of Lemma A.3 is 8 gamma^2 E^3 G^2 from Assumption 3; "
              "kappa alone is compared (G -> 0 is not attainable, so this reads kappa as the contraction factor, "
              "as the catalogue's contraction entry does)",
    ),
    PEPCase(
        id="buttaci.lemA3.kappa/fedprox-K1", theorem="buttaci.lemA3.kappa",
        title="FedProx with one client: one round of E proximal-local GD steps vs Lemma A.3's kappa",
        reduction="FedProx, K = 1, exact gradients: E steps w <- (1 - alpha gamma) w + alpha gamma w0 "
                  "- gamma grad f(w)",
        function_class="L-smooth mu-strongly convex",
        params={"L": 1.0, "mu": 0.1, "alpha": 1.0, "gamma": 0.5, "E": 3}, build=_fedprox_round,
        symbols=lambda p: {k: p[k] for k in ("alpha", "mu", "gamma", "E", "L")},
    ),
    PEPCase(
        id="buttaci.lemB3.kappa/pfl-K1", theorem="buttaci.lemB3.kappa",
        title="PFL(beta) with one client: one round of E perturbed GD steps vs Lemma B.3's kappa",
        reduction="PFL, K = 1 (u_t = server point), exact gradients: E steps w <- w - gamma grad f(beta w + "
                  "(1 - beta) w0)",
        function_class="L-smooth mu-strongly convex",
        params={"L": 1.0, "mu": 0.1, "beta": 0.5, "gamma": 1 / 6, "E": 3}, build=_pfl_round,
        symbols=lambda p: {k: p[k] for k in ("beta", "mu", "gamma", "E", "L")},
    ),
    PEPCase(
        id="das.lem2/local-gd", theorem="das.lem2",
        title="Local GD drift after tau steps vs Das et al. Lemma 2 (2 eta^2 L tau^2 (f(w_0) - f*))",
        reduction="one client's local gradient descent in DP-FedAvg (clipping inactive), tau steps of step eta",
        function_class="L-smooth convex (a subclass of the lemma's L-smooth class)",
        params={"L": 1.0, "eta": 1.0, "tau": 3}, build=_local_gd_drift,
        symbols=lambda p: {"eta": p["eta"], "L": p["L"], "tau": p["tau"], "gap_i": 1.0},
        notes="a bound that holds on the convex subclass is not thereby proved on the lemma's nonconvex class",
    ),
    PEPCase(
        id="das.lem3/convex", theorem="das.lem3", form="slack", trajectory=("g2", "dg2"),
        title="Local GD: gradient norms do not increase (Das et al. Lemma 3) on convex L-smooth functions",
        reduction="one local GD step of step eta", function_class="L-smooth convex",
        params={"L": 1.0, "eta": 0.5}, build=_grad_monotone(True),
        symbols=lambda p: {"eta": p["eta"], "L": p["L"]},
        notes="the lemma's inequality is co-coercivity itself, so the worst slack is 0 (tight)",
    ),
    PEPCase(
        id="das.lem3/nonconvex", theorem="das.lem3", form="slack", trajectory=("g2", "dg2"),
        title="Local GD: gradient norms do not increase (Das et al. Lemma 3) on L-smooth nonconvex functions",
        reduction="one local GD step of step eta", function_class="L-smooth (nonconvex), the paper's printed class",
        params={"L": 1.0, "eta": 0.5}, build=_grad_monotone(False),
        symbols=lambda p: {"eta": p["eta"], "L": p["L"]},
        notes="the catalogue records an erratum: the proof needs convexity; the PEP finds the violating function",
    ),
    PEPCase(
        id="bylinkin.thm5/aeg-exact-second-step", theorem="bylinkin.thm5",
        title="Accelerated Extragradient (SC-AccExtragradient with exact oracles, sigma = 0), exact subproblem: "
              "Phi_2/Phi_1 vs Theorem 5's printed factor 1 - sqrt(mu theta)/2",
        reduction="Bylinkin et al. Algorithm 1 with xi = grad(h - h_1), zeta = grad h (the AEG baseline) and the "
                  "server subproblem solved exactly; the second iteration from x_0 = xbar_0",
        function_class="h = h_1 + r, h_1 mu-strongly convex and L1-smooth, r = h - h_1 convex delta-smooth "
                       "(delta = delta_f + delta_g): a subclass of Assumptions 1-2 with h_1 convex",
        params={**_AEG_PARAMS, "L1": 100.0}, build=_aeg_lyapunov("printed", "second", h1_convex=True),
        symbols=_aeg_symbols("Phi_k"),
        notes="Phi_k = (tau/eta)||x_k - x*||^2 + h(xbar_k) - h* as printed (tau/eta = 2 mu under (9)); with sigma = 0 "
              "the additive 4 theta sigma^2 vanishes.  Every function of the subclass satisfies the paper's "
              "assumptions (and the implicit h_1 convex, h smooth), and the state is reached by one iteration, so a "
              "worst case above the factor refutes the printed recursion on the paper's class (the catalogue's "
              "factor-2 erratum: the printed step is not only unproved but false; the quadratic claim "
              "bylinkin.thm5/one-step finds the same from worst states).  At this second step, up to 2-d quadratics "
              "from x_0 = xbar_0 stayed below the factor in a random search (the certified worst instance here is "
              "not quadratic); at later steps a 1-d quadratic exceeds it (Phi_5/Phi_4 = 1.0099 rho, claim "
              "bylinkin.thm5/counterexample)",
    ),
    PEPCase(
        id="bylinkin.thm5.corrected/aeg-exact", theorem="bylinkin.thm5.corrected",
        title="Accelerated Extragradient, exact subproblem: Phic_{k+1}/Phic_k from any state vs the corrected "
              "factor 1 - sqrt(mu theta)/2",
        reduction="Bylinkin et al. Algorithm 1 with exact oracles (the AEG baseline), exact server subproblem, one "
                  "iteration from an arbitrary (x_k, xbar_k)",
        function_class="h mu-strongly convex, r = h - h_1 delta-smooth possibly nonconvex (Assumptions 1-2 with "
                       "delta = delta_f + delta_g; h_1 convexity not imposed: a superclass)",
        params=dict(_AEG_PARAMS), build=_aeg_lyapunov("corrected", "any", h1_convex=False),
        symbols=_aeg_symbols("Phic_k"),
        notes="Phic_k = mu||x_k - x*||^2 + h(xbar_k) - h*; with exact oracles the proof uses Assumption 2 only as "
              "||grad r(xunder) - grad r(xbar)|| <= (delta_f + delta_g)||xunder - xbar|| and h_1 convexity only "
              "for the inexact criterion (4), so the class is the proof's; holding on this superclass implies "
              "holding on the paper's class",
    ),
    PEPCase(
        id="bylinkin.thm8.rate/inner-aeg-exact", theorem="bylinkin.thm8.rate",
        title="Inner AccExtragradient of C-AccExtragradient, exact subproblem B: Psi_{t+1} + (theta_g/(2 tau_g)) "
              "||grad A||^2 over Psi_t vs the factor 1 - sqrt(theta_g/theta)/2",
        reduction="Bylinkin et al. Section 7, AccExtragradient for A_theta^k (tuning (31)), one iteration from an "
                  "arbitrary (x_t, xbar_t), the subproblem B_theta_g^t solved exactly",
        function_class="A (1/theta)-strongly convex, p_g = g - g_1 delta_g-smooth possibly nonconvex (Assumption 2; "
                       "q_g convexity not imposed: a superclass)",
        params={"delta_f": 0.05, "delta_g": 1.0, "theta_g_scale": 1.0}, build=_inner_aeg_lyapunov,
        symbols=lambda p: {"theta": 1 / (2 * p["delta_f"]), "theta_g": p["theta_g_scale"] / (2 * p["delta_g"]),
                           "delta_g": p["delta_g"]},
        notes="Psi_t = (1/eta_g)||x_t - A*||^2 + (2/tau_g)(A(xbar_t) - A*) is the catalogue's redone Lyapunov "
              "function (erratum: the printed proof bounds a scalar product with the wrong sign); theta = theta_f = "
              "1/(2 delta_f) (catalogue erratum on Kovalev et al.'s theta); with B solved exactly the accuracy "
              "criterion is not used, so the class is the proof's",
    ),
)


def get(case_id: str) -> PEPCase:
    table = {c.id: c for c in CASES}
    if case_id not in table:
        raise unknown_name("PEP case", case_id, table)
    return table[case_id]


def cases_for(theorem_id: str) -> list[PEPCase]:
    return [c for c in CASES if c.theorem == theorem_id]


# ---- comparison ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PEPComparison:
    """A case solved and compared with its theorem (or closed form)."""

    case: str
    theorem: str | None
    params: dict[str, Any]
    form: str
    bound: float | None
    result: PEPResult
    verdict: str
    ratio: float | None
    conditions: list[dict[str, Any]]
    explanation: str

    def as_dict(self) -> dict[str, Any]:
        return {"case": self.case, "theorem": self.theorem, "params": self.params, "form": self.form,
                "bound": self.bound, "worst_case": self.result.value, "ratio_bound_over_worst": self.ratio,
                "verdict": self.verdict, "conditions": self.conditions, "explanation": self.explanation,
                "sdp": self.result.as_dict()}


def compare(bound: float, result: PEPResult, form: str = "ratio") -> tuple[str, float | None, str]:
    """Verdict of a bound b against a solved PEP (see module docstring); returns (verdict, b/τ, explanation).

    In ``slack`` form the PEP value is the worst lhs − rhs and ``bound`` is 0.
    """
    if not result.certified:
        why = result.message or "residuals above tolerance"
        return "inconclusive", None, (f"SDP not certified ({why}; status {result.status}, gap {result.gap}, "
                                      f"residuals {result.primal_residual}/{result.dual_residual}/"
                                      f"{result.proof_residual})")
    acc = result.accuracy
    tau_lo, tau_hi = result.primal, result.dual + result.proof_residual  # type: ignore[operator]
    ratio = bound / result.dual if form == "ratio" and result.dual and result.dual > 0 else None
    if bound < tau_lo - acc:  # type: ignore[operator]
        return "false-on-class", ratio, (f"bound {bound:.10g} < worst case {tau_lo:.10g} - accuracy {acc:.2g}: "
                                         f"an instance of the class violates it")
    if bound >= tau_hi + acc:
        return "holds", ratio, f"bound {bound:.10g} >= worst case {tau_hi:.10g} + accuracy {acc:.2g}"
    return "tight", ratio, f"bound {bound:.10g} equals the worst case {result.dual:.10g} within accuracy {acc:.2g}"


def _linear_coefficients(theorem: Any, names: tuple[str, ...], values: Mapping[str, float]) -> dict[str, float]:
    """Coefficients of the rhs in the trajectory symbols ``names`` at ``values``; the rhs must be linear in them
    with no constant term."""
    import sympy as sp

    syms = {s.name: s for s in theorem.rhs.free_symbols}
    subs = {syms[k]: sp.Float(v, 30) for k, v in values.items() if k in syms}
    out: dict[str, float] = {}
    for n in names:
        d = sp.diff(theorem.rhs, syms[n])
        if any(sp.simplify(sp.diff(d, syms[m])) != 0 for m in names):
            raise InputError(f"theorem {theorem.id}: rhs is not linear in {n}; the slack form needs linearity")
        out[n] = float(d.subs(subs))
    rest = theorem.rhs.subs({syms[n]: 0 for n in names}).subs(subs)
    if abs(float(rest)) > 0:
        raise InputError(f"theorem {theorem.id}: rhs has a term free of {names}; the slack form needs none")
    return out


def run_case(case: PEPCase | str, bound_scale: float = 1.0, solver: str = SOLVER, **overrides: float) -> PEPComparison:
    """Build, solve (with ``solver``) and compare one case.  ``bound_scale`` multiplies the theorem's value (ratio
    form) — used by the soundness tests to feed a deliberately wrong factor."""
    case = get(case) if isinstance(case, str) else case
    params: dict[str, Any] = {**case.params, **overrides}
    conditions: list[dict[str, Any]] = []
    thm = None
    if case.theorem is not None:
        from fedrates.bounds import catalog

        thm = catalog.get(case.theorem)
        values = case.symbols(params) if case.symbols else {}
        conditions = [c.as_dict() for c in thm.check_conditions(values)]
        if case.form == "slack":
            params["coefficients"] = _linear_coefficients(thm, case.trajectory, values)
            bound = 0.0
        else:
            bound = bound_scale * thm.evaluate(values)
    else:
        bound = bound_scale * float(case.closed_form(params))  # type: ignore[misc]
    failed = [c["condition"] for c in conditions if c["holds"] is False]
    result = solve(case.build(params), solver=solver)
    if failed:
        verdict, ratio, text = "conditions-not-met", None, "conditions fail: " + "; ".join(failed)
    else:
        verdict, ratio, text = compare(bound, result, case.form)
    shown = {k: v for k, v in params.items() if k != "coefficients"}
    if "coefficients" in params:
        shown["rhs_coefficients"] = dict(params["coefficients"])
    return PEPComparison(case.id, case.theorem, shown, case.form, bound, result, verdict, ratio, conditions, text)


def textbook_gate(solver: str = SOLVER) -> tuple[bool, str]:
    """Solve the textbook case (GD, L = 1, γ = 1/L, N = 4) and check it against Drori & Teboulle's closed form
    1/18 within the certified accuracy; federated comparisons are trusted only when this passes."""
    case = get("textbook/gd-smooth-convex")
    result = solve(case.build(case.params), solver=solver)
    expected = float(case.closed_form(case.params))  # type: ignore[misc]
    if not result.certified:
        return False, f"textbook PEP not certified ({result.message or result.status})"
    err = abs(result.dual - expected)  # type: ignore[operator]
    if err > result.accuracy + 1e-7 * expected:
        return False, f"textbook PEP gives {result.dual:.10g}, closed form {expected:.10g} (error {err:.2g})"
    return True, f"textbook PEP matches L/(4NγL+2) = {expected:.10g} within {err:.2g}"


def compare_theorem(theorem_id: str, solver: str = SOLVER) -> list[PEPComparison]:
    """Every case of a theorem, after the textbook gate; if the gate fails every verdict is ``inconclusive``."""
    cases = cases_for(theorem_id)
    if not cases:
        return []
    ok, text = textbook_gate(solver)
    out = [run_case(c, solver=solver) for c in cases]
    if not ok:
        out = [PEPComparison(c.case, c.theorem, c.params, c.form, c.bound, c.result, "inconclusive", None,
                             c.conditions, f"{text}; no PEP verdict is trusted"
                             + (f" (this case: {c.result.message})" if c.result.message else ""))
               for c in out]
    return out
