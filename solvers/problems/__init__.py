"""Synthetic federations.

``make(name, preset=None, **params)`` builds a :class:`~solvers.problems.base.Problem`; ``names()`` lists the
families and ``presets(name)`` their presets.  Every family declares its parameters (with meanings and ranges) so
that bad values fail with one clear line.
"""

from __future__ import annotations

from typing import Any

from fedrates.solvers.errors import unknown_name
from fedrates.solvers.problems import lasso, quadratic, separation, trace
from fedrates.solvers.problems._params import Family, resolve
from fedrates.solvers.problems.base import Problem

__all__ = ["Problem", "make", "names", "presets", "family", "FAMILIES"]

FAMILIES: dict[str, Family] = {f.name: f for f in (lasso.FAMILY, trace.FAMILY, quadratic.FAMILY)}
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
