"""Falsifiable claims of Buttaci & Calafiore, "Aiding Global Convergence in Federated Learning via Local
Perturbation and Mutual Similarity Information".

Instances are least-squares federations with a similarity graph (:mod:`fedrates.solvers.problems.similar_quadratic`):
exact Hessians, the graph built from the clients' data by Def. 1–2, and the aggregation weights equal to the graph
degrees (the "Adjacency scheme"), so the optimum, Γ and S are those of the objective the theorems bound.  Every run
is instrumented (:mod:`fedrates.verify.claims.buttaci.instances`): the gradient query points and gradients are recorded
and the paper's virtual averages w̄_{t,k} are formed by its own rules, independently of the algorithm's internals.

Claims (the most exact prediction each statement allows):

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
* ``buttaci.eq9/speedup`` — eq. (9) orders the *bound* factors of Theorems 3 and 1; the text reads it as faster
  contraction (erratum of kind over-claim).  Falsifiable part: the measured log-rate ratio of PFL over FedAvg is
  the exact one, ln κ_B3/ln κ_A3 on common Hessians and ln ρ(J_PFL)/ln ρ(J_FedAvg) of the exact round maps on
  cluster-specific Hessians (relative 1e-6), not the bound factors' ≈ 3/(β+2);
* ``buttaci.lemB3/recursion`` and ``buttaci.lemA3/recursion`` — Lemmas B.3 and A.3 round by round,
  E D_{t+1} ≤ κ E D_t + A_t (deterministic and Monte-Carlo, constant and alternating steps), G² a posteriori along
  the run;
* ``buttaci.thm1/validity``, ``buttaci.thm3/validity`` — Theorems 1 and 3 hold at every round (deterministic and
  Monte-Carlo), with G² a posteriori along the run (the a-priori ball value is reported); their floors are ≥ 300×
  the measured gap (informational);
* ``buttaci.thm3/beta-floor`` — Theorem 3's O(G²/β²) floor as β → 0: PFL's limit is the exact round map's fixed
  point at every β, the floor holds, and the limit tends to the β = 0 map's (bounded) while the floor grows as β⁻²;
* ``buttaci.thm2/validity``, ``buttaci.thm4/validity`` — Theorems 2 and 4 on quadratics with nonconvex clients, over
  the virtual averages, and Lemmas A.4/B.4 round by round (the sharper per-round form);
* ``buttaci.teps/comparison`` — Sec. 5's ε-complexity comparison of two upper bounds on a grid of constants
  (informational), with the measured stationarity of both methods for context;
* ``buttaci.cor1/rate`` — Corollary 1: the symbolic E_opt and r(E_opt), the integer argmin, the envelope exponent
  −2/3, and the measured exponent of E‖∇f(ŵ_T)‖² with E = T^{1/3}.

Partial participation is refused for every PFL claim: Algorithm 1's partial branch is undefined and Lemma 1 needs
every client (:class:`fedrates.solvers.algorithms.pfl.PFL` raises on it).
"""

from __future__ import annotations

from typing import Any

from fedrates.solvers.algorithms.fedprox import FedProx
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.buttaci.exact import (
    SPEEDUP_ERRATUM,
    Constants,
    Deviation,
    Eq9Ordering,
    ExactMultiplier,
    GraphInvariants,
    Lemma1Identity,
    MeanMultiplier,
    Reductions,
    ReturnedPoint,
    RoundMap,
    Speedup,
    Stability,
    _symbolic_eq9,
)
from fedrates.verify.claims.buttaci.theorems import (
    BetaFloor,
    Corollary1,
    EpsComplexity,
    NonconvexValidity,
    Recursion,
    StronglyConvexValidity,
)
from fedrates.verify.claims.buttaci.variants import (
    BetaOnWrongModel,
    CurrentRoundNeighbours,
    FedProxNoBroadcast,
    FedProxReturnsPrevious,
    FedProxStepOverE,
    FedProxStepTimesTen,
    NoBroadcast,
    ProxSignFlipped,
    ReturnsUniformAverage,
    StepOverE,
    StepTimesTen,
    UniformAggregation,
    cosine_adjacency,
    extremes_of_f,
    gamma_uniform_weights,
    no_sign_canonicalisation,
    row_normalised_weights,
)
from fedrates.verify.variants import BrokenVariant

__all__ = ["CLAIMS", "VARIANTS", "BetaOnWrongModel", "FedProxReturnsPrevious", "ReturnsUniformAverage",
           "CurrentRoundNeighbours", "FedProxNoBroadcast",
           "FedProxStepOverE", "FedProxStepTimesTen", "NoBroadcast", "ProxSignFlipped", "StepOverE", "StepTimesTen",
           "UniformAggregation", "_symbolic_eq9", "cosine_adjacency", "row_normalised_weights"]


