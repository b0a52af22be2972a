"""The FedAvg baseline of Dinh et al. (fedavg_sgd): τ plain gradient steps, last iterate, D_n/D average."""

import numpy as np

from fedrates.solvers import algorithms, fedproxvr_constants, problems
from fedrates.solvers.algorithms._fedproxvr import run_states


def test_exact_gradient_round_is_the_weighted_average_of_tau_gradient_steps():
    pb = problems.make("dinh_ls", clients=3, samples=8, dim=2, size_levels=2)
    c = fedproxvr_constants.compute(pb)
    alg = algorithms.make("fedavg_sgd", beta=4.0, tau=7)
    w0 = c.w_star + np.array([1.0, -2.0])
    X = run_states(alg, pb, 1, [0, 1], w0, gradients="exact")
    eta = 1 / (4.0 * c.L)
    expected = sum(p * np.linalg.matrix_power(np.eye(2) - eta * A, 7) @ (w0 - c.w_star)
                   for p, A in zip(c.p, c.A, strict=True))
    np.testing.assert_allclose(X[1] - c.w_star, np.broadcast_to(expected, (2, 2)), rtol=1e-12)


def test_stochastic_rounds_are_reproducible_and_use_every_sample():
    pb = problems.make("dinh_ls", clients=3, samples=8, dim=2, size_levels=2)
    alg = algorithms.make("fedavg_sgd", beta=4.0, tau=5, batch=2)
    a = run_states(alg, pb, 3, [3], np.zeros(2))
    b = run_states(alg, pb, 3, [3], np.zeros(2))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a[3], run_states(alg, pb, 3, [4], np.zeros(2))[3])
