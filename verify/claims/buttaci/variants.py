"""Broken variants of the Buttaci & Calafiore algorithms: plausible wrong implementations of PFL(β)
(Algorithm 1) and of FedProx as analysed (App. A), each changing one thing of the correct code, and a patch that
drops the sign canonicalisation of the similarity graph's messages. The catalogue ``VARIANTS`` at the end of this
module names the claims every variant must be caught by.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms.fedprox import FedProx
from fedrates.solvers.algorithms.pfl import PFL
from fedrates.verify.variants import BrokenVariant

__all__ = ["VARIANTS", "BetaOnWrongModel", "UniformAggregation", "CurrentRoundNeighbours", "StepTimesTen", "StepOverE",
           "NoBroadcast", "ProxSignFlipped", "FedProxStepTimesTen", "FedProxStepOverE", "FedProxNoBroadcast",
           "no_sign_canonicalisation", "cosine_adjacency", "row_normalised_weights", "ReturnsUniformAverage",
           "FedProxReturnsPrevious", "gamma_uniform_weights", "extremes_of_f", "cauchy_least_squares_gradients",
           "cauchy_L_of_f"]


@dataclass(frozen=True, kw_only=True)
class BetaOnWrongModel(PFL):
    """w̃ = (1 − β) w + β u: the mixing weights swapped."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        x, U = state["x"], state["u"]
        R, m = ctx.clients.shape
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            W = W - self.step * ctx.gradients((1 - self.beta) * W + self.beta * U)
        return {"x": np.einsum("rm,rmd->rd", ctx.weights, W), "u": self.neighbour_averages(problem, W)}


@dataclass(frozen=True, kw_only=True)
class UniformAggregation(PFL):
    """Aggregation with n_i/N (the instances have equal sample counts: 1/C) instead of the graph degrees p_i."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        R, m = ctx.clients.shape
        ctx.weights = np.full((R, m), 1.0 / m)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class CurrentRoundNeighbours(PFL):
    """u^i formed from the neighbours' current local iterates w_{t,k}^n instead of their last-round models."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        x = state["x"]
        R, m = ctx.clients.shape
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            U = self.neighbour_averages(problem, W)
            W = W - self.step * ctx.gradients(self.beta * W + (1 - self.beta) * U)
        return {"x": np.einsum("rm,rmd->rd", ctx.weights, W), "u": self.neighbour_averages(problem, W)}


@dataclass(frozen=True, kw_only=True)
class StepTimesTen(PFL):
    """Every local step ten times too large."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        grads = ctx.gradients
        ctx.gradients = lambda W, clients=None: 10.0 * grads(W, clients)
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class StepOverE(PFL):
    """Local step γ/E (the step normalised by the number of local steps) instead of γ."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        grads, E = ctx.gradients, self.local_steps
        ctx.gradients = lambda W, clients=None: grads(W, clients) / E
        return super().round(state, problem, ctx)


