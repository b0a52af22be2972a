"""Errata of Das et al.: Lemma 3 outside convexity, Figure 1's clip thresholds below the condition of the theorems
it illustrates, and proof step (23) under the paper's Poisson sampling with its correction.

* ``das.lem3/nonconvex`` (kind ``statement-false``) — Lemma 3 is stated for L-smooth f_i ("Suppose each f_i is
  L-smooth over ℝ^d"), but its proof uses co-coercivity (96), which needs convexity.  On f(x) = −(L/2)‖x‖² (L-smooth,
  concave) one GD step gives ∇f(x⁺) = −L(1 + ηL)x, so with g2 = ‖∇f(x)‖²

      LHS = (1 + ηL)² g2,   RHS = g2 − (2/(ηL) − 1)(ηL)² g2 = (1 − ηL)² g2,   RHS − LHS = −4ηL·g2 < 0

  (−2 at ηL = ½, L = ‖x‖ = 1).  Predicted and checked: the slack equals −4ηL·g2 to floating point at every (ηL, x)
  of a grid and on an indefinite quadratic, with the catalogue's right-hand side (``das.lem3``) evaluated at the
  computed inputs.  Every theorem uses the lemma for convex f_i (A0), where it holds (``das.lemmas/*``).
* ``das.fig1/clip-condition`` (kind ``experiment-outside-theory``) — Theorems 2/4 need Ĉ = C/E ≥ 4√(L maxΔ*); the
  Figure 1 experiment (§5.3, E = 20) uses C ∈ {40, 50, 100}.  Predicted and checked: on draws of §5.3's recipe
  (``das-quadratic`` preset) 4E√(L maxΔ*) exceeds 100, and the per-client inequality (44) of Case 1,
  A_i ≤ −3ηC‖u_i‖/(8LE), which the proofs derive from the condition, fails for clipped clients at C = 40 (at w* every
  clipped client violates it: A_i = η²C² > 0); at C = 4E√(L maxΔ*) no client is clipped there.
* ``das.erratum/poisson-step23`` (kind ``proof-gap``) — under the paper's Poisson sampling, step (23)'s bound
  E‖(1/r)Σ_{i∈S_k}g_i‖² ≤ (1/n)Σ_i‖g_i‖² fails; the exact value (1/n²)‖Σg_i‖² + ((1 − r/n)/(rn))Σ‖g_i‖² is checked
  two-sided on the algorithm's aggregates (the step holds for full participation and fixed-size sampling, and with
  the factor 1 + 1/r − 1/n under Poisson sampling);
* ``das.step23/corrected`` — that corrected step, E‖a_k‖² ≤ (1 + 1/r − 1/n)(1/n)Σ_i‖g_i‖² + dσ², under Poisson
  sampling with noise calibrated by the PLD accountant, measured on the algorithm (the bound is attained when all
  g_i are equal, so the check is sharp on the aligned instance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.errata import Erratum
from fedrates.verify import checks
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.das._checks import (
    _cond,
    _DasClaim,
    _margin_of,
    _records,
    _seeds_of,
    _table,
    _verdict,
    fold,
    inner_seeds,
)
from fedrates.verify.claims.das.instances import (
    ALIGNED,
    FIG_PAPER,
    PAPER_C,
    _make,
    _start,
    calibrated,
    clip_ref,
    instance,
    light_constants,
    privacy_text,
    trajectory,
    update_matrices,
    updates,
)
from fedrates.verify.claims.das.theorems import local_steps

pd = lazy_import("pandas")

__all__ = ["CLAIMS", "STEP23_ERRATUM", "CorrectedStep23", "PoissonStep23", "lemma3_slack"]


def lemma3_slack(Q: np.ndarray, x: np.ndarray, eta: float, L: float) -> tuple[float, float]:
    """(RHS − LHS of Lemma 3 by the catalogue's right-hand side, g2) for one GD step on f(w) = ½wᵀQw from x."""
    from fedrates.bounds import catalog

    g = Q @ x
    x1 = x - eta * g
    g1 = Q @ x1
    g2, dg2, lhs = float(g @ g), float((g1 - g) @ (g1 - g)), float(g1 @ g1)
    th = catalog.get("das.lem3")
    values = {"L": L, "dg2": dg2, "eta": eta, "g2": g2}
    rhs = float(th.rhs.subs({s: values[str(s)] for s in th.rhs.free_symbols}))
    return rhs - lhs, g2


@dataclass(frozen=True)
class LemmaThreeNonConvex(Claim):
    """Lemma 3 on concave and indefinite quadratics (L-smooth, not convex): slack = −4ηL·g2 (see the module)."""

    L: float = 1.0
    eta_L: tuple = (0.1, 0.25, 0.5, 1.0)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "none", "index": 0}]

    def seeds(self, profile: str, base_seed: int = 0) -> list[int]:
        return [0]

    def _cases(self) -> list[tuple[str, np.ndarray, np.ndarray, float, float]]:
        """(name, Q, x, eta, predicted slack/g2) — the prediction is −4ηL along a direction of curvature −L."""
        L = self.L
        out = []
        for a in self.eta_L:
            eta = a / L
            out.append((f"f = -L x^2/2, eta L = {a:g}", np.array([[-L]]), np.array([1.0]), eta, -4 * a))
            # indefinite: curvature L along e_1, -L along e_2; start along e_2 (the gradient stays there)
            Q = np.diag([L, -L])
            out.append((f"diag(L, -L) from e_2, eta L = {a:g}", Q, np.array([0.0, 2.0]), eta, -4 * a))
        return out

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        rows = []
        for _, Q, x, eta, pred in self._cases():
            slack, g2 = lemma3_slack(Q, x, eta, self.L)
            rows.append((slack / g2, pred))
        arr = np.asarray(rows)
        return _records(self, 0, point, list(seeds), {"slack_over_g2": arr[None, :, 0],
                                                      "predicted": arr[None, :, 1]})

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds_of(records)
        got = _table(records, "slack_over_g2").to_numpy()[0]
        pred = _table(records, "predicted").to_numpy()[0]
        names = [c[0] for c in self._cases()]
        err = float(np.max(np.abs(got - pred) / np.abs(pred)))
        reproduced = bool(np.all(got < 0) and err <= 1e-10)
        lines = [f"{n}: (RHS - LHS)/g2 = {v:.6g} (predicted {p:.6g})" for n, v, p in zip(names, got, pred, strict=True)]
        res = checks.CheckResult(
            "fail" if reproduced else "pass",
            f"min (RHS - LHS)/||grad f||^2 = {float(got.min()):.6g}; max relative deviation from -4 eta L: {err:.2e}",
            "Lemma 3: RHS - LHS >= 0 for every L-smooth f",
            "floating point (relative 1e-10)",
            "; ".join(lines) + ". f is L-smooth (|f''| = L) and the catalogue's condition dg2 <= eta^2 L^2 g2 holds "
            "with equality; the lemma holds for convex f (das.lemmas/*)",
        )
        from fedrates.verify import margins

        return self.verdict(res, conditions=[], seeds=seeds, constants={"worst_slack_over_g2": float(got.min())},
                            statement=self.title, margin=margins.resolution(err))


