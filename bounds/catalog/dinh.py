"""Dinh et al., *Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms*.

Problem (2): ``min_w Fbar(w) = sum_n (D_n/D) F_n(w)``, smooth and possibly non-convex.  FedProxVR: in round ``s``
every device runs ``tau`` proximal SARAH (8a) or SVRG (8b) steps with step ``eta = 1/(beta L)`` on
``J_n(w) = F_n(w) + (mu/2)||w - wbar^{(s-1)}||^2`` and returns an iterate chosen uniformly among
``w^{(0)}, ..., w^{(tau)}``; the server averages with weights ``D_n/D``.  Assumption 1: every sample loss is
L-smooth (3), every ``F_n`` is (-lambda)-strongly convex (4), and ``||grad F_n - grad Fbar|| <= sigma_n ||grad Fbar||``
(5); ``mu_tilde = mu - lambda > 0`` and ``sigma_bar^2 = sum_n (D_n/D) sigma_n^2``.

Kinds: ``complexity`` (local or global iterations sufficient), ``contraction`` (local gradient-norm reduction of
one round), ``explicit`` (bounds with all constants).  Section 4.3's parameter optimisation (19)-(24) is catalogued
as its objective (``dinh.sec4.3``) and solved by :func:`fedrates.bounds.fedproxvr.optimise_training_time`; Remark
1(3)'s beta_min is the root of the cubic ``dinh.rem1.3`` (:func:`fedrates.bounds.fedproxvr.beta_min`).
"""

from __future__ import annotations

import sympy as sp

from fedrates.bounds import dinh_errata
from fedrates.bounds.symbols import sym
from fedrates.bounds.theorem import Note, Theorem
from fedrates.errata import Erratum

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
    "m": "PL constant of Fbar: ||grad Fbar||^2 >= 2m(Fbar - Fbar*) (lambda_min(Abar) on least squares)",
    "gamma": "d_cmp/d_com: delay of one local iteration over the delay of one upload (Sec. 4.3)",
    "dw_sq": "E||w^(t) - wbar^(s-1)||^2 (SVRG, (35)) or sum_j E||w^(j) - w^(j-1)||^2 (SARAH, (33))",
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
    erratum=dinh_errata.erratum("svrg-large-beta"),
)
_N_TAU_MU = Note(
    "Remark 1(4) says the lower bound of tau is Omega(mu), 'thus increasing mu will increase tau'.  At fixed beta, "
    "d/dmu of (beta^2 L^2 + mu^2)/(mu - lambda) has the sign of mu^2 - 2 lambda mu - beta^2 L^2: tau_lower decreases "
    "on (lambda, lambda + sqrt(lambda^2 + beta^2 L^2)) and grows like 3 mu/(theta^2 L (beta - 3)) only beyond.",
    "Claim dinh.rem1/tau-lower-mu reports this erratum on the certified constants of the non-convex instance.",
    "erratum",
    erratum=dinh_errata.erratum("tau-lower-mu"),
)
_N_SVRG_ALPHA = Note(
    "(56) uses sqrt(a t) and sqrt(a t) + 1 while (58) chooses alpha = sqrt(a (t + 1)); (63) is stated for "
    "1 <= t <= tau but is needed for 0 <= t <= tau.",
    "(58)-(66) are consistent with alpha = sqrt(a(t+1)); harmless.",
    "typo",
)
_N_INDEX = Note(
    "Telescoping (86) over s = 1..T gives Theta sum_{s=0}^{T-1} E||grad Fbar(wbar^{(s)})||^2 <= Delta: the rounds "
    "s = 0..T-1, not s = 1..T as in the proof's last display (which also drops the gradient).  A typo: (17) as "
    "printed (s = 1..T) still follows from (86) and E Fbar(wbar^{(1)}) <= Fbar(wbar^{(0)}).",
    "dinh.thm1 keeps the printed average over s = 1..T (lhs grad_norm_sq_avg_rounds_1_to_T); "
    "dinh.thm1.corrected bounds the proved average over s = 0..T-1 (lhs grad_norm_sq_avg).",
    "erratum",
    erratum=Erratum(
        kind="typo",
        where="Theorem 1, (12) and (17), and the last display of the proof (Appendix C)",
        quote="(1/T) sum_{s=1}^T E||grad Fbar(wbar^{(s)})||^2 <= Delta(wbar^{(0)})/(Theta T); the last display "
              "telescopes to (1/T) sum_{s=1}^T E[||Fbar(wbar^{(s)})||^2] <= "
              "E[Fbar(wbar^{(0)}) - Fbar(wbar^{(T)})]/(Theta T)",
        true_statement="Telescoping (86) over s = 1..T bounds the rounds s = 0..T-1, and the last display drops the "
                       "gradient: the proof's last display is misprinted.  (17) as printed still holds: summing (86) "
                       "over s = 2..T+1 gives Theta sum_{s=1}^T E||grad Fbar(wbar^{(s)})||^2 <= E Fbar(wbar^{(1)}) - "
                       "Fbar* <= Fbar(wbar^{(0)}) - Fbar*, since (86) also gives E Fbar(wbar^{(1)}) <= "
                       "Fbar(wbar^{(0)}).  No consequence for the theorem.",
        evidence="dinh.thm1/sarah (printed range s = 1..T) and dinh.thm1.corrected/sarah (proved range s = 0..T-1) "
                 "both pass in a regime where the bound is within 3x of the data",
    ),
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
           _N_HIDDEN, _N_OUTPUT, _N_TAU_LOCAL, _N_HETERO_L, _N_TAU_MU),
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

