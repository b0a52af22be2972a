"""Symbolic and numeric analysis of a theorem's right-hand side.

* :func:`exponent` -- the power p with rhs ~ x^p as x -> oo (or x -> 0+): p = lim log(rhs)/log(x), computed
  by sympy on the rhs with the other symbols at generic values, cross-checked by a numeric log-log slope.
  Logarithmic factors do not change p (log T/T has exponent -1); :func:`exponent_details` says when one is
  present.
* :func:`leading_term` -- the additive term(s) carrying that power, and its coefficient.
* :func:`dominant_regimes` -- for given values of the other symbols, the intervals of x on which each additive
  term of the rhs is the largest.
* :func:`solve_for` -- the positive roots of rhs(x) = target in a range, each verified by substitution (a bounded
  numeric search: log-grid scan, ``brentq`` on every sign change, refinement of near-tangent minima).
* :func:`communication` -- Remark 2.1 of Bao et al.: the largest number of local steps E keeping the
  communication terms below the term that dominates as T -> oo, and the resulting number of rounds T/E.
* :func:`to_latex` -- the statement ``lhs <= rhs`` (or ``\\lesssim``) with its conditions.

All functions take a :class:`~bounds.theorem.Theorem` or a sympy expression.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import sympy as sp

from fedrates.bounds.theorem import Theorem, check_values
from fedrates.solvers.errors import InputError, unknown_name

__all__ = [
    "Exponent", "LeadingTerm", "Regime", "Communication", "terms", "exponent", "exponent_details",
    "leading_term", "dominant_regimes", "solve_for", "solve_details", "Solution", "communication", "to_latex", "symbol",
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
    """On ``lo <= x <= hi`` the additive term ``term`` (sympy text) is the largest term of the rhs (in absolute
    value).  ``conditions_fail`` lists ``(condition, lo, hi)`` for each sub-interval on which a condition of the
    theorem is violated (empty when the conditions hold on the whole interval, or cannot be evaluated)."""

    term: str
    lo: float
    hi: float
    conditions_fail: tuple[tuple[str, float, float], ...] = ()


def _check_range(x: sp.Symbol, lo: float, hi: float) -> None:
    if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float))):
        raise InputError(f"range for {x} must be two numbers")
    if not (math.isfinite(lo) and math.isfinite(hi)) or not 0 < lo < hi:
        raise InputError(f"range for {x} must satisfy 0 < lo < hi < inf, got [{lo:g}, {hi:g}]")


def _env_values(obj: ExprOrTheorem, expr: sp.Expr, x: sp.Symbol, values: Mapping[str, float], what: str,
                extra: set[str] = frozenset()) -> dict[str, float]:
    needed = sorted(s.name for s in expr.free_symbols if s != x)
    missing = [n for n in needed if n not in values]
    if missing:
        raise InputError(f"{what} need values for: {', '.join(missing)}")
    zero_ok = obj.zero_allowed if isinstance(obj, Theorem) else frozenset()
    names = (set(needed) | set(extra)) & set(values)
    return check_values(values, names, zero_ok=zero_ok)


def _condition_masks(obj: ExprOrTheorem, x: sp.Symbol, env: Mapping[str, float]):
    """Compiled conditions of a theorem whose symbols (other than x) all have values: (text, fn(xs) -> holds)."""
    from fedrates.bounds._logeval import compile_value
    from fedrates.bounds.theorem import condition_text

    if not isinstance(obj, Theorem):
        return []
    out = []
    for cond in obj.conditions:
        if not isinstance(cond, sp.core.relational.Relational):
            continue
        names = {s.name for s in cond.free_symbols if s != x}
        if not names <= set(env):
            continue
        left, right = compile_value(cond.lhs), compile_value(cond.rhs)
        op = cond.rel_op

        def holds(xs, left=left, right=right, op=op):
            import numpy as np

            e = {**env, x.name: xs}
            with np.errstate(all="ignore"):
                lv = np.broadcast_to(np.asarray(left(e), dtype=float), np.shape(xs))
                rv = np.broadcast_to(np.asarray(right(e), dtype=float), np.shape(xs))
                tol = 1e-12 * np.maximum(np.abs(lv), np.abs(rv))
                table = {">=": lv >= rv - tol, "<=": lv <= rv + tol, ">": lv > rv, "<": lv < rv,
                         "==": np.abs(lv - rv) <= tol, "!=": np.abs(lv - rv) > tol}
            return table[op] | np.isnan(lv) | np.isnan(rv)  # an undefined side is not reported as failing
        out.append((condition_text(cond), holds))
    return out


def _segments(states, grid, states_at) -> list[tuple[object, float, float]]:
    """Maximal runs of equal ``states`` on ``grid``; each boundary is refined on log x by evaluating
    ``states_at`` on 32 points of the bracket at a time (vectorized; ~1e-13 relative accuracy in 8 rounds)."""
    import numpy as np

    out = []
    start = float(grid[0])
    for k in range(1, len(grid)):
        if states[k] != states[k - 1]:
            a_, b_ = math.log(grid[k - 1]), math.log(grid[k])
            left = states[k - 1]
            for _ in range(10):
                us = np.linspace(a_, b_, 34)[1:-1]
                st = states_at(np.exp(us))
                j = next((i for i, v in enumerate(st) if v != left), None)
                if j is None:
                    a_ = float(us[-1])
                else:
                    a_, b_ = (float(us[j - 1]) if j > 0 else a_), float(us[j])
                if b_ - a_ < 1e-13 * max(1.0, abs(a_)):
                    break
            cross = math.exp(0.5 * (a_ + b_))
            out.append((left, start, cross))
            start = cross
    out.append((states[-1], start, float(grid[-1])))
    return out


def _regime_data(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float], lo: float, hi: float,
                 points: int = 2001):
    import numpy as np  # lazy: keep the command-line path light

    from fedrates.bounds._logeval import compile_logabs

    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    env = _env_values(obj, expr, x, values, f"dominant regimes in {x}",
                      extra={s.name for s in getattr(obj, "free_symbols", set())})
    _check_range(x, lo, hi)
    parts = [t for t in terms(expr) if t != 0]
    funcs = [compile_logabs(t) for t in parts]
    conds = _condition_masks(obj, x, env)

    def logs(xs: np.ndarray) -> np.ndarray:
        e = {**env, x.name: xs}
        rows = [np.broadcast_to(np.asarray(f(e), dtype=float), xs.shape) for f in funcs]
        return np.vstack(rows)

    def winners(xs: np.ndarray) -> np.ndarray:
        """Index of the largest |term| (a term at +inf, e.g. 1/log(1), is largest); -1 where every term is 0,
        -2 where a term is undefined (not real), which makes the rhs undefined there."""
        vals = logs(xs)
        undefined = np.any(np.isnan(vals), axis=0)
        vals = np.where(np.isnan(vals), -np.inf, vals)
        win = np.argmax(vals, axis=0)
        none = np.all(np.isneginf(vals), axis=0)
        return np.where(undefined, -2, np.where(none, -1, win))

    grid = np.geomspace(lo, hi, points)
    return parts, x, winners, conds, grid


def _regimes(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float], lo: float = 1e-6,
             hi: float = 1e15, points: int = 2001) -> list[tuple[sp.Expr, float, float]]:
    """(term, lo, hi) runs of the dominant term (compared in log space, so overflowing terms stay largest)."""
    return [(r[0], r[1], r[2]) for r in _regimes_full(obj, var, values, lo, hi, points)]


def _regimes_full(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float], lo: float = 1e-6,
                  hi: float = 1e15, points: int = 2001):
    import numpy as np

    parts, x, winners, conds, grid = _regime_data(obj, var, values, lo, hi, points)
    win = winners(grid)
    runs = _segments([int(w) for w in win], grid, lambda xs: [int(w) for w in winners(xs)])
    fails: list[tuple[str, float, float]] = []
    for text, holds in conds:
        mask = holds(grid)
        if bool(np.all(mask)):
            continue
        for ok, a_, b_ in _segments([bool(m) for m in mask], grid, lambda xs, h=holds: [bool(m) for m in h(xs)]):
            if not ok:
                fails.append((text, a_, b_))
    out = []
    for w, a_, b_ in runs:
        term = parts[w] if w >= 0 else sp.Symbol("undefined" if w == -2 else "zero")
        inside = tuple((t, max(a_, fa), min(b_, fb)) for t, fa, fb in fails if fa < b_ and fb > a_)
        out.append((term, a_, b_, inside))
    return out


def dominant_regimes(obj: ExprOrTheorem, var: str | sp.Symbol, values: Mapping[str, float],
                     lo: float = 1e-6, hi: float = 1e15) -> list[Regime]:
    """Intervals of ``var`` in [lo, hi] where each additive term of the rhs is the largest in absolute value,
    given ``values`` for every other symbol.  Terms are compared through ``log|term|`` assembled without
    overflow (:mod:`fedrates.bounds._logeval`), so a term that overflows float64 is still the largest;
    crossings are located by bisection on log x to ~1e-13 relative accuracy.  Each regime also lists the
    sub-intervals on which a condition of the theorem fails."""
    return [Regime(sp.sstr(t), a_, b_, f) for t, a_, b_, f in _regimes_full(obj, var, values, lo, hi)]


class Solution(NamedTuple):
    """Roots of rhs = target in [lo, hi] and how complete the search was: ``undefined`` is the fraction of the
    scan grid where the rhs could not be evaluated (not real, 0/0, ...); when it is positive and no root was
    found the answer is inconclusive rather than "no root"."""

    roots: list[float]
    lo: float
    hi: float
    undefined: float
    #: intervals where rhs = target at every scan point (the rhs does not change at double precision there)
    flat: tuple[tuple[float, float], ...] = ()


#: relative accuracy demanded of a root when it is substituted back at 30 digits: |rhs(r) - target| <= tol *
#: max(|target|, 1e-12 sum |terms|)
ROOT_TOLERANCE = 1e-8
#: scan points per decade of [lo, hi] (at least 400 in total, at most 8001)
_SCAN_PER_DECADE = 60
#: time limit of the (optional) exact polynomial solve, seconds
SYMBOLIC_SECONDS = 0.3


def _poly_candidates(expr: sp.Expr, others: Mapping[sp.Symbol, float], x: sp.Symbol,
                     target: float) -> list[complex]:
    """Roots of rhs = target when rhs is a rational function of x of small degree (numpy's companion-matrix
    eigenvalues of its numerator; cheap and bounded), computed under a time limit; [] otherwise.  The other
    symbols are substituted as floats (exact rationals would make sympy take roots of huge integers)."""
    import numpy as np

    if sp.count_ops(expr) > 60:
        return []
    try:
        with _time_limit(SYMBOLIC_SECONDS):
            f_expr = expr.subs({s: sp.Float(v, 20) for s, v in others.items()})
            num, den = sp.fraction(sp.together(f_expr - sp.Float(target, 20)))
            poly = sp.Poly(sp.expand(num), x)
            if poly.degree() < 1 or poly.degree() > 12:
                return []
            coeffs = [complex(c) for c in poly.all_coeffs()]
    except (_Timeout, sp.PolynomialError, TypeError, ValueError, OverflowError):
        return []
    return [complex(r) for r in np.roots(coeffs)]


@lru_cache(maxsize=512)
def _is_rational(expr: sp.Expr, x: sp.Symbol) -> bool:
    return bool(expr.is_rational_function(x))


@lru_cache(maxsize=512)
def _nonnegative(expr: sp.Expr) -> bool:
    return bool(expr.is_nonnegative)


@lru_cache(maxsize=512)
def _term_functions(expr: sp.Expr) -> tuple[tuple[sp.Symbol, ...], tuple]:
    """mpmath functions of the additive terms of ``expr`` over its sorted symbols (for verification)."""
    parts = [t for t in terms(expr) if t != 0]
    symbols = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return symbols, tuple(sp.lambdify(symbols, t, modules="mpmath") for t in parts)


class _Timeout(Exception):
    pass


class _time_limit:
    """Raise :class:`_Timeout` after ``seconds`` (SIGALRM, main thread on POSIX); no limit can be set elsewhere,
    so the guarded work is skipped instead."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._old = None

    def __enter__(self):
        import signal
        import threading

        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            raise _Timeout("no timer available")

        def handler(signum, frame):
            raise _Timeout("time limit")

        self._old = signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old if self._old is not None else signal.SIG_DFL)
        return False