@dataclass(frozen=True, kw_only=True)
class FedProxStepOverE(FedProx):
    """Local step γ/E (the step normalised by the number of local steps) instead of γ."""

    def local_direction(self, G: np.ndarray, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        return super().local_direction(G, W, x) / self.local_steps


@dataclass(frozen=True, kw_only=True)
class ProxSignFlipped(FedProx):
    """FedProx's local direction g − α(w − w̄_{t,0}): the proximal term's sign flipped."""

    def local_direction(self, G: np.ndarray, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        return G - self.mu_prox * (W - x)


@dataclass(frozen=True, kw_only=True)
class FedProxStepTimesTen(FedProx):
    """Every local step ten times too large."""

    def local_direction(self, G: np.ndarray, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        return 10.0 * super().local_direction(G, W, x)


@dataclass(frozen=True, kw_only=True)
class NoBroadcast(PFL):
    """Clients start each round from their own last local model instead of the server model w̄_{t,0}."""

    def init(self, problem: Any, w0: np.ndarray) -> dict:
        state = super().init(problem, w0)
        return state | {"local": state["u"].copy()}

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        W, U = state["local"].copy(), state["u"]
        for _ in range(self.local_steps):
            W = W - self.step * ctx.gradients(self.beta * W + (1 - self.beta) * U)
        return {"x": np.einsum("rm,rmd->rd", ctx.weights, W), "u": self.neighbour_averages(problem, W), "local": W}


@dataclass(frozen=True, kw_only=True)
class FedProxNoBroadcast(FedProx):
    """Clients start each round from their own last local model instead of the server model."""

    def init(self, problem: Any, w0: np.ndarray) -> dict:
        x = np.array(w0, dtype=float)
        return {"x": x, "local": np.repeat(x[:, None], problem.clients, axis=1)}

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        x, W = state["x"], state["local"].copy()
        for _ in range(self.local_steps):
            W = W - self.step * self.local_direction(ctx.gradients(W), W, x[:, None])
        return {"x": np.einsum("rm,rmd->rd", ctx.weights, W), "local": W}


@contextmanager
def no_sign_canonicalisation() -> Iterator[None]:
    """Messages keep whatever sign the eigen/SVD routine returns."""
    from fedrates.solvers import similarity

    original = similarity.canonical_sign
    similarity.canonical_sign = lambda M: np.asarray(M, dtype=float)
    try:
        yield
    finally:
        similarity.canonical_sign = original


@contextmanager
def cosine_adjacency() -> Iterator[None]:
    """[A]_in = 1 − mis(i, n) (cosine similarity mapped to [0, 1]) instead of −ln mis(i, n) (Def. 2): symmetric,
    non-negative, zero diagonal; p_in = A_in/𝟏ᵀA𝟏 and p_i = Σ_n p_in keep every degree identity."""
    from fedrates.solvers import similarity

    original = similarity.adjacency

    def adjacency(mis: np.ndarray, clip: float = similarity.DEFAULT_CLIP) -> tuple[np.ndarray, int]:
        A, clipped = original(mis, clip)
        return np.where(np.eye(A.shape[0], dtype=bool), 0.0, 1.0 - np.asarray(mis, dtype=float)), clipped

    similarity.adjacency = adjacency
    try:
        yield
    finally:
        similarity.adjacency = original


@contextmanager
def row_normalised_weights() -> Iterator[None]:
    """p_in = (A_in/(C Σ_m A_im) + A_ni/(C Σ_m A_nm))/2 (each row normalised, then symmetrised) instead of
    A_in/𝟏ᵀA𝟏 (Algorithm 1): still symmetric, non-negative, Σ p_in = 1 and p_i = Σ_n p_in."""
    from fedrates.solvers import similarity

    original = similarity.adjacency

    def adjacency(mis: np.ndarray, clip: float = similarity.DEFAULT_CLIP) -> tuple[np.ndarray, int]:
        A, clipped = original(mis, clip)
        R = A / (A.shape[0] * A.sum(axis=1, keepdims=True))
        # scaled so that 𝟏ᵀA𝟏 = 1: build_graph's normalisation then returns these weights unchanged
        return 0.5 * (R + R.T), clipped

    similarity.adjacency = adjacency
    try:
        yield
    finally:
        similarity.adjacency = original


@dataclass(frozen=True, kw_only=True)
class ReturnsUniformAverage(PFL):
    """Returns the unweighted mean of the clients' neighbour averages (1/C) Σ_i u^i instead of the server model
    w̄_{T,0} = Σ_i p_i w_{T−1,E}^i; the rounds themselves are correct."""

    def output(self, state: dict) -> np.ndarray:
        return np.mean(state["u"], axis=1)


@dataclass(frozen=True, kw_only=True)
class FedProxReturnsPrevious(FedProx):
    """Returns the server model of the round before (w̄_{T−1,0}) instead of w̄_{T,0}; the rounds are correct."""

    def round(self, state: dict, problem: Any, ctx: Any) -> dict:
        return super().round(state, problem, ctx) | {"previous": state["x"]}

    def output(self, state: dict) -> np.ndarray:
        return state.get("previous", state["x"])


@contextmanager
def _patched_constants(change: Any) -> Iterator[None]:
    from fedrates.solvers.problems import similar_quadratic as sq

    original = sq.exact_constants

    def exact_constants(problem: Any) -> dict:
        return change(problem, original(problem))

    sq.exact_constants = exact_constants
    try:
        yield
    finally:
        sq.exact_constants = original


def _gamma_uniform(problem: Any, consts: dict) -> dict:
    fit = problem.datafit
    H, b, c = fit.hessians, fit.linear_terms, fit.offsets
    K = problem.clients
    w = np.linalg.solve(H.mean(axis=0), b.mean(axis=0))
    f_u = float(np.mean([0.5 * w @ H[i] @ w - b[i] @ w + c[i] for i in range(K)]))
    if consts["client_minima"] is None:
        return consts
    return consts | {"Gamma": f_u - float(np.mean(consts["client_minima"]))}


def gamma_uniform_weights() -> Any:
    """Γ = min_w (1/C)Σ f_i(w) − (1/C)Σ f_i* (uniform weights) instead of the degree weights of Def. 3."""
    return _patched_constants(_gamma_uniform)


def extremes_of_f() -> Any:
    """L and μ of f (the weighted average) instead of the per-client extremes of Assumptions 4–5."""
    return _patched_constants(lambda problem, consts: consts | {"L": consts["L_f"], "mu": consts["mu_f"]})


@contextmanager
def cauchy_least_squares_gradients() -> Iterator[None]:
    """The oracle of the Cauchy-loss federation returns the least-squares gradients X_iᵀ(X_i w − y_i)/n (the
    residual r instead of ρ'(r) = r/(1 + r²/c²)): the loss the runs optimise is not the one the claims measure."""
    from fedrates.verify.claims.buttaci.cauchy import CauchyRegression

    original = CauchyRegression.gradients_at

    def gradients_at(self: Any, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        X, y = self.X[clients], self.y[clients]
        r = np.einsum("rmnd,rmd->rmn", X, Wf) - y
        return np.einsum("rmnd,rmn->rmd", X, r) / self.samples

    CauchyRegression.gradients_at = gradients_at
    try:
        yield
    finally:
        CauchyRegression.gradients_at = original


@contextmanager
def cauchy_L_of_f() -> Iterator[None]:
    """L of the Cauchy-loss federation taken as λ_max(Σ_i p_i X_iᵀX_i/n) (the average's curvature at zero residual)
    instead of max_i ‖X_iᵀX_i/n‖₂ (Assumption 4 for every f_i)."""
    from fedrates.verify.claims.buttaci import cauchy

    original = cauchy.cauchy_instance

    def cauchy_instance(params: dict | None = None) -> tuple[Any, dict]:
        problem, consts = original(params)
        Hbar = np.einsum("k,kde->de", problem.weights, problem.datafit.hessians)
        return problem, consts | {"L": float(np.linalg.eigvalsh(Hbar)[-1])}

    cauchy.cauchy_instance = cauchy_instance
    try:
        yield
    finally:
        cauchy.cauchy_instance = original


# ---- the catalogue: every broken variant and the claims that must catch it
def _with(alg: Any) -> Any:
    """``apply``: run the claim with the broken algorithm."""
    return lambda claim: claim.with_algorithm(alg)


VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant(
        id="similar_quadratic/gamma-uniform-weights", target="instance",
        bug="Γ of Def. 3 computed with uniform weights 1/C (in f* and in Σ p_i f_i*) instead of the degrees",
        claims=("buttaci.constants/second-route",), patch=gamma_uniform_weights),
    BrokenVariant(
        id="similar_quadratic/L-mu-of-f", target="instance",
        bug="L and μ of f instead of the per-client extremes max_i ‖H_i‖, min_i λ_min(H_i) (Assumptions 4–5)",
        claims=("buttaci.constants/second-route",), patch=extremes_of_f),
    BrokenVariant(
        id="similarity/cosine-adjacency", target="instance",
        bug="adjacency 1 − mis(i, n) instead of −ln mis(i, n) (Def. 2); symmetric, non-negative, degree "
            "identities kept",
        claims=("buttaci.graph/invariants", "buttaci.lemB3/round-map", "buttaci.lemA3/round-map"),
        patch=cosine_adjacency),
    BrokenVariant(
        id="similarity/row-normalised-weights", target="instance",
        bug="p_in from row-normalised adjacency, symmetrised, instead of A_in/1ᵀA1 (Algorithm 1); symmetric, "
            "non-negative, Σ p_in = 1, p_i = Σ_n p_in kept",
        claims=("buttaci.graph/invariants", "buttaci.lemB3/round-map", "buttaci.lemA3/round-map"),
        patch=row_normalised_weights),
    BrokenVariant(
        id="pfl/returns-uniform-neighbour-mean", target="algorithm",
        bug="returns (1/C) Σ_i u^i (an unweighted mean of the neighbour averages) instead of the server model",
        claims=("buttaci.alg1/returned-point",), apply=_with(ReturnsUniformAverage())),
    BrokenVariant(
        id="fedprox/returns-previous-round", target="algorithm",
        bug="returns the previous round's server model w̄_{T−1,0} instead of w̄_{T,0}",
        claims=("buttaci.alg1/returned-point",), apply=_with(FedProxReturnsPrevious())),
    BrokenVariant(
        id="similarity/no-sign-canonicalisation", target="instance",
        bug="messages taken with whatever sign the eigen/SVD routine returns (Def. 1 is sign-sensitive)",
        claims=("buttaci.graph/invariants",), patch=no_sign_canonicalisation),
    BrokenVariant(
        id="pfl/beta-on-wrong-model", target="algorithm",
        bug="perturbed point (1 − β) w + β u instead of β w + (1 − β) u",
        claims=("buttaci.lemma1/identity", "buttaci.alg1/reductions", "buttaci.lemB3.kappa/exact-multiplier",
                "buttaci.lemB3.kappa/mean-multiplier", "buttaci.eq9/speedup", "buttaci.thm3/beta-floor"),
        apply=_with(BetaOnWrongModel())),
    BrokenVariant(
        id="pfl/sample-size-weights", target="algorithm",
        bug="server aggregates with n_i/N (1/C here) instead of the graph degrees p_i",
        claims=("buttaci.lemma1/identity", "buttaci.alg1/reductions", "buttaci.lemB3.kappa/exact-multiplier",
                "buttaci.cor1/rate"),
        apply=_with(UniformAggregation())),
    BrokenVariant(
        id="pfl/current-round-neighbours", target="algorithm",
        bug="u^i from the neighbours' current local iterates instead of their last-round models",
        claims=("buttaci.lemma1/identity", "buttaci.lemB3.kappa/exact-multiplier", "buttaci.thm3/beta-floor"),
        apply=_with(CurrentRoundNeighbours())),
    BrokenVariant(
        id="pfl/step-x10", target="algorithm", bug="local steps ten times the theorem step size",
        claims=("buttaci.lemB3.kappa/exact-multiplier", "buttaci.lemB2/deviation", "buttaci.lemB3.kappa/stability"),
        apply=_with(StepTimesTen())),
    BrokenVariant(
        id="fedprox/prox-sign-flipped", target="algorithm",
        bug="local direction g − α(w − w̄_{t,0}): the proximal term pushes away from the server model",
        claims=("buttaci.lemA3.kappa/exact-multiplier", "buttaci.eq9/ordering"),
        apply=_with(ProxSignFlipped())),
    BrokenVariant(
        id="fedprox/step-x10", target="algorithm", bug="local steps ten times the theorem step size",
        claims=("buttaci.lemA3.kappa/exact-multiplier", "buttaci.lemA2/deviation", "buttaci.lemA3/recursion"),
        apply=_with(FedProxStepTimesTen())),
    BrokenVariant(
        id="pfl/no-broadcast", target="algorithm",
        bug="clients start every round from their own last local model (the server model is never sent back)",
        claims=("buttaci.cor1/rate", "buttaci.lemB3/round-map"),
        apply=_with(NoBroadcast())),
    BrokenVariant(
        id="pfl/step-over-E", target="algorithm",
        bug="local step γ/E (normalised by the number of local steps) instead of the theorem step γ",
        claims=("buttaci.thm4/validity", "buttaci.lemB3.kappa/exact-multiplier", "buttaci.eq9/speedup",
                "buttaci.thm4/cauchy", "buttaci.cor1/schedules"),
        apply=_with(StepOverE())),
    BrokenVariant(
        id="fedprox/step-over-E", target="algorithm",
        bug="local step γ/E (normalised by the number of local steps) instead of the theorem step γ",
        claims=("buttaci.thm2/validity", "buttaci.lemA3.kappa/exact-multiplier"),
        apply=_with(FedProxStepOverE())),
    BrokenVariant(
        id="fedprox/no-broadcast", target="algorithm",
        bug="clients start every round from their own last local model (the server model is never sent back)",
        claims=("buttaci.thm2/validity", "buttaci.lemA3/round-map"),
        apply=_with(FedProxNoBroadcast())),
    BrokenVariant(
        id="fedprox/update-divided-by-C", target="algorithm",
        bug="server applies the weighted average of the client updates divided once more by C (= server step 1/C)",
        claims=("buttaci.thm2/validity", "buttaci.lemA3.kappa/exact-multiplier", "buttaci.thm2/cauchy"),
        apply=_with(FedProx(server_step=1 / 6))),
    BrokenVariant(
        id="cauchy/least-squares-gradients", target="instance",
        bug="the oracle of the Cauchy-loss federation returns least-squares gradients (residual r instead of "
            "ρ'(r) = r/(1 + r²/c²))",
        claims=("buttaci.thm4/cauchy", "buttaci.thm2/cauchy"), patch=cauchy_least_squares_gradients),
    BrokenVariant(
        id="cauchy/L-of-f", target="instance",
        bug="L of the Cauchy-loss federation from the average's curvature λ_max(Σ p_i X_iᵀX_i/n) instead of "
            "max_i ‖X_iᵀX_i/n‖₂ (Assumption 4, every f_i)",
        claims=("buttaci.thm2/cauchy", "buttaci.thm4/cauchy"), patch=cauchy_L_of_f),
)
