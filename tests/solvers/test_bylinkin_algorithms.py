"""The complexity-separation methods of Bylinkin et al.: hand-computed iterations, reductions, round accounting,
runner equivalence, determinism and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedrates.solvers import algorithms, problems
from fedrates.solvers.algorithms._separation import coins_for_seeds, simulate, solve_subproblem
from fedrates.solvers.errors import InputError
from fedrates.solvers.oracles import make_streams
from fedrates.solvers.problems.separation import split

NAMES = ("sc_acc_extragradient", "aeg", "vrcs", "acc_vrcs", "c_acc_extragradient")


@pytest.fixture(scope="module")
def inst():
    p = problems.make("separation", dim=5, mu=0.02, L=1.0, delta_f=0.1, delta_g=0.3, seed=4)
    return p, split(p)


def _coin_uniforms(seed: int, clients: int, n: int) -> np.ndarray:
    g = make_streams(seed, clients).clients[0]
    return g.random(n)


def test_sc_acc_extragradient_one_iteration_by_hand(inst):
    p, sp = inst
    seed = 17
    alg = algorithms.make("sc_acc_extragradient")
    x0 = np.linspace(-1, 1, p.dim)
    st = simulate(alg, p, 1, [seed], w0=x0)
    # by hand from the pseudo-code (tuning (9)) with the same two uniforms
    u = _coin_uniforms(seed, p.clients, 2)
    d = sp.delta_f + sp.delta_g
    theta, mu = 1 / (3 * d), sp.mu
    tau, eta, pr = math.sqrt(mu * theta), 0.5 * math.sqrt(theta / mu), sp.delta_f / d
    xl = x0  # x_0 = xbar_0
    Af, Ag, Af1, Ag1 = sp.A_f, sp.A_g, sp.A_f1, sp.A_g1
    xi = ((Af - Af1) @ xl - (sp.b_f - sp.b_f1)) / pr if u[0] < pr else ((Ag - Ag1) @ xl - (sp.b_g - sp.b_g1)) / (1 - pr)
    xb = np.linalg.solve(np.eye(p.dim) / theta + Af1 + Ag1, xl / theta - xi + sp.b_f1 + sp.b_g1)
    zeta = (Af @ xb - sp.b_f) / pr if u[1] < pr else (Ag @ xb - sp.b_g) / (1 - pr)
    x1 = x0 + eta * mu * (xb - x0) - eta * zeta
    assert np.allclose(st["x"][0], x1, rtol=1e-12, atol=1e-12)
    assert np.allclose(st["xbar"][0], xb, rtol=1e-12, atol=1e-12)
    assert st["rounds_f"][0] == int(u[0] < pr) + int(u[1] < pr)
    assert st["rounds_f"][0] + st["rounds_g"][0] == 2
    del tau


def test_aeg_is_full_oracle_sc_acc_extragradient_and_counts_both_groups(inst):
    p, sp = inst
    st = simulate(algorithms.make("aeg"), p, 7, [0, 1])
    assert np.array_equal(st["rounds_f"], [14, 14]) and np.array_equal(st["rounds_g"], [14, 14])
    assert np.array_equal(st["x"][0], st["x"][1])  # deterministic


def test_vrcs_single_step_epoch_is_the_exact_proximal_step(inst):
    # with q → 1 every epoch has T = 1; at t = 0 the variance-reduced estimator equals ∇(h − h_1)(x_0) exactly
    p, sp = inst
    alg = algorithms.make("vrcs", q=1 - 1e-15)
    x0 = np.linspace(1, 2, p.dim)
    st = simulate(alg, p, 1, [3, 4], w0=x0)
    theta = alg.tuning(sp)["theta"]
    grad_diff = (sp.H - sp.H1) @ x0 - (sp.b - sp.b1)
    x1 = np.linalg.solve(np.eye(p.dim) / theta + sp.H1, x0 / theta - grad_diff + sp.b1)
    assert np.allclose(st["x"], x1, rtol=1e-12, atol=1e-12)
    assert np.all(st["rounds_f"] + st["rounds_g"] == 3)  # anchor with both groups + one single-group round


def test_vrcs_epoch_equals_the_pseudo_code_step_by_step(inst):
    """One epoch of Algorithm 2 by hand, replica by replica (T ~ Geom(q), then one coin per inner step, each step a
    linear solve), against the implementation's epoch (whose exact steps are one affine map per coin)."""
    from fedrates.solvers.algorithms.vrcs import epoch

    p, sp = inst
    t = algorithms.make("vrcs", p=0.5, q=0.25).tuning(sp)  # both coins often, epochs of about four steps
    seeds = [2, 9, 4, 11, 6, 13, 8]
    x0 = np.random.default_rng(1).standard_normal((len(seeds), p.dim))
    rf, rg = np.zeros(len(seeds), np.int64), np.zeros(len(seeds), np.int64)
    x = epoch(x0, sp, coins_for_seeds(seeds, p.clients), t["p"], t["q"], t["theta"], "exact", 1.0, rf, rg)
    M = np.eye(p.dim) / t["theta"] + sp.H1
    lengths = coins_for_seeds(seeds, p.clients).geometric(t["q"])
    for r, s in enumerate(seeds):
        u = make_streams(s, p.clients).clients[0].random(1 + lengths[r])[1:]  # the first uniform set T_r
        a = x0[r]
        anchor_f = (sp.A_f - sp.A_f1) @ a - (sp.b_f - sp.b_f1)
        anchor_g = (sp.A_g - sp.A_g1) @ a - (sp.b_g - sp.b_g1)
        xr = a.copy()
        for coin in u < t["p"]:
            if coin:
                xi = ((sp.A_f - sp.A_f1) @ xr - (sp.b_f - sp.b_f1) - anchor_f) / t["p"]
            else:
                xi = ((sp.A_g - sp.A_g1) @ xr - (sp.b_g - sp.b_g1) - anchor_g) / (1 - t["p"])
            xr = np.linalg.solve(M, xr / t["theta"] - (xi + anchor_f + anchor_g) + sp.b1)
        np.testing.assert_allclose(x[r], xr, rtol=1e-10, atol=1e-12)
        assert rf[r] == 1 + np.sum(u < t["p"]) and rg[r] == 1 + np.sum(u >= t["p"])
    assert lengths.max() > 3 and len(set(lengths.tolist())) > 1  # epochs of several lengths were compared