@dataclass(frozen=True)
class ClipCondition(Claim):
    """Figure 1's C against 4E√(L maxΔ*) over draws of §5.3's recipe, and (44) Case 1 at w* (see the module)."""

    E: int = 20
    eta: float = 0.01
    draws: tuple = (("quick", 3), ("standard", 10), ("full", 10))

    def _draws(self, profile: str) -> list[int]:
        return list(range(int(dict(self.draws)[profile])))

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "quadratic", **FIG_PAPER, "seed": s, "index": j}
                for j, s in enumerate(self._draws(profile))]

    def seeds(self, profile: str, base_seed: int = 0) -> list[int]:
        return [0]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        params = {k: point[k] for k in FIG_PAPER}
        c = light_constants(params)
        threshold = 4 * self.E * math.sqrt(c["L"] * c["Delta_max"])
        levels = (threshold, *PAPER_C)
        at = (self._case1_at_optimum(params, levels, c["L"]) if point["index"] == 0
              else [(np.nan, np.nan)] * len(levels))
        vals = {"threshold": np.array([[threshold]]), "clipped_at_threshold": np.array([[at[0][1]]])}
        for C, viol in zip(PAPER_C, at[1:], strict=True):  # (44) Case 1 at w* at each of the paper's C (draw 0)
            vals[f"case1_violations_C{C:g}"] = np.array([[viol[0]]])
            vals[f"clipped_C{C:g}"] = np.array([[viol[1]]])
        return _records(self, point["index"], point, list(seeds), vals)

    def _case1_at_optimum(self, params: dict, levels: tuple[float, ...], L: float) -> list[tuple[float, float]]:
        """(clients violating (44) Case 1 at w*, clients clipped at w*) at each clip level C, with E exact local GD
        steps of size η from w*; L = max_i λ_max(Q_i) of the instance (:func:`light_constants`)."""
        from fedrates.solvers import problems

        p = dict(params)
        pr = problems.make("quadratic", p.pop("preset"), **p)
        Q = np.asarray(pr.datafit.Q, dtype=float)
        cen = np.asarray(pr.extras["centres"], dtype=float)
        Qbar = Q.mean(axis=0)
        w_star = np.linalg.solve(Qbar, np.einsum("nij,nj->i", Q, cen) / Q.shape[0])
        W = np.broadcast_to(w_star, cen.shape).copy()
        for _ in range(self.E):
            W -= self.eta * np.einsum("nij,nj->ni", Q, W - cen)
        U = (w_star - W) / self.eta
        nrm = np.linalg.norm(U, axis=1)
        out = []
        for C in levels:
            clipped = nrm > C
            g = U * np.minimum(1.0, C / nrm)[:, None]
            A = self.eta**2 * np.sum(g**2, axis=1)  # -2 eta <g, w* - w*> + eta^2 ||g||^2
            rhs = -3 * self.eta * C * nrm / (8 * L * self.E)
            out.append((float(np.sum(clipped & (A > rhs))), float(np.sum(clipped))))
        return out

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = _seeds_of(records)
        draws = self._draws(profile)
        thr = np.array([float(_table(records, "threshold", j).to_numpy()[0, 0]) for j in range(len(draws))])
        viol = {C: float(_table(records, f"case1_violations_C{C:g}", 0).to_numpy()[0, 0]) for C in PAPER_C}
        clipped = {C: float(_table(records, f"clipped_C{C:g}", 0).to_numpy()[0, 0]) for C in PAPER_C}
        clipped_thr = float(_table(records, "clipped_at_threshold", 0).to_numpy()[0, 0])
        below = bool(np.all(max(PAPER_C) < thr))
        # the negative control: (44) Case 1 fails at every paper C at which some client is clipped (and at C = 40)
        fails_everywhere = viol[PAPER_C[0]] > 0 and all(viol[C] > 0 for C in PAPER_C if clipped[C] > 0)
        reproduced = below and fails_everywhere
        per_c = ", ".join(f"C = {C:g}: {viol[C]:.0f} of {clipped[C]:.0f} clipped clients" for C in PAPER_C)
        res = checks.CheckResult(
            "fail" if reproduced else "pass",
            f"4E sqrt(L max Delta*) = {thr.min():.4g}..{thr.max():.4g} over {len(draws)} draws of the recipe (draw 0: "
            f"{thr[0]:.4g}); (44) Case 1 fails at w* for {per_c}",
            f"Figure 1's C in {{{', '.join(f'{c:g}' for c in PAPER_C)}}} >= 4E sqrt(L max Delta*) (Theorems 2/4, E = "
            f"{self.E})",
            "exact (closed-form minimiser, E exact local steps)",
            f"the paper's C are {thr.min() / max(PAPER_C):.3g}-{thr.max() / min(PAPER_C):.3g}x below the threshold; "
            f"at C = 4E sqrt(L max Delta*) (draw 0) {clipped_thr:.0f} clients are clipped at w*, so Case 1 is not "
            f"needed there. eta = {self.eta:g} (Figure 1's eta is only in its legend; Case 1 at w* fails for any eta).",
        )
        viol, clipped = viol[PAPER_C[0]], clipped[PAPER_C[0]]
        from fedrates.verify import margins

        return self.verdict(res, conditions=[], seeds=seeds,
                            constants={"threshold_min": float(thr.min()), "threshold_max": float(thr.max()),
                                       "case1_violations_C40": viol, "clipped_C40": clipped},
                            statement=self.title, margin=margins.slack(float(thr.min()), max(PAPER_C)))


