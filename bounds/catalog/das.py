"""Seed paper 003 (id ``das``): Das, Hashemi, Sanghavi, Dhillon, "On the Convergence of Differentially Private
Federated Learning on Non-Lipschitz Objectives, and with Normalized Client Updates".

Setting (paper's letters): n clients, f = (1/n) sum_i f_i with every f_i convex and L-smooth on R^d; K rounds of E
local full-gradient steps with constant step eta (= global step beta); client update
u_k^(i) = (w_k - w_{k,E}^(i))/eta = sum_{tau<E} grad f_i(w_{k,tau}^(i)); Algorithm 1 (``dp_fedavg_clip``) sends
clip(u, C) + noise, Algorithm 2 (``dp_normfedavg``) sends C u/||u|| + noise; the averaged server noise is
N(0, sigma^2 I) with sigma^2 = q K C^2 log(1/delta)/(n^2 eps^2) (eq. 5).  C-hat := C/E,
rho := sqrt(q d log(1/delta))/(n eps) (eq. 3), Delta_i^* := f_i(w^*) - min f_i.  The output is w_{k~} with k~
uniform on {0, ..., K-1}, so every expectation over k~ is the plain average over rounds 0..K-1.

The convergence theorems bound a per-client *mixture* (unclipped clients weighted by their suboptimality, clipped
clients by 3 C-hat ||u|| / (8 L E)); the weights are written once here in terms of a := eta L E, which every
parameterisation of the paper satisfies (2 eta L E = rho E / alpha in Thms 2/4 and = 2 gamma/(C-hat K rho) in Thms 5/6):

* ``dp_clip_mixture``  = E[(1/n) sum_i 1(||u|| <= C-hat E)(2 - 2a - 4a^2)(f_i(w) - f_i(w^*))
                                    + 1(||u|| > C-hat E) 3 C-hat ||u||/(8 L E)]  at w = w_{k~}, u = u_{k~}^(i);
* ``dp_norm_mixture``  = E[(1/n) sum_i 1(||u|| <= C-hat E)(2 - 4a^2)(C-hat E/||u||)(f_i(w) - f_i(w^*))
                                    + 1(||u|| > C-hat E) 3 C-hat ||u||/(8 L E)].

Trajectory-dependent averages that appear on the right-hand sides are symbols measured along the run
(``H_clip``, ``P_unc``, ``H_norm``); their meanings are in each theorem's ``symbols`` map.
"""

from __future__ import annotations

import sympy as sp

from fedrates.bounds.symbols import sym
from fedrates.bounds.theorem import Note, Theorem
from fedrates.errata import Erratum

__all__ = ["THEOREMS"]

PAPER = "das"

# --- symbols (paper's letters) -------------------------------------------------------------------------------------
L, E, K, n, r = sym("L"), sym("E"), sym("K"), sym("n"), sym("r")
eta, Chat, rho, gamma, alpha = sym("eta"), sym("Chat"), sym("rho"), sym("gamma"), sym("alpha")
R, Dmax, Dbar, G, lam = sym("R"), sym("Dmax"), sym("Dbar"), sym("G"), sym("lam")
H_clip, P_unc, H_norm = sym("H_clip"), sym("P_unc"), sym("H_norm")
D_k, M_k, H_k = sym("D_k"), sym("M_k"), sym("H_k")
SG, Delta_i, tau, gap_i = sym("SG"), sym("Delta_i"), sym("tau"), sym("gap_i")
g2, dg2, g0 = sym("g2"), sym("dg2"), sym("g0")
C, sigma, eps, delta, q, d = sym("C"), sym("sigma"), sym("eps"), sym("delta"), sym("q"), sym("d")

MEANING = {
    "L": "smoothness constant bounding every client (max_i L_i, not the smoothness of f)",
    "E": "local_steps",
    "K": "rounds",
    "n": "clients",
    "r": "participating",
    "eta": "local step size eta_k = global step beta_k = eta (constant)",
    "Chat": "C-hat = C/E, clipping threshold (normalisation scale) per local step",
    "rho": "privacy level rho = sqrt(q d log(1/delta))/(n eps) (eq. 3); q-free equivalent sqrt(d) sigma/(C sqrt(K))",
    "gamma": "free constant gamma > 0 of the step-size choice (gamma = L R minimises term A)",
    "alpha": "free constant alpha >= 1 setting K = 2 alpha gamma/(C-hat E rho^2)",
    "R": "initial distance ||w_0 - w^*||",
    "Dmax": "max_j Delta_j^*, Delta_j^* = f_j(w^*) - min f_j",
    "Dbar": "mean heterogeneity (1/n) sum_i Delta_i^*",
    "G": "Lipschitz constant of every f_i (sup ||grad f_i||; trajectory-wise max for quadratics)",
    "lam": "lambda of Assumption 1(i): ||grad f_i(w - eta grad f_i(w)) - grad f_i(w)|| >= eta lambda ||grad f_i(w)||",
    "H_clip": "E_k~[(1/n) sum_i 1(||u_k~^(i)|| <= C-hat E) Delta_i^*] (heterogeneity of unclipped clients)",
    "P_unc": "E_k~[(1/n) sum_i 1(||u_k~^(i)|| <= C-hat E)] (fraction of unclipped client updates)",
    "H_norm": "E_k~[(1/n) sum_i 1(||u_k~^(i)|| <= C-hat E) (C-hat E/||u_k~^(i)||) Delta_i^*]",
    "D_k": "||w_k - w^*||^2 at the start of round k",
    "M_k": "round-k mixture (1/n) sum_i [1(||u|| > C-hat E) 3 C-hat ||u||/(8LE) + 1(<=)(2-2eta L E-4(eta L E)^2)"
    "(f_i(w_k)-f_i(w^*))]",
    "H_k": "(1/n) sum_i 1(||u_k^(i)|| <= C-hat E) Delta_i^* at round k",
    "SG": "sum_{tau<E} ||grad f_i(w_{k,tau}^(i))||^2 along client i's local path",
    "Delta_i": "Delta_i^* = f_i(w^*) - min f_i of the client",
    "tau": "local step index tau >= 1",
    "gap_i": "f_i(w_k) - f_i^* (client suboptimality at the round's start point)",
    "g2": "||grad f_i(w_{k,tau}^(i))||^2 at local step tau",
    "dg2": "||grad f_i(w_{k,tau+1}^(i)) - grad f_i(w_{k,tau}^(i))||^2",
    "g0": "||grad f_i(w_k)|| at the round's start point",
    "C": "clipping threshold (normalisation scale) C on u = (w_k - w_{k,E})/eta",
    "sigma": "std of the server-averaged privacy noise (each client adds N(0, r sigma^2 I))",
    "eps": "privacy parameter epsilon > 0 of (epsilon, delta)-DP",
    "delta": "privacy parameter 0 < delta < 1 of (epsilon, delta)-DP",
    "q": "absolute constant of the moments accountant in eq. (5) (never given a value by the paper)",
    "d": "dim",
}