def test_acc_vrcs_gradient_mapping_sign(inst):
    # with T = 1 and exact subproblems, the proof's G/q = (x − y)/θ − t_k equals ∇h(y_{k+1}) exactly
    p, sp = inst
    alg = algorithms.make("acc_vrcs", q=1 - 1e-15)
    y0 = np.linspace(-1, 0.5, p.dim)
    st = simulate(alg, p, 1, [5], w0=y0)
    t = alg.tuning(sp)
    x1 = y0  # z_0 = y_0
    y1 = st["y"][0]
    grad_h_y = sp.H @ y1 - sp.b
    G = t["q"] * grad_h_y
    z1 = (y0 + 0.5 * sp.mu * t["alpha"] * y1 - t["alpha"] * G) / (1 + 0.5 * sp.mu * t["alpha"])
    assert np.allclose(st["z"][0], z1, rtol=1e-10, atol=1e-12)
    assert st["rounds_f"][0] + st["rounds_g"][0] == 5  # anchor (2) + 1 + the round for t_k (2)
    del x1


def test_c_acc_extragradient_rounds_and_inner_criterion(inst):
    p, sp = inst
    alg = algorithms.make("c_acc_extragradient", subproblem="boundary")
    st = simulate(alg, p, 25, [0])
    assert st["rounds_f"][0] == 50
    assert st["rounds_g"][0] == 2 * st["inner_total"][0] and st["inner_total"][0] >= 25
    exact = simulate(algorithms.make("c_acc_extragradient", inner="exact"), p, 25, [0])
    assert exact["rounds_g"][0] == 25  # idealised inner phase: only ∇g(x̄_{k+1}) is communicated
    # both converge to the closed-form optimum
    long = simulate(alg, p, 250, [0])
    assert sp.gap(long["x"])[0] < 1e-20 * max(1.0, float(sp.gap(np.zeros((1, p.dim)))[0]))
    assert not long["inner_failed"][0]


