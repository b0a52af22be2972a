"""Dinh et al. (FedProxVR) §4.3 training-time optimisation through ``fedrates explore --minimize``: the optimum of
(23) agrees with an independent brute-force grid written here from the paper's formulas (Θ of Theorem 1, θ² of (22),
τ of (16)); the digest's table rows are checked only against that brute force; problem (20) over Lemma 1(a)'s whole
feasible set is never worse than (23) and is strictly better when communication is cheap (the catalogued erratum)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fedrates.verify.cli import main

L, LAM = 1.0, 0.5


def explore(capsys, *args):
    try:
        rc = main(["explore", *args])
    except SystemExit as exc:
        rc = int(exc.code)
    out = capsys.readouterr()
    return rc, out.out, out.err


def theta_big(mu, theta, s2):
    """Θ of Theorem 1, written from the paper."""
    mt = mu - LAM
    q = (1 + theta**2) * (1 + s2)
    return (1 - theta * np.sqrt(2 * (1 + s2)) - 2 * L / mt * np.sqrt(q) - 2 * L * mu / mt**2 * q) / mu


def objective_23(beta, mu, s2, gamma):
    t2 = 24 * (beta**2 * L**2 + mu**2) / ((mu - LAM) * L * (5 * beta**2 - 4 * beta) * (beta - 3))  # (22)
    with np.errstate(invalid="ignore"):
        th = theta_big(mu, np.sqrt(t2), s2)
        val = (1 + gamma * (5 * beta**2 - 4 * beta) / 8) / th
    return np.where((t2 < 1) & (th > 0), val, np.inf)


def brute_force_23(s2, gamma):
    """Dense log-grid over β − 3 ∈ [1e-2, 3e3], μ − λ ∈ [1e-2, 1e4], then two finer grids around the best cell."""
    b_lo, b_hi, m_lo, m_hi = np.log(1e-2), np.log(3e3), np.log(1e-2), np.log(1e4)
    for n in (1500, 400, 400):
        bb, mm = np.meshgrid(np.linspace(b_lo, b_hi, n), np.linspace(m_lo, m_hi, n), indexing="ij")
        v = objective_23(3 + np.exp(bb), LAM + np.exp(mm), s2, gamma)
        i = np.unravel_index(np.argmin(v), v.shape)
        db, dm = (b_hi - b_lo) / (n - 1), (m_hi - m_lo) / (n - 1)
        cb, cm = bb[i], mm[i]
        b_lo, b_hi, m_lo, m_hi = cb - 2 * db, cb + 2 * db, cm - 2 * dm, cm + 2 * dm
    beta, mu = 3 + np.exp(cb), LAM + np.exp(cm)
    return float(beta), float(mu), float(v[i])


#: the digest's table (L = 1, λ = 0.5): (σ̄², γ) -> (β*, μ*, θ*, τ*, Θ*)
DIGEST = {
    (0.0, 1e-4): (43.25, 11.54, 0.1086, 1147, 4.096e-2),
    (0.5, 1e-2): (17.37, 18.39, 0.2038, 179.8, 1.782e-2),
    (1.0, 1.0): (17.39, 23.17, 0.2070, 180.2, 1.168e-2),
}


@pytest.mark.parametrize("s2, gamma", sorted(DIGEST))
def test_minimize_23_matches_an_independent_brute_force_and_the_digest(capsys, s2, gamma):
    rc, out, err = explore(capsys, "dinh.sec4.3", "--set", "L=1", "lam=0.5", f"sigma_bar_sq={max(s2, 1e-12)}",
                           f"gamma={gamma}", "--minimize", "beta", "mu", "--json")
    assert rc == 0, err
    m = json.loads(out)["minimum"]
    beta_bf, mu_bf, val_bf = brute_force_23(max(s2, 1e-12), gamma)
    assert m["value"] == pytest.approx(val_bf, rel=1e-7)
    assert m["value"] <= val_bf * (1 + 1e-9)  # the zoom is at least as good as the brute force
    assert m["point"]["beta"] == pytest.approx(beta_bf, rel=1e-3)
    assert m["point"]["mu"] == pytest.approx(mu_bf, rel=1e-3)
    assert m["conditions_fail"] == []
    # the derived quantities, recomputed here
    beta, mu = m["point"]["beta"], m["point"]["mu"]
    t2 = 24 * (beta**2 + mu**2) / ((mu - LAM) * (5 * beta**2 - 4 * beta) * (beta - 3))
    assert m["derived"]["theta"] == pytest.approx(np.sqrt(t2), rel=1e-12)
    assert m["derived"]["tau"] == pytest.approx((5 * beta**2 - 4 * beta) / 8, rel=1e-12)
    assert m["derived"]["Theta"] == pytest.approx(theta_big(mu, np.sqrt(t2), max(s2, 1e-12)), rel=1e-9)
    # the digest's row, re-derived by the brute force above (1% as the digest rounds to 4 digits)
    b, mu_d, th, tau, Th = DIGEST[(s2, gamma)]
    assert (beta_bf, mu_bf) == (pytest.approx(b, rel=1e-2), pytest.approx(mu_d, rel=1e-2))
    assert m["derived"]["theta"] == pytest.approx(th, rel=1e-2)
    assert m["derived"]["tau"] == pytest.approx(tau, rel=1e-2)
    assert m["derived"]["Theta"] == pytest.approx(Th, rel=1e-2)


@pytest.mark.parametrize("gamma, strictly", [(1e-4, False), (1.0, True)])
def test_problem_20_over_lemma_1_is_never_worse_than_23_and_better_for_cheap_communication(capsys, gamma, strictly):
    base = ["--set", "L=1", "lam=0.5", "sigma_bar_sq=0.5", f"gamma={gamma}", "--json"]
    _, out23, _ = explore(capsys, "dinh.sec4.3", *base, "--minimize", "beta", "mu")
    rc, out20, err = explore(capsys, "dinh.eq20", *base, "--minimize", "mu", "theta", "beta", "tau")
    assert rc == 0, err
    v23, m20 = json.loads(out23)["minimum"]["value"], json.loads(out20)["minimum"]
    p = m20["point"]
    # the reported optimum is feasible for Lemma 1(a) and Theorem 1, checked with the paper's formulas
    tl = 3 * (p["beta"] ** 2 + p["mu"] ** 2) / (p["theta"] ** 2 * (p["mu"] - LAM) * (p["beta"] - 3))
    # (the minimiser accepts the conditions' relative tolerance 1e-12 at an active constraint)
    assert tl * (1 - 1e-9) <= p["tau"] <= (5 * p["beta"] ** 2 - 4 * p["beta"]) / 8 * (1 + 1e-11)
    th = theta_big(p["mu"], p["theta"], 0.5)
    assert th > 0 and m20["value"] == pytest.approx((1 + gamma * p["tau"]) / th, rel=1e-12)
    assert m20["value"] <= v23 * (1 + 1e-6)
    if strictly:  # the erratum's prediction: tau at beta_min is not the smallest admissible tau
        assert m20["value"] < 0.9 * v23
        assert p["tau"] == pytest.approx(tl, rel=1e-6)  # the lower bound is active, the upper one is not
        assert p["tau"] < 0.5 * (5 * p["beta"] ** 2 - 4 * p["beta"]) / 8
    else:
        assert m20["value"] == pytest.approx(v23, rel=1e-6)


@pytest.mark.parametrize("args, needle", [
    (["dinh.sec4.3", "--set", "L=1", "lam=0.5", "gamma=1", "--minimize", "beta", "mu"], "sigma_bar_sq"),
    (["dinh.sec4.3", "--set", "L=1", "lam=0.5", "gamma=1", "sigma_bar_sq=1", "--minimize", "beta", "nu"], "nu"),
    (["dinh.sec4.3", "--set", "L=1", "lam=0.5", "gamma=1", "sigma_bar_sq=1", "beta=5", "--minimize", "beta", "mu"],
     "beta"),
    (["dinh.sec4.3", "--set", "L=1", "lam=0.5", "gamma=1", "sigma_bar_sq=1", "--minimize", "beta", "mu", "--range",
      "1", "2"], "no feasible point"),
])
def test_minimize_bad_input_is_one_line_exit_2(capsys, args, needle):
    rc, out, err = explore(capsys, *args)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
