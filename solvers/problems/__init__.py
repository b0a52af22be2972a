"""Synthetic federations.

``make(name, preset=None, **params)`` builds a :class:`~solvers.problems.base.Problem`; ``names()`` lists the
families and ``presets(name)`` their presets.  Every family declares its parameters (with meanings and ranges) so
that bad values fail with one clear line.
"""

from __future__ import annotations

from typing import Any

from fedrates.solvers.errors import unknown_name
from fedrates.solvers.problems import finite_sum, lasso, quadratic, separation, similar_quadratic, trace
from fedrates.solvers.problems._params import Family, resolve
from fedrates.solvers.problems.base import Problem

__all__ = ["Problem", "make", "names", "presets", "family", "FAMILIES"]

FAMILIES: dict[str, Family] = {f.name: f for f in (lasso.FAMILY, trace.FAMILY, quadratic.FAMILY)}
# finite-sum federations of Dinh et al.
FAMILIES.update({f.name: f for f in (finite_sum.LS_FAMILY, finite_sum.NC_FAMILY)})
# least squares with a similarity graph (Buttaci & Calafiore)
FAMILIES[similar_quadratic.FAMILY.name] = similar_quadratic.FAMILY
# two-group quadratic federations with prescribed similarity (Bylinkin et al.)
FAMILIES[separation.FAMILY.name] = separation.FAMILY


def names() -> list[str]:
    return list(FAMILIES)


def family(name: str) -> Family:
    if name not in FAMILIES:
        raise unknown_name("problem", name, FAMILIES)
    return FAMILIES[name]


def presets(name: str) -> list[str]:
    return list(family(name).presets)


def preset_family(preset: str) -> str | None:
    """The family that owns a preset name, if any."""
    for fam in FAMILIES.values():
        if preset in fam.presets:
            return fam.name
    return None


def make(name: str, preset: str | None = None, **params: Any) -> Problem:
    """Build a problem of family ``name`` from defaults, an optional preset and parameter overrides."""
    fam = family(name)
    resolved = resolve(fam, preset, params)
    return fam.builder(resolved, preset)
