"""Tests of solvers.reference: closed-form toys, certificate soundness, fast path against cvxpy/Clarabel.

Expected values of the toys are derived by hand (soft thresholding, projections), never by the solver under test.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from fedrates.solvers import problems, reference
from fedrates.solvers._reference_fast import solve_fast
from fedrates.solvers.errors import InputError, VerificationError
from fedrates.solvers.penalties import L1, Nuclear, Zero
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic, SampleLeastSquares

TOL = 1e-11


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))


def dense_problem(Q, b, c=0.0, penalty=None, radius=None, shape=None) -> Problem:
    """One-client problem F(w) = ½wᵀQw − bᵀw + c with the given penalty and ball."""
    Q, b = np.atleast_2d(np.asarray(Q, float)), np.atleast_1d(np.asarray(b, float))
    d = b.shape[0]
    return Problem(family="toy", preset=None, params={"toy": True}, shape=shape or (d,), weights=np.ones(1),
                   datafit=DenseQuadratic(Q=Q[None], b=b[None], c=np.array([c])), penalty=penalty or Zero(),
                   radius=radius)


# ------------------------------------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("a, beta, lam", [(2.0, 3.0, 1.0), (0.5, -0.2, 0.1), (1.0, 0.3, 0.5), (4.0, -7.0, 0.0)])
def test_one_dimensional_soft_threshold(a, beta, lam):
    # φ(w) = ½aw² − βw + λ|w|: w* = sign(β)·max(|β| − λ, 0)/a, φ* = −(|β| − λ)₊²/(2a)
    p = dense_problem([[a]], [beta], penalty=L1(lam=lam))
    ref = reference.solve(p, cache=False)
    shrunk = max(abs(beta) - lam, 0.0)
    assert ref.w[0] == pytest.approx(math.copysign(shrunk, beta) / a, abs=1e-14)
    assert ref.value == pytest.approx(-shrunk**2 / (2 * a), abs=1e-14)
    assert 0 <= ref.gap <= TOL


def _orthogonal_design(rng, clients, n, d):
    """X_k with X_kᵀX_k/n = I (orthonormal columns scaled by √n)."""
    X = np.stack([np.linalg.qr(rng.standard_normal((n, d)))[0] * math.sqrt(n) for _ in range(clients)])
    y = X @ np.linspace(-1.0, 1.0, d) + 0.1 * rng.standard_normal((clients, n))
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_orthogonal_design_lasso_is_soft_thresholding(seed):
    # Q̄ = I  ⇒  argmin ½‖w‖² − b̄ᵀw + λ‖w‖₁ = S_λ(b̄) with b̄ = Σ_k π_k X_kᵀy_k/n
    rng = np.random.default_rng(seed)
    X, y = _orthogonal_design(rng, 3, 40, 12)
    lam = 0.3
    p = Problem(family="toy", preset=None, params={"seed": seed}, shape=(12,), weights=np.full(3, 1 / 3),
                datafit=SampleLeastSquares(X=X, y=y), penalty=L1(lam=lam))
    bbar = np.einsum("kid,ki->d", X, y) / (3 * 40)
    expected = np.sign(bbar) * np.maximum(np.abs(bbar) - lam, 0)
    assert np.count_nonzero(expected) not in (0, 12)  # both active and inactive coordinates are exercised
    ref = reference.solve(p, cache=False)
    np.testing.assert_allclose(ref.w, expected, atol=1e-12)
    direct = np.mean([0.5 * np.mean((X[k] @ expected - y[k]) ** 2) for k in range(3)]) + lam * np.abs(expected).sum()
    assert ref.value == pytest.approx(direct, rel=1e-13)
    assert ref.gap <= TOL * max(1, abs(ref.value))


@pytest.mark.parametrize("lam", [0.0, 0.4])
def test_ball_toy_by_hand(lam):
    # Q = I: argmin ½‖w − b‖² + λ‖w‖₁ over ‖w‖ ≤ ρ is the radial projection of S_λ(b) (multiplier argument)
    b = np.array([3.0, -4.0, 0.2, 1.0])
    rho = 1.5
    pen = L1(lam=lam) if lam else Zero()
    p = dense_problem(np.eye(4), b, c=0.5 * b @ b, penalty=pen, radius=rho)
    shrunk = np.sign(b) * np.maximum(np.abs(b) - lam, 0)
    expected = shrunk * rho / np.linalg.norm(shrunk)
    ref = reference.solve(p, cache=False)
    np.testing.assert_allclose(ref.w, expected, atol=1e-12)
    value = 0.5 * np.sum((expected - b) ** 2) + lam * np.abs(expected).sum()
    assert ref.value == pytest.approx(value, rel=1e-13)
    assert ref.gap <= TOL * max(1, value)


def test_nuclear_toy_with_identity_hessian():
    # Q = I on vec(W): the minimiser of ½‖W − B‖_F² + λ‖W‖_nuc over ‖W‖_F ≤ ρ is the projected SVT of B
    rng = np.random.default_rng(5)
    B = rng.standard_normal((4, 3))
    lam, rho = 0.7, 1.0
    u, s, vt = np.linalg.svd(B, full_matrices=False)
    svt = (u * np.maximum(s - lam, 0)) @ vt
    for radius, expected in ((None, svt), (rho, svt * min(1, rho / np.linalg.norm(svt)))):
        p = dense_problem(np.eye(12), B.reshape(-1), penalty=Nuclear(lam=lam), radius=radius, shape=(4, 3))
        ref = reference.solve(p, cache=False)
        np.testing.assert_allclose(ref.w, expected, atol=1e-10)
        assert ref.gap <= TOL * max(1, abs(ref.value))


# -------------------------------------------------------------------------------------- certificate soundness
def _instances():
    yield "lasso", problems.make("lasso", dim=20, clients=4, samples=30, lam=0.05)
    yield "lasso-ball", problems.make("lasso", dim=20, clients=4, samples=30, lam=0.05, radius=1.0)
    yield "trace", problems.make("trace", rows=5, cols=4, clients=4, samples=40, lam=0.2)
    yield "trace-ball", problems.make("trace", rows=5, cols=4, clients=4, samples=40, lam=0.2, radius=0.8)
    yield "quadratic", problems.make("quadratic", dim=10)
    yield "quadratic-ball", problems.make("quadratic", dim=10, radius=0.3)
    yield "quadratic-l1", problems.make("quadratic", dim=10, lam=0.2)
    yield "lasso-singular", problems.make("lasso", dim=30, clients=2, samples=5, lam=0.1)
    yield "lasso-singular-ball", problems.make("lasso", dim=30, clients=2, samples=5, lam=0.1, radius=0.5)


INSTANCES = dict(_instances())


def _suboptimality(problem, w_hat, w):
    """φ(w) − φ(ŵ) = ⟨∇F(ŵ), δ⟩ + ½δᵀQ̄δ + h(w) − h(ŵ), δ = w − ŵ (no cancellation of the constant c̄)."""
    Q, b, _ = problem.quadratic
    wh, delta = problem.flat(w_hat), problem.flat(w - w_hat)
    return float((Q @ wh - b) @ delta + 0.5 * delta @ Q @ delta
                 + problem.penalty_value(w) - problem.penalty_value(w_hat))


@pytest.mark.parametrize("name", list(INSTANCES))
def test_certificate_bounds_measured_suboptimality(name):
    problem = INSTANCES[name]
    ref = reference.solve(problem, cache=False)
    assert 0 <= ref.gap <= TOL * max(1, abs(ref.value))
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    checked = 0
    for size in (1e-9, 1e-6, 1e-3, 1e-1, 1.0):
        for _ in range(4):
            w = ref.w + size * rng.standard_normal(problem.shape)
            if problem.radius is not None:  # keep the point in the domain
                w = w * min(1.0, problem.radius / float(problem.norm(w))) * (1 - 1e-15)
            gap = reference.certify(problem, w)
            sub = _suboptimality(problem, ref.w, w)
            assert gap >= 0
            assert gap >= sub, (size, gap, sub)
            if size >= 1e-3:
                assert math.isfinite(gap) and gap > 0  # informative, and strictly positive away from ŵ
                checked += 1
    assert checked == 12


def test_certificate_is_infinite_outside_the_ball_and_checks_shape():
    problem = INSTANCES["lasso-ball"]
    w = np.zeros(problem.shape)
    w[0] = 1.0 + 1e-9
    assert reference.certify(problem, w) == math.inf
    with pytest.raises(InputError, match="shape"):
        reference.certify(problem, np.zeros(3))


def test_certificate_is_tight_at_a_known_optimum():
    # at the exact optimum of a 1-D problem the certificate is at rounding level, away from it it grows
    p = dense_problem([[2.0]], [3.0], penalty=L1(lam=1.0))
    assert reference.certify(p, np.array([1.0])) <= 1e-15
    # φ(w) − φ* = (w − 1)² for w > 0
    assert reference.certify(p, np.array([1.1])) >= 0.01 - 1e-15


def test_unreachable_target_raises_with_the_gap():
    problem = problems.make("lasso", dim=6, sparsity=2, clients=2, samples=10)
    with pytest.raises(VerificationError, match="gap"):
        reference.solve(problem, method="fast", tol=1e-300, cache=False)


@pytest.mark.parametrize("method, tol", [("newton", 1e-11), ("auto", -1.0), ("auto", float("nan"))])
def test_bad_settings_are_input_errors(method, tol):
    with pytest.raises(InputError):
        reference.solve(INSTANCES["lasso"], method=method, tol=tol, cache=False)


# ----------------------------------------------------------------------------------------- fast vs cvxpy
def _binding(problem_name, **params):
    free = reference.solve(problems.make(problem_name, **params), cache=False)
    return problems.make(problem_name, **params, radius=0.5 * float(np.linalg.norm(free.w)))


CROSS = {
    "lasso": lambda: problems.make("lasso", dim=30, clients=4, samples=40, lam=0.05),
    "lasso-ball": lambda: _binding("lasso", dim=30, clients=4, samples=40, lam=0.05),
    "trace": lambda: problems.make("trace", rows=5, cols=5, clients=4, samples=50, lam=0.2),
    "trace-ball": lambda: _binding("trace", rows=5, cols=5, clients=4, samples=50, lam=0.2),
    "quadratic": lambda: problems.make("quadratic", dim=12),
    "quadratic-ball": lambda: _binding("quadratic", dim=12),
}


@pytest.mark.parametrize("name", list(CROSS))
def test_fast_path_agrees_with_clarabel(name):
    """Raw Clarabel output (not polished) against the fast path.

    An interior-point method in double precision stops at gap ~1e-13, which pins the point only to
    ‖w − w*‖ ≤ √(2·gap/μ) (strong convexity, μ = λ_min(Q̄)), 1e-7 to 1e-5 here, so the raw points are compared within
    that certified radius, values to 1e-8; the fast iteration continued from Clarabel's point (a
    different start than the fast path's) must then agree to 1e-8 in w.
    """
    problem = CROSS[name]()
    fast = reference.solve(problem, method="fast", cache=False)
    assert fast.method == "fast"
    if problem.radius is not None:
        assert float(problem.norm(fast.w)) == pytest.approx(problem.radius, rel=1e-9)  # the ball binds
    w_cvx = problem.unflat(reference._solve_cvxpy(reference._gram(problem)))
    gap_cvx = reference.certify(problem, w_cvx)
    assert gap_cvx <= 1e-9
    assert fast.value == pytest.approx(float(problem.objective(w_cvx)), abs=1e-8)
    mu = float(np.linalg.eigvalsh(problem.quadratic[0])[0])
    radius = math.sqrt(2 * gap_cvx / mu) + math.sqrt(2 * fast.gap / mu)
    distance = float(np.linalg.norm(fast.w - w_cvx))
    assert distance <= 1.01 * radius + 1e-12
    via_cvxpy = reference.solve(problem, method="cvxpy", cache=False)
    assert via_cvxpy.method.startswith("cvxpy") and via_cvxpy.gap <= TOL * max(1, abs(via_cvxpy.value))
    assert via_cvxpy.value == pytest.approx(fast.value, abs=1e-8)
    # driven to a deeper gap from the two different starts, the points coincide to 1e-8
    gram = reference._gram(problem)
    check = reference._scaled_certifier(gram)
    deep_fast, _ = solve_fast(gram, check, 1e-15, max_iterations=3000)
    deep_cvx, _ = solve_fast(gram, check, 1e-15, w0=problem.flat(w_cvx), max_iterations=3000)
    np.testing.assert_allclose(deep_cvx, deep_fast, atol=1e-8)
