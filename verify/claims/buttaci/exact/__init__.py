"""Exact and identity claims of Buttaci & Calafiore, "Aiding Global Convergence in Federated Learning via Local
Perturbation and Mutual Similarity Information": predictions exact up to rounding (or to a two-sided Monte-Carlo
interval), which a wrong implementation fails even when every bound still holds.

Instances are least-squares federations with a similarity graph (:mod:`fedrates.solvers.problems.similar_quadratic`):
exact Hessians, the graph built from the clients' data by Def. 1–2, and the aggregation weights equal to the graph
degrees (the "Adjacency scheme"), so the optimum, Γ and S are those of the objective the theorems bound.  Every run
is instrumented (:mod:`fedrates.verify.claims.buttaci.instances`): the gradient query points and gradients are recorded
and the paper's virtual averages w̄_{t,k} are formed by its own rules, independently of the algorithm's internals.

Claims (the most exact prediction each statement allows; submodules :mod:`.identities` and
:mod:`.contraction`):

* ``buttaci.graph/invariants`` — Def. 1–2 / Algorithm 1: P symmetric, zero diagonal, Σp_in = 1, Σp_i = 1,
  mis = ‖m_i − m_n‖²/4, messages are the top PCs, permutation equivariance, invariance to message sign flips,
  the clipping path for identical messages, and the definitions themselves on every pair: A_in = −ln max(mis, clip),
  p_in = A_in/𝟏ᵀA𝟏, p_i = Σ_n p_in, and the instances' graphs against the graph recomputed from their raw data
  (tolerance 1e-12);
* ``buttaci.lemma1/identity`` — Lemma 1, Σ_i p_i w̃_{t,k}^i = β w̄_{t,k} + (1 − β) w̄_{t,0} at every (t, k),
  deterministic and stochastic, with a negative control (the same identity with 1/C weights must fail);
* ``buttaci.alg1/returned-point`` — the point PFL, FedProx and FedAvg return after every round is the
  degree-weighted server model Σ_i p_i w_{t,E}^i rebuilt pathwise from the recorded stochastic gradients;
* ``buttaci.alg1/reductions`` — PFL(β = 1) and FedProx(α = 0) reproduce FedAvg's trajectory bit for bit; with
  E = 1 on a common Hessian PFL(β) has FedAvg's trajectory for every β; on a common Hessian a symmetric perturbation
  of p_in at fixed degrees leaves PFL's w̄ unchanged (with a control that the perturbed points do move);
* ``buttaci.lemB3.kappa/exact-multiplier`` and ``buttaci.lemA3.kappa/exact-multiplier`` — on common-Hessian
  quadratics every eigen-component of w̄_t − w* is multiplied per round by φ_β(λ) (ψ_α(λ)); at λ = μ this is the
  lemma's κ exactly (relative 1e-6), and κ ≤ the intermediate factor ≤ the theorem factor;
* ``buttaci.lemB3.kappa/mean-multiplier`` — with gradient noise the Monte-Carlo mean of every eigen-component
  follows φ_β(λ)^t exactly (two-sided, family-wise 99.99%, :data:`fedrates.verify.tolerances.EXACT_CONFIDENCE`);
* ``buttaci.lemB3.kappa/stability`` — large steps (App. C.7): stable iff max|φ_β(λ)| < 1, measured on both sides of
  the exact boundary γ_c(β), which lies below FedAvg's for β < 1/2 and above it for β > 1/2;
* ``buttaci.lemB3/round-map`` and ``buttaci.lemA3/round-map`` — on cluster-specific Hessians the server trajectory is
  the iterate sequence of the affine round map built from (H_i, b_i) and the graph of Def. 2 recomputed from the
  data (so a graph built by another formula is detected), and its fixed point is the limit (FedAvg at E = 1:
  exactly w*; PFL: biased even at E = 1, reported); the same map with another admissible graph misses the run;
* ``buttaci.lemB2/deviation`` and ``buttaci.lemA2/deviation`` — Lemmas B.1–B.2 and A.1–A.2 pathwise at every
  (t, k, i) with the realised G_t², with constant and alternating steps (γ_{t−1} ≠ γ_t), and on a two-client
  instance where B.1 is attained;
* ``buttaci.eq9/ordering`` — eq. (9) at theorem level (sympy: the margins are the stated positive expressions for
  all β ∈ (0, 1), α > 0; the chain κ ≤ intermediate ≤ theorem and the monotonicity in β and α on grids) and the
  lemma-level ordering measured;
* ``buttaci.constants/second-route`` — the constants of Theorems 1–4 (L, μ as per-client extremes, S, w*, f*,
  Γ with the degree weights) recomputed by a second route from the raw data (relative 1e-9).

Partial participation is refused for every PFL claim: Algorithm 1's partial branch is undefined and Lemma 1 needs
every client (:class:`fedrates.solvers.algorithms.pfl.PFL` raises on it).

The bound claims (Lemmas A.3/B.3 round by round, Theorems 1–4, Sec. 5, Corollary 1) are in
:mod:`fedrates.verify.claims.buttaci.theorems`; the speedup read into eq. (9) in
:mod:`fedrates.verify.claims.buttaci.errata`.
"""

