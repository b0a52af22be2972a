"""Bylinkin et al., *Accelerated Methods with Complexity Separation Under Data Similarity*.

Problem (2): ``min_x h(x) = f(x) + g(x)``; the server holds ``h_1 = f_1 + g_1``, ``f_1`` is delta_f-related to ``f``
and ``g_1`` is delta_g-related to ``g`` (Hessian similarity, Definition 1), ``h`` is mu-strongly convex and
``mu < delta_f < delta_g`` (Assumptions 1-2).  Every result counts communication rounds with the two device groups
``M_f`` and ``M_g`` separately; one id per group (``.mg`` = rounds with ``M_g``).

Kinds used here: ``order`` for the O(.) round complexities of the main text (hidden constant), ``complexity`` for
round counts with the explicit constants that follow from the appendix recursions, ``contraction`` for per-epoch
factors and ``explicit`` for one-step inequalities with additive terms.  The auxiliary Lemmas 1-3 of Appendix A
(three-point identity, geometric-length identity, mirror-step inequality) bound no error of an algorithm and are
not catalogued.

Algorithm ids: ``sc_acc_extragradient`` (Algorithm 1, SC-AccExtragradient), ``vrcs`` (VRCS, Appendix D, made of
VRCS^1ep epochs), ``acc_vrcs`` (AccVRCS), ``c_acc_extragradient`` (C-AccExtragradient with the inner
AccExtragradient for its subproblem).
"""

from __future__ import annotations

import sympy as sp

from fedrates.bounds.symbols import sym
from fedrates.bounds.theorem import Note, Theorem
from fedrates.errata import Erratum

__all__ = ["THEOREMS"]

PAPER = "bylinkin"

delta_f, delta_g, mu, eps, sigma = (sym(n) for n in ("delta_f", "delta_g", "mu", "eps", "sigma"))
theta, theta_g, p, q = (sym(n) for n in ("theta", "theta_g", "p", "q"))
Phi_k, Phic_k, V_0, W_0 = (sym(n) for n in ("Phi_k", "Phic_k", "V_0", "W_0"))
D_x0, D_xT, D_0T = (sym(n) for n in ("D_x_x0", "D_x_xT", "D_x0_xT"))

_MEANING = {
    "delta_f": "Hessian-similarity constant of f_1 to f (Assumption 2)",
    "delta_g": "Hessian-similarity constant of g_1 to g (Assumption 2)",
    "mu": "strong-convexity constant of h = f + g (Assumption 1)",
    "eps": "target accuracy (Lyapunov value reached, relative to its initial value unless stated)",
    "sigma": "bound on the standard deviation of the oracles xi_k, zeta_k (Assumption 4)",
    "theta": "server-subproblem step theta (prox weight 1/(2 theta))",
    "theta_g": "step theta_g of the inner AccExtragradient (the inner AccExtragradient algorithm, eq. (31))",
    "p": "probability of communicating with M_f",
    "q": "parameter of the geometric epoch length T ~ Geom(q), E[T] = 1/q",
    "V_0": "initial Lyapunov value V_0 = h(x_0) - h* + (q/2) D_psi(x*, x_0) (VRCS)",
    "W_0": "initial Lyapunov value W_0 = (1/tau)(h(y_0) - h*) + ||z_0 - x*||^2/(2 alpha) (AccVRCS)",
    "D_x_x0": "Bregman divergence D_psi(x, x_0) of psi = h_1 - h + ||.||^2/(2 theta)",
    "D_x_xT": "Bregman divergence D_psi(x, x_T)",
    "D_x0_xT": "Bregman divergence D_psi(x_0, x_T)",
}


def _symbols(*names: str, **extra: str) -> dict[str, str]:
    out = {n: _MEANING[n] for n in names}
    out.update(extra)
    return out


_ASSUMPTION_2 = (sp.Lt(mu, delta_f), sp.Lt(delta_f, delta_g))
_EPS_BELOW_ONE = sp.Lt(eps, 1)
_A1 = "A1: h mu-strongly convex"
_A2 = "A2: f_1 delta_f-related to f, g_1 delta_g-related to g, mu < delta_f < delta_g"
_A3 = "A3: g convex"
_A4 = "A4: oracles xi_k, zeta_k with variance <= sigma^2"
_I1 = "h_1 = f_1 + g_1 convex (implicit: needed for the 1/theta-strongly convex subproblem)"
_I2 = "f_1 + g convex (implicit: needed by Kovalev et al. 2022, Theorem 1)"
_I3 = "f_1 + g_1 + ||.||^2/(2 theta_f) convex (implicit: inner subproblem 1/theta_g-strongly convex)"

