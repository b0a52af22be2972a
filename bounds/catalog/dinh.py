"""Dinh et al., *Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms* (seed 002).

Problem (2): ``min_w Fbar(w) = sum_n (D_n/D) F_n(w)``, smooth and possibly non-convex.  FedProxVR: in round ``s``
every device runs ``tau`` proximal SARAH (8a) or SVRG (8b) steps with step ``eta = 1/(beta L)`` on
``J_n(w) = F_n(w) + (mu/2)||w - wbar^{(s-1)}||^2`` and returns an iterate chosen uniformly among
``w^{(0)}, ..., w^{(tau)}``; the server averages with weights ``D_n/D``.  Assumption 1: every sample loss is
L-smooth (3), every ``F_n`` is (-lambda)-strongly convex (4), and ``||grad F_n - grad Fbar|| <= sigma_n ||grad Fbar||``
(5); ``mu_tilde = mu - lambda > 0`` and ``sigma_bar^2 = sum_n (D_n/D) sigma_n^2``.

Kinds: ``complexity`` (local or global iterations sufficient), ``contraction`` (local gradient-norm reduction of
one round), ``explicit`` (bounds with all constants).  Section 4.3's parameter optimisation (19)-(24) is a design
problem, not a bound, and is not catalogued.
"""

from __future__ import annotations

import sympy as sp

from fedrates.bounds.symbols import sym
from fedrates.bounds.theorem import Note, Theorem

__all__ = ["THEOREMS"]

PAPER = "dinh"
ALGS = ("fedproxvr_sarah", "fedproxvr_svrg")

L, lam, mu, beta, tau, theta = (sym(n) for n in ("L", "lam", "mu", "beta", "tau", "theta"))
sig2, Delta, T, eps, a, eta = (sym(n) for n in ("sigma_bar_sq", "Delta", "T", "eps", "a", "eta"))
G_sq, gradF_sq = sym("G_sq"), sym("gradF_sq")

mu_t = mu - lam
_MEANING = {
    "L": "smoothness constant of every sample loss f_i (3)",
    "lam": "weak-convexity modulus lambda: F_n is (-lambda)-strongly convex (4)",
    "mu": "proximal penalty weight mu of h_s (7)",
    "beta": "step-size parameter, eta = 1/(beta L)",
    "tau": "local_steps",
    "theta": "local accuracy theta of (11)",
    "sigma_bar_sq": "sigma_bar^2 = sum_n (D_n/D) sigma_n^2 (gradient divergence (5))",
    "Delta": "cost gap Delta(wbar^0) = Fbar(wbar^0) - inf Fbar",
    "T": "rounds",
    "eps": "target average squared gradient norm (12)",
    "a": "auxiliary constant of Lemma 1(b), a - 4 >= 4 sqrt(a (tau + 1))",
    "eta": "local step size",
    "G_sq": "||G_n(w)||^2, squared gradient mapping (1/eta)(w - prox(w - eta grad F_n(w)))",
    "gradF_sq": "||grad Fbar(wbar^{(s-1)})||^2 at the round's starting point",
}


def _symbols(*names: str) -> dict[str, str]:
    return {n: _MEANING[n] for n in names}


tau_lower = 3 * (beta**2 * L**2 + mu**2) / (theta**2 * mu_t * L * (beta - 3))
tau_upper_sarah = (5 * beta**2 - 4 * beta) / 8
tau_upper_svrg = (5 * beta**2 - 4 * beta) / (8 * a) - 2
_q = (1 + theta**2) * (1 + sig2)
Theta = (1 / mu) * (
    1 - theta * sp.sqrt(2 * (1 + sig2)) - (2 * L / mu_t) * sp.sqrt(_q) - (2 * L * mu / mu_t**2) * _q
)

_STEP_COND = (sp.Gt(beta, 3), sp.Gt(mu, lam))
_BASE_COND = (*_STEP_COND, sp.Lt(theta, 1))
_SARAH_UPPER = sp.Le(tau, tau_upper_sarah)
_SVRG_UPPER = (sp.Le(tau, tau_upper_svrg), sp.Ge(a - 4, 4 * sp.sqrt(a * (tau + 1))))
_ASS = ("(3): every f_i L-smooth", "(4): every F_n (-lambda)-strongly convex, mu > lambda")
_ASS_SIGMA = "(5): ||grad F_n - grad Fbar|| <= sigma_n ||grad Fbar||"