def solve_details(obj: ExprOrTheorem, var: str | sp.Symbol, target: float,
                  values: Mapping[str, float] | None = None, lo: float = 1e-12, hi: float = 1e18) -> Solution:
    """Roots of rhs(var) = target in [lo, hi] (other symbols at ``values``), each verified by substitution.

    Numeric and bounded: rhs - target is scanned on a log grid over [lo, hi] (overflow-free: where the rhs is
    positive the comparison is log rhs - log target); every sign change is refined by ``scipy.optimize.brentq``
    on log x, every local minimum of |rhs - target| that does not change sign is refined by a bounded scalar
    minimisation (two roots closer than the grid spacing, or a tangent root).  A rational rhs of small degree
    adds the roots of its numerator polynomial, computed under a time limit.  A candidate is kept only when it
    lies in [lo, hi] and, after polishing at 30 significant digits (secant on the exact terms),
    |rhs(r) - target| <= 1e-8 max(|target|, 1e-12 sum |terms|).  Where rhs - target is exactly 0 on three or
    more consecutive scan points the interval is reported as ``flat`` (the rhs does not change there).
    """
    import numpy as np

    from fedrates.bounds._logeval import brent, compile_logabs, compile_value, golden_min

    expr = _rhs(obj)
    x = var if isinstance(var, sp.Symbol) else symbol(obj, var)
    env = _env_values(obj, expr, x, dict(values or {}), f"solving for {x}")
    if not isinstance(target, (int, float)) or isinstance(target, bool) or not math.isfinite(target):
        raise InputError(f"target must be a finite number, got {target!r}")
    _check_range(x, lo, hi)
    value_fn = compile_value(expr)
    log_fn = compile_logabs(expr)
    positive_rhs = _nonnegative(expr)
    log_target = math.log(target) if target > 0 else None

    def g(xs: np.ndarray) -> np.ndarray:
        e = {**env, x.name: xs}
        v = np.broadcast_to(np.asarray(value_fn(e), dtype=float), np.shape(xs))
        with np.errstate(all="ignore"):
            out = v - target
            if log_target is not None:
                la = np.broadcast_to(np.asarray(log_fn(e), dtype=float), np.shape(xs))
                use_log = (v > 0) | (positive_rhs & ~np.isfinite(v) & ~np.isnan(la))
                out = np.where(use_log & ~np.isnan(la), la - log_target, out)
        return out

    def g1(u: float) -> float:
        return float(g(np.array([math.exp(u)]))[0])

    decades = math.log10(hi / lo)
    points = int(min(8001, max(401, _SCAN_PER_DECADE * decades)))
    us = np.linspace(math.log(lo), math.log(hi), points)
    us[0], us[-1] = math.log(lo), math.log(hi)
    grid = np.exp(us)
    grid[0], grid[-1] = lo, hi
    gv = g(grid)
    finite = ~np.isnan(gv)
    undefined = float(np.mean(~finite))
    # exact zeros: isolated ones are candidates, runs of 3 or more scan points are flat intervals
    candidates: list[float] = []
    flat: list[tuple[float, float]] = []
    zero = finite & (gv == 0)
    k = 0
    while k < points:
        if zero[k]:
            j = k
            while j + 1 < points and zero[j + 1]:
                j += 1
            if j - k >= 2:
                flat.append((float(grid[k]), float(grid[j])))
            else:
                candidates.extend(float(v) for v in grid[k:j + 1])
            k = j + 1
        else:
            k += 1
    sign = np.sign(gv)
    changes = np.nonzero(finite[:-1] & finite[1:] & (sign[:-1] * sign[1:] < 0))[0]
    for k in changes[:200]:
        a_, b_ = float(us[k]), float(us[k + 1])
        if not (math.isfinite(gv[k]) and math.isfinite(gv[k + 1])):
            # an infinite end (pole or overflow): bisect on the sign first
            for _ in range(200):
                m = 0.5 * (a_ + b_)
                gm = g1(m)
                if math.isnan(gm):
                    break
                if np.sign(gm) == np.sign(gv[k]):
                    a_ = m
                else:
                    b_ = m
                if math.isfinite(g1(a_)) and math.isfinite(g1(b_)):
                    break
        try:
            u = brent(g1, a_, b_)
        except ValueError:
            u = 0.5 * (a_ + b_)
        candidates.append(math.exp(u))
    absg = np.abs(gv)
    interior = np.arange(1, points - 1)
    minima = interior[finite[interior - 1] & finite[interior] & finite[interior + 1]
                      & (absg[interior] < absg[interior - 1]) & (absg[interior] <= absg[interior + 1])
                      & (sign[interior - 1] == sign[interior]) & (sign[interior] == sign[interior + 1])]
    # refine a minimum only when the parabola through its three grid values reaches at least halfway to zero
    # (a dip that may cross zero between grid points, or touch it)
    ga, gb, gc = absg[minima - 1], absg[minima], absg[minima + 1]
    curv = ga - 2 * gb + gc
    with np.errstate(all="ignore"):
        vertex = np.where(curv > 0, gb - (gc - ga) ** 2 / (8 * curv), gb)
    for k in minima[vertex <= 0.5 * gb][:50]:
        s = float(sign[k]) or 1.0
        a_, b_ = float(us[k - 1]), float(us[k + 1])
        xm, fm = golden_min(lambda u, s=s: s * g1(u), a_, b_)
        if not math.isfinite(fm):
            continue
        if fm < 0:  # two sign changes between grid points
            for left, right in ((a_, xm), (xm, b_)):
                try:
                    candidates.append(math.exp(brent(g1, left, right)))
                except ValueError:
                    pass
        else:
            candidates.append(math.exp(xm))  # tangent root, kept only if it verifies
    if undefined < 1.0 and _is_rational(expr, x):
        others = {s: env[s.name] for s in expr.free_symbols if s != x}
        candidates.extend(c.real for c in _poly_candidates(expr, others, x, target)
                          if abs(c.imag) <= 1e-9 * max(1.0, abs(c.real)))
    inside = [c for c in candidates if lo <= c <= hi and not any(a_ <= c <= b_ for a_, b_ in flat)]
    roots = _verified_roots(obj, expr, x, env, target, inside)
    return Solution(roots, lo, hi, undefined, tuple(flat))