# ---------------------------------------------------------------------------------------------------- notes
_N_H1_CONVEX = Note(
    "The proofs use 'A_theta is 1/theta-strongly convex' (App. B and C), which needs h_1 = f_1 + g_1 convex; "
    "Assumptions 1-2 only give Hess h_1 >= (mu - delta_f - delta_g) I.",
    "Instances must have h_1 convex; it is listed among the assumptions and checked by the claims.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where="Appendices B and C, 'A_theta is 1/theta-strongly convex'",
        quote='A_theta is 1/theta-strongly convex',
        true_statement=(
            'Assumptions 1-2 give Hess h_1 >= (mu - delta_f - delta_g) I, so A_theta is (1/theta - delta + '
            'mu)-strongly convex (>= 2/(3 theta) under (9)): the proofs survive with worse constants; fedrates '
            'additionally builds instances with h_1 convex'
        ),
        evidence="the claims check h_1's smallest eigenvalue on every instance",
    ),
)
_N_ASS4 = Note(
    "Assumption 4 (bounded oracle variance) fails on every quadratic: the variance of zeta_k is "
    "||(1-p) grad f - p grad g||^2/(p(1-p)), which grows with ||x - x*||^2 and depends on p.",
    "sigma^2 is measured as the supremum of the exact variance along the trajectory.",
    "clarification",
)
_N_P1 = Note(
    "p = delta_f/(delta_f + delta_g) is fixed only inside the proof (App. B), not in tuning (9).",
    "Claims use this p.",
)
_N_STICH = Note(
    "The mapping to Stich (2019, Lemma 2) takes d = 1/sqrt(3(delta_f + delta_g)); the lemma requires gamma <= 1/d "
    "with gamma = sqrt(theta) <= 1/sqrt(3(delta_f + delta_g)), so d = sqrt(3(delta_f + delta_g)).",
    "Inverted constant; the O(.) statement is unaffected.",
    "typo",
)
_N_COINS = Note(
    "The proof takes E_zeta[zeta_k] = grad h(xbar_{k+1}) with xbar_{k+1} fixed, so the coin of zeta_k must be "
    "independent of the coin of xi_k; the text says only 'the same scheme'.",
    "Two independent Bernoulli(p) draws per iteration.",
)
_N_THM5_PEP = Note(
    "The printed recursion is not only unproved but false, already with exact oracles (sigma = 0, the Accelerated "
    "Extragradient baseline) and an exact subproblem: the performance-estimation SDP (fedrates.verify.pep, case "
    "bylinkin.thm5/aeg-exact-second-step) certifies Phi_2/Phi_1 = 1.052 > 1 - sqrt(mu theta)/2 = 0.971 at "
    "mu = 0.01, delta_f = 0.4, delta_g = 0.6, theta = 1/(3(delta_f + delta_g)), on instances with h_1 "
    "mu-strongly convex and 100-smooth and h - h_1 convex and delta-smooth (every assumption holds, the state "
    "is reached after one iteration); the corrected Phic contracts by the factor (worst 0.963, case "
    "bylinkin.thm5.corrected/aeg-exact).",
    "bylinkin.thm5 is false on the paper's class (as the quadratic claims bylinkin.thm5/one-step and "
    "/inexact-trajectory also find); the proved recursion is bylinkin.thm5.corrected.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Theorem 5, Appendix B (one-step recursion)',
        quote='E Phi_{k+1} <= (1 - sqrt(mu theta)/2) Phi_k with Phi_k = (tau/eta)||x_k - x*||^2 + h(xbar_k) - h*',
        true_statement=(
            'the one-step recursion of the proof is false; since Phi <= 2 Phi^c and Phi^c <= Phi for Phi^c = mu||x - '
            "x*||^2 + h(xbar) - h*, which contracts by the same factor, Theorem 5's complexity holds with a factor 2 "
            'inside the log'
        ),
        evidence=(
            "PEP certificate Phi_2/Phi_1 = 1.052 > 0.971 on the paper's class (fedrates falsify bylinkin.thm5); the "
            'corrected recursion holds (bylinkin.thm5.corrected)'
        ),
    ),
)
_N_CRIT_THM5 = Note(
    "Theorem 5 prints the subproblem accuracy E||grad A||^2 <= E[(theta^2/11)||x_k - argmin A||^2]; the proof "
    "needs (11 theta/3)||grad A||^2 <= (1/(3 theta))||.||^2, i.e. 1/(11 theta^2), as in eq. (4).",
    "Criterion 1/(11 theta^2) of eq. (4).",
    "typo",
)
_N_FACTOR2 = Note(
    "The strong-convexity step after (11) writes 2<grad h(xbar), x - xbar> <= [h(x) - h(xbar)] - mu||xbar - x||^2; "
    "the correct bound has 2[h(x) - h(xbar)].  With x = xbar_k (the (1-tau)/tau term) the printed step is not "
    "valid, so the recursion for Phi_k = (tau/eta)||x_k - x*||^2 + h(xbar_k) - h* with additive 4 theta sigma^2 "
    "is not proved.  Redoing the step gives Psi_k = (1/eta)||x_k - x*||^2 + (2/tau)(h(xbar_k) - h*) with "
    "E Psi_{k+1} <= (1 - sqrt(mu theta)/2) Psi_k + (4 theta/tau) sigma^2; times tau/2 this is "
    "Phic_k = mu||x_k - x*||^2 + h(xbar_k) - h* with additive 2 theta sigma^2 (tau/eta = 2 mu under (9)).",
    "bylinkin.thm5 keeps the printed recursion; bylinkin.thm5.corrected is the proved one.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Appendix B, the strong-convexity step after (11)',
        quote='2<grad h(xbar), x - xbar> <= [h(x) - h(xbar)] - mu||xbar - x||^2',
        true_statement=(
            'the correct bound has 2[h(x) - h(xbar)]; the proof goes through with the re-weighted Lyapunov function of'
            ' bylinkin.thm5.corrected'
        ),
        evidence='worst one-step ratio of the printed Phi above the factor (bylinkin.thm5/one-step)',
    ),
)
_N_TYPO_21 = Note(
    "(21) prints (1 -+ theta/(delta_f + delta_g))/(2 theta); since Hess psi = I/theta - Hess(h - h_1) the bounds "
    "are (1 -+ theta(delta_f + delta_g))/(2 theta), as used in (30).",
    "theta(delta_f + delta_g); the constants 8 theta^2 and mu theta/3 of Lemma 4 follow from this form.",
    "typo",
)
_N_TYPO_GRADA = Note(
    "The first line of the proof of Lemma 4 writes grad A = e_t + (x - x_0)/theta + grad h_1(x); the prox centre "
    "of Line 9 is x_t.",
    "(x - x_t)/theta, consistent with (15).",
    "typo",
)
_N_VR_WEIGHTS = Note(
    "Summing the two applications of Lemma 4 (x = x* and x = x_k) gives "
    "2(h(x_{k+1}) - h*) + (q + mu theta/3) D_{k+1} <= (h(x_k) - h*) + q D_k, i.e. weights q/2 on D after halving; "
    "the printed recursion has weight q.",
    "Lyapunov function V_k = h(x_k) - h* + (q/2) D_psi(x*, x_k); the factor max{1/2, (1 + mu theta/(3q))^-1} "
    "<= 1 - mu theta/(6q) is unchanged.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Theorem 6, Appendix D (sum of two applications of Lemma 4)',
        quote='recursion with weight q on D_psi',
        true_statement=(
            'the sum gives weight q/2; with V_k = h(x_k) - h* + (q/2) D_psi(x*, x_k) the factor max{1/2, (1 + mu '
            'theta/(3q))^-1} <= 1 - mu theta/(6q) is unchanged'
        ),
        evidence='symbolic re-derivation; the VRCS claims test the corrected Lyapunov function',
    ),
)
_N_REMARK1 = Note(
    "Remark 1 (App. D) claims that some (p, q) give O~(sqrt(delta_f delta_g)/mu) rounds for both groups.  For "
    "any p, q the bound gives max(R_f, R_g) >= (3/(mu theta)) ln and 1/theta >= 4 delta_g, so max >= "
    "12 (delta_g/mu) ln: the claim contradicts the analysis.  The O~(delta_g/mu)-for-both claim holds "
    "(p = q = 1/2).",
    "Not used.",
    "erratum",
    erratum=Erratum(
        kind='over-claim',
        where='Remark 1 (Appendix D)',
        quote='some (p, q) give O~(sqrt(delta_f delta_g)/mu) rounds for both groups',
        true_statement=(
            "Theorem 6's bound gives max(R_f, R_g) >= 12 (delta_g/mu) ln(V_0/eps) for every (p, q); the "
            'O~(delta_g/mu)-for-both statement holds'
        ),
        evidence=(
            'claim bylinkin.thm6/remark1: the best max(R_f, R_g)/(sqrt(delta_f delta_g)/mu) over a (p, q) grid grows '
            'like sqrt(delta_g/delta_f)'
        ),
    ),
)
_N_ROUND_UP = Note(
    "Explicit counts omit rounding the number of epochs up to an integer (at most one extra epoch); the counts are "
    "expectations over the geometric epoch lengths and the Bernoulli choices.",
    "Rounds sufficient to reach E V_K <= eps.",
)
_N_TK_SIGN = Note(
    "Line 7 of AccVRCS prints G_{k+1} = q(t_k + (x_{k+1} - y_{k+1})/theta); the proof (App. E) uses "
    "G_{k+1} = q(grad psi(x_{k+1}) - grad psi(y_{k+1})) = q((x_{k+1} - y_{k+1})/theta - t_k).",
    "The proof's sign -t_k is implemented.",
    "erratum",
    erratum=Erratum(
        kind='typo',
        where='Algorithm AccVRCS, Line 7',
        quote='G_{k+1} = q(t_k + (x_{k+1} - y_{k+1})/theta)',
        true_statement=(
            'the proof (App. E) uses G_{k+1} = q((x_{k+1} - y_{k+1})/theta - t_k); the theorems are about that method'
        ),
        evidence=(
            "the implemented AccVRCS uses the proof's sign; claim bylinkin.thm7/printed-line7 compares the printed "
            'sign'
        ),
    ),
)
_N_TK_ROUND = Note(
    "t_k needs grad(h - h_1)(y_{k+1}): one extra round with both M_f and M_g per outer iteration, which the "
    "round count (1 + p/q), (1 + (1-p)/q) per iteration omits.",
    "The .corrected ids count (2 + p/q) and (2 + (1-p)/q) rounds per outer iteration.",
    "erratum",
    erratum=Erratum(
        kind='constant',
        where='Theorem 7, round count of AccVRCS',
        quote='(1 + p/q) rounds with M_f and (1 + (1-p)/q) with M_g per outer iteration',
        true_statement=(
            't_k needs grad(h - h_1)(y_{k+1}): (2 + p/q) and (2 + (1-p)/q) rounds per outer iteration (the .corrected '
            'ids)'
        ),
        evidence='rounds counted along AccVRCS runs (bylinkin.thm7.mf/rounds)',
    ),
)
_N_TYPO_29 = Note(
    "(29) prints '+ (1 + 0.5 alpha)/(2 alpha)||z_{k+1} - x||^2'; Lemma 3 with the (mu/2)-strongly convex "
    "(mu/4)||z - y_{k+1}||^2 gives '- (1 + mu alpha/2)/(2 alpha)||z_{k+1} - x||^2', as used afterwards.",
    "Sign and factor mu restored.",
    "typo",
)
_N_KOVALEV_THETA = Note(
    "Section 7 applies Kovalev et al. (2022, Theorem 1) 'with theta = 1/delta_f'; that theorem uses "
    "theta = 1/(2 L_p) with L_p = delta_f, together with the accuracy criterion L_p^2/3 of (6).",
    "theta_f = 1/(2 delta_f).",
    "erratum",
    erratum=Erratum(
        kind='constant',
        where='Section 7, application of Kovalev et al. (2022, Theorem 1)',
        quote='with theta = 1/delta_f',
        true_statement='that theorem uses theta = 1/(2 L_p) with L_p = delta_f, i.e. theta_f = 1/(2 delta_f)',
        evidence='reading of the cited theorem',
    ),
)
_N_KOVALEV_Q = Note(
    "'Assumption 3 guarantees the convexity of q = f_1 + g' is false: f_1 is not assumed convex.  The printed "
    "bound ||Hess p(x) - Hess p(y)|| <= delta_f should read ||Hess p(x)|| <= delta_f (p = f - f_1 is "
    "delta_f-smooth).",
    "f_1 + g convex (and f_1 + g_1 + ||.||^2/(2 theta_f) convex for the inner phase) are required of instances.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Section 7, convexity of q',
        quote='Assumption 3 guarantees the convexity of q = f_1 + g',
        true_statement=(
            'f_1 is not assumed convex; f_1 + g convex (and f_1 + g_1 + ||.||^2/(2 theta_f) convex for the inner '
            'phase) must be assumed; the printed ||Hess p(x) - Hess p(y)|| <= delta_f should read ||Hess p(x)|| <= '
            'delta_f'
        ),
        evidence='reading of Assumptions 1-3',
    ),
)
_N_TILDE = Note(
    "O~ hides logarithmic factors: each outer step runs the inner method to the relative criterion (6), which "
    "costs about 2 sqrt(delta_g/delta_f) ln C inner iterations with C depending on smoothness constants.",
    "A calibrated constant can drift logarithmically along a delta_g sweep.",
)
_N_THM8_CRIT = Note(
    "Theorem 8 prints the inner accuracy ||B(xbar_{t+1})||^2 <= (2/(10 theta_g^2))||x_t - argmin B||^2 (no "
    "gradient, factor 2); the proof eliminates (5 theta_g/2)||grad B||^2 - (1/(4 theta_g))||.||^2, which needs "
    "1/(10 theta_g^2).",
    "||grad B||^2 <= (1/(10 theta_g^2))||x_t - argmin B||^2.",
    "erratum",
    erratum=Erratum(
        kind='constant',
        where='Theorem 8, inner accuracy criterion',
        quote='||B(xbar_{t+1})||^2 <= (2/(10 theta_g^2))||x_t - argmin B||^2',
        true_statement='the proof needs ||grad B||^2 <= (1/(10 theta_g^2))||x_t - argmin B||^2',
        evidence='symbolic re-derivation of the eliminated terms',
    ),
)
_N_THM8_PROOF = Note(
    "(33) bounds <grad A(xbar), x - x_t> with [A(xbar) - A(x)] (wrong sign) and the proof's typo "
    "'theta <= 1/(2 theta_g)' stands for theta_g <= 1/(2 delta_g).  Redone, the Lyapunov function is "
    "Psi_t = (1/eta_g)||x_t - A*||^2 + (2/tau_g)(A(xbar_t) - A*) and Psi_{t+1} + (theta_g/(2 tau_g))||grad "
    "A(xbar_{t+1})||^2 <= (1 - sqrt(theta_g/theta)/2) Psi_t.",
    "Same factor with weight 2/tau_g on the function gap.",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Theorem 8, display (33)',
        quote='<grad A(xbar), x - x_t> bounded with [A(xbar) - A(x)]',
        true_statement=(
            'the sign is wrong; redone, the Lyapunov function Psi_t = (1/eta_g)||x_t - A*||^2 + (2/tau_g)(A(xbar_t) - '
            'A*) contracts with the same factor'
        ),
        evidence='PEP: the inner factor holds with bound/worst = 1.013 (fedrates falsify bylinkin.thm8.rate)',
    ),
)

