"""Seed paper 004 (id ``buttaci``): Buttaci & Calafiore, "Aiding Global Convergence in Federated Learning via Local
Perturbation and Mutual Similarity Information".

Setting (paper's letters): C clients, f = sum_i p_i f_i with p_i the normalised degree of the similarity graph
("Adjacency scheme"), every f_i L-smooth (and mu-strongly convex for the convex results), full participation,
T rounds of E local stochastic-gradient steps with step gamma; w-bar_{t,k} = sum_i p_i w_{t,k}^i is the (virtual)
average iterate, w-bar_{t,0} the server model.

* FedProx (``fedprox``; ``fedavg`` is alpha = 0), App. A: w_{t,k+1}^i = (1 - alpha gamma) w_{t,k}^i
  + alpha gamma w-bar_{t,0} - gamma g_i(w_{t,k}^i)  (10)-(12).
* PFL(beta) (``pfl``, Algorithm 1), App. B: w~_{t,k}^i = beta w_{t,k}^i + (1 - beta) u_t^i with
  u_t^i = (1/p_i) sum_n p_in w_{t-1,E}^n, then w_{t,k+1}^i = w_{t,k}^i - gamma g_i(w~_{t,k}^i)  (4)-(5).

Constants: Delta = f(w-bar_{0,0}) - f_* (strongly convex) or - f_inf (nonconvex), S = sum_i p_i^2,
Gamma = f_* - sum_i p_i f_i(w_*^i) (Def. 3), L_alpha = alpha + L, A_beta = 4 + (1 - beta)^2 + 8(1 - 1/beta)^2.
The nonconvex theorems speak about w^_T drawn uniformly from the virtual averages {w-bar_{t,k}}, so their left side
is the average of E||grad f(w-bar_{t,k})||^2 over 0 <= t < T, 0 <= k < E (``grad_norm_sq_avg``).
"""

from __future__ import annotations

import sympy as sp

from fedrates.bounds import buttaci_errata
from fedrates.bounds.symbols import sym
from fedrates.bounds.theorem import Note, Theorem

__all__ = ["THEOREMS"]

PAPER = "buttaci"

# --- symbols (paper's letters) -------------------------------------------------------------------------------------
L, mu, alpha, beta, gamma = sym("L"), sym("mu"), sym("alpha"), sym("beta"), sym("gamma")
gamma_prev, ind = sym("gamma_prev"), sym("ind")
E, T, t, eps = sym("E"), sym("T"), sym("t"), sym("eps")
sigma, G, Gamma, S, Delta = sym("sigma"), sym("G"), sym("Gamma"), sym("S"), sym("Delta")
D, Fdrop = sym("D"), sym("Fdrop")

MEANING = {
    "L": "smoothness constant of every f_i (max over clients, Assumption 4)",
    "mu": "strong-convexity constant of every f_i (min over clients, Assumption 5)",
    "alpha": "FedProx proximal parameter (alpha = 0 is FedAvg)",
    "beta": "PFL perturbation parameter beta in (0, 1) (beta = 1 is FedAvg)",
    "gamma": "local step size gamma_t of the round",
    "gamma_prev": "step size gamma_{t-1} of the previous round",
    "ind": "indicator 1(t >= 1) (0 in the first round, 1 afterwards)",
    "E": "local_steps",
    "T": "rounds",
    "t": "rounds",
    "eps": "target accuracy on E||grad f(w^_T)||^2",
    "sigma": "stochastic-gradient noise level: E||g_i - grad f_i||^2 <= sigma^2 (Assumption 2)",
    "G": "bound on E||g_i||^2 <= G^2 at the visited (for PFL: perturbed) points (Assumption 3)",
    "Gamma": "heterogeneity Gamma = f_* - sum_i p_i f_i(w_*^i) (Definition 3)",
    "S": "sum of squared aggregation weights S = sum_i p_i^2",
    "Delta": "initial gap f(w-bar_{0,0}) - f_* (strongly convex) or f(w-bar_{0,0}) - f_inf (nonconvex)",
    "D": "E||w-bar_{t,0} - w_*||^2 at the start of the round",
    "Fdrop": "E[f(w-bar_{t,0}) - f(w-bar_{t+1,0})], the round's decrease of the global objective",
}

FEDPROX = ("fedprox", "fedavg")
PFL = ("pfl",)

AS_FULL = "Assumption 1: full participation"
AS_VAR = "Assumption 2: unbiased stochastic gradients, variance <= sigma^2"
AS_G = "Assumption 3: E||g_i||^2 <= G^2"
AS_SMOOTH = "Assumption 4: each f_i L-smooth"
AS_SC = "Assumption 5: each f_i mu-strongly convex"
AS_LB = "Assumption 6: f >= f_inf"
AS_GRAPH = "Adjacency scheme: symmetric p_in, p_i = sum_n p_in used as aggregation weights (Lemma 1)"
AS_14 = (AS_FULL, AS_VAR, AS_G, AS_SMOOTH)

L_alpha = alpha + L
A_beta = 4 + (1 - beta) ** 2 + 8 * (1 - 1 / beta) ** 2


def _symbols(*names: str) -> dict[str, str]:
    return {name: MEANING[name] for name in names}


