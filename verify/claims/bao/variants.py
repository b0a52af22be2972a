"""Broken variants of the Bao et al. code: plausible wrong implementations the claims must fail.

Written from the pseudo-code (Bao et al. Algorithms 1–3; FedAvg, FedProx; Yuan et al.'s FedDA and FedMiD) and from
the ways implementations typically go wrong: scaling, indexing, weighting, off-by-one in a schedule, wrong returned
point, shared randomness, inexact subproblems, wrong constants.  Each class changes exactly one thing of the
correct algorithm; each patch changes one function of the oracle, reference or constants layer.  The catalogue
``VARIANTS`` at the end of this module names the claims every variant is run against.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms.base import weighted_mean
from fedrates.solvers.algorithms.c_fedda import CFedDA, MCFedDA
from fedrates.solvers.algorithms.fast_fedda import FastFedDA
from fedrates.solvers.algorithms.fedavg import FedAvg
from fedrates.solvers.algorithms.fedda import FedDA, FedMiD
from fedrates.solvers.algorithms.fedprox import FedProx
from fedrates.solvers.penalties import project_ball


def _uniform(ctx: Any) -> None:
    ctx.weights = np.full(ctx.weights.shape, 1.0 / ctx.weights.shape[1])


# ---- FedAvg / FedProx -------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FedAvgUniformWeights(FedAvg):
    """Server averages with 1/m instead of the weights π_k."""

    def round(self, state, problem, ctx):
        _uniform(ctx)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class FedAvgNoServerStep(FedAvg):
    """x_{r+1} = average of the client points: the server step size η_s is ignored."""

    def round(self, state, problem, ctx):
        out = super().round(state, problem, ctx)
        x = state["x"]
        return {"x": x + (out["x"] - x) / self.server_step}


@dataclass(frozen=True, kw_only=True)
class FedAvgOneStepShort(FedAvg):
    """Off-by-one in the local loop: E − 1 local steps (range(1, E))."""

    def round(self, state, problem, ctx):
        import dataclasses

        if self.local_steps == 1:
            return super().round(state, problem, ctx)
        return FedAvg.round(dataclasses.replace(self, local_steps=self.local_steps - 1), state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class FedAvgFirstClient(FedAvg):
    """Wrong returned point: the server keeps the first client's local model instead of the average."""

    def round(self, state, problem, ctx):
        x = state["x"]
        R, m = ctx.clients.shape
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            W = project_ball(W - self.step * ctx.gradients(W), problem.radius, len(problem.shape))
        return {"x": x + self.server_step * (W[:, 0] - x)}


@dataclass(frozen=True, kw_only=True)
class FedProxWrongSign(FedProx):
    """Proximal term with the wrong sign: g − μ_prox(w − x_r)."""

    def local_direction(self, G, W, x):
        return G - self.mu_prox * (W - x)


@dataclass(frozen=True, kw_only=True)
class FedProxLocalAnchor(FedProx):
    """Proximal term anchored at the current local iterate (always zero) instead of the round's server point."""

    def local_direction(self, G, W, x):
        return G


# ---- FedDA / FedMiD ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FedDAUniformWeights(FedDA):
    """Server averages the dual states with 1/m instead of π_k."""

    def round(self, state, problem, ctx):
        _uniform(ctx)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class FedDAPrimalAverage(FedDA):
    """The server averages the clients' *primal* points prox(z_k) instead of the dual states (FedMiD's rule)."""

    def round(self, state, problem, ctx):
        z = state["z"]
        R, m = ctx.clients.shape
        E, eta_c, eta_s, r = self.local_steps, self.step, self.server_step, ctx.round
        Z = np.broadcast_to(z[:, None], (R, m) + problem.shape).copy()
        for e in range(E):
            W = problem.prox(Z, eta_s * eta_c * r * E + eta_c * e)
            Z = Z - eta_c * ctx.gradients(W)
        W = problem.prox(Z, eta_s * eta_c * (r + 1) * E)
        z_new = z + eta_s * (weighted_mean(ctx.weights, W) - z)
        return {"z": z_new, "w": problem.prox(z_new, eta_s * eta_c * (r + 1) * E)}


@dataclass(frozen=True, kw_only=True)
class FedDAThresholdPerRound(FedDA):
    """The dual-averaging threshold grows by η_c per *round* instead of per local step (r instead of rE)."""

    def round(self, state, problem, ctx):
        z = state["z"]
        R, m = ctx.clients.shape
        E, eta_c, eta_s, r = self.local_steps, self.step, self.server_step, ctx.round
        Z = np.broadcast_to(z[:, None], (R, m) + problem.shape).copy()
        for _ in range(E):
            W = problem.prox(Z, eta_s * eta_c * r)
            Z = Z - eta_c * ctx.gradients(W)
        z_new = z + eta_s * (weighted_mean(ctx.weights, Z) - z)
        return {"z": z_new, "w": problem.prox(z_new, eta_s * eta_c * (r + 1))}