# ---------------------------------------------------------------------------------------------------- Theorem 1/5
_THM1_NOTES = (_N_P1, _N_ASS4, _N_COINS, _N_STICH, _N_H1_CONVEX)
_theta_9 = sp.Le(theta, 1 / (3 * (delta_f + delta_g)))

_thm1 = Theorem(
    id="bylinkin.thm1",
    paper=PAPER,
    label="Theorem 1",
    title="SC-AccExtragradient: rounds with M_f",
    statement=(
        r"\mathcal{O}\left(\sqrt{\delta_f/\mu}\,\log\frac{1}{\varepsilon} + \frac{\sigma^2}{\mu\varepsilon}\right)"
        r"\text{ communication rounds with } M_f"
    ),
    algorithms=("sc_acc_extragradient",),
    lhs="communication_rounds_f",
    rhs=sp.sqrt(delta_f / mu) * sp.log(1 / eps) + sigma**2 / (mu * eps),
    kind="order",
    probability="expectation",
    conditions=(*_ASSUMPTION_2, _EPS_BELOW_ONE),
    assumptions=(_A1, _A2, _A4, _I1),
    symbols=_symbols("delta_f", "delta_g", "mu", "eps", "sigma"),
    notes=_THM1_NOTES,
    equation="Theorem 1, eq. (4); Theorem 5, App. B",
)
_thm1_g = Theorem(
    id="bylinkin.thm1.mg",
    paper=PAPER,
    label="Theorem 1",
    title="SC-AccExtragradient: rounds with M_g",
    statement=(
        r"\mathcal{O}\left(\sqrt{\delta_g/\mu}\,\log\frac{1}{\varepsilon} + \frac{\sigma^2}{\mu\varepsilon}\right)"
        r"\text{ communication rounds with } M_g"
    ),
    algorithms=("sc_acc_extragradient",),
    lhs="communication_rounds_g",
    rhs=sp.sqrt(delta_g / mu) * sp.log(1 / eps) + sigma**2 / (mu * eps),
    kind="order",
    probability="expectation",
    conditions=(*_ASSUMPTION_2, _EPS_BELOW_ONE),
    assumptions=(_A1, _A2, _A4, _I1),
    symbols=_symbols("delta_f", "delta_g", "mu", "eps", "sigma"),
    notes=_THM1_NOTES,
    equation="Theorem 1, eq. (4); Theorem 5, App. B",
)
_thm5 = Theorem(
    id="bylinkin.thm5",
    paper=PAPER,
    label="Theorem 5",
    title="SC-AccExtragradient: one-step Lyapunov recursion, as printed",
    statement=(
        r"\mathbb{E}\,\Phi_{k+1} \le \left(1 - \tfrac12\sqrt{\mu\theta}\right)\Phi_k + 4\theta\sigma^2,\quad "
        r"\Phi_k = \tfrac{\tau}{\eta}\|x_k - x_*\|^2 + h(\bar x_k) - h(x_*),\ "
        r"\theta \le \frac{1}{3(\delta_f+\delta_g)},\ \tau = \sqrt{\mu\theta},\ "
        r"\eta = \min\{\tfrac{1}{2\mu}, \tfrac12\sqrt{\theta/\mu}\},\ \alpha = \mu"
    ),
    algorithms=("sc_acc_extragradient",),
    lhs="lyapunov_next",
    rhs=(1 - sp.sqrt(mu * theta) / 2) * Phi_k + 4 * theta * sigma**2,
    kind="explicit",
    probability="expectation",
    conditions=(_theta_9, *_ASSUMPTION_2),
    assumptions=(_A1, _A2, _A4, _I1),
    symbols=_symbols(
        "theta", "mu", "sigma", "delta_f", "delta_g",
        Phi_k="Phi_k = (tau/eta)||x_k - x*||^2 + h(xbar_k) - h* (= 2 mu||x_k - x*||^2 + gap under (9))",
    ),
    notes=(
        Note("Linear contraction with an additive noise term, hence kind 'explicit' with the full expression; "
             "the contraction factor is 1 - sqrt(mu theta)/2 and the noise floor 8 sqrt(theta/mu) sigma^2."),
        _N_FACTOR2, _N_THM5_PEP, _N_CRIT_THM5, *_THM1_NOTES,
    ),
    equation="Theorem 5 (9), proof in App. B (display before Stich's lemma)",
)
_thm5_c = Theorem(
    id="bylinkin.thm5.corrected",
    paper=PAPER,
    label="Theorem 5",
    title="SC-AccExtragradient: one-step Lyapunov recursion, corrected Lyapunov function",
    statement=(
        r"\mathbb{E}\,\Phi^c_{k+1} \le \left(1 - \tfrac12\sqrt{\mu\theta}\right)\Phi^c_k + 2\theta\sigma^2,\quad "
        r"\Phi^c_k = \mu\|x_k - x_*\|^2 + h(\bar x_k) - h(x_*)"
    ),
    algorithms=("sc_acc_extragradient",),
    lhs="lyapunov_next",
    rhs=(1 - sp.sqrt(mu * theta) / 2) * Phic_k + 2 * theta * sigma**2,
    kind="explicit",
    probability="expectation",
    conditions=(_theta_9, *_ASSUMPTION_2),
    assumptions=(_A1, _A2, _A4, _I1),
    symbols=_symbols(
        "theta", "mu", "sigma", "delta_f", "delta_g",
        Phic_k="Phic_k = mu||x_k - x*||^2 + h(xbar_k) - h* (corrected Lyapunov function)",
    ),
    notes=(
        Note("Contraction with an additive term (kind 'explicit'); noise floor 4 sqrt(theta/mu) sigma^2."),
        _N_FACTOR2, _N_CRIT_THM5, *_THM1_NOTES,
    ),
    equation="Theorem 5 (9), App. B, redone",
)