ALGO_CLIP = ("dp_fedavg_clip",)
ALGO_NORM = ("dp_normfedavg",)

A0 = "A0: each f_i convex and L-smooth on R^d"
A_CHAT = "C-hat >= 4 sqrt(L max_j Delta_j^*)"
A_FULL = "full participation r = n (see erratum on Fact 2 in step (23))"
A1 = "Assumption 1 (i) gradient-curvature bound with lambda, (ii) each f_i G-Lipschitz"

CHAT_COND = sp.Ge(Chat, 4 * sp.sqrt(L * Dmax))
FULL_COND = sp.Ge(r, n)


def _symbols(*names: str) -> dict[str, str]:
    return {name: MEANING[name] for name in names}


# --- notes shared by several theorems ------------------------------------------------------------------------------
SAMPLING = Note(
    "Proof step (23) bounds E_S||(1/r) sum_{i in S_k} clip_i||^2 by (1/n) sum_i ||clip_i||^2 via Fact 2, which needs "
    "|S_k| <= r; Algorithm 1/2 sample each client independently with probability r/n (Poisson), where the exact "
    "value is larger by up to the factor (1 + 1/r - 1/n) (e.g. all updates equal: E|S|^2/r^2 = 1 + (1 - r/n)/r).",
    "The proof is valid as written for full participation (r = n, then S_k = [n] surely); fedrates adds the "
    "condition r >= n. Fixed-size sampling of r clients would also validate the step but is not the paper's "
    "algorithm (nor the sampling its privacy accounting assumes).",
    "erratum",
    erratum=Erratum(
        kind='proof-gap',
        where='Proof of Theorem 2, step (23)',
        quote='E_S||(1/r) sum_{i in S_k} clip_i||^2 <= (1/n) sum_i ||clip_i||^2 (Fact 2)',
        true_statement=(
            'Fact 2 needs |S_k| <= r; under Poisson sampling the exact value is larger by up to (1 + 1/r - 1/n). The '
            'step holds for full participation and for fixed-size sampling of r clients; under Poisson sampling the '
            'theorems survive with constants changed by at most that factor'
        ),
        evidence='exact second moment of the Poisson-sampled average (claim das.thm2/poisson-step)',
    ),
)
NOISE = Note(
    "The averaged noise (1/r) sum_{i in S_k} zeta_k^(i) is N(0, sigma^2 I) only when |S_k| = r; under Poisson "
    "sampling its covariance is (|S_k|/r) sigma^2 I (equal to sigma^2 I in expectation).",
    "Read with full participation; the noise term eta^2 d sigma^2 = eta^2 K C^2 rho^2 uses d sigma^2 = K C^2 rho^2.",
    "clarification",
)
Q_CONST = Note(
    "The absolute constant q in rho (eq. 3) and sigma^2 (eq. 5) is never given a value, and the text calls n "
    "'the number of samples' although n is the number of clients (client-level DP).",
    "Evaluate rho from the noise actually simulated: rho = sqrt(d) sigma/(C sqrt(K)) (identity d sigma^2 = K C^2 "
    "rho^2), so every bound is q-free.",
    "clarification",
)
MIXTURE = Note(
    "The left side is a per-client mixture, not f(w) - f^*: unclipped clients contribute coef*(f_i(w_k~) - "
    "f_i(w^*)), which can be negative per client; it reduces to coef*(E f(w_k~) - f^*) only when no client is "
    "ever clipped.",
    "lhs names the mixture (see module docstring for the exact weights in terms of a = eta L E); the bound is "
    "informative only while the weight 2 - 2a - 4a^2 (clip) or 2 - 4a^2 (norm) is positive, i.e. a < 1/2 "
    "(resp. a < 1/sqrt(2)).",
    "clarification",
)
ANY_ETA = Note(
    "Theorems 5/6 fix eta = gamma/(C-hat L E K rho); for a run with any eta <= 1/(2L) and integer K the same bound "
    "holds with gamma := eta C-hat L E K rho (it is eq. 47 rewritten), and K > 2 gamma/(C-hat E rho) is then "
    "exactly eta L < 1/2.",
    "Claims evaluate gamma from the run's eta and K.",
    "clarification",
)
THM2_CHOICE = Note(
    "Parameter choices of Thms 2/4 are equalities: eta = rho/(2 alpha L) and K = 2 alpha gamma/(C-hat E rho^2); "
    "given a run's eta and K they determine alpha = rho/(2 eta L) and gamma = eta C-hat L E K rho.",
    "Only the inequalities (alpha >= 1, E <= alpha/(2 rho), C-hat condition, full participation) are conditions; "
    "K must be an integer, so runs use the Thm 5/6 form with the actual K (das.thm5/das.thm6).",
    "clarification",
)