# ---------------------------------------------------------------------------------------------------- notes
_N_HIDDEN = Note(
    "Lemma 1 writes '0 <= lower bound', which silently needs beta > 3 (the sign of (46)) and mu_tilde > 0; "
    "Remark 1 allows theta = 1 while (11) asks theta in (0, 1).",
    "Conditions beta > 3, mu > lambda, theta < 1.",
    "clarification",
)
_N_SECOND_MOMENT = Note(
    "(11) bounds the first moment E||grad J_n(w_n)||, but (70) in the proof of Lemma 3 needs the second moment "
    "E||grad J_n(w_n)||^2 <= theta^2 ||grad F_n(wbar)||^2, which (11) does not imply.  The proof of Lemma 1 "
    "((54)-(55)) establishes the second-moment form, so Theorem 1 holds under the conditions of Lemma 1.",
    "The hypothesis of Lemma 3 and Theorem 1 is read as the second-moment criterion delivered by Lemma 1.",
    "clarification",
)
_N_OUTPUT = Note(
    "Algorithm 1 line 10 sets w_n^{(s)} = w^{(tau)} 'where t' is chosen uniformly at random'; the proof ((52)) "
    "uses w_n^{(s)} drawn uniformly from w^{(0)}, ..., w^{(tau)}.",
    "Local output w^{(t')}, t' ~ U{0, ..., tau}.",
    "typo",
)
_N_TAU_LOCAL = Note(
    "tau counts the stochastic local iterations t = 1..tau; a round also makes one full-gradient prox step "
    "(line 4), so tau + 1 prox steps in total.",
    "tau is mapped to local_steps.",
)
_N_SVRG_REMARK = Note(
    "Remark 1(1) claims that for any theta a large beta satisfies (14).  The smallest admissible a is "
    "a_min(tau) = 4(sqrt(tau+1) + sqrt(tau+2))^2 ~ 16 tau, so (14) allows tau <~ sqrt(5/128) beta = 0.198 beta, "
    "while the lower bound grows like 3 beta L/(theta^2 mu_tilde): SVRG is feasible for large beta only if "
    "theta^2 mu_tilde/L > 15.18.  Remark 1(5) ('SVRG needs a larger tau') is also not true in general "
    "(L = 1, lambda = 0, mu = 200, theta = 0.6: tau(beta_min) = 137.2 for SARAH, 20.2 for SVRG).",
    "Feasibility is checked from the conditions, never assumed.",
    "erratum",
)
_N_SVRG_ALPHA = Note(
    "(56) uses sqrt(a t) and sqrt(a t) + 1 while (58) chooses alpha = sqrt(a (t + 1)); (63) is stated for "
    "1 <= t <= tau but is needed for 0 <= t <= tau.",
    "(58)-(66) are consistent with alpha = sqrt(a(t+1)); harmless.",
    "typo",
)
_N_INDEX = Note(
    "Telescoping (86) over s = 1..T gives Theta sum_{s=0}^{T-1} E||grad Fbar(wbar^{(s)})||^2 <= Delta: the rounds "
    "s = 0..T-1, not s = 1..T as printed in (12) and (17) (the last display also drops the gradient).",
    "dinh.thm1 keeps the printed average over s = 1..T (lhs grad_norm_sq_avg_rounds_1_to_T); "
    "dinh.thm1.corrected bounds the proved average over s = 0..T-1 (lhs grad_norm_sq_avg).",
    "erratum",
)
_N_SHARED_STATIONARY = Note(
    "(5) at a stationary point of Fbar forces grad F_n = 0 there for every n (otherwise sigma_n is infinite): a "
    "hidden shared-stationary-point assumption.  On least squares sigma_n = ||(A_n - Abar) Abar^+||_2 when all "
    "devices share the minimiser.",
    "Instances must have finite sigma_n; otherwise Theorem 1 is vacuous.",
)
_N_THETA_POS = Note(
    "Theta > 0 needs theta < (2(1 + sigma_bar^2))^{-1/2} and mu_tilde > 2L(sqrt(Q) + Q)/(1 - theta sqrt(2(1 + "
    "sigma_bar^2))) >= 4L with Q = (1 + theta^2)(1 + sigma_bar^2): the theory regime is mu >> L.",
    "Theta > 0 is a condition.",
)
_N_MUBAR = Note(
    "Lemma 3 and App. C write mu_bar for mu_tilde, 'Omega > 0' for Theta > 0 and Lambda for Delta; (76) writes "
    "<wbar^{(s-1)}, .> for <grad Fbar(wbar^{(s-1)}), .>; (39) writes grad F_n - G_n for grad J_n - G_n.",
    "Same objects.",
    "typo",
)
_N_HETERO_L = Note(
    "Section 3 suggests using averages Lbar, lambda_bar for heterogeneous devices; the proof needs per-device "
    "bounds inside the device average.",
    "L = max_n L_n, lambda = max_n lambda_n.",
)