# ---------------------------------------------------------------------------------------------------- Lemma 4
_c_vr = 8 * theta**2 * (delta_f**2 / p + delta_g**2 / (1 - p))
_lem4 = Theorem(
    id="bylinkin.lem4",
    paper=PAPER,
    label="Lemma 4",
    title="VRCS^1ep: descent over one epoch in the Bregman geometry of psi",
    statement=(
        r"\mathbb{E}[h(x_T) - h(x)] \le \mathbb{E}\Big[q D_\psi(x,x_0) - q D_\psi(x,x_T) + 8\theta^2"
        r"\Big(\frac{\delta_f^2}{p} + \frac{\delta_g^2}{1-p}\Big) D_\psi(x_0,x_T) - \frac{\mu\theta}{3}"
        r"D_\psi(x,x_T)\Big],\ \psi = h_1 - h + \frac{\|\cdot\|^2}{2\theta},\ \theta \le \frac{1}{2(\delta_f+\delta_g)}"
    ),
    algorithms=("vrcs", "acc_vrcs"),
    lhs="epoch_gap",
    rhs=q * D_x0 - q * D_xT + _c_vr * D_0T - mu * theta / 3 * D_xT,
    kind="explicit",
    probability="expectation",
    conditions=(sp.Le(theta, 1 / (2 * (delta_f + delta_g))), sp.Lt(p, 1), sp.Lt(q, 1), *_ASSUMPTION_2),
    assumptions=(_A1, _A2, _I1, "subproblem accuracy (5): E||grad A||^2 <= (mu/(17 theta))||x_t - argmin A||^2"),
    symbols=_symbols("theta", "mu", "delta_f", "delta_g", "p", "q", "D_x_x0", "D_x_xT", "D_x0_xT"),
    notes=(
        Note("lhs is E[h(x_T) - h(x)] for a fixed comparison point x (x = x* or x = x_0); the Bregman "
             "divergences are measured at the epoch's anchor x_0 and output x_T.  T ~ Geom(q) must have support "
             "{1, 2, ...} (Lemma 2)."),
        _N_TYPO_GRADA, _N_TYPO_21, _N_H1_CONVEX,
    ),
    equation="Lemma 4, App. C (eq. (5), (21))",
)

