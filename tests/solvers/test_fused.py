"""Fused rounds (all local steps of a round in one numba kernel) against the step-by-step numpy reference.

The step-by-step code of each algorithm (one gradient call and one numpy prox per local step) is the oracle: with
``kernels.BACKEND = "numpy"`` no round is fused.  Agreement is required to 1e-12 relative (the kernels only
reassociate sums), on every recorded metric and the final points, with the ball and the C-FedDA R-ball active and
inactive, for several seed sets; equal seeds must give bit-identical results with each backend.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fedrates.solvers import algorithms, kernels, oracles, problems
from fedrates.solvers.algorithms import _fused
from fedrates.solvers.penalties import Zero

pytest.importorskip("numba", reason="numba is not installed: only the step-by-step numpy rounds exist")

RTOL = 1e-12
METRIC_COLUMNS = ["objective_gap", "distance_to_optimum", "distance_to_truth", "support_f1"]

# (algorithm, hyperparameters, lasso λ); ε₀ = 0.3 makes C-FedDA's R-ball bind (fused rounds replayed exactly)
CASES = [
    ("fedavg", {"step": 0.05}, 0.0),
    ("fedprox", {"step": 0.05, "mu_prox": 0.3}, 0.0),
    ("fedmid", {"step": 0.05}, 0.02),
    ("fedmid", {"step": 0.05, "server_prox": "none"}, 0.0),
    ("fedda", {"step": 0.05, "server_step": 0.8}, 0.02),
    ("fast_fedda", {"mu": 0.1}, 0.02),
    ("fast_fedda", {"mu": 0.1, "estimator_sign": "plus"}, 0.02),
    ("c_fedda", {"mu": 0.1}, 0.02),
    ("c_fedda", {"mu": 0.1, "eps0": 0.3}, 0.02),
    ("mc_fedda", {"mu": 0.1, "stage_rounds": 4}, 0.02),
]


def _problem(lam: float, radius: float | None) -> problems.Problem:
    return problems.make("lasso", clients=6, samples=20, dim=12, sparsity=3, lam=lam, radius=radius, signal=3.0)


class _Spy:
    """Counts fused rounds (rows taken for a kernel) and replays (a fused C-FedDA round redone step by step)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fused = self.replays = 0
        rows, replay = _fused.local_rows, oracles.GradientOracle.replay

        def spy_rows(ctx, steps):
            out = rows(ctx, steps)
            self.fused += out is not None
            return out

        def spy_replay(oracle, r):
            self.replays += 1
            return replay(oracle, r)

        monkeypatch.setattr(_fused, "local_rows", spy_rows)
        monkeypatch.setattr(oracles.GradientOracle, "replay", spy_replay)


def _run(monkeypatch, backend, name, p, seeds, rounds=12, **hyper):
    monkeypatch.setattr(kernels, "BACKEND", backend)
    return algorithms.run_batch(name, p, rounds, seeds=seeds, local_steps=3, batch=4, participating=4,
                                record_every=1, **hyper)