@dataclass(frozen=True, kw_only=True)
class FedDAGradientAtDual(FedDA):
    """Gradients evaluated at the dual state z instead of the primal point prox(z)."""

    def round(self, state, problem, ctx):
        z = state["z"]
        R, m = ctx.clients.shape
        E, eta_c, eta_s, r = self.local_steps, self.step, self.server_step, ctx.round
        Z = np.broadcast_to(z[:, None], (R, m) + problem.shape).copy()
        for _ in range(E):
            Z = Z - eta_c * ctx.gradients(Z)
        z_new = z + eta_s * (weighted_mean(ctx.weights, Z) - z)
        return {"z": z_new, "w": problem.prox(z_new, eta_s * eta_c * (r + 1) * E)}


@dataclass(frozen=True, kw_only=True)
class FedMiDDoubleThreshold(FedMiD):
    """The local prox uses threshold 2η_c (η_c counted twice)."""

    def round(self, state, problem, ctx):
        x = state["x"]
        R, m = ctx.clients.shape
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            W = problem.prox(W - self.step * ctx.gradients(W), 2 * self.step)
        v = x + self.server_step * (weighted_mean(ctx.weights, W) - x)
        return {"x": project_ball(v, problem.radius, len(problem.shape))}


@dataclass(frozen=True, kw_only=True)
class FedMiDUniformWeights(FedMiD):
    """Server averages with 1/m instead of π_k."""

    def round(self, state, problem, ctx):
        _uniform(ctx)
        return super().round(state, problem, ctx)


# ---- Fast-FedDA --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FastFedDAAlphaShift(FastFedDA):
    """Off-by-one in the weights: α_t = (t + 1 + a)² (1-based t)."""

    def _alpha(self, t, a):
        return float((t + 1 + a) ** self.alpha_power)


@dataclass(frozen=True, kw_only=True)
class FastFedDALastServerPoint(FastFedDA):
    """Wrong returned point: the last server point w_{(r+1)E} instead of the α-weighted virtual average."""

    def output(self, state):
        return state["w0"] if state["A"] == 0 else state["w"]