# ---------------------------------------------------------------------------------------------------- Theorem 2/6
_VR_COND = (*_ASSUMPTION_2,)
_VR_ASSUMPTIONS = (_A1, _A2, _I1, "subproblem accuracy (5)")
_thm2 = Theorem(
    id="bylinkin.thm2",
    paper=PAPER,
    label="Theorem 2",
    title="VRCS: rounds with M_f",
    statement=r"\mathcal{O}\left(\frac{\delta_f}{\mu}\log\frac{1}{\varepsilon}\right)\text{ rounds with } M_f",
    algorithms=("vrcs",),
    lhs="communication_rounds_f",
    rhs=delta_f / mu * sp.log(1 / eps),
    kind="order",
    probability="expectation",
    conditions=(*_VR_COND, _EPS_BELOW_ONE),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(Note("Tuning (23): p = q = delta_f^2/(delta_f^2 + delta_g^2), theta = delta_f/(4 sqrt2 (delta_f^2 + "
                "delta_g^2)); the M_f count does not depend on delta_g."), _N_H1_CONVEX),
    equation="Theorem 2, eq. (5); Theorem 6 (23), App. D",
)
_thm2_g = Theorem(
    id="bylinkin.thm2.mg",
    paper=PAPER,
    label="Theorem 2",
    title="VRCS: rounds with M_g",
    statement=(
        r"\mathcal{O}\left(\frac{\delta_g}{\delta_f}\frac{\delta_g}{\mu}\log\frac{1}{\varepsilon}\right)"
        r"\text{ rounds with } M_g"
    ),
    algorithms=("vrcs",),
    lhs="communication_rounds_g",
    rhs=delta_g**2 / (delta_f * mu) * sp.log(1 / eps),
    kind="order",
    probability="expectation",
    conditions=(*_VR_COND, _EPS_BELOW_ONE),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(_N_H1_CONVEX,),
    equation="Theorem 2; Theorem 6, App. D",
)
_THM6_NOTES = (_N_VR_WEIGHTS, _N_REMARK1, _N_TYPO_21, _N_H1_CONVEX)
_thm6 = Theorem(
    id="bylinkin.thm6",
    paper=PAPER,
    label="Theorem 6",
    title="VRCS: per-epoch contraction under tuning (23)",
    statement=(
        r"\mathbb{E} V_{k+1} \le \left(1 - \frac{\mu\theta}{6q}\right) V_k = "
        r"\left(1 - \frac{\mu}{24\sqrt2\,\delta_f}\right)V_k,\ V_k = h(x_k) - h_* + \tfrac{q}{2}D_\psi(x_*,x_k),\ "
        r"\theta = \frac14\sqrt{\frac{p(1-p)q}{p\delta_g^2 + (1-p)\delta_f^2}},\ p = q = "
        r"\frac{\delta_f^2}{\delta_f^2+\delta_g^2}"
    ),
    algorithms=("vrcs",),
    lhs="contraction_factor",
    rhs=1 - mu / (24 * sp.sqrt(2) * delta_f),
    kind="contraction",
    probability="expectation",
    conditions=_VR_COND,
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu"),
    notes=(Note("Per epoch (one anchor round with both groups plus a Geom(q) number of single-group rounds).  "
                "Under (23) theta/q = 1/(4 sqrt2 delta_f), and (23) satisfies Lemma 4's theta <= "
                "1/(2(delta_f + delta_g))."), *_THM6_NOTES),
    equation="Theorem 6, (23), App. D",
)
_K6 = 24 * sp.sqrt(2) * delta_f / mu * sp.log(V_0 / eps)
_thm6_f = Theorem(
    id="bylinkin.thm6.mf",
    paper=PAPER,
    label="Theorem 6",
    title="VRCS: expected rounds with M_f to reach E V_K <= eps, explicit constant",
    statement=(
        r"\mathbb{E}R_f \le K\left(1 + \frac{p}{q}\right) = 48\sqrt2\,\frac{\delta_f}{\mu}\ln\frac{V_0}{\varepsilon},"
        r"\ K = \frac{6q}{\mu\theta}\ln\frac{V_0}{\varepsilon}"
    ),
    algorithms=("vrcs",),
    lhs="communication_rounds_f",
    rhs=2 * _K6,
    kind="complexity",
    probability="expectation",
    conditions=(*_VR_COND, sp.Lt(eps, V_0)),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "V_0",
                     eps="target value of the Lyapunov function V_K (absolute)"),
    notes=(_N_ROUND_UP, *_THM6_NOTES),
    equation="Theorem 6, App. D (rounds O~(q/(mu theta) (1 + p/q)))",
)
_thm6_g = Theorem(
    id="bylinkin.thm6.mg",
    paper=PAPER,
    label="Theorem 6",
    title="VRCS: expected rounds with M_g to reach E V_K <= eps, explicit constant",
    statement=(
        r"\mathbb{E}R_g \le K\left(1 + \frac{1-p}{q}\right) = 24\sqrt2\,\frac{\delta_f^2+\delta_g^2}{\delta_f\mu}"
        r"\ln\frac{V_0}{\varepsilon}"
    ),
    algorithms=("vrcs",),
    lhs="communication_rounds_g",
    rhs=_K6 * (delta_f**2 + delta_g**2) / delta_f**2,
    kind="complexity",
    probability="expectation",
    conditions=(*_VR_COND, sp.Lt(eps, V_0)),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "V_0",
                     eps="target value of the Lyapunov function V_K (absolute)"),
    notes=(_N_ROUND_UP, *_THM6_NOTES),
    equation="Theorem 6, App. D (rounds O~(q/(mu theta) (1 + (1-p)/q)))",
)

