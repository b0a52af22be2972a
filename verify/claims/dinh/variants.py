"""Dinh et al.: the broken variants — local solvers and servers with one deliberate defect each, constants of the
bounds patched one term at a time, the returned point's rule broken, and the §5 synthetic federation's controls; each
names the claims that must reject it."""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache
from fedrates.verify.claims.dinh.instances import _instance
from fedrates.verify.variants import BrokenVariant

__all__ = ["VARIANTS", "THEOREM_VARIANTS", "OUTPUT_VARIANTS", "SYNTHETIC_VARIANTS", "broken", "output_broken"]


def _broken_classes() -> dict[str, type]:
    from fedrates.solvers.algorithms.fedprox_sgd import FedProxSGD
    from fedrates.solvers.algorithms.fedproxvr_sarah import FedProxVRSARAH
    from fedrates.solvers.algorithms.fedproxvr_svrg import FedProxVRSVRG
    from fedrates.solvers.problems.finite_sum import sample_gradients

    class SVRGNoCorrection(FedProxVRSVRG):
        """SVRG without the snapshot correction: v_t = ∇f_{I_t}(w_t) (the estimator degenerates to SGD)."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            if idx is None:
                return super().direction(fs, W, Wprev, W0, v, v0, clients, idx, problem)
            return sample_gradients(fs, W, clients, idx)

    class SARAHSnapshotRecursion(FedProxVRSARAH):
        """SARAH recursion on the snapshot gradient: v_t = ∇f_I(w_t) − ∇f_I(w_{t−1}) + v_0."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            return super().direction(fs, W, Wprev, W0, v0, v0, clients, idx, problem)

    class SARAHFreshIndex(FedProxVRSARAH):
        """SARAH correction at a fresh index: ∇f_I(w_t) − ∇f_J(w_{t−1}) + v_{t−1} (unbiased, wrong variance)."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            if idx is None:
                return super().direction(fs, W, Wprev, W0, v, v0, clients, idx, problem)
            other = (idx + 1) % fs.samples
            return sample_gradients(fs, W, clients, idx) - sample_gradients(fs, Wprev, clients, other) + v

    def step_one_over_L(base: type) -> type:
        class StepOverL(base):
            """η = 1/L instead of 1/(βL)."""

            def step_size(self, problem):
                return 1.0 / self.smoothness(problem)

        StepOverL.__name__ = StepOverL.__qualname__ = f"{base.__name__}StepOverL"
        return StepOverL

    def last_iterate(base: type) -> type:
        class Last(base):
            """Returns w^{(τ)} where the analysis needs w^{(t')}, t' ~ U{0..τ}."""

            def __post_init__(self):
                super().__post_init__()
                object.__setattr__(self, "output_rule", "last")

        Last.__name__ = Last.__qualname__ = f"{base.__name__}Last"
        return Last

    def no_prox(base: type) -> type:
        class NoProx(base):
            """The prox of h_s dropped: w ← w − ηv (FedAvg-like local steps)."""

            def prox(self, Z, anchor, eta):
                return Z

        NoProx.__name__ = NoProx.__qualname__ = f"{base.__name__}NoProx"
        return NoProx

    def anchor_zero(base: type) -> type:
        class AnchorZero(base):
            """h_s anchored at 0 instead of w̄^{(s−1)}: prox(x) = x/(1 + ημ) (weight decay, not a proximal term)."""

            def prox(self, Z, anchor, eta):
                return Z / (1.0 + eta * self.mu)

        AnchorZero.__name__ = AnchorZero.__qualname__ = f"{base.__name__}AnchorZero"
        return AnchorZero

    def prox_sign(base: type) -> type:
        class ProxSign(base):
            """The proximal term's gradient with the wrong sign, ∇F_n(w) − μ(w − w̄) in the local gradient of J_n:
            the implicit step w = Z − ημ(w̄ − w) gives w = (Z − ημw̄)/(1 − ημ) instead of (10)."""

            def prox(self, Z, anchor, eta):
                return (Z - eta * self.mu * anchor) / (1.0 - eta * self.mu)

        ProxSign.__name__ = ProxSign.__qualname__ = f"{base.__name__}ProxSign"
        return ProxSign

    return {
        "sarah-prox-sign": prox_sign(FedProxVRSARAH),
        "svrg-prox-sign": prox_sign(FedProxVRSVRG),
        "sarah-anchor-zero": anchor_zero(FedProxVRSARAH),
        "svrg-anchor-zero": anchor_zero(FedProxVRSVRG),
        "svrg-no-correction": SVRGNoCorrection,
        "sarah-snapshot-recursion": SARAHSnapshotRecursion,
        "sarah-step-1-over-L": step_one_over_L(FedProxVRSARAH),
        "svrg-step-1-over-L": step_one_over_L(FedProxVRSVRG),
        "sgd-step-1-over-L": step_one_over_L(FedProxSGD),
        "sarah-last-iterate": last_iterate(FedProxVRSARAH),
        "svrg-last-iterate": last_iterate(FedProxVRSVRG),
        "svrg-no-prox": no_prox(FedProxVRSVRG),
        "sarah-no-prox": no_prox(FedProxVRSARAH),
        "sarah-fresh-index": SARAHFreshIndex,
    }


@observed_cache
def broken(name: str) -> type:
    """A broken algorithm class of :data:`VARIANTS` by name."""
    return _broken_classes()[name]


def _with(name: str) -> Any:
    return lambda claim: claim.with_algorithm(broken(name))


def _patch_theta_squared() -> Any:
    """Θ of Theorem 1 with θ² where the paper has θ in its first term, 1 − θ²√(2(1 + σ̄²)) − ..."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta

    def wrong(L, lam, mu, theta, sigma_bar_sq):
        value = original(L, lam, mu, theta, sigma_bar_sq)
        if not np.isfinite(sigma_bar_sq):
            return value
        return value + theta * (1 - theta) * math.sqrt(2 * (1 + sigma_bar_sq)) / mu

    return mock.patch.object(fb, "Theta", wrong)


def _patch_theta_half_L() -> Any:
    """Θ of Theorem 1 with L/2 in place of L (e.g. a smoothness constant taken as λ_max/2)."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta
    return mock.patch.object(fb, "Theta", lambda L, lam, mu, theta, sigma_bar_sq: original(L / 2, lam, mu, theta,
                                                                                          sigma_bar_sq))


def _patch_a_min_linear() -> Any:
    """a_min(τ) = 16(τ + 1) (the leading term) instead of 4(√(τ+1) + √(τ+2))²."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "a_min", lambda tau: 16.0 * (tau + 1))


def _patch_tau_upper_no_8() -> Any:
    """SARAH's upper bound (13) without its denominator 8: τ ≤ 5β² − 4β."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_upper_sarah", lambda beta: 5 * beta**2 - 4 * beta)


def _patch_L_of_F() -> Any:
    """The smoothness of F_n (max_n λ_max(A_n)) used where (3) needs the per-sample constant max_i‖Q_i‖₂."""
    from contextlib import contextmanager
    from unittest import mock

    from fedrates.solvers import fedproxvr_constants

    original = fedproxvr_constants.compute

    @contextmanager
    def ctx():
        _instance.cache_clear()
        with mock.patch.object(fedproxvr_constants, "compute",
                               lambda problem, w0=None: dataclasses.replace(c := original(problem, w0), L=c.L_F)):
            yield
        _instance.cache_clear()

    return ctx()


def _patch_lam(which: str) -> Any:
    """λ of (4) computed wrongly in both constants routes (the regime's and the algorithm's): ``mean`` from the
    average Hessian, max(0, −λ_min(Σ_n p_n A_n)), instead of each device's own; ``min`` the smallest device modulus
    min_n λ_n instead of the largest."""
    from contextlib import contextmanager
    from unittest import mock

    from fedrates.solvers import fedproxvr_constants as fc

    compute, device = fc.compute, fc.device_constants

    def lam_of(problem: Any) -> float:
        A = np.asarray(problem.datafit.hessians, float)
        if which == "mean":
            Abar = np.einsum("k,kde->de", np.asarray(problem.weights, float), A)
            return float(max(0.0, -np.linalg.eigvalsh(Abar).min()))
        return float(max(0.0, -np.linalg.eigvalsh(A)[:, 0].max()))

    @contextmanager
    def ctx():
        _instance.cache_clear()
        with mock.patch.object(fc, "compute", lambda problem, w0=None: dataclasses.replace(
                compute(problem, w0), lam=lam_of(problem))), \
             mock.patch.object(fc, "device_constants", lambda problem: dataclasses.replace(
                device(problem), lam=lam_of(problem))):
            yield
        _instance.cache_clear()

    return ctx()


def _patch_tau_lower_theta() -> Any:
    """τ_lower with θ where (13) has θ²."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.tau_lower
    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: original(beta, L, mu, lam,
                                                                                       math.sqrt(theta)))


def _patch_tau_lower_beta_linear() -> Any:
    """τ_lower of (13) with βL² in place of β²L² in its numerator."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: 3 * (beta * L**2 + mu**2)
                             / (theta**2 * (mu - lam) * L * (beta - 3)))


def _patch_tau_lower_mu_plus_lambda() -> Any:
    """τ_lower of (13) with μ + λ where it has μ̃ = μ − λ (the sign of the weak-convexity modulus)."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: 3 * (beta**2 * L**2 + mu**2)
                             / (theta**2 * (mu + lam) * L * (beta - 3)))