# --- right-hand sides ----------------------------------------------------------------------------------------------
A_TERM = Chat * (L * R**2 / gamma + gamma / L) * rho  # term A: effect of initialisation
THM2_RHS = A_TERM + sp.Rational(3, 2) * E / alpha * H_clip * rho  # (6)
THM5_RHS = A_TERM + (2 * gamma / (Chat * K * rho)) * (1 + 2 * gamma / (Chat * K * rho)) * H_clip
THM4_RHS = A_TERM + (Chat**2 / (2 * alpha * L) * P_unc + rho * E / alpha**2 * H_norm) * E * rho  # (14)
THM6_RHS = A_TERM + gamma * Chat / (L * K * rho) * P_unc + 4 * gamma**2 / (Chat**2 * K**2 * rho**2) * H_norm
EQ47_RHS = R**2 / (eta * E * K) + eta * E * K * Chat**2 * rho**2 + 2 * eta * L * E * (1 + 2 * eta * L * E) * H_clip
EQ46_RHS = (
    D_k
    - eta * E * M_k
    + eta * E * (2 * eta * L * E + 4 * eta**2 * L**2 * E**2) * H_k
    + eta**2 * E**2 * Chat**2 * K * rho**2
)
THM3_RHS = (Chat * R + E * Dbar) * rho
THM3X_RHS = A_TERM + sp.Rational(3, 2) * E / alpha * Dbar * rho
EQ8_RHS = sp.Rational(4, 5) * (G * (L * R**2 / gamma + gamma / L) + sp.Rational(3, 2) * E / alpha * Dbar) * rho
PROP1_RHS = G * E * (1 - sp.Rational(11, 64) * (E - 1) * rho * lam**2 / L**2)
EQ11_RHS = (2 * G * R + sp.Rational(6, 5) * E * (Dbar - sp.Rational(11, 48) * G * R * rho * lam**2 / L**2)) * rho

THM2_CONDS = (sp.Ge(alpha, 1), sp.Le(E, alpha / (2 * rho)), CHAT_COND, FULL_COND)
THM5_CONDS = (sp.Gt(K, 2 * gamma / (Chat * E * rho)), CHAT_COND, FULL_COND)

_MIX_STATE = (
    r"\mathbb{E}\Big[\tfrac1n\sum_i \mathbb{1}(\|u_{\tilde k}^{(i)}\|\le\hat C E)\,c\,(f_i(w_{\tilde k})-f_i(w^*))"
    r"+\mathbb{1}(\|u_{\tilde k}^{(i)}\|>\hat C E)\tfrac{3\hat C}{8LE}\|u_{\tilde k}^{(i)}\|\Big]"
)
_NORM_STATE = (
    r"\mathbb{E}\Big[\tfrac1n\sum_i \mathbb{1}(\|u_{\tilde k}^{(i)}\|\le\hat C E)\,c\,"
    r"\tfrac{\hat C E}{\|u_{\tilde k}^{(i)}\|}(f_i(w_{\tilde k})-f_i(w^*))"
    r"+\mathbb{1}(\|u_{\tilde k}^{(i)}\|>\hat C E)\tfrac{3\hat C}{8LE}\|u_{\tilde k}^{(i)}\|\Big]"
)