# ---------------------------------------------------------------------------------------------------- Theorem 3/7
_thm3 = Theorem(
    id="bylinkin.thm3",
    paper=PAPER,
    label="Theorem 3",
    title="AccVRCS: rounds with M_f",
    statement=r"\mathcal{O}\left(\sqrt{\delta_f/\mu}\,\log\frac{1}{\varepsilon}\right)\text{ rounds with } M_f",
    algorithms=("acc_vrcs",),
    lhs="communication_rounds_f",
    rhs=sp.sqrt(delta_f / mu) * sp.log(1 / eps),
    kind="order",
    probability="expectation",
    conditions=(*_VR_COND, _EPS_BELOW_ONE),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(_N_TK_SIGN, _N_H1_CONVEX),
    equation="Theorem 3; Theorem 7 (24), App. E",
)
_thm3_g = Theorem(
    id="bylinkin.thm3.mg",
    paper=PAPER,
    label="Theorem 3",
    title="AccVRCS: rounds with M_g",
    statement=(
        r"\mathcal{O}\left(\left(\frac{\delta_g}{\delta_f}\right)^{3/2}\sqrt{\frac{\delta_g}{\mu}}"
        r"\log\frac{1}{\varepsilon}\right)\text{ rounds with } M_g"
    ),
    algorithms=("acc_vrcs",),
    lhs="communication_rounds_g",
    rhs=(delta_g / delta_f) ** sp.Rational(3, 2) * sp.sqrt(delta_g / mu) * sp.log(1 / eps),
    kind="order",
    probability="expectation",
    conditions=(*_VR_COND, _EPS_BELOW_ONE),
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(_N_TK_SIGN, _N_H1_CONVEX),
    equation="Theorem 3; Theorem 7 (24), App. E",
)
_tau7 = sp.sqrt(mu / (12 * sp.sqrt(2) * delta_f))
_K7 = 4 / _tau7 * sp.log(W_0 / eps)
_p23 = delta_f**2 / (delta_f**2 + delta_g**2)
_THM7_NOTES = (_N_TK_SIGN, _N_TYPO_29, _N_H1_CONVEX)
_W_SYMBOLS = _symbols("delta_f", "delta_g", "mu", "W_0", eps="target value of the Lyapunov function W_K (absolute)")
_thm7 = Theorem(
    id="bylinkin.thm7",
    paper=PAPER,
    label="Theorem 7",
    title="AccVRCS: per-iteration contraction under tuning (24)",
    statement=(
        r"\mathbb{E}W_{k+1} \le \left(1 + \frac{\mu\alpha}{2}\right)^{-1} W_k \le \left(1 - \frac{\mu\alpha}{4}\right)"
        r"W_k,\ \mu\alpha = \tau = \sqrt{\frac{\mu}{12\sqrt2\,\delta_f}},\ W_k = \frac1\tau(h(y_k) - h_*) + "
        r"\frac{1}{2\alpha}\|z_k - x_*\|^2"
    ),
    algorithms=("acc_vrcs",),
    lhs="contraction_factor",
    rhs=1 - _tau7 / 4,
    kind="contraction",
    probability="expectation",
    conditions=_VR_COND,
    assumptions=_VR_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu"),
    notes=(Note("Tuning (24): theta as (23), tau = sqrt(theta mu/(3q)), alpha = sqrt(theta/(3 mu q)); then "
                "mu alpha = tau and 3 alpha q tau/theta = 1.  The exact factor is max{1 - tau, (1 + tau/2)^-1} "
                "= (1 + tau/2)^-1 <= 1 - tau/4."), *_THM7_NOTES),
    equation="Theorem 7, (24), App. E",
)