def _verified_roots(obj, expr, x, env, target, candidates) -> list[float]:
    """Candidates that satisfy rhs = target when substituted back at 30 significant digits."""
    import mpmath

    if not candidates:
        return []
    symbols, fns = _term_functions(expr)
    good: list[tuple[float, float]] = []
    fixed = [mpmath.mpf(env[s.name]) if s != x else None for s in symbols]
    index = [i for i, s in enumerate(symbols) if s == x][0]

    def terms_at(v):
        args = list(fixed)
        args[index] = v
        return [fn(*args) for fn in fns]

    def polish(c: float) -> float:
        """Newton-secant at 30 digits from the double-precision root: rhs terms that cancel in float64 are
        exact here, so the root is located by the equation itself, not by rounding noise."""
        try:
            r = mpmath.findroot(lambda v: mpmath.fsum(terms_at(v)) - target, mpmath.mpf(c), solver="secant",
                                maxsteps=40)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return c
        if isinstance(r, mpmath.mpc) or not (0 < r and abs(r - c) <= 1e-3 * c):
            return c
        return float(r)

    with mpmath.workdps(30):
        for c in sorted(set(candidates)):
            if not (math.isfinite(c) and c > 0):
                continue
            c = polish(c)
            try:
                exact = terms_at(mpmath.mpf(c))
                total = complex(mpmath.fsum(exact))  # summed at 30 digits: terms may cancel in float64
                scale = float(mpmath.fsum(abs(v) for v in exact))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
            if not math.isfinite(abs(total)) or abs(total.imag) > 1e-12 * max(1.0, abs(total.real)):
                continue
            # relative to the target; the sum of |terms| only sets a floor far below double precision
            allowed = ROOT_TOLERANCE * max(abs(target), 1e-12 * scale)
            if abs(total.real - target) <= allowed:
                good.append((c, abs(total.real - target) / max(allowed, 1e-300)))
        good.sort()
    # candidates closer than 1e-7 (relative) are one root (a tangent root is only located to ~sqrt(eps)):
    # keep the one with the smallest residual
    roots: list[float] = []
    best: list[float] = []
    for c, residual in good:
        if roots and c - roots[-1] <= 1e-7 * roots[-1]:
            if residual < best[-1]:
                roots[-1], best[-1] = c, residual
            continue
        roots.append(c)
        best.append(residual)
    return roots


def solve_for(obj: ExprOrTheorem, var: str | sp.Symbol, target: float,
              values: Mapping[str, float] | None = None, lo: float = 1e-12, hi: float = 1e18) -> list[float]:
    """Positive roots of rhs(var) = target in [lo, hi], in increasing order, each verified by substitution
    (see :func:`solve_details`; bounded in time and memory for every catalogued theorem)."""
    return solve_details(obj, var, target, values, lo, hi).roots


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
    count, and the resulting number of rounds (Bao et al., Remark 2.1: E_max = sqrt(sigma^2 mu T/(L K
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
