"""FedProxVR (Dinh et al., ICPP 2020): the prox step, hand-computed rounds, per-device independence of the vectorized
round, determinism, bad input, the exact constants of Assumption 1, and Lemma 1 / Theorem 1 / §4.3 formulas against
the numbers derived by hand from the paper (Dinh et al.)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from fedrates.bounds import fedproxvr as fb
from fedrates.solvers import algorithms, fedproxvr_constants, problems
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems.finite_sum import finite_sum
from fedrates.verify.claims.dinh.exact.moments import FedProxVRMoments
from fedrates.verify.claims.dinh.instances import device_problem

NAMES = ("fedproxvr_sarah", "fedproxvr_svrg", "fedprox_sgd")


@pytest.fixture(scope="module")
def ls():
    return problems.make("dinh_ls", clients=3, samples=4, dim=2)


@pytest.fixture(scope="module")
def nc():
    return problems.make("dinh_nc", clients=2, samples=4, dim=2, shift=1.0)


def states(name, problem, rounds, seeds, gradients="stochastic", w0=None, **hyper):
    alg = algorithms.make(name, **hyper)
    xs = []
    algorithms.run_batch(alg, problem, rounds, seeds=seeds, gradients=gradients, w0=w0,
                         callback=lambda r, s: xs.append(np.array(s["x"])))
    return np.stack(xs)


# ---- the prox step and hand-computed rounds -------------------------------------------------------------------
def test_prox_is_the_argmin_of_h_plus_distance():
    alg = algorithms.make("fedproxvr_sarah", mu=3.0)
    rng = np.random.default_rng(0)
    x, anchor, eta = rng.standard_normal(4), rng.standard_normal(4), 0.07
    p = alg.prox(x, anchor, eta)
    # first-order condition of min_w (mu/2)||w - anchor||^2 + ||w - x||^2/(2 eta)
    assert np.allclose(3.0 * (p - anchor) + (p - x) / eta, 0.0, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_exact_gradients_last_iterate_is_proximal_gradient_descent(ls, name):
    """Exact gradients: every estimator is ∇F_n, so one round is τ prox-GD steps on J_n (hand loop)."""
    mu, beta, tau = 2.0, 4.0, 5
    w0 = np.array([0.3, -1.2])
    out = states(name, ls, 1, [0], "exact", w0, mu=mu, beta=beta, tau=tau, output_rule="last")[0, 0]
    consts = fedproxvr_constants.compute(ls)
    eta = 1.0 / (beta * consts.L)
    local = []
    for A, b in zip(consts.A, consts.b, strict=True):
        w = w0.copy()
        for _ in range(tau):
            w = (w - eta * (A @ w - b) + eta * mu * w0) / (1 + eta * mu)
        local.append(w)
    assert np.allclose(out, consts.p @ np.array(local), rtol=1e-13, atol=1e-14)


def loop_round(problem, w0, seed, estimator, mu, beta, tau, batch, L):
    """One round written as a plain per-device, per-sample Python loop from the paper's Algorithm 1, drawing from the
    same per-device streams (``make_streams``) as the vectorized code."""
    from fedrates.solvers.oracles import make_streams

    fs = finite_sum(problem)
    streams = make_streams(seed, problem.clients).clients
    eta, n = 1.0 / (beta * L), fs.samples
    prox = lambda x: (x + eta * mu * w0) / (1 + eta * mu)  # noqa: E731
    grad_i = lambda k, i, w: fs.X[k, i] * (fs.X[k, i] @ w - fs.y[k, i])  # noqa: E731
    outs = []
    for k in range(problem.clients):
        u = streams[k].random((tau - 1) * batch + 1)
        idx = np.minimum((u[:-1] * n).astype(int), n - 1).reshape(tau - 1, batch)
        pick = min(int(u[-1] * (tau + 1)), tau)
        full = lambda w: np.mean([grad_i(k, i, w) for i in range(n)], axis=0)  # noqa: E731, B023
        ws, v0 = [w0], full(w0)
        ws.append(prox(w0 - eta * v0))
        v = v0
        for t in range(1, tau):
            g = lambda w: np.mean([grad_i(k, i, w) for i in idx[t - 1]], axis=0)  # noqa: E731, B023
            if estimator == "sarah":
                v = g(ws[t]) - g(ws[t - 1]) + v
            elif estimator == "svrg":
                v = g(ws[t]) - g(w0) + v0
            else:
                v = g(ws[t])
            ws.append(prox(ws[t] - eta * v))
        outs.append(ws[pick])
    return problem.weights @ np.array(outs)


@pytest.mark.parametrize("name", NAMES)
def test_vectorized_round_equals_the_per_device_loop(ls, name):
    """The vectorized round (replicas × devices) equals a per-device Python loop over the same random streams."""
    hyper = {"mu": 2.0, "beta": 4.0, "tau": 7, "batch": 2}
    w0 = np.array([1.0, 2.0])
    L = fedproxvr_constants.compute(ls).L
    est = algorithms.get(name).estimator
    full = states(name, ls, 1, [3, 4], w0=w0, L=L, **hyper)[0]
    loop = np.stack([loop_round(ls, w0, s, est, L=L, **hyper) for s in (3, 4)])
    assert np.allclose(full, loop, rtol=1e-12, atol=1e-13)


def test_one_device_problem_runs_device_0_alone(ls):
    """Device 0 of a federation and the one-device federation of device 0 draw from the same stream."""
    hyper = {"mu": 2.0, "beta": 4.0, "tau": 5, "L": fedproxvr_constants.compute(ls).L}
    w0 = np.array([1.0, 2.0])
    alone = states("fedproxvr_sarah", device_problem(ls, 0), 1, [9], w0=w0, **hyper)[0, 0]
    assert np.allclose(alone, loop_round(device_problem(ls, 0), w0, 9, "sarah", hyper["mu"], hyper["beta"], 5, 1,
                                         hyper["L"]), rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_equal_seeds_bit_identical_and_seeds_matter(nc, name):
    a = states(name, nc, 3, [5, 6], mu=3.0, beta=5.0, tau=6)
    b = states(name, nc, 3, [5, 6], mu=3.0, beta=5.0, tau=6)
    c = states(name, nc, 3, [7, 6], mu=3.0, beta=5.0, tau=6)
    assert np.array_equal(a, b)
    assert not np.array_equal(a[:, 0], c[:, 0]) and np.array_equal(a[:, 1], c[:, 1])


# ---- exact moments against brute-force enumeration ------------------------------------------------------------
@pytest.mark.parametrize("estimator", ["sarah", "svrg", "sgd"])
def test_moment_recursion_matches_enumeration_of_every_path(estimator):
    """Tiny instance (2 devices × 2 samples, τ = 3, B = 1): enumerate every index path and output index."""
    pb = problems.make("dinh_ls", clients=2, samples=2, dim=2, seed=4)
    fs = finite_sum(pb)
    eta, mu, tau = 0.05, 1.5, 3
    z0 = np.array([0.7, -0.4])
    mom = FedProxVRMoments(fs, pb.weights, estimator, eta, mu, tau, 1)
    Q = fs.sample_hessians

    def outputs(n):  # every (path, t') with its probability: returns list of (prob, z_out)
        A = Q[n].mean(axis=0)
        res = []
        for path in itertools.product(range(2), repeat=tau - 1):
            zs, v, z_prev = [z0], A @ z0, z0
            z = (z0 - eta * v + eta * mu * z0) / (1 + eta * mu)
            zs.append(z)
            for i in path:
                g = Q[n, i] @ z
                if estimator == "sarah":
                    v = g - Q[n, i] @ z_prev + v
                elif estimator == "svrg":
                    v = g - Q[n, i] @ z0 + A @ z0
                else:
                    v = g
                z_prev, z = z, (z - eta * v + eta * mu * z0) / (1 + eta * mu)
                zs.append(z)
            res += [(0.5 ** (tau - 1) / (tau + 1), zt) for zt in zs]
        return res

    outs = [outputs(n) for n in range(2)]
    mean = sum(p * q * (0.5 * a + 0.5 * b) for (p, a), (q, b) in itertools.product(*outs))
    second = sum(p * q * np.outer(0.5 * a + 0.5 * b, 0.5 * a + 0.5 * b) for (p, a), (q, b) in itertools.product(*outs))
    m, S = mom.rounds(z0, 1)
    assert np.allclose(m[1], mean, rtol=1e-12, atol=1e-15)
    assert np.allclose(S[1], second, rtol=1e-12, atol=1e-15)


# ---- bad input ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hyper, word", [({"beta": 3.0}, "beta"), ({"tau": 0}, "tau"), ({"mu": 0.0}, "mu"),
                                         ({"output_rule": "middle"}, "output_rule")])
def test_bad_hyperparameters_one_line(hyper, word):
    with pytest.raises(InputError) as exc:
        algorithms.make("fedproxvr_sarah", **hyper)
    assert word in str(exc.value) and "\n" not in str(exc.value)


def test_mu_below_weak_convexity_is_refused(nc):
    lam = fedproxvr_constants.compute(nc).lam
    with pytest.raises(InputError, match="expected mu > lambda"):
        algorithms.run_batch("fedproxvr_svrg", nc, 1, mu=0.5 * lam)


def test_cli_bad_beta_exit_2_nothing_written(tmp_path, capsys):
    from fedrates.verify.cli import main

    out = tmp_path / "run.parquet"  # a valid output name: the refusal must be about beta
    rc = main(["run", "fedproxvr_sarah", "--problem", "dinh_ls", "--hyper", "beta=3", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "beta" in err[0] and not out.exists()


def test_cli_run_fedproxvr_exact_and_stochastic(capsys):
    from fedrates.verify.cli import main

    for mode in ("exact", "stochastic"):
        rc = main(["run", "fedproxvr_sarah", "--problem", "dinh_ls", "--hyper", "beta=5", "tau=10", "mu=20",
                   "--rounds", "3", "--gradients", mode])
        assert rc == 0
    assert "fedproxvr_sarah" in capsys.readouterr().out


# ---- exact constants ------------------------------------------------------------------------------------------
def test_sigma_is_the_exact_sup_of_the_gradient_divergence(ls):
    c = fedproxvr_constants.compute(ls)
    rng = np.random.default_rng(1)
    W = c.w_star + rng.standard_normal((20000, 2))
    gbar = W @ c.Abar.T - c.bbar
    ratios = np.stack([np.linalg.norm(W @ A.T - b - gbar, axis=1) / np.linalg.norm(gbar, axis=1)
                       for A, b in zip(c.A, c.b, strict=True)])
    sup = ratios.max(axis=1)
    assert np.all(sup <= c.sigma * (1 + 1e-9)) and np.all(sup >= 0.99 * c.sigma)
    assert c.sigma_bar_sq == pytest.approx(float(c.p @ c.sigma**2))


def test_noisy_labels_break_assumption_5():
    c = fedproxvr_constants.compute(problems.make("dinh_ls", preset="dinh-noisy"))
    assert not c.realisable and np.all(np.isinf(c.sigma))
    assert fb.Theta(c.L, c.lam, 10.0, 0.1, c.sigma_bar_sq) == -math.inf
    with pytest.raises(InputError, match="assumption \\(5\\) fails"):
        c.require_finite_sigma()


def test_weak_convexity_and_smoothness_of_the_nonconvex_family(nc):
    c = fedproxvr_constants.compute(nc)
    eig = np.linalg.eigvalsh(c.A)
    assert c.lam == pytest.approx(-eig.min()) and c.lam > 0  # one device is indefinite
    assert np.linalg.eigvalsh(c.Abar).min() > 0
    Qi = finite_sum(nc).sample_hessians
    assert c.L == pytest.approx(np.abs(np.linalg.eigvalsh(Qi)).max())
    assert c.L_F <= c.L_ms * (1 + 1e-12) <= c.L * (1 + 1e-12)


# ---- Lemma 1, Theorem 1 and §4.3 formulas against hand-derived numbers ----------------------------------------
def test_per_device_constants_of_an_indefinite_single_device(nc):
    """Lemma 1 is per device: each one-device federation of dinh_nc has an indefinite Hessian A_n; its L of (3)
    (max_i‖Q_i‖₂ over its samples) and λ_n = −λ_min(A_n) are defined and certified, while compute() refuses with one
    line (w*, σ_n, Δ need a positive-definite average)."""
    from fedrates.solvers.certify import check_certified

    full = fedproxvr_constants.compute(nc)
    lams = []
    for n in range(nc.clients):
        sub = device_problem(nc, n)
        dev = fedproxvr_constants.device_constants(sub)
        eig = np.linalg.eigvalsh(full.A[n])
        assert eig[0] < 0 < eig[-1]
        assert dev.lam == pytest.approx(-eig[0], rel=1e-12)
        assert dev.lam_n.tolist() == [dev.lam]
        Q = finite_sum(sub).sample_hessians[0]
        assert dev.L == pytest.approx(max(np.abs(np.linalg.eigvalsh(q)).max() for q in Q), rel=1e-12)
        assert set(dev.certificates) == set(fedproxvr_constants.DEVICE_CONSTANTS)
        assert check_certified(dev) == []
        with pytest.raises(InputError) as exc:
            fedproxvr_constants.compute(sub)
        assert "\n" not in str(exc.value) and "not positive definite" in str(exc.value)
        lams.append(dev.lam)
    # λ of (4) is the largest device modulus; the average Ā ≻ 0 alone would give 0
    assert full.lam == pytest.approx(max(lams), rel=1e-12) and np.linalg.eigvalsh(full.Abar)[0] > 0
    whole = fedproxvr_constants.device_constants(nc)
    assert (whole.L, whole.lam) == (full.L, full.lam)
    assert whole.lam_n == pytest.approx(lams, rel=1e-12)


def test_fedproxvr_runs_on_one_indefinite_device(nc):
    """The real algorithm on a single indefinite device (Lemma 1's setting): μ > λ_n runs, μ ≤ λ_n is refused."""
    from fedrates.verify.claims.dinh.instances import _reference

    sub = device_problem(nc, 0)
    lam = fedproxvr_constants.device_constants(sub).lam
    # F_0 is unbounded below: the metrics use the federation's shared stationary point (as the claims do)
    ref = _reference(fedproxvr_constants.compute(nc))
    for name in ("fedproxvr_sarah", "fedproxvr_svrg"):
        xs: list = []
        algorithms.run_batch(algorithms.make(name, mu=lam + 1.0, beta=4.0, tau=3), sub, 1, seeds=[0, 1],
                             w0=nc.truth + 1.0, reference=ref,
                             callback=lambda r, st, out=xs: out.append(np.array(st["x"])))
        assert np.all(np.isfinite(xs[0])) and not np.allclose(xs[0][0], xs[0][1])
        assert algorithms.make(name, mu=0.5 * lam).supports(sub) is not None


@pytest.mark.parametrize("estimator", ["sarah", "svrg"])
def test_moments_of_one_indefinite_device_equal_its_entry_in_the_federation(nc, estimator):
    """The exact moment recursion needs only per-device quantities: run on device n's one-device federation (an
    indefinite Hessian, no optimum) with the federation's η = 1/(βL), E‖∇J_n(w_n)‖² equals entry n of the
    federation's recursion; with the device's own smaller L (another η) it differs."""
    import dataclasses

    from fedrates.verify.claims.dinh.instances import _moments

    full = fedproxvr_constants.compute(nc)
    alg = algorithms.make(f"fedproxvr_{estimator}", mu=full.lam + 2 * full.L, beta=6.0, tau=7)
    z0 = np.array([0.7, -1.3])
    whole = _moments(nc, full, alg).surrogate_grad_sq(z0)
    for n in range(nc.clients):
        sub = device_problem(nc, n)
        own = fedproxvr_constants.device_constants(sub)
        same_eta = _moments(sub, dataclasses.replace(own, L=full.L), alg).surrogate_grad_sq(z0)
        assert same_eta[0] == pytest.approx(whole[n], rel=1e-12)
        if own.L < full.L:
            assert _moments(sub, own, alg).surrogate_grad_sq(z0)[0] != pytest.approx(whole[n], rel=1e-3)


def test_beta_min_and_theta_reference_values():
    b, t = fb.beta_min(1.0, 10.0, 0.5, 0.3)
    assert b == pytest.approx(12.7037621234376, rel=1e-9) and t == pytest.approx(94.5141014938361, rel=1e-9)
    assert fb.Theta(1.0, 0.5, 10.0, 0.3, 0.0) == pytest.approx(0.0114388758247295, rel=1e-12)
    assert fb.tau_lower(b, 1.0, 10.0, 0.5, 0.3) == pytest.approx(fb.tau_upper_sarah(b), rel=1e-9)


def test_svrg_upper_bound_with_the_smallest_admissible_a():
    expected = {10: 0.184, 20: 2.140, 50: 8.059, 100: 17.94, 110: 19.91, 200: 37.70}
    for beta, tau in expected.items():
        assert fb.tau_max_svrg(beta) == pytest.approx(tau, rel=2e-3)
    assert fb.tau_max_svrg(1e7) / 1e7 == pytest.approx(fb.SVRG_SLOPE, rel=1e-3)
    assert fb.tau_max_svrg(9.04) == -math.inf and fb.tau_max_svrg(9.05) >= 0
    a = fb.a_min(5.0)
    assert a - 4 == pytest.approx(4 * math.sqrt(a * 6.0), rel=1e-12)


def test_training_time_optimisation_reproduces_the_hand_solved_table():
    d = fb.optimise_training_time(1.0, 0.5, 0.0, 1e-2, grid=120)
    assert d.beta == pytest.approx(15.07, rel=1e-2) and d.mu == pytest.approx(14.13, rel=1e-2)
    assert d.theta == pytest.approx(0.2406, rel=1e-2) and d.Theta == pytest.approx(2.462e-2, rel=1e-2)
    assert d.theta**2 == pytest.approx(fb.theta_sq_22(d.beta, d.mu, 1.0, 0.5), rel=1e-12)


@pytest.mark.parametrize("kw", [{"theta": 1.0}, {"theta": 0.0}, {"beta": 3.0}, {"tau": 0.5},
                                {"mu": 0.5, "lam": 0.5}])
def test_formula_inputs_validated(kw):
    with pytest.raises(InputError):
        fb.validate(**kw)


@pytest.mark.parametrize("estimator", ["sarah", "svrg"])
def test_estimator_errors_match_enumeration(estimator):
    """E‖∇F_n(w_t) − v_t‖² of the recursion against every index path (1 device × 3 samples, τ = 4)."""
    pb = problems.make("dinh_ls", clients=1, samples=3, dim=2, seed=7)
    fs = finite_sum(pb)
    eta, mu, tau = 0.04, 1.0, 4
    z0 = np.array([0.5, 1.5])
    Q = fs.sample_hessians[0]
    A = Q.mean(axis=0)
    errs = np.zeros(tau - 1)
    steps = np.zeros(tau - 1)
    for path in itertools.product(range(3), repeat=tau - 1):
        v0 = A @ z0
        z_prev, z, v = z0, (z0 - eta * v0 + eta * mu * z0) / (1 + eta * mu), v0
        acc = 0.0
        for t, i in enumerate(path):
            v = Q[i] @ z - Q[i] @ (z_prev if estimator == "sarah" else z0) + (v if estimator == "sarah" else v0)
            errs[t] += np.sum((A @ z - v) ** 2) / 3 ** (tau - 1)
            acc += np.sum((z - z_prev) ** 2)
            steps[t] += (acc if estimator == "sarah" else np.sum((z - z0) ** 2)) / 3 ** (tau - 1)
            z_prev, z = z, (z - eta * v + eta * mu * z0) / (1 + eta * mu)
    err, step = FedProxVRMoments(fs, pb.weights, estimator, eta, mu, tau, 1).estimator_errors(z0)
    assert np.allclose(err[0], errs, rtol=1e-12, atol=1e-16) and np.allclose(step[0], steps, rtol=1e-12)
