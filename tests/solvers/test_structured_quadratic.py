"""Shared-basis quadratics: the structured routines against a dense reference built from the same data, the
closed-form optimum's certificate, the certified constants (a wrong formula is rejected), the fused FedAvg round
against its step-by-step recursion, and the memory estimate's refusal."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import certify, oracles, problems
from fedrates.solvers.algorithms import run_batch
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems import structured_quadratic as sq
from fedrates.solvers.problems.datafits import DenseQuadratic

KINDS = [{"structure": "basis", "reflections": 3}, {"structure": "diagonal"}, {"spectra": "common"}]


def small(seed: int = 1, **kw: object) -> problems.Problem:
    return problems.make("structured_quadratic", clients=7, dim=6, seed=seed, **kw)


def dense_from_data(problem: problems.Problem) -> DenseQuadratic:
    """Q_k = V diag(λ_k) Vᵀ with V built column by column from the stored reflections (Householder products), c_k =
    V c̃_k, b_k = Q_k c_k, c_k offset ½c_kᵀQ_kc_k: the textbook form, independent of the structured routines."""
    fit = problem.datafit
    V = np.eye(fit.dim)
    for u in fit.reflectors:
        V = V @ (np.eye(fit.dim) - 2.0 * np.outer(u, u))
    Q = np.stack([V @ np.diag(lam) @ V.T for lam in fit.lam])
    centres = fit.ctil @ V.T
    b = np.einsum("kij,kj->ki", Q, centres)
    return DenseQuadratic(Q=Q, b=b, c=0.5 * np.einsum("ki,ki->k", b, centres))


@pytest.mark.parametrize("kind", KINDS)
def test_values_and_gradients_match_dense_reference(kind):
    problem = small(**kind)
    dense = dense_from_data(problem)
    rng = np.random.default_rng(3)
    w, W = rng.standard_normal(6), rng.standard_normal((2, 7, 6))
    np.testing.assert_allclose(problem.datafit.client_values(w), dense.client_values(w), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(problem.datafit.client_gradients(W), dense.client_gradients(W), rtol=1e-12,
                               atol=1e-14)
    clients = np.array([[0, 3, 6], [1, 2, 5]])
    np.testing.assert_allclose(oracles.exact_gradients(problem, W[:, :3], clients),
                               np.einsum("rmde,rme->rmd", dense.Q[clients], W[:, :3]) - dense.b[clients],
                               rtol=1e-12, atol=1e-14)
    Qbar, bbar, cbar = problem.quadratic
    np.testing.assert_allclose(Qbar, dense.mean_quadratic(problem.weights)[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(bbar, dense.mean_quadratic(problem.weights)[1], rtol=1e-12, atol=1e-14)
    assert cbar == pytest.approx(dense.mean_quadratic(problem.weights)[2], rel=1e-12)
    eig = np.linalg.eigvalsh(dense.Q)
    assert eig.min() == pytest.approx(problem.params["mu"], rel=1e-12)
    assert eig.max() == pytest.approx(problem.params["L"], rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_closed_form_optimum_is_certified_and_equals_dense_solve(seed):
    problem = small(seed)
    dense = dense_from_data(problem)
    Qbar, bbar, cbar = dense.mean_quadratic(problem.weights)
    w_dense = np.linalg.solve(Qbar, bbar)
    ref = sq.exact_reference(problem)
    np.testing.assert_allclose(ref.w, w_dense, rtol=1e-10, atol=1e-12)
    assert ref.value == pytest.approx(0.5 * w_dense @ Qbar @ w_dense - bbar @ w_dense + cbar, rel=1e-10)
    assert ref.gap <= 1e-20 and ref.mu_lower > 0
    # the certificate is not vacuous: a perturbed point gets the (positive) bound ||g||²/(2μ_F) it deserves
    g = Qbar @ (w_dense + 1e-3) - bbar
    assert g @ g / (2 * ref.mu_lower) > 1e-8


@pytest.mark.parametrize("kind", KINDS)
def test_constants_certified_and_equal_to_dense(kind):
    problem = small(**kind)
    certs = certify.for_structured(problem)
    assert certify.check_certified(certs) == []
    dense = dense_from_data(problem)
    eig = np.linalg.eigvalsh(dense.Q)
    ebar = np.linalg.eigvalsh(dense.mean_quadratic(problem.weights)[0])
    w = sq.exact_reference(problem).w
    G = dense.client_gradients(np.broadcast_to(w, (7, 6)))
    expected = {"L": eig.max(), "mu": eig.min(), "L_F": ebar.max(), "mu_F": ebar.min(),
                "zeta2": float(problem.weights @ np.sum(G * G, axis=1))}
    for name, value in expected.items():
        assert certs[name].value == pytest.approx(value, rel=1e-10), name


def test_wrong_constant_formulas_rejected():
    problem = small(2)
    good = certify.for_structured(problem)
    wrong = {
        "L": good["L_F"].value,          # the smoothness of F in place of the largest client's
        "mu": good["mu_F"].value,        # the strong convexity of F in place of the smallest client's
        "L_F": good["L"].value,
        "zeta2": good["zeta2"].value * (1 + 1e-6),
        "Gamma": good["Gamma"].value * (1 - 1e-6),
    }
    for name, value in wrong.items():
        lines = certify.check_certified(certify.for_structured(problem, {name: value}))
        assert lines and lines[0].startswith(f"{name} ="), (name, lines)


@pytest.mark.parametrize("mu_prox,backend", [(0.0, "numba"), (0.3, "numba"), (0.0, "numpy")])
def test_fused_round_equals_step_by_step(monkeypatch, mu_prox, backend):
    from fedrates.solvers import kernels

    problem = small(4)
    ref = sq.exact_reference(problem)
    monkeypatch.setattr(kernels, "BACKEND", backend)
    algo = "fedprox" if mu_prox else "fedavg"
    hyper = {"mu_prox": mu_prox} if mu_prox else {}
    fused = run_batch(algo, problem, rounds=6, seeds=[0], gradients="exact", reference=ref, local_steps=4,
                      step=0.7, **hyper).records
    original = oracles.exact_gradients
    monkeypatch.setattr(oracles, "exact_gradients", lambda *a: original(*a))  # forces step by step
    stepwise = run_batch(algo, problem, rounds=6, seeds=[0], gradients="exact", reference=ref, local_steps=4,
                         step=0.7, **hyper).records
    np.testing.assert_allclose(fused["distance_to_optimum"], stepwise["distance_to_optimum"], rtol=1e-10,
                               atol=1e-13)
    assert (fused["grad_evals"] == stepwise["grad_evals"]).all()
    assert fused["distance_to_optimum"].iloc[-1] < 0.5 * fused["distance_to_optimum"].iloc[0]


def test_lazy_client_streams_identical_to_spawned():
    st = oracles.make_streams(11, 4)
    gens = [np.random.default_rng(c) for c in np.random.SeedSequence(11).spawn(5)]
    assert st.server.random() == gens[0].random()
    assert [g.random() for g in st.clients] == [g.random() for g in gens[1:]]
    assert st.clients[-1] is st.clients[3] and len(st.clients[1:3]) == 2


def test_memory_estimate_refuses_in_one_line():
    with pytest.raises(InputError) as err:
        problems.make("structured_quadratic", clients=10**9, dim=10**4)
    assert "\n" not in str(err.value) and "GiB" in str(err.value)
    # the structured estimate accepts what the dense family refuses (K·d² would be 80 TB, K·d is 80 MB)
    assert sq.footprint({"clients": 10_000, "dim": 1000}) < 2**30


def test_dense_hessians_refused_at_scale():
    problem = problems.make("structured_quadratic", clients=3000, dim=100)
    with pytest.raises(InputError, match="dense Hessians"):
        _ = problem.datafit.hessians


def test_generic_reference_agrees_and_fingerprint_covers_the_data():
    from fedrates.solvers import reference

    problem = small(5)
    generic = reference.solve(problem, cache=False)
    exact = sq.exact_reference(problem)
    np.testing.assert_allclose(generic.w, exact.w, rtol=1e-7, atol=1e-9)
    assert generic.value == pytest.approx(exact.value, rel=1e-10)
    other = small(5)
    assert other.fingerprint == problem.fingerprint
    other.datafit.ctil[2, 3] += 1e-9
    other.__dict__.pop("fingerprint", None)
    assert other.fingerprint != problem.fingerprint


def test_run_validation_uses_the_family_estimate():
    from fedrates.solvers.problems._params import check_footprint
    from fedrates.verify.commands._common import check_problem_size

    params = {"clients": 20_000, "dim": 1000}
    check_problem_size("structured_quadratic", params)  # 0.6 GiB by the family's own estimate: accepted
    with pytest.raises(InputError, match="GiB of memory"):
        check_footprint("structured_quadratic", params)  # the dense default estimate (K·d²: 298 GiB) refuses it
