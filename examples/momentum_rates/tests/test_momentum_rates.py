"""The example paper's own tests: the closed forms, the claims on the algorithms, the broken variant."""

import math

import numpy as np
import pytest
from momentum_rates import claims as mc
from momentum_rates.algorithms import HeavyBall, Nesterov
from momentum_rates.theory import HEAVY_BALL, NESTEROV
from momentum_rates.variants import VARIANTS

from fedrates import assert_seeds_independent, check

CLAIMS = {claim.id: claim for claim in mc.CLAIMS}


@pytest.mark.parametrize("kappa", [4.0, 100.0, 2500.0])
def test_closed_forms_are_the_spectral_radii_of_the_iteration_matrices(kappa):
    """On a diagonal Q̄ with spectrum [1/κ, 1], the eigenvalues of T (built directly) give the closed forms."""
    Q = np.diag(np.geomspace(1.0 / kappa, 1.0, 7))
    for alg, theorem in ((HeavyBall(), HEAVY_BALL), (Nesterov(), NESTEROV)):
        step, momentum = alg.coefficients(1.0 / kappa, 1.0)
        T = mc.iteration_matrix(alg.name, Q, step, momentum)
        radius = float(np.max(np.abs(np.linalg.eigvals(T))))
        assert radius == pytest.approx(theorem.evaluate({"kappa": kappa}), rel=1e-6)
    root = math.sqrt(kappa)
    assert HEAVY_BALL.evaluate({"kappa": kappa}) == pytest.approx((root - 1) / (root + 1))


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_every_claim_passes(claim_id):
    assert check(CLAIMS[claim_id])["verdict"] == "pass"


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_a_seed_does_not_depend_on_the_seeds_beside_it(claim_id):
    assert_seeds_independent(CLAIMS[claim_id])


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_every_broken_variant_fails_every_claim_it_names(variant):
    named = variant.claim_ids(sorted(CLAIMS))
    assert named, f"{variant.id} names no claim of the paper"
    for claim_id in named:
        assert check(variant.apply(CLAIMS[claim_id]))["verdict"] == "fail", claim_id


@pytest.mark.parametrize("kappa", [10.0, 1000.0])
def test_the_bound_constant_is_attained_on_the_eigen_direction_of_L(kappa):
    """From e_0 on the eigenvector of λ = L (and e_{−1} = e_0), heavy ball gives e_t = (−ρ)^t (1 + (1 + ρ)t) e_0:
    the bound of :data:`HEAVY_BALL_BOUND` holds with equality, so its constant cannot be lowered."""
    from momentum_rates.theory import HEAVY_BALL_BOUND

    Q = np.diag(np.geomspace(1.0 / kappa, 1.0, 5))
    step, momentum = HeavyBall().coefficients(1.0 / kappa, 1.0)
    x = prev = np.eye(5)[-1]
    for t in range(1, 60):
        x, prev = x - step * Q @ x + momentum * (x - prev), x
        bound = HEAVY_BALL_BOUND.evaluate({"kappa": kappa, "t": t, "B": 1.0})
        assert np.linalg.norm(x) == pytest.approx(bound, rel=1e-9)
