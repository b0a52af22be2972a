"""Tight worst cases with PEPit: certified SDPs, the textbook case against its closed form, the K = 1 reductions
against known rates, and verdicts that can fail (a contraction factor below the true one is found false)."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("PEPit", reason="PEPit is a dependency of the falsify command")

from fedrates.verify import pep  # noqa: E402


def _certified_close(result: pep.PEPResult, expected: float) -> None:
    assert result.certified, result.as_dict()
    # the SDP is accurate to its certified accuracy; Clarabel's own tolerance (1e-8, relative) is added for the
    # closed form's rounding in the solver's scaling
    tol = result.accuracy + 1e-7 * max(1.0, abs(expected))
    assert abs(result.dual - expected) <= tol, (result.dual, expected, tol)
    assert abs(result.primal - expected) <= tol, (result.primal, expected, tol)


@pytest.mark.parametrize(("L", "gamma_L", "N"), [(1.0, 1.0, 1), (1.0, 1.0, 4), (3.0, 0.5, 3), (2.0, 0.25, 2)])
def test_textbook_gradient_descent_matches_drori_teboulle(L: float, gamma_L: float, N: int) -> None:
    """GD on L-smooth convex f: tight worst case f(x_N) - f* = L ||x0 - x*||^2 / (4 N L gamma + 2), gamma <= 1/L."""
    case = pep.get("textbook/gd-smooth-convex")
    result = pep.solve(case.build({"L": L, "gamma": gamma_L / L, "N": N}))
    _certified_close(result, L / (4 * N * L * (gamma_L / L) + 2))


def test_textbook_case_is_not_matched_by_a_wrong_formula() -> None:
    """The textbook check can fail: the classical non-tight bound L/(2 N) at gamma = 1/L is far from the SDP value."""
    case = pep.get("textbook/gd-smooth-convex")
    result = pep.solve(case.build({"L": 1.0, "gamma": 1.0, "N": 4}))
    assert result.certified
    wrong = 1.0 / (2 * 4)  # L ||x0 - x*||^2 / (2 N) (the textbook upper bound, not tight)
    assert abs(result.dual - wrong) > 100 * result.accuracy
    verdict, ratio, _ = pep.compare(wrong, result)
    assert verdict == "holds" and ratio == pytest.approx(wrong / result.dual)


@pytest.mark.parametrize(("mu", "gamma", "E"), [(0.1, 0.5, 3), (0.2, 0.25, 2)])
def test_fedavg_one_client_reduction_matches_gd_contraction(mu: float, gamma: float, E: int) -> None:
    """FedAvg with K = 1 is E GD steps; for gamma <= 2/(L + mu) the tight worst ||w_E - w*||^2 / ||w_0 - w*||^2 on
    F_{mu,L} is max(|1 - gamma mu|, |1 - gamma L|)^(2E) (Taylor, Hendrickx & Glineur 2017)."""
    result = pep.solve(pep._fedavg_round({"L": 1.0, "mu": mu, "gamma": gamma, "E": E}))
    _certified_close(result, max(abs(1 - gamma * mu), abs(1 - gamma)) ** (2 * E))


def test_catalogued_contraction_factors_hold_with_their_looseness() -> None:
    for case_id in ("buttaci.lemA3.kappa/fedavg-K1", "buttaci.lemA3.kappa/fedprox-K1", "buttaci.lemB3.kappa/pfl-K1",
                    "das.lem2/local-gd"):
        comp = pep.run_case(case_id)
        assert comp.verdict == "holds", comp.as_dict()
        assert all(c["holds"] for c in comp.conditions), comp.conditions
        assert comp.ratio is not None and comp.ratio > 1.0
    # FedAvg, K = 1: kappa = (1 - gamma mu)^E against the tight (1 - gamma mu)^(2E): looseness exactly 1/kappa
    comp = pep.run_case("buttaci.lemA3.kappa/fedavg-K1")
    kappa = (1 - 0.5 * 0.1) ** 3
    assert comp.bound == pytest.approx(kappa, rel=1e-12)
    assert comp.ratio == pytest.approx(1 / kappa, rel=1e-6)


@pytest.mark.parametrize("case_id", ["buttaci.lemA3.kappa/fedavg-K1", "buttaci.lemA3.kappa/fedprox-K1",
                                     "buttaci.lemB3.kappa/pfl-K1"])
def test_contraction_factor_smaller_than_the_true_one_is_false_on_the_class(case_id: str) -> None:
    """Soundness: a factor 5% below the certified worst case (a wrong, too optimistic kappa) -> false-on-class."""
    true = pep.run_case(case_id)
    scale = 0.95 * true.result.primal / true.bound  # a factor 5% below the certified worst case
    comp = pep.run_case(case_id, bound_scale=scale)
    assert comp.verdict == "false-on-class", comp.as_dict()


def test_das_lemma3_tight_on_convex_and_false_without_convexity() -> None:
    """Lemma 3 is co-coercivity (worst slack 0 on convex f); on L-smooth nonconvex f one GD step can multiply
    ||grad f||^2 by (1 + eta L)^2 (the catalogued erratum): slack (1+eta L)^2 - 1 + (2/(eta L) - 1)(eta L)^2 = 2
    at eta L = 1/2."""
    convex = pep.run_case("das.lem3/convex")
    assert convex.verdict == "tight", convex.as_dict()
    assert convex.params["rhs_coefficients"] == pytest.approx({"g2": 1.0, "dg2": -3.0})
    nonconvex = pep.run_case("das.lem3/nonconvex")
    assert nonconvex.verdict == "false-on-class"
    eta_L = 0.5
    expected = (1 + eta_L) ** 2 - 1 + (2 / eta_L - 1) * eta_L**2
    _certified_close(nonconvex.result, expected)


def test_solver_failure_is_inconclusive_with_the_message() -> None:
    case = pep.get("textbook/gd-smooth-convex")
    result = pep.solve(case.build(case.params), solver="NO_SUCH_SOLVER")
    assert not result.certified and result.message
    verdict, ratio, text = pep.compare(0.0, result)
    assert verdict == "inconclusive" and ratio is None and result.message.split(":")[0] in text


def test_inaccurate_solution_is_inconclusive_not_a_verdict() -> None:
    """A status 'optimal' with a residual above tolerance or a large duality gap gives no verdict."""
    base = dict(primal=0.5, dual=0.5, gap=0.0, primal_residual=1e-9, dual_residual=1e-9, proof_residual=1e-9,
                status="optimal", solver="X", seconds=0.0)
    assert pep.compare(0.1, pep.PEPResult(**base))[0] == "false-on-class"
    for bad in ({"proof_residual": 1e-3}, {"dual_residual": 1e-4}, {"gap": 1e-3, "dual": 0.501},
                {"primal_residual": 1e-5}):
        assert pep.compare(0.1, pep.PEPResult(**{**base, **bad}))[0] == "inconclusive", bad


def test_accuracy_band_gives_tight() -> None:
    r = pep.PEPResult(primal=1.0, dual=1.0 + 1e-9, gap=1e-9, primal_residual=0.0, dual_residual=0.0,
                      proof_residual=0.0, status="optimal", solver="X", seconds=0.0)
    assert pep.compare(1.0, r)[0] == "tight"
    assert pep.compare(1.0 + 1e-6, r)[0] == "holds"
    assert pep.compare(1.0 - 1e-6, r)[0] == "false-on-class"
    assert math.isinf(pep.PEPResult(None, None, None, None, None, None, "error", "X", 0.0).accuracy)


@pytest.mark.parametrize(("case_id", "algorithm", "hyper"), [
    ("buttaci.lemA3.kappa/fedavg-K1", "fedavg", {"step": 0.5, "local_steps": 3}),
    ("buttaci.lemA3.kappa/fedprox-K1", "fedprox", {"step": 0.5, "local_steps": 3, "mu_prox": 1.0}),
])
def test_pep_reduction_is_the_implemented_round(case_id: str, algorithm: str, hyper: dict) -> None:
    """The PEP models the implemented method: one round of the solvers' algorithm with one client and exact
    gradients on a quadratic with spectrum [mu, L] attains the PEP worst case along the mu-eigenvector, and no
    random start exceeds it."""
    import numpy as np

    from fedrates.solvers import algorithms, problems, reference

    comp = pep.run_case(case_id)
    assert comp.result.certified
    problem = problems.make("quadratic", None, structure="random", clients=1, dim=3, mu=0.1, L=1.0, spread=1.0,
                            seed=4)
    ev, V = np.linalg.eigh(problem.datafit.hessians[0])
    centre = reference.solve(problem).w
    rng = np.random.default_rng(0)
    starts = [V[:, 0]] + [d / np.linalg.norm(d) for d in rng.standard_normal((5, 3))]
    ratios = []
    for d in starts:
        trace = algorithms.run_batch(algorithm, problem, 1, seeds=[0], gradients="exact", w0=centre + d, **hyper)
        ratios.append(float(trace.final()["distance_to_optimum"].iloc[0]) ** 2)
    tol = comp.result.accuracy + 1e-9
    assert ratios[0] == pytest.approx(comp.result.dual, abs=tol)
    assert max(ratios) <= comp.result.dual + tol


def test_textbook_gate_passes_and_a_broken_solver_makes_every_verdict_inconclusive() -> None:
    ok, text = pep.textbook_gate()
    assert ok, text
    comps = pep.compare_theorem("das.lem3", solver="NO_SUCH_SOLVER")
    assert comps and all(c.verdict == "inconclusive" for c in comps)
    assert all("textbook" in c.explanation for c in comps)
    assert pep.compare_theorem("bao.thm2.1.explicit") == []


def test_solver_failure_through_the_theorem_comparison_is_inconclusive_with_its_message() -> None:
    """compare_theorem runs every case with the requested solver; when it fails, no verdict, the solver's message."""
    out = pep.compare_theorem("das.lem2", solver="NO_SUCH_SOLVER")
    assert out
    for comp in out:
        assert comp.verdict == "inconclusive" and comp.ratio is None
        assert comp.result.solver == "NO_SUCH_SOLVER" and not comp.result.certified
        assert "NO_SUCH_SOLVER" in comp.explanation and comp.result.message in comp.explanation


