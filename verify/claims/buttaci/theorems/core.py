"""The bound claims of Buttaci & Calafiore ("Aiding Global Convergence in Federated Learning via Local Perturbation
and Mutual Similarity Information"): Lemmas A.3/B.3 round by round, Theorems 1–4, Sec. 5's ε-complexity comparison and
Corollary 1.  Instances as in :mod:`fedrates.verify.claims.buttaci.exact` (exact Hessians, the graph of Def. 1–2
built from the clients' data, degree weights).

* ``buttaci.lemB3/recursion`` and ``buttaci.lemA3/recursion`` — Lemmas B.3 and A.3 round by round,
  E D_{t+1} ≤ κ E D_t + A_t (deterministic and Monte-Carlo, constant and alternating steps), G² a posteriori along
  the run;
* ``buttaci.thm1/validity``, ``buttaci.thm3/validity`` — Theorems 1 and 3 hold at every round (deterministic and
  Monte-Carlo), with G² a posteriori along the run (the a-priori ball value is reported); their floors are ≥ 300×
  the measured gap (informational);
* ``buttaci.thm3/beta-floor`` — Theorem 3's O(G²/β²) floor as β → 0: PFL's limit is the exact round map's fixed
  point at every β, the floor holds, and the limit tends to the β = 0 map's (bounded) while the floor grows as β⁻²;
* ``buttaci.thm2/validity``, ``buttaci.thm4/validity`` — Theorems 2 and 4 on quadratics with nonconvex clients, over
  the virtual averages, and Lemmas A.4/B.4 round by round (the sharper per-round form);
* ``buttaci.teps/comparison`` — Sec. 5's ε-complexity comparison of two upper bounds on a grid of constants
  (informational), with the measured stationarity of both methods for context;
* ``buttaci.cor1/rate`` — Corollary 1: the symbolic E_opt and r(E_opt), the integer argmin, the envelope exponent
  −2/3, and the measured exponent of E‖∇f(ŵ_T)‖² with E = T^{1/3}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates._tables import pivot_last
from fedrates.verify import checks
from fedrates.verify import margins as mg
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, evaluate_conditions
from fedrates.verify.claims.buttaci import instances as runs
from fedrates.verify.claims.buttaci._checks import (
    _TINY,
    _algorithm,
    _fail_if_empty,
    _metric,
    _no_records,
    _params,
    _rows,
    _seeds,
    _theorem,
    _verdict_from,
)
from fedrates.verify.claims.buttaci.instances import CLUSTER_REGIME as _CLUSTER_REGIME
from fedrates.verify.claims.buttaci.instances import _ball_g2, _g2, _g2_per_replica, _gap, _reach_per_replica, _start

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS"]

#: Corollary 1 measured exponent: deterministic runs, exponent −2/3 within ±0.05 over T ∈ [27, 1000] (the
#: envelope's exponent is exactly −2/3; the integer E = T^{1/3} is exact on the grid; the residual curvature of
#: log r(T) from the not-yet-negligible terms is below 0.03 on this instance)
COR1_SLOPE_TOL = 0.05

# ---- Theorems 1 and 3: validity at every round
VALIDITY_INSTANCE = {"preset": "buttaci-clustered"}


@dataclass(frozen=True)
class StronglyConvexValidity(Claim):
    """E f(w̄_{t,0}) − f* ≤ RHS(t) of (7) (FedProx/FedAvg) or (8) (PFL) at every round t, with the instance's exact
    L, μ, Δ, Γ, S, σ and the a-posteriori G² (max over visited points; PFL: the perturbed points)."""

    rounds: int = 60
    grid: tuple = ((0.5, 1, 0.0), (0.5, 5, 0.0), (0.5, 5, 1.0))  # (β or α/L, E, σ)
    n_seeds: dict = field(default_factory=lambda: {"quick": 12, "standard": 16, "full": 40})

    def points(self, profile: str) -> list[dict]:
        key = "beta" if self.algorithm == "pfl" else "alpha_over_L"
        return [{**VALIDITY_INSTANCE, key: a, "local_steps": E, "sigma": s} for a, E, s in self.grid]

    def _values(self, point: dict, consts: dict, problem: Any, G2: float, Delta: float) -> dict[str, float]:
        E = point["local_steps"]
        vals = {"L": consts["L"], "mu": consts["mu"], "Delta": Delta, "S": consts["S"],
                "sigma": max(float(point["sigma"]), _TINY), "Gamma": max(consts["Gamma"], _TINY), "E": E,
                "G": math.sqrt(G2), "t": 1.0}
        if self.algorithm == "pfl":
            vals["beta"] = point["beta"]
        else:
            vals["alpha"] = max(point["alpha_over_L"] * consts["L"], _TINY)
        return vals

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_params(point))
        E, L = point["local_steps"], consts["L"]
        if self.algorithm == "pfl":
            gamma = 1 / (2 * L * E)
            alg = _algorithm(self, "pfl", step=gamma, beta=point["beta"], local_steps=E)
        else:
            alpha = point["alpha_over_L"] * L
            gamma = 1 / (2 * E * (L + alpha))
            alg = _algorithm(self, "fedprox", step=gamma, mu_prox=alpha, local_steps=E)
        deterministic = not point["sigma"]
        use = seeds[:1] if deterministic else list(seeds)
        w0 = _start(problem, consts, scale=3.0)
        run = runs.instrumented_run(alg, problem, self.rounds, use, w0, exact=deterministic)
        gaps = _gap(problem, consts, run.x)  # (T+1, R)
        if not run.finite:
            gaps = np.full((self.rounds + 1, len(use)), np.inf)
        # Assumption 3 is used by the proofs only at the points the run visits: G² a posteriori (max over the
        # visited query points, PFL's perturbed ones) is the smallest valid G; the a-priori ball value is reported.
        # Each seed records the bound at its own G²; the judge takes, per round, the largest over all seeds (the
        # bound increases with G²), so no seed's value depends on the seeds of its batch
        R = len(use)
        G2 = _g2_per_replica(problem, run) if run.finite else np.full(R, np.inf)
        G2_ball, radius = _ball_g2(problem, consts, w0)
        reach = _reach_per_replica(run, consts["w_star"], radius) if run.finite else np.full(R, np.inf)
        Delta = float(problem.smooth_value(w0)) - consts["f_star"]
        thm = _theorem(self.theorem)
        items = []
        for t in range(gaps.shape[0]):
            bounds = [thm.evaluate({**self._values(point, consts, problem, g2, Delta), "t": max(t, _TINY)})
                      if np.isfinite(g2) else np.nan for g2 in G2]
            items += [("objective_gap", s, t, float(gaps[t, r]), bounds[r]) for r, s in enumerate(use)]
        items += [("G2_a_posteriori", s, 0, float(G2[r]), G2_ball) for r, s in enumerate(use)]
        items += [("ball_reach", s, 0, float(reach[r]), 1.0) for r, s in enumerate(use)]
        return _rows(self, self.points("quick").index(point), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, _, consts = runs.instance(VALIDITY_INSTANCE)
        thm = _theorem(self.theorem)
        seeds = _seeds(records)
        constants = {k: consts[k] for k in ("L", "mu", "S", "Gamma")}
        conditions = []
        for point in self.points(profile):
            vals = self._values(point, consts, problem, 1.0, 1.0)
            conditions += [{**c, "condition": f"E={point['local_steps']}: {c['condition']}"}
                           for c in evaluate_conditions(thm, vals)]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, thm.statement)
        empty = _fail_if_empty(records)
        if empty:
            return self.verdict(empty, conditions=conditions, seeds=seeds, constants=constants)
        gaps = _metric(records, "objective_gap")
        results, ratios = [], []
        for _, part in gaps.groupby("point"):
            y = pivot_last(part, "seed", "round").to_numpy()
            b = part.groupby("round")["bound"].max().to_numpy()  # at the largest a-posteriori G² of all seeds
            if not np.all(np.isfinite(y)) or not np.all(np.isfinite(b)):
                results.append(CheckResult("fail", "non-finite (divergence)", "measured ≤ bound", "—",
                                           "the run diverged"))
                continue
            results.append(checks.bound_holds(y, b))
            ratios.append(float(np.max(y.mean(axis=0) / b)))
        failed = [r for r in results if r.verdict != "pass"]
        res = failed[0] if failed else results[0]
        g2 = _metric(records, "G2_a_posteriori")
        reach = float(_metric(records, "ball_reach")["value"].max())
        worst = max(ratios) if ratios else float("nan")
        res.measured = (f"{res.measured}; max mean/bound over all points = {worst:.3g}; G² a posteriori (visited "
                        f"points, used) ∈ [{g2['value'].min():.3g}, {g2['value'].max():.3g}], a priori on a ball "
                        f"{g2['bound'].max():.3g} (max ‖query − w*‖/radius = {reach:.3g})")
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=constants, statement=thm.statement,
                            reference_gap=consts["reference_gap"], smallest_measured=float(gaps["value"].min()),
                            bound_ratio=max(ratios) if ratios else None)


# ---- Theorems 2 and 4 (nonconvex clients) and Corollary 1
NONCONVEX_INSTANCE = {"preset": "buttaci-nonconvex", "message": "data"}
COR1_INSTANCE = {"preset": "buttaci-nonconvex", "message": "data", "mu": 1.0, "curvature_shift": 1.5}


def _nonconvex_run(claim: Claim, name: str, problem: Any, consts: dict, T: int, E: int, *, beta: float = 0.5,
                   alpha: float = 0.0, visited: list | None = None
                   ) -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """Per-round averages (1/E)Σ_k ‖∇f(w̄_{t,k})‖² over the virtual averages, f(w̄_{t,0}) for t = 0..T, G², Δ, γ
    (Δ = f(w̄_{0,0}) − ``consts["f_star"]``); the virtual averages (T, E, d) and the instrumented run are appended
    to ``visited`` if given."""
    L = consts["L"]
    if name == "pfl":
        gamma = 1 / (2 * L * math.sqrt(T * E))
        alg = _algorithm(claim, "pfl", step=gamma, beta=beta, local_steps=E)
    else:
        gamma = 1 / (2 * (L + alpha) * math.sqrt(T * E))
        alg = _algorithm(claim, "fedprox", step=gamma, mu_prox=alpha, local_steps=E)
    w0 = _start(problem, consts, scale=3.0)
    run = runs.instrumented_run(alg, problem, T, [0], w0, exact=True)
    if not run.finite:
        return np.full(T, np.inf), np.full(T + 1, np.inf), np.inf, np.inf, gamma
    wbar = runs.virtual_averages(run, problem.weights, gamma, perturbed=(name == "pfl"))[:, :, 0]  # (T, E, d)
    if visited is not None:
        visited += [wbar, run]
    grad = problem.gradient(wbar)
    per_round = np.mean(np.sum(grad * grad, axis=-1), axis=1)
    fvals = np.asarray(problem.smooth_value(run.x[:, 0]))
    Delta = float(fvals[0]) - consts["f_star"]
    return per_round, fvals, _g2(problem, run), Delta, gamma


@dataclass(frozen=True)
class NonconvexValidity(Claim):
    """E‖∇f(ŵ_T)‖² = (1/(TE))Σ_{t,k}‖∇f(w̄_{t,k})‖² ≤ RHS of Theorem 2 (FedProx) / Theorem 4 (PFL), and the per-round
    Lemma A.4 / B.4 inequality at every round, on quadratics whose clients are nonconvex (f bounded below).  The
    margin is the smaller slack of the two (the per-round lemma is the sharper statement)."""

    grid: tuple = ((1, 100), (4, 100), (4, 400), (8, 200))  # (E, T)
    param: float = 0.5  # β for PFL, α/L for FedProx
    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def _load(self) -> tuple[Any, dict]:
        """(problem, constants) of the instance; Δ is measured from ``constants["f_star"]``."""
        problem, _, consts = runs.instance(NONCONVEX_INSTANCE)
        return problem, consts

    def _base(self) -> dict:
        return NONCONVEX_INSTANCE

    def _extra_items(self, problem: Any, consts: dict, visited: list, seed: int) -> list[tuple]:
        """Further (metric, seed, round, value, bound) records of a point (none for the quadratics)."""
        return []

    def _certificate_disagreements(self, problem: Any, consts: dict) -> list[str]:
        """Disagreements of the instance's certified constants (the quadratics' are checked by
        ``buttaci.constants/second-route``)."""
        return []

    def _constants(self, consts: dict) -> dict[str, float]:
        return {k: consts[k] for k in ("L", "mu", "S")}

    def points(self, profile: str) -> list[dict]:
        return [{**self._base(), "local_steps": E, "rounds": T} for E, T in self.grid]

    def _lemma(self) -> str:
        return "buttaci.lemB4" if self.algorithm == "pfl" else "buttaci.lemA4"

    def _bound_theorem(self) -> str:
        """The catalogued theorem whose bound E‖∇f(ŵ_T)‖² is checked against (the claim's theorem)."""
        return self.theorem

    def _vals(self, consts: dict, E: int, T: int, G2: float, Delta: float, gamma: float) -> dict[str, float]:
        vals = {"L": consts["L"], "Delta": Delta, "E": E, "T": T, "S": consts["S"], "sigma": _TINY,
                "G": math.sqrt(G2), "gamma": gamma, "ind": 1.0, "gamma_prev": gamma}
        if self.algorithm == "pfl":
            vals["beta"] = self.param
        else:
            vals["alpha"] = max(self.param * consts["L"], _TINY)
        return vals

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts = self._load()
        E, T = point["local_steps"], point["rounds"]
        alpha = self.param * consts["L"] if self.algorithm != "pfl" else 0.0
        visited: list = []
        per_round, fvals, G2, Delta, gamma = _nonconvex_run(self, self.algorithm, problem, consts, T, E,
                                                            beta=self.param, alpha=alpha, visited=visited)
        seed = seeds[0]
        vals = self._vals(consts, E, T, G2, Delta, gamma) if np.isfinite(G2) else None
        thm = _theorem(self._bound_theorem())
        lemma = _theorem(self._lemma())
        items = [("grad_norm_sq_avg", seed, T, float(np.mean(per_round)),
                  thm.evaluate(vals) if vals else np.nan)]
        # the lemma's first term c/(γE)·(f(w̄_{t,0}) − f(w̄_{t+1,0})) (c = 2 for B.4, 4 for A.4) may be negative;
        # the catalogued rhs is evaluated at Fdrop → 0+ for the additive part and the first term added exactly
        c = 2.0 if self.algorithm == "pfl" else 4.0
        for t in range(T):
            bound = np.nan
            if vals:
                additive = lemma.evaluate({**vals, "ind": 1.0 if t >= 1 else _TINY, "Fdrop": _TINY})
                bound = additive + c / (gamma * E) * float(fvals[t] - fvals[t + 1])
            items.append(("grad_norm_sq_round", seed, t, float(per_round[t]), bound))
        items.append(("G2_a_posteriori", seed, 0, G2, np.nan))
        items += self._extra_items(problem, consts, visited, seed)
        return _rows(self, self.grid.index((E, T)), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts = self._load()
        thm = _theorem(self._bound_theorem())
        seeds = _seeds(records)
        constants = self._constants(consts)
        disagreements = self._certificate_disagreements(problem, consts)
        if disagreements:
            res = CheckResult("inconclusive", "; ".join(disagreements), "certified constants", "—",
                              "constants disagree between their two routes: " + "; ".join(disagreements))
            return self.verdict(res, conditions=[], seeds=seeds, constants=constants)
        conditions = []
        lemma = _theorem(self._lemma())
        for E, T in self.grid:
            gamma = 1 / (2 * (consts["L"] + (self.param * consts["L"] if self.algorithm != "pfl" else 0.0))
                         * math.sqrt(T * E))
            vals = {**self._vals(consts, E, T, 1.0, 1.0, gamma), "Fdrop": 1.0}
            conditions += [{**c, "condition": f"E={E}, T={T}: {c['condition']}"}
                           for c in evaluate_conditions(thm, vals) + evaluate_conditions(lemma, vals)]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, thm.statement)
        empty = _fail_if_empty(records)
        if empty:
            return self.verdict(empty, conditions=conditions, seeds=seeds, constants=constants)
        avg = _metric(records, "grad_norm_sq_avg")
        rnd = _metric(records, "grad_norm_sq_round")
        y, b = avg["value"].to_numpy(), avg["bound"].to_numpy()
        yr, br = rnd["value"].to_numpy(), rnd["bound"].to_numpy()
        finite = bool(np.all(np.isfinite(y)) and np.all(np.isfinite(b)) and np.all(np.isfinite(yr))
                      and np.all(np.isfinite(br)))
        slack = 1 + 1e-9
        thm_ok = finite and bool(np.all(y <= b * slack))
        lem_ok = finite and bool(np.all(yr <= br * slack + 1e-300))
        ratio = float(np.max(y / b)) if finite else float("nan")
        lem_ratio = float(np.max(yr / br)) if finite else float("nan")
        measured = (f"max measured/bound: theorem {ratio:.3g}, per-round lemma {lem_ratio:.3g}; G² (a posteriori) "
                    f"max {_metric(records, 'G2_a_posteriori')['value'].max():.3g}")
        verdict, msg = _verdict_from([("finite", finite, "the run diverged"),
                                      (thm.label, thm_ok, f"measured exceeds the bound (ratio {ratio:.3g})"),
                                      (lemma.label, lem_ok, f"a round violates the lemma (ratio {lem_ratio:.3g})")])
        res = CheckResult(verdict, measured, "measured ≤ bound (theorem and every round of the lemma)",
                          "floating point only (deterministic)", msg)
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=constants, statement=thm.statement,
                            reference_gap=0.0, smallest_measured=float(np.min(yr)) if finite else None,
                            bound_ratio=max(ratio, lem_ratio) if finite else None)