from __future__ import annotations

from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.buttaci.exact.contraction import (
    Deviation,
    Eq9Ordering,
    ExactMultiplier,
    MeanMultiplier,
    RoundMap,
    Stability,
)
from fedrates.verify.claims.buttaci.exact.identities import (
    Constants,
    GraphInvariants,
    Lemma1Identity,
    Reductions,
    ReturnedPoint,
)
from fedrates.verify.claims.buttaci.instances import CLUSTER_REGIME as _CLUSTER_REGIME
from fedrates.verify.claims.buttaci.instances import COMMON_REGIME as _COMMON_REGIME

__all__ = ["CLAIMS"]

_GRAPH_REGIME = ("Graphs of Def. 1–2 from the data of the two built-in instances (messages of features, and of "
                 "features with targets), of Gaussian data with client means, and of three identical clients.")

CLAIMS: tuple[Claim, ...] = (
    GraphInvariants(
        id="buttaci.graph/invariants", theorem="buttaci.graph", algorithm="pfl", problem="similar_quadratic",
        reference_free="graph invariants, no optimum involved",
        title="Similarity graph (Def. 1–2, Algorithm 1): weights, degrees, misalignment and invariances",
        regime=_GRAPH_REGIME, metric="symmetry", x="point",
        why="every later statement uses p_in and p_i; the identities are exact, so the tolerance is rounding only"),
    Constants(
        id="buttaci.constants/second-route", theorem="buttaci.thm3", algorithm="pfl", problem="similar_quadratic",
        reference_free="constants compared between two routes",
        title="Constants of Theorems 1–4: L, μ (per-client extremes), S, w*, f*, Γ (degree weights) by a second route",
        regime=("The four instances the claims use (common Hessian; cluster-specific with messages of x and of "
                "(x, y); nonconvex clients): singular values of the raw data, least squares per client and on the "
                "stacked weighted system, the graph recomputed by Def. 2."), metric="rel:Gamma", x="point",
        why="every bound, regime and step size uses these constants; a wrong one moves regime and bound together"),
    Lemma1Identity(
        id="buttaci.lemma1/identity", theorem="buttaci.lemma1", algorithm="pfl", problem="similar_quadratic",
        reference_free="an algebraic identity between iterates",
        title="Lemma 1: Σ p_i w̃_{t,k}^i = β w̄_{t,k} + (1 − β) w̄_{t,0} at every local step",
        regime=_CLUSTER_REGIME + " Messages from (x, y); β ∈ {0.3, 0.7}, E ∈ {1, 4}, σ ∈ {0, 1}; 6 rounds.",
        metric="lemma1_residual", x="round",
        why="the identity every PFL result rests on; it needs symmetric p_in, degree weights and full participation"),
    Reductions(
        id="buttaci.alg1/reductions", theorem="buttaci.lemB3.kappa", algorithm="pfl", problem="similar_quadratic",
        reference_free="trajectories compared with each other",
        title="Reductions: PFL(β=1) and FedProx(α=0) are FedAvg; E = 1 on a common Hessian makes β irrelevant",
        regime=_CLUSTER_REGIME + " Stochastic (σ = 1, same streams) for β = 1 and α = 0; common Hessian, E = 1, "
        "deterministic for the β-invariance; common Hessian, E = 5, β = 0.5 with p_in perturbed symmetrically at "
        "fixed degrees for the graph-irrelevance.", metric="trajectory_difference", x="round",
        why="trajectory identities are exact; E = 1 invariance checks that u_t^i averages to w̄_{t,0}"),
    ReturnedPoint(
        id="buttaci.alg1/returned-point", theorem="buttaci.lemma1", algorithm="pfl", problem="similar_quadratic",
        reference_free="the returned point against the server model rebuilt from the recorded gradients",
        title="Returned point: PFL, FedProx and FedAvg return the degree-weighted server model Σ p_i w_{T−1,E}^i",
        regime=_CLUSTER_REGIME + " Messages from (x, y); σ = 1 (stochastic), E = 4, 6 rounds; PFL β = 0.5, "
        "FedProx α = 0.5L, FedAvg.", metric="returned_point_error", x="round",
        why="every statement of the paper is about the server model w̄_{T,0} (or the virtual averages built from "
            "the same local iterates); the reconstruction is pathwise, so it pins the law of the returned point"),
    ExactMultiplier(
        id="buttaci.lemB3.kappa/exact-multiplier", theorem="buttaci.lemB3.kappa", algorithm="pfl",
        problem="similar_quadratic",
        title="PFL: every eigen-component contracts per round by exactly φ_β(λ); κ_B3 = φ_β(μ) ≤ intermediate ≤ "
              "theorem factor",
        regime=_COMMON_REGIME + " β ∈ {0.3, 0.7, 0.9}, E ∈ {1, 5, 10}, γ = 1/(2LE), 12 rounds.",
        metric="mu_multiplier", x="point", params_grid=(0.3, 0.7, 0.9),
        why="on a common Hessian Lemma 1 makes the average's round map exactly φ_β(H): an exact prediction"),
    ExactMultiplier(
        id="buttaci.lemA3.kappa/exact-multiplier", theorem="buttaci.lemA3.kappa", algorithm="fedprox",
        problem="similar_quadratic",
        title="FedProx: every eigen-component contracts per round by exactly ψ_α(λ); κ_A3 = ψ_α(μ) ≤ intermediate "
              "≤ theorem factor",
        regime=_COMMON_REGIME + " α ∈ {0, 0.2L, 1L}, E ∈ {1, 5, 10}, γ = 1/(2E(L+α)), 12 rounds.",
        metric="mu_multiplier", x="point", params_grid=(0.0, 0.2, 1.0),
        why="on a common Hessian the average's round map is exactly ψ_α(H) (App. A (10)–(12))"),
    MeanMultiplier(
        id="buttaci.lemB3.kappa/mean-multiplier", theorem="buttaci.lemB3.kappa", algorithm="pfl",
        problem="similar_quadratic",
        title="PFL with noisy gradients: the mean of every eigen-component follows φ_β(λ)^t exactly (two-sided)",
        regime=_COMMON_REGIME.replace("exact gradients", "gradients with N(0, σ²/d I) noise, σ = 1")
        + " β ∈ {0.3, 0.7}, E = 5, γ = 1/(2LE), 8 rounds; Monte-Carlo over the profile's seeds.",
        metric="mode0", x="round",
        why="an exact expectation: the round map is linear, so the noise averages out of the mean exactly"),
    Stability(
        id="buttaci.lemB3.kappa/stability", theorem="buttaci.lemB3.kappa", algorithm="pfl",
        problem="similar_quadratic",
        title="Large steps: PFL is stable iff max|φ_β(λ)| < 1; below FedAvg's boundary for β < 1/2, above for β > 1/2",
        regime=_COMMON_REGIME.replace("theorem step sizes", "steps 0.9γ_c and 1.1γ_c around the stability boundary")
        + " β ∈ {0.2, 0.4, 0.7, 1 (FedAvg)}, E = 5, 12 rounds.",
        metric="growth", x="point",
        why="App. C.7 reports spikes for large γ and small β; on a common Hessian the boundary is exact"),
    Eq9Ordering(
        id="buttaci.eq9/ordering", theorem="buttaci.eq9", algorithm="pfl", problem="similar_quadratic",
        title="Eq. (9): PFL's factor < FedAvg's < FedProx's (symbolic, all β ∈ (0,1), α > 0) and at lemma level",
        regime=_COMMON_REGIME + " Lemma level: β = 0.7, α = 0.2L, E = 10.", metric="multiplier:pfl",
        x="local_steps",
        why="the ordering is exact algebra at theorem level; at lemma level it is a second-order effect, measured "
            "exactly on a common Hessian"),
    RoundMap(
        id="buttaci.lemB3/round-map", theorem="buttaci.lemB3", algorithm="pfl", problem="similar_quadratic",
        title="PFL on cluster-specific Hessians: the server trajectory is the exact affine round map's, to its "
              "fixed point",
        regime=_CLUSTER_REGIME + " Messages from (x, y); β ∈ {0.3, 0.7}, E ∈ {1, 5}, γ = 1/(2LE), 30 rounds.",
        metric="trajectory_error", x="round", params_grid=(0.3, 0.7),
        why="an exact prediction where the lemmas only bound: the round map is affine on quadratics"),
    RoundMap(
        id="buttaci.lemA3/round-map", theorem="buttaci.lemA3", algorithm="fedprox", problem="similar_quadratic",
        title="FedProx on cluster-specific Hessians: the server trajectory is the exact affine round map's; FedAvg "
              "at E = 1 is unbiased",
        regime=_CLUSTER_REGIME + " Messages from (x, y); α ∈ {0, 0.5L}, E ∈ {1, 5}, γ = 1/(2E(L+α)), 30 rounds.",
        metric="trajectory_error", x="round", params_grid=(0.0, 0.5),
        why="an exact prediction where the lemmas only bound: the round map is affine on quadratics"),
    Deviation(
        id="buttaci.lemB2/deviation", theorem="buttaci.lemB2", algorithm="pfl", problem="similar_quadratic",
        reference_free="pathwise deviation between local and averaged iterates",
        title="Lemmas B.1–B.2: neighbour-average spread and perturbed-iterate deviation, pathwise",
        regime=_CLUSTER_REGIME + " Messages from (x, y); β = 0.5, E ∈ {1, 5}, σ ∈ {0, 1}, 12 rounds.",
        metric="lemB2_ratio", x="round",
        why="the deviation lemmas drive every additive term of Theorems 3–4; pathwise they are near-tight"),
    Deviation(
        id="buttaci.lemA2/deviation", theorem="buttaci.lemA2", algorithm="fedprox", problem="similar_quadratic",
        reference_free="pathwise deviation between local and averaged iterates",
        title="Lemmas A.1–A.2: local deviation and client divergence of FedProx, pathwise",
        regime=_CLUSTER_REGIME + " Messages from (x, y); α = 0.5L, E ∈ {1, 5}, σ ∈ {0, 1}, 12 rounds.",
        metric="lemA1_ratio", x="round",
        why="the deviation lemmas drive every additive term of Theorems 1–2; pathwise they are near-tight"),
)