THEOREMS: tuple[Theorem, ...] = (
    Theorem(
        id="das.thm2",
        paper=PAPER,
        label="Theorem 2",
        title="DP-FedAvg with clipping, convex: O(rho) mixture bound (abridged)",
        statement=_MIX_STATE + r"\le \hat C\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}+\tfrac{\gamma}{L}\big)\rho"
        r"+\tfrac{3E}{2\alpha}\mathbb{E}\big[\tfrac1n\sum_i\mathbb{1}(\|u_{\tilde k}^{(i)}\|\le\hat C E)"
        r"\Delta_i^*\big]\rho,"
        r"\ c=2-\tfrac{\rho E}{\alpha}-\tfrac{\rho^2E^2}{\alpha^2},\ \eta=\tfrac{\rho}{2\alpha L},"
        r"\ K=\tfrac{2\alpha\gamma}{\hat C E\rho^2},\ E\le\tfrac{\alpha}{2\rho}",
        algorithms=ALGO_CLIP,
        lhs="dp_clip_mixture",
        rhs=THM2_RHS,
        kind="explicit",
        probability="expectation",
        conditions=THM2_CONDS,
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "Chat", "rho", "gamma", "alpha", "R", "H_clip", "Dmax", "n", "r"),
        notes=(
            Note(
                "Eq. (15) in Sec. 5.1 re-prints (6) but drops Delta_i^* inside term B (it reads "
                "E[(1/n) sum_i 1(<=)(3E/(2 alpha))] rho).",
                "Use (6) as stated in Theorem 2 and Theorem 5 (the proof (50) gives Delta_i^*).",
                "typo",
            ),
            Note(
                "Coefficient: for E <= alpha/(2 rho), 2 - rho E/alpha - rho^2 E^2/alpha^2 >= 5/4; the specialisation "
                "from Theorem 5 uses (rho E/alpha)(1 + rho E/alpha) <= (3/2)(rho E/alpha).",
                "The rhs here is the relaxed (3E/(2 alpha)) form printed in (6).",
                "clarification",
            ),
            Note(
                "Sec. 5.3's thresholds C in {40, 50, 100} with E = 20 give C-hat in {2, 2.5, 5}, well below "
                "4 sqrt(L max Delta^*) (about 11-14 on the described data), so Figs. 1-3 lie outside Theorems 2/4.",
                "Claims check the C-hat condition on the instance's exact constants before comparing.",
                "clarification",
            ),
            THM2_CHOICE,
            MIXTURE,
            SAMPLING,
            NOISE,
            Q_CONST,
        ),
        equation="(6), Theorem 5 / App. B eq. (50)",
    ),
    Theorem(
        id="das.thm5",
        paper=PAPER,
        label="Theorem 5",
        title="DP-FedAvg with clipping, convex, general K (full version of Theorem 2)",
        statement=_MIX_STATE + r"\le \hat C\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}+\tfrac{\gamma}{L}\big)\rho"
        r"+\tfrac{2\gamma}{\hat CK\rho}\big(1+\tfrac{2\gamma}{\hat CK\rho}\big)"
        r"\mathbb{E}\big[\tfrac1n\sum_i\mathbb{1}(\|u_{\tilde k}^{(i)}\|\le\hat C E)\Delta_i^*\big],"
        r"\ c=2-\tfrac{2\gamma}{\hat CK\rho}-\tfrac{4\gamma^2}{\hat C^2K^2\rho^2},"
        r"\ \eta=\tfrac{\gamma}{\hat C LEK\rho},\ K>\tfrac{2\gamma}{\hat C E\rho}",
        algorithms=ALGO_CLIP,
        lhs="dp_clip_mixture",
        rhs=THM5_RHS,
        kind="explicit",
        probability="expectation",
        conditions=THM5_CONDS,
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "K", "Chat", "rho", "gamma", "R", "H_clip", "Dmax", "n", "r"),
        notes=(ANY_ETA, MIXTURE, SAMPLING, NOISE, Q_CONST),
        equation="Theorem 5, App. B eqs. (47)-(49)",
    ),
    Theorem(
        id="das.eq47",
        paper=PAPER,
        label="Eq. (47)",
        title="DP-FedAvg with clipping: telescoped bound for any eta <= 1/(2L)",
        statement=r"\tfrac1K\sum_{k<K}\mathbb{E}\Big[\tfrac1n\sum_i\mathbb{1}(\le)(2-2\eta LE-4\eta^2L^2E^2)"
        r"(f_i(w_k)-f_i(w^*))+\mathbb{1}(>)\tfrac{3\hat C\|u_k^{(i)}\|}{8LE}\Big]"
        r"\le\tfrac{\|w_0-w^*\|^2}{\eta EK}+\eta EK\hat C^2\rho^2"
        r"+\tfrac{2\eta LE(1+2\eta LE)}{K}\mathbb{E}\Big[\sum_{k<K}\tfrac1n\sum_i\mathbb{1}(\le)\Delta_i^*\Big]",
        algorithms=ALGO_CLIP,
        lhs="dp_clip_mixture",
        rhs=EQ47_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(eta, 1 / (2 * L)), CHAT_COND, FULL_COND),
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "K", "eta", "Chat", "rho", "R", "H_clip", "Dmax", "n", "r"),
        notes=(
            Note(
                "The noise term eta E K C-hat^2 rho^2 equals eta d sigma^2/E (d sigma^2 = K C^2 rho^2): at fixed eta "
                "it grows linearly in K because sigma^2 of eq. (5) grows with K.",
                "Substituting eta = gamma/(C-hat L E K rho) gives Theorem 5 exactly.",
                "clarification",
            ),
            MIXTURE,
            SAMPLING,
            NOISE,
        ),
        equation="(47), App. B",
    ),
    Theorem(
        id="das.eq46",
        paper=PAPER,
        label="Eq. (46)",
        title="DP-FedAvg with clipping: one-round expected drift of ||w_k - w^*||^2",
        statement=r"\mathbb{E}\|w_{k+1}-w^*\|^2\le\|w_k-w^*\|^2-\eta E\,M_k"
        r"+\eta E(2\eta LE+4\eta^2L^2E^2)\tfrac1n\sum_i\mathbb{1}(\|u_k^{(i)}\|\le\hat CE)\Delta_i^*"
        r"+\eta^2E^2\hat C^2K\rho^2",
        algorithms=ALGO_CLIP,
        lhs="distance_sq_next_round",
        rhs=EQ46_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(eta, 1 / (2 * L)), CHAT_COND, FULL_COND),
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "K", "eta", "Chat", "rho", "D_k", "M_k", "H_k", "Dmax", "n", "r"),
        notes=(
            Note(
                "Conditional expectation over the round's noise (and sampling) given w_k; the last term is "
                "eta^2 d sigma^2, the variance of the server noise times eta^2.",
                "Deterministic given the visited w_k: measure M_k and H_k at w_k.",
                "clarification",
            ),
            SAMPLING,
            NOISE,
        ),
        equation="(46), App. B (from (24) and (45))",
    ),
    Theorem(
        id="das.thm3",
        paper=PAPER,
        label="Theorem 3",
        title="DP-FedAvg with clipping: simplified O((C-hat R + E Dbar) rho) bound",
        statement=r"\mathbb{E}\Big[\tfrac1n\sum_i\min\big(f_i(w_{\tilde k})-f_i(w^*),"
        r"\mathcal{O}(\tfrac{\hat C}{L}\|\nabla f_i(w_{\tilde k})\|)\big)\Big]"
        r"\le\mathcal{O}\big(\hat C\|w_0-w^*\|+E\tfrac1n\sum_i\Delta_i^*\big)\rho",
        algorithms=ALGO_CLIP,
        lhs="dp_clip_min_mixture",
        rhs=THM3_RHS,
        kind="order",
        probability="expectation",
        conditions=THM2_CONDS,
        assumptions=(A0, A_CHAT, A_FULL, "gamma = O(L ||w_0 - w^*||), alpha = O(1)"),
        symbols=_symbols("L", "E", "Chat", "rho", "R", "Dbar", "alpha", "Dmax", "n", "r"),
        notes=(
            Note(
                "The statement has ||grad f_i(w_k~)|| inside the min while the proof's (51) has ||u_k~^(i)||/E; the "
                "link is (65) ||u||^2 >= (E^2/4)(1 - 2 eta^2 L^2 E^2)||grad f_i||^2 >= (7E^2/32)||grad f_i||^2, "
                "valid for eta L E <= 1/4 (true under E <= alpha/(2 rho)); (66) writes '>= O(.)' for Omega(.).",
                "Explicit constants are in das.thm3.explicit.",
                "clarification",
            ),
            SAMPLING,
        ),
        equation="(7), App. C eqs. (51), (65)-(66)",
    ),
    Theorem(
        id="das.thm3.explicit",
        paper=PAPER,
        label="Theorem 3 (explicit constants, App. C)",
        title="DP-FedAvg with clipping: min-form bound with the constants of App. C",
        statement=r"\mathbb{E}\Big[\tfrac1n\sum_i\min\big(c\,(f_i(w_{\tilde k})-f_i(w^*)),"
        r"\tfrac38\sqrt{\tfrac7{32}}\tfrac{\hat C}{L}\|\nabla f_i(w_{\tilde k})\|\big)\Big]"
        r"\le\hat C\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}+\tfrac{\gamma}{L}\big)\rho+\tfrac{3E}{2\alpha}\tfrac1n\sum_i"
        r"\Delta_i^*\rho,\ c=2-\tfrac{\rho E}{\alpha}-\tfrac{\rho^2E^2}{\alpha^2}",
        algorithms=ALGO_CLIP,
        lhs="dp_clip_min_mixture",
        rhs=THM3X_RHS,
        kind="explicit",
        probability="expectation",
        conditions=THM2_CONDS,
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "Chat", "rho", "gamma", "alpha", "R", "Dbar", "Dmax", "n", "r"),
        notes=(
            Note(
                "Assembled from App. C: min(c x, 3 C-hat||u||/(8LE)) <= the Theorem 2 mixture term, "
                "H_clip <= Dbar, and (65) 3 C-hat ||u||/(8LE) >= (3/8) sqrt(7/32) (C-hat/L)||grad f_i||.",
                "Constant (3/8) sqrt(7/32) = 0.17539; gamma, alpha as in Theorem 2 (gamma = L R, alpha = 1 gives "
                "(2 C-hat R + (3E/2) Dbar) rho).",
                "clarification",
            ),
            THM2_CHOICE,
            SAMPLING,
        ),
        equation="App. C (51), (65) with Theorem 2",
    ),
    Theorem(
        id="das.eq8",
        paper=PAPER,
        label="Eq. (8)",
        title="DP-FedAvg with clipping, G-Lipschitz case (C-hat = G): suboptimality bound",
        statement=r"\mathbb{E}f(w_{\tilde k})-f(w^*)\le\tfrac45\Big(G\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}"
        r"+\tfrac{\gamma}{L}\big)+\tfrac{3E}{2\alpha}\tfrac1n\sum_i\Delta_i^*\Big)\rho,\ \hat C=G",
        algorithms=ALGO_CLIP,
        lhs="objective_gap",
        rhs=EQ8_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Ge(alpha, 1), sp.Le(E, alpha / (2 * rho)), FULL_COND),
        assumptions=(A0, "each f_i G-Lipschitz, C-hat = G (no clipping)", A_FULL),
        symbols=_symbols("L", "E", "G", "rho", "gamma", "alpha", "R", "Dbar", "n", "r"),
        notes=(
            Note(
                "With C-hat = G no update is clipped (||u|| <= E G), so the mixture is coef*(E f(w_k~) - f^*) with "
                "coef >= 5/4; the C-hat >= 4 sqrt(L max Delta^*) condition is only used for clipped clients and is "
                "not needed.",
                "Quadratics are not globally Lipschitz: use G = max over the realised trajectory of max_i "
                "||grad f_i(w_k)|| and check that no clipping occurred.",
                "clarification",
            ),
            SAMPLING,
        ),
        equation="(8)",
    ),
    Theorem(
        id="das.prop1",
        paper=PAPER,
        label="Proposition 1",
        title="Under Assumption 1, C-hat = G(1 - 11(E-1) rho lambda^2/(64 L^2)) prevents clipping",
        statement=r"\|u_k^{(i)}\|\le GE\Big(1-\tfrac{11(E-1)\rho}{64}\tfrac{\lambda^2}{L^2}\Big)\ \forall k,i,"
        r"\ \eta=\tfrac{\rho}{2L},\ E\le\tfrac1{2\rho}",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="update_norm_max",
        rhs=PROP1_RHS,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(E, 1 / (2 * rho)), sp.Le(lam, L), sp.Lt(rho, 1)),
        assumptions=(A0, A1, "alpha = 1 in Theorem 2, so eta = rho/(2L)"),
        symbols=_symbols("G", "E", "rho", "lam", "L"),
        notes=(
            Note(
                "The proof's last line sets C-hat = (1 - 11(E-1) rho lambda^2/(64 L^2))/E, dropping G (from (76) "
                "B(E) <= G E (1 - ...)).",
                "C-hat = G(1 - ...) as in the statement; the bound on ||u|| is (76).",
                "typo",
            ),
            Note(
                "The proof only uses ||grad f_i(w_k)|| <= G at the round's start point and step (73), which needs "
                "rho <= 1; the step size is eta = rho/(2L) exactly (Assumption 1(i) is stated for eta <= rho/(2L)).",
                "For quadratics lambda = min_i smallest nonzero eigenvalue of Q_i and G = trajectory-wise max_i "
                "||grad f_i(w_k)||.",
                "clarification",
            ),
        ),
        equation="Proposition 1, App. D (75)-(76)",
    ),
    Theorem(
        id="das.eq11",
        paper=PAPER,
        label="Eq. (11)",
        title="Proposition 1 plugged into Theorem 2 (gamma = L R, alpha = 1): the E trade-off",
        statement=r"\mathbb{E}f(w_{\tilde k})-f(w^*)\le\Big(2G\|w_0-w^*\|+\tfrac{6E}{5}\Big\{\tfrac1n\sum_i\Delta_i^*"
        r"-\tfrac{11G\|w_0-w^*\|\rho}{48}\tfrac{\lambda^2}{L^2}\Big\}\Big)\rho",
        algorithms=ALGO_CLIP,
        lhs="objective_gap",
        rhs=EQ11_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(E, 1 / (2 * rho)), sp.Le(lam, L), sp.Lt(rho, 1), FULL_COND),
        assumptions=(A0, A1, A_FULL, "gamma = L ||w_0 - w^*||, alpha = 1"),
        symbols=_symbols("G", "E", "rho", "lam", "L", "R", "Dbar", "n", "r"),
        notes=(
            Note(
                "The exact plug-in of Proposition 1 into Theorem 2 (no clipping, coefficient >= 5/4) gives "
                "(8/5 + 11 rho lambda^2/(40 L^2)) G R + (6E/5) Dbar - 11 E G R rho lambda^2/(40 L^2), times rho; "
                "(11) exceeds it by G R rho (16 L^2 - 11 lambda^2 rho)/(40 L^2) >= 0.",
                "(11) is a valid, slightly looser bound; the claim that large E helps is about the bound, not about "
                "the measured suboptimality.",
                "clarification",
            ),
            SAMPLING,
        ),
        equation="(11)",
    ),
    Theorem(
        id="das.thm4",
        paper=PAPER,
        label="Theorem 4",
        title="DP-NormFedAvg, convex: mixture bound (abridged)",
        statement=_NORM_STATE + r"\le \hat C\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}+\tfrac{\gamma}{L}\big)\rho"
        r"+\mathbb{E}\Big[\tfrac1n\sum_i\mathbb{1}(\le)\Big\{\tfrac{\hat C^2}{2\alpha L}"
        r"+\tfrac{\hat CE}{\|u_{\tilde k}^{(i)}\|}\tfrac{\Delta_i^*\rho E}{\alpha^2}\Big\}E\Big]\rho,"
        r"\ c=2-\tfrac{\rho^2E^2}{\alpha^2}",
        algorithms=ALGO_NORM,
        lhs="dp_norm_mixture",
        rhs=THM4_RHS,
        kind="explicit",
        probability="expectation",
        conditions=THM2_CONDS,
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "Chat", "rho", "gamma", "alpha", "R", "P_unc", "H_norm", "Dmax", "n", "r"),
        notes=(
            Note(
                "The term C-hat^2 E rho P_unc/(2 alpha L) comes from Case 2 paying eta^2 C^2 whatever ||u|| is; it is "
                "present even with Delta^* = 0 (a normalisation bias vanishing only as alpha -> infinity).",
                "Keep it; eq. (16) re-prints (14) and (17) rewrites B2 with C-hat = c sqrt(L max Delta^*).",
                "clarification",
            ),
            THM2_CHOICE,
            MIXTURE,
            SAMPLING,
            NOISE,
            Q_CONST,
        ),
        equation="(14), Theorem 6 / App. E eq. (84)",
    ),
    Theorem(
        id="das.thm6",
        paper=PAPER,
        label="Theorem 6",
        title="DP-NormFedAvg, convex, general K (full version of Theorem 4)",
        statement=_NORM_STATE + r"\le \hat C\big(\tfrac{L\|w_0-w^*\|^2}{\gamma}+\tfrac{\gamma}{L}\big)\rho"
        r"+\mathbb{E}\Big[\tfrac1n\sum_i\mathbb{1}(\le)\Big\{\tfrac{\gamma\hat C}{LK\rho}"
        r"+\tfrac{\hat CE}{\|u_{\tilde k}^{(i)}\|}\tfrac{4\gamma^2\Delta_i^*}{\hat C^2K^2\rho^2}\Big\}\Big],"
        r"\ c=2-\tfrac{4\gamma^2}{\hat C^2K^2\rho^2},\ \eta=\tfrac{\gamma}{\hat CLEK\rho},"
        r"\ K>\tfrac{2\gamma}{\hat CE\rho}",
        algorithms=ALGO_NORM,
        lhs="dp_norm_mixture",
        rhs=THM6_RHS,
        kind="explicit",
        probability="expectation",
        conditions=THM5_CONDS,
        assumptions=(A0, A_CHAT, A_FULL),
        symbols=_symbols("L", "E", "K", "Chat", "rho", "gamma", "R", "P_unc", "H_norm", "Dmax", "n", "r"),
        notes=(
            Note(
                "The proof says K > 2 gamma/(C-hat E rho) holds 'so that eta L E <= 1/2'; it only gives eta L < 1/2 "
                "(which is what (78) and (83) need). Its final step sets K = (2 gamma/(C-hat E))(1/rho)^2, dropping "
                "alpha.",
                "Statement unchanged: condition K > 2 gamma/(C-hat E rho) (eta L < 1/2); the specialisation uses "
                "K = 2 alpha gamma/(C-hat E rho^2) as in the statement.",
                "typo",
            ),
            ANY_ETA,
            MIXTURE,
            SAMPLING,
            NOISE,
            Q_CONST,
        ),
        equation="Theorem 6, App. E eqs. (77)-(84)",
    ),
    Theorem(
        id="das.lem1",
        paper=PAPER,
        label="Lemma 1",
        title="Local GD: distance to w^* after E steps",
        statement=r"\|w_{k,E}^{(i)}-w^*\|^2\le\|w_k-w^*\|^2-\tfrac{\eta_k}{2L}\sum_{\tau<E}"
        r"\|\nabla f_i(w_{k,\tau}^{(i)})\|^2+2\eta_kE\Delta_i^*,\ \eta_k\le\tfrac1{2L}",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="local_distance_sq",
        rhs=D_k - eta / (2 * L) * SG + 2 * eta * E * Delta_i,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(eta, 1 / (2 * L)),),
        assumptions=(A0,),
        symbols=_symbols("D_k", "eta", "L", "SG", "E", "Delta_i"),
        equation="Lemma 1, App. F",
    ),
    Theorem(
        id="das.lem2",
        paper=PAPER,
        label="Lemma 2",
        title="Local GD: drift from the round's start point",
        statement=r"\|w_k-w_{k,\tau}^{(i)}\|^2\le2\eta_k^2L\tau^2(f_i(w_k)-f_i^*)\ \forall\tau\ge1,\ \eta_k\le\tfrac1L",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="local_drift_sq",
        rhs=2 * eta**2 * L * tau**2 * gap_i,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(eta, 1 / L), sp.Ge(tau, 1)),
        assumptions=("each f_i L-smooth with finite min f_i",),
        symbols=_symbols("eta", "L", "tau", "gap_i"),
        equation="Lemma 2, App. F (95)",
    ),
    Theorem(
        id="das.lem2.update",
        paper=PAPER,
        label="Lemma 2 (update norm)",
        title="Client update norm: ||u_k^(i)||^2 <= 2 L E^2 (f_i(w_k) - f_i^*)",
        statement=r"\|u_k^{(i)}\|^2\le2LE^2(f_i(w_k)-f_i^*),\ \eta_k\le\tfrac1L",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="update_norm_sq",
        rhs=2 * L * E**2 * gap_i,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(eta, 1 / L),),
        assumptions=("each f_i L-smooth with finite min f_i",),
        symbols=_symbols("eta", "L", "E", "gap_i"),
        notes=(
            Note(
                "Second statement of Lemma 2: tau = E in the drift bound divided by eta^2, since u = (w_k - "
                "w_{k,E})/eta.",
                "",
                "clarification",
            ),
        ),
        equation="Lemma 2, App. F",
    ),
    Theorem(
        id="das.lem3",
        paper=PAPER,
        label="Lemma 3",
        title="Local GD: gradient norms do not increase",
        statement=r"\|\nabla f_i(w_{k,\tau+1}^{(i)})\|^2\le\|\nabla f_i(w_{k,\tau}^{(i)})\|^2"
        r"-\big(\tfrac2{\eta_kL}-1\big)"
        r"\|\nabla f_i(w_{k,\tau+1}^{(i)})-\nabla f_i(w_{k,\tau}^{(i)})\|^2",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="local_grad_norm_sq_next",
        rhs=g2 - (2 / (eta * L) - 1) * dg2,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(dg2, eta**2 * L**2 * g2),),
        assumptions=(A0,),
        symbols=_symbols("g2", "eta", "L", "dg2"),
        notes=(
            Note(
                "Lemma 3 assumes only L-smoothness, but its proof uses co-coercivity (96), "
                "<grad f(x) - grad f(y), x - y> >= ||grad f(x) - grad f(y)||^2/L, which needs convexity; the lemma is "
                "false without it (f(x) = -L x^2/2 is L-smooth and one GD step multiplies ||grad f||^2 by "
                "(1 + eta L)^2, above the claimed (1 - eta L)^2).",
                "fedrates states the lemma under A0 (convex and L-smooth), the setting of every theorem that uses "
                "it; the right-hand side is unchanged.",
                "erratum",
                erratum=Erratum(
                    kind='statement-false',
                    where='Lemma 3',
                    quote='for L-smooth f, ||grad f|| does not increase along a GD step with eta L <= 1/2',
                    true_statement=(
                        'the proof uses co-coercivity (96), which needs convexity; the lemma holds for convex L-smooth'
                        ' f, the setting of every theorem that uses it'
                    ),
                    evidence=(
                        'f(x) = -L x^2/2 is L-smooth and one GD step multiplies ||grad f||^2 by (1 + eta L)^2 (PEP '
                        'worst slack 2 at eta L = 1/2: fedrates falsify das.lem3)'
                    ),
                ),
            ),
            Note(
                "The inputs are tied by L-smoothness: ||grad f_i(w_{tau+1}) - grad f_i(w_tau)|| <= L eta "
                "||grad f_i(w_tau)||, i.e. dg2 <= eta^2 L^2 g2, under which the right-hand side is >= "
                "(1 - eta L)^2 g2 >= 0.",
                "Recorded as the condition dg2 <= eta^2 L^2 g2 (always true on a correct run; it rejects "
                "inconsistent inputs).",
                "clarification",
            ),
        ),
        equation="Lemma 3, App. F (96)-(100)",
    ),
    Theorem(
        id="das.lem4",
        paper=PAPER,
        label="Lemma 4",
        title="Local GD: linear drift bound for eta <= 1/(2LE)",
        statement=r"\|w_k-w_{k,\tau}^{(i)}\|\le2\eta_k\tau\|\nabla f_i(w_k)\|\ \forall\tau\ge1,\ \eta_k\le\tfrac1{2LE}",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="local_drift",
        rhs=2 * eta * tau * g0,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Le(eta, 1 / (2 * L * E)), sp.Ge(tau, 1), sp.Le(tau, E)),
        assumptions=("each f_i L-smooth",),
        symbols=_symbols("eta", "tau", "g0", "L", "E"),
        notes=(
            Note(
                "The induction uses eta L tau <= eta L E <= 1/2, so it covers the local steps 1 <= tau <= E of a "
                "round.",
                "Condition tau <= E made explicit.",
                "clarification",
            ),
        ),
        equation="Lemma 4, App. F (101)-(103)",
    ),
)