# ---------------------------------------------------------------------------------------------------- added statements
m_pl, gamma, dw_sq = sym("m"), sym("gamma"), sym("dw_sq")
M_exact, gap_sgd = sym("M_exact"), sym("gap_sgd")
_theta_22 = sp.sqrt(24 * (beta**2 * L**2 + mu**2) / (mu_t * L * (5 * beta**2 - 4 * beta) * (beta - 3)))
_N_TAU_ORDER = Note(
    "Remark 1(5) says SVRG's stricter upper bound gives a larger beta_min and thus a larger tau.  beta_min^SVRG >= "
    "beta_min^SARAH holds (SARAH's feasible set contains SVRG's), but tau at beta_min is not ordered: at L = 1, "
    "lambda = 0, mu = 200, theta = 0.6 SARAH has (beta_min, tau) = (15.22, 137.2) and SVRG (111.25, 20.16).  A "
    "consequence of Remark 1(3) (tau at beta_min is not the smallest tau); the smallest admissible tau is ordered "
    "as the remark says (weakly), since SARAH's feasible set contains SVRG's.",
    "Claim dinh.rem1/tau-order reports this over-claim with these numbers.",
    "erratum",
    erratum=dinh_errata.erratum("tau-order"),
)
_rem1_3 = Theorem(
    id="dinh.rem1.3",
    paper=PAPER,
    label="Remark 1",
    title="beta_min of (15)/(16): the root in (3, oo) of the cubic obtained from tau_lower = tau_upper (SARAH)",
    statement=(r"\theta^2\tilde\mu L(5\beta^3 - 19\beta^2 + 12\beta) - 24L^2\beta^2 - 24\mu^2 = 0,\ \beta > 3,\ "
               r"\tau = (5\beta_{\min}^2 - 4\beta_{\min})/8"),
    algorithms=("fedproxvr_sarah",),
    lhs="local_steps_at_beta_min",
    rhs=tau_upper_sarah,
    kind="complexity",
    probability="deterministic",
    conditions=(sp.Gt(beta, 3), sp.Gt(mu, lam), sp.Lt(theta, 1)),
    symbols=_symbols("theta", "mu", "lam", "L", "beta"),
    notes=(Note("rhs is tau of (16), to be evaluated at beta = beta_min, the root in (3, oo) of the cubic in the "
                "statement ((15) multiplied by 8 theta^2 mu_tilde L (beta - 3)); fedrates.bounds.fedproxvr.beta_min "
                "computes it."),
           Note("The cubic is -216L^2 - 24mu^2 < 0 at beta = 3 "
                "and has at most one critical point on (3, oo): exactly one root there.  The smallest beta does not "
                "give the smallest tau: tau_lower is minimised at beta = 3 + sqrt(9 + mu^2/L^2)."),
           _N_TAU_ORDER),
    equation="Remark 1(3), (15)-(16)",
)
_sec43 = Theorem(
    id="dinh.sec4.3",
    paper=PAPER,
    label="Section 4.3",
    title="Training-time objective (23) after eliminating theta by (22)",
    statement=(r"\min_{\mu,\beta}\ \frac{1 + \gamma(5\beta^2 - 4\beta)/8}{\Theta(\mu, \theta(\mu,\beta))},\ "
               r"\theta^2 = \frac{24(\beta^2L^2+\mu^2)}{\tilde\mu L(5\beta^2-4\beta)(\beta-3)}\ (22),\ \beta > 3,\ "
               r"\Theta > 0"),
    algorithms=("fedproxvr_sarah",),
    lhs="training_time_per_unit",
    rhs=(1 + gamma * tau_upper_sarah) / Theta.subs(theta, _theta_22),
    kind="explicit",
    probability="deterministic",
    conditions=(sp.Gt(beta, 3), sp.Gt(mu, lam), sp.Lt(_theta_22, 1), sp.Gt(Theta.subs(theta, _theta_22), 0)),
    symbols=_symbols("gamma", "beta", "mu", "lam", "L", "sigma_bar_sq"),
    notes=(Note("(19) total time T(d_com + d_cmp tau) with T = Delta/(Theta eps) (printed Lambda) is "
                "(Delta d_com/eps)(1 + gamma tau)/Theta; (20)-(21) put tau on the SARAH upper bound (16) and choose "
                "theta making the lower bound tight, which gives (22)-(23).  Solved numerically (log-grid, then "
                "Nelder-Mead); the reproduction confirms the paper's Fig. 1 trends."),
           _N_MUBAR),
    equation="(19)-(24), Sec. 4.3",
)
_eq22 = Theorem(
    id="dinh.eq22",
    paper=PAPER,
    label="Section 4.3",
    title="(22): the accuracy theta at which Lemma 1(a)'s lower and upper bounds on tau meet",
    statement=(r"\theta^2 = \frac{24(\beta^2L^2+\mu^2)}{\tilde\mu L(5\beta^2-4\beta)(\beta-3)}"),
    algorithms=("fedproxvr_sarah",),
    lhs="theta_sq",
    rhs=_theta_22**2,
    kind="explicit",
    probability="deterministic",
    conditions=(sp.Gt(beta, 3), sp.Gt(mu, lam)),
    symbols=_symbols("beta", "mu", "lam", "L"),
    notes=(Note("Solving (15) tau_lower(beta) = tau_upper_sarah(beta) for theta^2; substituted into Theta it turns "
                "(20) into the two-variable problem (23) (dinh.sec4.3)."), _N_MUBAR),
    equation="(22)",
)
_N_EQ20_RELAXED = Note(
    "The paper constrains (20) by (15) and (16): beta = beta_min(mu, theta) and tau = tau_upper_sarah(beta_min), "
    "saying this gives 'the smallest' tau.  Lemma 1(a) only needs tau_lower(beta) <= tau <= tau_upper_sarah(beta), and "
    "tau_lower is minimised at beta = 3 + sqrt(9 + mu^2/L^2), not at beta_min: whenever beta_min is below that point a "
    "smaller tau is admissible at the same (mu, theta).  This entry is (20) over Lemma 1(a)'s whole feasible set; its "
    "minimum is at most that of (23) (dinh.sec4.3) and strictly lower when gamma is large (cheap communication).",
    "`fedrates explore dinh.eq20 --minimize mu theta beta tau` solves it; compare with dinh.sec4.3 --minimize beta mu.",
    "erratum",
    erratum=dinh_errata.erratum("smallest-tau"),
)
_eq20 = Theorem(
    id="dinh.eq20",
    paper=PAPER,
    label="Section 4.3",
    title="(20): training time (1 + gamma tau)/Theta over (mu, theta, beta, tau) within Lemma 1(a) and Theta > 0",
    statement=(r"\min_{\mu,\theta,\beta,\tau}\ \frac{1 + \gamma\tau}{\Theta}\ \text{s.t. } "
               r"\frac{3(\beta^2L^2+\mu^2)}{\theta^2\tilde\mu L(\beta-3)} \le \tau \le \frac{5\beta^2-4\beta}{8},\ "
               r"\Theta > 0"),
    algorithms=("fedproxvr_sarah",),
    lhs="training_time_per_unit",
    rhs=(1 + gamma * tau) / Theta,
    kind="explicit",
    probability="deterministic",
    conditions=(sp.Gt(beta, 3), sp.Gt(mu, lam), sp.Lt(theta, 1), sp.Ge(tau, tau_lower), sp.Le(tau, tau_upper_sarah),
                sp.Gt(Theta, 0)),
    symbols=_symbols("gamma", "tau", "mu", "theta", "beta", "lam", "L", "sigma_bar_sq"),
    notes=(Note("(19): total time T(d_com + d_cmp tau) = (Delta d_com/eps)(1 + gamma tau)/Theta with T = "
                "Delta/(Theta eps) (printed Lambda) and gamma = d_cmp/d_com; the rhs is the time in units of "
                "Delta d_com/eps."), _N_EQ20_RELAXED, _N_MUBAR),
    equation="(19)-(21), Sec. 4.3",
)
_eq35 = Theorem(
    id="dinh.eq35",
    paper=PAPER,
    label="Lemma 1",
    title="Estimator error of the local solvers: SVRG (35) and SARAH (33)",
    statement=(r"\mathbb{E}\|\nabla F_n(w^{(t)}) - v^{(t)}\|^2 \le L^2\mathbb{E}\|w^{(t)} - \bar w^{(s-1)}\|^2\ "
               r"\text{(SVRG)},\ \le \sum_{j=1}^{t} L^2\mathbb{E}\|w^{(j)} - w^{(j-1)}\|^2\ \text{(SARAH)}"),
    algorithms=ALGS,
    lhs="estimator_error_sq",
    rhs=L**2 * dw_sq,
    kind="explicit",
    probability="expectation",
    conditions=(),
    assumptions=("(3): every f_i L-smooth (mean-squared smoothness suffices)",),
    symbols=_symbols("L", "dw_sq"),
    notes=(Note("Only mean-squared smoothness E_i||grad f_i(w) - grad f_i(w')||^2 <= L^2||w - w'||^2 is used; with "
                "minibatches (same indices at both points) Jensen keeps the bound."),),
    equation="(33), (35), App. B",
)
_pl = Theorem(
    id="dinh.pl",
    paper=PAPER,
    label="Theorem 1 (derived)",
    title="Linear rate under the PL inequality, from the per-round descent (86)",
    statement=r"\mathbb{E}[\bar F(\bar w^{(T)}) - \bar F^*] \le (1 - 2m\Theta)^T\Delta(\bar w^{(0)})",
    algorithms=ALGS,
    lhs="objective_gap",
    rhs=(1 - 2 * m_pl * Theta) ** T * Delta,
    kind="explicit",
    probability="expectation",
    conditions=(*_THM1_COND, sp.Lt(2 * m_pl * Theta, 1)),
    assumptions=(*_THM1_ASS, "PL: ||grad Fbar||^2 >= 2m(Fbar - Fbar*)"),
    symbols={**_THM1_SYMBOLS, **_symbols("Delta", "T", "m")},
    notes=(Note("Not in the paper: (86) and the PL inequality give E[Fbar(w^{(s)}) - Fbar*] <= (1 - 2m Theta) "
                "E[Fbar(w^{(s-1)}) - Fbar*]; Theta > 0 forces mu > 4L >= 4m, so 2m Theta < 1/2."), *_THM1_NOTES),
    equation="(86) with PL (derived)",
)
_alg1 = Theorem(
    id="dinh.alg1",
    paper=PAPER,
    label="Algorithm 1",
    title="FedProxVR on realisable quadratics: exact first and second moments of one round",
    statement=(r"\mathbb{E}[\bar w^{(s)} - w^*] = \bar P\,\mathbb{E}[\bar w^{(s-1)} - w^*],\ "
               r"\mathrm{vec}\,\mathbb{E}[(\bar w^{(s)} - w^*)(\cdot)^\top] = \mathcal{T}\,\mathrm{vec}\,"
               r"\mathbb{E}[(\bar w^{(s-1)} - w^*)(\cdot)^\top]"),
    algorithms=(*ALGS, "fedprox_sgd"),
    symbols={"M_exact": "the moment computed by the exact recursion (fedrates.verify.claims.dinh.exact.moments)"},
    lhs="exact_moment",
    rhs=M_exact,
    kind="explicit",
    probability="expectation",
    notes=(Note("Derived from the update rules (8a), (8b), (10) and the random output of (52): on a finite sum whose "
                "sample gradients all vanish at w*, one local step is linear with a random matrix depending only on "
                "the fresh minibatch, so the moments follow an exact recursion "
                "(fedrates.verify.claims.dinh.exact.moments); the claims compare Monte-Carlo means with it "
                "two-sided (an identity: measured = M_exact)."), _N_OUTPUT),
    equation="Algorithm 1, (8a)/(8b), (10), (52)",
)
_sec5 = Theorem(
    id="dinh.sec5",
    paper=PAPER,
    label="Section 5",
    title="FedProxVR converges better than SGD-based local solvers at equal settings",
    statement=r"\bar F(\bar w^{(T)})_{\mathrm{FedProxVR}} < \bar F(\bar w^{(T)})_{\mathrm{SGD}}",
    algorithms=("fedproxvr_sarah", "fedprox_sgd"),
    lhs="objective_gap",
    rhs=gap_sgd,
    symbols={"gap_sgd": "FedProx-SGD's objective gap at the same rounds (and equal settings or work)"},
    kind="order",
    probability="expectation",
    notes=(Note("Qualitative experimental claim (Figs. 2-3, Tables 1-2, against FedAvg); checked as a paired "
                "comparison with FedProx-SGD (same prox, same output rule, plain SGD estimator)."),),
    equation="Sec. 5",
)

THEOREMS: tuple[Theorem, ...] = (
    _lem1, _lem1_svrg, _lem1_53, _lem1_54, _lem2, _lem3, _thm1, _thm1_c, _thm1_86, _cor1,
    _rem1_3, _sec43, _eq35, _pl, _alg1, _sec5, _eq22, _eq20,
)

#: quantities implied by a design problem's optimum (printed by ``fedrates explore ... --minimize``)
DERIVED = {
    "dinh.sec4.3": {"theta": _theta_22, "tau": tau_upper_sarah, "Theta": Theta.subs(theta, _theta_22)},
    "dinh.eq20": {"Theta": Theta, "tau_lower": tau_lower, "tau_upper": tau_upper_sarah},
}