# ---- catalogue
_GRAPH_REGIME = ("Graphs of Def. 1–2 from the data of the two built-in instances (messages of features, and of "
                 "features with targets), of Gaussian data with client means, and of three identical clients.")
_COMMON_REGIME = ("Least squares, C = 6, d = 4, one common Hessian (spectrum log-spaced in [0.1, 5], L/μ = 50), "
                  "client optima in 2 clusters, messages from (x, y), degree weights p_i ∈ [0.009, 0.23]; "
                  "exact gradients, theorem step sizes.")
_CLUSTER_REGIME = ("Least squares, C = 6, d = 4, 2 clusters of 2 and 4 clients with independent Haar bases (spectra "
                   "in [0.1, 5], 5° rotations within a cluster; top eigenvectors |cos| ≥ 0.985 within, ≤ 0.63 "
                   "across clusters), degree weights of the similarity graph (0.10–0.21; 0.017–0.24 with messages "
                   "from (x, y)); theorem step sizes.")
_NONCONVEX_REGIME = ("Quadratics with nonconvex clients (Hessians shifted by ±0.5 I with Σp_i t_i = 0, so f stays "
                     "strongly convex and bounded below), C = 6, d = 4, exact gradients, γ = 1/(2L_α√(TE)).")

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
    Speedup(
        id="buttaci.eq9/speedup", theorem="buttaci.eq9", algorithm="pfl", problem="similar_quadratic",
        title="Eq. (9) read as a rate (Sec. 1, 6.1, 7): the bound factors' 3/(β+2) is not PFL's speedup over "
              "FedAvg, which is the exact ratio ≈ 1.00–1.02 (over-claim)",
        regime=("Theorem step size γ = 1/(2LE) for both, E = 10, β ∈ {0.5, 0.7}: " + _COMMON_REGIME
                + " And cluster-specific Hessians (" + _CLUSTER_REGIME + ") with the asymptotic rate of "
                "‖w̄_{t+1} − w̄_t‖ over the last 100 of 500 rounds (within 1e-8 of ln ρ of the exact round map; "
                "unchanged to 4e-9 from 300 to 500 rounds)."),
        metric="speedup", x="point", erratum=SPEEDUP_ERRATUM,
        why="eq. (9) orders upper bounds; the text reads it as faster contraction. The rate ratio is measured and "
            "predicted exactly (lemma factors; spectral radii of the exact round maps)"),
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
    Recursion(
        id="buttaci.lemB3/recursion", theorem="buttaci.lemB3", algorithm="pfl", problem="similar_quadratic",
        title="Lemma B.3 round by round: E D_{t+1} ≤ κ_B3 E D_t + A_t",
        regime=_CLUSTER_REGIME + " β = 0.5, E ∈ {1, 5}, σ ∈ {0, 1}, constant and alternating (γ, γ/4) steps, "
        "30 rounds; G² a posteriori along the run.",
        metric="recursion_excess", x="round",
        informational=("D_(t+1) − κ_B3 D_t ≤ 0 at every round, so A_t is never needed, and D_(t+1)/(κ_B3 D_t + A_t) "
                       "≤ 0.22 (its indicator term 8γ_(t−1)²(1−β)²/(γ²β²) keeps A_t large): no variant of the "
                       "catalogue changes its verdict"),
        why="the per-round lemma behind Theorem 3; the exact contraction is checked by buttaci.lemB3.kappa"),
    Recursion(
        id="buttaci.lemA3/recursion", theorem="buttaci.lemA3", algorithm="fedprox", problem="similar_quadratic",
        title="Lemma A.3 round by round: E D_{t+1} ≤ κ_A3 E D_t + A_t",
        regime=_CLUSTER_REGIME + " α = 0.5L, E ∈ {1, 5}, σ ∈ {0, 1}, constant and alternating (γ, γ/4) steps, "
        "30 rounds; G² a posteriori along the run.",
        metric="recursion_excess", x="round",
        why="the per-round lemma behind Theorem 1: with alternating steps D_(t+1) comes within 12% of κ_A3 D_t + A_t"),
    StronglyConvexValidity(
        id="buttaci.thm3/validity", theorem="buttaci.thm3", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 3: E f(w̄_t) − f* ≤ (8) at every round (PFL; G² a posteriori along the run)",
        regime=_CLUSTER_REGIME + " β = 0.5, E ∈ {1, 5}, σ ∈ {0, 1}, 60 rounds.", metric="objective_gap",
        x="round", why="validity only: the floor O(E²G²/μ) keeps the bound ≥ 300× above the measured gap "
                       "(informational)"),
    StronglyConvexValidity(
        id="buttaci.thm1/validity", theorem="buttaci.thm1", algorithm="fedprox", problem="similar_quadratic",
        title="Theorem 1: E f(w̄_t) − f* ≤ (7) at every round (FedProx; G² a posteriori along the run)",
        regime=_CLUSTER_REGIME + " α = 0.5L, E ∈ {1, 5}, σ ∈ {0, 1}, 60 rounds.", metric="objective_gap",
        x="round", why="validity only: the floor O(E²G²/μ) keeps the bound ≥ 300× above the measured gap "
                       "(informational)"),
    BetaFloor(
        id="buttaci.thm3/beta-floor", theorem="buttaci.thm3", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 3's O(G²/β²) floor as β → 0: valid, while PFL's exact limit stays bounded",
        regime=_CLUSTER_REGIME + " Messages from (x, y); β ∈ {0.5, 0.2, 0.1, 0.05, 0.02}, E = 5, γ = 1/(2LE), "
        "exact gradients, 1000 rounds from w*.", metric="limit_gap", x="point",
        why="Sec. 1, 4.2 and 7 name the β⁻² term as the method's limitation; the exact round map predicts the limit "
            "the run reaches at every β, and the β = 0 map its limit as β → 0"),
    NonconvexValidity(
        id="buttaci.thm4/validity", theorem="buttaci.thm4", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 4 and Lemma B.4: stationarity of PFL on quadratics with nonconvex clients",
        regime=_NONCONVEX_REGIME + " β = 0.5; (E, T) ∈ {(1, 100), (4, 100), (4, 400), (8, 200)}.",
        metric="grad_norm_sq_round", x="round",
        why="Theorem 4 needs only smoothness and a lower bound; the per-round lemma is the sharper statement"),
    NonconvexValidity(
        id="buttaci.thm2/validity", theorem="buttaci.thm2", algorithm="fedprox", problem="similar_quadratic",
        title="Theorem 2 and Lemma A.4: stationarity of FedProx on quadratics with nonconvex clients",
        regime=_NONCONVEX_REGIME + " α = 0.5L; (E, T) ∈ {(1, 100), (4, 100), (4, 400), (8, 200)}.",
        metric="grad_norm_sq_round", x="round",
        why="Theorem 2 needs only smoothness and a lower bound; the per-round lemma is the sharper statement"),
    EpsComplexity(
        id="buttaci.teps/comparison", theorem="buttaci.teps.pfl", algorithm="pfl", problem="similar_quadratic",
        title="Sec. 5: PFL's T_ε bound is 'asymptotically inferior' to FedProx's; FedProx's extra terms need α > 0",
        regime=("Constants on a log grid (L, α/L, Δ, S, σ, G, E), 2,430 points; runs for context: "
                + _NONCONVEX_REGIME + " β = 0.5, α = 0.5L, E = 4, T = 400."),
        metric="grad_norm_sq_avg:pfl", x="point",
        informational=("an ordering of two upper bounds on T_ε, checked on a grid of constants: no run can confirm "
                       "or refute it (the runs are reported for context)"),
        why="the paper's ε-complexity comparison orders two upper bounds; the grid shows where it holds"),
    Corollary1(
        id="buttaci.cor1/rate", theorem="buttaci.cor1", algorithm="pfl", problem="similar_quadratic",
        title="Corollary 1: with E = T^(1/3), E‖∇f(ŵ_T)‖² decays as T^(-2/3)",
        regime=("Quadratics with nonconvex clients (shift ±1.5 I, μ = 1, L/μ = 5 per client spectrum), messages "
                "from (x, y), β = 0.5, T ∈ {27, …, 1000} (quick: up to 512) with E = T^(1/3) exactly, "
                "γ = 1/(2L√(TE)), exact gradients."),
        metric="grad_norm_sq_avg", x="round",
        why="deterministic runs: the exponent is measured without seed noise; E = T^(1/3) is an integer on the grid"),
)


# ---- broken variants
def _with(alg: Any):
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
        claims=("buttaci.thm4/validity", "buttaci.lemB3.kappa/exact-multiplier", "buttaci.eq9/speedup"),
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
        claims=("buttaci.thm2/validity", "buttaci.lemA3.kappa/exact-multiplier"),
        apply=_with(FedProx(server_step=1 / 6))),
)
