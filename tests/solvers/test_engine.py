"""Engine: registry, hyperparameter validation, runner semantics, streams, records, divergence handling."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from fedrates.solvers import algorithms as alg
from fedrates.solvers import problems
from fedrates.solvers.algorithms.base import Algorithm, hyper
from fedrates.solvers.errors import InputError
from fedrates.solvers.oracles import GradientOracle, exact_gradients, make_streams, minibatch_gradients


@pytest.fixture(scope="module")
def lasso():
    return problems.make("lasso", clients=6, samples=20, dim=8, sparsity=3, seed=3)


@pytest.fixture(scope="module")
def quad():
    return problems.make("quadratic", clients=5, dim=4, sigma=0.5, seed=1)


# ---- registry and validation -----------------------------------------------------------------------------------
def test_registry_lists_the_baselines():
    assert {"fedavg", "fedprox", "fedmid", "fedda"} <= set(alg.names())
    assert alg.get("fedavg").name == "fedavg"


def test_unknown_algorithm_suggests_closest():
    with pytest.raises(InputError, match="did you mean 'fedavg'"):
        alg.get("fedavgg")


def test_unknown_hyperparameter_suggests_closest():
    with pytest.raises(InputError, match="did you mean 'step'"):
        alg.make("fedavg", stepp=0.1)


@pytest.mark.parametrize("bad", [{"step": 0.0}, {"step": -1.0}, {"local_steps": 0}, {"batch": 0},
                                 {"local_steps": 2.5}, {"server_step": -0.1}, {"step": "fast"},
                                 {"step": float("nan")}])
def test_bad_hyperparameters_are_one_line_errors(bad):
    with pytest.raises(InputError) as info:
        alg.make("fedavg", **bad)
    assert "\n" not in str(info.value) and next(iter(bad)) in str(info.value)


def test_integral_float_is_accepted_for_integers():
    assert alg.make("fedavg", local_steps=3.0).local_steps == 3


@pytest.mark.parametrize("kwargs", [{"rounds": 0}, {"rounds": 3, "participating": 7},
                                    {"rounds": 3, "participating": 0}, {"rounds": 3, "gradients": "exakt"},
                                    {"rounds": 3, "record_every": 0}])
def test_bad_run_arguments(quad, kwargs):
    with pytest.raises(InputError):
        alg.run("fedavg", quad, **kwargs)


def test_smooth_only_method_refuses_l1(lasso):
    with pytest.raises(InputError, match="fedavg handles smooth objectives only; problem has an l1 penalty"):
        alg.run("fedavg", lasso, 2)


def test_batch_larger_than_samples_is_refused(lasso):
    with pytest.raises(InputError, match="batch=50"):
        alg.run("fedda", lasso, 2, batch=50)


# ---- records -----------------------------------------------------------------------------------------------------
def test_record_columns_and_counters(lasso):
    t = alg.run("fedda", lasso, 7, participating=4, local_steps=3, record_every=3, step=0.01)
    assert tuple(t.records.columns) == alg.COLUMNS
    assert t.records["round"].tolist() == [0, 3, 6, 7]
    assert t.records["iterations"].tolist() == [0, 9, 18, 21]
    assert t.records["grad_evals"].tolist() == [0, 36, 72, 84]
    assert t.records["clients_communicated"].tolist() == [0, 12, 24, 28]
    assert t.w.shape == lasso.shape and not t.diverged
    assert t.params["algorithm"] == "fedda" and t.params["hyperparameters"]["local_steps"] == 3


def test_metrics_against_direct_formulas(lasso):
    rng = np.random.default_rng(0)
    w_ref = rng.standard_normal(lasso.shape)
    ref = SimpleNamespace(w=w_ref, value=float(lasso.objective(w_ref)) - 0.25, gap=0.0)
    w0 = rng.standard_normal(lasso.shape)
    t = alg.run("fedda", lasso, 1, reference=ref, w0=w0, step=1e-9, gradients="exact")
    first = t.records.iloc[0]
    assert first["objective_gap"] == pytest.approx(lasso.objective(w0) - ref.value, rel=1e-10)
    assert first["distance_to_optimum"] == pytest.approx(np.linalg.norm(w0 - w_ref), rel=1e-12)
    assert first["distance_to_truth"] == pytest.approx(np.linalg.norm(w0 - lasso.truth), rel=1e-12)
    # support F1 by hand: estimated support {|w_j| > 0.01}, true support = first 3 coordinates
    est = np.abs(w0) > 0.01
    true = np.arange(8) < 3
    tp, fp, fn = np.sum(est & true), np.sum(est & ~true), np.sum(~est & true)
    assert first["support_f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert np.isnan(first["rank"])


def test_support_f1_on_exact_truth(lasso):
    t = alg.run("fedda", lasso, 1, w0=lasso.truth, step=1e-12, gradients="exact")
    assert t.records["support_f1"].iloc[0] == 1.0
    assert t.records["distance_to_truth"].iloc[0] == 0.0


def test_rank_is_numerical_rank():
    p = problems.make("trace")
    d1, d2 = p.shape
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((d1, 2)) @ rng.standard_normal((2, d2))  # rank 2 up to rounding
    t = alg.run("fedda", p, 1, w0=w0, step=1e-14, gradients="exact")
    assert t.records["rank"].iloc[0] == 2.0


def test_metrics_are_nan_without_reference(quad, monkeypatch):
    import fedrates.solvers.algorithms.base as base

    monkeypatch.setattr(base, "_default_reference", lambda problem, warnings: None)
    t = alg.run("fedavg", quad, 2, step=0.1)
    assert t.records["objective_gap"].isna().all() and t.records["distance_to_optimum"].isna().all()
    assert t.params["reference_value"] is None


# ---- determinism, batching, streams ------------------------------------------------------------------------------
def test_reruns_are_bit_identical(lasso):
    kw = dict(participating=3, local_steps=4, batch=5, step=0.02, seeds=[4, 9, 11])
    a = alg.run_batch("fedmid", lasso, 12, **kw)
    b = alg.run_batch("fedmid", lasso, 12, **kw)
    assert np.array_equal(a.w, b.w)
    assert a.records.equals(b.records)


@pytest.mark.parametrize("name,problem_name,extra", [("fedavg", "quad", {}), ("fedda", "lasso", {}),
                                                     ("fedmid", "lasso", {"server_prox": "code"})])
def test_batched_equals_one_by_one(request, name, problem_name, extra):
    problem = request.getfixturevalue(problem_name)
    seeds = list(range(100, 120))
    kw = dict(participating=3, local_steps=3, batch=4, step=0.02, **extra)
    batch = alg.run_batch(name, problem, 15, seeds=seeds, **kw)
    for i, s in enumerate(seeds):
        single = alg.run(name, problem, 15, seed=s, **kw)
        np.testing.assert_allclose(batch.w[i], single.w, rtol=1e-12, atol=1e-14)
        rec = batch.trace(s).records
        np.testing.assert_array_equal(rec["grad_evals"], single.records["grad_evals"])


def test_different_seeds_differ(lasso):
    t = alg.run_batch("fedda", lasso, 5, seeds=[1, 2], participating=3, step=0.02)
    assert not np.allclose(t.w[0], t.w[1])


def test_client_stream_does_not_depend_on_other_participants(lasso):
    """Client 2's minibatch gradient is the same whoever else participates, in any order."""
    W = np.random.default_rng(5).standard_normal((1, 2) + lasso.shape)
    ga = minibatch_gradients(lasso, W, [make_streams(7, lasso.clients).clients], np.array([[0, 2]]), 4)
    gb = minibatch_gradients(lasso, W[:, ::-1], [make_streams(7, lasso.clients).clients], np.array([[2, 5]]), 4)
    np.testing.assert_array_equal(ga[0, 1], gb[0, 0])
    assert not np.allclose(ga[0, 0], gb[0, 1])