# ---------------------------------------------------------------------------------------------------- Lemma 1
_lem1 = Theorem(
    id="dinh.lem1",
    paper=PAPER,
    label="Lemma 1",
    title="FedProxVR-SARAH: local iterations sufficient for a theta-accurate local solution",
    statement=(
        r"\frac{3(\beta^2L^2+\mu^2)}{\theta^2\tilde\mu L(\beta-3)} \le \tau \le \frac{5\beta^2-4\beta}{8}\ "
        r"\Rightarrow\ \mathbb{E}[\|\nabla J_n(w_n^{(s)})\| \mid \bar w^{(s-1)}] \le "
        r"\theta\|\nabla F_n(\bar w^{(s-1)})\|"
    ),
    algorithms=("fedproxvr_sarah",),
    lhs="local_steps_to_accuracy",
    rhs=tau_lower,
    kind="complexity",
    probability="expectation",
    conditions=(*_BASE_COND, _SARAH_UPPER),
    assumptions=_ASS,
    symbols=_symbols("beta", "L", "mu", "lam", "theta", "tau"),
    notes=(Note("Claim: with tau >= rhs (and the conditions) the local solution is theta-accurate; the proof gives "
                "the second-moment form E||grad J_n||^2 <= theta^2 ||grad F_n||^2 (see dinh.lem1.eq54)."),
           _N_HIDDEN, _N_OUTPUT, _N_TAU_LOCAL, _N_HETERO_L),
    equation="Lemma 1(a), (13); proof (44)-(55), App. B",
)
_lem1_svrg = Theorem(
    id="dinh.lem1.svrg",
    paper=PAPER,
    label="Lemma 1",
    title="FedProxVR-SVRG: local iterations sufficient for a theta-accurate local solution",
    statement=(
        r"\frac{3(\beta^2L^2+\mu^2)}{\theta^2\tilde\mu L(\beta-3)} \le \tau \le \frac{5\beta^2-4\beta}{8a} - 2,"
        r"\ a - 4 \ge 4\sqrt{a(\tau+1)}"
    ),
    algorithms=("fedproxvr_svrg",),
    lhs="local_steps_to_accuracy",
    rhs=tau_lower,
    kind="complexity",
    probability="expectation",
    conditions=(*_BASE_COND, *_SVRG_UPPER),
    assumptions=_ASS,
    symbols=_symbols("beta", "L", "mu", "lam", "theta", "tau", "a"),
    notes=(_N_SVRG_REMARK, _N_SVRG_ALPHA, _N_HIDDEN, _N_OUTPUT, _N_TAU_LOCAL, _N_HETERO_L),
    equation="Lemma 1(b), (14); proof (56)-(66), App. B",
)
_C_LOC = 3 * (beta**2 * L**2 + mu**2) / (mu_t * L * (beta - 3))
_lem1_53 = Theorem(
    id="dinh.lem1.eq53",
    paper=PAPER,
    label="Lemma 1",
    title="FedProxVR-SARAH: local squared-gradient reduction in one round, (53)",
    statement=(
        r"\mathbb{E}[\|\nabla J_n(w_n^{(s)})\|^2 \mid \bar w^{(s-1)}] \le \frac{3(\beta^2L^2+\mu^2)}{\tilde\mu L"
        r"(\beta-3)}\frac{1}{\tau+1}\|\nabla F_n(\bar w^{(s-1)})\|^2"
    ),
    algorithms=("fedproxvr_sarah",),
    lhs="local_grad_norm_sq_ratio",
    rhs=_C_LOC / (tau + 1),
    kind="contraction",
    probability="expectation",
    conditions=(*_STEP_COND, _SARAH_UPPER),
    assumptions=_ASS,
    symbols=_symbols("beta", "L", "mu", "lam", "tau"),
    notes=(Note("lhs: E||grad J_n(w_n^{(s)})||^2 / ||grad J_n(w^{(0)})||^2 with grad J_n(w^{(0)}) = grad F_n(wbar). "
                "The same bound holds for SVRG under (65)-(66) (proof of Lemma 1(b))."),
           _N_HIDDEN, _N_OUTPUT),
    equation="(53), App. B",
)
_lem1_54 = Theorem(
    id="dinh.lem1.eq54",
    paper=PAPER,
    label="Lemma 1",
    title="FedProxVR-SARAH: local squared-gradient reduction in one round, (54) as used for (55)",
    statement=(
        r"\mathbb{E}[\|\nabla J_n(w_n^{(s)})\|^2 \mid \bar w^{(s-1)}] \le \frac{3(\beta^2L^2+\mu^2)}{\tilde\mu L"
        r"(\beta-3)}\frac{1}{\tau}\|\nabla F_n(\bar w^{(s-1)})\|^2"
    ),
    algorithms=("fedproxvr_sarah",),
    lhs="local_grad_norm_sq_ratio",
    rhs=_C_LOC / tau,
    kind="contraction",
    probability="expectation",
    conditions=(*_STEP_COND, _SARAH_UPPER),
    assumptions=_ASS,
    symbols=_symbols("beta", "L", "mu", "lam", "tau"),
    notes=(Note("1/(tau + 1) of (53) loosened to 1/tau; requiring rhs <= theta^2 gives the lower bound (55)."),
           _N_HIDDEN, _N_OUTPUT),
    equation="(54)-(55), App. B",
)

