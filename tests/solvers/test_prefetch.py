"""Minibatch draws made ahead across rounds change nothing.

Drawing several rounds of a client's uniforms in one ``Generator.random`` call and serving them round by round must
give exactly the numbers of round-by-round drawing: runs with the draws made ahead (algorithms declaring
``uses_client_streams = False``) are compared bit for bit (``np.array_equal``) with the same runs drawing round by
round (the declaration switched to True), for several algorithms, seed sets, full and partial participation, with
and without replacement, and with memory budgets small enough to force refills mid-round, leftovers and growth.
"""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import algorithms, kernels, oracles, problems
from fedrates.solvers.algorithms import base
from fedrates.solvers.algorithms.fedavg import FedAvg
from fedrates.solvers.oracles import GradientOracle, make_streams, make_streams_many

SMOOTH = problems.make("lasso", clients=6, samples=20, dim=12, sparsity=3, lam=0.0)
LASSO = problems.make("lasso", clients=6, samples=20, dim=12, sparsity=3, lam=0.02, radius=5.0)
CASES = [
    ("fedavg", SMOOTH, {"step": 0.05}),
    ("fedprox", SMOOTH, {"step": 0.05, "mu_prox": 0.3}),
    ("fedmid", LASSO, {"step": 0.05}),
    ("fedda", LASSO, {"step": 0.05}),
    ("fast_fedda", LASSO, {"mu": 0.1}),
    ("c_fedda", LASSO, {"mu": 0.1, "eps0": 0.3}),  # R-ball binds: fused rounds replayed step by step
    ("mc_fedda", LASSO, {"mu": 0.1, "stage_rounds": 4}),
]


def _run(name, problem, hyper, **kw):
    t = algorithms.run_batch(name, problem, 9, record_every=2, batch=4, **hyper, **kw)
    return t.w, t.records.select_dtypes("number").to_numpy(dtype=float)


