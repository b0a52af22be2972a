"""Exact CProx (C-FedDA's constrained prox) against cvxpy/Clarabel, closed forms and KKT conditions."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from fedrates.solvers.cprox import _l1_inner, _l1_theta, _l1_theta_bisect, cprox, project_l1_ball, soft_then_project
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import L1, Nuclear, Zero

KAPPA = 0.3
N_INSTANCES = 20
SEEDS = {(k, c): 100 * i + j for i, k in enumerate(("l1", "nuclear")) for j, c in enumerate(("eps", "ball", "both"))}
#: agreement with Clarabel (tolerances 1e-12) when only the R-ball is active.  With the ℓ2 ball active Clarabel
#: is itself only accurate to ~1e-5 (measured against the exact closed form Π_ρ(prox(v)) of the ball-only case:
#: errors 1e-7..4e-5), so there Clarabel is a coarse check (TOL_BALL) and exactness is checked by the closed form
#: (ball only), by agreement of the two independent methods KKT and ADMM (TOL) and by the certified gap.
#: Nuclear cases: Clarabel's own error is up to ~1.1e-7 there (our KKT/ADMM points agree with a 3000-iteration
#: ADMM run to 2e-8 on the same instances), hence TOL_NUC.
TOL = 1e-7
TOL_NUC = 2e-7
TOL_BALL = 1e-4


def _nuc(x):
    return np.linalg.svd(x, compute_uv=False).sum()


def _soft(v, k):
    return np.sign(v) * np.maximum(np.abs(v) - k, 0.0)


def _svt(V, k):
    u, s, vt = np.linalg.svd(V, full_matrices=False)
    return (u * np.maximum(s - k, 0)) @ vt


def _cvx(kind, v, kappa, c, eps, rho):
    """Reference solution and the dual values (R-ball, l2-ball) of the two constraints."""
    w = cp.Variable(v.shape)
    R = cp.norm1 if kind == "l1" else cp.normNuc
    cons = [R(w - c) <= eps]
    if rho is not None:
        cons.append(cp.norm(cp.vec(w, order="F"), 2) <= rho)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w - v) + kappa * R(w)), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, max_iter=500)
        except cp.error.SolverError:
            return None, None
    if prob.status not in ("optimal", "optimal_inaccurate"):
        return None, None
    duals = [float(cons[0].dual_value), float(cons[1].dual_value) if rho is not None else 0.0]
    return w.value, duals


def _instances(kind, case, seed):
    """Random instances with centre != 0 where exactly the constraints named by ``case`` are active."""
    rng = np.random.default_rng(seed)
    shape = (8,) if kind == "l1" else (4, 3)
    out = []
    for _ in range(50 * N_INSTANCES):
        if len(out) == N_INSTANCES:
            break
        v = 2.0 * rng.standard_normal(shape)
        c = (0.1 if case == "ball" else 0.5) * rng.standard_normal(shape)
        xu = _soft(v, KAPPA) if kind == "l1" else _svt(v, KAPPA)
        Rn = (lambda x: np.abs(x).sum()) if kind == "l1" else _nuc
        if case == "eps":
            eps, rho = 0.5 * Rn(xu - c), None
        elif case == "ball":
            eps, rho = 1.2 * Rn(xu - c), 0.5 * np.linalg.norm(xu)
        else:
            rho = np.linalg.norm(c) + rng.uniform(0.3, 1.0) * max(np.linalg.norm(xu) - np.linalg.norm(c), 0.1)
            eps = rng.uniform(0.2, 0.8) * Rn(xu - c)
        if rho is not None and np.linalg.norm(c) >= rho:
            continue
        if case == "both":  # cheap pre-screen of the activity pattern; cvxpy's multipliers decide below
            w = cprox(L1(1.0) if kind == "l1" else Nuclear(1.0), v, KAPPA, c, eps, rho).w
            if abs(np.linalg.norm(w) - rho) > 1e-6 * rho or abs(Rn(w - c) - eps) > 1e-6 * eps:
                continue
        ref, duals = _cvx(kind, v, KAPPA, c, eps, rho)
        if ref is None:
            continue
        active = [d > 1e-6 for d in duals]
        want = {"eps": [True, False], "ball": [False, True], "both": [True, True]}[case]
        if active == want:
            out.append((v, c, eps, rho, ref))
    assert len(out) == N_INSTANCES, f"could not draw {N_INSTANCES} instances of case {case}"
    return out


@pytest.mark.parametrize("kind", ["l1", "nuclear"])
@pytest.mark.parametrize("case", ["eps", "ball", pytest.param("both", marks=pytest.mark.slow)])  # both: the long step
def test_cprox_matches_clarabel(kind, case):
    pen = L1(1.0) if kind == "l1" else Nuclear(1.0)
    Rn = (lambda x: np.abs(x).sum()) if kind == "l1" else _nuc
    for v, c, eps, rho, ref in _instances(kind, case, seed=SEEDS[kind, case]):
        res = cprox(pen, v, KAPPA, c, eps, rho)
        assert np.max(np.abs(res.w - ref)) <= ((TOL if kind == "l1" else TOL_NUC) if case == "eps" else TOL_BALL)
        if case != "eps":
            other = cprox(pen, v, KAPPA, c, eps, rho, method="admm")
            assert np.max(np.abs(res.w - other.w)) <= TOL
        # certificate: feasible and a tiny certified gap
        assert Rn(res.w - c) <= eps * (1 + 1e-12)
        if rho is not None:
            assert np.linalg.norm(res.w) <= rho * (1 + 1e-12)
        if case == "ball":  # independent closed form: radial projection of the unconstrained prox
            xu = _soft(v, KAPPA) if kind == "l1" else _svt(v, KAPPA)
            np.testing.assert_allclose(res.w, xu * rho / np.linalg.norm(xu), atol=1e-12)
        assert 0 <= float(res.gap) <= 1e-12


def test_cprox_batched_equals_rowwise():
    rng = np.random.default_rng(3)
    V = 2 * rng.standard_normal((5, 8))
    C = 0.4 * rng.standard_normal((5, 8))
    batch = cprox(L1(1.0), V, KAPPA, C, 1.0, 2.0)
    for i in range(5):
        np.testing.assert_array_equal(cprox(L1(1.0), V[i], KAPPA, C[i], 1.0, 2.0).w, batch.w[i])


def test_nuclear_zero_centre_closed_form_path_matches_clarabel():
    rng = np.random.default_rng(4)
    for _ in range(N_INSTANCES):
        V = 2 * rng.standard_normal((4, 3))
        c = np.zeros((4, 3))
        xu = _svt(V, KAPPA)
        eps, rho = 0.6 * _nuc(xu), 0.8 * np.linalg.norm(xu)
        res = cprox(Nuclear(1.0), V, KAPPA, c, eps, rho)
        assert res.method == "svd-kkt"
        ref, duals = _cvx("nuclear", V, KAPPA, c, eps, rho)
        if ref is None:
            continue
        assert np.max(np.abs(res.w - ref)) <= (TOL_BALL if duals[1] > 1e-6 else TOL_NUC)
        assert np.max(np.abs(res.w - cprox(Nuclear(1.0), V, KAPPA, c, eps, rho, method="admm").w)) <= TOL


def test_l1_coordinate_formula_matches_scalar_minimisation():
    rng = np.random.default_rng(5)
    for _ in range(200):
        u, c = 3 * rng.standard_normal(2)
        a, kappa, theta = rng.uniform(0.5, 3, 3)
        if rng.random() < 0.2:
            c = 0.0
        f = lambda x: 0.5 * a * (x - u) ** 2 + kappa * abs(x) + theta * abs(x - c)  # noqa: E731,B023
        ref = minimize_scalar(f, bracket=(-20, 20), method="brent", options={"xtol": 1e-14}).x
        x = float(_l1_inner(np.array(u), a, kappa, theta, np.array(c)))
        assert f(x) <= f(ref) + 1e-12
        assert abs(x - ref) <= 1e-6


def test_multiplier_maps_are_monotone():
    """‖w(θ) − c‖₁ is non-increasing in θ; ‖w‖ of the β-relaxed solution is non-increasing in β."""
    rng = np.random.default_rng(6)
    u, c = 2 * rng.standard_normal(30), rng.standard_normal(30)
    thetas = np.linspace(0, 10, 400)
    g = [np.abs(_l1_inner(u, 1.0, KAPPA, t, c) - c).sum() for t in thetas]
    assert np.all(np.diff(g) <= 1e-12) and g[0] > g[-1]
    # β-map: minimiser of ½‖w − v‖² + κ‖w‖₁ + (β/2)‖w‖² over the ℓ1 ball, via cprox with no ℓ2 ball
    v = u
    norms = []
    for beta in np.linspace(0, 5, 30):
        norms.append(np.linalg.norm(cprox(L1(1.0), v / (1 + beta), KAPPA / (1 + beta), c, 1.0, None).w))
    assert np.all(np.diff(norms) <= 1e-12) and norms[0] > norms[-1]


def test_authors_soft_then_project_is_wrong_off_centre_and_exact_at_zero():
    rng = np.random.default_rng(7)
    diffs = []
    for _ in range(N_INSTANCES):
        v, c = 2 * rng.standard_normal(8), rng.standard_normal(8)
        eps = 0.5 * np.abs(_soft(v, KAPPA) - c).sum()
        exact = cprox(L1(1.0), v, KAPPA, c, eps, None).w
        diffs.append(np.max(np.abs(soft_then_project(L1(1.0), v, KAPPA, c, eps) - exact)))
        zero = np.zeros(8)
        eps0 = 0.5 * np.abs(_soft(v, KAPPA)).sum()
        np.testing.assert_allclose(soft_then_project(L1(1.0), v, KAPPA, zero, eps0),
                                   cprox(L1(1.0), v, KAPPA, zero, eps0, None).w, atol=1e-12)
    assert max(diffs) > 1e-2  # a real discrepancy, not rounding


def test_zero_penalty_two_euclidean_balls_satisfies_kkt():
    """R = ‖·‖₂, κ = 0: projection onto the intersection of two balls; check KKT directly."""
    rng = np.random.default_rng(8)
    for _ in range(N_INSTANCES):
        v, c = 3 * rng.standard_normal(6), 0.5 * rng.standard_normal(6)
        rho = np.linalg.norm(c) + rng.uniform(0.2, 1.0)
        eps = rng.uniform(0.3, 1.5)
        w = cprox(Zero(), v, 0.0, c, eps, rho).w
        assert np.linalg.norm(w) <= rho * (1 + 1e-12) and np.linalg.norm(w - c) <= eps * (1 + 1e-12)
        # v − w = λ₁ w + λ₂ (w − c)/‖w − c‖ with λ ≥ 0, λ_i = 0 for inactive constraints
        cols, names = [], []
        if np.linalg.norm(w) > rho * (1 - 1e-9):
            cols.append(w)
        if np.linalg.norm(w - c) > eps * (1 - 1e-9):
            cols.append((w - c) / np.linalg.norm(w - c))
        if not cols:
            np.testing.assert_allclose(w, v, atol=1e-12)
            continue
        A = np.stack(cols, axis=1)
        lam, *_ = np.linalg.lstsq(A, v - w, rcond=None)
        assert np.all(lam >= -1e-9)
        assert np.linalg.norm(A @ lam - (v - w)) <= 1e-9 * max(1.0, np.linalg.norm(v))
        del names


def test_project_l1_ball_matches_clarabel():
    rng = np.random.default_rng(9)
    for _ in range(10):
        x = 2 * rng.standard_normal(7)
        r = 0.4 * np.abs(x).sum()
        y = cp.Variable(7)
        cp.Problem(cp.Minimize(cp.sum_squares(y - x)), [cp.norm1(y) <= r]).solve(
            solver="CLARABEL", tol_gap_abs=1e-14, tol_gap_rel=1e-14, tol_feas=1e-14)
        assert np.max(np.abs(project_l1_ball(x, r) - y.value)) <= 1e-7
    inside = np.array([0.1, -0.2])
    np.testing.assert_array_equal(project_l1_ball(inside, 1.0), inside)


def test_cprox_input_errors():
    with pytest.raises(InputError, match="centre"):
        cprox(L1(1.0), np.ones(3), 0.1, 10 * np.ones(3), 1.0, 1.0)
    with pytest.raises(InputError, match="eps"):
        cprox(L1(1.0), np.ones(3), 0.1, np.zeros(3), 0.0, 1.0)
    with pytest.raises(InputError, match="kappa"):
        cprox(Zero(), np.ones(3), 0.1, np.zeros(3), 1.0, 1.0)


# ---------------------------------------------------------------------------------------------------------------
# fast paths (closed form when the R-ball is inactive, sort-based θ) against the slow exact path
# ---------------------------------------------------------------------------------------------------------------
def _l1_dist(u, a, kappa, theta, c):
    """‖w(θ) − c‖₁ per row, by direct evaluation of the per-coordinate minimiser."""
    return np.abs(_l1_inner(u, a, kappa, theta[:, None], c) - c).sum(axis=1)


def test_sorted_theta_matches_bisection_and_solves_the_equation():
    rng = np.random.default_rng(11)
    for trial in range(300):
        B, d = 6, int(rng.integers(1, 30))
        u = 2 * rng.standard_normal((B, d))
        c = rng.standard_normal((B, d)) * (rng.random((B, d)) < 0.7)  # some centre coordinates exactly 0
        if trial % 3 == 0:  # coinciding breakpoints
            u, c = np.round(u, 1), np.round(c, 1)
        if trial % 4 == 1:  # centre 0 (own code path)
            c = np.zeros((B, d))
        a = rng.uniform(0.5, 3.0, (B, 1))
        kappa = 0.0 if trial % 5 == 0 else float(rng.uniform(0, 1))
        g0 = _l1_dist(u, a, kappa, np.zeros(B), c)
        eps = float(rng.uniform(0.05, 1.3) * np.median(g0) + 1e-3)  # some rows inactive (θ = 0), most active
        th, w = _l1_theta(u, a, kappa, c, eps)
        th_ref, w_ref = _l1_theta_bisect(u, a, kappa, c, eps)
        assert np.max(np.abs(w - w_ref)) <= 1e-12
        assert np.max(np.abs(th - th_ref)) <= 1e-12 * max(1.0, np.max(th_ref))
        np.testing.assert_array_equal(th[g0 <= eps], 0.0)
        act = g0 > eps
        np.testing.assert_allclose(_l1_dist(u, a, kappa, th, c)[act], eps, rtol=1e-12)


def _random_case(rng, kind, case):
    """Random (v, c, eps, rho) with c ≠ 0 and the named constraints active at the optimum (screened after)."""
    shape = {"l1": (3, 40), "zero": (3, 6)}[kind]
    v = 2.0 * rng.standard_normal(shape)
    c = 0.3 * rng.standard_normal(shape)
    xu = _soft(v, KAPPA) if kind == "l1" else v
    Rn = (lambda x: np.abs(x).sum(axis=-1)) if kind == "l1" else (lambda x: np.linalg.norm(x, axis=-1))
    dist, nrm = Rn(xu - c), np.linalg.norm(xu, axis=-1)
    scale = rng.uniform(0.3, 0.8)
    eps = float({"none": 1.5, "eps": scale, "ball": 3.0, "both": scale}[case] * dist.min())
    rho = {"none": None, "eps": None, "ball": 0.5 * float(nrm.min())}.get(case)
    if case == "both":  # just inside the R-only solution, so the ℓ2 ball cuts it off
        pen, kappa = (L1(1.0), KAPPA) if kind == "l1" else (Zero(), 0.0)
        w_r = cprox(pen, v, kappa, c, eps, None, method="bisect").w
        rho = 0.9 * float(np.linalg.norm(w_r, axis=-1).min())
    if rho is not None:
        rho = max(rho, 1.01 * float(np.linalg.norm(c, axis=-1).max()))
    return v, c, eps, rho


@pytest.mark.parametrize("kind", ["l1", "zero"])
def test_auto_path_matches_bisection_path(kind):
    """``auto`` (closed-form shortcut + sort-based θ) against ``bisect`` (no shortcut, per-probe binary search) on
    batched instances with c ≠ 0 covering: no constraint active, R-ball only, ℓ2 ball only, both."""
    rng = np.random.default_rng(12)
    pen, kappa = (L1(1.0), KAPPA) if kind == "l1" else (Zero(), 0.0)
    Rn = (lambda x: np.abs(x).sum(axis=-1)) if kind == "l1" else (lambda x: np.linalg.norm(x, axis=-1))
    seen = set()
    for case in ("none", "eps", "ball", "both"):
        for _ in range(8):
            v, c, eps, rho = _random_case(rng, kind, case)
            fast = cprox(pen, v, kappa, c, eps, rho)
            slow = cprox(pen, v, kappa, c, eps, rho, method="bisect")
            assert fast.method == slow.method == "kkt"
            assert np.max(np.abs(fast.w - slow.w)) <= 1e-12
            assert np.all(fast.gap <= 1e-12)
            on_r = np.abs(Rn(fast.w - c) - eps) <= 1e-9 * eps
            on_ball = (np.abs(np.linalg.norm(fast.w, axis=-1) - rho) <= 1e-9 * rho if rho is not None
                       else np.zeros(len(v), dtype=bool))
            seen.update(zip(on_r.tolist(), on_ball.tolist(), strict=True))
    assert seen == {(False, False), (True, False), (False, True), (True, True)}


def test_closed_form_shortcut_is_the_radial_projection():
    """R-ball inactive at the ball-only solution: the answer is Π_ρ(soft(v, κ)) (independent closed form), found
    without any multiplier search (one step)."""
    rng = np.random.default_rng(13)
    for _ in range(10):
        v, c = 2.0 * rng.standard_normal((4, 30)), 0.2 * rng.standard_normal((4, 30))
        xu = _soft(v, KAPPA)
        rho = 0.5 * float(np.linalg.norm(xu, axis=1).min())
        proj = xu * (rho / np.linalg.norm(xu, axis=1))[:, None]
        eps = 1.01 * float(np.abs(proj - c).sum(axis=1).max())
        res = cprox(L1(1.0), v, KAPPA, c, eps, rho)
        assert res.iterations == 1
        np.testing.assert_allclose(res.w, proj, rtol=0, atol=1e-12)
        assert np.all(res.gap <= 1e-12)
        free = cprox(L1(1.0), v, KAPPA, c, 1.01 * float(np.abs(xu - c).sum(axis=1).max()), None)
        np.testing.assert_allclose(free.w, xu, rtol=0, atol=1e-14)  # u + κ vs −(|u| − κ): one ulp
        assert free.iterations == 1


def test_batched_replicas_by_clients_with_broadcast_centre():
    """Shape (replicas, clients, d) with one centre per replica, as C-FedDA calls it: equal to row-wise calls of
    the slow path."""
    rng = np.random.default_rng(14)
    V = 3.0 * rng.standard_normal((2, 5, 64))
    C = 0.3 * rng.standard_normal((2, 1, 64))
    eps = 0.5 * float(np.abs(_soft(V, KAPPA) - C).sum(axis=-1).min())
    for rho in (None, 0.5 * float(np.linalg.norm(_soft(V, KAPPA), axis=-1).min())):
        res = cprox(L1(1.0), V, KAPPA, C, eps, rho)
        assert res.w.shape == V.shape and res.gap.shape == (2, 5)
        for r in range(2):
            for k in range(5):
                one = cprox(L1(1.0), V[r, k], KAPPA, C[r, 0], eps, rho, method="bisect")
                assert np.max(np.abs(res.w[r, k] - one.w)) <= 1e-12