def _assert_close(a: np.ndarray, b: np.ndarray) -> None:
    """|a − b| ≤ 1e-12·max(|b|, scale) elementwise, scale = the largest |b| of the array (relative to its size)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    scale = np.max(np.abs(b[ok]), initial=0.0)
    err = np.abs(a[ok] - b[ok])
    assert np.all(err <= RTOL * np.maximum(np.abs(b[ok]), scale)), float(np.max(err / max(scale, 1e-300)))


@pytest.mark.parametrize("radius", [None, 0.8])
@pytest.mark.parametrize("name,hyper,lam", CASES)
def test_fused_rounds_agree_with_step_by_step(monkeypatch, name, hyper, lam, radius):
    p = _problem(lam, radius)
    if name == "c_fedda" and radius is None and "eps0" not in hyper:
        hyper = dict(hyper, eps0=30.0)  # no ball: an R-ball that never binds
    spy = _Spy(monkeypatch)
    for seeds in ([0, 1, 2], [7]):
        ref = _run(monkeypatch, "numpy", name, p, seeds, **hyper)
        assert spy.fused == 0  # the numpy backend never fuses
        got = _run(monkeypatch, "numba", name, p, seeds, **hyper)
        assert spy.fused == 12  # every round was fused
        spy.fused = 0
        _assert_close(got.w, ref.w)
        for col in METRIC_COLUMNS:
            _assert_close(got.records[col].to_numpy(), ref.records[col].to_numpy())
        for col in ("round", "iterations", "grad_evals", "clients_communicated", "seed"):
            assert got.records[col].tolist() == ref.records[col].tolist()
    binding = name == "c_fedda" and hyper.get("eps0") == 0.3
    assert (spy.replays > 0) == binding


@pytest.mark.parametrize("batch", [1, 2, 3, 5, 9, 10, 17])
@pytest.mark.parametrize("radius", [None, 0.8])
def test_fast_fedda_kernel_agrees_for_every_batch_split(monkeypatch, batch, radius):
    """The Fast-FedDA kernel adds the last two rows of a batch in its update loop and the others in their own pass
    (one row: the update loop alone): every split of the batch agrees with the step-by-step round."""
    p = _problem(0.02, radius)
    spy = _Spy(monkeypatch)
    runs = {}
    for backend in ("numpy", "numba"):
        monkeypatch.setattr(kernels, "BACKEND", backend)
        runs[backend] = algorithms.run_batch("fast_fedda", p, 6, seeds=[0, 3], local_steps=3, batch=batch,
                                             participating=4, record_every=1, mu=0.1)
    assert spy.fused == 6
    _assert_close(runs["numba"].w, runs["numpy"].w)
    for col in METRIC_COLUMNS:
        _assert_close(runs["numba"].records[col].to_numpy(), runs["numpy"].records[col].to_numpy())


def test_ball_and_r_ball_are_active_in_the_agreement_cases(monkeypatch):
    """The cases above exercise the projections: with ρ = 0.8 some outputs sit on the ball, and with ε₀ = 0.3 the
    C-FedDA outputs sit on the R-ball around w₀ = 0 (so the closed form of CProx is not the answer there)."""
    monkeypatch.setattr(kernels, "BACKEND", "numba")
    p = _problem(0.02, 0.8)
    fedda = algorithms.run_batch("fedda", p, 12, seeds=[0, 1], local_steps=3, batch=4, participating=4,
                                 step=0.05, server_step=0.8)
    assert np.any(np.abs(np.linalg.norm(fedda.w, axis=-1) - 0.8) < 1e-9)
    cf = algorithms.run_batch("c_fedda", p, 12, seeds=[0, 1], local_steps=3, batch=4, participating=4, mu=0.1,
                              eps0=0.3)
    assert np.all(np.abs(cf.state["wbar"]).sum(axis=-1) == pytest.approx(0.3, rel=1e-9))


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name,hyper,lam", [CASES[0], CASES[4], CASES[5], CASES[8]])
def test_equal_seeds_bit_identical(monkeypatch, backend, name, hyper, lam):
    """Equal seeds give bit-identical runs, and a replica simulated with others equals the same seed alone."""
    p = _problem(lam, 0.8)
    a = _run(monkeypatch, backend, name, p, [4, 5, 6], **hyper)
    b = _run(monkeypatch, backend, name, p, [4, 5, 6], **hyper)
    alone = _run(monkeypatch, backend, name, p, [5], **hyper)
    assert np.array_equal(a.w, b.w)
    pd_a, pd_b = a.records[METRIC_COLUMNS].to_numpy(), b.records[METRIC_COLUMNS].to_numpy()
    assert np.array_equal(pd_a, pd_b, equal_nan=True)
    assert np.array_equal(a.w[1], alone.w[0])


def test_replaced_gradient_is_honoured(monkeypatch):
    """A gradient replaced on the round context (a broken variant scaling the step) or in the oracle module (a
    patched minibatch mean) makes the numba backend run step by step: it gives the numpy backend's results, which
    differ from the correct algorithm's."""
    from fedrates.verify.claims.bao import variants as bao_broken

    spy = _Spy(monkeypatch)
    p = _problem(0.02, None)
    correct = _run(monkeypatch, "numba", "fast_fedda", p, [0, 1], mu=0.1).w
    spy.fused = 0

    class TenTimes(algorithms.get("fast_fedda")):
        def round(self, state, problem, ctx):
            grads = ctx.gradients
            ctx.gradients = lambda W, clients=None: 10.0 * grads(W, clients)
            return super().round(state, problem, ctx)

    broken = {be: _run(monkeypatch, be, TenTimes(mu=0.1, local_steps=3, batch=4), p, [0, 1]).w
              for be in ("numba", "numpy")}
    assert spy.fused == 0
    _assert_close(broken["numba"], broken["numpy"])
    assert np.abs(broken["numba"] - correct).max() > 1e-3

    with bao_broken.minibatch_mean_off_by_one():
        patched = {be: _run(monkeypatch, be, "fast_fedda", p, [0, 1], mu=0.1).w for be in ("numba", "numpy")}
    assert spy.fused == 0
    _assert_close(patched["numba"], patched["numpy"])
    assert np.abs(patched["numba"] - correct).max() > 1e-3