# ---------------------------------------------------------------------------------------------------- Lemma 2, 3
_lem2 = Theorem(
    id="dinh.lem2",
    paper=PAPER,
    label="Lemma 2",
    title="Surrogate gradient norm vs gradient mapping",
    statement=r"\|\nabla J_n(w)\|^2 \le 2(\mu^2\eta^2 + 1)\|G_n(w)\|^2\quad\forall w",
    algorithms=ALGS,
    lhs="surrogate_grad_norm_sq",
    rhs=2 * (mu**2 * eta**2 + 1) * G_sq,
    kind="explicit",
    probability="deterministic",
    conditions=(),
    assumptions=(),
    symbols=_symbols("mu", "eta", "G_sq"),
    notes=(_N_MUBAR,),
    equation="(36), App. B",
)
_lem3 = Theorem(
    id="dinh.lem3",
    paper=PAPER,
    label="Lemma 3",
    title="Squared length of one global step",
    statement=(
        r"\mathbb{E}[\|\bar w^{(s)} - \bar w^{(s-1)}\|^2 \mid \bar w^{(s-1)}] \le \frac{4(1+\theta^2)(1+\bar\sigma^2)}"
        r"{\tilde\mu^2}\|\nabla\bar F(\bar w^{(s-1)})\|^2"
    ),
    algorithms=ALGS,
    lhs="global_step_sq",
    rhs=4 * (1 + theta**2) * (1 + sig2) / mu_t**2 * gradF_sq,
    kind="explicit",
    probability="expectation",
    conditions=(sp.Gt(mu, lam), sp.Lt(theta, 1)),
    assumptions=(*_ASS, _ASS_SIGMA, "local solutions satisfy Lemma 1 (second-moment criterion)"),
    symbols=_symbols("theta", "sigma_bar_sq", "mu", "lam", "gradF_sq"),
    notes=(Note("(72) bounds E_n||grad F_n||^2 by 2(1 + sigma_bar^2)||grad Fbar||^2; the exact identity "
                "E_n||grad F_n||^2 = ||grad Fbar||^2 + E_n||grad F_n - grad Fbar||^2 gives 1 + sigma_bar^2: "
                "the factor 2 is slack."),
           _N_SECOND_MOMENT, _N_SHARED_STATIONARY, _N_MUBAR),
    equation="Lemma 3, (67)-(75), App. C",
)

