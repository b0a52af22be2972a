"""Symbolic and numeric analysis of a theorem's right-hand side.

* :func:`exponent` -- the power p with rhs ~ x^p as x -> oo (or x -> 0+): p = lim log(rhs)/log(x), computed
  by sympy on the rhs with the other symbols at generic values, cross-checked by a numeric log-log slope.
  Logarithmic factors do not change p (log T/T has exponent -1); :func:`exponent_details` says when one is
  present.
* :func:`leading_term` -- the additive term(s) carrying that power, and its coefficient.
* :func:`dominant_regimes` -- for given values of the other symbols, the intervals of x on which each additive
  term of the rhs is the largest.
* :func:`solve_for` -- the positive roots of rhs(x) = target, each verified by substitution (sympy's candidate
  roots, including both real branches of LambertW, united with a bracketing scan).
* :func:`communication` -- Remark 2.1 of seed 000: the largest number of local steps E keeping the
  communication terms below the term that dominates as T -> oo, and the resulting number of rounds T/E.
* :func:`to_latex` -- the statement ``lhs <= rhs`` (or ``\\lesssim``) with its conditions.

All functions take a :class:`~bounds.theorem.Theorem` or a sympy expression.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import sympy as sp

from fedrates.bounds.theorem import Theorem, check_values
from fedrates.solvers.errors import InputError, unknown_name

__all__ = [
    "Exponent", "LeadingTerm", "Regime", "Communication", "terms", "exponent", "exponent_details",
    "leading_term", "dominant_regimes", "solve_for", "communication", "to_latex", "symbol",
]

ExprOrTheorem = Theorem | sp.Expr

#: generic values for the symbols that are not the variable of an asymptotic question (distinct, irrational
#: ratios avoid accidental cancellations); values given by the caller take precedence
_GENERIC = (sp.Rational(7, 3), sp.Rational(11, 5), sp.Rational(13, 7), sp.Rational(17, 6), sp.Rational(19, 4),
            sp.Rational(23, 9), sp.Rational(29, 8), sp.Rational(31, 10))
_GENERIC_BY_NAME = {"delta": sp.Rational(1, 20), "tau": sp.Rational(1, 1000), "nu": sp.Rational(1, 1000)}


def _as_expr(obj: object) -> sp.Expr:
    """A sympy expression from a sympy object or a Python number; text is refused (user text goes through
    :mod:`fedrates.bounds.parse`, never through sympify)."""
    if isinstance(obj, sp.Basic):
        return obj
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        raise TypeError(f"expected a sympy expression or a number, got {type(obj).__name__}")
    return sp.Integer(obj) if isinstance(obj, int) else sp.Float(obj)


def _rhs(obj: ExprOrTheorem) -> sp.Expr:
    return obj.rhs if isinstance(obj, Theorem) else _as_expr(obj)


def symbol(obj: ExprOrTheorem, name: str) -> sp.Symbol:
    """The free symbol called ``name`` of the rhs (InputError with a suggestion otherwise)."""
    free = {s.name: s for s in _rhs(obj).free_symbols}
    if isinstance(obj, Theorem):
        for s in obj.free_symbols:
            free.setdefault(s.name, s)
    if name not in free:
        what = f"symbol of {obj.id}" if isinstance(obj, Theorem) else "symbol"
        raise unknown_name(what, name, free)
    return free[name]


def terms(expr: sp.Expr) -> list[sp.Expr]:
    """The additive terms of ``expr``: the arguments of a sum, with a product distributed over one sum factor
    (``(u + v)/A`` gives ``u/A, v/A``), recursively; powers and functions are kept whole."""
    expr = _as_expr(expr)
    if isinstance(expr, sp.Add):
        out: list[sp.Expr] = []
        for arg in expr.args:
            out.extend(terms(arg))
        return out
    if isinstance(expr, sp.Mul):
        for i, factor in enumerate(expr.args):
            if isinstance(factor, sp.Add):
                rest = sp.Mul(*(expr.args[:i] + expr.args[i + 1:]))
                out = []
                for arg in factor.args:
                    out.extend(terms(rest * arg))
                return out
    return [expr]


def _generic_subs(expr: sp.Expr, var: sp.Symbol, values: Mapping[str, float] | None) -> dict:
    subs = {}
    others = sorted((s for s in expr.free_symbols if s != var), key=lambda s: s.name)
    for i, s in enumerate(others):
        if values and s.name in values:
            subs[s] = sp.nsimplify(check_values({s.name: values[s.name]})[s.name], rational=True)
        else:
            subs[s] = _GENERIC_BY_NAME.get(s.name, _GENERIC[i % len(_GENERIC)])
    return subs


@dataclass(frozen=True)
class Exponent:
    """rhs ~ x^value (x -> ``at``); ``log_factor`` when rhs / x^value still tends to 0 or oo (a power of log x);
    ``numeric`` is the log-log slope measured between x = 1e8 and 1e12 (or 1e-12 and 1e-8)."""

    value: sp.Expr
    log_factor: bool
    numeric: float
    note: str = ""


def _univariate(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float] | None):
    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    return expr, x, expr.subs(_generic_subs(expr, x, values))


def _numeric_slope(f: sp.Expr, x: sp.Symbol, at_zero: bool) -> float:
    points = (sp.Float("1e-12", 40), sp.Float("1e-8", 40)) if at_zero else (sp.Float("1e8", 40),
                                                                            sp.Float("1e12", 40))
    vals = [f.evalf(40, subs={x: p}) for p in points]
    try:
        logs = [float(sp.log(abs(v)).evalf(30)) for v in vals]
    except (TypeError, ValueError):
        return float("nan")
    return (logs[1] - logs[0]) / (math.log(float(points[1])) - math.log(float(points[0])))


def _structural(expr: sp.Expr, x: sp.Symbol, at_zero: bool) -> tuple[sp.Expr, bool] | None:
    """(power, log_factor) of ``expr`` in ``x`` read off its structure, or ``None`` when the structure does not
    decide it.  Exact for products, numeric powers, sums of positive terms (no cancellation) and logarithms of
    growing arguments; anything else is left to ``sympy.limit``."""
    if x not in expr.free_symbols:
        return sp.S.Zero, False
    if expr == x:
        return sp.S.One, False
    if isinstance(expr, sp.Mul):
        total, flag = sp.S.Zero, False
        for f in expr.args:
            got = _structural(f, x, at_zero)
            if got is None:
                return None
            total, flag = total + got[0], flag or got[1]
        return total, flag
    if isinstance(expr, sp.Pow) and x not in expr.exp.free_symbols:
        got = _structural(expr.base, x, at_zero)
        if got is None or not expr.exp.is_real:
            return None
        return expr.exp * got[0], got[1] and expr.exp != 0
    if isinstance(expr, sp.Add):
        parts = [_structural(arg, x, at_zero) for arg in expr.args]
        if any(p is None for p in parts) or not all(p[0].is_number for p in parts):
            return None
        best = (min if at_zero else max)(p[0] for p in parts)
        top = [arg for arg, p in zip(expr.args, parts, strict=True) if p[0] == best]
        if not all(_lead_positive(arg, x, at_zero) for arg in top):  # the leading terms could cancel
            return None
        return best, any(p[1] for p in parts if p[0] == best)
    if isinstance(expr, sp.log) and len(expr.args) == 1:
        got = _structural(expr.args[0], x, at_zero)
        if got is None or (got[0] == 0 and not got[1]) or not expr.is_positive:
            return None
        return sp.S.Zero, True
    return None


def _lead_positive(expr: sp.Expr, x: sp.Symbol, at_zero: bool) -> bool:
    """True when ``expr`` is eventually positive (its leading part has a positive sign)."""
    if expr.is_positive:
        return True
    if isinstance(expr, sp.Mul):
        return all(_lead_positive(f, x, at_zero) for f in expr.args)
    if isinstance(expr, sp.Pow) and expr.exp.is_real and x not in expr.exp.free_symbols:
        return _lead_positive(expr.base, x, at_zero)
    if isinstance(expr, sp.Add):
        parts = [_structural(arg, x, at_zero) for arg in expr.args]
        if any(p is None or not p[0].is_number for p in parts):
            return False
        best = (min if at_zero else max)(p[0] for p in parts)
        top = [arg for arg, p in zip(expr.args, parts, strict=True) if p[0] == best]
        return all(_lead_positive(arg, x, at_zero) for arg in top)
    return False


def exponent_details(obj: ExprOrTheorem, var: str | sp.Symbol, at: str | int = "oo",
                     values: Mapping[str, float] | None = None) -> Exponent:
    """Exponent of the rhs in ``var`` as ``var -> oo`` (``at="oo"``) or ``-> 0+`` (``at=0``), with details.

    The other symbols take ``values`` when given, else generic positive values (the exponent of the sums of
    powers and logarithms met in the catalogue does not depend on them).  The power is read off the
    expression's structure when that is exact (products, powers, sums of positive terms, logarithms),
    otherwise from ``limit(log(rhs)/log(var))``; either way it is cross-checked by the numeric slope."""
    _, x, f = _univariate(obj, var, values)
    at_zero = str(at) in {"0", "0+"}
    point = 0 if at_zero else sp.oo
    numeric = _numeric_slope(f, x, at_zero)
    quick = _structural(f, x, at_zero)
    if quick is not None and math.isfinite(numeric) and (quick[1] or abs(numeric - float(quick[0])) < 0.05):
        p, log_factor = quick
    else:
        try:
            p = sp.limit(sp.log(f) / sp.log(x), x, point, "+" if at_zero else "-")
        except (NotImplementedError, ValueError, TypeError):  # pragma: no cover - sympy gave up
            p = sp.nan
        if not p.is_finite or p.is_real is False:
            if math.isfinite(numeric) and abs(numeric) > 1e3:  # exp-type growth/decay
                p = sp.oo if numeric > 0 else -sp.oo
                return Exponent(p, False, numeric, f"faster than any power of {x} (exponential)")
            if math.isfinite(numeric):
                p = sp.nsimplify(round(numeric * 4) / 4)
                return Exponent(p, False, numeric, "sympy could not take the limit; value from the numeric slope")
            raise InputError(f"the exponent of the rhs in {x} is not defined (rhs not positive near {point})")
        try:
            ratio = sp.limit(f / x**p, x, point, "+" if at_zero else "-")
            log_factor = ratio in (sp.S.Zero, sp.oo) or not ratio.is_finite
        except (NotImplementedError, ValueError, TypeError):  # pragma: no cover
            log_factor = False
    note = ""
    if log_factor:
        note = f"up to a logarithmic factor in {x}: the rhs is x^{p} times a power of log {x}"
    elif math.isfinite(numeric) and abs(numeric - float(p)) > 0.05:
        note = f"numeric slope {numeric:.3f} differs from the limit {p}: slowly decaying lower-order terms"
    return Exponent(p, bool(log_factor), numeric, note)


def exponent(obj: ExprOrTheorem, var: str | sp.Symbol, at: str | int = "oo",
             values: Mapping[str, float] | None = None) -> sp.Expr:
    """The power p with rhs ~ var^p (up to logarithms) as ``var -> oo`` (or ``0+``); e.g. -1 for
    ``bao.thm2.1`` in ``T``.  A sympy number (use ``float()`` for a float); ``oo``/``-oo`` for exponential
    growth/decay."""
    return exponent_details(obj, var, at, values).value


class LeadingTerm(NamedTuple):
    """The part of the rhs of the largest power of x as x -> oo: ``term`` (a sum of the additive terms of that
    power), its ``exponent`` and its ``coefficient`` (term / x^exponent; contains log x when a log factor
    is present)."""

    term: sp.Expr
    exponent: sp.Expr
    coefficient: sp.Expr


def leading_term(obj: ExprOrTheorem, var: str | sp.Symbol, at: str | int = "oo") -> LeadingTerm:
    """The leading additive term of the rhs in ``var`` (ties of the same power are summed)."""
    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    parts = [t for t in terms(expr) if t != 0]
    at_zero = str(at) in {"0", "0+"}
    with_x = [t for t in parts if x in t.free_symbols]
    if not with_x:
        return LeadingTerm(expr, sp.S.Zero, expr)
    exps = [(t, exponent_details(t, x, at)) for t in parts]

    def key(e: Exponent) -> tuple[float, float]:
        return (float(e.value), e.numeric if math.isfinite(e.numeric) else 0.0)

    best = (min if at_zero else max)(key(e) for _, e in exps)
    top = [(t, e) for t, e in exps if float(e.value) == best[0]]
    term = sp.Add(*(t for t, _ in top))
    p = top[0][1].value
    coeff = sp.simplify(term / x**p)
    return LeadingTerm(term, p, coeff)


class Regime(NamedTuple):
    """On ``lo <= x <= hi`` the additive term ``term`` (sympy text) is the largest term of the rhs."""

    term: str
    lo: float
    hi: float


def _regimes(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float], lo: float = 1e-6,
             hi: float = 1e15, points: int = 2001) -> list[tuple[sp.Expr, float, float]]:
    import numpy as np  # lazy: keep the command-line path light

    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    needed = sorted(s.name for s in expr.free_symbols if s != x)
    missing = [n for n in needed if n not in values]
    if missing:
        raise InputError(f"dominant regimes in {x} need values for: {', '.join(missing)}")
    if not (0 < lo < hi and math.isfinite(hi)):
        raise InputError(f"range for {x} must satisfy 0 < lo < hi < inf, got [{lo:g}, {hi:g}]")
    vals = check_values(values, set(needed))
    subs = {s: vals[s.name] for s in expr.free_symbols if s != x}
    parts = [t for t in terms(expr) if t != 0]
    funcs = [sp.lambdify(x, sp.log(sp.Abs(t.subs(subs))), modules="numpy") for t in parts]
    grid = np.geomspace(lo, hi, points)

    def logs(xs: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            rows = [np.broadcast_to(np.asarray(f(xs), dtype=float), xs.shape) for f in funcs]
        out = np.vstack(rows)
        return np.where(np.isfinite(out), out, -np.inf)

    winners = np.argmax(logs(grid), axis=0)
    out: list[tuple[sp.Expr, float, float]] = []
    start = lo
    for k in range(1, points):
        if winners[k] != winners[k - 1]:
            i, j = winners[k - 1], winners[k]
            a_, b_ = math.log(grid[k - 1]), math.log(grid[k])
            for _ in range(60):  # bisection on log x for the crossing of terms i and j
                m = 0.5 * (a_ + b_)
                vals_m = logs(np.array([math.exp(m)]))[:, 0]
                if vals_m[i] >= vals_m[j]:
                    a_ = m
                else:
                    b_ = m
            cross = math.exp(0.5 * (a_ + b_))
            out.append((parts[i], start, cross))
            start = cross
    out.append((parts[winners[-1]], start, hi))
    return out


def dominant_regimes(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float],
                     lo: float = 1e-6, hi: float = 1e15) -> list[Regime]:
    """Intervals of ``var`` in [lo, hi] where each additive term of the rhs is the largest, given ``values``
    for every other symbol; crossings are located by bisection to ~1e-12 relative accuracy."""
    return [Regime(sp.sstr(t), a_, b_) for t, a_, b_ in _regimes(obj, var, values, lo, hi)]


def _verified(f, x: sp.Symbol, target: float, candidates: list[complex]) -> list[float]:
    roots: list[float] = []
    for c in candidates:
        if not (math.isfinite(c.real) and abs(c.imag) <= 1e-9 * max(1.0, abs(c.real)) and c.real > 0):
            continue
        value = f(c.real)
        if value is None or abs(value - target) > 1e-8 * max(1.0, abs(target)):
            continue
        if all(abs(c.real - r) > 1e-9 * max(1.0, r) for r in roots):
            roots.append(c.real)
    return sorted(roots)


def solve_for(obj: ExprOrTheorem, var: str | sp.Symbol, target: float,
              values: Mapping[str, float] | None = None, lo: float = 1e-12, hi: float = 1e18) -> list[float]:
    """Positive roots of rhs(var) = target (other symbols at ``values``), each verified by substitution.

    Candidates come from sympy's ``solve`` (with the -1 branch added for every LambertW it returns, e.g.
    log T / T = eps has the two roots -W_0(-eps)/eps and -W_{-1}(-eps)/eps) and from a sign-change scan of
    rhs - target on a log grid over [lo, hi] refined by bisection.  Only real positive candidates with
    |rhs - target| <= 1e-8 max(1, |target|) are returned, in increasing order.
    """
    import numpy as np  # lazy

    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    values = dict(values or {})
    needed = sorted(s.name for s in expr.free_symbols if s != x)
    missing = [n for n in needed if n not in values]
    if missing:
        raise InputError(f"solving for {x} needs values for: {', '.join(missing)}")
    vals = check_values(values, set(needed))
    if not math.isfinite(target):
        raise InputError(f"target must be a finite number, got {target}")
    subs = {s: sp.nsimplify(vals[s.name], rational=True) for s in expr.free_symbols if s != x}
    f_expr = expr.subs(subs)
    f_mp = sp.lambdify(x, f_expr, modules="mpmath")

    def f(v: float) -> float | None:
        try:
            out = complex(f_mp(v))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return None
        return out.real if abs(out.imag) <= 1e-12 * max(1.0, abs(out.real)) else None

    candidates: list[complex] = []
    tgt = sp.nsimplify(target, rational=True)
    if sp.count_ops(f_expr) <= 80:
        try:
            sols = sp.solve(sp.Eq(f_expr, tgt), x)
        except (NotImplementedError, ValueError, TypeError):
            sols = []
        for s in sols:
            branches = [s]
            for w in s.atoms(sp.LambertW):
                if len(w.args) == 1:
                    branches.append(s.subs(w, sp.LambertW(w.args[0], -1)))
            for b in branches:
                try:
                    candidates.append(complex(b.evalf(30)))
                except (TypeError, ValueError):
                    continue
    grid = np.geomspace(lo, hi, 4001)
    g = np.array([(f(v) if f(v) is not None else np.nan) for v in grid]) - target
    for k in np.nonzero(np.sign(g[:-1]) * np.sign(g[1:]) < 0)[0]:
        a_, b_ = math.log(grid[k]), math.log(grid[k + 1])
        ga = g[k]
        for _ in range(200):
            m = 0.5 * (a_ + b_)
            fm = f(math.exp(m))
            if fm is None:
                break
            if (fm - target) * ga > 0:
                a_, ga = m, fm - target
            else:
                b_ = m
            if b_ - a_ < 1e-15:
                break
        candidates.append(complex(math.exp(0.5 * (a_ + b_))))
    zero_hits = grid[np.isfinite(g) & (g == 0)]
    candidates.extend(complex(v) for v in zero_hits)
    return _verified(f, x, target, candidates)


@dataclass(frozen=True)
class Communication:
    """Remark 2.1-style communication complexity.

    ``e_bounds``: for each communication term (a term containing the local-steps symbol), the E at which it
    equals the ``reference`` term (the leading term in the iteration symbol); ``e_max`` is the binding one for
    large T and ``rounds`` = T / e_max, with its exponents in T and in the clients symbol."""

    reference: sp.Expr
    e_bounds: tuple[sp.Expr, ...]
    e_max: sp.Expr
    rounds: sp.Expr
    rounds_exponents: dict[str, sp.Expr]


def communication(obj: ExprOrTheorem, local_steps: str = "E", iterations: str = "T",
                  clients: str | None = "K") -> Communication:
    """The largest local-steps value keeping each communication term below the leading term in the iteration
    count, and the resulting number of rounds (seed 000, Remark 2.1: E_max = sqrt(sigma^2 mu T/(L K
    (H + Lam rho)^2)) and T/E_max = O(sqrt(T K)))."""
    expr = _rhs(obj)
    e = symbol(obj, local_steps)
    t_ = symbol(obj, iterations)
    ref = leading_term(expr, t_).term
    bounds_ = []
    for term in terms(expr):
        if e not in term.free_symbols or term == ref:
            continue
        sols = [s for s in sp.solve(sp.Eq(term, ref), e) if s.is_positive is not False]
        bounds_.extend(sp.simplify(s) for s in sols)
    if not bounds_:
        raise InputError(f"no term of the rhs depends on {e}: no communication trade-off")
    # binding bound for large T: the smallest exponent in T
    e_max = min(bounds_, key=lambda b: float(exponent(b, t_)) if t_ in b.free_symbols else 0.0)
    rounds = sp.simplify(t_ / e_max)
    exps = {t_.name: exponent(rounds, t_)}
    if clients and clients in {s.name for s in rounds.free_symbols}:
        exps[clients] = exponent(rounds, symbol(rounds, clients))
    return Communication(ref, tuple(bounds_), e_max, rounds, exps)


def to_latex(obj: ExprOrTheorem, with_conditions: bool = True) -> str:
    """LaTeX of ``lhs <= rhs`` (``\\lesssim`` for order bounds, ``=`` for complexities) and its conditions."""
    if not isinstance(obj, Theorem):
        return sp.latex(_as_expr(obj))
    rel = {"order": r"\lesssim", "complexity": r"\le"}.get(obj.kind, r"\le")
    lhs = r"\mathrm{" + obj.lhs.replace("_", r"\_") + "}"
    out = f"{lhs} {rel} {sp.latex(obj.rhs)}"
    if with_conditions and obj.conditions:
        out += r",\quad " + r",\ ".join(sp.latex(c) for c in obj.conditions)
    return out