@dataclass(frozen=True, kw_only=True)
class FastFedDAUniformWeights(FastFedDA):
    """Server averages g and w̃ with 1/m instead of π_k."""

    def round(self, state, problem, ctx):
        _uniform(ctx)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class FastFedDAPlusSign(FastFedDA):
    """The output estimator as printed in Theorem 2.1, Prox(ḡ + µw̃/2) (erratum I-1 of bao.thm2.1)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "estimator_sign", "plus")


@dataclass(frozen=True, kw_only=True)
class FastFedDAHalfGamma(FastFedDA):
    """γ = µa³ instead of 2µa³ (the constant of the proof of Theorem 3.1, I-12, used in Algorithm 1)."""

    def init(self, problem, w0):
        state = super().init(problem, w0)
        return dict(state, gamma=state["gamma"] / 2)


@dataclass(frozen=True, kw_only=True)
class FastFedDAProxDropped(FastFedDA):
    """Prox_t without the penalty (ball projection only)."""

    @staticmethod
    def prox_t(problem, z, w0, A, mu, gamma):
        c = mu * A / 2 + gamma
        w0 = w0.reshape(w0.shape[:1] + (1,) * (z.ndim - w0.ndim) + w0.shape[1:])
        return project_ball((gamma * w0 - z) / c, problem.radius, len(problem.shape))


@dataclass(frozen=True, kw_only=True)
class FastFedDAThresholdPerStep(FastFedDA):
    """Prox_t thresholds with α_t/c (the last weight) instead of A_t/c (the accumulated weights)."""

    @staticmethod
    def prox_t(problem, z, w0, A, mu, gamma):
        c = mu * A / 2 + gamma
        w0 = w0.reshape(w0.shape[:1] + (1,) * (z.ndim - w0.ndim) + w0.shape[1:])
        return problem.prox((gamma * w0 - z) / c, A ** (1 / 3) / c)


# ---- C-FedDA / MC-FedDA ------------------------------------------------------------------------------------------
def _soft_then_project_cprox():
    """Patch: CProx approximated by soft-thresholding then projecting onto the R-ball (the authors' released code),
    wrong when the centre w₀ ≠ 0."""
    from fedrates.solvers import cprox as module

    real = module.cprox

    def approx(penalty, v, kappa, center, eps, radius, tol=1e-15, **kw):
        res = real(penalty, v, kappa, center, eps, radius, tol=tol, **kw)
        w = module.soft_then_project(penalty, v, kappa, center, eps)
        if radius is not None:
            w = project_ball(w, radius, penalty.ndim)
        return type(res)(w, res.gap, res.method, res.iterations)

    return approx


@contextlib.contextmanager
def inexact_cprox() -> Iterator[None]:
    """C-FedDA's constrained prox replaced by soft-threshold-then-project (inexact off-centre)."""
    from fedrates.solvers.algorithms import c_fedda as module

    real = module.cprox
    module.cprox = _soft_then_project_cprox()
    try:
        yield
    finally:
        module.cprox = real


@dataclass(frozen=True, kw_only=True)
class CFedDAStepWeights(CFedDA):
    """The gradient weight α_r applied once per round instead of at every local step (the local sum divided by E)."""

    def round(self, state, problem, ctx):
        gradients = ctx.gradients
        E = self.local_steps
        ctx.gradients = lambda W, clients=None: gradients(W, clients) / E
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class CFedDALastServerPoint(CFedDA):
    """Wrong returned point: the last server point w̄_R instead of the α-weighted average."""

    def output(self, state):
        return state["w0"] if state["A"] == 0 else state["wbar"]


@dataclass(frozen=True, kw_only=True)
class CFedDAUniformWeights(CFedDA):
    """Server averages g with 1/m instead of π_k."""

    def round(self, state, problem, ctx):
        _uniform(ctx)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class MCFedDANoHalving(MCFedDA):
    """The stage schedule never reaches λ_opt: λ_m = 2^{−m}λ₀ stops one stage early (off-by-one in the stages)."""

    def schedule(self, problem):
        lams, eps = super().schedule(problem)
        if len(lams) > 1:
            lams = [lams[0]] + lams[:-1]
            eps = [eps[0]] + eps[:-1]
        return lams, eps


# ---- oracle, reference, constants -------------------------------------------------------------------------------
@contextlib.contextmanager
def _patched(module: Any, name: str, factory: Any) -> Iterator[None]:
    real = getattr(module, name)
    setattr(module, name, factory(real))
    try:
        yield
    finally:
        setattr(module, name, real)


def noise_not_divided_by_batch() -> contextlib.AbstractContextManager:
    """Gaussian oracle: noise σ/√d instead of σ/√(dB) (the minibatch size forgotten)."""
    from fedrates.solvers import oracles

    def factory(real):
        def wrong(problem, Wf, clients, draws, batch, work=None):
            return real(problem, Wf, clients, draws, 1 if problem.sampling == "gaussian" else batch, work)
        return wrong

    return _patched(oracles, "_sample_gradients", factory)


def minibatch_mean_off_by_one() -> contextlib.AbstractContextManager:
    """Minibatch gradient divided by B + 1 instead of B (a sample count off by one)."""
    from fedrates.solvers import oracles

    def factory(real):
        def wrong(fit, Wf, rows, batch, work=None):
            return real(fit, Wf, rows, batch, work) * batch / (batch + 1)
        return wrong

    return _patched(oracles, "_empirical_gradients", factory)


def implicit_batch_mean_over_n() -> contextlib.AbstractContextManager:
    """The minibatch gradient of implicit features averaged over the client's n samples instead of the B drawn
    ((1/n)Σ_{i∈batch} instead of (1/B)Σ_{i∈batch})."""
    from fedrates.solvers.problems.implicit_least_squares import ImplicitLeastSquares

    def factory(real):
        def wrong(fit, Wf, rows, batch):
            return real(fit, Wf, rows, batch) * batch / fit.samples
        return wrong

    return _patched(ImplicitLeastSquares, "rows_gradients", factory)


def biased_gradient() -> contextlib.AbstractContextManager:
    """Every gradient's mean multiplied by 1.05 (a constant-factor bias, e.g. a wrong normalisation): exact
    gradients, the mean part of Gaussian-noise gradients and minibatch gradients."""
    from fedrates.solvers import oracles

    def exact_factory(real):
        def wrong(*args, **kwargs):
            return 1.05 * real(*args, **kwargs)
        return wrong

    def sample_factory(real):
        # Gaussian-noise gradients already call the (biased) exact gradient; minibatch gradients are scaled here
        def wrong(problem, *args, **kwargs):
            out = real(problem, *args, **kwargs)
            return out if problem.sampling == "gaussian" else 1.05 * out
        return wrong

    stack = contextlib.ExitStack()
    stack.enter_context(_patched(oracles, "_sample_gradients", sample_factory))
    stack.enter_context(_patched(oracles, "exact_gradients", exact_factory))
    return stack


def shared_client_streams() -> contextlib.AbstractContextManager:
    """Every client of a run draws from the same random stream (one generator seeded identically per client)."""
    from fedrates.solvers.algorithms import base
    from fedrates.solvers.oracles import Streams

    def factory(real):
        def wrong(seeds, clients):
            out = []
            for st in real(seeds, clients):
                state = st.clients[0].bit_generator.state
                gens = []
                for _ in range(clients):
                    g = np.random.default_rng()
                    g.bit_generator.state = state
                    gens.append(g)
                out.append(Streams(server=st.server, clients=gens))
            return out
        return wrong

    return _patched(base, "make_streams_many", factory)


def sampling_ignores_replace() -> contextlib.AbstractContextManager:
    """Minibatches always drawn without replacement, whatever the ``replace`` setting."""
    from fedrates.solvers import oracles

    def factory(real):
        def wrong(u, n, batch, replace):
            return real(u, n, batch, False)
        return wrong

    return _patched(oracles, "_indices", factory)


def uncertified_reference() -> contextlib.AbstractContextManager:
    """The reference optimum solved to 1e-4 relative accuracy and returned as if certified (gap field 1e-12)."""
    from fedrates.solvers import reference

    def factory(real):
        def wrong(problem, *args, **kwargs):
            ref = real(problem, *args, **kwargs)
            w = np.asarray(ref.w, dtype=float)
            rng = np.random.default_rng(0)
            direction = rng.standard_normal(w.shape)
            w_bad = w + 1e-2 * max(float(np.linalg.norm(w)), 1.0) * direction / np.linalg.norm(direction)
            if problem.radius is not None:
                w_bad = project_ball(w_bad, problem.radius, len(problem.shape))
            return type(ref)(w=w_bad, value=float(problem.objective(w_bad)), gap=1e-12, method=ref.method,
                             seconds=ref.seconds)
        return wrong

    stack = contextlib.ExitStack()
    stack.enter_context(_patched(reference, "solve", factory))
    return stack


def halved_smoothness() -> contextlib.AbstractContextManager:
    """The constants layer reports L/2 (a halved smoothness constant) to the claims."""
    import dataclasses as dc

    from fedrates.solvers import constants

    def factory(real):
        def wrong(*args, **kwargs):
            c = real(*args, **kwargs)
            return dc.replace(c, L=c.L / 2)
        return wrong

    return _patched(constants, "compute", factory)


def mu_of_mean_hessian() -> contextlib.AbstractContextManager:
    """The constants layer reports µ = λ_min(Σπ_kQ_k) (the mean Hessian's) instead of min_k λ_min(Q_k)
    (Assumption 1 is per client)."""
    import dataclasses as dc

    from fedrates.solvers import constants

    def factory(real):
        def wrong(problem, *args, **kwargs):
            c = real(problem, *args, **kwargs)
            Q = np.einsum("k,kij->ij", problem.weights, np.asarray(problem.datafit.hessians, dtype=float))
            return dc.replace(c, mu=float(np.linalg.eigvalsh(Q)[0]))
        return wrong

    return _patched(constants, "compute", factory)


# ---- the one-pass round of shared-basis quadratics (structured_quadratic.local_average) ----------------------------
def _kernel(wrong: Any) -> contextlib.AbstractContextManager:
    """Patch ``local_average`` (the fused round of FedAvg/FedProx on shared-basis quadratics) by ``wrong``."""
    from fedrates.solvers.problems import structured_quadratic

    return _patched(structured_quadratic, "local_average", lambda real: lambda *a: wrong(real, *a))


def kernel_uniform_weights() -> contextlib.AbstractContextManager:
    """The fused round averages the clients with 1/m instead of π_k."""
    return _kernel(lambda real, fit, cl, w, x, E, eta, mp=0.0: real(fit, cl, np.full(w.shape, 1 / w.shape[1]), x, E,
                                                                     eta, mp))


def kernel_power_e_minus_one() -> contextlib.AbstractContextManager:
    """The fused round contracts by ρ^(E−1) instead of ρ^E (z_E = a + ρ^(E−1)(x̃ − a))."""
    def wrong(real, fit, clients, weights, x, E, eta, mp=0.0):
        xt = fit.to_basis(x)
        lam, ct = fit.lam[clients], fit.ctil[clients]
        a = (lam * ct + mp * xt[:, None]) / (lam + mp)
        z = a + (1.0 - eta * (lam + mp)) ** (E - 1) * (xt[:, None] - a)
        return fit.from_basis(np.einsum("rm,rmd->rd", weights, z))
    return _kernel(wrong)


def kernel_prox_sign() -> contextlib.AbstractContextManager:
    """The fused round with FedProx's μ_p of the wrong sign (ρ = 1 − η(λ − μ_p))."""
    return _kernel(lambda real, fit, cl, w, x, E, eta, mp=0.0: real(fit, cl, w, x, E, eta, -mp))


# ---- the one-pass round of diagonal-plus-rank-one quadratics (lowrank_quadratic.local_average) --------------------
def _lowrank_kernel(wrong: Any) -> contextlib.AbstractContextManager:
    """Patch ``local_average`` (the fused round of FedAvg/FedProx on diagonal-plus-rank-one quadratics) by
    ``wrong``."""
    from fedrates.solvers.problems import lowrank_quadratic

    return _patched(lowrank_quadratic, "local_average", lambda real: lambda *a: wrong(real, *a))


def lowrank_kernel_no_rank_one() -> contextlib.AbstractContextManager:
    """The fused round steps with the diagonal alone: ∇f_k(w) = δ_k ⊙ (w − c_k), the u_k(u_kᵀ(w − c_k)) term
    dropped."""
    from fedrates.solvers.problems.lowrank_quadratic import LowRankQuadratic

    def wrong(real, fit, *a):
        return real(LowRankQuadratic(delta=fit.delta, u=np.zeros_like(fit.u), centres=fit.centres), *a)
    return _lowrank_kernel(wrong)


def lowrank_kernel_prox_sign() -> contextlib.AbstractContextManager:
    """The fused round with FedProx's μ_p of the wrong sign (a step along −μ_p(w − x))."""
    return _lowrank_kernel(lambda real, fit, cl, w, x, E, eta, mp=0.0: real(fit, cl, w, x, E, eta, -mp))


def lowrank_kernel_uniform_weights() -> contextlib.AbstractContextManager:
    """The fused round averages the clients with 1/m instead of π_k."""
    return _lowrank_kernel(lambda real, fit, cl, w, x, E, eta, mp=0.0: real(
        fit, cl, np.full(w.shape, 1 / w.shape[1]), x, E, eta, mp))


def basis_transposed() -> contextlib.AbstractContextManager:
    """The shared basis applied transposed (Vᵀ for V = H₁⋯H_r: the reflections in reverse order) in the fused
    round and in the pair gradients of the stochastic oracle."""
    from fedrates.solvers.problems.structured_quadratic import StructuredQuadratic as SQ

    def flip(fit):
        return SQ(lam=fit.lam, ctil=fit.ctil, reflectors=fit.reflectors[::-1])

    stack = contextlib.ExitStack()
    stack.enter_context(_kernel(lambda real, fit, *a: real(flip(fit), *a)))
    stack.enter_context(_patched(SQ, "pair_gradients", lambda real: lambda fit, *a: real(flip(fit), *a)))
    return stack


# ---- wrong returned points (the law of the point ``run`` returns) ---------------------------------------------------
class _PolyakOutput:
    """Mixin: returns the uniform average of the returned points after rounds 1..R (Polyak averaging) instead of
    the method's own output (the last server iterate for FedAvg, FedProx, FedMiD, FedDA)."""

    def init(self, problem, w0):
        state = dict(super().init(problem, w0))
        return dict(state, _sum=np.zeros_like(np.asarray(w0, dtype=float)), _n=0)

    def round(self, state, problem, ctx):
        new = dict(super().round(state, problem, ctx))
        point = super().output(new)
        return dict(new, _sum=state["_sum"] + point, _n=state["_n"] + 1)

    def output(self, state):
        return super().output(state) if state["_n"] == 0 else state["_sum"] / state["_n"]


@dataclass(frozen=True, kw_only=True)
class FedAvgPolyakOutput(_PolyakOutput, FedAvg):
    """Wrong returned point: the average of the server iterates x_1..x_R instead of x_R."""


@dataclass(frozen=True, kw_only=True)
class FedProxPolyakOutput(_PolyakOutput, FedProx):
    """Wrong returned point: the average of the server iterates instead of the last one."""


@dataclass(frozen=True, kw_only=True)
class FedMiDPolyakOutput(_PolyakOutput, FedMiD):
    """Wrong returned point: the average of the server iterates instead of the last one."""


@dataclass(frozen=True, kw_only=True)
class FedDAPolyakOutput(_PolyakOutput, FedDA):
    """Wrong returned point: the average of the primal points w_1..w_R instead of w_R."""


@dataclass(frozen=True, kw_only=True)
class FedAvgClientAverageOutput(FedAvg):
    """Wrong returned point: the participants' average Σp_k w_k^E of the last round, before the server step
    x_{r+1} = x_r + η_s(avg − x_r) (the state still evolves correctly)."""

    def init(self, problem, w0):
        state = super().init(problem, w0)
        return dict(state, avg=state["x"])

    def round(self, state, problem, ctx):
        new = super().round(state, problem, ctx)
        avg = state["x"] + (new["x"] - state["x"]) / self.server_step
        return dict(new, avg=avg)

    def output(self, state):
        return state["avg"]


@dataclass(frozen=True, kw_only=True)
class FastFedDAIndexShift(FastFedDA):
    """Wrong index range: (1/A_T)Σ_{t=0}^{T} α_t w_t (w₀ in, the last point w_{T+1} out) instead of α_t w_{t+1},
    formed from the running sum w̃_{T+1} = Σ_{i≤T+1} α_i w̌_i."""

    def output(self, state):
        if state["A"] == 0:
            return state["w0"]
        return (state["wt"] - self._alpha(state["t"], state["a"]) * state["w"]) / state["A"]


@dataclass(frozen=True, kw_only=True)
class FastFedDAWtildeOutput(FastFedDA):
    """Wrong estimator: the normalised running sum w̃_{T+1}/A_{T+1} (α-average over w₀..w_{T+1}, w₀ included)."""

    def output(self, state):
        if state["A"] == 0:
            return state["w0"]
        return state["wt"] / (state["A"] + self._alpha(state["t"], state["a"]))


@dataclass(frozen=True, kw_only=True)
class FastFedDAServerPointsOnly(FastFedDA):
    """Wrong estimator: the α-weighted average over the server points w_{(r+1)E} only (what a real server can
    form) instead of over every virtual point w_{t+1}, t = 0..T."""

    def init(self, problem, w0):
        state = super().init(problem, w0)
        return dict(state, snum=np.zeros_like(state["w0"]), sA=0.0)

    def round(self, state, problem, ctx):
        new = super().round(state, problem, ctx)
        alpha = self._alpha(new["t"] - 1, new["a"])
        return dict(new, snum=state["snum"] + alpha * new["w"], sA=state["sA"] + alpha)

    def output(self, state):
        return state["w0"] if state["sA"] == 0 else state["snum"] / state["sA"]


@dataclass(frozen=True, kw_only=True)
class CFedDAIndexShift(CFedDA):
    """Wrong index range: (1/A_R)Σ_{r=0}^{R} α_r w̄_r (the centre in, the last server point out) instead of
    α_r w̄_{r+1}, formed from the running sum w̃_{R+1}."""

    def output(self, state):
        if state["A"] == 0:
            return state["w0"]
        return (state["wt"] - (state["r"] + state["a"]) ** 2 * state["wbar"]) / state["A"]


@dataclass(frozen=True, kw_only=True)
class CFedDAUniformAverage(CFedDA):
    """Wrong weights: the uniform average of the server points w̄_1..w̄_{R+1} instead of the α_r-weighted one."""

    def init(self, problem, w0):
        state = super().init(problem, w0)
        return dict(state, usum=np.zeros_like(state["w0"]), un=0)

    def round(self, state, problem, ctx):
        new = super().round(state, problem, ctx)
        return dict(new, usum=state["usum"] + new["wbar"], un=state["un"] + 1)

    def output(self, state):
        return state["w0"] if state["un"] == 0 else state["usum"] / state["un"]


@dataclass(frozen=True, kw_only=True)
class MCFedDALastServerPoint(MCFedDA):
    """Wrong returned point: the current stage's last server point w̄ instead of its α-weighted average."""

    def output(self, state):
        return state["w0"] if state["A"] == 0 else state["wbar"]


@dataclass(frozen=True, kw_only=True)
class MCFedDAStageCentre(MCFedDA):
    """Wrong returned point: the current stage's centre ŵ_m (the previous stage's output) instead of ŵ_{m+1}; in
    the first stage the running output, so the bug shows only after a restart."""

    def output(self, state):
        if state["stage"] == 0:
            return super().output(state)
        return state["w0"]


# ---- broken variants ------------------------------------------------------------------------------------------
def _with(cls: type) -> Any:
    """``apply``: run the claim with the broken class (built with the claim's own hyperparameters)."""
    return lambda claim: claim.with_algorithm(cls)


def _variants() -> tuple[Any, ...]:
    from fedrates.verify.claims.bao.exact import CLAIMS
    from fedrates.verify.variants import BrokenVariant as V

    structured = tuple(c.id for c in CLAIMS if "/structured-" in c.id)
    kernel = tuple(c for c in structured if c.startswith("bao.exact/"))
    lowrank = tuple(c.id for c in CLAIMS if "/lowrank-" in c.id)
    fedavg = ("bao.exact/fedavg-moments", "bao.exact/fedavg-fixed-point", "bao.returned/fedavg") + tuple(
        c for c in kernel if "fedavg" in c)
    fedprox = ("bao.exact/fedprox-moments", "bao.returned/fedprox") + tuple(c for c in structured if "fedprox" in c)
    fedda = ("bao.exact/fedda-moments", "bao.limit/fedda", "bao.returned/fedda")
    fedmid = ("bao.exact/fedmid-moments", "bao.limit/fedmid-prox-gradient", "bao.returned/fedmid",
              "bao.returned/fedmid-trace-population")
    fast = ("bao.exact/fast-fedda-moments", "bao.limit/fast-fedda", "bao.returned/fast-fedda",
            "bao.returned/fast-fedda-population", "bao.returned/fast-fedda-sampled")
    cfd = ("bao.exact/c-fedda-moments", "bao.limit/c-fedda-offcentre", "bao.returned/c-fedda",
           "bao.returned/c-fedda-sampled")
    mcf = ("bao.limit/mc-fedda", "bao.returned/mc-fedda")
    moments = tuple(c.id for c in CLAIMS if c.id.endswith("-moments"))
    gaussian = tuple(c.id for c in CLAIMS if c.id.endswith("-moments") and getattr(c, "family", "") == "quadratic")
    sampled = tuple(c.id for c in CLAIMS if c.id.endswith("-moments") and getattr(c, "family", "") == "lasso")
    limits = tuple(c.id for c in CLAIMS if c.id.startswith("bao.limit/"))
    return (
        V("fedavg/uniform-weights", "algorithm", "the server averages with 1/m instead of π_k", fedavg,
          apply=_with(FedAvgUniformWeights)),
        V("fedavg/server-step-ignored", "algorithm", "the server step size η_s is ignored (x ← average)", fedavg,
          apply=_with(FedAvgNoServerStep)),
        V("fedavg/local-steps-off-by-one", "algorithm", "E − 1 local steps per round", fedavg,
          apply=_with(FedAvgOneStepShort)),
        V("fedavg/first-client-returned", "algorithm", "the server keeps the first client's model", fedavg,
          apply=_with(FedAvgFirstClient)),
        V("fedprox/prox-sign", "algorithm", "proximal term with the wrong sign", fedprox,
          apply=_with(FedProxWrongSign)),
        V("fedprox/local-anchor", "algorithm", "proximal term anchored at the local iterate (no effect)", fedprox,
          apply=_with(FedProxLocalAnchor)),
        V("fedda/uniform-weights", "algorithm", "dual states averaged with 1/m instead of π_k", fedda,
          apply=_with(FedDAUniformWeights)),
        V("fedda/primal-average", "algorithm", "the server averages primal points instead of dual states", fedda,
          apply=_with(FedDAPrimalAverage)),
        V("fedda/threshold-per-round", "algorithm", "dual-averaging threshold grows per round, not per step",
          fedda, apply=_with(FedDAThresholdPerRound)),
        V("fedda/gradient-at-dual", "algorithm", "gradients taken at the dual state instead of prox(z)", fedda,
          apply=_with(FedDAGradientAtDual)),
        V("fedmid/double-threshold", "algorithm", "local prox threshold 2η_c instead of η_c", fedmid,
          apply=_with(FedMiDDoubleThreshold)),
        V("fedmid/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", fedmid,
          apply=_with(FedMiDUniformWeights)),
        V("fast_fedda/alpha-off-by-one", "algorithm", "α_t = (t + 1 + a)² (1-based t)", fast,
          apply=_with(FastFedDAAlphaShift)),
        V("fast_fedda/last-server-point", "algorithm", "returns the last server point, not the weighted average",
          fast, apply=_with(FastFedDALastServerPoint)),
        V("fast_fedda/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", fast,
          apply=_with(FastFedDAUniformWeights)),
        V("fast_fedda/half-gamma", "algorithm", "γ = µa³ instead of 2µa³", fast, apply=_with(FastFedDAHalfGamma)),
        V("fast_fedda/prox-dropped", "algorithm", "Prox_t without the penalty (projection only)", fast,
          apply=_with(FastFedDAProxDropped)),
        V("fast_fedda/threshold-per-step", "algorithm", "Prox_t threshold from the last weight, not A_t", fast,
          apply=_with(FastFedDAThresholdPerStep)),
        V("fast_fedda/plus-sign", "algorithm", "the estimator as printed in Theorem 2.1: Prox(ḡ + µw̃/2)", fast,
          apply=_with(FastFedDAPlusSign)),
        V("c_fedda/inexact-cprox", "algorithm", "CProx by soft-threshold then projection (inexact off-centre)",
          cfd + mcf, patch=inexact_cprox),
        V("c_fedda/gradient-weight-per-round", "algorithm", "the local gradient sum divided by E", cfd,
          apply=_with(CFedDAStepWeights)),
        V("c_fedda/last-server-point", "algorithm", "returns w̄_R instead of the α-weighted average", cfd,
          apply=_with(CFedDALastServerPoint)),
        V("c_fedda/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", cfd,
          apply=_with(CFedDAUniformWeights)),
        V("mc_fedda/stage-off-by-one", "algorithm", "the λ schedule stops one halving before λ_opt", mcf,
          apply=_with(MCFedDANoHalving)),
        # wrong returned points: each is run against the returned-point claim of its method only
        V("fedavg/polyak-output", "algorithm", "returns the average of the server iterates x_1..x_R, not x_R",
          ("bao.returned/fedavg",), apply=_with(FedAvgPolyakOutput)),
        V("fedavg/client-average-output", "algorithm",
          "returns the participants' average before the server step η_s, not the server iterate",
          ("bao.returned/fedavg",), apply=_with(FedAvgClientAverageOutput)),
        V("fedprox/polyak-output", "algorithm", "returns the average of the server iterates, not the last one",
          ("bao.returned/fedprox",), apply=_with(FedProxPolyakOutput)),
        V("fedmid/polyak-output", "algorithm", "returns the average of the server iterates, not the last one",
          ("bao.returned/fedmid", "bao.returned/fedmid-trace-population"), apply=_with(FedMiDPolyakOutput)),
        V("fedda/polyak-output", "algorithm", "returns the average of the primal points w_1..w_R, not w_R",
          ("bao.returned/fedda",), apply=_with(FedDAPolyakOutput)),
        V("fast_fedda/index-shift-output", "algorithm",
          "returns Σ_{t≤T} α_t w_t/A_T (w₀ in, w_{T+1} out) instead of Σ_{t≤T} α_t w_{t+1}/A_T",
          ("bao.returned/fast-fedda", "bao.returned/fast-fedda-population"), apply=_with(FastFedDAIndexShift)),
        V("fast_fedda/wtilde-output", "algorithm", "returns the running sum w̃_{T+1}/A_{T+1} (w₀ included)",
          ("bao.returned/fast-fedda",), apply=_with(FastFedDAWtildeOutput)),
        V("fast_fedda/server-points-only", "algorithm",
          "α-weighted average over the server points only, not over every virtual point",
          ("bao.returned/fast-fedda", "bao.returned/fast-fedda-population"),
          apply=_with(FastFedDAServerPointsOnly)),
        V("c_fedda/index-shift-output", "algorithm",
          "returns Σ_{r≤R} α_r w̄_r/A_R (centre in, w̄_{R+1} out) instead of Σ_{r≤R} α_r w̄_{r+1}/A_R",
          ("bao.returned/c-fedda",), apply=_with(CFedDAIndexShift)),
        V("c_fedda/uniform-average-output", "algorithm", "uniform average of the server points, not α_r-weighted",
          ("bao.returned/c-fedda",), apply=_with(CFedDAUniformAverage)),
        V("mc_fedda/last-server-point", "algorithm", "returns the stage's last server point, not its average",
          ("bao.returned/mc-fedda",), apply=_with(MCFedDALastServerPoint)),
        V("mc_fedda/stage-centre-output", "algorithm",
          "returns the current stage's centre ŵ_m (previous stage output) instead of ŵ_{m+1}",
          ("bao.returned/mc-fedda",), apply=_with(MCFedDAStageCentre)),
        V("structured/kernel-uniform-weights", "algorithm", "the one-pass round averages with 1/m, not π_k", kernel,
          patch=kernel_uniform_weights),
        V("structured/kernel-power-E-1", "algorithm", "the one-pass round contracts by ρ^(E−1) instead of ρ^E",
          kernel, patch=kernel_power_e_minus_one),
        V("structured/kernel-prox-sign", "algorithm", "the one-pass round with FedProx's μ_p of the wrong sign",
          tuple(c for c in kernel if "fedprox" in c), patch=kernel_prox_sign),
        V("structured/basis-transposed", "algorithm", "the shared basis applied transposed (Vᵀ for V)",
          tuple(c for c in structured if "basis" in c or c.startswith("bao.returned/")), patch=basis_transposed),
        V("lowrank/kernel-no-rank-one", "algorithm", "the one-pass round drops the rank-one term u_k(u_kᵀ(w − c_k))",
          lowrank, patch=lowrank_kernel_no_rank_one),
        V("lowrank/kernel-prox-sign", "algorithm", "the one-pass round with FedProx's μ_p of the wrong sign",
          tuple(c for c in lowrank if "fedprox" in c), patch=lowrank_kernel_prox_sign),
        V("lowrank/kernel-uniform-weights", "algorithm", "the one-pass round averages with 1/m, not π_k", lowrank,
          patch=lowrank_kernel_uniform_weights),
        V("oracle/noise-ignores-batch", "oracle", "Gaussian noise σ/√d instead of σ/√(dB)", gaussian,
          patch=noise_not_divided_by_batch),
        V("oracle/minibatch-divides-by-B+1", "oracle", "minibatch gradient divided by B + 1",
          sampled + ("bao.returned/fedavg-implicit",), patch=minibatch_mean_off_by_one),
        V("implicit/batch-mean-over-n", "oracle", "implicit-feature minibatch gradient averaged over n, not B",
          ("bao.returned/fedavg-implicit",), patch=implicit_batch_mean_over_n),
        V("oracle/biased-gradient", "oracle", "every gradient multiplied by 1.05", moments + limits,
          patch=biased_gradient),
        V("oracle/shared-client-streams", "oracle", "all clients draw from identically seeded streams", moments,
          patch=shared_client_streams),
        V("oracle/replace-ignored", "oracle", "minibatches always drawn without replacement",
          ("bao.exact/fedmid-moments",), patch=sampling_ignores_replace),
        V("reference/uncertified", "reference", "reference solved to ~1e-4 and reported as certified", limits,
          patch=uncertified_reference),
        V("constants/half-L", "constants", "the constants layer reports L/2", ("bao.thm2.1/rate-T",),
          patch=halved_smoothness),
        V("constants/mu-of-mean-hessian", "constants", "µ taken from the mean Hessian instead of per client",
          ("bao.thm2.1/rate-T",), patch=mu_of_mean_hessian),
    )


VARIANTS: tuple[Any, ...] = _variants()
