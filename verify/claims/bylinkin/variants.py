"""Bylinkin et al.: the broken variants — algorithms with one deliberate defect each (a shared coin, a dropped
importance weight, a wrong step, tuning or output), one broken constant (δ computed as a signed eigenvalue) and two
broken instance generators (the ``quadratic`` family's Hessian-similarity structure), each naming the claims that
must reject it."""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.certify import observed_cache
from fedrates.verify.claims.bylinkin.instances import _instance_json
from fedrates.verify.variants import BrokenVariant

__all__ = ["VARIANTS", "variant_algorithm"]


def _variant_classes() -> dict[str, Any]:
    from fedrates.solvers.algorithms.acc_vrcs import AccVRCS
    from fedrates.solvers.algorithms.aeg import AEG
    from fedrates.solvers.algorithms.c_acc_extragradient import CAccExtragradient
    from fedrates.solvers.algorithms.sc_acc_extragradient import SCAccExtragradient
    from fedrates.solvers.algorithms.vrcs import VRCS

    @dataclass(frozen=True, kw_only=True)
    class SharedCoin(SCAccExtragradient):
        def oracle_zeta(self, sp, xb, p, coins, first):  # noqa: ANN001, ANN202 - variant
            c = first
            return np.where(c[:, None], sp.grad_f(xb) / p, sp.grad_g(xb) / (1 - p)), c

    @dataclass(frozen=True, kw_only=True)
    class NoImportanceWeight(SCAccExtragradient):
        def oracle_xi(self, sp, xl, p, coins):  # noqa: ANN001, ANN202 - variant
            c = coins.bernoulli(p)
            return np.where(c[:, None], sp.grad_f(xl) - sp.grad_f1(xl), sp.grad_g(xl) - sp.grad_g1(xl)), c

    @dataclass(frozen=True, kw_only=True)
    class AEGDoubleEta(AEG):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["eta"] *= 2
            return t

    @dataclass(frozen=True, kw_only=True)
    class AEGThetaFromDf(AEG):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            theta = 1 / (3 * sp.delta_f)
            eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
            t.update(theta=theta, tau=math.sqrt(sp.mu * theta), eta=eta)
            return t

    @dataclass(frozen=True, kw_only=True)
    class NoAcceleration(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t.update(tau_f=1.0, eta_f=t["theta_f"] / 2)
            return t

    @dataclass(frozen=True, kw_only=True)
    class TauGDouble(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau_g"] = math.sqrt(t["theta_g"] / t["theta_f"])
            return t

    @dataclass(frozen=True, kw_only=True)
    class InnerNoAcceleration(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t.update(tau_g=1.0, eta_g=t["theta_g"] / 2)
            return t

    @dataclass(frozen=True, kw_only=True)
    class NoControlVariate(VRCS):
        def step(self, state, sp, coins):  # noqa: ANN001, ANN202 - variant: e_t = xi_t, no anchor correction
            t = self.tuning(sp)
            p, q, theta = t["p"], t["q"], t["theta"]
            x, rf, rg = state["x"].copy(), state["rounds_f"].copy(), state["rounds_g"].copy()
            rf += 1
            rg += 1
            T = coins.geometric(q)
            M = np.eye(x.shape[1]) / theta + sp.H1
            for i in range(int(T.max(initial=0))):
                c = coins.bernoulli(p, T > i)
                e = np.where(c[:, None], (sp.grad_f(x) - sp.grad_f1(x)) / p, (sp.grad_g(x) - sp.grad_g1(x)) / (1 - p))
                x_new = np.linalg.solve(M, (x / theta - e + sp.b1).T).T
                x = np.where((T > i)[:, None], x_new, x)
                rf += (T > i) & c
                rg += (T > i) & ~c
            out = dict(state)
            out.update(x=x, rounds_f=rf, rounds_g=rg)
            return out

    @dataclass(frozen=True, kw_only=True)
    class AccTauSquared(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau"] = t["theta"] * sp.mu / (3 * t["q"])
            return t

    @dataclass(frozen=True, kw_only=True)
    class GeomFromZero(VRCS):
        geometric_from_zero = True

    @dataclass(frozen=True, kw_only=True)
    class AccGeomFromZero(AccVRCS):
        geometric_from_zero = True

    @dataclass(frozen=True, kw_only=True)
    class NoTkRound(AccVRCS):
        count_tk_round = False

    @dataclass(frozen=True, kw_only=True)
    class PrintedSign(AccVRCS):
        tk_sign = 1.0

    @dataclass(frozen=True, kw_only=True)
    class Unchecked(CAccExtragradient):
        def supports(self, problem):  # noqa: ANN001, ANN202 - variant: no admissibility check
            return None

    @dataclass(frozen=True, kw_only=True)
    class OuterThetaFromSum(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            theta_f = 0.5 / (sp.delta_f + sp.delta_g)
            tau_f = 0.5 * math.sqrt(sp.mu * theta_f)
            t.update(theta_f=theta_f, tau_f=tau_f, eta_f=min(1 / (2 * sp.mu), theta_f / (4 * tau_f)))
            t.update(tau_g=0.5 * math.sqrt(t["theta_g"] / theta_f), alpha_g=1 / theta_f)
            t["eta_g"] = min(theta_f / 2, t["theta_g"] / (4 * t["tau_g"]))
            return t

    @dataclass(frozen=True, kw_only=True)
    class OuterThetaFromLf(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: L_p read as the smoothness of f
            t = super().tuning(sp)
            theta_f = 0.5 / max(sp.L_f, sp.delta_f)
            tau_f = 0.5 * math.sqrt(sp.mu * theta_f)
            t.update(theta_f=theta_f, tau_f=tau_f, eta_f=min(1 / (2 * sp.mu), theta_f / (4 * tau_f)))
            t.update(tau_g=0.5 * math.sqrt(t["theta_g"] / theta_f), alpha_g=1 / theta_f)
            t["eta_g"] = min(theta_f / 2, t["theta_g"] / (4 * t["tau_g"]))
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCEtaDouble(SCAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: eta = sqrt(theta/mu) (the 1/2 of (9) dropped)
            t = super().tuning(sp)
            t["eta"] = 2 * t["eta"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCNoInterpolation(SCAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: x_under = x_k (tau = 1)
            t = super().tuning(sp)
            t["tau"] = 1.0
            return t

    @dataclass(frozen=True, kw_only=True)
    class TauFDouble(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau_f"] = 2 * t["tau_f"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class AccAlphaSqrt3(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: alpha = sqrt(theta/(mu q)), the 3 of (24) dropped
            t = super().tuning(sp)
            t["alpha"] = math.sqrt(3) * t["alpha"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class AccTauDouble(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: tau = 2 sqrt(theta mu/(3q))
            t = super().tuning(sp)
            t["tau"] = 2 * t["tau"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCReturnsXbar(SCAccExtragradient):
        def output(self, state):  # noqa: ANN001, ANN202 - variant: the other variable of the pair
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class AEGReturnsXbar(AEG):
        def output(self, state):  # noqa: ANN001, ANN202 - variant
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class CAccReturnsXbar(CAccExtragradient):
        def output(self, state):  # noqa: ANN001, ANN202 - variant
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class InnerReturnsX(CAccExtragradient):
        def inner_solve(self, sp, t, xl, ck, rounds_g, log):  # noqa: ANN001, ANN202 - variant: inner x_T, not x̄_T
            own: list = []
            _, _, T, failed = super().inner_solve(sp, t, xl, ck, rounds_g, own)
            if log is not None:
                log.extend(own)
            x = xl.copy()
            for entry in own:
                x = np.where(entry["active"][:, None], entry["x_next"], x)
            return x, sp.grad_g(x), T, failed

    @dataclass(frozen=True, kw_only=True)
    class AccReturnsZ(AccVRCS):
        def output(self, state):  # noqa: ANN001, ANN202 - variant: z_K instead of y_K
            return state["z"]

    return {k: v for k, v in locals().items() if isinstance(v, type)}


@observed_cache
def variant_algorithm(key: str) -> Any:
    """The broken algorithm objects of :data:`VARIANTS` (built lazily)."""
    from fedrates.solvers import algorithms

    cls = _variant_classes()
    table = {
        "shared-coin": lambda: cls["SharedCoin"](),
        "no-importance-weight": lambda: cls["NoImportanceWeight"](),
        "p-uniform": lambda: algorithms.make("sc_acc_extragradient", p=0.5),
        "aeg-double-eta": lambda: cls["AEGDoubleEta"](),
        "geom-from-zero": lambda: cls["GeomFromZero"](),
        "acc-geom-from-zero": lambda: cls["AccGeomFromZero"](),
        "no-tk-round": lambda: cls["NoTkRound"](),
        "printed-sign": lambda: cls["PrintedSign"](),
        "theta-2-over-df": lambda: cls["Unchecked"](theta_scale=2.0, subproblem="boundary"),
        "inner-10x": lambda: algorithms.make("c_acc_extragradient", accuracy_factor=10.0, subproblem="boundary"),
        "outer-theta-from-sum": lambda: cls["OuterThetaFromSum"](subproblem="boundary"),
        "aeg-theta-from-df": lambda: cls["AEGThetaFromDf"](),
        "aeg-inexact-100x": lambda: algorithms.make("aeg", subproblem="boundary", accuracy_factor=100.0),
        "tau-g-double": lambda: cls["TauGDouble"](subproblem="boundary"),
        "no-acceleration": lambda: cls["NoAcceleration"](subproblem="boundary"),
        "inner-no-acceleration": lambda: cls["InnerNoAcceleration"](subproblem="boundary"),
        "vrcs-p-uniform": lambda: algorithms.make("vrcs", p=0.5, q=0.5),
        "acc-p-uniform": lambda: algorithms.make("acc_vrcs", p=0.5, q=0.5),
        "acc-tau-squared": lambda: cls["AccTauSquared"](),
        "no-control-variate": lambda: cls["NoControlVariate"](),
        "inner-one-step": lambda: algorithms.make("c_acc_extragradient", accuracy_factor=1e12, subproblem="boundary"),
        "tau-f-double": lambda: cls["TauFDouble"](subproblem="boundary"),
        "sc-eta-double": lambda: cls["SCEtaDouble"](),
        "sc-no-interpolation": lambda: cls["SCNoInterpolation"](),
        "outer-theta-from-lf": lambda: cls["OuterThetaFromLf"](subproblem="boundary"),
        "acc-alpha-sqrt3": lambda: cls["AccAlphaSqrt3"](),
        "acc-tau-double": lambda: cls["AccTauDouble"](),
        "sc-returns-xbar": lambda: cls["SCReturnsXbar"](),
        "aeg-returns-xbar": lambda: cls["AEGReturnsXbar"](),
        "c-acc-returns-xbar": lambda: cls["CAccReturnsXbar"](subproblem="boundary"),
        "acc-returns-z": lambda: cls["AccReturnsZ"](),
        "inner-returns-x": lambda: cls["InnerReturnsX"](subproblem="boundary"),
        "vrcs-theta-double": lambda: algorithms.make("vrcs", theta_scale=2.0),
    }
    return table[key]()


@contextmanager
def _signed_delta() -> Any:
    """δ_f, δ_g computed as the largest *signed* eigenvalue of A_f1 − A_f, A_g1 − A_g instead of the largest modulus
    (identical on PSD perturbations; smaller when the modulus is attained by a negative eigenvalue)."""
    from fedrates.solvers.problems import separation as sep_problem

    original = sep_problem.Split.__post_init__

    def patched(self: Any) -> None:
        original(self)
        ev = np.linalg.eigvalsh
        object.__setattr__(self, "delta_f", float(ev(sep_problem._sym(self.A_f1 - self.A_f))[-1]))
        object.__setattr__(self, "delta_g", float(ev(sep_problem._sym(self.A_g1 - self.A_g))[-1]))

    sep_problem.Split.__post_init__ = patched
    sep_problem._SPLITS.clear()
    _instance_json.cache_clear()
    try:
        yield
    finally:
        sep_problem.Split.__post_init__ = original
        sep_problem._SPLITS.clear()
        _instance_json.cache_clear()


@contextmanager
def _similar_generator(kind: str) -> Any:
    """The ``quadratic`` family's ``structure=similar`` generator with one defect: ``unpaired`` draws every t_k
    independently (no ± pairs, so the mean Hessian is not H), ``full-delta`` drops the ½ of
    Q_k = H + ½δ U diag(t_k) Uᵀ (so max_ij‖Q_i − Q_j‖ = 2δ)."""
    from fedrates.solvers.problems import quadratic
    from fedrates.verify.claims.bylinkin import instances

    original = quadratic._hessians_and_centres

    def patched(p: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        if p["structure"] != "similar":
            return original(p, rng)
        K, d = p["clients"], p["dim"]
        H = quadratic._random_hessian(rng, p["mu"], p["L"], d)
        U = quadratic.haar_orthogonal(rng, d)
        if kind == "unpaired":
            t = rng.uniform(-1.0, 1.0, (K, d))
            t[0, 0], t[K // 2, 0] = 1.0, -1.0
        else:
            half = rng.uniform(-1.0, 1.0, (K // 2, d))
            half[0, 0] = 1.0
            t = np.concatenate([half, -half])
        scale = 0.5 * p["delta"] if kind == "unpaired" else p["delta"]
        Q = H[None] + scale * np.einsum("ij,kj,lj->kil", U, t, U)
        return 0.5 * (Q + np.swapaxes(Q, 1, 2)), p["spread"] * rng.standard_normal((K, d))

    quadratic._hessians_and_centres = patched
    instances._similar.cache_clear()
    try:
        yield
    finally:
        quadratic._hessians_and_centres = original
        instances._similar.cache_clear()


def _swap(key: str) -> Any:
    return lambda claim: claim.with_algorithm(variant_algorithm(key))


VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("sc_acc_extragradient/shared-coin", "algorithm",
                  "one coin decides both xi_k and zeta_k (the text's 'same scheme' read as the same draw)",
                  ("bylinkin.thm1/exact-mean", "bylinkin.thm1/independent-coins", "bylinkin.thm1/second-moment",
                   "bylinkin.thm5.corrected/noise-floor", "bylinkin.thm5/noise-floor"),
                  apply=_swap("shared-coin")),
    BrokenVariant("sc_acc_extragradient/no-importance-weight", "algorithm",
                  "xi_k drops the 1/p, 1/(1-p) normalisation (biased oracle)",
                  ("bylinkin.thm1/exact-mean", "bylinkin.thm1/second-moment", "bylinkin.thm5.corrected/noise-floor",
                   "bylinkin.thm5/noise-floor"), apply=_swap("no-importance-weight")),
    BrokenVariant("sc_acc_extragradient/p-uniform", "algorithm",
                  "M_f and M_g chosen with probability 1/2 instead of p = delta_f/(delta_f + delta_g)",
                  ("bylinkin.thm1/split-rounds",), apply=_swap("p-uniform")),
    BrokenVariant("aeg/double-eta", "algorithm", "step eta twice the tuning (9)",
                  ("bylinkin.thm5/spectral-radius", "bylinkin.thm5.corrected/one-step",
                   "bylinkin.thm5.corrected/one-step-signed", "bylinkin.thm5.corrected/similar-quadratic"),
                  apply=_swap("aeg-double-eta")),
    BrokenVariant("aeg/inexact-100x", "algorithm",
                  "server subproblems stopped at 100x the accuracy constant 1/(11 theta^2) of criterion (4)",
                  ("bylinkin.thm5.corrected/inexact-trajectory",), apply=_swap("aeg-inexact-100x")),
    BrokenVariant("vrcs/geom-from-zero", "algorithm", "epoch length T ~ Geom(q) drawn on {0, 1, ...}",
                  ("bylinkin.thm6/exact-mean", "bylinkin.thm6/epoch-rounds", "bylinkin.thm6.mg/epoch-rounds"),
                  apply=_swap("geom-from-zero")),
    BrokenVariant("acc_vrcs/geom-from-zero", "algorithm", "AccVRCS epochs with T ~ Geom(q) on {0, 1, ...}",
                  ("bylinkin.thm7/exact-mean", "bylinkin.thm7.mf.corrected/rounds"),
                  apply=_swap("acc-geom-from-zero")),
    BrokenVariant("acc_vrcs/no-tk-round", "algorithm", "the round for grad h(y_{k+1}) (t_k) is not counted",
                  ("bylinkin.thm7.mf.corrected/rounds", "bylinkin.thm7.mg.corrected/rounds"),
                  apply=_swap("no-tk-round")),
    BrokenVariant("acc_vrcs/printed-sign", "algorithm", "G_{k+1} = q(t_k + (x - y)/theta) as printed in Line 7",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/exact-mean"), apply=_swap("printed-sign")),
    BrokenVariant("c_acc_extragradient/theta-2-over-df", "algorithm", "outer step theta_f = 2/delta_f",
                  ("bylinkin.thm4/exact-contraction",), apply=_swap("theta-2-over-df")),
    BrokenVariant("c_acc_extragradient/inner-10x", "algorithm",
                  "inner phase stopped at 10x the accuracy constant of criterion (6)",
                  ("bylinkin.thm4/outer-criterion", "bylinkin.thm8/exact-iterates"), apply=_swap("inner-10x")),
    BrokenVariant("aeg/theta-from-df", "algorithm",
                  "the baseline tuned with delta_f only, theta = 1/(3 delta_f), ignoring g_1's dissimilarity",
                  ("bylinkin.thm4/aeg-baseline", "bylinkin.thm4/aeg-ratio",
                   "bylinkin.thm5.corrected/similar-quadratic"),
                  apply=_swap("aeg-theta-from-df")),
    BrokenVariant("c_acc_extragradient/tau-g-double", "algorithm",
                  "inner momentum tau_g = sqrt(theta_g/theta_f) (the factor 1/2 of (31) dropped)",
                  ("bylinkin.thm8.rate/recursion", "bylinkin.thm8/exact-iterates"), apply=_swap("tau-g-double")),
    BrokenVariant("c_acc_extragradient/no-acceleration", "algorithm",
                  "outer phase without the interpolation: tau_f = 1 (x_under = x_k) and eta_f = theta_f/2",
                  ("bylinkin.thm4/rate-df",), apply=_swap("no-acceleration")),
    BrokenVariant("c_acc_extragradient/outer-theta-from-sum", "algorithm",
                  "outer step theta_f = 1/(2(delta_f + delta_g)) (the AEG similarity constant in the outer phase)",
                  ("bylinkin.thm4/separation-dg", "bylinkin.thm4/aeg-ratio"), apply=_swap("outer-theta-from-sum")),
    BrokenVariant("c_acc_extragradient/inner-no-acceleration", "algorithm",
                  "inner phase without the interpolation: tau_g = 1 (x_under_t = x_t) and eta_g = theta_g/2",
                  ("bylinkin.thm4.mg/inner-rounds",), apply=_swap("inner-no-acceleration")),
    BrokenVariant("c_acc_extragradient/inner-one-step", "algorithm",
                  "inner phase cut to a single AccExtragradient step per outer iteration (criterion (6) not checked)",
                  ("bylinkin.thm4.mg/inner-rounds", "bylinkin.thm4/outer-criterion"), apply=_swap("inner-one-step")),
    BrokenVariant("vrcs/p-uniform", "algorithm", "VRCS with p = q = 1/2 instead of tuning (23)",
                  ("bylinkin.thm2/separation-dg", "bylinkin.thm2.mg/rate-dg"), apply=_swap("vrcs-p-uniform")),
    BrokenVariant("vrcs/no-control-variate", "algorithm",
                  "VRCS^1ep without the SVRG control variate: e_t = xi_t (the anchor gradients never used)",
                  ("bylinkin.thm2/rate-df", "bylinkin.thm2/separation-dg", "bylinkin.thm2/rate-df-fixed-mu"),
                  apply=_swap("no-control-variate")),
    BrokenVariant("acc_vrcs/p-uniform", "algorithm", "AccVRCS with p = q = 1/2 instead of tuning (24)",
                  ("bylinkin.thm3/separation-dg", "bylinkin.thm3.mg/rate-dg"), apply=_swap("acc-p-uniform")),
    BrokenVariant("acc_vrcs/tau-squared", "algorithm",
                  "AccVRCS interpolation tau = theta mu/(3q) (the square root of (24) dropped)",
                  ("bylinkin.thm3/rate-df", "bylinkin.thm3/acceleration", "bylinkin.thm3/rate-df-fixed-mu"),
                  apply=_swap("acc-tau-squared")),
    BrokenVariant("separation/delta-signed-eigenvalue", "constants",
                  "delta_f, delta_g computed as the largest signed eigenvalue of A_f1 - A_f, A_g1 - A_g instead of the "
                  "largest modulus (Definition 1's spectral norm)",
                  ("bylinkin.thm7/branch-map-nonconvex", "bylinkin.thm6/exact-mean-nonconvex"), patch=_signed_delta),
    BrokenVariant("c_acc_extragradient/outer-theta-from-lf", "algorithm",
                  "outer step theta_f = 1/(2 L_f) (Kovalev et al.'s L_p read as the smoothness of f, not delta_f)",
                  ("bylinkin.thm4/l-free",), apply=_swap("outer-theta-from-lf")),
    BrokenVariant("sc_acc_extragradient/eta-double", "algorithm", "step eta = sqrt(theta/mu), twice tuning (9)",
                  ("bylinkin.thm5.corrected/counterexample",), apply=_swap("sc-eta-double")),
    BrokenVariant("sc_acc_extragradient/no-interpolation", "algorithm",
                  "SC-AccExtragradient without the interpolation: tau = 1 (x_under_k = x_k)",
                  ("bylinkin.thm1/rounds-to-eps", "bylinkin.thm1.mg/rounds-to-eps"),
                  apply=_swap("sc-no-interpolation")),
    BrokenVariant("c_acc_extragradient/tau-f-double", "algorithm",
                  "outer momentum tau_f = sqrt(mu theta_f) (the factor 1/2 of Kovalev et al.'s tuning dropped)",
                  ("bylinkin.thm4/outer-lyapunov",), apply=_swap("tau-f-double")),
    BrokenVariant("acc_vrcs/alpha-sqrt3", "algorithm",
                  "AccVRCS prox weight alpha = sqrt(theta/(mu q)) (the 3 of (24) dropped: alpha x sqrt3)",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/lyapunov-step"), apply=_swap("acc-alpha-sqrt3")),
    BrokenVariant("acc_vrcs/tau-double", "algorithm", "AccVRCS interpolation tau = 2 sqrt(theta mu/(3q))",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/lyapunov-step", "bylinkin.thm7/explicit-rate"),
                  apply=_swap("acc-tau-double")),
    BrokenVariant("c_acc_extragradient/inner-returns-x", "algorithm",
                  "the inner AccExtragradient returns x_T (the other variable of its extragradient pair) instead of "
                  "xbar_T, the point at which criterion (6) was checked",
                  ("bylinkin.thm8/exact-iterates", "bylinkin.thm4/outer-criterion"), apply=_swap("inner-returns-x")),
    BrokenVariant("vrcs/theta-double", "algorithm",
                  "VRCS step theta = (1/2) sqrt(p(1-p)q/(p delta_g^2 + (1-p) delta_f^2)), twice tuning (23) (still "
                  "within Lemma 4's theta <= 1/(2(delta_f + delta_g)))",
                  ("bylinkin.thm6/lyapunov-step", "bylinkin.thm6/explicit-rate"), apply=_swap("vrcs-theta-double")),
    BrokenVariant("quadratic/similar-unpaired", "instance",
                  "structure=similar draws every client's t_k independently instead of in +/- pairs (the mean Hessian "
                  "is no longer H, so its smallest eigenvalue is not mu)",
                  ("bylinkin.thm5.corrected/similar-quadratic",), patch=lambda: _similar_generator("unpaired")),
    BrokenVariant("quadratic/similar-full-delta", "instance",
                  "structure=similar builds Q_k = H + delta U diag(t_k) U^T (the 1/2 dropped: max_ij ||Q_i - Q_j|| = "
                  "2 delta instead of delta)",
                  ("bylinkin.thm5.corrected/similar-quadratic",), patch=lambda: _similar_generator("full-delta")),
    BrokenVariant("sc_acc_extragradient/returns-xbar", "algorithm",
                  "SC-AccExtragradient returns xbar_K (the other variable of the extragradient pair) instead of x_K",
                  ("bylinkin.thm1/exact-iterates", "bylinkin.thm1/exact-mean"), apply=_swap("sc-returns-xbar")),
    BrokenVariant("aeg/returns-xbar", "algorithm", "AEG returns xbar_K instead of x_K",
                  ("bylinkin.thm5/exact-iterates",), apply=_swap("aeg-returns-xbar")),
    BrokenVariant("c_acc_extragradient/returns-xbar", "algorithm",
                  "C-AccExtragradient returns the outer xbar_K instead of x_K",
                  ("bylinkin.thm4/exact-contraction", "bylinkin.thm8/exact-iterates"),
                  apply=_swap("c-acc-returns-xbar")),
    BrokenVariant("acc_vrcs/returns-z", "algorithm", "AccVRCS returns z_K instead of y_K",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/exact-mean"), apply=_swap("acc-returns-z")),
)