def _cor1_symbolic() -> dict[str, float]:
    import sympy as sp

    from fedrates.bounds.catalog import buttaci as cat

    E, T, a, b = sp.symbols("E T a b", positive=True)
    r = a / sp.sqrt(T * E) + b * E / T
    E_opt = (a / (2 * b)) ** sp.Rational(2, 3) * T ** sp.Rational(1, 3)
    out = {"dr/dE(E_opt)": float(sp.simplify(sp.diff(r, E).subs(E, E_opt)) != 0),
           "r(E_opt)-stated": float(sp.simplify(r.subs(E, E_opt) - 3 * 2 ** sp.Rational(-2, 3) * a ** sp.Rational(
               2, 3) * b ** sp.Rational(1, 3) * T ** sp.Rational(-2, 3)) != 0)}
    # the catalogued Corollary 1 constant is Theorem 4's bound at E_opt (σ-terms included)
    thm4 = cat.THM4_RHS
    A, B = cat.COR1_A, cat.COR1_B
    sub = thm4.subs(cat.E, (A / (2 * B)) ** sp.Rational(2, 3) * cat.T ** sp.Rational(1, 3))
    vals = {cat.L: 5, cat.Delta: 3, cat.S: sp.Rational(1, 5), cat.sigma: 1, cat.G: 7, cat.beta: sp.Rational(1, 2),
            cat.T: 1000}
    out["catalogue-cor1-equals-thm4-at-E_opt"] = float(abs(float((sub - cat.COR1_RHS).subs(vals))) > 1e-9 * float(
        cat.COR1_RHS.subs(vals)))
    # integer argmin within ±1 of E_opt and the envelope exponent −2/3 (numerically, at the same values)
    num_a, num_b = float(A.subs(vals)), float(B.subs(vals))
    bad_argmin, Ts = 0.0, np.array([1e3, 1e4, 1e5, 1e6])
    env = []
    for Tn in Ts:
        Es = np.arange(1, 2000)
        rE = num_a / np.sqrt(Tn * Es) + num_b * Es / Tn
        e_opt = (num_a / (2 * num_b)) ** (2 / 3) * Tn ** (1 / 3)
        bad_argmin += float(abs(Es[np.argmin(rE)] - e_opt) > 1)
        env.append(num_a / np.sqrt(Tn * e_opt) + num_b * e_opt / Tn)
    out["integer-argmin-within-1"] = bad_argmin
    out["envelope-exponent"] = float(abs(np.polyfit(np.log(Ts), np.log(env), 1)[0] + 2 / 3) > 0.01)
    return out