# --- notes shared by several results --------------------------------------------------------------------------------
G_POSTERIORI = Note(
    "Assumption 3 (bounded E||g_i||^2) cannot hold on all of R^D for strongly convex or quadratic f_i; the proofs "
    "only use it at the points the algorithm visits (for PFL at the perturbed points w~, over rounds t-1 and t).",
    "Claims measure G^2 a posteriori as the max over visited (t, k, i) of E||g_i||^2 (||grad f_i||^2 + sigma^2 "
    "with additive noise).",
    "clarification",
)
EXTREME_CONSTANTS = Note(
    "L and mu are per-client extremes (every f_i is L-smooth and mu-strongly convex), not the constants of f; "
    "w_*, f_*, Gamma and S use the degree weights p_i of the similarity graph.",
    "Constants are computed on the instance with the same weights the algorithm aggregates with.",
    "clarification",
)
M1_SETUP = Note(
    "Lemma 1 (sum_i p_i w~_{t,k}^i = beta w-bar_{t,k} + (1 - beta) w-bar_{t,0}), on which every PFL result rests, "
    "needs simultaneously full participation, symmetric p_in and aggregation weights p_i = sum_n p_in; the "
    "partial-participation branch of Algorithm 1 is undefined.",
    "PFL results are catalogued for full participation with Adjacency weights only.",
    "clarification",
)
FEDAVG_ALPHA0 = Note(
    "The FedProx results are stated for alpha > 0, while Sec. 5 reads FedAvg off them at alpha = 0; the proofs "
    "remain valid at alpha = 0 (the step conditions gamma <= 1/alpha become void).",
    "fedavg is catalogued as the alpha = 0 case.",
    "clarification",
)
SPEEDUP_ERRATUM = buttaci_errata.SPEEDUP_ERRATUM
SPEEDUP = Note(
    "Eq. (9)'s ordering (1 - mu/((beta+2)L))^t <= (1 - mu/(3L))^t <= (1 - mu/(3(alpha+L)))^t compares the "
    "factors of the upper bounds (8) and (7), and is true; Sec. 1, 6.1 and 7 read it as faster contraction of the "
    "method. PFL's first-order gain mu(1-beta)/(3(beta+2)L) comes from the final relaxation beta mu + 2L <= "
    "(beta+2)L after (191) (FedAvg: 2L + mu <= 3L after (57)); the factors Lemmas A3/B3 prove at the theorem step "
    "sizes differ only at second order in mu/L and coincide for E = 1.",
    "Rates are predicted by the lemma factors (buttaci.lemA3.kappa, buttaci.lemB3.kappa) and the exact round maps; "
    "the theorem-level ratio 3/(beta+2) is a statement about bounds, not a prediction of measured rates.",
    "erratum",
    erratum=SPEEDUP_ERRATUM,
)
#: on the theorems whose factors eq. (9) compares: a pointer to the over-claim catalogued on buttaci.eq9
SPEEDUP_POINTER = Note(
    "The contraction factor here is the one eq. (9) compares; reading that comparison of bound factors as a "
    "comparison of rates is the over-claim catalogued on buttaci.eq9 (the first-order gap comes from the relaxation "
    "mu <= L; the lemma factors differ only at second order in mu/L).",
    "Rates are predicted by the lemma factors and the exact round maps, not by the theorem-level factor.",
    "clarification",
)
BETA1 = Note(
    "At beta = 1 PFL is FedAvg, but the bounds do not reduce to the FedProx ones at alpha = 0: A_beta(1) = 4 gives "
    "8 E^2 G^2/mu against 2 E^2 G^2/mu (Theorem 3 vs 1) and the 1/sqrt(T) constants differ by 2 (Theorem 4 vs 2).",
    "Compare trajectories, not bounds, at beta = 1.",
    "clarification",
)

# --- right-hand sides ----------------------------------------------------------------------------------------------
KAPPA_A3 = (alpha + mu * (1 - gamma * (alpha + mu)) ** E) / (alpha + mu)  # (24)
ADD_A3 = gamma**2 * E * sigma**2 * S + 6 * gamma**2 * L * E * Gamma + 8 * gamma**2 * E**3 * G**2  # (25)
KAPPA_B3 = 1 - 1 / beta + (1 / beta) * (1 - beta * mu * gamma) ** E  # (123)
ADD_B3 = (
    8
    * gamma**2
    * E**3
    * G**2
    * (4 + (1 - beta) ** 2 + ind * 8 * gamma_prev**2 * (1 - beta) ** 2 / (gamma**2 * beta**2))
    + mu * gamma**3 * beta * (1 - beta) * E**3 * G**2
    + gamma**2 * E * S * sigma**2
    + 6 * gamma**2 * L * E * Gamma
)
ADD_A4 = (
    2 * gamma * L * sigma**2 * S
    + 2 * gamma * alpha * E**2 * G**2
    + 8 * gamma**2 * L**2 * E**2 * G**2
    + gamma**3 * alpha**2 * L * E**2 * G**2 / 2
)  # (59)
ADD_B4 = gamma * L * sigma**2 * S + 4 * gamma**2 * L**2 * E**2 * G**2 * (
    4 + (1 - beta) ** 2 + ind * 8 * gamma_prev**2 / gamma**2 * (1 - 1 / beta) ** 2
)  # (192)