# ==== step (23) under Poisson sampling ===============================================================================
@dataclass(frozen=True)
class _SampledRound(Claim):
    """One round of Algorithm 1 with Poisson sampling at rate p = r/n from w_0 far from the common minimiser of
    the aligned instance (every update clipped): per claim seed the mean of ‖a‖² over ``inner`` runs,
    a = (w_0 − w_1)/β.  With g_i = clip(u_i(w_0), C) and noise of std σ, exactly
    E‖a‖² = (1/n²)‖Σ_ig_i‖² + ((1 − p)/(rn))Σ_i‖g_i‖² + dσ²."""

    problem_params: dict = field(default_factory=lambda: dict(ALIGNED))
    #: what the claim measures instead of a distance to a certified optimum
    reference_free: str | None = ("one round's second moment against its exact value and step (23)'s bound: no "
                                  "optimum is measured")
    rate: float = 0.3
    eta: float = 0.1
    beta: float = 0.05
    E: int = 3
    C: float = 1.0
    offset: float = 20.0
    #: one-round runs per claim seed (see :func:`inner_seeds`)
    inner: int = 100

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "quadratic", **self.problem_params, "rate": self.rate, "index": 0}]

    def _sigma(self) -> float:
        """σ of the run (none here)."""
        return 0.0

    def _sent(self) -> np.ndarray:
        inst = instance(self.problem_params)
        P = update_matrices(inst, self.eta, self.E)
        return clip_ref(updates(inst, P, _start(inst, self.offset)[None])[0], self.C)  # (n, d)

    def _moments(self, g: np.ndarray, n: int) -> tuple[float, float, float]:
        """(r, E‖a‖² without the noise term, the bound (1/n)Σ_i‖g_i‖² of step (23))."""
        p = self.rate
        r = p * n
        exact = float(np.sum(g.sum(axis=0) ** 2) / n**2 + (1 - p) / (r * n) * np.sum(g**2))
        return r, exact, float(np.sum(g**2) / n)

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        inst = instance(self.problem_params)
        w0 = _start(inst, self.offset)
        alg = _make(self, "dp_fedavg_clip", step=self.eta, server_step=self.beta, clip=self.C, sigma=self._sigma(),
                    rate=self.rate, local_steps=self.E, output_point="last")
        X = trajectory(alg, inst, 1, inner_seeds(seeds, self.inner), w0)["X"]
        a = (X[:, 0] - X[:, 1]) / self.beta
        return _records(self, 0, point, list(seeds), {self.metric: fold(np.sum(a**2, axis=-1)[:, None], self.inner)})