@pytest.mark.parametrize("problem_name", ["lasso", "quad"])
def test_round_prefetch_equals_step_by_step_draws(request, problem_name):
    """Drawing a round's units in one call per client gives exactly the step-by-step numbers."""
    problem = request.getfixturevalue(problem_name)
    clients = np.array([[1, 3, 4]])
    W = np.random.default_rng(2).standard_normal((1, 3) + problem.shape)
    prefetch = GradientOracle(problem, [make_streams(3, problem.clients).clients], batch=4)
    prefetch.begin_round(clients, steps=5)
    stepwise = [make_streams(3, problem.clients).clients]
    for _ in range(6):  # one more step than announced: the oracle draws more on demand
        np.testing.assert_array_equal(prefetch(W), minibatch_gradients(problem, W, stepwise, clients, 4))


def test_population_prefetch_equals_step_by_step_draws():
    problem = problems.make("lasso", clients=3, dim=5, sparsity=2, sampling="population")
    clients = np.array([[0, 2]])
    W = np.ones((1, 2, 5))
    oracle = GradientOracle(problem, [make_streams(8, 3).clients], batch=3)
    oracle.begin_round(clients, steps=3)
    stepwise = [make_streams(8, 3).clients]
    for _ in range(3):
        np.testing.assert_array_equal(oracle(W), minibatch_gradients(problem, W, stepwise, clients, 3))