def _acc_rounds(ident: str, group: str, per_iter: sp.Expr, corrected: bool) -> Theorem:
    rounds = {"f": "1 + p/q", "g": "1 + (1-p)/q"}[group] if not corrected else {"f": "2 + p/q",
                                                                               "g": "2 + (1-p)/q"}[group]
    return Theorem(
        id=ident,
        paper=PAPER,
        label="Theorem 7",
        title=f"AccVRCS: expected rounds with M_{group} to reach E W_K <= eps"
        + (" (counting the round for t_k)" if corrected else " (paper's round count)"),
        statement=(
            rf"\mathbb{{E}}R_{group} \le \frac{{4}}{{\tau}}\ln\frac{{W_0}}{{\varepsilon}}\left({rounds}\right),\ "
            r"\tau = \sqrt{\mu/(12\sqrt2\,\delta_f)},\ p = q = \delta_f^2/(\delta_f^2+\delta_g^2)"
        ),
        algorithms=("acc_vrcs",),
        lhs=f"communication_rounds_{group}",
        rhs=_K7 * per_iter,
        kind="complexity",
        probability="expectation",
        conditions=(*_VR_COND, sp.Lt(eps, W_0)),
        assumptions=_VR_ASSUMPTIONS,
        symbols=_W_SYMBOLS,
        notes=(_N_ROUND_UP, _N_TK_ROUND, *_THM7_NOTES),
        equation="Theorem 7, App. E (rounds O~(sqrt(q/(mu theta)) (1 + p/q)))",
    )


_thm7_f = _acc_rounds("bylinkin.thm7.mf", "f", sp.Integer(2), corrected=False)
_thm7_g = _acc_rounds("bylinkin.thm7.mg", "g", 1 / _p23, corrected=False)
_thm7_fc = _acc_rounds("bylinkin.thm7.mf.corrected", "f", sp.Integer(3), corrected=True)
_thm7_gc = _acc_rounds("bylinkin.thm7.mg.corrected", "g", 1 + 1 / _p23, corrected=True)

