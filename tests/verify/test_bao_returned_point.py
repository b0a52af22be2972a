"""The returned-point check and the exact law it compares with (Bao et al.'s methods, verify/claims/bao/exact.py).

* :func:`returned_point_check` on synthetic Gaussian returned points with a known mean: it passes at the truth,
  fails on a mean moved by a few semi-axes of its acceptance ellipsoid (in any direction: two-sided), is
  inconclusive when too few points make the ellipsoid coarse, and reports power ≈ 1 against a far alternative.
* :func:`fedrates.verify.exact.moments` with client sampling: m = K is full participation, and m = 1 with exact
  gradients gives the closed-form mean (1/K)Σ_k x_k⁺ (each sampled client's weight renormalises to 1).
* :func:`fedrates.verify.exact.mc_fedda` with one stage is :func:`fedrates.verify.exact.c_fedda`.
* The MC-FedDA returned-point claim passes on the correct code and fails when the stage centre is returned.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedrates.verify import exact
from fedrates.verify.claims import get
from fedrates.verify.claims.bao import variants as bb
from fedrates.verify.claims.bao.exact import returned_point_check


def _synthetic(rng, shift, S=30, block=40, d=4, P=3):
    mean = np.arange(P * d, dtype=float).reshape(P, d) + 5.0
    A = rng.standard_normal((d, d))
    cov = np.broadcast_to(A @ A.T + 0.5 * np.eye(d), (P, d, d)).copy()
    chol = np.linalg.cholesky(cov[0])
    pts = mean[None, None] + shift + rng.standard_normal((S, block, P, d)) @ chol.T
    return pts.mean(axis=1), mean, cov, block


def test_passes_at_the_truth_and_fails_two_sided():
    rng = np.random.default_rng(0)
    y, mean, cov, block = _synthetic(rng, 0.0)
    scale = np.full(3, 50.0)
    assert returned_point_check(y, mean, cov, block, scale).verdict == "pass"
    N = y.shape[0] * block
    # a shift of 6 standard errors of the grand mean along the largest-variance axis, with either sign
    ev, V = np.linalg.eigh(cov[0])
    step = 6 * np.sqrt(ev[-1] * 30 / N) * V[:, -1]
    for sign in (1.0, -1.0):
        y2, *_ = _synthetic(np.random.default_rng(1), sign * step)
        assert returned_point_check(y2, mean, cov, block, scale).verdict == "fail"


def test_false_alarm_rate_is_at_most_the_family_wise_level():
    # 400 data sets at the truth: at family-wise confidence 0.9999 the expected number of false fails is 0.04;
    # P(≥ 2 fails) < 1e-3, so a miscalibrated threshold (e.g. a χ² with too few degrees of freedom) fails here
    rng = np.random.default_rng(2)
    fails = 0
    for _ in range(400):
        y, mean, cov, block = _synthetic(rng, 0.0, S=10, block=5)
        fails += returned_point_check(y, mean, cov, block, np.full(3, 50.0)).verdict == "fail"
    assert fails <= 1


def test_inconclusive_when_coarse_and_power_reported():
    rng = np.random.default_rng(3)
    y, mean, cov, block = _synthetic(rng, 0.0, S=2, block=1)
    res = returned_point_check(y, mean, cov, block, np.full(3, 1.0))
    assert res.verdict == "inconclusive"
    y, mean, cov, block = _synthetic(rng, 0.0)
    res = returned_point_check(y, mean, cov, block, np.full(3, 50.0),
                               alternatives={"far": mean + 10.0, "same": mean.copy()})
    assert res.details["power"]["far"] > 0.999
    assert res.details["power"]["same"] < 0.01


def _oracle(K=4, d=3, seed=0):
    rng = np.random.default_rng(seed)
    Q = np.stack([np.diag(rng.uniform(0.5, 2.0, d)) for _ in range(K)])
    b = rng.standard_normal((K, d))
    return exact.Oracle(Q=Q, b=b, noise_var=0.3), exact.Oracle(Q=Q, b=b, exact=True)


def test_sampling_all_clients_is_full_participation():
    noisy, _ = _oracle()
    w = np.array([0.1, 0.2, 0.3, 0.4])
    method = exact.fedavg_like(3, step=0.2, local_steps=2, server_step=0.7, w0=np.ones(3))
    full = exact.moments(method, noisy, w, 3)
    all4 = exact.moments(method, noisy, w, 3, participating=4)
    np.testing.assert_allclose(all4.mean, full.mean, rtol=1e-13)
    np.testing.assert_allclose(all4.cov, full.cov, rtol=1e-12, atol=1e-15)


def test_one_sampled_client_has_the_closed_form_mean_and_spread():
    _, det = _oracle()
    w = np.array([0.1, 0.2, 0.3, 0.4])
    x0 = np.ones(3)
    method = exact.fedavg_like(3, step=0.2, local_steps=1, server_step=1.0, w0=x0)
    m = exact.moments(method, det, w, 1, participating=1)
    # one client k drawn uniformly; its renormalised weight is 1: x₁ = x₀ − η(Q_k x₀ − b_k)
    xs = np.stack([x0 - 0.2 * (det.Q[k] @ x0 - det.b[k]) for k in range(4)])
    np.testing.assert_allclose(m.mean[1], xs.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(m.cov[1], np.cov(xs.T, bias=True), rtol=1e-10, atol=1e-14)


def test_mc_fedda_with_one_stage_is_c_fedda():
    noisy, _ = _oracle()
    w = np.array([0.1, 0.2, 0.3, 0.4])
    kw = {"mu": 0.5, "a": 16.0, "gamma": 2 * 0.5 * 16.0**3, "local_steps": 2, "w0": np.array([1.0, -2.0, 0.5])}
    one = exact.moments(exact.mc_fedda(3, stage_rounds=50, stages=1, **kw), noisy, w, 6)
    ref = exact.moments(exact.c_fedda(3, **kw), noisy, w, 6)
    np.testing.assert_allclose(one.mean, ref.mean, rtol=1e-12)
    np.testing.assert_allclose(one.cov, ref.cov, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("broken, verdict", [(None, "pass"), (bb.MCFedDAStageCentre, "fail")])
def test_mc_fedda_returned_point_claim(broken, verdict):
    claim = get("bao.returned/mc-fedda")
    if broken is not None:
        claim = claim.with_algorithm(broken)
    seeds = claim.seeds("quick", 0)
    records = pd.concat([claim.simulate(p, seeds) for p in claim.points("quick")])
    assert claim.judge(records, "quick")["verdict"] == verdict
