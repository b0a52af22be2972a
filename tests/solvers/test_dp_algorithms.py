"""DP-FedAvg with clipping and DP-NormFedAvg (Das et al., Algorithms 1-2): reductions, hand-computed rounds,
noise calibration and statistics, determinism, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.algorithms import make, run_batch
from fedrates.solvers.constants import dp_noise_multiplier, dp_rho, dp_rho_effective, dp_sigma
from fedrates.solvers.errors import InputError

PARAMS = {"structure": "random", "clients": 5, "dim": 4, "mu": 0.2, "L": 1.0, "spread": 1.0, "seed": 2}


@pytest.fixture(scope="module")
def problem():
    return problems.make("quadratic", **PARAMS)


def _run(problem, name, rounds=3, seeds=(0,), w0=None, **hyper):
    hyper.setdefault("output_point", "last")
    w0 = np.ones(problem.dim) if w0 is None else w0
    return run_batch(name, problem, rounds, seeds=list(seeds), gradients="exact", w0=w0, reference=_Ref(problem),
                     **hyper)


class _Ref:
    def __init__(self, problem):
        Q, b, _ = problem.quadratic
        self.w = np.linalg.solve(Q, b)
        self.value = float(problem.objective(self.w))
        self.gap = 0.0


def _hand_round(problem, x, eta, beta, E, transform):
    """One noise-free round by hand: E local GD steps per client, u = (x - w_E)/eta, x - beta*mean(transform(u))."""
    Q, c = problem.datafit.Q, problem.extras["centres"]
    sent = []
    for i in range(problem.clients):
        w = x.copy()
        for _ in range(E):
            w = w - eta * Q[i] @ (w - c[i])
        sent.append(transform((x - w) / eta))
    return x - beta * np.mean(sent, axis=0)


@pytest.mark.parametrize("name", ["dp_fedavg_clip", "dp_normfedavg"])
def test_two_hand_computed_rounds(problem, name) -> None:
    C = 0.7
    if name == "dp_fedavg_clip":
        def transform(u):
            return u * min(1.0, C / np.linalg.norm(u))
    else:
        def transform(u):
            return C * u / np.linalg.norm(u)
    x = np.ones(problem.dim)
    for _ in range(2):
        x = _hand_round(problem, x, 0.1, 0.05, 3, transform)
    tr = _run(problem, name, rounds=2, step=0.1, server_step=0.05, clip=C, sigma=0.0, local_steps=3)
    np.testing.assert_allclose(tr.w[0], x, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("beta", [0.1, 0.03])
def test_no_noise_no_clipping_is_fedavg(problem, beta) -> None:
    # Algorithm 1 with sigma = 0 and C above every update is FedAvg with client step eta, server step beta/eta
    dp = _run(problem, "dp_fedavg_clip", rounds=25, seeds=(0, 1), step=0.1, server_step=beta, clip=1e9, sigma=0.0,
              local_steps=4)
    fa = run_batch("fedavg", problem, 25, seeds=[0, 1], gradients="exact", w0=np.ones(problem.dim),
                   reference=_Ref(problem), step=0.1, server_step=beta / 0.1, local_steps=4)
    np.testing.assert_allclose(dp.w, fa.w, rtol=1e-11, atol=1e-13)


def test_clip_equals_norm_below_the_smallest_update(problem) -> None:
    kw = {"rounds": 10, "seeds": (3, 4), "step": 0.1, "server_step": 0.05, "clip": 1e-3, "sigma": 0.2, "local_steps": 3}
    a, b = _run(problem, "dp_fedavg_clip", **kw), _run(problem, "dp_normfedavg", **kw)
    assert np.array_equal(a.w, b.w)
    assert np.array_equal(a.state["z_mean"], b.state["z_mean"])  # identical noise draws: the paired mode


def test_noise_is_shared_by_seed_and_noise_seed_and_independent_otherwise(problem) -> None:
    kw = {"rounds": 2, "step": 0.1, "server_step": 0.05, "clip": 1.0, "sigma": 0.3, "local_steps": 2}
    a = _run(problem, "dp_fedavg_clip", seeds=(5, 6), **kw)
    b = _run(problem, "dp_fedavg_clip", seeds=(6,), **kw)  # replica order/batching does not matter
    assert np.array_equal(a.w[1], b.w[0])
    c = _run(problem, "dp_fedavg_clip", seeds=(6,), noise_seed=1, **kw)
    assert not np.allclose(c.state["z_mean"], b.state["z_mean"])


def test_averaged_noise_has_variance_sigma2(problem) -> None:
    # full participation: (1/n) sum of N(0, n sigma^2 I) per client is N(0, sigma^2 I); 400 replicas x 4 coords
    sigma = 0.5
    tr = _run(problem, "dp_fedavg_clip", rounds=1, seeds=range(400), step=0.1, server_step=0.05, clip=1.0,
              sigma=sigma, local_steps=1)
    z = tr.state["z_mean"].reshape(-1)
    var = float(np.var(z))
    # sd of the sample variance of 1600 normals: sigma^2 sqrt(2/1599) = 0.0088; 5 sd
    assert abs(var - sigma**2) < 5 * sigma**2 * math.sqrt(2 / (z.size - 1))
    assert abs(float(np.mean(z))) < 5 * sigma / math.sqrt(z.size)


def test_poisson_sampling_divides_by_r_not_by_the_sample_size(problem) -> None:
    tr = _run(problem, "dp_fedavg_clip", rounds=1, seeds=range(6), step=0.1, server_step=0.05, clip=1e9, sigma=0.0,
              local_steps=1, rate=0.4)
    mask, U = tr.state["sampled"], tr.state["u"]
    expected = np.einsum("rn,rnd->rd", mask, U) / (0.4 * problem.clients)
    np.testing.assert_allclose(tr.state["g_mean"], expected, rtol=1e-13)
    assert 0 < mask.sum() < mask.size


def test_random_output_is_a_visited_iterate_uniform_over_rounds(problem) -> None:
    kept = []

    def grab(r, state):
        kept.append(state["x"].copy())

    K = 4
    tr = run_batch("dp_fedavg_clip", problem, K, seeds=list(range(300)), gradients="exact", w0=np.ones(problem.dim),
                   reference=_Ref(problem), step=0.1, server_step=0.05, clip=1.0, sigma=0.1, local_steps=1,
                   callback=grab)
    iterates = np.stack([np.broadcast_to(np.ones(problem.dim), kept[0].shape)] + kept[:-1])  # w_0..w_{K-1}
    which = np.argmin(np.abs(iterates - tr.w[None]).sum(axis=-1), axis=0)
    assert np.allclose(iterates[which, np.arange(300)], tr.w)
    counts = np.bincount(which, minlength=K)
    # uniform on {0..K-1}: chi-square with 3 dof, 99.9% quantile 16.27
    assert np.sum((counts - 75.0) ** 2 / 75.0) < 16.27


def test_zero_update_under_normalisation(problem) -> None:
    # w_0 = c_0 is the minimiser of f_0: its update is exactly 0
    c0 = problem.extras["centres"][0]
    tr = _run(problem, "dp_normfedavg", rounds=1, w0=c0, step=0.1, server_step=0.05, clip=1.0, sigma=0.0,
              local_steps=2)
    assert tr.state["u_norm"][0, 0] == 0
    with pytest.raises(InputError, match="client 0 has a client update of norm 0 at round 0"):
        _run(problem, "dp_normfedavg", rounds=1, w0=c0, step=0.1, server_step=0.05, clip=1.0, sigma=0.0,
             local_steps=2, zero_update="error")


@pytest.mark.parametrize("bad, match", [({"clip": 0.0}, "clip=0.0"), ({"clip": -1.0}, "clip=-1.0"),
                                        ({"sigma": -0.1}, "sigma=-0.1"), ({"rate": 0.0}, "rate=0.0"),
                                        ({"rate": 1.5}, "rate=1.5"), ({"step": 0.0}, "step=0.0")])
def test_bad_hyperparameters(bad, match) -> None:
    for name in ("dp_fedavg_clip", "dp_normfedavg"):
        with pytest.raises(InputError, match=match):
            make(name, **bad)


def test_calibration_matches_eq5_and_the_q_free_identity() -> None:
    eps, delta, q, K, C, n, d = 5.0, 1e-6, 1.0, 500, 40.0, 100, 200
    sigma = dp_sigma(eps, delta, q, K, C, n)
    assert sigma == pytest.approx(math.sqrt(q * K * math.log(1 / delta) * C**2 / (n**2 * eps**2)), rel=1e-14)
    assert sigma / C == pytest.approx(0.166226, abs=1e-6)  # sqrt(500 log(1e6))/(100·5) at q = 1
    rho = dp_rho(eps, delta, q, d, n)
    assert rho == pytest.approx(0.1051304, abs=1e-7)
    assert d * sigma**2 == pytest.approx(K * C**2 * rho**2, rel=1e-12)  # d sigma^2 = K C^2 rho^2
    assert dp_rho_effective(sigma, C, K, d) == pytest.approx(rho, rel=1e-12)
    assert dp_noise_multiplier(sigma, C, 1.0, n) == pytest.approx(math.sqrt(q * K * math.log(1 / delta)) / eps)


@pytest.mark.parametrize("kw, match", [({"eps": 0.0}, "eps=0.0"), ({"eps": -1.0}, "eps=-1.0"),
                                       ({"delta": 1.0}, "delta=1.0"), ({"delta": 0.0}, "delta=0.0"),
                                       ({"clip": 0.0}, "clip=0.0"), ({"q": 0.0}, "q=0.0")])
def test_calibration_bad_input(kw, match) -> None:
    args = {"eps": 1.0, "delta": 1e-5, "q": 1.0, "rounds": 100, "clip": 1.0, "clients": 10, **kw}
    with pytest.raises(InputError, match=match):
        dp_sigma(**args)


def test_sigma_negative_and_rate_out_of_range_in_helpers() -> None:
    with pytest.raises(InputError, match="sigma=-1"):
        dp_rho_effective(-1.0, 1.0, 10, 5)
    with pytest.raises(InputError, match="rate=1.5"):
        dp_noise_multiplier(1.0, 1.0, 1.5, 10)


def test_thm1_catalogue_solves_for_sigma() -> None:
    from fedrates.bounds import analysis
    from fedrates.bounds.catalog import get

    roots = analysis.solve_for(get("das.thm1"), "sigma", 1.0,
                               {"eps": 1.0, "delta": 1e-5, "q": 1.0, "K": 500.0, "C": 40.0, "n": 100.0})
    assert roots == [pytest.approx(dp_sigma(1.0, 1e-5, 1.0, 500, 40.0, 100), rel=1e-9)]


def test_partial_participation_of_the_runner_is_refused(problem) -> None:
    with pytest.raises(InputError, match="participating=None"):
        run_batch("dp_fedavg_clip", problem, 1, seeds=[0], participating=2, gradients="exact",
                  reference=_Ref(problem))


def test_a_short_run_draws_only_its_rounds_of_noise_and_the_same_noise(problem) -> None:
    """The noise buffer draws at most the rounds the run has left: after 3 rounds each client's noise stream has
    given exactly 3·d normals, and those are the noise a 40-round run (blocks of 32) uses in its first 3 rounds."""
    kw = {"step": 0.1, "server_step": 0.05, "clip": 1.0, "sigma": 0.3, "local_steps": 2}
    short = _run(problem, "dp_fedavg_clip", rounds=3, seeds=(4,), **kw)
    kept = []
    run_batch("dp_fedavg_clip", problem, 40, seeds=[4], gradients="exact", w0=np.ones(problem.dim),
              reference=_Ref(problem), record_every=1, output_point="last",
              callback=lambda r, state: kept.append(state["x"].copy()) if r == 3 else None, **kw)
    assert np.array_equal(short.state["x"], kept[0])
    g = short.state["noise_rngs"][0][2]  # client 2's noise stream of the 3-round run
    from fedrates.solvers.algorithms.dp_fedavg_clip import NOISE_KEY

    fresh = np.random.default_rng(np.random.SeedSequence(4, spawn_key=(3, NOISE_KEY, 0)))
    fresh.standard_normal((3, problem.dim))
    assert np.array_equal(g.standard_normal(5), fresh.standard_normal(5))
