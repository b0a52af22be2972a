"""Exact claims of Bylinkin et al.: predictions computed from the instance matrices and the paper's formulas, compared
with the implementation exactly (deterministic maps) or two-sided (Monte-Carlo means against exact expectations).

* :mod:`.maps` — deterministic iterations on special instances: the proportional split (σ = 0), the returned points,
  Theorem 1's rounds to ε, the outer Lyapunov function of C-AccExtragradient, AccVRCS on the branch T = 1;
* :mod:`.probes` — exact linear maps of one iteration probed with basis states: spectral radii, worst-state one-step
  Lyapunov ratios, the exact outer contraction of C-AccExtragradient;
* :mod:`.moments` — Monte-Carlo means against exact mean and second-moment recursions, the noise floor, expected
  rounds per iteration;
* :mod:`.lyapunov` — the one-step Lyapunov recursions of VRCS and AccVRCS in expectation (exact second moment of an
  epoch; claims listed in its docstring).

The erratum claims built on these classes are in :mod:`fedrates.verify.claims.bylinkin.errata`.  Claims of
:mod:`.probes` and :mod:`.moments` (those of :mod:`.maps` are listed in its docstring):

* ``bylinkin.thm4/exact-contraction`` — the projection of x_k − x* on the bottom eigenvector of H contracts by
  exactly 1 − ½√(μθ_f) per outer step (inner phase stopped by criterion (6)), and the spectral radius of the outer
  iteration with exact subproblems equals that factor;
* ``bylinkin.thm5.corrected/one-step`` (and the erratum ``bylinkin.thm5/one-step``) — the worst case over states of
  Φ_{k+1}/Φ_k (σ = 0: the AEG iteration, an exact linear map probed with basis states) against 1 − ½√(μθ);
  the printed Φ = (τ/η)‖x − x*‖² + gap fails it (the missing factor 2), the corrected Φ^c = μ‖x − x*‖² + gap holds;
* ``bylinkin.thm5/spectral-radius`` — the AEG iteration's spectral radius equals 1 − ½√(μθ) exactly;
* ``bylinkin.thm5.corrected/similar-quadratic`` — AEG on the ``quadratic`` family's ``similar-quadratic`` preset
  (server = client 0, ‖Q_0 − Q̄‖ = δ/2): the certified μ, L, δ, δ_mean equal the generator's promise, the spectral
  radius equals 1 − ½√(μθ) with θ = 1/(3·δ/2) from the promise, and Φ^c contracts by ρ from every state;
* ``bylinkin.thm1/exact-mean``      — SC-AccExtragradient: the Monte-Carlo mean of two projections of x_K − x*
  equals the exact mean recursion (four coin branches), two-sided;
* ``bylinkin.thm1/second-moment``   — E Φ^c_K equals the exact second-moment recursion Σ_b π_b M_b S M_bᵀ
  (Assumption 4 fails on quadratics; interpolating instance, reduced θ);
* ``bylinkin.thm5.corrected/noise-floor`` and ``bylinkin.thm5/noise-floor`` — with constant θ on a non-interpolating
  instance: the Monte-Carlo E Φ_K equals the exact affine second-moment recursion (two-sided), and the exact
  stationary E Φ^c (E Φ) lies below 4√(θ/μ)σ² (8√(θ/μ)σ²) at four θ, σ² the stationary expected oracle variance;
* ``bylinkin.thm1/split-rounds`` and ``bylinkin.thm1/independent-coins`` — R_f ~ Binomial(2K, p) with
  p = δ_f/(δ_f + δ_g): its mean and its second central moment 2Kp(1 − p) (a shared coin doubles it), two-sided;
* ``bylinkin.thm6/exact-mean`` and ``bylinkin.thm6/epoch-rounds`` — VRCS: exact mean of the epoch operator
  qN(I − (1 − q)N)^{-1} (Geom(q) on {1, 2, ...}) and expected rounds 1 + p/q, 1 + (1 − p)/q per epoch;
  ``bylinkin.thm6/exact-mean-nonconvex`` — the same with non-convex f, g (``components=indefinite``) and
  perturbations whose norm is attained by a negative eigenvalue (``perturbation=mixed``);
* ``bylinkin.thm7/exact-mean``      — AccVRCS: exact mean recursion of (z, y) (sensitive to the sign of t_k);
* ``bylinkin.thm7.mf.corrected/rounds``, ``bylinkin.thm7.mg.corrected/rounds`` — AccVRCS rounds per iteration
  2 + p/q and 2 + (1 − p)/q (the round for t_k counted; the proof's 1 + p/q omitting it is a catalogue note of kind
  proof-gap: a claim comparing the implementation's counter with 1 + p/q would only count what the implementation
  was built to count).
"""

from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.bylinkin.exact import lyapunov, maps, moments, probes

__all__ = ["CLAIMS"]

CLAIMS: tuple[Claim, ...] = maps.CLAIMS + probes.CLAIMS + moments.CLAIMS + lyapunov.CLAIMS
