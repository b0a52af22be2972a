"""Bao, Crawshaw, Luo, Liu, "Fast Composite Optimization and Statistical Recovery in Federated
Learning" (ICML 2022) -- Fast-FedDA, C-FedDA, MC-FedDA.

Every result of the paper that bounds an error, a drift, a rate or a complexity, in the paper's letters.  The
main-text statements hide absolute constants (``kind="order"``); where the appendix proof gives the constants, the
explicit version is a separate theorem (``.explicit``).

Conventions used throughout (see the notes of each theorem):

* weights alpha_t = (t + a)^2, A_n = sum_{i=0}^n alpha_i = (n+1) a^2 + a n (n+1) + n (n+1)(2n+1)/6,
  gamma = 2 mu a^3;
* equal client weights pi_k = 1/K, so the weighted noise sigma_bar^2 = sum_k pi_k^2 sigma^2 = sigma^2/K (the
  setting of Remark 2.1 and Table 1; with unequal weights replace sigma^2/K by sigma_bar^2);
* B = ||w_0 - w_hat||^2 (not a batch size).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import sympy as sp

from fedrates.bounds.symbols import syms
from fedrates.bounds.theorem import Note, Theorem
from fedrates.errata import Erratum

__all__ = ["THEOREMS", "A", "GAMMA"]

T, K, E, R, t, r = syms("T K E R t r")
mu, L, Lam, H, rho, sigma, B, a = syms("mu L Lam H rho sigma B a")
delta, eps0, tau, nu, Psi = syms("delta eps0 tau nu Psi")
lam_opt, lam0, lam_m, Tm, eps_m = syms("lam_opt lam0 lam_m Tm eps_m")
gstar, d, dhat, eta = syms("gstar d dhat eta")

GAMMA = 2 * mu * a**3  #: gamma = 2 mu a^3 (Thms 2.1, 3.1)
SIGMA_BAR_SQ = sigma**2 / K  #: equal weights: sum_k pi_k^2 sigma^2


def A(n: sp.Expr) -> sp.Expr:
    """A_n = sum_{i=0}^n (i + a)^2 in closed form."""
    return (n + 1) * a**2 + a * n * (n + 1) + n * (n + 1) * (2 * n + 1) / 6


def _power_sum_4(n: sp.Expr) -> sp.Expr:
    """sum_{r=0}^n (r + a)^4 in closed form (Faulhaber sums of r, r^2, r^3, r^4)."""
    s1 = n * (n + 1) / 2
    s2 = n * (n + 1) * (2 * n + 1) / 6
    s3 = s1**2
    s4 = n * (n + 1) * (2 * n + 1) * (3 * n**2 + 3 * n - 1) / 30
    return s4 + 4 * a * s3 + 6 * a**2 * s2 + 4 * a**3 * s1 + (n + 1) * a**4


_PAPER = "bao"
_FAST = ("fast_fedda",)
_C = ("c_fedda",)
_MC = ("mc_fedda",)

_BASE_SYMBOLS = {
    "T": "iterations",
    "K": "clients",
    "E": "local_steps",
    "R": "rounds",
    "mu": "strong convexity (A1) / restricted strong convexity (A6)",
    "L": "local smoothness (A1) / restricted smoothness (A7)",
    "Lam": "global smoothness of sum_k pi_k L_k (A3)",
    "H": "heterogeneity bound ||grad L - grad L_k|| <= H (A3)",
    "rho": "radius of the l2 (Frobenius) ball domain W",
    "sigma": "stochastic-gradient noise level (A4 variance / A8 light tail)",
    "B": "squared initial distance ||w_0 - w_hat||^2",
    "a": "shift of the weights alpha_t = (t + a)^2",
    "delta": "failure probability",
    "eps0": "radius of the R-ball around the initial point (C-FedDA)",
    "tau": "RSC tolerance tau = sum_k pi_k tau_k (A6)",
    "nu": "RSM tolerance nu = sum_k pi_k nu_k (A7)",
    "Psi": "subspace Lipschitz constant Psi(M_bar) (Definition 1)",
    "lam_opt": "target regularisation parameter lambda_opt (>= 2 R*(grad L(w*)))",
    "lam0": "initial regularisation parameter lambda_0 of MC-FedDA",
    "lam_m": "regularisation parameter of stage m, lambda_m = 2^-m lambda_0",
    "Tm": "iterations",
    "eps_m": "R-ball radius of stage m",
    "gstar": "dual norm R*(grad L(w*)) of the loss gradient at the ground truth",
    "t": "iterations",
    "r": "rounds",
    "d": "distance ||w - w*|| of the point w to the ground truth",
    "dhat": "distance ||w_hat - w*|| of the regularised optimum to the ground truth",
    "eta": "suboptimality phi(w) - phi(w_hat) <= eta of the point w",
}


def _symbols(*exprs: sp.Basic) -> dict[str, str]:
    names: set[str] = set()
    for e in exprs:
        names |= {s.name for s in e.free_symbols}
    return {n: _BASE_SYMBOLS[n] for n in sorted(names)}


def _theorem(**kw: object) -> Theorem:
    rhs = kw["rhs"]
    conditions = kw.get("conditions", ())
    kw.setdefault("symbols", _symbols(rhs, *conditions))  # type: ignore[arg-type]
    return Theorem(paper=_PAPER, **kw)  # type: ignore[arg-type]


A1_4 = (
    "A1: each L_k is L-smooth and mu-strongly convex on W",
    "A2: h closed convex",
    "A3: Lam-smooth global loss, heterogeneity ||grad L - grad L_k|| <= H",
    "A4: unbiased stochastic gradients with variance <= sigma^2 (population sampling)",
    "W = {||w|| <= rho}",
    "full participation, independent client samples",
)
A_STAT = (
    "A3: Lam-smooth global loss, heterogeneity H",
    "A5: R a decomposable norm with R* <= ||.|| <= R, w* in M",
    "A6: restricted strong convexity (mu, tau_k)",
    "A7: restricted smoothness (L, nu_k)",
    "A8: light-tailed gradient noise sigma (empirical sampling)",
    "W = {||w|| <= rho}",
)

FAST_CONDITIONS = (sp.Ge(a, 4 * L / mu), sp.Ge(T, a), sp.Le(mu, L), sp.Le(E, T))
C_CONDITIONS = (sp.Ge(a, 4 * L / mu), sp.Ge(T, E * (a + 1)), sp.Le(mu, L), sp.Lt(delta, 1))

NOTE_SIGN = Note(
    "Theorem 2.1 defines the estimator with Prox_{t+1}(sum_k pi_k (g_t^k + mu w~_t^k / 2)); Algorithm 1, (12), "
    "(13) and the whole proof use Prox_t(sum_k pi_k (g_t^k - mu w~_t^k / 2)). With '+' the method does not "
    "converge.",
    "The bound is about w_FF = (1/A_T) sum_{t=0}^T alpha_t w_{t+1} with w_{t+1} = Prox_t(g_bar_t - mu w~_bar_t/2).",
    "erratum",
    erratum=Erratum(
        kind='typo',
        where='Theorem 2.1, definition of the estimator',
        quote='w_{t+1} = Prox_{t+1}(sum_k pi_k (g_t^k + mu w~_t^k / 2))',
        true_statement=(
            'Algorithm 1, (12), (13) and the proof use Prox_t(sum_k pi_k (g_t^k - mu w~_t^k / 2)); the theorem holds '
            'for that estimator'
        ),
        evidence='the implemented Fast-FedDA follows Algorithm 1; the bound claims of bao.thm2.1 hold for it',
    ),
)
NOTE_T = Note(
    "Section 2.1 sets sync steps t_r = rE for 0 <= r <= R but writes t_R = (R+1)E = T.",
    "T is the number of local iterations per client, T = (R+1)E (the last step index is T-1); rates read T as "
    "the iteration count.",
    "clarification",
)
NOTE_EQUAL = Note(
    "sigma_bar^2 = sum_k pi_k^2 sigma^2 in the paper.",
    "Written for equal weights pi_k = 1/K, sigma_bar^2 = sigma^2/K (Remark 2.1, Table 1), so that K appears.",
    "clarification",
)
NOTE_A2L = Note(
    "App. B.2 derives mu A_t + 2 gamma - 2 L alpha_t >= mu t^3/3 + mu a^3 'with a >= 2L/mu'; the inequality "
    "fails for a = 2L/mu (e.g. mu = 1, a = 7, t = 26: 6187 < 6201.7).",
    "Use the theorem's hypothesis a >= 4L/mu, under which the inequality holds.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Appendix B.2, the inequality mu A_t + 2 gamma - 2 L alpha_t >= mu t^3/3 + mu a^3',
        quote='with a >= 2L/mu',
        true_statement="the inequality, and Theorem 2.1, hold under the theorem's own hypothesis a >= 4L/mu",
        evidence='exact counterexample to the step at a = 2L/mu: mu = 1, a = 7, t = 26 gives 6187 < 6201.7',
    ),
)


@cache
def _fast_fedda() -> list[Theorem]:
    term_init = mu * a**3 * B / T**3
    term_noise = SIGMA_BAR_SQ / (mu * T)
    term_dnoise = L * E * sigma**2 / (mu**2 * T**2)
    term_dhet = L * E**2 * (H + Lam * rho) ** 2 / (mu**2 * T**2)
    thm21 = _theorem(
        id="bao.thm2.1",
        label="Theorem 2.1",
        title="Fast-FedDA: expected objective gap of the alpha-weighted average, rate sigma^2/(mu K T)",
        statement=r"\mathbb{E}[\phi(\hat w_{\mathrm{FF}}) - \phi(\hat w)] \lesssim \frac{\mu a^3 B}{T^3}"
        r" + \frac{\bar\sigma^2}{\mu T} + \frac{L E \sigma^2}{\mu^2 T^2}"
        r" + \frac{L E^2 (H + \Lambda\rho)^2}{\mu^2 T^2},\quad \bar\sigma^2 = \sigma^2/K,\ a \ge 4L/\mu,\ T \ge a",
        algorithms=_FAST,
        lhs="objective_gap",
        rhs=term_init + term_noise + term_dnoise + term_dhet,
        kind="order",
        probability="expectation",
        conditions=FAST_CONDITIONS,
        assumptions=A1_4,
        notes=(NOTE_SIGN, NOTE_T, NOTE_EQUAL,
               Note("Prox_{t+1} in the estimator of Theorem 2.1.", "Prox_t, as in (12) and the proof.", "typo")),
        equation="(4)",
    )
    # App. B.2, last display before "<~": sums bounded by 5T(T+1) sigma_bar^2/mu and 36(T+1)/mu^2
    explicit = (
        GAMMA * B
        + 5 * T * (T + 1) * SIGMA_BAR_SQ / mu
        + (3 * L + mu) / 2 * 36 * (T + 1) / mu**2 * 4 * (E * sigma**2 + E**2 * (H**2 + Lam**2 * rho**2))
    ) / A(T)
    thm21x = _theorem(
        id="bao.thm2.1.explicit",
        label="Theorem 2.1 (explicit constants, App. B.2)",
        title="Fast-FedDA: expected objective gap with the proof's constants",
        statement=r"\mathbb{E}[\phi(\hat w_{\mathrm{FF}}) - \phi(\hat w)] \le \frac{1}{A_T}\Big[\gamma B"
        r" + \frac{5T(T+1)\bar\sigma^2}{\mu} + \frac{3L+\mu}{2}\cdot\frac{36(T+1)}{\mu^2}"
        r"\cdot 4\big(E\sigma^2 + E^2(H^2 + \Lambda^2\rho^2)\big)\Big],\quad \gamma = 2\mu a^3,"
        r"\ A_T = \sum_{t=0}^T (t+a)^2",
        algorithms=_FAST,
        lhs="objective_gap",
        rhs=explicit,
        kind="explicit",
        probability="expectation",
        conditions=FAST_CONDITIONS,
        assumptions=A1_4,
        notes=(
            NOTE_SIGN, NOTE_T, NOTE_EQUAL, NOTE_A2L,
            Note("The last display of App. B.2 prints H^2 + Lambda^2 + mu^2 rho^2 (and D_0 = gamma_0 ||.||/2 "
                 "without the square).", "H^2 + Lambda^2 rho^2, as in Lemma B.5 and (16).", "typo"),
            Note("App. B.2 bounds sum_{t=0}^T alpha_t^3/(mu A_t/2 + gamma)^2 by 36T/mu^2, but each of the T+1 "
                 "terms is only shown to be <= 36/mu^2.",
                 "36(T+1)/mu^2 is used (a bound that follows from the proof's termwise inequality).",
                 "clarification"),
        ),
        equation="App. B.2, last line before (4)",
    )
    lemb5 = _theorem(
        id="bao.lemB.5",
        label="Lemma B.5",
        title="Fast-FedDA: expected client drift ||w_t^k - w_t||^2 at step t",
        statement=r"\mathbb{E}[\|w_t^k - w_t\|^2 \mid \mathcal{F}_t],\ \mathbb{E}[\|w_t^k - \check w_t\|^2"
        r" \mid \mathcal{F}_t] \le \frac{4E\sigma^2\alpha_t^2 + 4E^2(H^2+\Lambda^2\rho^2)\alpha_t^2}"
        r"{(\mu A_t/2 + \gamma)^2}",
        algorithms=_FAST,
        lhs="client_drift_sq",
        rhs=4 * (E * sigma**2 + E**2 * (H**2 + Lam**2 * rho**2)) * (t + a) ** 4 / (mu * A(t) / 2 + GAMMA) ** 2,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Ge(a, 4 * L / mu), sp.Le(mu, L)),
        assumptions=A1_4,
        notes=(Note("The drift bound is conditional on F_t and holds at every step t (zero at sync steps).",
                    "Measured as the pi-weighted mean over clients of ||w_t^k - w_t||^2.", "clarification"),),
        equation="Lemma B.5, App. D.1",
    )
    # T / E_max with E_max = sqrt(sigma^2 mu T / (L K (H + Lam rho)^2))
    rounds = sp.sqrt(T * L * K) * (H + Lam * rho) / (sigma * sp.sqrt(mu))
    rem21 = _theorem(
        id="bao.rem2.1",
        label="Remark 2.1",
        title="Fast-FedDA: communication rounds T/E with the largest E keeping linear speedup, O(sqrt(T K))",
        statement=r"E^2 \lesssim \frac{\sigma^2\mu T}{L K (H + \Lambda\rho)^2}\ \Rightarrow\ "
        r"\frac{T}{E} = \sqrt{\frac{T L K (H+\Lambda\rho)^2}{\mu\sigma^2}} = O(T^{1/2} K^{1/2})",
        algorithms=_FAST,
        lhs="rounds",
        rhs=rounds,
        kind="complexity",
        probability="deterministic",
        conditions=(sp.Ge(a, 4 * L / mu), sp.Ge(T, a), sp.Le(mu, L)),
        assumptions=A1_4,
        notes=(
            NOTE_EQUAL,
            Note("Remark 2.1 says the other terms are dominated by sigma^2/(mu K T) when "
                 "T >~ mu L^{1/2} a^{3/2} K^{1/2}/sigma; balancing mu a^3 B/T^3 with sigma^2/(mu K T) gives "
                 "T >~ mu a^{3/2} (B K)^{1/2}/sigma (B, not L).",
                 "Crossovers are computed from the terms of (4) (bounds.analysis.dominant_regimes).", "typo"),
        ),
        equation="Remark 2.1",
    )
    return [thm21, thm21x, lemb5, rem21]


def _statistical() -> list[Theorem]:
    return [_prop31(), _prop31_r(), _thm31(), _thm31_explicit(), _lemb7(), _corb1(), _lemb8(), _lemb8_b()]


# the statistical results are built one by one (Theorem 3.1 (explicit) alone takes about 0.05 s of sympy work, which
# `fedrates explore bao.corB.1` need not pay); each builder runs once, so every lookup returns the same object
@cache
def _prop_conditions() -> tuple[sp.Basic, ...]:
    return (sp.Le(tau * Psi**2, mu / 64), sp.Ge(lam_opt, 2 * gstar))


@cache
def _note_const() -> Note:
    return Note(
        "Proposition 3.1 is quoted from Negahban et al. (2012, Cor. 1) / Wainwright (2019, Thm 9.19); the "
        "constant 3 depends on how the RSC curvature is normalised (Assumption 6 uses (mu/2)||Delta||^2).",
        "The printed constants are used; verification reports the measured ratio to Psi lambda_opt/mu.",
        "clarification",
    )


@cache
def _prop31() -> Theorem:
    return _theorem(
        id="bao.prop3.1",
        label="Proposition 3.1",
        title="Statistical error of the regularised M-estimator, ||w_hat - w*|| <= 3 Psi lambda/mu",
        statement=r"\|\hat w - w^*\| \le \frac{3\Psi(\bar{\mathcal M})\lambda_{\mathrm{opt}}}{\mu},\quad"
        r" \tau\Psi^2 \le \mu/64,\ \lambda_{\mathrm{opt}} \ge 2\mathcal{R}^*(\nabla\mathcal{L}(w^*))",
        algorithms=(),
        lhs="distance_to_truth",
        rhs=3 * Psi * lam_opt / mu,
        kind="explicit",
        probability="deterministic",
        conditions=_prop_conditions(),
        assumptions=A_STAT[1:3],
        notes=(_note_const(),),
        equation="Proposition 3.1",
    )


@cache
def _prop31_r() -> Theorem:
    return _theorem(
        id="bao.prop3.1.R",
        label="Proposition 3.1 (R-norm)",
        title="Statistical error of the regularised M-estimator in the regulariser norm",
        statement=r"\mathcal{R}(\hat w - w^*) \le \frac{12\Psi^2(\bar{\mathcal M})\lambda_{\mathrm{opt}}}{\mu}",
        algorithms=(),
        lhs="reg_distance_to_truth",
        rhs=12 * Psi**2 * lam_opt / mu,
        kind="explicit",
        probability="deterministic",
        conditions=_prop_conditions(),
        assumptions=A_STAT[1:3],
        notes=(_note_const(),),
        equation="Proposition 3.1",
    )


def _lgd() -> sp.Expr:
    return sp.log(1 / delta)


def _sbar() -> sp.Expr:
    return sp.sqrt(SIGMA_BAR_SQ)


@cache
def _thm31() -> Theorem:
    lgd = _lgd()
    return _theorem(
        id="bao.thm3.1",
        label="Theorem 3.1",
        title="C-FedDA: high-probability objective gap, O(1/sqrt(T)) plus the RSC/RSM floor (tau+nu) eps0^2",
        statement=r"\phi(\hat w_{\mathrm{C}}) - \phi(\hat w) \lesssim \frac{\mu a^3 E^3\epsilon_0^2}{T^3}"
        r" + \frac{\bar\sigma^2\log(1/\delta)}{\mu T} + \frac{L E\sigma^2\log^2(1/\delta)}{\mu^2T^2}"
        r" + \frac{L E^2(\Lambda\rho + H)^2}{\mu^2 T^2} + \frac{\epsilon_0\bar\sigma\sqrt{\log(1/\delta)}}"
        r"{\sqrt T} + (\tau+\nu)\epsilon_0^2\ \text{w.p.}\ \ge 1-\delta",
        algorithms=_C,
        lhs="objective_gap",
        rhs=mu * a**3 * E**3 * eps0**2 / T**3
        + SIGMA_BAR_SQ * lgd / (mu * T)
        + L * E * sigma**2 * lgd**2 / (mu**2 * T**2)
        + L * E**2 * (Lam * rho + H) ** 2 / (mu**2 * T**2)
        + eps0 * sp.sqrt(SIGMA_BAR_SQ) * sp.sqrt(lgd) / sp.sqrt(T)
        + (tau + nu) * eps0**2,
        kind="order",
        probability="high_probability",
        failure_probability="delta",
        conditions=C_CONDITIONS,
        assumptions=A_STAT,
        notes=(
            NOTE_EQUAL,
            Note("Theorem 3.1 runs rounds r = 0..R and its proof converts with T = ER.",
                 "T = E(R+1); the condition R >= a is T >= E(a+1).", "clarification"),
            Note("The lhs is written phi(w_C) - phi(w_hat_opt) while the hypothesis R(w_0 - w_hat) <= eps0 and the "
                 "proof use w_hat, the minimiser for the lambda given to C-FedDA.",
                 "The comparator is w_hat = argmin_W L + lambda R for C-FedDA's own lambda.", "clarification"),
            Note("Remark 3.2 writes the 5th term as sigma_bar sqrt(eps0 log(1/delta)/T).",
                 "(9): eps0 sigma_bar sqrt(log(1/delta))/sqrt(T).", "typo"),
            Note("The proof applies Lemma B.7 (probability 1 - delta) at every (r, i, k) without a union bound.",
                 "Only logarithmic factors change (log(2/delta) -> log(2KT/delta) in the drift terms); the "
                 "order statement is kept.", "clarification"),
        ),
        equation="(9)",
    )


@cache
def _thm31_explicit() -> Theorem:
    S4 = _power_sum_4(R)
    l6, l3, l2 = sp.log(6 / delta), sp.log(3 / delta), sp.log(2 / delta)
    sbar = _sbar()
    return _theorem(
        id="bao.thm3.1.explicit",
        label="Theorem 3.1 (explicit constants, App. B.3)",
        title="C-FedDA: high-probability objective gap with the proof's constants, in rounds R",
        statement=r"\phi(\hat w_{\mathrm C}) - \phi(\hat w) \le \frac{2\gamma\epsilon_0^2}{A_R}"
        r" + 32\bar\sigma^2\log(6/\delta)\Big(1 + 8\sqrt{\tfrac{\log(6/\delta)}{E}}\Big)\frac{R(R+1)}{\mu E A_R}"
        r" + \frac{144(3L+2\mu)(R+1)}{\mu^2 A_R}\big(32E^{-1}\sigma^2\log^2(2/\delta) + 2(\Lambda\rho+H)^2\big)"
        r" + \frac{8\epsilon_0\bar\sigma\sqrt{3\log(3/\delta)E\sum_{r=0}^R (r+a)^4}}{E A_R}"
        r" + 20(\tau+\nu)\epsilon_0^2",
        algorithms=_C,
        lhs="objective_gap",
        rhs=2 * GAMMA * eps0**2 / A(R)
        + 32 * SIGMA_BAR_SQ * l6 * (1 + 8 * sp.sqrt(l6 / E)) * R * (R + 1) / (mu * E * A(R))
        + 144 * (3 * L + 2 * mu) * (R + 1) / (mu**2 * A(R))
        * (32 * sigma**2 * l2**2 / E + 2 * (Lam * rho + H) ** 2)
        + 8 * eps0 * sbar * sp.sqrt(3 * l3 * E * S4) / (E * A(R))
        + 20 * (tau + nu) * eps0**2,
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=(sp.Ge(a, 4 * L / mu), sp.Ge(R, a), sp.Le(mu, L), sp.Lt(delta, 1)),
        assumptions=A_STAT,
        notes=(
            NOTE_EQUAL,
            Note("(22) bounds the noise sum with (E + 8 sqrt(E log(3/delta))) on its first line and "
                 "(1 + 8 sqrt(log(6/delta)/E)) on its second; the final display prints log(3/delta).",
                 "log(6/delta) (the larger) is used inside the square root.", "typo"),
            Note("App. B.3 writes 'gamma = mu a^3' and 'D_0 <= (gamma/2) eps0'.",
                 "gamma = 2 mu a^3 as in the theorem; D_0 <= (gamma E/2) eps0^2.", "typo"),
        ),
        equation="App. B.3, last line before (9)",
    )


@cache
def _lemb7() -> Theorem:
    return _theorem(
        id="bao.lemB.7",
        label="Lemma B.7",
        title="C-FedDA: high-probability client drift within round r",
        statement=r"\|w_i^k - \bar w_{r+1}\| \le \frac{4\alpha_r}{E\mu A_r/2 + \gamma E}"
        r"\big(4\sqrt{E}\sigma\log(2/\delta) + E(H + \Lambda\rho)\big)\ \text{w.p.}\ \ge 1-\delta",
        algorithms=_C,
        lhs="client_drift",
        rhs=4 * (r + a) ** 2 / (E * mu * A(r) / 2 + GAMMA * E)
        * (4 * sp.sqrt(E) * sigma * sp.log(2 / delta) + E * (H + Lam * rho)),
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=(sp.Ge(a, 4 * L / mu), sp.Le(mu, L), sp.Lt(delta, 1)),
        assumptions=A_STAT,
        notes=(Note("The bound holds for one (i, k) with probability 1 - delta.",
                    "A simultaneous check over all steps and clients needs delta/(K T) (union bound).",
                    "clarification"),),
        equation="Lemma B.7, App. D.2",
    )


@cache
def _corb1() -> Theorem:
    sbar, lgd = _sbar(), _lgd()
    return _theorem(
        id="bao.corB.1",
        label="Corollary B.1",
        title="One MC-FedDA stage: excess risk sigma_bar eps_m sqrt(log(1/delta)/T_m) + (tau+nu) eps_m^2",
        statement=r"\phi_m(\hat w_m) - \phi_m(\hat w^m) \lesssim \frac{\bar\sigma\epsilon_m\sqrt{\log(1/\delta)}}"
        r"{\sqrt{T_m}} + (\tau+\nu)\epsilon_m^2,\quad T_m \gtrsim \bar\sigma^2/(\mu^2\epsilon_m^2)",
        algorithms=_C + _MC,
        lhs="objective_gap",
        rhs=sbar * eps_m * sp.sqrt(lgd) / sp.sqrt(Tm) + (tau + nu) * eps_m**2,
        kind="order",
        probability="high_probability",
        failure_probability="delta",
        conditions=(sp.Ge(Tm, SIGMA_BAR_SQ / (mu**2 * eps_m**2)), sp.Lt(delta, 1)),
        assumptions=A_STAT,
        notes=(NOTE_EQUAL,),
        equation="Corollary B.1",
    )


@cache
def _lemb8() -> Theorem:
    return _theorem(
        id="bao.lemB.8",
        label="Lemma B.8 (24)",
        title="Cone bound: an eta-suboptimal w has R(w - w*) <= 4 Psi ||w - w*|| + 2 eta/lambda",
        statement=r"\phi(w) - \phi(\hat w) \le \eta\ \Rightarrow\ \mathcal{R}(w - w^*) \le 4\Psi\|w - w^*\|"
        r" + 2\eta/\lambda",
        algorithms=(),
        lhs="reg_distance_to_truth",
        rhs=4 * Psi * d + 2 * eta / lam_opt,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Ge(lam_opt, 2 * gstar),),
        assumptions=A_STAT[1:3],
        notes=(Note("Lemma B.8 assumes lambda > R*(grad L(w*))/2.",
                    "lambda >= 2 R*(grad L(w*)), as in Proposition 3.1 and Agarwal et al. (2012, Lemma 3).",
                    "typo"),),
        equation="(24)",
    )


@cache
def _lemb8_b() -> Theorem:
    v = 8 * Psi * dhat + 2 * eta / lam_opt
    return _theorem(
        id="bao.lemB.8.b",
        label="Lemma B.8 (25)",
        title="An eta-suboptimal w is close to w_hat: (mu/2 - 32 Psi^2 tau)||w - w_hat||^2 <= 2 tau v^2 + eta",
        statement=r"\|w - \hat w\|^2 \le \frac{2\tau v^2 + \eta}{\mu/2 - 32\Psi^2\tau},\quad"
        r" v = 8\Psi\|\hat w - w^*\| + 2\eta/\lambda",
        algorithms=(),
        lhs="distance_sq_to_optimum",
        rhs=(2 * tau * v**2 + eta) / (mu / 2 - 32 * Psi**2 * tau),
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Ge(lam_opt, 2 * gstar), sp.Lt(64 * Psi**2 * tau, mu)),
        assumptions=A_STAT[1:3],
        notes=(Note("Lemma B.8's (24) carries 2 eta/lambda while its use in (27a) writes eta/lambda.",
                    "2 eta/lambda.", "typo"),),
        equation="(25)",
    )


@cache
def _mc_fedda() -> list[Theorem]:
    M = sp.log(lam0 / lam_opt) / sp.log(2) + 1
    mc_conditions = (
        sp.Ge(lam0, lam_opt),
        sp.Lt(delta, 1),
        sp.Le(8 * 54**2 * Psi**2 * (tau + nu), mu),
        sp.Le(128 * Psi**2 * tau, mu),
    )
    note_stage = Note(
        "B.4 sets T_m = 8*54^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2) (= 2 sigma_bar^2 log(2M/delta)/"
        "lambda_m^2 with eps_m = 108 Psi^2 lambda_m/mu) and claims sigma_bar eps_m sqrt(log)/sqrt(T_m) + "
        "(tau+nu) eps_m^2 <= Psi^2 lambda_m^2/mu; with that T_m the first term alone equals "
        "(216/sqrt(8)) Psi^2 lambda_m^2/mu ~ 76.4 Psi^2 lambda_m^2/mu.",
        "The per-stage claim follows with T_m = (8*54^2)^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2) = "
        "46656 sigma_bar^2 log(2M/delta)/lambda_m^2 (each term <= Psi^2 lambda_m^2/(2 mu)); see "
        "bao.thm3.2.stage_corrected. The order statement (10) is unaffected.",
        "erratum",
        erratum=Erratum(
            kind='constant',
            where='Appendix B.4, choice of the stage length T_m',
            quote='T_m = 8*54^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2)',
            true_statement=(
                'the per-stage claim follows with T_m = (8*54^2)^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2) '
                '(bao.thm3.2.stage_corrected); the order statement (10) is unaffected'
            ),
            evidence=(
                'symbolic: with the printed T_m the first term alone equals (216/sqrt(8)) Psi^2 lambda_m^2/mu, above '
                'the claimed total'
            ),
        ),
    )
    note_err = Note(
        "Theorem 3.2 states ||w_MC - w*|| <= 4 Psi lambda_opt/mu; the end of B.4 proves ||w_M - w_hat_opt||^2 <= "
        "||w_hat_opt - w*||^2 + 6 Psi^2 lambda_opt^2/mu^2 <= 15 Psi^2 lambda_opt^2/mu^2, a bound on the distance "
        "to the empirical optimum w_hat_opt, not to w*.",
        "Proven: ||w_MC - w_hat_opt|| <= sqrt(15) Psi lambda_opt/mu (bao.thm3.2.err_opt) and, with Proposition "
        "3.1, ||w_MC - w*|| <= (3 + sqrt(15)) Psi lambda_opt/mu (bao.thm3.2.err_proven).",
        "erratum",
        erratum=Erratum(
            kind='proof-gap',
            where='Theorem 3.2 and the end of Appendix B.4',
            quote='||w_MC - w*|| <= 4 Psi lambda_opt/mu',
            true_statement=(
                'the proof bounds the distance to the empirical optimum, ||w_MC - w_hat_opt|| <= sqrt(15) Psi '
                'lambda_opt/mu; with Proposition 3.1 it supports ||w_MC - w*|| <= (3 + sqrt(15)) Psi lambda_opt/mu; '
                'whether the constant 4 holds is open'
            ),
            evidence=(
                'symbolic reading of B.4; claims bao.thm3.2.err_opt and bao.thm3.2.err_proven check the proven forms'
            ),
        ),
    )
    note_total = Note(
        "B.4 sums T_m = 16*54^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2) = 4 sigma_bar^2 log(2M/delta)/"
        "lambda_m^2 (twice the stage budget it set) and ends with log((log2(lambda_0/lambda_opt)+1)/delta), "
        "dropping the 2 inside the logarithm; Theorem 3.2 writes T = sum_{m=0}^M T_m while stages are "
        "m = 0..M-1.",
        "Explicit form 4 sigma_bar^2 M log(2M/delta)/lambda_opt^2 with M = log2(lambda_0/lambda_opt) + 1 "
        "(every T_m <= 4 sigma_bar^2 log(2M/delta)/lambda_opt^2).",
        "typo",
    )
    sbar2 = SIGMA_BAR_SQ
    thm32 = _theorem(
        id="bao.thm3.2",
        label="Theorem 3.2 (10)",
        title="MC-FedDA: total iterations to statistical precision, O~(sigma_bar^2/lambda_opt^2)",
        statement=r"T = \sum_m T_m \lesssim \frac{\bar\sigma^2 (\log_2(\lambda_0/\lambda_{\mathrm{opt}}) + 1)}"
        r"{\lambda_{\mathrm{opt}}^2}\log\Big(\frac{\log_2(\lambda_0/\lambda_{\mathrm{opt}}) + 1}{\delta}\Big)",
        algorithms=_MC,
        lhs="iterations_to_precision",
        rhs=sbar2 * M / lam_opt**2 * sp.log(M / delta),
        kind="complexity",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9: C (tau + nu) Psi^2 <= mu, with C = 8*54^2 in the proof"),
        notes=(NOTE_EQUAL, note_total,
               Note("The total number of iterations is stated 'with probability at least 1 - delta'.",
                    "T is deterministic once the schedule is fixed; the probability is that of the accuracy "
                    "guarantees.", "clarification")),
        equation="(10)",
    )
    thm32x = _theorem(
        id="bao.thm3.2.explicit",
        label="Theorem 3.2 (explicit total, App. B.4)",
        title="MC-FedDA: total iterations with the proof's constant",
        statement=r"T \le \frac{4\bar\sigma^2 M}{\lambda_{\mathrm{opt}}^2}\log\frac{2M}{\delta},\quad"
        r" M = \log_2(\lambda_0/\lambda_{\mathrm{opt}}) + 1",
        algorithms=_MC,
        lhs="iterations_to_precision",
        rhs=4 * sbar2 * M / lam_opt**2 * sp.log(2 * M / delta),
        kind="complexity",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9"),
        notes=(NOTE_EQUAL, note_total),
        equation="App. B.4, total complexity",
    )
    gap = _theorem(
        id="bao.thm3.2.gap",
        label="Theorem 3.2 (objective gap)",
        title="MC-FedDA: phi(w_MC) - phi(w_hat_opt) <= Psi^2 lambda_opt^2/mu w.p. >= 1 - delta",
        statement=r"\phi(\hat w_{\mathrm{MC}}) - \phi(\hat w_{\mathrm{opt}}) \le "
        r"\frac{\Psi^2\lambda_{\mathrm{opt}}^2}{\mu}",
        algorithms=_MC,
        lhs="objective_gap",
        rhs=Psi**2 * lam_opt**2 / mu,
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9"),
        notes=(note_stage,),
        equation="Theorem 3.2",
    )
    err = _theorem(
        id="bao.thm3.2.err",
        label="Theorem 3.2 (estimation error, as stated)",
        title="MC-FedDA: ||w_MC - w*|| <= 4 Psi lambda_opt/mu (as stated)",
        statement=r"\|\hat w_{\mathrm{MC}} - w^*\| \le \frac{4\Psi\lambda_{\mathrm{opt}}}{\mu}",
        algorithms=_MC,
        lhs="distance_to_truth",
        rhs=4 * Psi * lam_opt / mu,
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9"),
        notes=(note_err, note_stage),
        equation="Theorem 3.2",
    )
    err_opt = _theorem(
        id="bao.thm3.2.err_opt",
        label="Theorem 3.2 (error to the empirical optimum, as proven in B.4)",
        title="MC-FedDA: ||w_MC - w_hat_opt|| <= sqrt(15) Psi lambda_opt/mu",
        statement=r"\|\hat w_{\mathrm{MC}} - \hat w_{\mathrm{opt}}\| \le "
        r"\frac{\sqrt{15}\,\Psi\lambda_{\mathrm{opt}}}{\mu}",
        algorithms=_MC,
        lhs="distance_to_optimum",
        rhs=sp.sqrt(15) * Psi * lam_opt / mu,
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9"),
        notes=(note_err, note_stage),
        equation="App. B.4, end",
    )
    err_proven = _theorem(
        id="bao.thm3.2.err_proven",
        label="Theorem 3.2 (error to the ground truth, as proven)",
        title="MC-FedDA: ||w_MC - w*|| <= (3 + sqrt(15)) Psi lambda_opt/mu",
        statement=r"\|\hat w_{\mathrm{MC}} - w^*\| \le \frac{(3+\sqrt{15})\Psi\lambda_{\mathrm{opt}}}{\mu}",
        algorithms=_MC,
        lhs="distance_to_truth",
        rhs=(3 + sp.sqrt(15)) * Psi * lam_opt / mu,
        kind="explicit",
        probability="high_probability",
        failure_probability="delta",
        conditions=mc_conditions,
        assumptions=(*A_STAT, "A9"),
        notes=(note_err, note_stage),
        equation="App. B.4 with Proposition 3.1",
    )
    stage = _theorem(
        id="bao.thm3.2.stage",
        label="Theorem 3.2 (stage budget, App. B.4)",
        title="MC-FedDA: iterations of stage m, T_m = 8*54^2 Psi^4 sigma_bar^2 log(2M/delta)/(mu^2 eps_m^2)",
        statement=r"T_m = \frac{8\cdot 54^2\,\Psi^4\bar\sigma^2\log(2M/\delta)}{\mu^2\epsilon_m^2}"
        r" = \frac{2\bar\sigma^2\log(2M/\delta)}{\lambda_m^2},\quad \epsilon_m = 108\Psi^2\lambda_m/\mu",
        algorithms=_MC,
        lhs="stage_iterations",
        rhs=2 * sbar2 * sp.log(2 * M / delta) / lam_m**2,
        kind="complexity",
        probability="high_probability",
        failure_probability="delta",
        conditions=(*mc_conditions, sp.Le(lam_opt, lam_m), sp.Le(lam_m, lam0)),
        assumptions=(*A_STAT, "A9"),
        notes=(note_stage, NOTE_EQUAL),
        equation="App. B.4",
    )
    stage_c = _theorem(
        id="bao.thm3.2.stage_corrected",
        label="Theorem 3.2 (stage budget, corrected)",
        title="MC-FedDA: stage budget under which the per-stage claim of B.4 follows",
        statement=r"T_m = \frac{(8\cdot 54^2)^2\,\Psi^4\bar\sigma^2\log(2M/\delta)}{\mu^2\epsilon_m^2}"
        r" = \frac{46656\,\bar\sigma^2\log(2M/\delta)}{\lambda_m^2}",
        algorithms=_MC,
        lhs="stage_iterations",
        rhs=46656 * sbar2 * sp.log(2 * M / delta) / lam_m**2,
        kind="complexity",
        probability="high_probability",
        failure_probability="delta",
        conditions=(*mc_conditions, sp.Le(lam_opt, lam_m), sp.Le(lam_m, lam0)),
        assumptions=(*A_STAT, "A9"),
        notes=(note_stage, NOTE_EQUAL),
        equation="App. B.4 (corrected constant)",
    )
    return [thm32, thm32x, gap, err, err_opt, err_proven, stage, stage_c]


THEOREMS: tuple[Theorem, ...]  # every theorem, in catalogue order: built on first use (module __getattr__ below)

#: theorem id -> the function that builds it (alone, or with its group), in catalogue order
_BUILDERS: dict[str, Callable[[], Theorem | list[Theorem]]] = {
    **dict.fromkeys(("bao.thm2.1", "bao.thm2.1.explicit", "bao.lemB.5", "bao.rem2.1"), _fast_fedda),
    "bao.prop3.1": _prop31, "bao.prop3.1.R": _prop31_r, "bao.thm3.1": _thm31, "bao.thm3.1.explicit": _thm31_explicit,
    "bao.lemB.7": _lemb7, "bao.corB.1": _corb1, "bao.lemB.8": _lemb8, "bao.lemB.8.b": _lemb8_b,
    **dict.fromkeys(("bao.thm3.2", "bao.thm3.2.explicit", "bao.thm3.2.gap", "bao.thm3.2.err", "bao.thm3.2.err_opt",
                     "bao.thm3.2.err_proven", "bao.thm3.2.stage", "bao.thm3.2.stage_corrected"), _mc_fedda),
}


def theorem(theorem_id: str) -> Theorem | None:
    """The theorem with this id, building only it (or its group); None for an id of another paper or none."""
    builder = _BUILDERS.get(theorem_id)
    if builder is None:
        return None
    built = builder()
    for th in built if isinstance(built, list) else [built]:
        if th.id == theorem_id:
            return th
    raise RuntimeError(f"{builder.__name__} does not build {theorem_id}")


def __getattr__(name: str) -> object:
    """``THEOREMS`` (every theorem, in catalogue order) is built on first use."""
    if name == "THEOREMS":
        theorems = (*_fast_fedda(), *_statistical(), *_mc_fedda())
        if [th.id for th in theorems] != list(_BUILDERS):
            raise RuntimeError("bao: the builders' ids differ from the catalogue's")
        globals()["THEOREMS"] = theorems
        return theorems
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