@pytest.mark.parametrize("sampling", ["empirical", "population"])
def test_minibatch_gradients_are_unbiased(sampling):
    """Mean of 4000 minibatch gradients vs the exact gradient: every coordinate within 5 standard errors
    (per-coordinate two-sided false alarm ≈ 6e-7), for 3 seeds."""
    problem = problems.make("lasso", clients=2, samples=12, dim=3, sparsity=1, sampling=sampling, seed=2)
    W = np.array([[[0.3, -0.2, 0.5], [1.0, 0.0, -1.0]]])
    exact = exact_gradients(problem, W, np.array([[0, 1]]))[0]
    for seed in range(3):
        oracle = GradientOracle(problem, [make_streams(seed, 2).clients], batch=4)
        oracle.begin_round(np.array([[0, 1]]), steps=4000)
        G = np.stack([oracle(W)[0] for _ in range(4000)])
        se = G.std(axis=0, ddof=1) / np.sqrt(len(G))
        assert np.all(np.abs(G.mean(axis=0) - exact) < 5 * se + 1e-12)


def test_exact_gradients_match_problem_gradients(lasso, quad):
    for problem in (lasso, quad):
        W = np.random.default_rng(0).standard_normal((2, problem.clients) + problem.shape)
        clients = np.broadcast_to(np.arange(problem.clients), (2, problem.clients))
        np.testing.assert_allclose(exact_gradients(problem, W, clients), problem.client_gradients(W),
                                   rtol=1e-12, atol=1e-12)


# ---- participation ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class _Probe(Algorithm):
    """Records the participants and scales its point by a per-replica factor each round."""

    name = "probe"
    factor: float = hyper(0.5, "scale factor per round > 0", low=0.0, strict=True)

    def init(self, problem, w0):
        R = w0.shape[0]
        scale = np.full(R, self.factor)
        scale[0] = 10.0  # replica 0 blows up
        return {"x": np.array(w0, dtype=float), "scale": scale, "clients": np.zeros((R, 0), dtype=int)}

    def round(self, state, problem, ctx):
        return {"x": state["x"] * state["scale"][:, None], "scale": state["scale"], "clients": ctx.clients}

    def output(self, state):
        return state["x"]


def test_partial_participation_draws_distinct_uniform_clients(quad):
    """m = 2 of K = 5: each round's clients are distinct; each client's inclusion frequency over 3 seeds × 400
    rounds is within 5 binomial standard deviations of m/K."""
    seen = []
    alg.run_batch(_Probe(factor=1.0), quad, 400, seeds=[1, 2, 3], participating=2,
                  callback=lambda r, s: seen.append(s["clients"]))
    clients = np.stack(seen)  # (rounds, R, m)
    assert clients.shape == (400, 3, 2)
    assert np.all(clients[..., 0] != clients[..., 1]) and clients.min() >= 0 and clients.max() < 5
    counts = np.stack([(clients == k).any(axis=-1).sum(axis=0) for k in range(5)])  # (K, R)
    n, p = 400, 2 / 5
    assert np.all(np.abs(counts - n * p) < 5 * np.sqrt(n * p * (1 - p)))


def test_divergence_freezes_one_replica_and_continues_others(quad):
    w0 = np.ones(quad.shape)
    ref = SimpleNamespace(w=np.zeros(quad.shape), value=float(quad.objective(np.zeros(quad.shape))), gap=0.0)
    t = alg.run_batch(_Probe(factor=0.5), quad, 12, seeds=[0, 1, 2], w0=w0, reference=ref)
    assert t.diverged.tolist() == [True, False, False]
    last = t.final()
    assert last["diverged"].tolist() == [True, False, False]
    metrics = ["objective_gap", "distance_to_optimum"]
    assert last.loc[0, metrics].isna().all()
    assert np.isfinite(last.loc[1:, metrics].to_numpy(dtype=float)).all()
    np.testing.assert_allclose(t.w[1], 0.5**12 * w0, rtol=1e-15)
    # frozen at its last state below the threshold 1e6·(1 + ‖w0‖ + ‖ŵ‖) = 1e6·(1 + 2): 10^6 < 3e6 < 10^7
    np.testing.assert_allclose(t.w[0], 1e6 * w0)
    assert any("diverged" in w for w in t.warnings)
    rec0 = t.trace(0).records
    assert rec0["diverged"].tolist() == [False] * 7 + [True] * 6
    assert rec0.loc[rec0["diverged"], metrics].isna().all().all()
    assert np.isfinite(rec0.loc[~rec0["diverged"], metrics].to_numpy(dtype=float)).all()