THM1_RHS = L * Delta / mu * (1 - mu / (3 * (L + alpha))) ** t + (L / L_alpha) * (
    S * sigma**2 / (4 * mu) + 3 * L * Gamma / (2 * mu) + 2 * E**2 * G**2 / mu
)  # (7)
THM2_RHS = (
    (
        8 * L_alpha * Delta / sp.sqrt(E)
        + L * S * sigma**2 / (L_alpha * sp.sqrt(E))
        + alpha * E ** sp.Rational(3, 2) * G**2 / L_alpha
    )
    / sp.sqrt(T)
    + 2 * L**2 * E * G**2 / (L_alpha**2 * T)
    + alpha**2 * L * sp.sqrt(E) * G**2 / (16 * L_alpha**3 * T ** sp.Rational(3, 2))
)
THM3_RHS = (
    L * Delta / mu * (1 - mu / ((beta + 2) * L)) ** t
    + S * sigma**2 / (4 * mu)
    + 3 * L * Gamma / (2 * mu)
    + 2 * A_beta * E**2 * G**2 / mu
    + beta * (1 - beta) * E * G**2 / (8 * L)
)  # (8)
THM4_RHS = (4 * L * Delta / sp.sqrt(E) + S * sigma**2 / (2 * sp.sqrt(E))) / sp.sqrt(T) + E * G**2 / T * A_beta
COR1_A = 4 * L * Delta + S * sigma**2 / 2  # (211)
COR1_B = G**2 * A_beta
COR1_RHS = (
    3 * 2 ** sp.Rational(-2, 3) * COR1_A ** sp.Rational(2, 3) * COR1_B ** sp.Rational(1, 3) * T ** sp.Rational(-2, 3)
)
TEPS_PROX = (
    64 * L_alpha**2 * Delta**2 / (E * eps**2)
    + L**2 * S**2 * sigma**4 / (L_alpha**2 * E * eps**2)
    + alpha**2 * E**3 * G**4 / (L_alpha**2 * eps**2)
    + 2 * L**2 * E * G**2 / (L_alpha**2 * eps)
    + alpha ** sp.Rational(4, 3)
    * L ** sp.Rational(2, 3)
    * E ** sp.Rational(1, 3)
    * G ** sp.Rational(4, 3)
    / (16 ** sp.Rational(2, 3) * L_alpha**2 * eps ** sp.Rational(2, 3))
)
TEPS_PFL = 16 * L**2 * Delta**2 / (E * eps**2) + S**2 * sigma**4 / (4 * E * eps**2) + E * G**2 / eps * A_beta

A3_CONDS = (sp.Le(gamma, 1 / (2 * L)), sp.Le(gamma, 1 / (alpha + mu)), sp.Le(mu, L))
B3_CONDS = (sp.Le(gamma, 1 / (2 * L)), sp.Le(gamma, 1 / (beta * mu)), sp.Lt(beta, 1), sp.Le(mu, L))

_A3_TEX = r"\kappa=\tfrac{\alpha+\mu(1-\gamma(\alpha+\mu))^E}{\alpha+\mu}"
_B3_TEX = r"\kappa=1-\tfrac1\beta+\tfrac1\beta(1-\beta\mu\gamma)^E"