def test_replaced_prox_and_cprox_are_honoured(monkeypatch):
    """Variants replacing Fast-FedDA's Prox_t or C-FedDA's CProx are never fused (their own code runs)."""
    from fedrates.verify.claims.bao import variants as bao_broken

    spy = _Spy(monkeypatch)
    p = _problem(0.02, 0.8)
    variant = bao_broken.FastFedDAProxDropped(mu=0.1, local_steps=3, batch=4)
    got = {be: _run(monkeypatch, be, variant, p, [0, 1]).w for be in ("numba", "numpy")}
    _assert_close(got["numba"], got["numpy"])
    with bao_broken.inexact_cprox():
        got = {be: _run(monkeypatch, be, "c_fedda", p, [0, 1], mu=0.1).w for be in ("numba", "numpy")}
    _assert_close(got["numba"], got["numpy"])
    assert spy.fused == 0


def test_sample_data_are_c_ordered_so_the_stacked_matrix_is_a_view():
    """bao-lasso's covariates are built by broadcasting (AR(1) recursion); stored in C order, the (K·n, d) matrix the
    kernels read is a view of them, not a 64 MB copy per local step."""
    p = problems.make("lasso", preset="bao-lasso")
    X, _ = _fused.samples(p)
    assert p.datafit.X.flags.c_contiguous
    assert np.shares_memory(X, p.datafit.X)


@pytest.mark.parametrize("lam", [-1.0, 0.0, 0.02, 0.4])
@pytest.mark.parametrize("radius", [None, 0.3, 50.0])
def test_fast_fedda_server_step_is_the_numpy_expression_bit_for_bit(lam, radius):
    """The compiled server step of a fused Fast-FedDA round (the E points prox((γw₀ − (ḡ − μw̃̄/2))/c_e) and the
    output's running sum) equals, bit for bit, ``Problem.prox`` of the numpy expression the round used before, with
    a threshold or none (zero penalty), with the ball binding, not binding, or absent, at several sizes."""
    rng = np.random.default_rng(7)
    for R, E, d in [(1, 10, 1024), (3, 5, 17), (2, 1, 64), (2, 7, 333)]:
        p = problems.make("lasso", clients=2, samples=4, dim=d, sparsity=1, lam=max(lam, 0.0), radius=radius)
        if lam < 0:  # the zero penalty: no threshold (κ_e = −1 in the kernels)
            p = dataclasses.replace(p, penalty=Zero())
        assert _fused.prox_lambda(p) == lam
        gbar, wtbar = rng.standard_normal((R, E, d)), rng.standard_normal((R, E, d))
        w0 = rng.standard_normal((R, d))
        As, cs = rng.uniform(1, 3, E), rng.uniform(5, 9, E)
        alphas = list(rng.uniform(1, 2, E))
        mu, gamma = 0.137, 3.3
        num = rng.standard_normal((R, d))
        expected_num = num.copy()
        steps = np.broadcast_to(np.array([A / c for A, c in zip(As, cs, strict=True)]), (R, E))
        expected = p.prox((gamma * w0[:, None] - (gbar - 0.5 * mu * wtbar)) / np.array(cs)[None, :, None], steps)
        for e in range(E):
            expected_num += alphas[e] * expected[:, e]
        kappas = [A / c * lam if lam >= 0 else -1.0 for A, c in zip(As, cs, strict=True)]
        got = _fused.fast_da_server(p, gbar, wtbar, w0, list(cs), kappas, 0.5 * mu, gamma, alphas, num)
        assert np.array_equal(got, expected)
        assert np.array_equal(num, expected_num)
