"""Numeric minimisation of a theorem's rhs over some of its symbols, subject to its conditions.

Used for design problems such as Dinh et al.'s training-time optimisation (§4.3, problems (20) and (23)): the rhs is
the objective, the conditions are the constraints, the other symbols are fixed values.

Method: every variable is searched on a log scale in [lo, hi] (all symbols are positive).  A grid of about
:data:`GRID_BUDGET` points (n per axis, n = budget^{1/k} for k variables) is evaluated at once with the compiled rhs
and conditions; a point is feasible when every condition holds strictly at it (an undefined side counts as
infeasible here) and the rhs is finite.  From each of the :data:`STARTS` best feasible grid points a zoom refines
it: a grid of :data:`ZOOM_BUDGET` points over ± 2 spacings around the current best, re-centred and shrunk by
:data:`SHRINK` per step until the spacing is below 1e-13 in log coordinates; infeasible points never win, so optima
on a constraint's boundary are approached from inside.  The answer is a numerical global minimum on the box,
located by the grid and refined, not proved; the grid spacing is reported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from fedrates.bounds.theorem import Theorem, check_values
from fedrates.solvers.errors import InputError

__all__ = ["Minimum", "minimize", "GRID_BUDGET", "STARTS"]

#: grid points evaluated before the local refinement
GRID_BUDGET = 200_000
#: local refinements (from the best feasible grid points)
STARTS = 4
#: grid points per zoom step of a refinement
ZOOM_BUDGET = 20_000
#: spacing factor per zoom step (slow enough to follow a curved constraint boundary)
SHRINK = 0.6


@dataclass(frozen=True)
class Minimum:
    """The minimiser (variable -> value), the minimum of the rhs, the search box and the grid spacing (decades)."""

    point: dict[str, float]
    value: float
    lo: float
    hi: float
    grid_decades: float
    evaluations: int


def _compiled(theorem: Theorem, names: set[str]):
    from fedrates.bounds._logeval import compile_value

    rhs = compile_value(theorem.rhs)
    conds = []
    for cond in theorem.conditions:
        if not isinstance(cond, sp.core.relational.Relational):
            continue
        if not {s.name for s in cond.free_symbols} <= names:
            continue
        conds.append((compile_value(cond.lhs), compile_value(cond.rhs), cond.rel_op))
    return rhs, conds


def _feasible_value(rhs, conds, env: Mapping[str, np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        value = np.asarray(rhs(env), dtype=float)
        ok = np.isfinite(value)
        for left, right, op in conds:
            lv, rv = np.asarray(left(env), dtype=float), np.asarray(right(env), dtype=float)
            tol = 1e-12 * np.maximum(np.abs(lv), np.abs(rv))
            holds = {">=": lv >= rv - tol, "<=": lv <= rv + tol, ">": lv > rv, "<": lv < rv,
                     "==": np.abs(lv - rv) <= tol, "!=": np.abs(lv - rv) > tol}[op]
            ok = ok & holds & np.isfinite(lv) & np.isfinite(rv)
    return np.where(ok, value, np.inf)


def minimize(theorem: Theorem, variables: Sequence[str], values: Mapping[str, float], lo: float = 1e-3,
             hi: float = 1e6) -> Minimum:
    """Minimise ``theorem``'s rhs over ``variables`` in [lo, hi] each, the other symbols fixed at ``values``,
    subject to every condition of the theorem (InputError if no grid point is feasible)."""
    names = [str(v) for v in variables]
    symbols = {s.name for s in theorem.free_symbols}
    for n in names:
        if n not in symbols:
            raise InputError(f"--minimize {n}: '{n}' is not a symbol of {theorem.id}; expected one of "
                             f"{', '.join(sorted(symbols))}")
        if n in values:
            raise InputError(f"--minimize {n}: '{n}' also has a value in --set; give it one or the other")
    if len(set(names)) != len(names):
        raise InputError(f"--minimize lists a variable twice: {' '.join(names)}")
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi):
        raise InputError(f"range must satisfy 0 < LO < HI < inf, got LO = {lo:g}, HI = {hi:g}")
    missing = sorted(symbols - set(names) - set(values))
    if missing:
        raise InputError(f"minimizing {theorem.id} over {', '.join(names)} needs values for: {', '.join(missing)}")
    fixed = check_values(values, symbols - set(names), zero_ok=theorem.zero_allowed)
    for text in theorem.failed_conditions(fixed):  # conditions on the fixed values alone (e.g. theta < 1)
        raise InputError(f"condition {text} of {theorem.id} fails at the given values ("
                         + ", ".join(f"{k}={v:g}" for k, v in sorted(fixed.items())) + "); no design can meet it")
    rhs, conds = _compiled(theorem, symbols)
    k = len(names)
    n = max(8, int(round(GRID_BUDGET ** (1.0 / k))))
    axes = np.linspace(math.log(lo), math.log(hi), n)
    mesh = np.meshgrid(*([axes] * k), indexing="ij")
    env = {**fixed, **{name: np.exp(m.reshape(-1)) for name, m in zip(names, mesh, strict=True)}}
    vals = _feasible_value(rhs, conds, env)
    order = np.argsort(vals)
    good = [i for i in order[:STARTS] if np.isfinite(vals[i])]
    if not good:
        raise InputError(f"no feasible point of {theorem.id} with {', '.join(names)} in [{lo:g}, {hi:g}] (every "
                         "condition must hold)")
    lo_l, hi_l = math.log(lo), math.log(hi)
    step0 = (hi_l - lo_l) / (n - 1)
    m = max(5, int(round(ZOOM_BUDGET ** (1.0 / k))))
    flat_mesh = [g.reshape(-1) for g in mesh]
    best_p = np.array([g[good[0]] for g in flat_mesh])
    best_v = float(vals[good[0]])
    evaluations = vals.size
    for i in good:
        centre, step = np.array([g[i] for g in flat_mesh]), step0
        for _ in range(200):
            if step < 1e-13:
                break
            lows = np.maximum(centre - 2 * step, lo_l)
            highs = np.minimum(centre + 2 * step, hi_l)
            local = np.meshgrid(*[np.linspace(a_, b_, m) for a_, b_ in zip(lows, highs, strict=True)], indexing="ij")
            local = [g.reshape(-1) for g in local]
            e = {**fixed, **{name: np.exp(g) for name, g in zip(names, local, strict=True)}}
            v = _feasible_value(rhs, conds, e)
            evaluations += v.size
            j = int(np.argmin(v))
            if np.isfinite(v[j]):
                centre = np.array([g[j] for g in local])
                if v[j] < best_v:
                    best_p, best_v = centre.copy(), float(v[j])
            step *= SHRINK
    point = {name: math.exp(x) for name, x in zip(names, best_p, strict=True)}
    return Minimum(point=point, value=best_v, lo=lo, hi=hi, grid_decades=float((hi_l - lo_l) / (n - 1) / math.log(10)),
                   evaluations=evaluations)