THM1_RATIO = sigma * n * eps / (C * sp.sqrt(q * K * sp.log(1 / delta)))

THEOREMS = THEOREMS + (
    Theorem(
        id="das.thm1",
        paper=PAPER,
        label="Theorem 1",
        title="Privacy of Algorithms 1/2: (eps, delta)-DP with sigma^2 = q K C^2 log(1/delta)/(n^2 eps^2)",
        statement=r"\text{Algorithm 1 (and 2) is }(\epsilon,\delta)\text{-DP for }0<\epsilon<\mathcal{O}"
        r"(r^2K/n^2)\text{ when }\sigma^2=\frac{qKC^2\log(1/\delta)}{n^2\epsilon^2};\ "
        r"\text{rhs}=\sigma n\epsilon/(C\sqrt{qK\log(1/\delta)})\ge1",
        algorithms=ALGO_CLIP + ALGO_NORM,
        lhs="required_noise_ratio_one",
        rhs=THM1_RATIO,
        kind="explicit",
        probability="deterministic",
        conditions=(sp.Lt(delta, 1),),
        assumptions=("moments accountant [Abadi et al. 2016, Thm 1] with sampling ratio r/n and K steps",
                     "L2 sensitivity of one client's message: C (clip: ||g|| <= C; norm: ||g|| = C)"),
        symbols=_symbols("sigma", "n", "eps", "C", "q", "K", "delta"),
        notes=(
            Note(
                "Eq. (5) is an equality defining sigma; the guarantee holds for any larger sigma, so the catalogue "
                "states it as the ratio sigma/sigma_(5) = sigma n eps/(C sqrt(q K log(1/delta))), which must be "
                ">= 1 (solve rhs = 1 for sigma to calibrate: fedrates explore das.thm1 --set ... --solve sigma "
                "--target 1). The range condition 0 < eps < O(r^2 K/n^2) hides its constant and is not checked.",
                "Numerically: fedrates.solvers.constants.dp_sigma(eps, delta, q, K, C, n).",
                "clarification",
            ),
            Note(
                "q-free identity: with rho of eq. (3), d sigma^2 = K C^2 rho^2 exactly, so every bound's noise term "
                "eta E K C-hat^2 rho^2 equals eta d sigma^2/E for the sigma actually simulated.",
                "Claims use rho = sqrt(d) sigma/(C sqrt(K)) (fedrates.solvers.constants.dp_rho_effective).",
                "clarification",
            ),
            Q_CONST,
            NOISE,
        ),
        equation="Theorem 1, eq. (5) (from Abadi et al. 2016, Theorem 1)",
    ),
)