# ---------------------------------------------------------------------------------------------------- Theorem 1
_THM1_COND = (sp.Gt(Theta, 0), *_BASE_COND, sp.Ge(tau, tau_lower), _SARAH_UPPER)
_THM1_SYMBOLS = _symbols("L", "lam", "mu", "theta", "sigma_bar_sq", "beta", "tau")
_THM1_ASS = (*_ASS, _ASS_SIGMA, "Fbar bounded below", "full participation, aggregation weights D_n/D")
_THM1_NOTES = (
    Note("Conditions: Theta > 0 and the conditions of Lemma 1(a); for fedproxvr_svrg the upper bound on tau is the "
         "stricter one of dinh.lem1.svrg, which must hold as well."),
    _N_SECOND_MOMENT, _N_SHARED_STATIONARY, _N_THETA_POS, _N_MUBAR, _N_HETERO_L,
)
_thm1 = Theorem(
    id="dinh.thm1",
    paper=PAPER,
    label="Theorem 1",
    title="FedProxVR: average squared gradient norm over rounds 1..T, as printed",
    statement=(
        r"\frac1T\sum_{s=1}^{T}\mathbb{E}\|\nabla\bar F(\bar w^{(s)})\|^2 \le \frac{\Delta(\bar w^{(0)})}{\Theta T},\ "
        r"\Theta = \frac1\mu\Big(1 - \theta\sqrt{2(1+\bar\sigma^2)} - \frac{2L}{\tilde\mu}\sqrt{(1+\theta^2)"
        r"(1+\bar\sigma^2)} - \frac{2L\mu}{\tilde\mu^2}(1+\theta^2)(1+\bar\sigma^2)\Big) > 0"
    ),
    algorithms=ALGS,
    lhs="grad_norm_sq_avg_rounds_1_to_T",
    rhs=Delta / (Theta * T),
    kind="explicit",
    probability="expectation",
    conditions=_THM1_COND,
    assumptions=_THM1_ASS,
    symbols={**_THM1_SYMBOLS, **_symbols("Delta", "T")},
    notes=(_N_INDEX, *_THM1_NOTES),
    equation="Theorem 1, (17), App. C",
)
_thm1_c = Theorem(
    id="dinh.thm1.corrected",
    paper=PAPER,
    label="Theorem 1",
    title="FedProxVR: average squared gradient norm over rounds 0..T-1 (the proved index range)",
    statement=(
        r"\frac1T\sum_{s=0}^{T-1}\mathbb{E}\|\nabla\bar F(\bar w^{(s)})\|^2 \le \frac{\Delta(\bar w^{(0)})}{\Theta T}"
    ),
    algorithms=ALGS,
    lhs="grad_norm_sq_avg",
    rhs=Delta / (Theta * T),
    kind="explicit",
    probability="expectation",
    conditions=_THM1_COND,
    assumptions=_THM1_ASS,
    symbols={**_THM1_SYMBOLS, **_symbols("Delta", "T")},
    notes=(_N_INDEX, *_THM1_NOTES),
    equation="Theorem 1, (86)-(87) telescoped, App. C",
)
_thm1_86 = Theorem(
    id="dinh.thm1.eq86",
    paper=PAPER,
    label="Theorem 1",
    title="FedProxVR: expected decrease of Fbar in one round",
    statement=(
        r"\mathbb{E}[\bar F(\bar w^{(s)}) - \bar F(\bar w^{(s-1)}) \mid \bar w^{(s-1)}] \le "
        r"-\Theta\|\nabla\bar F(\bar w^{(s-1)})\|^2"
    ),
    algorithms=ALGS,
    lhs="objective_decrease",
    rhs=-Theta * gradF_sq,
    kind="explicit",
    probability="expectation",
    conditions=_THM1_COND,
    assumptions=_THM1_ASS,
    symbols={**_THM1_SYMBOLS, **_symbols("gradF_sq")},
    notes=(Note("lhs is the signed change Fbar(wbar^{(s)}) - Fbar(wbar^{(s-1)}); rhs is negative when Theta > 0. "
                "The proof uses only the second-moment local criterion, smoothness and mu_tilde-strong convexity "
                "of J_n, so it holds for any local solver meeting that criterion."), *_THM1_NOTES),
    equation="(86)-(87), App. C",
)
_cor1 = Theorem(
    id="dinh.cor1",
    paper=PAPER,
    label="Corollary 1",
    title="FedProxVR: rounds sufficient for an eps-accurate solution",
    statement=r"T \ge \frac{\Delta(\bar w^{(0)})}{\Theta\epsilon}",
    algorithms=ALGS,
    lhs="rounds_to_eps",
    rhs=Delta / (Theta * eps),
    kind="complexity",
    probability="expectation",
    conditions=_THM1_COND,
    assumptions=_THM1_ASS,
    symbols={**_THM1_SYMBOLS, **_symbols("Delta", "eps")},
    notes=(Note("eps-accuracy (12) is the average of E||grad Fbar||^2 over the rounds; by the index erratum of "
                "Theorem 1 the proved average runs over s = 0..T-1."), _N_INDEX, *_THM1_NOTES),
    equation="Corollary 1, (18)",
)

THEOREMS: tuple[Theorem, ...] = (
    _lem1, _lem1_svrg, _lem1_53, _lem1_54, _lem2, _lem3, _thm1, _thm1_c, _thm1_86, _cor1,
)
