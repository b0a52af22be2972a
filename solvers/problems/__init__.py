"""Synthetic federations.

``make(name, preset=None, **params)`` builds a :class:`~solvers.problems.base.Problem`; ``names()`` lists the
families and ``presets(name)`` their presets.  Every family declares its parameters (with meanings and ranges) so
that bad values fail with one clear line.
"""

from __future__ import annotations

from typing import Any

from fedrates.solvers.errors import unknown_name
from fedrates.solvers.problems import (
    finite_sum,
    implicit_least_squares,
    lasso,
    lowrank_quadratic,
    quadratic,
    separation,
    similar_quadratic,
    structured_quadratic,
    trace,
)
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
# quadratics in a shared eigenbasis, O(K·d) memory: many clients
FAMILIES[structured_quadratic.FAMILY.name] = structured_quadratic.FAMILY
# quadratics with diagonal-plus-rank-one Hessians, O(K·d) memory: many clients, no shared basis
FAMILIES[lowrank_quadratic.FAMILY.name] = lowrank_quadratic.FAMILY
# least squares with implicit DCT features, O(K·n) memory: many clients, real minibatches of samples
FAMILIES[implicit_least_squares.FAMILY.name] = implicit_least_squares.FAMILY


_PLUGINS_LOADED = False


def _load_plugins() -> None:
    """Add the problem families of every installed paper (modules defining ``FAMILIES``, :mod:`fedrates.plugins`)."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    from fedrates import plugins

    for paper, fam in plugins.exported("problems"):
        if not isinstance(fam, Family):
            plugins.report_problem(f"'{paper.id}'", f"FAMILIES holds a {type(fam).__name__}, expected a Family")
        elif fam.name in FAMILIES and FAMILIES[fam.name] is not fam:
            plugins.report_problem(f"'{paper.id}'", f"problem family '{fam.name}' is already defined")
        else:
            FAMILIES[fam.name] = fam


def names() -> list[str]:
    _load_plugins()
    return list(FAMILIES)


def family(name: str) -> Family:
    if name not in FAMILIES:
        _load_plugins()
    if name not in FAMILIES:
        raise unknown_name("problem", name, FAMILIES)
    return FAMILIES[name]


def presets(name: str) -> list[str]:
    return list(family(name).presets)


def preset_family(preset: str) -> str | None:
    """The family that owns a preset name, if any."""
    _load_plugins()
    for fam in FAMILIES.values():
        if preset in fam.presets:
            return fam.name
    return None


def make(name: str, preset: str | None = None, **params: Any) -> Problem:
    """Build a problem of family ``name`` from defaults, an optional preset and parameter overrides."""
    fam = family(name)
    resolved = resolve(fam, preset, params)
    return fam.builder(resolved, preset)