@dataclass(frozen=True)
class Corollary1(Claim):
    """Corollary 1: E = O(T^{1/3}) gives E‖∇f(ŵ_T)‖² = O(T^{-2/3}); symbolic E_opt and r(E_opt), and the measured
    exponent of (1/(TE))Σ‖∇f(w̄_{t,k})‖² with E = T^{1/3}, γ = 1/(2L√(TE)) (each point also ≤ Theorem 4)."""

    T_grid: tuple = (27, 64, 125, 216, 343, 512, 729, 1000)
    #: the quick profile stops at T = 512 (E = 8): measured exponent −0.658 instead of −0.660
    quick_max: int = 512
    beta: float = 0.5
    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        grid = [T for T in self.T_grid if profile != "quick" or T <= self.quick_max]
        return [{**COR1_INSTANCE, "rounds": T, "local_steps": round(T ** (1 / 3))} for T in grid]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(COR1_INSTANCE)
        T, E = point["rounds"], point["local_steps"]
        per_round, _, G2, Delta, _ = _nonconvex_run(self, "pfl", problem, consts, T, E, beta=self.beta)
        bound = np.nan
        if np.isfinite(G2):
            bound = _theorem("buttaci.thm4").evaluate({"L": consts["L"], "Delta": Delta, "E": E, "T": T,
                                                       "S": consts["S"], "sigma": _TINY, "G": math.sqrt(G2),
                                                       "beta": self.beta})
        seed = seeds[0]
        items = [("grad_norm_sq_avg", seed, T, float(np.mean(per_round)), bound)]
        if point is self.points("quick")[0] or T == self.T_grid[0]:
            items += [(f"symbolic:{k}", seed, 0, v, 0.0) for k, v in _cor1_symbolic().items()]
        return _rows(self, self.T_grid.index(T), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        sym = records[records["metric"].str.startswith("symbolic")]
        sym_bad = sym[sym["value"] != 0]["metric"].tolist()
        avg = _metric(records, "grad_norm_sq_avg").sort_values("round")
        T = avg["round"].to_numpy(dtype=float)
        y, b = avg["value"].to_numpy(), avg["bound"].to_numpy()
        finite = bool(np.all(np.isfinite(y)) and np.all(y > 0))
        slope = float(np.polyfit(np.log(T), np.log(y), 1)[0]) if finite else float("nan")
        valid = finite and bool(np.all(y <= b * (1 + 1e-9)))
        measured = (f"exponent of E‖∇f(ŵ_T)‖² in T with E = T^(1/3): {slope:.4f} over T ∈ [{T.min():g}, {T.max():g}]"
                    f"; max measured/Theorem 4 = {float(np.max(y / b)) if finite else float('nan'):.3g}; "
                    f"symbolic failures: {sym_bad or 'none'}")
        verdict, msg = _verdict_from([
            ("symbolic", not sym_bad, f"{sym_bad}"),
            ("exponent", finite and abs(slope + 2 / 3) <= COR1_SLOPE_TOL, f"measured exponent {slope:.4f} ≠ −2/3"),
            ("Theorem 4 at each T", valid, "a point exceeds Theorem 4's bound")])
        from fedrates.verify.checks import CheckResult as _CR

        res = _CR(verdict, measured, "exponent −2/3", f"± {COR1_SLOPE_TOL:g}", msg,
                  fit={"slope": slope, "intercept": float(np.polyfit(np.log(T), np.log(y), 1)[1]) if finite else None,
                       "lo": slope, "hi": slope})
        # the exponent is the claim (Theorem 4 at each T is reported): a deterministic fit with tolerance ±0.05
        # resolves a relative deviation of 0.05/(2/3) of the exponent
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, reference_gap=0.0,
                            smallest_measured=float(y.min()) if finite else None,
                            bound_ratio=float(np.max(y / b)) if finite else None,
                            margin=mg.resolution(COR1_SLOPE_TOL / (2 / 3)))