# ---------------------------------------------------------------------------------------------------- Theorem 4/8
_CAEG_ASSUMPTIONS = (_A1, _A2, _A3, _I2, _I3)
_thm4 = Theorem(
    id="bylinkin.thm4",
    paper=PAPER,
    label="Theorem 4",
    title="C-AccExtragradient: rounds with M_f",
    statement=r"\mathcal{O}\left(\sqrt{\delta_f/\mu}\,\log\frac{1}{\varepsilon}\right)\text{ rounds with } M_f",
    algorithms=("c_acc_extragradient",),
    lhs="communication_rounds_f",
    rhs=sp.sqrt(delta_f / mu) * sp.log(1 / eps),
    kind="order",
    probability="deterministic",
    conditions=(*_ASSUMPTION_2, _EPS_BELOW_ONE),
    assumptions=_CAEG_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(Note("Two rounds with M_f per outer iteration; the M_f count does not depend on delta_g."),
           _N_KOVALEV_THETA, _N_KOVALEV_Q),
    equation="Theorem 4, eq. (6); App. F",
)
_thm4_g = Theorem(
    id="bylinkin.thm4.mg",
    paper=PAPER,
    label="Theorem 4",
    title="C-AccExtragradient: rounds with M_g (up to logarithmic factors)",
    statement=r"\tilde{\mathcal{O}}\left(\sqrt{\delta_g/\mu}\,\log\frac{1}{\varepsilon}\right)\text{ rounds with } M_g",
    algorithms=("c_acc_extragradient",),
    lhs="communication_rounds_g",
    rhs=sp.sqrt(delta_g / mu) * sp.log(1 / eps),
    kind="order",
    probability="deterministic",
    conditions=(*_ASSUMPTION_2, _EPS_BELOW_ONE),
    assumptions=_CAEG_ASSUMPTIONS,
    symbols=_symbols("delta_f", "delta_g", "mu", "eps"),
    notes=(_N_TILDE, _N_KOVALEV_THETA, _N_KOVALEV_Q, _N_THM8_CRIT),
    equation="Theorem 4; Theorem 8 (31), App. F",
)
_THM8_COND = (sp.Le(theta_g, 1 / (2 * delta_g)), sp.Lt(theta_g, 4 * theta))
_THM8_SYMBOLS = dict(
    theta="step theta = theta_f of the outer subproblem A_theta^k",
    theta_g=_MEANING["theta_g"],
    delta_g=_MEANING["delta_g"],
)
_thm8 = Theorem(
    id="bylinkin.thm8",
    paper=PAPER,
    label="Theorem 8",
    title="Inner AccExtragradient: rounds with M_g to reach ||grad A||^2 <= eps",
    statement=(
        r"\mathcal{O}\left(\sqrt{\theta\delta_g}\log\frac1\varepsilon\right)\text{ rounds with } M_g"
        r"\text{ to reach } \|\nabla A^k_\theta(\bar x_{t+1})\|^2 \le \varepsilon,\ "
        r"\theta_g \le \frac{1}{2\delta_g},\ \tau_g = \tfrac12\sqrt{\theta_g/\theta},\ \alpha_g = 1/\theta,\ "
        r"\eta_g = \min\{\theta/2, \theta_g/(4\tau_g)\}"
    ),
    algorithms=("c_acc_extragradient",),
    lhs="communication_rounds_g",
    rhs=sp.sqrt(theta * delta_g) * sp.log(1 / eps),
    kind="order",
    probability="deterministic",
    conditions=(*_THM8_COND, _EPS_BELOW_ONE),
    assumptions=(_A2, _A3, _I2, _I3),
    symbols={**_THM8_SYMBOLS, "eps": "target value of ||grad A_theta^k(xbar_{t+1})||^2 (absolute)"},
    notes=(Note("Rounds of the inner phase for one outer subproblem; with theta_g = 1/(2 delta_g) the rate is the "
                "per-step factor of bylinkin.thm8.rate."), _N_THM8_CRIT, _N_THM8_PROOF),
    equation="Theorem 8, (31), App. F",
)
_thm8_rate = Theorem(
    id="bylinkin.thm8.rate",
    paper=PAPER,
    label="Theorem 8",
    title="Inner AccExtragradient: per-iteration contraction of the Lyapunov function",
    statement=(
        r"\Psi_{t+1} + \frac{\theta_g}{2\tau_g}\|\nabla A(\bar x_{t+1})\|^2 \le "
        r"\left(1 - \tfrac12\sqrt{\theta_g/\theta}\right)\Psi_t"
    ),
    algorithms=("c_acc_extragradient",),
    lhs="contraction_factor",
    rhs=1 - sp.sqrt(theta_g / theta) / 2,
    kind="contraction",
    probability="deterministic",
    conditions=_THM8_COND,
    assumptions=(_A2, _A3, _I2, _I3),
    symbols=_THM8_SYMBOLS,
    notes=(Note("The condition theta_g < 4 theta is the parameter range tau_g in (0, 1) of the algorithm."),
           _N_THM8_PROOF, _N_THM8_CRIT),
    equation="Theorem 8, (31), App. F (final recursion)",
)

THEOREMS: tuple[Theorem, ...] = (
    _thm1, _thm1_g, _thm5, _thm5_c,
    _lem4,
    _thm2, _thm2_g, _thm6, _thm6_f, _thm6_g,
    _thm3, _thm3_g, _thm7, _thm7_f, _thm7_g, _thm7_fc, _thm7_gc,
    _thm4, _thm4_g, _thm8, _thm8_rate,
)