@dataclass(frozen=True)
class PoissonStep23(_SampledRound, _DasClaim):
    """E‖a_k‖² for one round of Algorithm 1 with Poisson sampling (rate p = r/n) and σ = 0 equals exactly
    (1/n²)‖Σ_ig_i‖² + ((1 − p)/(rn))Σ_i‖g_i‖² (g_i = clip(u_i, C), division by r), which exceeds the bound
    (1/n)Σ_i‖g_i‖² that proof step (23) takes from Fact 2 (valid only for |S_k| ≤ r).  The prediction is checked
    two-sided on a_k = (w_0 − w_1)/β; the paper's inequality is then compared with the exact value."""

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        inst = instance(self.problem_params)
        seeds = _seeds_of(records)
        g = self._sent()
        n, p = inst.n, self.rate
        r, exact, paper = self._moments(g, n)
        y = _table(records, self.metric).to_numpy()
        res = checks.exact_expectation(y, np.array([exact]))
        clipped = bool(np.all(np.linalg.norm(g, axis=-1) >= self.C * (1 - 1e-12)))
        conds = [_cond("every client update is clipped (||g_i|| = C)", clipped, "at w_0")]
        prediction_ok = res.verdict == "pass"
        msg = (
            f"E||a||^2: exact {exact:.6g} (Poisson, rate {p:g}, division by r = {r:g}), measured {y.mean():.6g} "
            f"over {len(seeds)} seeds × {self.inner} runs ({res.verdict}: {res.message}); step (23)'s bound "
            f"(1/n) sum ||g_i||^2 = "
            f"{paper:.6g}, exceeded by the factor {exact / paper:.4g}"
        )
        if not prediction_ok:
            out = self.verdict(
                checks.CheckResult(res.verdict, res.measured, res.predicted, res.tolerance, msg),
                conditions=conds,
                seeds=seeds,
                constants={"exact": exact, "paper_bound": paper},
            )
            out["verdict"] = res.verdict  # the erratum's own prediction failed: never shown as an erratum
            return out
        holds = exact <= paper * (1 + tol.FLOAT_SLACK)
        result = checks.CheckResult(
            "pass" if holds else "fail",
            f"exact E||a||^2 / step-(23) bound = {exact / paper:.4g}",
            "E||a||^2 <= (1/n) sum ||g_i||^2 (Fact 2)",
            res.tolerance,
            msg,
        )
        return self.verdict(
            result,
            conditions=conds,
            seeds=seeds,
            constants={"exact": exact, "paper_bound": paper},
            statement=self.title,
            margin=_margin_of(res),  # the resolution of the two-sided check of the predicted exact value
        )


