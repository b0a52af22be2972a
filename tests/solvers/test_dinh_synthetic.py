"""The Synthetic federation of Dinh et al. (FedProxVR, §5): the generator follows the paper's stated setting, the
gradients are those of the loss (finite differences), L is the supremum of the sample Hessians, the reference optimum
is certified, and the FedProxVR algorithms run on it through the same streams as the generic runner."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import algorithms, problems
from fedrates.solvers.algorithms._fedproxvr import run_states
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems import dinh_synthetic as ds


@pytest.fixture(scope="module")
def small():
    return ds.make("dinh-synthetic-small", scale=0.05)


def test_paper_sizes_two_labels_and_power_law():
    p = {**{k: v.default for k, v in ds.PARAMETERS.items()}}
    D = ds.sizes(p)
    assert D.shape == (100,) and D.min() >= 37 and D.max() <= 3277
    assert np.median(D) < D.mean()  # heavy right tail of the log-normal power law
    prob = ds.make(None, clients=6, dim=5, scale=0.05, seed=3)
    fs = prob.extras["finite_sum"]
    for k in range(6):
        assert len(np.unique(fs.y[k, : fs.sizes[k]])) <= 2  # two labels per device
    assert np.allclose(fs.X[fs.mask][:, -1], 1.0) and np.all(fs.X[~fs.mask] == 0)
    assert np.allclose(prob.weights, fs.sizes / fs.sizes.sum())


def test_bad_parameters_are_one_line_input_errors():
    with pytest.raises(InputError, match="scale"):
        ds.make(None, scale=2.0)
    with pytest.raises(InputError, match="ridge"):
        ds.make(None, ridge=0.0)


def test_gradients_match_finite_differences(small):
    fs = small.extras["finite_sum"]
    rng = np.random.default_rng(1)
    w, v = 0.1 * rng.standard_normal(fs.dim), rng.standard_normal(fs.dim)
    h = 1e-6
    num = (fs.objective(w + h * v) - fs.objective(w - h * v)) / (2 * h)
    assert fs.gradient(w) @ v == pytest.approx(num, rel=1e-6)
    num_hv = (fs.gradient(w + h * v) - fs.gradient(w - h * v)) / (2 * h)
    assert np.allclose(fs.hessian_vector(w, v), num_hv, atol=1e-6)
    K = small.clients
    W = np.broadcast_to(w, (1, K, fs.dim)).copy()
    G = fs.full_gradients(W, np.arange(K)[None])
    assert np.allclose(fs.weights @ G[0], fs.gradient(w), atol=1e-14)
    for k in (0, 3):  # one minibatch holding all of a device's samples is its full gradient
        gk = fs.sample_gradients(W[:, k:k + 1], np.array([[k]]), np.arange(fs.sizes[k])[None, None])
        assert np.allclose(gk[0, 0], G[0, k], atol=1e-14)


def test_L_is_the_supremum_of_the_sample_hessians(small):
    """‖∇²f_i(w)‖ ≤ L everywhere, and it approaches L when two logits dominate equally."""
    fs = small.extras["finite_sum"]
    i = np.argmax(np.where(fs.mask, np.sum(fs.X**2, axis=-1), -1).reshape(-1))
    x = fs.X.reshape(-1, fs.features)[i]
    C = fs.classes

    def hess_norm(z):
        s = np.exp(z - z.max())
        s /= s.sum()
        return np.linalg.eigvalsh(np.diag(s) - np.outer(s, s)).max() * (x @ x) + fs.ridge

    rng = np.random.default_rng(0)
    assert max(hess_norm(3 * rng.standard_normal(C)) for _ in range(200)) <= fs.L
    z = np.full(C, -40.0)
    z[:2] = 0.0
    assert hess_norm(z) == pytest.approx(fs.L, rel=1e-12)


def test_reference_is_certified(small):
    ref = ds.reference(small)
    fs = small.extras["finite_sum"]
    g = fs.gradient(ref.w)
    assert ref.gap == pytest.approx(float(g @ g) / (2 * fs.ridge)) and ref.gap <= 1e-13
    rng = np.random.default_rng(2)
    for _ in range(5):  # strong convexity: no nearby point is lower
        assert fs.objective(ref.w + 1e-3 * rng.standard_normal(fs.dim)) > ref.value


def test_run_states_matches_the_generic_runner_bit_for_bit():
    prob = problems.make("dinh_ls", clients=3, samples=4, dim=2)
    alg = algorithms.make("fedproxvr_sarah", beta=4.0, mu=2.0, tau=5, batch=2)
    w0 = np.array([1.0, -1.0])
    X = run_states(alg, prob, 3, [0, 1, 2], w0)
    xs = []
    algorithms.run_batch(alg, prob, 3, seeds=[0, 1, 2], w0=w0, record_every=3,
                         callback=lambda r, st: xs.append(np.array(st["x"])))
    assert np.array_equal(X[1:], np.stack(xs))


def test_fedproxvr_runs_on_the_synthetic_federation_and_is_reproducible(small):
    alg = algorithms.make("fedproxvr_svrg", beta=4.0, mu=1.0, tau=5, batch=1)
    a = run_states(alg, small, 3, [0, 1], np.zeros(small.dim))
    b = run_states(alg, small, 3, [0, 1], np.zeros(small.dim))
    assert np.array_equal(a, b) and not np.array_equal(a[-1, 0], a[-1, 1])
    fs = small.extras["finite_sum"]
    assert fs.objective(a[-1, 0]) < fs.objective(a[0, 0])
    # exact gradients: every estimator is ∇F_n, so SVRG and SGD coincide
    sgd = algorithms.make("fedprox_sgd", beta=4.0, mu=1.0, tau=5, batch=1)
    e1 = run_states(alg, small, 2, [0], np.zeros(small.dim), gradients="exact")
    e2 = run_states(sgd, small, 2, [0], np.zeros(small.dim), gradients="exact")
    assert np.allclose(e1, e2, atol=1e-14)
