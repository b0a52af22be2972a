"""The closed-form constants of the scalable families (:mod:`fedrates.solvers.closed_form`) against the dense route.

Each family's ``closed_form`` is forced on a small instance (its module's ``DENSE_BUDGET`` set to 0 after the dense
route has run) and every constant it gives is compared with :func:`fedrates.solvers.constants.compute` on the same
instance: two independent computations (per-client Hessians and eigendecompositions against the family's structure).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from fedrates.solvers import closed_form as cf
from fedrates.solvers import constants, problems
from fedrates.solvers.problems import implicit_least_squares, lowrank_quadratic, structured_quadratic

#: (family module, parameters of a small instance, batch): sigma and radius make σ² non-trivial
CASES = [
    (structured_quadratic, {"clients": 6, "dim": 5, "sigma": 0.7, "structure": "basis", "seed": 3}, 2),
    (structured_quadratic, {"clients": 5, "dim": 4, "structure": "diagonal", "seed": 8}, 1),
    (implicit_least_squares, {"clients": 6, "dim": 4, "samples": 12, "radius": 1.5, "seed": 5}, 3),
    (implicit_least_squares, {"clients": 4, "dim": 8, "samples": 8, "radius": 0.7, "seed": 1}, 1),
    (lowrank_quadratic, {"clients": 6, "dim": 5, "boost": 2.0, "sigma": 0.3, "seed": 2}, 2),
]
SCALARS = ("L", "mu", "Lambda", "mu_F", "sigma2", "sigma_bar2", "Delta_star_max", "delta", "delta_mean")
PER_CLIENT = ("L_k", "mu_k", "sigma2_k", "Delta_star")


def _forced(module, problem, batch, monkeypatch):
    monkeypatch.setattr(module, "DENSE_BUDGET", 0)
    return module.closed_form(problem, batch)


@pytest.mark.parametrize(("module", "params", "batch"), CASES)
def test_closed_form_equals_the_dense_route(module, params, batch, monkeypatch):
    problem = problems.make(module.FAMILY.name, **params)
    dense = constants.compute(problem, batch=batch, cache=False).as_dict()
    # σ²_ref: the dense route evaluates it at the reference point it is given
    ref = constants.compute(problem, batch=batch, reference_point=module.exact_constants(problem)["w_star"],
                            cache=False)
    closed = _forced(module, problem, batch, monkeypatch)
    for name in SCALARS:
        if module is lowrank_quadratic and name in ("delta", "delta_mean"):  # no closed form without a shared basis
            assert closed.values[name] is None and "not computed" in closed.notes[name]
            continue
        assert closed.values[name] == pytest.approx(float(dense[name]), rel=1e-9, abs=1e-12), name
    for name in PER_CLIENT:
        np.testing.assert_allclose(closed.values[name], np.asarray(dense[name], dtype=float), rtol=1e-9, atol=1e-12,
                                   err_msg=name)
    assert closed.values["sigma2_ref"] == pytest.approx(float(ref.sigma2_ref), rel=1e-9, abs=1e-12)
    assert all(c.disagreement() is None for c in closed.certificates.values())
    assert closed.values["H"] is None and "not computed" in closed.notes["H"]


@pytest.mark.parametrize(("module", "params", "batch"), CASES[:1] + CASES[2:3])
def test_dense_route_kept_while_it_fits(module, params, batch):
    """Within the budget the family leaves the constants to the dense route (which gives H as well)."""
    assert module.closed_form(problems.make(module.FAMILY.name, **params), batch) is None


def test_per_client_arrays_above_the_limit_are_summarised(monkeypatch):
    module, params, batch = CASES[0]
    problem = problems.make(module.FAMILY.name, **params)
    monkeypatch.setattr(cf, "PER_CLIENT_LIMIT", 3)
    closed = _forced(module, problem, batch, monkeypatch)
    lam_max = problem.datafit.lam.max(axis=1)
    assert closed.values["L_k"] is None
    assert f"{lam_max.min():.6g}, {lam_max.max():.6g}" in closed.notes["L_k"]


def test_a_wrong_closed_form_fails_its_certificate(monkeypatch):
    """The certificates are computed from the instance, not from the closed form's numbers: a closed form that
    returned a wrong L would show a disagreement."""
    module, params, batch = CASES[0]
    problem = problems.make(module.FAMILY.name, **params)
    real = module.exact_constants
    monkeypatch.setattr(module, "exact_constants", lambda p: {**real(p), "L": 1.01 * real(p)["L"]})
    closed = _forced(module, problem, batch, monkeypatch)
    assert closed.certificates["L"].disagreement() is not None


@pytest.mark.parametrize(("family", "sizes", "method", "certified"), [
    ("structured_quadratic", ["clients=20000", "dim=100"], "closed form in the shared basis",
     {"L", "mu", "L_F", "mu_F", "zeta2", "Gamma"}),
    ("lowrank_quadratic", ["clients=20000", "dim=100"], "closed form of the diagonal-plus-rank-one Hessians "
     "(secular equation)", {"L", "mu", "L_F", "mu_F", "zeta2", "Gamma"}),
    ("implicit_least_squares", ["clients=20000", "samples=64", "dim=32", "radius=2"],
     "closed form in the DCT coefficients", {"L", "mu", "L_F", "mu_F", "zeta2", "Gamma", "sigma2_ref", "sigma2"}),
])
def test_cli_takes_the_closed_form_beyond_the_dense_budget(family, sizes, method, certified, capsys):
    """Instances whose Hessian stack (1.5 GiB) or sample matrix would not be formed: `fedrates constants` answers
    from the family's closed form, with its certificates, and every certificate agrees."""
    from fedrates.verify.cli import main

    assert main(["constants", family, "--set", *sizes, "--no-cache", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == method
    assert doc["disagreements"] == [] and certified <= set(doc["certificates"])
    for name in ("L", "mu"):
        assert doc["constants"][name]["value"] == pytest.approx(doc["certificates"][name]["witness_value"], rel=1e-9)
    assert doc["constants"]["L_k"]["value"] is None and "20,000 clients" in doc["constants"]["L_k"]["note"]