def _same(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name,problem,hyper", CASES, ids=[c[0] + ("-eps0" if "eps0" in c[2] else "") for c in CASES])
def test_draws_ahead_bit_identical_to_round_by_round(name, problem, hyper, monkeypatch):
    cls = algorithms.get(name)
    assert cls.uses_client_streams is False
    configs = [dict(seeds=[0, 7, 3], participating=None, local_steps=3),
               dict(seeds=[11], participating=2, local_steps=3),
               dict(seeds=[4, 5], participating=4, local_steps=1, replace=True),
               dict(seeds=[2, 9], participating=None, local_steps=2, replace=True)]
    for kw in configs:
        ahead = _run(name, problem, hyper, **kw)
        with monkeypatch.context() as m:
            m.setattr(cls, "uses_client_streams", True)
            stepwise = _run(name, problem, hyper, **kw)
        assert _same(ahead, stepwise), (name, kw)


@pytest.mark.parametrize("budget", [1, 5 * 2 * 6 * 4, 7 * 2 * 6 * 4])
@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_small_budgets_refill_mid_round_and_keep_leftovers(budget, backend, monkeypatch):
    """Budgets of 1 unit (the store grows to one request), 5 and 7 units per pair (refills every round or two, a
    partial participant's units held over rounds): the results do not move."""
    if backend == "numba":
        pytest.importorskip("numba", reason="numba is not installed")
    monkeypatch.setattr(kernels, "BACKEND", backend)
    kw = dict(seeds=[1, 2], participating=3, local_steps=3)
    reference = _run("fedda", LASSO, {"step": 0.05}, **kw)
    full_reference = _run("fast_fedda", LASSO, {"mu": 0.1}, seeds=[1, 2], local_steps=3)
    monkeypatch.setattr(oracles, "_AHEAD_BUDGET", budget)
    assert _same(_run("fedda", LASSO, {"step": 0.05}, **kw), reference)
    assert _same(_run("fast_fedda", LASSO, {"mu": 0.1}, seeds=[1, 2], local_steps=3), full_reference)
    monkeypatch.setattr(algorithms.get("fedda"), "uses_client_streams", True)
    assert _same(_run("fedda", LASSO, {"step": 0.05}, **kw), reference)


@pytest.mark.parametrize("size", [None, 5, 1])
def test_oracle_with_draws_ahead_serves_every_request_as_drawn_in_order(size, monkeypatch):
    """Own rounds of several lengths, take_rows, calls for other clients (one client twice in a replica), partial
    and full participation, mixed: the prefetching oracle returns exactly what the plain oracle returns; with the
    default budget, 5 units per pair (requests of 4 after 3 leave units to move to the front) and 1 (growth)."""
    if size is not None:
        monkeypatch.setattr(oracles, "_AHEAD_BUDGET", size * 2 * 6 * 4)
    p = LASSO
    W = np.random.default_rng(0).standard_normal((2, 6, p.dim))
    seeds = [3, 8]
    plain = GradientOracle(p, [make_streams(s, p.clients).clients for s in seeds], 4)
    ahead = GradientOracle(p, [make_streams(s, p.clients).clients for s in seeds], 4, prefetch=True)
    assert ahead.prefetching and not plain.prefetching
    full = np.broadcast_to(np.arange(6), (2, 6))
    script = [("round", full, 3, 5), ("take", None, 3, 0), ("round", np.array([[0, 2, 5], [1, 2, 3]]), 2, 4),
              ("call", None, 2, 0), ("other", np.array([[4, 4], [0, 5]]), 1, 0), ("call", None, 1, 0),
              ("round", full, 4, 3), ("take", None, 2, 0), ("call", None, 3, 0),
              ("round", np.array([[5], [0]]), 3, 2), ("take", None, 3, 0), ("round", full, 1, 1), ("call", None, 1, 0)]
    for kind, clients, steps, left in script:
        if kind == "round":
            plain.begin_round(clients, steps)
            ahead.begin_round(clients, steps, ahead=left)
            current = clients
        elif kind == "take":
            assert np.array_equal(plain.take_rows(steps), ahead.take_rows(steps))
        elif kind == "other":
            Wo = W[:, :clients.shape[1]]
            assert np.array_equal(plain(Wo, clients), ahead(Wo, clients))
        else:
            for _ in range(steps):
                Wc = W[:, :current.shape[1]]
                assert np.array_equal(plain(Wc), ahead(Wc))
    assert (plain.steps, plain.evaluations) == (ahead.steps, ahead.evaluations)


def test_shared_generator_turns_draws_ahead_off():
    """One generator object for two pairs would interleave differently: no drawing ahead then."""
    g = make_streams(1, 6).clients
    assert not GradientOracle(LASSO, [g, g], 4, prefetch=True).prefetching
    assert GradientOracle(LASSO, [g], 4, prefetch=True).prefetching
    pop = problems.make("lasso", clients=3, dim=5, sparsity=2, sampling="population")
    assert not GradientOracle(pop, [make_streams(1, 3).clients], 4, prefetch=True).prefetching


class _ReadsStreams(FedAvg):
    """FedAvg that also draws a coin from client 0's stream every round, declaring nothing (inherits False)."""

    name = "fedavg_reads_streams"

    def round(self, state, problem, ctx):
        ctx.client_rngs[0][0].random()
        return super().round(state, problem, ctx)


def test_reading_client_streams_without_declaring_it_fails_loudly():
    alg = _ReadsStreams(step=0.05, local_steps=2, batch=4)
    with pytest.raises(RuntimeError, match="uses_client_streams"):
        algorithms.run_batch(alg, SMOOTH, 3, seeds=[0])


def test_oracle_refuses_its_streams_while_drawing_ahead():
    streams = [make_streams(2, LASSO.clients).clients]
    assert GradientOracle(LASSO, streams, 4).client_rngs is streams
    with pytest.raises(RuntimeError, match="uses_client_streams"):
        GradientOracle(LASSO, streams, 4, prefetch=True).client_rngs  # noqa: B018


def test_declared_stream_readers_run_round_by_round(monkeypatch):
    monkeypatch.setattr(_ReadsStreams, "uses_client_streams", True)
    alg = _ReadsStreams(step=0.05, local_steps=2, batch=4)
    t = algorithms.run_batch(alg, SMOOTH, 3, seeds=[0, 1])
    assert np.all(np.isfinite(t.w))
    # the coins shift client 0's minibatches: plain FedAvg differs
    plain = algorithms.run_batch("fedavg", SMOOTH, 3, seeds=[0, 1], step=0.05, local_steps=2, batch=4)
    assert not np.array_equal(t.w, plain.w)


def test_algorithms_reading_client_streams_keep_the_conservative_default():
    for name in ("dp_fedavg_clip", "dp_normfedavg", "fedproxvr_svrg", "fedproxvr_sarah", "fedprox_sgd", "vrcs",
                 "acc_vrcs", "sc_acc_extragradient", "aeg", "c_acc_extragradient"):
        if name in algorithms.names():
            assert algorithms.get(name).uses_client_streams is True, name


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("n,B", [(5, 2), (12, 12), (64, 10), (64, 64), (65, 10), (1000, 40), (7, 1)])
def test_floyd_rows_equal_floyd_with_offsets(n, B, backend):
    if backend == "numba":
        pytest.importorskip("numba", reason="numba is not installed")
    rng = np.random.default_rng(n * B)
    U = rng.random((5, 4, B))
    U[0, 0] = np.nextafter(1.0, 0.0)  # the largest uniform: t = j after truncation
    offsets = np.array([0, 100, 7, 3000, 11])
    got = kernels.floyd_rows(U, n, offsets, backend=backend)
    into = np.full((4, 8, B), -1, dtype=np.intp)
    kernels.floyd_rows(U, n, offsets, into, 2, backend=backend)
    assert got.shape == (4, 5, B) and got.dtype == np.intp
    assert np.array_equal(into[:, 2:7], got) and (into[:, :2] == -1).all() and (into[:, 7:] == -1).all()
    for q in range(5):
        expected = kernels.floyd(U[q], n, backend="numpy") + offsets[q]
        assert np.array_equal(got[:, q], expected)


def test_replaced_stream_factory_is_honoured(monkeypatch):
    """A broken variant replaces ``make_streams_many`` in the runner's module: batch runs must call it."""
    calls = []

    def spy(seeds, clients):
        calls.append(list(seeds))
        return make_streams_many(seeds, clients)

    monkeypatch.setattr(base, "make_streams_many", spy)
    algorithms.run_batch("fedavg", SMOOTH, 2, seeds=[4, 6], step=0.05, batch=4)
    assert calls == [[4, 6]]
