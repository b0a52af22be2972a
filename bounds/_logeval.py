"""Overflow-free numeric evaluation of sympy expressions: ``log|expr|`` and signed values on numpy arrays.

The analysis of a right-hand side compares terms such as ``B mu a^3 / T^3`` and ``sigma^2 / (K T mu)`` over ranges
like ``T in [1e-300, 1e300]``, where the terms themselves overflow or underflow float64.  Comparing their logarithms
never does: for positive structure the logarithm is assembled from the logarithms of the pieces,

* ``log|c * u * v| = log|c| + log|u| + log|v|`` (products),
* ``log|b^e| = e log|b|`` (real powers), ``log|exp(a)| = a``,
* ``log(u + v) = logsumexp(log u, log v)`` (sums of non-negative terms),
* ``log|log u| = log|L|`` with ``L = log u`` computed the same way,

and only pieces of another shape (sums with terms of both signs, other functions) are evaluated directly
(``numpy`` through ``lambdify``) and then logged.  Symbols evaluate to the arrays or scalars given in ``env``; a
symbol at 0 gives ``log 0 = -inf``.  NaN marks a point where the expression is undefined (log of a negative
number, 0/0, ...).

Everything is compiled once into numpy closures (no text is evaluated); the closures run with floating-point
warnings silenced (the caller gets ``inf``/``nan`` and decides).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

import numpy as np
import sympy as sp

__all__ = ["compile_logabs", "compile_value", "brent", "golden_min", "Env"]

Env = Mapping[str, "np.ndarray | float"]
Fn = Callable[[Env], np.ndarray]


def _names(expr: sp.Expr) -> list[str]:
    return sorted(s.name for s in expr.free_symbols)


def compile_value(expr: sp.Expr) -> Fn:
    """``env -> value of expr`` (float64, may overflow to inf; NaN where undefined or complex)."""
    return _quiet(_value(expr))


def compile_logabs(expr: sp.Expr) -> Fn:
    """``env -> log|expr|`` computed without overflow for products, powers, exponentials, logarithms and sums of
    non-negative terms (``-inf`` where expr = 0, NaN where undefined)."""
    return _quiet(_logabs(expr))


def _quiet(fn: Fn) -> Fn:
    def run(env: Env) -> np.ndarray:
        with np.errstate(all="ignore"):
            return fn(env)
    return run


def _as_expr(expr: object) -> sp.Basic:
    """A sympy object as is, a Python number as a sympy number (never text: nothing here parses strings)."""
    if isinstance(expr, sp.Basic):
        return expr
    if isinstance(expr, bool | int):
        return sp.Integer(int(expr))
    if isinstance(expr, float):
        return sp.Float(expr)
    raise TypeError(f"expected a sympy expression or a number, got {type(expr).__name__}")


@lru_cache(maxsize=2048)
def _value(expr: sp.Expr) -> Fn:
    expr = _as_expr(expr)
    if expr.has(sp.zoo, sp.nan):
        return lambda env: np.float64(np.nan)
    if expr.is_Number:
        value = np.float64(float(expr)) if expr.is_finite else (np.float64(np.inf) if expr == sp.oo
                                                                else np.float64(-np.inf))
        return lambda env: value
    names = _names(expr)
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    fn = sp.lambdify(symbols, expr, modules=[_numpy_namespace(), np], docstring_limit=0)

    def run(env: Env) -> np.ndarray:
        out = fn(*(env[n] for n in names))
        out = np.asarray(out)
        if np.iscomplexobj(out):
            real = np.real(out)
            bad = np.abs(np.imag(out)) > 1e-12 * np.maximum(1.0, np.abs(real))
            out = np.where(bad, np.nan, real)
        return out.astype(float)

    return run


def _numpy_namespace() -> dict[str, object]:
    """The names ``lambdify``'s numpy printer emits besides ``numpy.<function>``, on top of the module's own
    namespace.  Passing the module instead of the string ``"numpy"`` gives the same printer and the same code, but
    skips sympy's ``from numpy import *`` (which loads numpy's lazy submodules, f2py and the build configuration:
    about 0.1 s of every ``explore --solve``/``--dominant``); the names lost that way (linear algebra, submodules)
    never occur in a scalar bound."""
    return {"numpy": np, "I": 1j, "Abs": abs, "Heaviside": np.heaviside}


def _nonnegative(expr: sp.Expr) -> bool:
    return bool(expr.is_nonnegative)


@lru_cache(maxsize=2048)
def _logabs(expr: sp.Expr) -> Fn:
    expr = _as_expr(expr)
    if expr.has(sp.zoo, sp.nan):
        return lambda env: np.float64(np.nan)
    if expr.is_Number:
        if expr == 0:
            return lambda env: np.float64(-np.inf)
        if not expr.is_finite:
            return lambda env: np.float64(np.inf)
        value = np.float64(float(sp.log(sp.Abs(expr)).evalf(20)))
        return lambda env: value
    if expr.is_Symbol:
        name = expr.name

        def sym(env: Env) -> np.ndarray:
            return np.log(np.abs(np.asarray(env[name], dtype=float)))
        return sym
    if isinstance(expr, sp.Mul):
        parts = [_logabs(a) for a in expr.args]

        def mul(env: Env) -> np.ndarray:
            vals = [p(env) for p in parts]
            total = vals[0]
            for v in vals[1:]:
                total = total + v
            # 0 * inf is undefined, not a number: -inf + inf gives NaN, which is what we want
            return total
        return mul
    if isinstance(expr, sp.Pow) and (expr.exp.is_real or expr.exp.is_number):
        base = _logabs(expr.base)
        exponent = _value(expr.exp)
        integer_exp = bool(expr.exp.is_integer)
        base_ok = integer_exp or _nonnegative(expr.base)
        base_value = None if base_ok else _value(expr.base)

        def power(env: Env) -> np.ndarray:
            lb, e = base(env), exponent(env)
            out = e * lb
            # 0^0 = 1 and (anything)^0 = 1; a negative base with a fractional exponent is not real
            out = np.where(np.asarray(e) == 0, 0.0, out)
            if base_value is not None:
                bv = base_value(env)
                # a negative base is fine for an integral exponent value (E = 2.0), not otherwise
                e_arr = np.asarray(e, dtype=float)
                out = np.where((np.asarray(bv) < 0) & (e_arr != np.round(e_arr)), np.nan, out)
            return out
        return power
    if isinstance(expr, sp.exp):
        inner = _value(expr.args[0])
        return lambda env: np.asarray(inner(env), dtype=float)
    if isinstance(expr, sp.log) and len(expr.args) == 1:
        arg = expr.args[0]
        inner_log = _logabs(arg)
        arg_value = None if _nonnegative(arg) else _value(arg)

        def logarithm(env: Env) -> np.ndarray:
            big_l = inner_log(env)  # log|arg| = log(arg) for arg > 0
            out = np.log(np.abs(big_l))
            if arg_value is not None:
                out = np.where(np.asarray(arg_value(env)) < 0, np.nan, out)
            return out
        return logarithm
    if isinstance(expr, sp.Add) and all(_nonnegative(a) for a in expr.args):
        parts = [_logabs(a) for a in expr.args]

        def add(env: Env) -> np.ndarray:
            vals = np.broadcast_arrays(*[np.asarray(p(env), dtype=float) for p in parts])
            stack = np.stack(vals)
            top = np.max(stack, axis=0)
            safe = np.where(np.isfinite(top), top, 0.0)
            out = safe + np.log(np.sum(np.exp(stack - safe), axis=0))
            out = np.where(np.isposinf(top), np.inf, out)
            out = np.where(np.isneginf(top), -np.inf, out)
            return np.where(np.any(np.isnan(stack), axis=0), np.nan, out)
        return add
    value = _value(expr)

    def generic(env: Env) -> np.ndarray:
        return np.log(np.abs(value(env)))
    return generic


def brent(f: Callable[[float], float], a: float, b: float, xtol: float = 1e-15, rtol: float = 8.9e-16,
          maxiter: int = 200) -> float:
    """A root of ``f`` in [a, b] where f(a) and f(b) have opposite signs: Brent's method (inverse quadratic
    interpolation, secant and bisection; R. P. Brent, *Algorithms for Minimization without Derivatives*, 1973,
    ch. 4), the algorithm of ``scipy.optimize.brentq`` without importing scipy on the command-line path.
    Raises ValueError when the signs do not differ."""
    fa, fb = f(a), f(b)
    if fa == 0:
        return a
    if fb == 0:
        return b
    if fa * fb > 0 or fa != fa or fb != fb:
        raise ValueError("f(a) and f(b) must have opposite signs")
    c, fc = a, fa
    d = e = b - a
    for _ in range(maxiter):
        if fb * fc > 0:
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 2 * rtol * abs(b) + 0.5 * xtol
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s_ = fb / fa
            if a == c:
                p, q = 2 * m * s_, 1 - s_
            else:
                q_, r = fa / fc, fb / fc
                p = s_ * (2 * m * q_ * (q_ - r) - (b - a) * (r - 1))
                q = (q_ - 1) * (r - 1) * (s_ - 1)
            if p > 0:
                q = -q
            p = abs(p)
            if 2 * p < min(3 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b = b + d if abs(d) > tol else b + (tol if m > 0 else -tol)
        fb = f(b)
        if fb != fb:  # undefined inside the bracket
            raise ValueError("f is undefined inside the bracket")
    return b


def golden_min(f: Callable[[float], float], a: float, b: float, iters: int = 60) -> tuple[float, float]:
    """(x, f(x)) at a minimum of ``f`` on [a, b] by golden-section search (``iters`` shrinkings by 0.618)."""
    inv = (5 ** 0.5 - 1) / 2
    c, d = b - inv * (b - a), a + inv * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - inv * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + inv * (b - a)
            fd = f(d)
        if b - a <= 1e-14 * max(1.0, abs(a)):
            break
    return (c, fc) if fc <= fd else (d, fd)
