"""Fused kernels (numba) against their numpy oracle, and the FEDRATES_KERNELS switch."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from fedrates.solvers import algorithms, kernels, problems
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import L1, Nuclear, Zero

numba = pytest.importorskip("numba", reason="numba is not installed: only the numpy backend exists")

RTOL = 1e-12  # backends differ only in the order of summation


def _close(a, b):
    """‖a − b‖ ≤ 1e-12‖b‖ row by row (relative to each row's norm; exact zeros must match exactly)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    err = np.linalg.norm((a - b).reshape(a.shape[0], -1), axis=1)
    ref = np.linalg.norm(b.reshape(b.shape[0], -1), axis=1)
    assert np.all(err <= RTOL * ref), (err / np.maximum(ref, 1e-300)).max()
    assert np.array_equal(a == 0, b == 0)


@pytest.mark.parametrize("N,d,P,B", [(40, 7, 9, 3), (512, 300, 33, 10), (64, 1, 5, 64), (200, 13, 7, 15), (90, 5, 4, 5),
                                   (300, 17, 6, 12),
                                   # every way a batch splits into 8-, 4-, 2- and 1-row blocks, and 8-row blocks after
                                   # the first (which writes the gradient instead of adding to it)
                                   (50, 9, 3, 1), (50, 9, 3, 2), (50, 9, 3, 6), (50, 9, 3, 7), (50, 9, 3, 9),
                                   (50, 9, 3, 16), (50, 9, 3, 17), (50, 9, 3, 23)])
def test_lsq_rows_matches_numpy(N, d, P, B):
    rng = np.random.default_rng(N + d)
    X, y = rng.standard_normal((N, d)), rng.standard_normal(N)
    W = rng.standard_normal((P, d)) * 10.0 ** rng.uniform(-3, 3, (P, 1))
    rows = rng.integers(0, N, (P, B))
    got = kernels.lsq_rows(X, y, W, rows, backend="numba")
    want = kernels.lsq_rows(X, y, W, rows, backend="numpy", chunk_bytes=B * d * 8 * 2)
    _close(got, want)
    # an independent formula, one pair at a time
    for p in range(P):
        Xb = X[rows[p]]
        np.testing.assert_allclose(got[p], Xb.T @ (Xb @ W[p] - y[rows[p]]) / B, rtol=1e-10,
                                   atol=1e-12 * np.abs(Xb).sum() * np.abs(Xb @ W[p] - y[rows[p]]).max())


@pytest.mark.parametrize("radius", [None, 0.5, 1e6])
def test_soft_ball_matches_numpy(radius):
    rng = np.random.default_rng(3)
    V = rng.standard_normal((50, 31)) * 3
    kappa = rng.uniform(0, 2, 50)
    _close(kernels.soft_ball(V, kappa, radius, backend="numba"), kernels.soft_ball(V, kappa, radius, backend="numpy"))
    _close(kernels.soft_ball(V, 0.7, radius, backend="numba"), kernels.soft_ball(V, 0.7, radius, backend="numpy"))
    inplace = V.copy()
    out = kernels.soft_ball(inplace, kappa, radius, out=inplace, backend="numba")
    assert out is inplace
    _close(inplace, kernels.soft_ball(V, kappa, radius, backend="numpy"))


def test_ball_and_prox_match_numpy_and_propagate_nan():
    rng = np.random.default_rng(4)
    V = rng.standard_normal((20, 9)) * rng.uniform(0.01, 10, (20, 1))
    V[3, 2] = np.nan
    V[5, 0] = np.inf
    with np.errstate(invalid="ignore"):
        _ball_rows(V)


def _ball_rows(V):
    for r in (0.3, 4.0):
        a, b = kernels.ball(V, r, backend="numba"), kernels.ball(V, r, backend="numpy")
        assert np.array_equal(np.isnan(a), np.isnan(b))
        ok = np.all(np.isfinite(b), axis=1)
        _close(a[ok], b[ok])
        a, b = kernels.soft_ball(V, 0.2, r, backend="numba"), kernels.soft_ball(V, 0.2, r, backend="numpy")
        assert np.array_equal(np.isnan(a), np.isnan(b))


@pytest.mark.parametrize("penalty,shape", [(L1(0.3), (4, 6, 17)), (Zero(), (4, 6, 17)), (Nuclear(0.2), (3, 5, 4))])
@pytest.mark.parametrize("radius", [None, 1.5])
def test_penalty_prox_matches_generic_path(penalty, shape, radius):
    """Penalty.prox (fused kernel / single SVD) against the generic prox-then-project definition."""
    rng = np.random.default_rng(5)
    v = rng.standard_normal(shape)
    for step in (0.5, rng.uniform(0.1, 2, shape[:len(shape) - penalty.ndim])):
        got = penalty.prox(v, step, radius)
        thr = np.asarray(step, dtype=float) * penalty.lam
        if thr.ndim:
            thr = thr.reshape(thr.shape + (1,) * (v.ndim - thr.ndim))
        if isinstance(penalty, Nuclear):
            u, s, vt = np.linalg.svd(v, full_matrices=False)
            ref = (u * np.maximum(s - (thr[..., 0] if thr.ndim else thr), 0)[..., None, :]) @ vt
        else:
            ref = np.sign(v) * np.maximum(np.abs(v) - thr, 0.0)
        if radius is not None:
            n = np.sqrt(np.sum(ref**2, axis=tuple(range(-penalty.ndim, 0)), keepdims=True))
            ref = ref * np.minimum(1.0, radius / np.maximum(n, 1e-300))
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,hyper", [("fedavg", {"step": 0.01}), ("fast_fedda", {"mu": 0.1})])
def test_runs_agree_across_backends(monkeypatch, name, hyper):
    """A whole batched run: numba and numpy backends agree to rounding (same draws, same indices)."""
    p = problems.make("lasso", clients=6, samples=20, dim=12, sparsity=3, lam=0.0 if name == "fedavg" else 0.05,
                      radius=5.0)
    kw = dict(seeds=[0, 1, 2], local_steps=3, batch=4, record_every=5, participating=4, **hyper)
    out = {}
    for be in ("numba", "numpy"):
        monkeypatch.setattr(kernels, "BACKEND", be)
        out[be] = algorithms.run_batch(name, p, 20, **kw)
    np.testing.assert_allclose(out["numba"].w, out["numpy"].w, rtol=1e-11, atol=1e-13)
    assert out["numba"].records["grad_evals"].tolist() == out["numpy"].records["grad_evals"].tolist()


def test_switch_and_bad_value():
    code = "from fedrates.solvers import kernels; print(kernels.backend())"
    env = dict(os.environ, FEDRATES_KERNELS="numpy")
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "numpy"
    env["FEDRATES_KERNELS"] = "auto"
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "numba"
    with pytest.raises(InputError, match="FEDRATES_KERNELS='fortran'"):
        kernels._select("fortran")


def test_cprox_nuclear_shared_centre_shortcut_is_feasible_and_matches_per_row_centres():
    """The triangle-inequality shortcut (R(w) + R(c) ≤ ε) only accepts points that satisfy R(w − c) ≤ ε, and a
    centre shared by the clients of a replica gives the same minimisers as the same centre copied per row."""
    from fedrates.solvers.cprox import cprox

    rng = np.random.default_rng(11)
    R, m, d1, d2 = 3, 5, 6, 4
    v = rng.standard_normal((R, m, d1, d2))
    centre = 0.3 * rng.standard_normal((R, 1, d1, d2))
    for eps in (0.5, 2.0, 8.0):
        shared = cprox(Nuclear(1.0), v, 0.4, centre, eps, 3.0)
        copied = cprox(Nuclear(1.0), v, 0.4, np.broadcast_to(centre, v.shape).copy(), eps, 3.0)
        np.testing.assert_allclose(shared.w, copied.w, rtol=0, atol=1e-12)
        dist = np.linalg.svd(shared.w - centre, compute_uv=False).sum(axis=-1)
        assert np.all(dist <= eps * (1 + 1e-10))
        assert np.all(np.linalg.norm(shared.w, axis=(-2, -1)) <= 3.0 * (1 + 1e-10))
        # closed-form rows are the ball-constrained SVT of v
        direct = Nuclear(0.4).prox(v, 1.0, 3.0)
        inside = np.linalg.svd(direct - centre, compute_uv=False).sum(axis=-1) <= eps
        np.testing.assert_allclose(shared.w[inside], direct[inside], rtol=0, atol=1e-12)


@pytest.mark.parametrize("family", ["lasso", "trace"])
def test_batched_metrics_equal_per_round_metrics(monkeypatch, family):
    """Metrics evaluated for many recorded rounds in one pass equal those evaluated at every record, and equal
    the problem's own objective (an independent formula) at the final point."""
    from fedrates.solvers.algorithms import base

    if family == "lasso":
        p = problems.make("lasso", clients=4, samples=16, dim=10, sparsity=3, lam=0.05, radius=4.0)
    else:
        p = problems.make("trace", clients=4, samples=16, rows=4, cols=3, rank=1, lam=0.05, radius=4.0)
    kw = dict(seeds=[3, 4], local_steps=2, batch=4, record_every=1, mu=0.1)
    batched = algorithms.run_batch("fast_fedda", p, 12, **kw)
    monkeypatch.setattr(base, "_METRIC_BUDGET", 1)
    per_round = algorithms.run_batch("fast_fedda", p, 12, **kw)
    pd_cols = ["objective_gap", "distance_to_optimum", "distance_to_truth", "support_f1", "rank"]
    np.testing.assert_allclose(batched.records[pd_cols].to_numpy(), per_round.records[pd_cols].to_numpy(),
                               rtol=1e-11, atol=1e-13)
    ref = algorithms.base._default_reference(p, [])
    last = batched.final()
    for i in range(2):
        direct = float(p.objective(batched.w[i])) - float(ref.value)
        assert last["objective_gap"][i] == pytest.approx(direct, rel=1e-7, abs=1e-12)


@pytest.mark.parametrize("n,B", [(5, 2), (12, 12), (128, 10), (1000, 40), (7, 1)])
def test_floyd_indices_identical_across_backends(n, B):
    U = np.random.default_rng(n * B).random((300, B))
    U[0] = np.nextafter(1.0, 0.0)  # the largest uniform: t = j after truncation
    a, b = kernels.floyd(U, n, backend="numba"), kernels.floyd(U, n, backend="numpy")
    assert a.dtype == b.dtype == np.intp
    assert np.array_equal(a, b)
    assert all(len(set(row)) == B for row in a.tolist()) and a.min() >= 0 and a.max() < n


@pytest.mark.parametrize("layout", ["dense", "sparse-union", "sparse-rows", "mixed", "few"])
def test_quadratic_form_paths_equal_dense_formula(layout):
    """uᵀQ̄u per row through the GEMM, union-block and per-row-block paths against the plain dense formula."""
    from fedrates.solvers.algorithms._trace import Metrics

    p = problems.make("lasso", clients=3, samples=30, dim=40, sparsity=4, lam=0.05)
    ref = algorithms.base._default_reference(p, [])
    m = Metrics(p, ref)
    rng = np.random.default_rng(7)
    N, d = (3 if layout == "few" else 40), p.dim
    u = rng.standard_normal((N, d))
    if layout in ("sparse-union", "sparse-rows", "mixed"):
        keep = np.zeros((N, d), dtype=bool)
        for i in range(N):
            cols = rng.choice(4 if layout == "sparse-union" else d, 3, replace=False)
            keep[i, cols] = True
        if layout == "mixed":
            keep[::3] = True
        u = np.where(keep, u, 0.0)
    expected = np.einsum("rd,de,re->r", u, m.Q, u)
    np.testing.assert_allclose(m._quadratic_form(u), expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