@dataclass(frozen=True)
class CorrectedStep23(_SampledRound):
    """E‖a_k‖² ≤ (1 + 1/r − 1/n)(1/n)Σ_i‖g_i‖² + dσ² for one round under Poisson sampling with noise: step (23)
    corrected for the paper's sampling (the bound is attained when all g_i are equal, so the check is sharp on the
    aligned instance); E‖a_k‖² is checked two-sided against its exact value, then the exact value against the bound."""

    #: what the claim measures instead of a distance to a certified optimum
    reference_free: str | None = ("one round's second moment against its exact value and the corrected bound: no "
                                  "optimum is measured")

    eps: float = 8.0
    #: one-round runs per claim seed: 800 keep the two-sided check's resolution near 4% (below the 10% at which
    #: it would be inconclusive) at every base seed
    inner: int = 800

    def _sigma(self) -> float:
        return calibrated(self.eps, 1, self.C, instance(self.problem_params).n, self.rate)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        inst = instance(self.problem_params)
        seeds = _seeds_of(records)
        g = self._sent()
        n, p = inst.n, self.rate
        sigma = self._sigma()
        noise = inst.d * sigma**2
        r, exact, paper = self._moments(g, n)
        bound = (1 + 1 / r - 1 / n) * paper + noise
        exact, paper = exact + noise, paper + noise
        y = _table(records, self.metric).to_numpy()
        res = checks.exact_expectation(y, np.array([exact]))
        info = (f"E||a||^2 measured {y.mean():.6g} against the exact {exact:.6g} ({res.verdict}: {res.message}); "
                f"corrected bound {bound:.6g} = {bound / exact:.5f} x exact (equality when the g_i are equal); the "
                f"uncorrected step (23) bound {paper:.6g} is exceeded by the factor {exact / paper:.4f}; "
                f"{privacy_text(self.eps, p, 1)}: sigma = {sigma:.4g}; {len(seeds)} seeds x {self.inner} runs")
        if res.verdict != "pass":
            res.message = info
            return _verdict(self, res, [], seeds, {"exact": exact, "bound": bound, "paper_bound": paper})
        holds = exact <= bound * (1 + 1e-12)
        out = checks.CheckResult(
            "pass" if holds else "fail", f"exact E||a||^2 = {exact:.6g} (measured {y.mean():.6g})",
            f"<= (1 + 1/r - 1/n)(1/n) sum ||g_i||^2 + d sigma^2 = {bound:.6g}", res.tolerance, info)
        return _verdict(self, out, [], seeds, {"exact": exact, "bound": bound, "paper_bound": paper},
                        margin=("slack", bound / exact, None))


