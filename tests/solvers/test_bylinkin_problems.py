"""Two-group quadratic federations of Bylinkin et al.: prescribed constants, preconditions, group means, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.constants import SEPARATION_DEFINITIONS, separation_constants
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems import separation
from fedrates.solvers.problems.separation import split


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mu,df,dg", [(1e-3, 0.02, 0.5), (0.05, 0.1, 3.0)])
def test_prescribed_constants_are_exact(seed, mu, df, dg):
    p = problems.make("separation", dim=7, mu=mu, L=1.5, delta_f=df, delta_g=dg, seed=seed)
    sp = split(p)
    # recomputed here from the raw client data and server matrices, not from the builder's bookkeeping
    group = p.extras["group"]
    Af = (p.datafit.Q[group == 0] / 2).mean(axis=0)
    Ag = (p.datafit.Q[group == 1] / 2).mean(axis=0)
    assert np.linalg.norm(p.extras["A_f1"] - Af, 2) == pytest.approx(df, rel=1e-12)
    assert np.linalg.norm(p.extras["A_g1"] - Ag, 2) == pytest.approx(dg, rel=1e-12)
    ev = np.linalg.eigvalsh(Af + Ag)
    assert ev[0] == pytest.approx(mu, rel=1e-10) and ev[-1] == pytest.approx(1.5, rel=1e-10)
    assert sp.lambda_min_g >= 0 and sp.lambda_min_h1 >= 0 and sp.lambda_min_f1_plus_g >= 0


def test_federation_objective_is_f_plus_g():
    p = problems.make("separation", "bylinkin-separation")
    sp = split(p)
    x = np.random.default_rng(0).standard_normal((3, p.dim))
    assert np.allclose(p.gradient(x), sp.grad_f(x) + sp.grad_g(x), atol=1e-12)
    # the closed-form optimum is certified to machine precision
    assert sp.certificate() < 1e-20
    assert np.allclose(sp.gap(sp.xstar[None]), 0.0)


def test_signed_perturbation_breaks_the_unstated_preconditions():
    sp = split(problems.make("separation", "bylinkin-signed"))
    assert sp.lambda_min_h1 < 0 and sp.lambda_min_f1_plus_g < 0
    assert sp.lambda_min_g >= 0  # Assumption 3 still holds: only the implicit preconditions fail
    assert sp.delta_f == pytest.approx(0.05, rel=1e-12) and sp.delta_g == pytest.approx(0.5, rel=1e-12)


def test_shared_minimiser_makes_every_gradient_vanish():
    sp = split(problems.make("separation", "bylinkin-interpolation"))
    X = sp.xstar[None]
    for grad in (sp.grad_f, sp.grad_g, sp.grad_f1, sp.grad_g1):
        assert np.max(np.abs(grad(X))) < 1e-12


def test_constants_table():
    values = separation_constants(problems.make("separation", "bylinkin-separation"))
    assert set(values) == set(SEPARATION_DEFINITIONS)
    assert values["delta_f"] == pytest.approx(0.02) and values["mu"] == pytest.approx(1e-3)


def test_bad_input_one_line():
    with pytest.raises(InputError, match="L=0.001 is smaller than mu"):
        problems.make("separation", mu=0.01, L=0.001)
    with pytest.raises(InputError, match="delta_g"):
        problems.make("separation", delta_g=0.0)
    with pytest.raises(InputError, match="separation problem"):
        split(problems.make("quadratic"))


def test_builder_checks_what_it_built(monkeypatch):
    # a perturbation whose norm is not the requested delta must be refused by the builder
    original = separation._perturbation
    monkeypatch.setattr(separation, "_perturbation", lambda rng, d, delta, kind, b: 1.01 * original(rng, d, delta,
                                                                                                     kind, b))
    with pytest.raises(InputError, match="not the requested"):
        problems.make("separation", seed=5)


def test_indefinite_components_and_mixed_perturbation():
    # f, g non-convex (sections 5-6 allow it), delta attained only by the negative eigenvalue, h_1 still convex
    p = problems.make("separation", dim=6, mu=0.01, L=1.0, delta_f=0.1, delta_g=0.3, components="indefinite",
                      perturbation="mixed", seed=2)
    sp = split(p)
    ev = np.linalg.eigvalsh
    assert ev(sp.A_f)[0] < 0 and ev(sp.A_g)[0] < 0
    np.testing.assert_allclose(sp.A_f + sp.A_g, sp.H, atol=1e-12)
    assert sp.mu == pytest.approx(0.01, rel=1e-9)
    for A1, A, delta in ((sp.A_f1, sp.A_f, 0.1), (sp.A_g1, sp.A_g, 0.3)):
        e = ev(0.5 * ((A1 - A) + (A1 - A).T))
        assert e[0] == pytest.approx(-delta, rel=1e-9)  # the modulus is attained by the negative eigenvalue
        assert e[-1] < delta * (1 - 1e-6)  # so the signed largest eigenvalue is smaller than delta
    assert sp.delta_f == pytest.approx(0.1, rel=1e-9) and sp.delta_g == pytest.approx(0.3, rel=1e-9)
    assert sp.lambda_min_h1 > 0 and sp.lambda_min_f1_plus_g > 0