def _patch_tau_lower_mu_linear() -> Any:
    """τ_lower of (13) with μ in place of μ² in its numerator."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: 3 * (beta**2 * L**2 + mu)
                             / (theta**2 * (mu - lam) * L * (beta - 3)))


def _patch_theta_mu_plus_lambda() -> Any:
    """Θ of Theorem 1 with μ + λ where the paper has μ̃ = μ − λ."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta
    return mock.patch.object(fb, "Theta", lambda L, lam, mu, theta, sigma_bar_sq: original(L, -lam, mu, theta,
                                                                                          sigma_bar_sq))


def _patch_theta_no_2() -> Any:
    """Θ of Theorem 1 with θ√(1 + σ̄²) where its first term has θ√(2(1 + σ̄²))."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta

    def wrong(L, lam, mu, theta, sigma_bar_sq):
        return original(L, lam, mu, theta, sigma_bar_sq) + theta * (math.sqrt(2) - 1) * math.sqrt(
            1 + sigma_bar_sq) / mu

    return mock.patch.object(fb, "Theta", wrong)


def _patch_realisable_distinct_centres() -> Any:
    """The realisable quadratic federation built with one centre per client (the shared minimiser lost)."""
    from unittest import mock

    from fedrates.solvers.problems import quadratic

    original = quadratic._hessians_and_centres

    def wrong(p, rng):
        Q, centres = original(p, rng)
        if p["structure"] == "realisable":
            centres = centres + 0.1 * rng.standard_normal(centres.shape)
        return Q, centres

    return mock.patch.object(quadratic, "_hessians_and_centres", wrong)


THEOREM_VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("fedproxvr_sarah/prox-sign", "algorithm",
                  "the proximal term enters the local gradient with the wrong sign, ∇F_n(w) − μ(w − w̄)",
                  ("dinh.lem1/sarah-nc",), apply=_with("sarah-prox-sign")),
    BrokenVariant("fedproxvr_svrg/prox-sign", "algorithm",
                  "the proximal term enters the local gradient with the wrong sign, ∇F_n(w) − μ(w − w̄)",
                  ("dinh.lem1/svrg-nc",), apply=_with("svrg-prox-sign")),
    BrokenVariant("constants/lambda-of-mean-Hessian", "constants",
                  "λ of (4) from the average Hessian Σ_n p_n A_n instead of each device's own (0 on dinh_nc)",
                  ("dinh.lem1/sarah-nc", "dinh.lem1/svrg-nc"), patch=lambda: _patch_lam("mean")),
    BrokenVariant("constants/lambda-min-device", "constants",
                  "λ of (4) as the smallest device modulus min_n λ_n instead of the largest",
                  ("dinh.lem1/sarah-nc", "dinh.lem1/svrg-nc"), patch=lambda: _patch_lam("min")),
    BrokenVariant("fedproxvr_svrg/no-snapshot-correction", "algorithm",
                  "SVRG estimator without the snapshot correction −∇f_I(w⁽⁰⁾) + v⁽⁰⁾ (plain SGD)",
                  ("dinh.alg1/cov-svrg",), apply=_with("svrg-no-correction")),
    BrokenVariant("fedproxvr_sarah/snapshot-recursion", "algorithm",
                  "SARAH recursion adds the snapshot gradient v⁽⁰⁾ instead of v⁽ᵗ⁻¹⁾",
                  ("dinh.alg1/mean-sarah", "dinh.alg1/mean-sarah-nc"), apply=_with("sarah-snapshot-recursion")),
    BrokenVariant("fedproxvr_sarah/fresh-index", "algorithm",
                  "SARAH correction −∇f_J(w⁽ᵗ⁻¹⁾) evaluated at another sample than ∇f_I(w⁽ᵗ⁾)",
                  ("dinh.alg1/cov-sarah", "dinh.compare/*"), apply=_with("sarah-fresh-index")),
    BrokenVariant("fedproxvr_sarah/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-sarah", "dinh.lem1/sarah"), apply=_with("sarah-step-1-over-L")),
    BrokenVariant("fedproxvr_svrg/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-svrg", "dinh.lem1/svrg"), apply=_with("svrg-step-1-over-L")),
    BrokenVariant("fedprox_sgd/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-sgd", "dinh.alg1/cov-sgd"), apply=_with("sgd-step-1-over-L")),
    BrokenVariant("fedproxvr_sarah/anchor-zero", "algorithm",
                  "proximal term anchored at 0 (weight decay) instead of at the server point w̄^{(s−1)}",
                  ("dinh.alg1/limit-sarah", "dinh.lem2/*"), apply=_with("sarah-anchor-zero")),
    BrokenVariant("fedproxvr_svrg/anchor-zero", "algorithm",
                  "proximal term anchored at 0 (weight decay) instead of at the server point w̄^{(s−1)}",
                  ("dinh.alg1/limit-svrg",), apply=_with("svrg-anchor-zero")),
    BrokenVariant("fedproxvr_sarah/no-prox", "algorithm", "the prox of h_s dropped (plain local steps)",
                  ("dinh.alg1/inner-sarah", "dinh.thm1*/sarah", "dinh.cor1/sarah", "dinh.pl/sarah", "dinh.lem3/sarah",
                   "dinh.tradeoff/mu"),
                  apply=_with("sarah-no-prox")),
    BrokenVariant("fedproxvr_sarah/last-iterate", "algorithm",
                  "returns the last local iterate w⁽τ⁾ where the analysis draws t' ~ U{0..τ}",
                  ("dinh.alg1/mean-sarah", "dinh.lem1/sarah", "dinh.tradeoff/tau"),
                  apply=_with("sarah-last-iterate")),
    BrokenVariant("fedproxvr_svrg/last-iterate", "algorithm",
                  "returns the last local iterate w⁽τ⁾ where the analysis draws t' ~ U{0..τ}",
                  ("dinh.output/svrg-noisy", "dinh.alg1/mean-svrg"), apply=_with("svrg-last-iterate")),
    BrokenVariant("fedproxvr_svrg/no-prox", "algorithm", "the prox of h_s dropped (plain local steps)",
                  ("dinh.alg1/mean-svrg", "dinh.alg1/inner-svrg"), apply=_with("svrg-no-prox")),
    BrokenVariant("constants/Theta-theta-squared", "constants", "Θ with θ² in place of θ in its first term",
                  ("dinh.thm1.eq86/adversarial", "dinh.thm1.eq86/adversarial-nc", "dinh.rem2/theta-threshold"),
                  patch=_patch_theta_squared),
    BrokenVariant("constants/a-min-linear", "constants", "a_min(τ) of (65) replaced by its leading term 16(τ + 1)",
                  ("dinh.rem1/svrg-large-beta", "dinh.exp/lemma1-configs"), patch=_patch_a_min_linear),
    BrokenVariant("constants/tau-upper-no-8", "constants", "SARAH's upper bound (13) without its denominator 8",
                  ("dinh.exp/lemma1-configs",), patch=_patch_tau_upper_no_8),
    BrokenVariant("constants/Theta-half-L", "constants", "Θ evaluated with L/2 in place of L in its L/μ̃ terms",
                  ("dinh.thm1.eq86/adversarial-argmax", "dinh.rem2/mu-threshold"), patch=_patch_theta_half_L),
    BrokenVariant("constants/L-of-F", "constants", "L of (3) taken as the smoothness of F_n instead of max_i‖∇²f_i‖",
                  ("dinh.eq35/*",), patch=_patch_L_of_F),
    BrokenVariant("constants/tau-lower-theta", "constants", "τ_lower of (13) with θ in place of θ²",
                  ("dinh.rem1/tau-order",), patch=_patch_tau_lower_theta),
    BrokenVariant("constants/tau-lower-beta-linear", "constants", "τ_lower of (13) with βL² in place of β²L²",
                  ("dinh.rem1/smallest-tau",), patch=_patch_tau_lower_beta_linear),
    BrokenVariant("constants/tau-lower-mu-plus-lambda", "constants", "τ_lower of (13) with μ + λ in place of μ̃ = μ − λ",
                  ("dinh.rem1/tau-lower-mu",), patch=_patch_tau_lower_mu_plus_lambda),
    BrokenVariant("constants/tau-lower-mu-linear", "constants",
                  "τ_lower of (13) with μ in place of μ² in its numerator",
                  ("dinh.rem1/tau-lower-mu",), patch=_patch_tau_lower_mu_linear),
    BrokenVariant("constants/Theta-mu-plus-lambda", "constants", "Θ of Theorem 1 with μ + λ in place of μ̃ = μ − λ",
                  ("dinh.rem2/mu-threshold",), patch=_patch_theta_mu_plus_lambda),
    BrokenVariant("quadratic/realisable-distinct-centres", "instance",
                  "the realisable quadratic federation built with one centre per client (no shared minimiser)",
                  ("dinh.ass5/realisable-quadratic",), patch=_patch_realisable_distinct_centres),
    BrokenVariant("constants/Theta-no-2", "constants",
                  "Θ of Theorem 1 with θ√(1 + σ̄²) in place of θ√(2(1 + σ̄²)) in its first term",
                  ("dinh.rem2/theta-threshold",), patch=_patch_theta_no_2),
)


def output_broken(name: str) -> type:
    from fedrates.solvers.algorithms.fedprox_sgd import FedProxSGD
    from fedrates.solvers.algorithms.fedproxvr_fedavg import FedAvgSGD
    from fedrates.solvers.algorithms.fedproxvr_sarah import FedProxVRSARAH
    from fedrates.solvers.algorithms.fedproxvr_svrg import FedProxVRSVRG

    base = {"sarah": FedProxVRSARAH, "svrg": FedProxVRSVRG, "sgd": FedProxSGD,
            "fedavg": FedAvgSGD}[name.split("-", 1)[0]]
    kind = name.split("-", 1)[1]

    if kind == "uniform-weights":
        class Broken(base):
            """Server average (1/N)Σ_n w_n instead of Σ_n (D_n/D) w_n (line 12)."""

            def round(self, state, problem, ctx):
                uniform = copy.copy(ctx)
                uniform.weights = np.full(np.shape(ctx.weights), 1.0 / np.shape(ctx.weights)[-1])
                return super().round(state, problem, uniform)
    elif kind == "random-output":
        class Broken(base):
            """FedAvg returning a uniformly random local iterate w⁽ᵗ'⁾, t' ~ U{0..τ}, instead of the last one."""

            def round(self, state, problem, ctx):
                tau = self.tau
                rng = np.random.default_rng(int(ctx.round))
                t = int(rng.integers(0, tau + 1))
                if t == 0:
                    return dict(state)
                return type(self).__mro__[1].round(dataclasses.replace(self, tau=t), state, problem, ctx)
    elif kind in ("index-1-to-tau", "index-0-to-tau-minus-1"):
        shift = 1 if kind == "index-1-to-tau" else 0

        class Broken(base):
            """Local output index drawn from {1..τ} (or {0..τ−1}) instead of {0..τ}."""

            def local_output(self, iterates_out, pick, t, W):
                # pick ∈ {0..τ} is remapped onto τ values: ⌊pick·τ/(τ+1)⌋ + shift
                moved = np.minimum(pick * self.tau // (self.tau + 1) + shift, self.tau)
                return np.where((moved == t)[..., None], W, iterates_out)
    elif kind == "never-moves":
        class Broken(base):
            """A local solver that never moves: every local iterate stays at the anchor w̄^{(s−1)}."""

            def prox(self, Z, anchor, eta):
                return np.array(anchor, copy=True)
    else:
        raise KeyError(name)
    Broken.__name__ = Broken.__qualname__ = f"{base.__name__}_{kind.replace('-', '_')}"
    return Broken


def _with_output(name: str) -> Any:
    return lambda claim: claim.with_algorithm(output_broken(name))


OUTPUT_VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("fedavg_sgd/uniform-server-weights", "algorithm",
                  "server average (1/N)Σ_n w_n instead of Σ_n (D_n/D) w_n",
                  ("dinh.baseline/fedavg-mean",), apply=_with_output("fedavg-uniform-weights")),
    BrokenVariant("fedavg_sgd/random-output", "algorithm",
                  "FedAvg returns a random local iterate (FedProxVR's rule) instead of the last one",
                  ("dinh.baseline/fedavg-mean",), apply=_with_output("fedavg-random-output")),
    BrokenVariant("fedproxvr_sarah/uniform-server-weights", "algorithm",
                  "server average (1/N)Σ_n w_n instead of Σ_n (D_n/D) w_n (Alg. 1 line 12)",
                  ("dinh.output/sarah", "dinh.alg1/mean-sarah-unequal"), apply=_with_output("sarah-uniform-weights")),
    BrokenVariant("fedproxvr_svrg/uniform-server-weights", "algorithm",
                  "server average (1/N)Σ_n w_n instead of Σ_n (D_n/D) w_n (Alg. 1 line 12)",
                  ("dinh.output/svrg", "dinh.alg1/mean-svrg-unequal", "dinh.output/svrg-stochastic"),
                  apply=_with_output("svrg-uniform-weights")),
    BrokenVariant("fedproxvr_sarah/output-index-1-to-tau", "algorithm",
                  "local output index t' drawn from {1..τ} instead of {0..τ} (the anchor w⁽⁰⁾ never returned)",
                  ("dinh.output/sarah",), apply=_with_output("sarah-index-1-to-tau")),
    BrokenVariant("fedproxvr_svrg/output-index-0-to-tau-minus-1", "algorithm",
                  "local output index t' drawn from {0..τ−1} instead of {0..τ}",
                  ("dinh.output/svrg", "dinh.output/svrg-stochastic"),
                  apply=_with_output("svrg-index-0-to-tau-minus-1")),
    BrokenVariant("fedproxvr_svrg/output-index-1-to-tau", "algorithm",
                  "local output index t' drawn from {1..τ} instead of {0..τ} (the anchor w⁽⁰⁾ never returned)",
                  ("dinh.output/svrg-stochastic", "dinh.output/svrg-noisy"),
                  apply=_with_output("svrg-index-1-to-tau")),
    BrokenVariant("fedprox_sgd/output-index-1-to-tau", "algorithm",
                  "local output index t' drawn from {1..τ} instead of {0..τ}",
                  ("dinh.output/sgd",), apply=_with_output("sgd-index-1-to-tau")),
    BrokenVariant("fedproxvr_sarah/never-moves", "algorithm",
                  "negative control: a local solver that never moves (every local iterate stays at w̄^{(s−1)})",
                  ("dinh.thm1.corrected/sarah", "dinh.thm1/sarah", "dinh.cor1/sarah", "dinh.thm1.eq86/sarah-nc",
                   "dinh.thm1.corrected/sarah-nc"), apply=_with_output("sarah-never-moves")),
    BrokenVariant("fedproxvr_svrg/never-moves", "algorithm",
                  "negative control: a local solver that never moves (every local iterate stays at w̄^{(s−1)})",
                  ("dinh.thm1.eq86/svrg", "dinh.thm1.corrected/svrg"), apply=_with_output("svrg-never-moves")),
)


def _no_prox() -> Any:
    from fedrates.solvers.algorithms.fedproxvr_svrg import FedProxVRSVRG

    class SVRGNoProx(FedProxVRSVRG):
        """The prox of h_s dropped: μ has no effect."""

        def prox(self, Z, anchor, eta):
            return Z

    return SVRGNoProx


def _anchor_zero() -> Any:
    return broken("svrg-anchor-zero")


def _never_moves() -> Any:
    return output_broken("sarah-never-moves")


SYNTHETIC_VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("fedproxvr_sarah/synthetic-never-moves", "algorithm",
                  "negative control on the Synthetic federation: a local solver that never moves",
                  ("dinh.fig2/tau-above-bound",), apply=lambda claim: claim.with_algorithm(_never_moves())),
    BrokenVariant("fedproxvr_svrg/synthetic-no-prox", "algorithm",
                  "the prox of h_s dropped on the Synthetic federation (μ has no effect)", ("dinh.fig4/mu-tradeoff",),
                  apply=lambda claim: claim.with_algorithm(_no_prox())),
    BrokenVariant("fedproxvr_svrg/synthetic-anchor-zero", "algorithm",
                  "proximal term anchored at 0 (weight decay) instead of the server point, on the Synthetic federation",
                  ("dinh.sec5/synthetic-equal-work",), apply=lambda claim: claim.with_algorithm(_anchor_zero())),
)


#: every broken variant of the paper
VARIANTS: tuple[BrokenVariant, ...] = THEOREM_VARIANTS + OUTPUT_VARIANTS + SYNTHETIC_VARIANTS