#: proof step (23) under the printed Poisson sampling (the same location as the catalogue's note, so one entry)
STEP23_ERRATUM = Erratum(
    kind="proof-gap",
    where="Appendix B.1, proof of Theorem 5 (full version of Theorem 2), step (23)",
    quote="eq. 23 is obtained by using Fact 2: E_S||(1/r) sum_{i in S_k} clip(u_k^(i), C)||^2 <= (1/n) sum_i "
    "||clip(u_k^(i), C)||^2, with S_k 'formed by sampling each client with probability r/n' (Algorithms 1/2, line 3)",
    true_statement="Fact 2 needs |S_k| <= r, which Poisson sampling does not give: the exact value is "
    "(1/n^2)||sum_i g_i||^2 + ((1 - r/n)/(r n)) sum_i ||g_i||^2, at most (1 + 1/r - 1/n) times the step's right-hand "
    "side (equality when all g_i are equal). The step holds as written for full participation (r = n) and for "
    "fixed-size sampling of r clients, so requiring r = n over-restricts; under Poisson sampling the step holds "
    "with that factor (claim das.step23/corrected), which enters the proof only through its eta^2 terms. The "
    "theorems are not shown false: the gap is in this step.",
    evidence="one round of Algorithm 1 at rate r/n = 0.3 with every update clipped: the algorithm's E||a_k||^2 "
    "matches the exact Poisson value (two-sided) and exceeds the step's bound by the printed factor",
    prediction="the exact Poisson-sampled second moment exceeds (1/n) sum_i ||g_i||^2",
)

