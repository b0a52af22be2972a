"""Registry-wide checks over every catalogued theorem (all papers)."""

from __future__ import annotations

import math

import pytest

from bounds import analysis
from bounds.catalog import all_theorems
from bounds.symbols import VOCABULARY

#: generic values per symbol (fallback 2.0), chosen so the usual conditions hold (a >= 4L/mu, T >= a, ...)
TABLE = {
    "T": 1e4, "R": 1e3, "K": 8.0, "E": 2.0, "n": 8.0, "N": 1e4, "r": 50.0, "t": 100.0, "Tm": 1e6,
    "mu": 0.5, "L": 1.0, "a": 8.0, "delta": 0.05, "tau": 1e-5, "nu": 1e-5, "lam_opt": 0.01, "lam0": 0.04,
    "lam_m": 0.02, "gstar": 0.001, "eps": 1e-3, "eps0": 1.0, "eps_m": 0.5, "Psi": 1.0, "eta": 1e-4,
}
#: alternative scalings tried when the table point violates a condition (sizes grow, accuracies shrink)
SCALES = (1.0, 10.0, 100.0, 1e3, 1e4)

THEOREMS = all_theorems()


def _point(th):
    names = sorted(s.name for s in th.free_symbols)
    base = {n: TABLE.get(n, 2.0) for n in names}
    vocab = set(th.vocabulary())
    for s in SCALES:
        values = {n: (v * s if n in vocab else v) for n, v in base.items()}
        if not th.failed_conditions(values):
            return values
    return None


@pytest.mark.parametrize("th", THEOREMS, ids=[t.id for t in THEOREMS])
def test_theorem_record_is_complete(th):
    assert th.statement.strip() and "\\" in th.statement or "^" in th.statement or "_" in th.statement
    free = {s.name for s in th.free_symbols}
    assert th.symbols and free <= set(th.symbols)
    assert all(isinstance(v, str) and v for v in th.symbols.values())


@pytest.mark.parametrize("th", THEOREMS, ids=[t.id for t in THEOREMS])
def test_evaluates_finite_positive_at_a_point_meeting_its_conditions(th):
    values = _point(th)
    if values is None:
        failing = th.failed_conditions({n: TABLE.get(n, 2.0) for n in (s.name for s in th.free_symbols)})
        pytest.skip(f"no point of the generic table satisfies {failing}; extend TABLE")
    value = th.evaluate(values)
    assert math.isfinite(value) and value > 0


@pytest.mark.parametrize("th", THEOREMS, ids=[t.id for t in THEOREMS])
def test_exponent_in_each_vocabulary_variable_is_computable(th):
    rhs_names = {s.name for s in th.rhs.free_symbols}
    for letter, meaning in th.vocabulary().items():
        assert meaning in VOCABULARY
        if letter not in rhs_names:
            continue
        p = analysis.exponent(th, letter)
        assert math.isfinite(float(p))