THEOREMS: tuple[Theorem, ...] = (
    Theorem(
        id="buttaci.lemA1",
        paper=PAPER,
        label="Lemma A.1",
        title="FedProx: single-round local deviation from the server model",
        statement=r"\mathbb{E}\|w_{t,k}^i-\bar w_{t,0}\|^2\le\gamma_t^2E^2G^2,\ \gamma_t\le1/\alpha",
        algorithms=FEDPROX,
        lhs="local_deviation_sq",
        rhs=gamma**2 * E**2 * G**2,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(gamma, 1 / alpha),),
        assumptions=AS_14,
        symbols=_symbols("gamma", "E", "G", "alpha"),
        notes=(G_POSTERIORI,),
        equation="(13), App. A Lemma 1",
    ),
    Theorem(
        id="buttaci.lemA2",
        paper=PAPER,
        label="Lemma A.2",
        title="FedProx: single-round divergence between a client and the average",
        statement=r"\mathbb{E}\|\bar w_{t,k}-w_{t,k}^i\|^2\le4\gamma_t^2E^2G^2,\ \gamma_t\le1/\alpha",
        algorithms=FEDPROX,
        lhs="local_divergence_sq",
        rhs=4 * gamma**2 * E**2 * G**2,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(gamma, 1 / alpha),),
        assumptions=AS_14,
        symbols=_symbols("gamma", "E", "G", "alpha"),
        notes=(G_POSTERIORI,),
        equation="(17), App. A Lemma 2",
    ),
    Theorem(
        id="buttaci.lemA3",
        paper=PAPER,
        label="Lemma A.3",
        title="FedProx, strongly convex: one-round recursion D_{t+1} <= kappa D_t + A",
        statement=r"\mathbb{E}\|\bar w_{t+1,0}-w_\star\|^2\le\kappa\,\mathbb{E}\|\bar w_{t,0}-w_\star\|^2+A,\ "
        + _A3_TEX
        + r"\le1-\gamma_t\mu,\ A=\gamma_t^2E\sigma^2S+6\gamma_t^2LE\Gamma+8\gamma_t^2E^3G^2,"
        r"\ \gamma_t\le\min\{\tfrac1{2L},\tfrac1{\alpha+\mu}\}",
        algorithms=FEDPROX,
        lhs="distance_sq_next_round",
        rhs=KAPPA_A3 * D + ADD_A3,
        kind="explicit",
        probability="expectation",
        conditions=A3_CONDS,
        assumptions=(*AS_14, AS_SC),
        symbols=_symbols("alpha", "mu", "gamma", "E", "D", "sigma", "S", "L", "Gamma", "G"),
        notes=(
            Note(
                "A per-round contraction with an additive term, so kind 'explicit' with the full right-hand side; "
                "the factor alone is buttaci.lemA3.kappa.",
                "",
                "clarification",
            ),
            Note(
                "The proof writes gamma^2 sigma^2/C once in the per-step constant; the statement's "
                "gamma^2 E sigma^2 sum_i p_i^2 (= S) is what the derivation gives.",
                "Statement unchanged (S).",
                "typo",
            ),
            G_POSTERIORI,
            EXTREME_CONSTANTS,
            FEDAVG_ALPHA0,
        ),
        equation="(24)-(25), App. A Lemma 3",
    ),
    Theorem(
        id="buttaci.lemA3.kappa",
        paper=PAPER,
        label="Lemma A.3 (contraction factor)",
        title="FedProx, strongly convex: exact per-round contraction factor of Lemma A.3",
        statement=_A3_TEX + r"\le1-\gamma\mu",
        algorithms=FEDPROX,
        lhs="contraction_factor",
        rhs=KAPPA_A3,
        kind="contraction",
        probability="expectation",
        conditions=A3_CONDS,
        assumptions=(*AS_14, AS_SC),
        symbols=_symbols("alpha", "mu", "gamma", "E", "L"),
        notes=(
            Note(
                "The lemma proves E||w-bar_{t+1,0} - w_*||^2 <= kappa E||w-bar_{t,0} - w_*||^2 + A; kappa alone "
                "bounds the per-round ratio only where A is negligible. On deterministic quadratics with a common "
                "Hessian H the average obeys e_{t+1} = psi(H) e_t with psi(lambda) = [alpha + lambda(1 - gamma(alpha "
                "+ lambda))^E]/(alpha + lambda), decreasing in lambda and >= 0, so ||e_{t+1}|| <= kappa ||e_t|| with "
                "equality along the mu-eigenvector (kappa is then the exact rate of ||e_t||, and kappa^2 that of "
                "||e_t||^2).",
                "Use as the predicted per-round factor of the distance in that regime; elsewhere use buttaci.lemA3.",
                "clarification",
            ),
            SPEEDUP_POINTER,
            FEDAVG_ALPHA0,
        ),
        equation="(24), App. A Lemma 3",
    ),
    Theorem(
        id="buttaci.thm1",
        paper=PAPER,
        label="Theorem 1",
        title="FedProx, strongly convex: linear rate to a floor",
        statement=r"\mathbb{E}f(\bar w_{t,0})-f_\star\le\tfrac{L\Delta}{\mu}\Big[1-\tfrac{\mu}{3(L+\alpha)}\Big]^t"
        r"+\tfrac{L}{L_\alpha}\Big[\tfrac{S\sigma^2}{4\mu}+\tfrac{3L\Gamma}{2\mu}+\tfrac{2E^2G^2}{\mu}\Big],"
        r"\ \gamma=[2EL_\alpha]^{-1}",
        algorithms=FEDPROX,
        lhs="objective_gap",
        rhs=THM1_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(mu, L),),
        assumptions=(*AS_14, AS_SC),
        symbols=_symbols("L", "Delta", "mu", "alpha", "t", "S", "sigma", "Gamma", "E", "G"),
        notes=(
            Note(
                "Derived from Lemma A.3 with gamma = 1/(2 E L_alpha): f - f_* <= (L/2) D_t, D_0 <= 2 Delta/mu, "
                "1/(1 - kappa) <= 1/(gamma mu), and kappa <= 1 - mu/(3 alpha + 2L + mu) <= 1 - mu/(3(alpha + L)) "
                "(chain (54)-(57)).",
                "The additive floor is L A/(2 gamma mu) of Lemma A.3 exactly.",
                "clarification",
            ),
            G_POSTERIORI,
            EXTREME_CONSTANTS,
            FEDAVG_ALPHA0,
            SPEEDUP_POINTER,
        ),
        equation="(7), App. A (54)-(57)",
    ),
    Theorem(
        id="buttaci.lemA4",
        paper=PAPER,
        label="Lemma A.4",
        title="FedProx, nonconvex: single-round progress",
        statement=r"\tfrac1E\sum_{k<E}\mathbb{E}\|\nabla f(\bar w_{t,k})\|^2\le\tfrac4{\gamma_tE}"
        r"\mathbb{E}[f(\bar w_{t,0})-f(\bar w_{t+1,0})]+2\gamma_tL\sigma^2S+2\gamma_t\alpha E^2G^2+8\gamma_t^2L^2E^2G^2"
        r"+\tfrac{\gamma_t^3\alpha^2LE^2G^2}{2},\ \gamma_t\le\min\{\tfrac1L,\tfrac1{2\alpha}\}",
        algorithms=FEDPROX,
        lhs="grad_norm_sq_round_avg",
        rhs=4 / (gamma * E) * Fdrop + ADD_A4,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(gamma, 1 / L), sp.Le(gamma, 1 / (2 * alpha))),
        assumptions=(*AS_14, AS_LB),
        symbols=_symbols("gamma", "E", "Fdrop", "L", "sigma", "S", "alpha", "G"),
        notes=(
            Note(
                "The proof writes '-gamma(1 - alpha gamma) <= -1/2' for -gamma(1 - alpha gamma)/2 <= -gamma/4 "
                "(using alpha gamma <= 1/2).",
                "Statement unchanged.",
                "typo",
            ),
            G_POSTERIORI,
            FEDAVG_ALPHA0,
        ),
        equation="(58)-(59), App. A Lemma 4",
    ),
    Theorem(
        id="buttaci.thm2",
        paper=PAPER,
        label="Theorem 2",
        title="FedProx, nonconvex: O(1/sqrt(T)) stationarity",
        statement=r"\mathbb{E}\|\nabla f(\hat w_T)\|^2\le\tfrac1{\sqrt T}\Big[\tfrac{8L_\alpha\Delta}{\sqrt E}"
        r"+\tfrac{LS\sigma^2}{L_\alpha\sqrt E}+\tfrac{\alpha E^{3/2}G^2}{L_\alpha}\Big]+\tfrac{2L^2EG^2}{L_\alpha^2T}"
        r"+\tfrac{\alpha^2L\sqrt EG^2}{16L_\alpha^3T^{3/2}},\ \gamma=[2L_\alpha\sqrt{TE}]^{-1}",
        algorithms=FEDPROX,
        lhs="grad_norm_sq_avg",
        rhs=THM2_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Ge(T, 1),),
        assumptions=(*AS_14, AS_LB),
        symbols=_symbols("alpha", "L", "Delta", "E", "S", "sigma", "G", "T"),
        notes=(
            Note(
                "w^_T is uniform over the virtual averages w-bar_{t,k}, 0 <= t < T, 0 <= k < E, which the server never "
                "forms for k >= 1: E||grad f(w^_T)||^2 = (1/(TE)) sum_{t,k} E||grad f(w-bar_{t,k})||^2.",
                "Simulations compute sum_i p_i w_{t,k}^i at every local step.",
                "clarification",
            ),
            G_POSTERIORI,
            FEDAVG_ALPHA0,
        ),
        equation="Theorem 2, App. A (Lemma 4 averaged over T rounds)",
    ),
    Theorem(
        id="buttaci.teps.fedprox",
        paper=PAPER,
        label="Sec. 5, epsilon-complexity of FedProx",
        title="FedProx, nonconvex: rounds to reach E||grad f||^2 <= eps",
        statement=r"T_\epsilon=\mathcal{O}\big(\tfrac{64L_\alpha^2\Delta^2}{E\epsilon^2}\big)"
        r"+\mathcal{O}\big(\tfrac{L^2S^2\sigma^4}{L_\alpha^2E\epsilon^2}\big)+\mathcal{O}\big(\tfrac{\alpha^2E^3G^4}"
        r"{L_\alpha^2\epsilon^2}+\tfrac{2L^2EG^2}{L_\alpha^2\epsilon}+\tfrac{\alpha^{4/3}L^{2/3}E^{1/3}G^{4/3}}"
        r"{16^{2/3}L_\alpha^2\epsilon^{2/3}}\big)",
        algorithms=FEDPROX,
        lhs="rounds_to_eps",
        rhs=TEPS_PROX,
        kind="complexity",
        probability="expectation",
        conditions=(),
        assumptions=(*AS_14, AS_LB),
        symbols=_symbols("alpha", "L", "Delta", "E", "eps", "S", "sigma", "G"),
        notes=(
            Note(
                "Each term is the T making the corresponding term of Theorem 2 equal to eps; the sum is an O(.) "
                "statement (making all five terms <= eps/5 multiplies the constants by at most 25).",
                "Read as an order bound on the rounds needed.",
                "clarification",
            ),
        ),
        equation="Sec. 5 'Attaining eps-accuracy'",
    ),
    Theorem(
        id="buttaci.lemB1",
        paper=PAPER,
        label="Lemma B.1",
        title="PFL: deviation between neighbour averages u_t^i and u_t^j",
        statement=r"\mathbb{E}\|u_t^i-u_t^j\|^2\le\mathbb{1}_{t\ge1}4\gamma_{t-1}^2E^2G^2",
        algorithms=PFL,
        lhs="neighbour_average_deviation_sq",
        rhs=ind * 4 * gamma_prev**2 * E**2 * G**2,
        kind="explicit",
        probability="expectation",
        conditions=(),
        assumptions=(*AS_14, AS_GRAPH),
        symbols=_symbols("ind", "gamma_prev", "E", "G"),
        notes=(G_POSTERIORI, M1_SETUP),
        equation="(99), App. B Lemma 1",
    ),
    Theorem(
        id="buttaci.lemB2",
        paper=PAPER,
        label="Lemma B.2",
        title="PFL: deviation between the average and a perturbed iterate",
        statement=r"\mathbb{E}\|\bar w_{t,k}-\tilde w_{t,k}^i\|^2\le4\gamma_t^2E^2G^2\Big[4+(1-\beta)^2"
        r"+\mathbb{1}_{t\ge1}\tfrac{8\gamma_{t-1}^2}{\gamma_t^2}\big(1-\tfrac1\beta\big)^2\Big]",
        algorithms=PFL,
        lhs="perturbed_divergence_sq",
        rhs=4
        * gamma**2
        * E**2
        * G**2
        * (4 + (1 - beta) ** 2 + ind * 8 * gamma_prev**2 / gamma**2 * (1 - 1 / beta) ** 2),
        kind="explicit",
        probability="expectation",
        conditions=(sp.Lt(beta, 1),),
        assumptions=(*AS_14, AS_GRAPH),
        symbols=_symbols("gamma", "E", "G", "beta", "ind", "gamma_prev"),
        notes=(
            Note(
                "From (121) with (1 - beta)^4 <= (1 - beta)^2; the lemma's hypotheses are listed after the claim.",
                "",
                "clarification",
            ),
            G_POSTERIORI,
            M1_SETUP,
        ),
        equation="(107), App. B Lemma 2",
    ),
    Theorem(
        id="buttaci.lemB3",
        paper=PAPER,
        label="Lemma B.3",
        title="PFL, strongly convex: one-round recursion D_{t+1} <= kappa D_t + A",
        statement=r"\mathbb{E}\|\bar w_{t+1,0}-w_\star\|^2\le\kappa\,\mathbb{E}\|\bar w_{t,0}-w_\star\|^2+A,\ "
        + _B3_TEX
        + r"\le1-\mu\gamma_t,\ A=8\gamma_t^2E^3G^2\Big[4+(1-\beta)^2+\tfrac{\mathbb{1}_{t\ge1}8\gamma_{t-1}^2"
        r"(1-\beta)^2}{\gamma_t^2\beta^2}\Big]+\mu\gamma_t^3\beta(1-\beta)E^3G^2+\gamma_t^2ES\sigma^2"
        r"+6\gamma_t^2LE\Gamma,\ \gamma_t\le\min\{\tfrac1{2L},\tfrac1{\beta\mu}\}",
        algorithms=PFL,
        lhs="distance_sq_next_round",
        rhs=KAPPA_B3 * D + ADD_B3,
        kind="explicit",
        probability="expectation",
        conditions=B3_CONDS,
        assumptions=(*AS_14, AS_SC, AS_GRAPH),
        symbols=_symbols("beta", "mu", "gamma", "E", "D", "G", "ind", "gamma_prev", "S", "sigma", "L", "Gamma"),
        notes=(
            Note(
                "The lemma says 'Assumptions 1 to 4 hold' but its proof applies strong convexity (133) and kappa "
                "involves mu.",
                "Catalogued under Assumptions 1-5.",
                "typo",
            ),
            Note(
                "A per-round contraction with an additive term, so kind 'explicit' with the full right-hand side; "
                "the factor alone is buttaci.lemB3.kappa. The per-step recursion has a = 1 - mu gamma beta and a "
                "negative b = -mu gamma (1 - beta), the source of the smaller factor.",
                "",
                "clarification",
            ),
            G_POSTERIORI,
            EXTREME_CONSTANTS,
            M1_SETUP,
        ),
        equation="(122)-(123), App. B Lemma 3",
    ),
    Theorem(
        id="buttaci.lemB3.kappa",
        paper=PAPER,
        label="Lemma B.3 (contraction factor)",
        title="PFL, strongly convex: exact per-round contraction factor of Lemma B.3",
        statement=_B3_TEX + r"\le1-\mu\gamma",
        algorithms=PFL,
        lhs="contraction_factor",
        rhs=KAPPA_B3,
        kind="contraction",
        probability="expectation",
        conditions=B3_CONDS,
        assumptions=(*AS_14, AS_SC, AS_GRAPH),
        symbols=_symbols("beta", "mu", "gamma", "E", "L"),
        notes=(
            Note(
                "The lemma proves E||w-bar_{t+1,0} - w_*||^2 <= kappa E||w-bar_{t,0} - w_*||^2 + A; kappa alone "
                "bounds the per-round ratio only where A is negligible. On deterministic quadratics with a common "
                "Hessian H, Lemma 1 gives e_{t+1} = phi(H) e_t with phi(lambda) = 1 - 1/beta + (1/beta)(1 - beta "
                "gamma lambda)^E; at gamma = 1/(2LE) phi is decreasing and >= 1/2 on [mu, L], so kappa = phi(mu) is "
                "the exact rate of ||e_t|| (kappa^2 that of ||e_t||^2). For E = 1 kappa = 1 - mu gamma for every "
                "beta, the FedAvg factor.",
                "Use as the predicted per-round factor of the distance in that regime (gamma = 1/(2LE)); elsewhere "
                "use buttaci.lemB3.",
                "clarification",
            ),
            SPEEDUP_POINTER,
        ),
        equation="(123), App. B Lemma 3",
    ),
    Theorem(
        id="buttaci.thm3",
        paper=PAPER,
        label="Theorem 3",
        title="PFL, strongly convex: linear rate (1 - mu/((beta+2)L))^t to a floor",
        statement=r"\mathbb{E}f(\bar w_{t,0})-f_\star\le\tfrac{L\Delta}{\mu}\Big[1-\tfrac{\mu}{(\beta+2)L}\Big]^t"
        r"+\tfrac{S\sigma^2}{4\mu}+\tfrac{3L\Gamma}{2\mu}+\tfrac{2AE^2G^2}{\mu}+\tfrac{\beta(1-\beta)EG^2}{8L},"
        r"\ A=4+(1-\beta)^2+8(1-1/\beta)^2,\ \gamma=[2LE]^{-1}",
        algorithms=PFL,
        lhs="objective_gap",
        rhs=THM3_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Lt(beta, 1), sp.Le(mu, L)),
        assumptions=(*AS_14, AS_SC, AS_GRAPH),
        symbols=_symbols("L", "Delta", "mu", "beta", "t", "S", "sigma", "Gamma", "E", "G"),
        notes=(
            Note(
                "Derived from Lemma B.3 with gamma = 1/(2LE), the indicator term at its worst (1(t >= 1) = 1, "
                "gamma_{t-1} = gamma) and kappa <= 1 - mu/(beta mu + 2L) <= 1 - mu/((beta + 2)L) (chain "
                "(187)-(191)); unlike Theorem 1 the floor has no L/L_alpha factor.",
                "The additive floor is L A/(2 gamma mu) of Lemma B.3 exactly.",
                "clarification",
            ),
            SPEEDUP_POINTER,
            BETA1,
            G_POSTERIORI,
            EXTREME_CONSTANTS,
            M1_SETUP,
        ),
        equation="(8), App. B (187)-(191)",
    ),
    Theorem(
        id="buttaci.lemB4",
        paper=PAPER,
        label="Lemma B.4",
        title="PFL, nonconvex: single-round progress",
        statement=r"\tfrac1E\sum_{k<E}\mathbb{E}\|\nabla f(\bar w_{t,k})\|^2\le\tfrac2{\gamma_tE}"
        r"\mathbb{E}[f(\bar w_{t,0})-f(\bar w_{t+1,0})]+\gamma_tL\sigma^2S+4\gamma_t^2L^2E^2G^2\Big[4+(1-\beta)^2"
        r"+\mathbb{1}_{t\ge1}\tfrac{8\gamma_{t-1}^2}{\gamma_t^2}\big(1-\tfrac1\beta\big)^2\Big],\ \gamma_t\le\tfrac1L",
        algorithms=PFL,
        lhs="grad_norm_sq_round_avg",
        rhs=2 / (gamma * E) * Fdrop + ADD_B4,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Le(gamma, 1 / L), sp.Lt(beta, 1)),
        assumptions=(*AS_14, AS_LB, AS_GRAPH),
        symbols=_symbols("gamma", "E", "Fdrop", "L", "sigma", "S", "G", "beta", "ind", "gamma_prev"),
        notes=(G_POSTERIORI, M1_SETUP),
        equation="(192), App. B Lemma 4",
    ),
    Theorem(
        id="buttaci.thm4",
        paper=PAPER,
        label="Theorem 4",
        title="PFL, nonconvex: O(1/sqrt(T)) stationarity",
        statement=r"\mathbb{E}\|\nabla f(\hat w_T)\|^2\le\tfrac1{\sqrt T}\Big[\tfrac{4L\Delta}{\sqrt E}"
        r"+\tfrac{S\sigma^2}{2\sqrt E}\Big]+\tfrac{EG^2}{T}\Big[4+(1-\beta)^2+8\big(1-\tfrac1\beta\big)^2\Big],"
        r"\ \gamma=[2L\sqrt{TE}]^{-1}",
        algorithms=PFL,
        lhs="grad_norm_sq_avg",
        rhs=THM4_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Lt(beta, 1), sp.Ge(T, 1)),
        assumptions=(*AS_14, AS_LB, AS_GRAPH),
        symbols=_symbols("L", "Delta", "E", "S", "sigma", "T", "G", "beta"),
        notes=(BETA1, G_POSTERIORI, M1_SETUP),
        equation="Theorem 4, App. B (Lemma 4 averaged over T rounds)",
    ),
    Theorem(
        id="buttaci.cor1",
        paper=PAPER,
        label="Corollary 1",
        title="PFL, nonconvex: E = O(T^(1/3)) local steps give O(T^(-2/3))",
        statement=r"E=\mathcal{O}(T^{1/3})\ \Rightarrow\ \mathbb{E}\|\nabla f(\hat w_T)\|^2=\mathcal{O}(T^{-2/3})",
        algorithms=PFL,
        lhs="grad_norm_sq_avg",
        rhs=T ** sp.Rational(-2, 3),
        kind="order",
        probability="expectation",
        conditions=(sp.Ge(T, 1),),
        assumptions=(*AS_14, AS_LB, AS_GRAPH),
        symbols=_symbols("T"),
        notes=(
            Note(
                "The proof cites 'case I of Theorem 4', which has no cases; it rewrites the Theorem 4 bound as "
                "r(E) = A/sqrt(TE) + B E/T.",
                "Read as Theorem 4; explicit constants in buttaci.cor1.explicit.",
                "typo",
            ),
        ),
        equation="Corollary 1, proof (211)",
    ),
    Theorem(
        id="buttaci.cor1.explicit",
        paper=PAPER,
        label="Corollary 1 (explicit constants)",
        title="PFL, nonconvex: Theorem 4 bound at E_opt = (A/(2B))^(2/3) T^(1/3)",
        statement=r"r(E_{\rm opt})=3\cdot2^{-2/3}A^{2/3}B^{1/3}T^{-2/3},\ A=4L\Delta+S\sigma^2/2,"
        r"\ B=G^2\big[4+(1-\beta)^2+8(1-1/\beta)^2\big],\ E_{\rm opt}=[A/(2B)]^{2/3}T^{1/3}",
        algorithms=PFL,
        lhs="grad_norm_sq_avg",
        rhs=COR1_RHS,
        kind="explicit",
        probability="expectation",
        conditions=(sp.Lt(beta, 1), sp.Ge(T, 1)),
        assumptions=(*AS_14, AS_LB, AS_GRAPH),
        symbols=_symbols("L", "Delta", "S", "sigma", "G", "beta", "T"),
        notes=(
            Note(
                "This is min over real E of the Theorem 4 bound, attained at E_opt = (A/(2B))^(2/3) T^(1/3); at an "
                "integer E != E_opt the valid bound is Theorem 4 at that E, which is larger.",
                "Compare runs with E = round(E_opt) against buttaci.thm4 at the E used; this value is the envelope "
                "whose T-exponent is -2/3.",
                "clarification",
            ),
        ),
        equation="Corollary 1, proof (211)",
    ),
    Theorem(
        id="buttaci.teps.pfl",
        paper=PAPER,
        label="Sec. 5, epsilon-complexity of PFL",
        title="PFL, nonconvex: rounds to reach E||grad f||^2 <= eps",
        statement=r"T_\epsilon=\mathcal{O}\big(\tfrac{16L^2\Delta^2}{E\epsilon^2}\big)+\mathcal{O}\big(\tfrac{S^2\sigma^4}"
        r"{4E\epsilon^2}\big)+\mathcal{O}\big(\tfrac{EG^2}{\epsilon}\big[4+(1-\beta)^2+8(1-\tfrac1\beta)^2\big]\big)",
        algorithms=PFL,
        lhs="rounds_to_eps",
        rhs=TEPS_PFL,
        kind="complexity",
        probability="expectation",
        conditions=(sp.Lt(beta, 1),),
        assumptions=(*AS_14, AS_LB, AS_GRAPH),
        symbols=_symbols("L", "Delta", "E", "eps", "S", "sigma", "G", "beta"),
        notes=(
            Note(
                "Each term is the T making the corresponding term of Theorem 4 equal to eps (an O(.) statement). "
                "Against FedProx the 1/sqrt(T) constants differ by 2 partly because Lemma B.4 has 2/(gamma E) where "
                "Lemma A.4 has 4/(gamma E).",
                "Read as an order bound on the rounds needed; it degrades as G^2/(beta^2 eps) for beta -> 0.",
                "clarification",
            ),
        ),
        equation="Sec. 5 'Attaining eps-accuracy'",
    ),
    Theorem(
        id="buttaci.graph",
        paper=PAPER,
        label="Definitions 1-2, Algorithm 1",
        title="Similarity graph: misalignment, adjacency -ln mis, weights A_in/1'A1, degrees",
        statement=r"\mathrm{mis}(i,n)=\tfrac{1-m_i^\top m_n}{2},\ [A]_{in}=-\ln(\mathrm{mis}(i,n))\mathbb{1}_{i\ne n},"
        r"\ p_{in}=\tfrac{[A]_{in}}{\mathbf 1^\top A\mathbf 1},\ p_i=\textstyle\sum_n p_{in}",
        algorithms=PFL,
        lhs="graph_definition_residual",
        rhs=sp.Integer(0),
        kind="explicit",
        probability="deterministic",
        assumptions=(AS_GRAPH,),
        notes=(
            Note(
                "m_i is the first principal component of client i's data by uncentered, unscaled PCA (App. C), "
                "defined up to sign while mis is sign-sensitive; identical messages give mis = 0 and A = +inf.",
                "Messages are sign-canonicalised (entry of largest magnitude positive) and mis is clipped below at "
                "1e-12 (A <= 27.6); the residual of every definition on every pair is 0 up to rounding.",
                "clarification",
            ),
        ),
        equation="Def. 1, Def. 2, Algorithm 1",
    ),
    Theorem(
        id="buttaci.lemma1",
        paper=PAPER,
        label="Lemma 1",
        title="PFL: the perturbed iterates average to beta w-bar_{t,k} + (1 - beta) w-bar_{t,0}",
        statement=r"\textstyle\sum_i p_i\tilde w_{t,k}^i=\beta\bar w_{t,k}+(1-\beta)\bar w_{t,0}",
        algorithms=PFL,
        lhs="lemma1_residual",
        rhs=sp.Integer(0),
        kind="explicit",
        probability="deterministic",
        assumptions=(AS_FULL, AS_GRAPH),
        notes=(M1_SETUP,),
        equation="Lemma 1, (95)-(98)",
    ),
    Theorem(
        id="buttaci.eq9",
        paper=PAPER,
        label="Eq. (9)",
        title="Ordering of the contraction factors of Theorems 3 and 1: PFL(beta) < FedAvg < FedProx(alpha)",
        statement=r"\big(1-\tfrac{\mu}{(\beta+2)L}\big)^t\le\big(1-\tfrac{\mu}{3L}\big)^t\le"
        r"\big(1-\tfrac{\mu}{3(\alpha+L)}\big)^t",
        algorithms=(*PFL, *FEDPROX),
        lhs="contraction_factor",
        rhs=1 - mu / ((beta + 2) * L),
        kind="contraction",
        probability="deterministic",
        conditions=(sp.Lt(beta, 1), sp.Le(mu, L)),
        assumptions=(*AS_14, AS_SC, AS_GRAPH),
        symbols=_symbols("mu", "L", "beta", "alpha"),
        notes=(SPEEDUP,),
        equation="(9), Sec. 5",
    ),
)
