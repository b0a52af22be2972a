"""Catalogue of Das et al.: every theorem re-derived from the paper's formulas.

Expected values are written here independently with ``math`` from the paper's equations (numbers in the test
ids), never taken from the catalogue's sympy expressions.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from fedrates.bounds.catalog import all_theorems, get
from fedrates.bounds.symbols import VOCABULARY, sym

# one point satisfying every condition of the paper (rho E/alpha = 0.15 <= 1/2, C-hat = 10 >= 4 sqrt(L Dmax) = 4)
P = {
    "L": 2.0, "E": 3.0, "K": 500.0, "n": 50.0, "r": 50.0, "eta": 0.01, "Chat": 10.0, "rho": 0.1, "gamma": 1.5,
    "alpha": 2.0, "R": 1.3, "Dmax": 0.5, "Dbar": 0.3, "H_clip": 0.2, "P_unc": 0.7, "H_norm": 0.4, "G": 3.0,
    "lam": 0.8, "D_k": 2.5, "M_k": 0.9, "H_k": 0.25, "SG": 4.0, "Delta_i": 0.35, "tau": 2.0, "gap_i": 0.6,
    "g2": 1.7, "dg2": 3e-4, "g0": 1.1, "C": 30.0, "sigma": 0.4, "eps": 5.0, "delta": 1e-6, "q": 1.0, "d": 20.0,
}  # fmt: skip


def _term_a(p):  # term A of (6)/(14): C-hat (L R^2/gamma + gamma/L) rho
    return p["Chat"] * (p["L"] * p["R"] ** 2 / p["gamma"] + p["gamma"] / p["L"]) * p["rho"]


def _thm2(p):  # (6)
    return _term_a(p) + 3 * p["E"] / (2 * p["alpha"]) * p["H_clip"] * p["rho"]


def _thm5(p):  # Theorem 5
    x = 2 * p["gamma"] / (p["Chat"] * p["K"] * p["rho"])
    return _term_a(p) + x * (1 + x) * p["H_clip"]


def _eq47(p):  # (47)
    a = p["eta"] * p["L"] * p["E"]
    return (
        p["R"] ** 2 / (p["eta"] * p["E"] * p["K"])
        + p["eta"] * p["E"] * p["K"] * p["Chat"] ** 2 * p["rho"] ** 2
        + 2 * a * (1 + 2 * a) * p["H_clip"]
    )


def _eq46(p):  # (46)
    eta, L, E = p["eta"], p["L"], p["E"]
    return (
        p["D_k"]
        - eta * E * p["M_k"]
        + eta * E * (2 * eta * L * E + 4 * eta**2 * L**2 * E**2) * p["H_k"]
        + eta**2 * E**2 * p["Chat"] ** 2 * p["K"] * p["rho"] ** 2
    )


def _thm3(p):  # (7) inside the O(.)
    return (p["Chat"] * p["R"] + p["E"] * p["Dbar"]) * p["rho"]


def _thm3x(p):  # Theorem 2's rhs with H_clip <= Dbar
    return _term_a(p) + 1.5 * p["E"] / p["alpha"] * p["Dbar"] * p["rho"]


def _eq8(p):  # (8)
    g = p["G"] * (p["L"] * p["R"] ** 2 / p["gamma"] + p["gamma"] / p["L"])
    return 0.8 * (g + 1.5 * p["E"] / p["alpha"] * p["Dbar"]) * p["rho"]


def _prop1(p):  # Proposition 1: ||u|| <= C-hat E with C-hat = G(1 - 11(E-1) rho lambda^2/(64 L^2))
    return p["G"] * p["E"] * (1 - 11 * (p["E"] - 1) * p["rho"] * p["lam"] ** 2 / (64 * p["L"] ** 2))


def _eq11(p):  # (11)
    gr = p["G"] * p["R"]
    inner = p["Dbar"] - 11 * gr * p["rho"] / 48 * p["lam"] ** 2 / p["L"] ** 2
    return (2 * gr + 6 * p["E"] / 5 * inner) * p["rho"]


def _thm4(p):  # (14)
    b2 = p["Chat"] ** 2 / (2 * p["alpha"] * p["L"]) * p["P_unc"] + p["rho"] * p["E"] / p["alpha"] ** 2 * p["H_norm"]
    return _term_a(p) + b2 * p["E"] * p["rho"]


def _thm6(p):  # Theorem 6
    kr = p["K"] * p["rho"]
    return (
        _term_a(p)
        + p["gamma"] * p["Chat"] / (p["L"] * kr) * p["P_unc"]
        + 4 * p["gamma"] ** 2 / (p["Chat"] ** 2 * kr**2) * p["H_norm"]
    )


EXPECTED = {
    "das.thm2": _thm2,
    "das.thm5": _thm5,
    "das.eq47": _eq47,
    "das.eq46": _eq46,
    "das.thm3": _thm3,
    "das.thm3.explicit": _thm3x,
    "das.eq8": _eq8,
    "das.prop1": _prop1,
    "das.eq11": _eq11,
    "das.thm4": _thm4,
    "das.thm6": _thm6,
    "das.lem1": lambda p: p["D_k"] - p["eta"] / (2 * p["L"]) * p["SG"] + 2 * p["eta"] * p["E"] * p["Delta_i"],
    "das.lem2": lambda p: 2 * p["eta"] ** 2 * p["L"] * p["tau"] ** 2 * p["gap_i"],
    "das.lem2.update": lambda p: 2 * p["L"] * p["E"] ** 2 * p["gap_i"],
    "das.lem3": lambda p: p["g2"] - (2 / (p["eta"] * p["L"]) - 1) * p["dg2"],
    "das.lem4": lambda p: 2 * p["eta"] * p["tau"] * p["g0"],
    # Theorem 1 / eq. (5) as the ratio sigma / sigma_(5), sigma_(5) = sqrt(q K log(1/delta)) C/(n eps)
    "das.thm1": lambda p: p["sigma"] / (math.sqrt(p["q"] * p["K"] * math.log(1 / p["delta"])) * p["C"]
                                        / (p["n"] * p["eps"])),
}

# (theorem, parameter changes that violate it, index of the condition that must be False)
VIOLATIONS = [
    ("das.thm2", {"E": 20.0}, 1),  # E > alpha/(2 rho) = 10
    ("das.thm2", {"alpha": 0.5}, 0),  # alpha < 1
    ("das.thm2", {"Chat": 3.0}, 2),  # C-hat < 4 sqrt(L Dmax) = 4
    ("das.thm2", {"r": 10.0}, 3),  # partial participation
    ("das.thm5", {"K": 0.5}, 0),  # K <= 2 gamma/(C-hat E rho) = 1
    ("das.eq47", {"eta": 0.3}, 0),  # eta > 1/(2L)
    ("das.eq46", {"Dmax": 10.0}, 1),  # C-hat < 4 sqrt(20)
    ("das.thm3", {"E": 11.0}, 1),
    ("das.thm3.explicit", {"alpha": 0.9}, 0),
    ("das.eq8", {"E": 10.5}, 1),
    ("das.prop1", {"E": 6.0}, 0),  # E > 1/(2 rho) = 5
    ("das.prop1", {"lam": 2.5}, 1),  # lambda > L
    ("das.prop1", {"rho": 1.0}, 2),
    ("das.eq11", {"lam": 3.0}, 1),
    ("das.thm4", {"E": 20.0}, 1),
    ("das.thm6", {"K": 0.9}, 0),
    ("das.lem1", {"eta": 0.26}, 0),
    ("das.lem2", {"eta": 0.6}, 0),  # eta > 1/L
    ("das.lem2", {"tau": 0.5}, 1),
    ("das.lem2.update", {"eta": 0.6}, 0),
    ("das.lem4", {"eta": 0.1}, 0),  # eta > 1/(2 L E) = 1/12
    ("das.lem4", {"tau": 4.0}, 2),  # tau > E
    ("das.lem3", {"dg2": 0.01}, 0),  # ||grad difference||^2 > (eta L)^2 ||grad||^2 contradicts L-smoothness
    ("das.thm1", {"delta": 1.5}, 0),  # delta must be < 1
]


def _subs(point: dict[str, float]) -> dict[sp.Symbol, float]:
    return {sym(k): v for k, v in point.items()}


def _num(expr: sp.Expr, point: dict[str, float]) -> float:
    return float(expr.subs(_subs(point)))


def test_every_theorem_has_an_independent_value() -> None:
    assert {t.id for t in all_theorems("das")} == set(EXPECTED)


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_rhs_matches_paper_formula(theorem_id: str) -> None:
    theorem = get(theorem_id)
    assert _num(theorem.rhs, P) == pytest.approx(EXPECTED[theorem_id](P), rel=1e-12)


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_metadata_is_complete(theorem_id: str) -> None:
    t = get(theorem_id)
    assert t.paper == "das" and t.statement and t.equation and t.algorithms
    assert set(t.algorithms) <= {"dp_fedavg_clip", "dp_normfedavg"}
    assert {s.name for s in t.free_symbols} <= set(P)
    assert all(isinstance(c, sp.core.relational.Relational) for c in t.conditions)
    # the paper's letters map onto the vocabulary: n clients, K rounds, E local steps, r participating
    vocab = t.vocabulary()
    assert all(v in VOCABULARY for v in vocab.values())
    assert vocab.get("E", "local_steps") == "local_steps" and vocab.get("K", "rounds") == "rounds"


@pytest.mark.parametrize("theorem_id", sorted(t for t in EXPECTED if get(t).conditions))
def test_conditions_hold_at_the_paper_point(theorem_id: str) -> None:
    assert all(bool(c.subs(_subs(P))) for c in get(theorem_id).conditions)


@pytest.mark.parametrize(("theorem_id", "change", "index"), VIOLATIONS)
def test_conditions_fail_outside_the_paper_regime(theorem_id: str, change: dict, index: int) -> None:
    conds = get(theorem_id).conditions
    values = [bool(c.subs(_subs({**P, **change}))) for c in conds]
    assert values[index] is False


# --- lemma => theorem relations (sympy) ----------------------------------------------------------------------------
L, E, K, eta, Chat, rho, gamma, alpha = (sym(s) for s in ("L", "E", "K", "eta", "Chat", "rho", "gamma", "alpha"))


def test_eq47_with_theorem5_step_is_theorem5() -> None:
    step = gamma / (Chat * L * E * K * rho)
    assert sp.simplify(get("das.eq47").rhs.subs(sym("eta"), step) - get("das.thm5").rhs) == 0


def test_theorem5_specialises_below_theorem2() -> None:
    k2 = 2 * alpha * gamma / (Chat * E * rho**2)
    diff = sp.simplify(get("das.thm5").rhs.subs(K, k2) - get("das.thm2").rhs)
    h = sym("H_clip")
    # (rho E/alpha)(1 + rho E/alpha) - (3/2)(rho E/alpha) = E H rho (2 E rho - alpha)/(2 alpha^2),
    # which is <= 0 iff E <= alpha/(2 rho)
    assert sp.simplify(diff - E * h * rho * (2 * E * rho - alpha) / (2 * alpha**2)) == 0
    assert diff.subs(_subs(P)) <= 0
    assert diff.subs(_subs({**P, "E": 15.0})) > 0  # beyond the E condition Theorem 2 no longer follows


def test_theorem6_specialises_to_theorem4_exactly() -> None:
    k2 = 2 * alpha * gamma / (Chat * E * rho**2)
    assert sp.simplify(get("das.thm6").rhs.subs(K, k2) - get("das.thm4").rhs) == 0


def test_theorem5_step_size_meets_lemma_conditions() -> None:
    # eta = gamma/(C-hat L E K rho) and K > 2 gamma/(C-hat E rho)  <=>  eta L < 1/2 (needed by (44), Lemma 1)
    step = gamma / (Chat * L * E * K * rho)
    assert sp.simplify(step * L - gamma / (Chat * E * K * rho)) == 0
    assert sp.simplify((step * L).subs(K, 2 * gamma / (Chat * E * rho)) - sp.Rational(1, 2)) == 0
    # Theorem 2's eta = rho/(2 alpha L) is the same step at K = 2 alpha gamma/(C-hat E rho^2)
    assert sp.simplify(step.subs(K, 2 * alpha * gamma / (Chat * E * rho**2)) - rho / (2 * alpha * L)) == 0


def test_eq46_telescopes_to_eq47() -> None:
    r0, h = sym("R"), sym("H_clip")
    per_round = get("das.eq46").rhs.subs({sym("D_k"): 0, sym("M_k"): 0, sym("H_k"): h})
    telescoped = (r0**2 + K * per_round) / (eta * E * K)
    assert sp.simplify(telescoped - get("das.eq47").rhs) == 0


def test_lemma2_update_is_lemma2_at_tau_equal_E() -> None:
    drift = get("das.lem2").rhs.subs(sym("tau"), E)
    assert sp.simplify(drift / eta**2 - get("das.lem2.update").rhs) == 0


def test_eq8_and_thm3_explicit_follow_from_theorem2() -> None:
    thm2 = get("das.thm2").rhs
    dbar = sym("Dbar")
    # no clipping (C-hat = G), coefficient >= 5/4, H_clip = Dbar
    assert sp.simplify(sp.Rational(4, 5) * thm2.subs({Chat: sym("G"), sym("H_clip"): dbar}) - get("das.eq8").rhs) == 0
    assert sp.simplify(thm2.subs(sym("H_clip"), dbar) - get("das.thm3.explicit").rhs) == 0
    coef = 2 - rho * E / alpha - rho**2 * E**2 / alpha**2
    assert sp.simplify(coef.subs(E, alpha / (2 * rho)) - sp.Rational(5, 4)) == 0


def test_eq11_dominates_the_exact_plug_in() -> None:
    g, r0, lam, dbar = sym("G"), sym("R"), sym("lam"), sym("Dbar")
    chat_p1 = get("das.prop1").rhs / E  # C-hat of Proposition 1
    exact = sp.Rational(4, 5) * get("das.thm2").rhs.subs({Chat: chat_p1, gamma: L * r0, alpha: 1, sym("H_clip"): dbar})
    gap = sp.simplify(get("das.eq11").rhs - exact)
    assert sp.simplify(gap - g * r0 * rho * (16 * L**2 - 11 * lam**2 * rho) / (40 * L**2)) == 0
    assert gap.subs(_subs(P)) > 0


def test_proposition1_bound_dominates_the_geometric_sum() -> None:
    # (75)-(76): (1 - (1 - x)^E)/x * G <= G E (1 - 11 (E-1) x/24) with x = 3 lambda^2 rho/(8 L^2), E <= 1/(2 rho)
    prop1 = get("das.prop1")
    names = sorted(P)
    rhs = sp.lambdify([sym(k) for k in names], prop1.rhs, "math")
    conds = [sp.lambdify([sym(k) for k in names], c, "math") for c in prop1.conditions]
    for rho_v in (0.01, 0.05, 0.1, 0.2):
        for e_v in range(1, int(1 / (2 * rho_v)) + 1):
            for lam_v in (0.1, 1.0, 2.0):
                pt = {**P, "rho": rho_v, "E": float(e_v), "lam": lam_v}
                x = 3 * lam_v**2 * rho_v / (8 * pt["L"] ** 2)
                geometric = (1 - (1 - x) ** e_v) / x * pt["G"]
                values = [pt[k] for k in names]
                assert all(c(*values) for c in conds)
                assert geometric <= rhs(*values) * (1 + 1e-12)


# --- exponents in the sweep variable --------------------------------------------------------------------------------
def _exponent(expr: sp.Expr, var: str, point: dict[str, float]) -> sp.Expr:
    """lim log(rhs)/log(x): x -> infinity for rounds, steps and E; x -> 0+ for the privacy level rho (rho < 1)."""
    x = sym(var)
    fixed = {sym(k): sp.nsimplify(v) for k, v in point.items() if k != var}
    return sp.limit(sp.log(expr.subs(fixed)) / sp.log(x), x, 0 if var == "rho" else sp.oo)


@pytest.mark.parametrize(
    ("theorem_id", "var", "exponent"),
    [
        ("das.thm2", "rho", 1),  # O(rho), matches the [BST14] rho-dependence
        ("das.thm4", "rho", 1),
        ("das.thm3", "rho", 1),
        ("das.thm3.explicit", "rho", 1),
        ("das.eq8", "rho", 1),
        ("das.thm5", "K", 0),  # heterogeneity term dies as K -> infinity, term A stays (privacy floor)
        ("das.thm6", "K", 0),
        ("das.eq47", "K", 1),  # at fixed eta the noise term eta E K C-hat^2 rho^2 grows with K
        ("das.eq11", "E", 1),
        ("das.lem2", "tau", 2),
        ("das.lem4", "tau", 1),
    ],
)
def test_exponent_in_sweep_variable(theorem_id: str, var: str, exponent: int) -> None:
    assert _exponent(get(theorem_id).rhs, var, P) == exponent


def test_rate_in_clients_is_one_over_n() -> None:
    # rho = sqrt(q d log(1/delta))/(n eps): the O(rho) bound of Theorem 2 decays as 1/n
    n, q, d, dl, eps = sym("n"), sym("q"), sym("d"), sym("delta"), sym("eps")
    rhs = get("das.thm2").rhs.subs(rho, sp.sqrt(q * d * sp.log(1 / dl)) / (n * eps))
    fixed = {sym(k): sp.nsimplify(v) for k, v in P.items() if k not in ("rho", "n")}
    fixed.update({q: 1, d: 200, dl: sp.Rational(1, 10**6), eps: 5})
    assert sp.limit(sp.log(rhs.subs(fixed)) / sp.log(n), n, sp.oo) == -1


def test_heterogeneity_term_of_theorem5_decays_as_one_over_K() -> None:
    term = get("das.thm5").rhs - get("das.thm5").rhs.subs(sym("H_clip"), 0)
    assert _exponent(term, "K", P) == -1


def test_errata_are_recorded() -> None:
    assert any("Fact 2" in n.text for n in get("das.thm5").errata)
    assert any("co-coercivity" in n.text for n in get("das.lem3").errata)
    assert any("(15)" in n.text for n in get("das.thm2").notes)
    assert any("dropping G" in n.text for n in get("das.prop1").notes)