def test_cli_reports_solver_failure_as_inconclusive(tmp_path, monkeypatch, capsys) -> None:
    import functools

    from fedrates.verify.cli import main

    monkeypatch.setattr(pep, "compare_theorem", functools.partial(pep.compare_theorem, solver="NO_SUCH_SOLVER"))
    assert main(["falsify", "das.lem2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "das.lem2/local-gd: inconclusive" in out and "why:" in out and "NO_SUCH_SOLVER" in out
    assert "holds" not in out.split("das.lem2/local-gd:")[1].splitlines()[0]
    assert (tmp_path / "report.html").stat().st_size > 0 and (tmp_path / "report.pdf").read_bytes()[:4] == b"%PDF"


# ---- Bylinkin et al.: one outer iteration of Accelerated Extragradient (exact oracles, exact subproblem) ----------
def test_bylinkin_printed_recursion_is_false_on_a_subclass_of_the_papers_assumptions() -> None:
    """Theorem 5 with sigma = 0: the printed Phi (weight tau/eta = 2 mu) can grow by more than 1 - sqrt(mu theta)/2
    over the second iteration, on instances with h_1 mu-strongly convex and smooth, r = h - h_1 convex delta-smooth
    (all of the paper's assumptions hold): certified SDP, worst case above the factor (even above 1)."""
    comp = pep.run_case("bylinkin.thm5/aeg-exact-second-step")
    assert comp.result.certified, comp.result.as_dict()
    assert all(c["holds"] for c in comp.conditions), comp.conditions
    kappa = 1 - math.sqrt(0.01 / 3) / 2
    assert comp.bound == pytest.approx(kappa, rel=1e-12)
    assert comp.verdict == "false-on-class", comp.as_dict()
    # the certified primal instance exceeds the factor by far more than the accuracy (here Phi even increases)
    assert comp.result.primal - comp.result.accuracy > 1.0 > kappa


def test_bylinkin_corrected_recursion_holds_on_the_proofs_class_with_its_looseness() -> None:
    """The corrected Lyapunov function Phic = mu||x - x*||^2 + h(xbar) - h* contracts by the factor from any state,
    on h mu-strongly convex, r delta-smooth (a superclass); the factor is nearly tight (bound/worst within 5%)."""
    comp = pep.run_case("bylinkin.thm5.corrected/aeg-exact")
    assert comp.result.certified and comp.verdict == "holds", comp.as_dict()
    assert comp.ratio is not None and 1.0 < comp.ratio < 1.05
    # soundness: the same comparison with the factor made 3% smaller than the certified worst case is refuted
    scale = 0.97 * comp.result.primal / comp.bound
    assert pep.run_case("bylinkin.thm5.corrected/aeg-exact", bound_scale=scale).verdict == "false-on-class"


def test_bylinkin_printed_weight_is_two_mu_and_the_failure_needs_a_state_after_the_first_iteration() -> None:
    """Under tuning (9) tau/eta = 2 mu.  From x_0 = xbar_0 the printed recursion holds at this instance even on the
    superclass (r possibly nonconvex); from an arbitrary state it fails on the subclass too — so the counterexample
    is the reachable second step, as the case states."""
    p = {"mu": 0.01, "delta_f": 0.4, "delta_g": 0.6, "theta_scale": 1 / 3}
    t = pep._aeg_tuning(p)
    assert t["tau"] / t["eta"] == pytest.approx(2 * p["mu"], rel=1e-12)
    kappa = 1 - math.sqrt(p["mu"] / 3) / 2
    first = pep.solve(pep._aeg_lyapunov("printed", "first", h1_convex=False)(p))
    assert first.certified, first.as_dict()
    assert pep.compare(kappa, first)[0] == "holds"
    anywhere = pep.solve(pep._aeg_lyapunov("printed", "any", h1_convex=False)(p))
    assert anywhere.certified, anywhere.as_dict()
    assert pep.compare(kappa, anywhere)[0] == "false-on-class"


@pytest.mark.parametrize(("delta_f", "theta_g_scale"), [(0.05, 1.0), (0.3, 0.5)])
def test_bylinkin_inner_accextragradient_factor_holds_with_its_looseness(delta_f: float, theta_g_scale: float) -> None:
    """Theorem 8 (redone Lyapunov function): the factor 1 - sqrt(theta_g/theta)/2 bounds the certified worst case
    of Psi_{t+1} + (theta_g/(2 tau_g))||grad A||^2 over Psi_t, within 10%; a factor 3% below the worst is refuted."""
    params = {"delta_f": delta_f, "delta_g": 1.0, "theta_g_scale": theta_g_scale}
    comp = pep.run_case("bylinkin.thm8.rate/inner-aeg-exact", **params)
    assert all(c["holds"] for c in comp.conditions), comp.conditions
    assert comp.result.certified and comp.verdict == "holds", comp.as_dict()
    theta, theta_g = 1 / (2 * delta_f), theta_g_scale / 2
    assert comp.bound == pytest.approx(1 - math.sqrt(theta_g / theta) / 2, rel=1e-12)
    assert comp.ratio is not None and 1.0 < comp.ratio < 1.1
    scale = 0.97 * comp.result.primal / comp.bound
    wrong = pep.run_case("bylinkin.thm8.rate/inner-aeg-exact", bound_scale=scale, **params)
    assert wrong.verdict == "false-on-class", wrong.as_dict()


@pytest.mark.parametrize("eta_factor", [1.0, 2.0, 0.5])
def test_bylinkin_pep_models_the_implemented_aeg_iteration(eta_factor: float) -> None:
    """The first-iteration worst case of Phic on the proof's class is attained by the 1-d quadratic h = mu x^2/2,
    r = h - h_1 = -(delta_f + delta_g) x^2/2 (h_1 = (mu + delta) x^2/2 is convex, so the instance is in the paper's
    class): one step of the implemented AEG from x_0 = xbar_0 = 1 reproduces the SDP value two-sided; the same
    step with eta scaled (a plausible wrong tuning) does not."""
    import dataclasses

    import numpy as np

    from fedrates.solvers import algorithms
    from fedrates.solvers.algorithms._separation import coins_for_seeds, counters
    from fedrates.solvers.problems.separation import Split

    p = {"mu": 0.01, "delta_f": 0.4, "delta_g": 0.6, "theta_scale": 1 / 3}
    worst = pep.solve(pep._aeg_lyapunov("corrected", "first", h1_convex=False)(p))
    assert worst.certified, worst.as_dict()
    m, z = np.eye(1), np.zeros(1)
    sp = Split(A_f=m * p["mu"] / 2, b_f=z, A_g=m * p["mu"] / 2, b_g=z, A_f1=m * (p["mu"] / 2 + p["delta_f"]),
               b_f1=z, A_g1=m * (p["mu"] / 2 + p["delta_g"]), b_g1=z)
    assert (sp.mu, sp.delta_f, sp.delta_g) == pytest.approx((p["mu"], p["delta_f"], p["delta_g"]), rel=1e-12)
    alg = algorithms.make("aeg")
    if eta_factor != 1.0:
        base = type(alg)

        @dataclasses.dataclass(frozen=True, kw_only=True)
        class WrongEta(base):  # type: ignore[valid-type, misc]
            def tuning(self, s):  # noqa: ANN001, ANN202
                return {**super().tuning(s), "eta": eta_factor * super().tuning(s)["eta"]}

        alg = WrongEta()
    x0 = np.ones((1, 1))
    new = alg.step({"x": x0, "xbar": x0.copy(), **counters(1)}, sp, coins_for_seeds([0], 1))

    def phic(x: np.ndarray, xb: np.ndarray) -> float:
        return float(p["mu"] * np.sum(x**2) + 0.5 * p["mu"] * np.sum(xb**2))

    ratio = phic(new["x"], new["xbar"]) / phic(x0, x0)
    tol = worst.accuracy + 1e-7
    if eta_factor == 1.0:
        assert ratio == pytest.approx(worst.dual, abs=tol), (ratio, worst.dual)
    else:
        assert abs(ratio - worst.dual) > 100 * tol, (ratio, worst.dual)