# ---- Lemmas A.3 / B.3 as one-round recursions
@dataclass(frozen=True)
class Recursion(Claim):
    """Lemma A.3 (FedProx) / B.3 (PFL) round by round: E‖w̄_{t+1,0} − w*‖² ≤ κ E‖w̄_{t,0} − w*‖² + A_t, i.e. the
    mean over seeds of D_{t+1} − κ D_t stays below A_t at every round (95% upper confidence bound; one seed when
    deterministic), with the instance's exact μ, L, Γ, S, σ, the theorem step size, the indicator of B.3 (0 in
    round 0) and G² a posteriori (the largest ‖g‖² at the visited query points, PFL's perturbed ones: the smallest
    G for which Assumption 3 holds where the proofs use it).  One point alternates the step between γ and γ/4, so
    that κ and A use γ_t and B.3's indicator term the ratio γ_{t−1}/γ_t ∈ {4, 1/4}.  The measured ratio
    D_{t+1}/(κD_t + A_t) is the margin (sharp: within 10 of 1 on these instances)."""

    rounds: int = 30
    param: float = 0.5  # β for PFL, α/L for FedProx
    grid: tuple = ((1, 0.0, "constant"), (5, 0.0, "constant"), (5, 1.0, "constant"),
                   (5, 0.0, "alternating"))  # (E, σ, schedule)
    n_seeds: dict = field(default_factory=lambda: {"quick": 12, "standard": 16, "full": 40})

    def points(self, profile: str) -> list[dict]:
        return [{**VALIDITY_INSTANCE, "local_steps": E, "sigma": sg, "schedule": sch} for E, sg, sch in self.grid]

    def _setup(self, consts: dict, E: int) -> tuple[float, float, float]:
        L = consts["L"]
        if self.algorithm == "pfl":
            return 1 / (2 * L * E), 0.0, self.param
        alpha = self.param * L
        return 1 / (2 * E * (L + alpha)), alpha, 1.0

    def _values(self, consts: dict, E: int, sigma: float, G2: float) -> dict[str, float]:
        gamma, alpha, beta = self._setup(consts, E)
        vals = {"mu": consts["mu"], "L": consts["L"], "gamma": gamma, "E": E, "S": consts["S"],
                "sigma": max(sigma, _TINY), "Gamma": max(consts["Gamma"], _TINY), "G": math.sqrt(G2), "D": _TINY,
                "gamma_prev": gamma, "ind": 1.0}
        if self.algorithm == "pfl":
            vals["beta"] = beta
        else:
            vals["alpha"] = max(alpha, _TINY)
        return vals

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_params(point))
        E, sigma = point["local_steps"], float(point["sigma"])
        gamma, alpha, beta = self._setup(consts, E)
        if self.algorithm == "pfl":
            alg = _algorithm(self, "pfl", step=gamma, beta=beta, local_steps=E)
        else:
            alg = _algorithm(self, "fedprox", step=gamma, mu_prox=alpha, local_steps=E)
        use = seeds[:1] if not sigma else list(seeds)
        w0 = _start(problem, consts, scale=3.0)
        steps = np.full(self.rounds, gamma)
        if point.get("schedule") == "alternating":
            steps[1::2] *= 0.25
        run = runs.instrumented_run(alg, problem, self.rounds, use, w0, exact=not sigma, steps=steps)
        D = np.sum((run.x - consts["w_star"]) ** 2, axis=-1)  # (T+1, R)
        # G² a posteriori (max over the visited query points): the smallest G for which Assumption 3 holds where
        # the proof uses it
        # per seed, at its own visited points (the judge takes the largest additive term over all seeds)
        R = len(use)
        G2 = _g2_per_replica(problem, run) if run.finite else np.ones(R)  # a diverged run fails on its excess
        _, radius = _ball_g2(problem, consts, w0)
        reach = _reach_per_replica(run, consts["w_star"], radius) if run.finite else np.full(R, np.inf)
        thm = _theorem(self.theorem)
        items = []
        for t in range(run.rounds):
            vals = {**self._values(consts, E, sigma, 1.0), "gamma": float(steps[t]),
                    "gamma_prev": float(steps[max(t - 1, 0)])}
            kappa = _theorem(f"{self.theorem}.kappa").evaluate(vals)  # κ has no G
            if t == 0:
                vals["ind"] = _TINY  # 1(t >= 1) = 0 in the first round (B.3)
            additive = np.array([thm.evaluate({**vals, "G": math.sqrt(g2)}) for g2 in G2])
            y = D[t + 1] - kappa * D[t] if run.finite else np.full(R, np.inf)
            items += [("recursion_excess", s, t, float(y[r]), float(additive[r])) for r, s in enumerate(use)]
            ratio = D[t + 1] / (kappa * D[t] + additive) if run.finite else np.full(R, np.inf)
            items += [("recursion_ratio", s, t, float(ratio[r]), 1.0) for r, s in enumerate(use)]
        items += [("ball_reach", s, 0, float(reach[r]), 1.0) for r, s in enumerate(use)]
        d_min = np.min(D, axis=0) if run.finite else np.full(R, np.nan)
        items += [("distance_sq_min", s, 0, float(d_min[r]), np.nan) for r, s in enumerate(use)]
        key = (E, point["sigma"], point.get("schedule", "constant"))
        return _rows(self, self.grid.index(key), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, _, consts = runs.instance(VALIDITY_INSTANCE)
        thm = _theorem(self.theorem)
        seeds = _seeds(records)
        constants = {k: consts[k] for k in ("L", "mu", "S", "Gamma")}
        conditions = []
        for E, sigma, _ in self.grid:
            conditions += [{**c, "condition": f"E={E}: {c['condition']}"}
                           for c in evaluate_conditions(thm, self._values(consts, E, sigma, 1.0))]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, thm.statement)
        empty = _fail_if_empty(records)
        if empty:
            return self.verdict(empty, conditions=conditions, seeds=seeds, constants=constants)
        excess = _metric(records, "recursion_excess")
        results, ratios = [], []
        for _, part in excess.groupby("point"):
            y = pivot_last(part, "seed", "round").to_numpy()
            b = part.groupby("round")["bound"].max().to_numpy()  # the largest additive term of all seeds
            if not np.all(np.isfinite(y)):
                results.append(CheckResult("fail", "non-finite (divergence)", "D_{t+1} − κD_t ≤ A", "—",
                                           "the run diverged"))
                continue
            results.append(checks.bound_holds(y, b))
        ratio = _metric(records, "recursion_ratio")
        if len(ratio) and np.all(np.isfinite(ratio["value"])):
            ratios = [float(ratio.groupby(["point", "round"])["value"].mean().max())]
        failed = [r for r in results if r.verdict != "pass"]
        res = failed[0] if failed else results[0]
        reach = float(_metric(records, "ball_reach")["value"].max())
        worst = max(ratios) if ratios else float("nan")
        mean_excess = excess.groupby(["point", "round"])["value"].mean()
        used = int((mean_excess > 0).sum())
        res.measured = (f"{res.measured} (of mean(D_(t+1) − κD_t) over A_t); max mean D_(t+1)/(κD_t + A_t) = "
                        f"{worst:.3g}; D_(t+1) − κD_t > 0 (A_t needed) in {used} of {len(mean_excess)} rounds; "
                        f"ball reach {reach:.3g}")
        smallest = float(_metric(records, "distance_sq_min")["value"].min()) * consts["mu"] / 2
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=constants, statement=thm.statement,
                            reference_gap=consts["reference_gap"], smallest_measured=smallest,
                            bound_ratio=worst if ratios else None)