def test_boundary_subproblem_sits_exactly_on_the_criterion():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4))
    M = A @ A.T + 4 * np.eye(4)
    r, c = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    xb, star = solve_subproblem(M, r, c, "boundary", crit=0.01, factor=1.0)
    assert np.allclose(star, np.linalg.solve(M, r.T).T)
    g = (xb - star) @ M
    assert np.allclose(np.sum(g * g, axis=1), 0.01 * np.sum((c - star) ** 2, axis=1), rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_runner_and_simulate_agree_bit_for_bit(inst, name):
    p, sp = inst
    alg = algorithms.make(name)
    seeds = [3, 8]
    tr = algorithms.run_batch(alg, p, 4, seeds=seeds, gradients="exact")
    st = simulate(alg, p, 4, seeds)
    assert np.array_equal(tr.w, alg.output(st))
    assert np.array_equal(tr.state["rounds_f"], st["rounds_f"])
    again = simulate(alg, p, 4, seeds)
    assert np.array_equal(alg.output(again), alg.output(st))


def test_coins_follow_the_first_client_stream():
    c = coins_for_seeds([5, 9], 7)
    assert np.array_equal(c.uniform(), [make_streams(s, 7).clients[0].random() for s in (5, 9)])


def test_coins_drawn_for_some_replicas_leave_the_others_streams_in_place():
    """Replica r's k-th drawn coin is the k-th uniform of its own stream, whichever replicas drew meanwhile (past
    the 256-draw block too)."""
    seeds = [5, 9, 2]
    c = coins_for_seeds(seeds, 7)
    masks = np.random.default_rng(0).random((700, 3)) < [0.9, 0.5, 0.1]
    got = [[] for _ in seeds]
    for mask in masks:
        u = c.uniform(mask)
        assert np.all(np.isnan(u[~mask]))
        for r in np.flatnonzero(mask):
            got[r].append(u[r])
    for r, s in enumerate(seeds):
        assert len(got[r]) == masks[:, r].sum()
        assert np.array_equal(got[r], make_streams(s, 7).clients[0].random(len(got[r])))


def test_coins_taken_in_runs_are_the_numbers_drawn_one_at_a_time():
    """take(counts) hands replica r its next counts[r] uniforms, interleaved with single draws, across blocks."""
    seeds = [4, 7, 1]
    c = coins_for_seeds(seeds, 5)
    rng = np.random.default_rng(3)
    got = [[] for _ in seeds]
    for _ in range(60):
        if rng.random() < 0.5:
            counts = rng.integers(0, 40, size=3)
            U = c.take(counts)
            assert U.shape == (3, counts.max())
            for r, n in enumerate(counts):
                assert np.all(np.isnan(U[r, n:]))
                got[r].extend(U[r, :n])
        else:
            u = c.uniform()
            for r in range(3):
                got[r].append(u[r])
    for r, s in enumerate(seeds):
        assert np.array_equal(got[r], make_streams(s, 5).clients[0].random(len(got[r])))


@pytest.mark.parametrize("name", NAMES)
def test_a_replica_does_not_depend_on_the_other_seeds_of_its_batch(inst, name):
    """Seed 8 run beside three other seeds gives what it gives alone (the epochs of VRCS and AccVRCS end at
    different inner steps in different replicas)."""
    p, _ = inst
    alg = algorithms.make(name)
    together = simulate(alg, p, 25, [0, 8, 5, 2])
    alone = simulate(alg, p, 25, [8])
    np.testing.assert_allclose(alg.output(together)[1], alg.output(alone)[0], rtol=1e-12, atol=1e-14)
    assert together["rounds_f"][1] == alone["rounds_f"][0] and together["rounds_g"][1] == alone["rounds_g"][0]


def test_geometric_support_starts_at_one():
    c = coins_for_seeds(range(4000), 3)
    T = c.geometric(0.3)
    assert T.min() >= 1
    # E T = 1/q; sd of T = sqrt(1 - q)/q; 5 standard errors
    assert abs(T.mean() - 1 / 0.3) < 5 * math.sqrt(0.7) / 0.3 / math.sqrt(4000)


def test_bad_input(inst):
    p, _ = inst
    with pytest.raises(InputError, match=r"p in \(0, 1\)"):
        algorithms.make("sc_acc_extragradient", p=1.0)
    with pytest.raises(InputError, match=r"q in \(0, 1\)"):
        algorithms.make("vrcs", q=1.5)
    with pytest.raises(InputError, match="theta_scale <= 0.5"):
        algorithms.run("c_acc_extragradient", p, 2, theta_scale=1.0)
    with pytest.raises(InputError, match="theta_scale <= 1/3"):
        algorithms.run("aeg", p, 2, theta_scale=0.5)
    with pytest.raises(InputError, match="Lemma 4"):
        algorithms.run("vrcs", p, 2, theta_scale=100.0)
    with pytest.raises(InputError, match="family 'separation'"):
        algorithms.run("vrcs", problems.make("quadratic"), 2)


def test_unstated_preconditions_are_reported_as_warnings():
    signed = problems.make("separation", "bylinkin-signed")
    assert any("h_1 = f_1 + g_1 is not convex" in w for w in algorithms.make("vrcs").check(signed))
    assert any("f_1 + g is not convex" in w for w in algorithms.make("c_acc_extragradient").check(signed))
    valid = problems.make("separation", "bylinkin-separation")
    assert algorithms.make("sc_acc_extragradient").check(valid) == []