CLAIMS: tuple[Claim, ...] = (
    LemmaThreeNonConvex(
        id="das.lem3/nonconvex",
        theorem="das.lem3",
        title="Lemma 3 as printed (L-smooth f_i, no convexity) fails on concave and indefinite quadratics: "
        "RHS - LHS = -4 eta L ||grad f||^2",
        algorithm="dp_fedavg_clip",
        problem="none",
        regime="One local GD step on f(x) = -L x^2/2 (L = 1) and on diag(L, -L) from e_2, eta L in {0.1, 0.25, "
        "0.5, 1}; the catalogue's right-hand side of das.lem3 evaluated at the computed inputs; deterministic.",
        why="Lemma 3's proof uses co-coercivity, which needs convexity: the printed class is too large",
        metric="slack_over_g2",
        x="round",
        n_seeds={"quick": 1, "standard": 1, "full": 1},
        reference_free="a closed-form counterexample: no optimisation problem",
        erratum=Erratum(
            kind="statement-false",
            where="Appendix F, Lemma 3 and its proof (96)",
            quote="Suppose each f_i is L-smooth over R^d. Then ||grad f_i(w_{k,tau+1})||^2 <= ||grad f_i(w_{k,tau})||^2"
            " - (2/(eta_k L) - 1)||grad f_i(w_{k,tau+1}) - grad f_i(w_{k,tau})||^2",
            true_statement="false for L-smooth non-convex f_i; true for convex L-smooth f_i, the only case the "
            "theorems use",
            evidence="f(x) = -L x^2/2: RHS - LHS = -4 eta L ||grad f(x)||^2 exactly (-2 at eta L = 1/2, L = |x| = 1)",
            prediction="RHS - LHS = -4 eta L ||grad f||^2 < 0 on f = -L x^2/2 and along the concave direction of "
            "diag(L, -L)",
        ),
    ),
    ClipCondition(
        id="das.fig1/clip-condition",
        theorem="das.fig1",
        title="Figure 1's clip thresholds C in {40, 50, 100} lie below the condition C >= 4E sqrt(L max Delta*) of "
        "Theorems 2/4, and the Case-1 inequality (44) fails there (negative control at each paper C)",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime="Section 5.3's recipe (das-quadratic preset: n = 100, d = 200, rank-20 Q_i), E = 20; threshold "
        "4E sqrt(L max Delta*) with L = max_i lambda_max(Q_i) and the closed-form minimiser, over draws 0..2 (quick) "
        "or 0..9 (standard, full); (44) Case 1 at w* on draw 0 with E exact local steps of size 0.01, at each paper "
        "C in {40, 50, 100} (the negative control the theory predicts: it must fail wherever a client is clipped) "
        "and at the threshold.",
        why="Figure 1 is offered as evidence for the theorems, yet runs outside their condition",
        metric="threshold",
        x="round",
        n_seeds={"quick": 1, "standard": 1, "full": 1},
        reference_free="closed-form minimisers of the draws; no optimisation run",
        erratum=Erratum(
            kind="experiment-outside-theory",
            where="Section 5.3, Figure 1 (C in {40, 50, 100}, E = 20) against Theorems 2/4 (C-hat >= 4 sqrt(L max_j "
            "Delta_j*))",
            quote="for C = {50, 100} and all values of eta, normalization attains an appreciably lower function "
            "suboptimality than clipping",
            true_statement="on the described distribution C-hat = C/E is 2-7x below 4 sqrt(L max Delta*), so "
            "Figure 1 is not covered by Theorems 2/4; the theorems themselves are not contradicted",
            evidence="4E sqrt(L max Delta*) over draws of the recipe, and the per-client inequality (44), Case 1, "
            "failing for clipped clients at C = 40",
            prediction="every draw's threshold exceeds 100 and (44) Case 1 fails for some clipped client at C = 40 and "
            "at every other paper C (50, 100) at which a client is clipped at w*",
        ),
    ),
    PoissonStep23(
        id="das.erratum/poisson-step23",
        theorem="das.thm5",
        title="Poisson sampling (Algorithms 1/2, line 3) breaks proof step (23): E||(1/r) sum_S g_i||^2 exceeds "
        "(1/n) sum ||g_i||^2",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime="Realisable quadratics (10 clients, d = 6, common minimiser), w_0 far from it (aligned updates, all "
        "clipped at C = 1), participation probability r/n = 0.3, sigma = 0, one round, a = (w_0 - w_1)/beta; exact "
        "value (1/n^2)||sum g_i||^2 + ((1 - r/n)/(r n)) sum ||g_i||^2 checked two-sided, then compared with the "
        "bound used by the proof.",
        why="erratum E6: the theorems need full participation (or |S_k| <= r); with the paper's Poisson sampling "
        "the proof's step fails by a computable factor",
        metric="aggregate_norm_sq",
        x="round",
        n_seeds={"quick": 32, "standard": 64, "full": 100},
        erratum=STEP23_ERRATUM,
    ),
    CorrectedStep23(
        id="das.step23/corrected",
        theorem="das.eq46",
        title="Step (23) corrected for Poisson sampling: E||a_k||^2 <= (1 + 1/r - 1/n)(1/n) sum ||g_i||^2 + d sigma^2",
        algorithm="dp_fedavg_clip",
        problem="quadratic",
        regime=(
            "Realisable quadratics (10 clients, d = 6, common minimiser), w_0 far from it (aligned updates, all "
            "clipped at C = 1: the bound is nearly attained), rate 0.3, one round, sigma calibrated to (8, 1e-5) "
            "by PLD (add/remove, K = 1); E||a||^2 checked two-sided against its exact value, which is then "
            "compared with the corrected bound."
        ),
        why="the factor by which the theorems' constants change under the paper's sampling",
        metric="aggregate_norm_sq",
        x="round",
        n_seeds={"quick": 16, "standard": 24, "full": 40},
    ),
) + local_steps.ERRATUM_CLAIMS