def test_minibatch_indices_are_uniform_distinct_subsets():
    """Floyd's algorithm: n = 5, B = 2, 20000 draws per seed, 3 seeds.  Every draw has distinct indices and each of
    the 10 pairs has frequency 1/10: chi-square statistic (9 dof) below 33.7 (p ≈ 1e-4 per seed)."""
    from itertools import combinations

    from fedrates.solvers.oracles import _indices

    pairs = {frozenset(c): i for i, c in enumerate(combinations(range(5), 2))}
    for seed in range(3):
        u = np.random.default_rng(seed).random((20000, 2))
        S = _indices(u, 5, 2, replace=False)
        assert np.all(S[:, 0] != S[:, 1]) and S.min() >= 0 and S.max() <= 4
        counts = np.bincount([pairs[frozenset(row)] for row in S.tolist()], minlength=10)
        chi2 = np.sum((counts - 2000) ** 2 / 2000)
        assert chi2 < 33.7
    full = _indices(np.random.default_rng(0).random((100, 6)), 6, 6, replace=False)
    assert np.all(np.sort(full, axis=1) == np.arange(6))


# ---- performance paths: same numbers as the plain formulas ------------------------------------------------------
def _floyd(u: np.ndarray, n: int) -> list[int]:
    """Floyd's subset algorithm for one draw unit, written one scalar at a time."""
    batch, chosen = len(u), []
    for i in range(batch):
        j = n - batch + i
        t = min(int(u[i] * (j + 1)), j)
        chosen.append(j if t in chosen else t)
    return chosen


def test_minibatch_indices_equal_scalar_floyd():
    from fedrates.solvers.oracles import _indices

    for n, batch in ((5, 2), (12, 12), (64, 10), (1000, 40)):
        u = np.random.default_rng(n).random((4, 3, batch))
        S = _indices(u, n, batch, replace=False)
        assert S.shape == u.shape
        expected = [[_floyd(u[a, b], n) for b in range(3)] for a in range(4)]
        assert S.tolist() == expected


def test_oracle_gradients_equal_per_client_loop(lasso, monkeypatch):
    """GradientOracle rows/chunks/workspace against (1/B) X_bᵀ(X_b w − y_b) per client with scalar Floyd indices
    drawn from the same streams; tiny chunks force several chunks per step and a reused buffer."""
    import fedrates.solvers.oracles as oracles

    monkeypatch.setattr(oracles, "_CHUNK_BYTES", 3 * 4 * 8 * 8)
    R, B, E = 2, 4, 3
    clients = np.array([[0, 2, 5], [1, 2, 3]])
    W = np.random.default_rng(0).standard_normal((R, 3, lasso.dim))
    oracle = GradientOracle(lasso, [make_streams(s, lasso.clients).clients for s in (7, 8)], B)
    oracle.begin_round(clients, E)
    got = [oracle(W) for _ in range(E)]
    streams = [make_streams(s, lasso.clients).clients for s in (7, 8)]
    X, y, n = lasso.datafit.X, lasso.datafit.y, lasso.datafit.samples
    units = {(r, k): streams[r][k].random((E, B)) for r in range(R) for k in clients[r]}
    for e in range(E):
        for r in range(R):
            for j, k in enumerate(clients[r]):
                idx = _floyd(units[r, k][e], n)
                Xb = X[k, idx]
                expected = Xb.T @ (Xb @ W[r, j] - y[k, idx]) / B
                np.testing.assert_allclose(got[e][r, j], expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("shape", [(64, 64), (1000, 20), (37, 300), (5, 3)])
def test_blocked_matvec_equals_matmul(shape):
    from fedrates.solvers._reference_fast import matvec

    rng = np.random.default_rng(1)
    A = rng.standard_normal(shape)
    for x in (rng.standard_normal(shape[1]), rng.standard_normal((shape[1], 3))):
        got = matvec(A, x)
        assert got.shape == (A @ x).shape
        scale = np.abs(A) @ np.abs(x)
        assert np.all(np.abs(got - A @ x) <= 1e-14 * scale)
    At = np.asfortranarray(A)
    np.testing.assert_array_equal(matvec(At, x), At @ x)


def test_objective_gap_sparse_and_dense_paths(lasso):
    """Metrics' objective gap (sparse-support and dense quadratic forms) equals φ(w) − φ* from Problem.objective."""
    from fedrates.solvers.algorithms._trace import Metrics

    rng = np.random.default_rng(2)
    w_ref = np.zeros(lasso.dim)
    w_ref[[1, 4]] = [0.3, -0.2]
    ref = SimpleNamespace(w=w_ref, value=float(lasso.objective(w_ref)) - 0.125)
    metrics = Metrics(lasso, ref)
    sparse = np.zeros((2, lasso.dim))
    sparse[0, 1], sparse[1, 4] = 0.5, 0.1
    dense = rng.standard_normal((3, lasso.dim))
    for W in (sparse, dense, w_ref[None]):
        expected = np.array([lasso.objective(w) for w in W]) - ref.value
        np.testing.assert_allclose(metrics(W)["objective_gap"], expected, rtol=1e-12, atol=1e-12)