# ---- Theorem 3's floor as β → 0 (Sec. 4.2 and Sec. 7: "unavoidable term O(G²/β²)")
#: the run's limit against the exact affine map's fixed point (relative to ‖w_∞ − w*‖), after enough rounds that
#: ρ^T ‖w_0 − w_∞‖ is far below it (ρ ≈ 0.976, T = 1000: 3e-11 relative)
LIMIT_RTOL = 1e-6
#: the limit at the smallest β must be within this relative distance of the β = 0 map's limit (measured 0.055 at
#: β = 0.02: the limit converges linearly in β to a finite value)
BETA0_RTOL = 0.1


@dataclass(frozen=True)
class BetaFloor(Claim):
    """Theorem 3's additive floor contains 2A_βE²G²/μ with A_β = 4 + (1−β)² + 8(1−1/β)², which grows as β⁻² for
    β → 0; the paper calls it "an unavoidable term O(G²/β²)" of its analysis (Sec. 1, 4.2, 7).  The claim runs
    PFL(β) for β → 0 from w* (where only heterogeneity moves the iterates) until it reaches its limit, and checks
    (1) exactly: the limit is the fixed point of the affine round map built from (H_i, b_i, p_in, p_i) (graph
    recomputed by Def. 2) — relative 1e-6; (2) Theorem 3's floor (t → ∞, a-posteriori G²) is above the limit's gap
    f(w_∞) − f* at every β; (3) the limit converges, as β → 0, to the fixed point of the β = 0 map (w̃ = u, which
    the algorithm, defined for β > 0, never runs): the measured error does not grow as β⁻².  So the β⁻² growth is
    a property of the bound, as the paper says of its analysis, not of the limit PFL reaches on these instances."""

    betas: tuple = (0.5, 0.2, 0.1, 0.05, 0.02)
    local_steps: int = 5
    rounds: int = 1000
    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        return [{**_BETA_FLOOR_INSTANCE, "beta": b, "local_steps": self.local_steps} for b in self.betas]

    def _limit(self, problem: Any, consts: dict, beta: float) -> tuple[np.ndarray, float]:
        gamma = 1 / (2 * consts["L"] * self.local_steps)
        _, P, p = runs.def2_graph(problem)
        J, c, d = runs.round_map(problem, "pfl", gamma, self.local_steps, beta=beta, graph=(P, p))
        x = np.linalg.solve(np.eye(J.shape[0]) - J, c)[:d]
        return x, float(problem.smooth_value(x)) - consts["f_star"]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(_BETA_FLOOR_INSTANCE)
        beta, E, L = point["beta"], self.local_steps, consts["L"]
        gamma = 1 / (2 * L * E)
        alg = _algorithm(self, "pfl", step=gamma, beta=beta, local_steps=E)
        run = runs.instrumented_run(alg, problem, self.rounds, seeds[:1], consts["w_star"], exact=True)
        x_inf, gap_inf = self._limit(problem, consts, beta)
        seed = seeds[0]
        if not run.finite:
            rel, gap, G2 = np.inf, np.inf, np.inf
        else:
            xT = run.x[-1, 0]
            rel = float(np.linalg.norm(xT - x_inf) / np.linalg.norm(x_inf - consts["w_star"]))
            gap = float(problem.smooth_value(xT)) - consts["f_star"]
            G2 = _g2(problem, run)
        floor = np.nan
        if np.isfinite(G2):
            floor = _theorem("buttaci.thm3").evaluate({
                "L": L, "mu": consts["mu"], "Delta": _TINY, "S": consts["S"], "sigma": _TINY,
                "Gamma": max(consts["Gamma"], _TINY), "E": E, "G": math.sqrt(G2), "beta": beta,
                "t": float(self.rounds)})
        items = [("limit_error", seed, self.rounds, rel, LIMIT_RTOL), ("limit_gap", seed, self.rounds, gap, floor),
                 ("exact_limit_gap", seed, self.rounds, gap_inf, np.nan)]
        return _rows(self, 1 + self.betas.index(beta), point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, _, consts = runs.instance(_BETA_FLOOR_INSTANCE)
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        err = _metric(records, "limit_error").set_index("point")["value"]
        lim = _metric(records, "limit_gap").set_index("point")
        gaps, floors = lim["value"], lim["bound"]
        _, gap0 = self._limit(problem, consts, 0.0)
        order = sorted(lim.index)
        b_min = self.betas[order[-1] - 1]
        finite = bool(np.all(np.isfinite(gaps)) and np.all(np.isfinite(floors)))
        worst_err = float(err.max())
        valid = finite and bool(np.all(gaps <= floors))
        to_zero = abs(float(gaps[order[-1]]) / gap0 - 1) if finite else float("inf")
        growth_floor = float(floors[order[-1]] / floors[order[0]]) if finite else float("nan")
        growth_gap = float(gaps[order[-1]] / gaps[order[0]]) if finite else float("nan")
        ratio = float(np.max(gaps / floors)) if finite else float("nan")
        measured = (f"limit = exact fixed point to {worst_err:.2g} (relative); f(w_∞) − f* from "
                    f"{float(gaps[order[0]]):.3g} (β = {self.betas[0]:g}) to {float(gaps[order[-1]]):.3g} "
                    f"(β = {b_min:g}), β = 0 map's limit {gap0:.3g} (relative distance {to_zero:.2g}); "
                    f"Theorem 3's floor grows ×{growth_floor:.3g} over the same range, the limit ×{growth_gap:.3g}; "
                    f"max gap/floor {ratio:.3g}")
        verdict, msg = _verdict_from([
            ("exact limit", worst_err <= LIMIT_RTOL, f"the run's limit is not the round map's fixed point "
                                                     f"({worst_err:.3g})"),
            ("Theorem 3 floor", valid, f"the limit's gap exceeds Theorem 3's floor (ratio {ratio:.3g})"),
            ("β → 0 limit", to_zero <= BETA0_RTOL, f"the limit at β = {b_min:g} is {to_zero:.3g} away from the "
                                                   "β = 0 map's limit")])
        if verdict == "pass":
            msg = ("the limit is the exact map's fixed point at every β and tends to the β = 0 limit; Theorem 3's "
                   "floor holds and grows as β⁻² while the limit stays bounded")
        res = CheckResult(verdict, measured, "fixed point of the exact round map; floor ≥ gap; finite β → 0 limit",
                          f"relative {LIMIT_RTOL:g}; β → 0 within {BETA0_RTOL:g}", msg)
        return self._finish(res, seeds, consts, worst_err, gaps)

    def _finish(self, res: CheckResult, seeds: list[int], consts: dict, worst_err: float, gaps: Any) -> dict:
        return self.verdict(res, conditions=[], seeds=seeds, constants={"L": consts["L"], "mu": consts["mu"]},
                            reference_gap=consts["reference_gap"], smallest_measured=float(np.min(gaps)),
                            margin=mg.resolution(LIMIT_RTOL))


_BETA_FLOOR_INSTANCE = {"preset": "buttaci-clustered", "message": "data"}


# ---- Sec. 5 "Attaining ε-accuracy": PFL's T_ε against FedProx's
def _teps_leading(consts: dict[str, float]) -> tuple[float, float]:
    """The ε⁻² coefficients (times E) of T_ε for PFL and FedProx at given constants (Sec. 5):
    PFL 16L²Δ² + S²σ⁴/4; FedProx 64L_α²Δ² + L²S²σ⁴/L_α² + α²E⁴G⁴/L_α²."""
    L, a, D, S, s, G, E = (consts[k] for k in ("L", "alpha", "Delta", "S", "sigma", "G", "E"))
    La = L + a
    pfl = 16 * L**2 * D**2 + S**2 * s**4 / 4
    return pfl, 64 * La**2 * D**2 + L**2 * S**2 * s**4 / La**2 + a**2 * E**4 * G**4 / La**2


def _teps_grid() -> dict[str, float]:
    """On a log grid of (L, α/L, Δ, S, σ, G, E): the count of points where PFL's ε⁻² coefficient is not below
    FedProx's, split by σ ≤ G (tight constants: a variance never exceeds the second moment) and σ > G; FedProx's
    α-only terms vanish at α = 0; the catalogue's T_ε is the sum of the terms solved from Theorems 2 and 4."""
    import itertools

    import sympy as sp

    from fedrates.bounds.catalog import buttaci as cat

    bad_tight, bad_loose, total_loose = 0, 0, 0
    for L, ar, D, S, s, G, E in itertools.product((0.1, 1.0, 10.0), (0.0, 0.1, 1.0, 3.0, 30.0), (1e-3, 0.1, 10.0),
                                                   (0.05, 1.0), (0.01, 1.0, 100.0), (0.01, 1.0, 100.0),
                                                   (1, 4, 32)):
        pfl, prox = _teps_leading({"L": L, "alpha": ar * L, "Delta": D, "S": S, "sigma": s, "G": G, "E": E})
        if s <= G:
            bad_tight += int(not pfl < prox)
        else:
            total_loose += 1
            bad_loose += int(not pfl < prox)
    vals = {cat.L: 2, cat.Delta: 3, cat.S: sp.Rational(1, 5), cat.sigma: 1, cat.G: 2, cat.E: 4, cat.eps: 0.01,
            cat.beta: sp.Rational(1, 2)}
    extra = cat.TEPS_PROX.subs(cat.alpha, 0) - (64 * cat.L**2 * cat.Delta**2 / (cat.E * cat.eps**2)
                                                + cat.S**2 * cat.sigma**4 / (cat.E * cat.eps**2)
                                                + 2 * cat.E * cat.G**2 / cat.eps)
    thm2_extra = cat.THM2_RHS.subs(cat.alpha, 0) - (8 * cat.L * cat.Delta / sp.sqrt(cat.E)
                                                    + cat.S * cat.sigma**2 / sp.sqrt(cat.E)) / sp.sqrt(cat.T) \
        - 2 * cat.E * cat.G**2 / cat.T
    return {"tight-constants-violations": float(bad_tight), "loose-sigma-counterexamples": float(bad_loose),
            "loose-sigma-points": float(total_loose),
            "fedprox-alpha-terms-vanish-at-0": float(abs(float(sp.simplify(extra).subs(vals))) > 1e-9),
            "thm2-alpha-terms-vanish-at-0": float(sp.simplify(thm2_extra) != 0)}


@dataclass(frozen=True)
class EpsComplexity(Claim):
    """Sec. 5: PFL's iteration complexity "is asymptotically inferior compared with FedProx" (under a limited last
    term A_βEG²/ε), and FedProx's O(G⁴/ε²) and O(G^{4/3}/ε^{2/3}) terms (and Theorem 2's αE^{3/2}G²/(L_α√T)) exist only
    for α > 0.  Both T_ε are upper bounds read off Theorems 2 and 4, so the comparison is between bounds: checked on
    a grid of constants (the ε⁻² coefficient of PFL's T_ε is below FedProx's at every point with σ ≤ G; with a loose
    σ > G and α > L FedProx's σ⁴ term is the smaller one), with the measured E‖∇f(ŵ_T)‖² of both methods at equal
    (E, T) reported for context.  Informational: no run can confirm or refute an ordering of upper bounds."""

    local_steps: int = 4
    rounds: int = 400
    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})

    def points(self, profile: str) -> list[dict]:
        return [{**NONCONVEX_INSTANCE, "local_steps": self.local_steps, "rounds": self.rounds}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, _, consts = runs.instance(NONCONVEX_INSTANCE)
        E, T, L = self.local_steps, self.rounds, consts["L"]
        seed = seeds[0]
        items = [(f"symbolic:{k}", seed, 0, v, 0.0) for k, v in _teps_grid().items()]
        pfl, _, _, _, _ = _nonconvex_run(self, "pfl", problem, consts, T, E, beta=0.5)
        prox, _, _, _, _ = _nonconvex_run(self, "fedprox", problem, consts, T, E, alpha=0.5 * L)
        items += [("grad_norm_sq_avg:pfl", seed, T, float(np.mean(pfl)), np.nan),
                  ("grad_norm_sq_avg:fedprox", seed, T, float(np.mean(prox)), np.nan)]
        return _rows(self, 0, point, items, problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds(records)
        if (empty := _no_records(self, records, seeds)) is not None:
            return empty
        get = {r.metric: r.value for r in records.itertuples()}
        sym_bad = [k for k in ("symbolic:tight-constants-violations", "symbolic:fedprox-alpha-terms-vanish-at-0",
                               "symbolic:thm2-alpha-terms-vanish-at-0") if get.get(k, 1.0) != 0]
        loose = get.get("symbolic:loose-sigma-counterexamples", 0.0)
        pfl, prox = get.get("grad_norm_sq_avg:pfl", np.nan), get.get("grad_norm_sq_avg:fedprox", np.nan)
        measured = (f"ε⁻² coefficient of T_ε: PFL < FedProx at every grid point with σ ≤ G: {not sym_bad}; with "
                    f"σ > G, FedProx's is smaller at {loose:.0f} of {get.get('symbolic:loose-sigma-points', 0):.0f} "
                    f"points (necessarily α > L: S²σ⁴/4 > L²S²σ⁴/L_α² needs L_α > 2L); measured E‖∇f(ŵ_T)‖² at "
                    f"E = {self.local_steps}, T = {self.rounds}: "
                    f"PFL(β=0.5) {pfl:.3g}, FedProx(α=0.5L) {prox:.3g}")
        checks_ = [("bound comparison", not sym_bad, f"{sym_bad}"),
                   ("runs finite", bool(np.isfinite(pfl) and np.isfinite(prox)), "a run diverged")]
        verdict, msg = _verdict_from(checks_)
        if verdict == "pass":
            msg = ("PFL's T_ε bound has the smaller ε⁻² coefficient whenever σ ≤ G (tight constants); FedProx's "
                   "extra terms vanish at α = 0 (FedAvg)")
        res = CheckResult(verdict, measured, "PFL's ε⁻² coefficient < FedProx's (σ ≤ G); α-terms vanish at α = 0",
                          "exact on the grid", msg)
        return self.verdict(res, conditions=[], seeds=seeds, constants={}, reference_gap=0.0,
                            smallest_measured=float(min(pfl, prox)) if np.isfinite(pfl + prox) else None)


# ---- the claims
_NONCONVEX_REGIME = ("Quadratics with nonconvex clients (Hessians shifted by ±0.5 I with Σp_i t_i = 0, so f stays "
                     "strongly convex and bounded below), C = 6, d = 4, exact gradients, γ = 1/(2L_α√(TE)).")

CLAIMS: tuple[Claim, ...] = (
    Recursion(
        id="buttaci.lemB3/recursion", theorem="buttaci.lemB3", algorithm="pfl", problem="similar_quadratic",
        title="Lemma B.3 round by round: E D_{t+1} ≤ κ_B3 E D_t + A_t",
        regime=_CLUSTER_REGIME + " β = 0.5, E ∈ {1, 5}, σ ∈ {0, 1}, constant and alternating (γ, γ/4) steps, "
        "30 rounds; G² a posteriori along the run.",
        metric="recursion_excess", x="round",
        informational=("D_(t+1) − κ_B3 D_t ≤ 0 at every round, so A_t is never needed, and D_(t+1)/(κ_B3 D_t + A_t) "
                       "≤ 0.22 (its indicator term 8γ_(t−1)²(1−β)²/(γ²β²) keeps A_t large): no variant of the "
                       "catalogue changes its verdict"),
        why="the per-round lemma behind Theorem 3; the exact contraction is checked by buttaci.lemB3.kappa"),
    Recursion(
        id="buttaci.lemA3/recursion", theorem="buttaci.lemA3", algorithm="fedprox", problem="similar_quadratic",
        title="Lemma A.3 round by round: E D_{t+1} ≤ κ_A3 E D_t + A_t",
        regime=_CLUSTER_REGIME + " α = 0.5L, E ∈ {1, 5}, σ ∈ {0, 1}, constant and alternating (γ, γ/4) steps, "
        "30 rounds; G² a posteriori along the run.",
        metric="recursion_excess", x="round",
        why="the per-round lemma behind Theorem 1: with alternating steps D_(t+1) comes within 12% of κ_A3 D_t + A_t"),
    StronglyConvexValidity(
        id="buttaci.thm3/validity", theorem="buttaci.thm3", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 3: E f(w̄_t) − f* ≤ (8) at every round (PFL; G² a posteriori along the run)",
        regime=_CLUSTER_REGIME + " β = 0.5, E ∈ {1, 5}, σ ∈ {0, 1}, 60 rounds.", metric="objective_gap",
        x="round", why="validity only: the floor O(E²G²/μ) keeps the bound ≥ 300× above the measured gap "
                       "(informational)"),
    StronglyConvexValidity(
        id="buttaci.thm1/validity", theorem="buttaci.thm1", algorithm="fedprox", problem="similar_quadratic",
        title="Theorem 1: E f(w̄_t) − f* ≤ (7) at every round (FedProx; G² a posteriori along the run)",
        regime=_CLUSTER_REGIME + " α = 0.5L, E ∈ {1, 5}, σ ∈ {0, 1}, 60 rounds.", metric="objective_gap",
        x="round", why="validity only: the floor O(E²G²/μ) keeps the bound ≥ 300× above the measured gap "
                       "(informational)"),
    BetaFloor(
        id="buttaci.thm3/beta-floor", theorem="buttaci.thm3", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 3's O(G²/β²) floor as β → 0: valid, while PFL's exact limit stays bounded",
        regime=_CLUSTER_REGIME + " Messages from (x, y); β ∈ {0.5, 0.2, 0.1, 0.05, 0.02}, E = 5, γ = 1/(2LE), "
        "exact gradients, 1000 rounds from w*.", metric="limit_gap", x="point",
        why="Sec. 1, 4.2 and 7 name the β⁻² term as the method's limitation; the exact round map predicts the limit "
            "the run reaches at every β, and the β = 0 map its limit as β → 0"),
    NonconvexValidity(
        id="buttaci.thm4/validity", theorem="buttaci.thm4", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 4 and Lemma B.4: stationarity of PFL on quadratics with nonconvex clients",
        regime=_NONCONVEX_REGIME + " β = 0.5; (E, T) ∈ {(1, 100), (4, 100), (4, 400), (8, 200)}.",
        metric="grad_norm_sq_round", x="round",
        why="Theorem 4 needs only smoothness and a lower bound; the per-round lemma is the sharper statement"),
    NonconvexValidity(
        id="buttaci.thm2/validity", theorem="buttaci.thm2", algorithm="fedprox", problem="similar_quadratic",
        title="Theorem 2 and Lemma A.4: stationarity of FedProx on quadratics with nonconvex clients",
        regime=_NONCONVEX_REGIME + " α = 0.5L; (E, T) ∈ {(1, 100), (4, 100), (4, 400), (8, 200)}.",
        metric="grad_norm_sq_round", x="round",
        why="Theorem 2 needs only smoothness and a lower bound; the per-round lemma is the sharper statement"),
    EpsComplexity(
        id="buttaci.teps/comparison", theorem="buttaci.teps.pfl", algorithm="pfl", problem="similar_quadratic",
        title="Sec. 5: PFL's T_ε bound is 'asymptotically inferior' to FedProx's; FedProx's extra terms need α > 0",
        regime=("Constants on a log grid (L, α/L, Δ, S, σ, G, E), 2,430 points; runs for context: "
                + _NONCONVEX_REGIME + " β = 0.5, α = 0.5L, E = 4, T = 400."),
        metric="grad_norm_sq_avg:pfl", x="point",
        informational=("an ordering of two upper bounds on T_ε, checked on a grid of constants: no run can confirm "
                       "or refute it (the runs are reported for context)"),
        why="the paper's ε-complexity comparison orders two upper bounds; the grid shows where it holds"),
    Corollary1(
        id="buttaci.cor1/rate", theorem="buttaci.cor1", algorithm="pfl", problem="similar_quadratic",
        title="Corollary 1: with E = T^(1/3), E‖∇f(ŵ_T)‖² decays as T^(-2/3)",
        regime=("Quadratics with nonconvex clients (shift ±1.5 I, μ = 1, L/μ = 5 per client spectrum), messages "
                "from (x, y), β = 0.5, T ∈ {27, …, 1000} (quick: up to 512) with E = T^(1/3) exactly, "
                "γ = 1/(2L√(TE)), exact gradients."),
        metric="grad_norm_sq_avg", x="round",
        why="deterministic runs: the exponent is measured without seed noise; E = T^(1/3) is an integer on the grid"),
)
