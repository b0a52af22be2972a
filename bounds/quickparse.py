"""Arithmetic values decided without sympy: the grammar of :mod:`fedrates.bounds.parse`, evaluated exactly.

``fedrates explore`` refuses a bad ``--set``/``--target``/``--range`` value (``mu=1/0``, ``t=0-1``, ``1e308*10``,
``exp(exp(1000))``, ``__import__('os')``) before it imports sympy, with the message :func:`fedrates.bounds.parse.
parse_number` gives.  The text is parsed by :func:`ast.parse` and walked by a whitelist in the same order as the
sympy builder, with the same checks, each decided here only when its outcome is certain:

* integers and the rational operations on them are exact (:class:`fractions.Fraction`), as sympy's ``Integer`` and
  ``Rational`` are;
* everything else (float literals, ``pi``, ``sqrt``, ``log``, ``exp``, non-integer powers) is an interval
  ``[lo, hi]`` of exact rationals that contains both the real value and the value sympy computes at any precision
  of at least 53 bits: every such operation widens its result (and its operands) by a relative ``2**-44``.

A check whose outcome the interval does not settle (a zero that is not an exact ``Integer`` 0, an exponent or
``exp`` argument at its limit, a value at the edge of double range), a symbol name, or an ``exp`` that sympy might
combine with another raises :class:`Undecided`: the caller then runs the full sympy parser, unchanged.  Nothing is
evaluated by Python: only the syntax tree is read.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable
from fractions import Fraction

from fedrates.solvers.errors import MAX_INPUT_LENGTH, InputError, shown, suggest

__all__ = ["ARITY", "MAX_DEPTH", "MAX_EXP_ARGUMENT", "MAX_NUMERIC_EXPONENT", "Undecided", "Value", "describe",
           "quick_number"]

#: deepest accepted expression tree
MAX_DEPTH = 40
#: largest |exponent| of a power of two numbers (guards against 10**10**10)
MAX_NUMERIC_EXPONENT = 1000
#: largest argument of exp (exp(709.78) is the largest double)
MAX_EXP_ARGUMENT = 709.0
#: the functions of the grammar: name -> (fewest, most) arguments
ARITY = {"sqrt": (1, 1), "log": (1, 2), "exp": (1, 1)}
#: the constants of the grammar
CONSTANTS = ("pi",)
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
#: relative widening of every inexact operation (sympy's Floats carry >= 53 bits; 2**-44 leaves room for the
#: roundings of an operation's operands and of its result, and for the few-ulp error of math.exp/log/sqrt)
_EPS = Fraction(1, 2**44)
#: largest magnitude certainly below the largest double (1.7976931348623157e308) and smallest certainly above it
_FINITE = Fraction(179e306)
_INFINITE = Fraction(2) ** 1024
#: largest bit length of a numerator/denominator followed (longer: undecided)
_MAX_BITS = 40_000


class Undecided(Exception):
    """The quick path cannot decide this value with certainty: parse it with :mod:`fedrates.bounds.parse`."""


def describe(node: ast.AST) -> str:
    """How a disallowed syntax node is named in messages."""
    names = {
        ast.Attribute: "attribute access", ast.Subscript: "subscripting", ast.Lambda: "lambda",
        ast.Compare: "comparison", ast.BoolOp: "boolean operator", ast.IfExp: "conditional expression",
        ast.List: "list", ast.Tuple: "tuple", ast.Dict: "dict", ast.Set: "set", ast.JoinedStr: "f-string",
        ast.ListComp: "comprehension", ast.GeneratorExp: "generator", ast.DictComp: "comprehension",
        ast.SetComp: "comprehension", ast.Starred: "starred argument", ast.NamedExpr: "assignment",
        ast.Await: "await", ast.Slice: "slice",
    }
    if isinstance(node, ast.BinOp):
        return f"operator {type(node.op).__name__}"
    if isinstance(node, ast.UnaryOp):
        return f"operator {type(node.op).__name__}"
    return names.get(type(node), type(node).__name__)


class Value:
    """A real number known to lie in ``[lo, hi]``; ``exact`` when it is the rational ``lo == hi`` and sympy holds
    it as an ``Integer``/``Rational`` too; ``has_exp`` when an ``exp`` occurs in it (sympy may merge those)."""

    __slots__ = ("lo", "hi", "exact", "has_exp")

    def __init__(self, lo: Fraction, hi: Fraction, exact: bool = False, has_exp: bool = False):
        for end in (lo, hi):
            if end.numerator.bit_length() > _MAX_BITS or end.denominator.bit_length() > _MAX_BITS:
                raise Undecided("number too long to follow")
        self.lo, self.hi, self.exact, self.has_exp = lo, hi, exact, has_exp

    @classmethod
    def exact_value(cls, q: Fraction | int) -> Value:
        q = Fraction(q)
        return cls(q, q, True)

    def floats(self) -> tuple[float, float]:
        """Bounds on ``float(value)`` as sympy computes it (every comparison of the parser is made on floats, after
        a rounding that may make a tiny number 0 or a number near a limit equal to it): the float conversions of
        the interval widened by the conversion's own rounding; beyond double range, +-inf."""
        lo, hi = _widen(self.lo, self.hi)
        return _to_float(lo), _to_float(hi)

    def positive(self) -> bool | None:
        """``float(value) > 0`` if certain, else None."""
        lo, hi = self.floats()
        return True if lo > 0 else (False if hi <= 0 else None)

    def nonnegative(self) -> bool | None:
        """``float(value) >= 0`` if certain, else None."""
        lo, hi = self.floats()
        return True if lo >= 0 else (False if hi < 0 else None)

    def is_zero(self) -> bool | None:
        """sympy's ``expr == 0`` (structural: only an exact 0 is equal to 0) if certain, else None."""
        if self.exact:
            return self.lo == 0
        return False if (self.lo > 0 or self.hi < 0) else None

    def shown(self) -> str:
        """``f"{float(value):g}"`` of the value sympy computes, when every float the interval may round to prints
        the same; else :class:`Undecided`."""
        texts = {f"{x:g}" for x in self.floats()}
        if len(texts) != 1:
            raise Undecided("value at a printing boundary")
        return texts.pop()


def _to_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _widen(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    return (lo - abs(lo) * _EPS, hi + abs(hi) * _EPS)


def _inexact(lo: Fraction, hi: Fraction, *parts: Value) -> Value:
    lo, hi = _widen(min(lo, hi), max(lo, hi))
    return Value(lo, hi, False, any(p.has_exp for p in parts))


def _operands(*parts: Value) -> list[tuple[Fraction, Fraction]]:
    """Operand intervals, widened unless exact (an Integer meeting a Float is rounded to the Float's precision)."""
    return [(p.lo, p.hi) if p.exact else _widen(p.lo, p.hi) for p in parts]


def _log(q: Fraction) -> tuple[float, float]:
    """An interval containing ln q (q > 0), computed from the integers (no overflow)."""
    top, bottom = math.log(q.numerator), math.log(q.denominator)
    value = top - bottom
    slack = 1e-12 * max(1.0, abs(top) + abs(bottom))
    return value - slack, value + slack


def _sqrt_bounds(q: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= sqrt(q) <= hi`` (q > 0) about 2**-64 apart relatively, from integer square roots (no
    float: a subnormal or underflowing q keeps its precision)."""
    n, d = q.numerator, q.denominator
    k = max(0, (128 - (n.bit_length() - d.bit_length())) // 2 + 1)
    root = math.isqrt((n << (2 * k)) // d)  # root <= sqrt(n 4^k / d) < root + 1
    return Fraction(root, 1 << k), Fraction(root + 1, 1 << k)


def _frac(x: float) -> Fraction:
    return Fraction(x)


class _Walker:
    """The sympy builder's walk of :mod:`fedrates.bounds.parse`, on exact numbers and intervals."""

    def __init__(self, text: str, names: Iterable[str]):
        self.text = text
        self.names = set(names)

    def fail(self, why: str) -> InputError:
        return InputError(f"cannot use expression '{shown(self.text)}': {why}")

    def build(self, node: ast.AST, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            raise self.fail("expression nested too deeply")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth + 1)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.fail(f"only numbers are allowed, not {type(value).__name__} literals")
            if isinstance(value, float) and not math.isfinite(value):
                raise self.fail("numbers must be finite")
            if isinstance(value, int):
                return Value.exact_value(value)
            q = Fraction(value)
            return Value(q, q, False)  # a Float: exact here, but not equal to 0 in sympy's sense
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = self.build(node.operand, depth + 1)
            if isinstance(node.op, ast.UAdd):
                return operand
            return Value(-operand.hi, -operand.lo, operand.exact, operand.has_exp)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left = self.build(node.left, depth + 1)
            right = self.build(node.right, depth + 1)
            return self.binop(_BINOPS[type(node.op)], left, right)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        raise self.fail(f"{describe(node)} is not allowed (numbers, + - * / **, parentheses, symbols and "
                        f"sqrt/log/exp only)")

    def name(self, name: str) -> Value:
        if name.startswith("_"):
            raise self.fail(f"name '{name}' is not allowed")
        if name in self.names:
            raise Undecided("a symbol")
        if name == "pi":
            return _inexact(_frac(math.pi), _frac(math.pi))
        if name in ARITY:
            raise self.fail(f"function '{name}' must be called, e.g. {name}(x)")
        allowed = sorted(self.names)
        hint = suggest(name, allowed)
        known = f"; known symbols: {', '.join(allowed)}" if allowed else "; no symbols are allowed here"
        raise self.fail(f"unknown symbol '{name}'{hint}{known}")

    def binop(self, op: str, left: Value, right: Value) -> Value:
        if left.exact and right.exact and op in "+-*":
            a, b = left.lo, right.lo
            return Value.exact_value(a + b if op == "+" else a - b if op == "-" else a * b)
        if op in "+-*":
            (a1, a2), (b1, b2) = _operands(left, right)
            if op == "+":
                return _inexact(a1 + b1, a2 + b2, left, right)
            if op == "-":
                return _inexact(a1 - b2, a2 - b1, left, right)
            products = [a1 * b1, a1 * b2, a2 * b1, a2 * b2]
            return _inexact(min(products), max(products), left, right)
        if op == "/":
            zero = right.is_zero()
            if zero is None:
                raise Undecided("divisor near 0")
            if zero:
                raise self.fail("division by zero")
            if left.exact and right.exact:
                return Value.exact_value(left.lo / right.lo)
            (a1, a2), (b1, b2) = _operands(left, right)
            quotients = [a1 / b1, a1 / b2, a2 / b1, a2 / b2]
            return _inexact(min(quotients), max(quotients), left, right)
        return self.power(left, right)

    def power(self, left: Value, right: Value) -> Value:
        # |exponent| > MAX_NUMERIC_EXPONENT (the message prints sympy's exponent: only an exact one is known here)
        f1, f2 = right.floats()
        if f1 > MAX_NUMERIC_EXPONENT or f2 < -MAX_NUMERIC_EXPONENT:
            if not right.exact:
                raise Undecided("exponent text")
            raise self.fail(f"exponent {_rational_text(right.lo)} is too large (|exponent| <= "
                            f"{MAX_NUMERIC_EXPONENT})")
        if not (-MAX_NUMERIC_EXPONENT <= f1 and f2 <= MAX_NUMERIC_EXPONENT):
            raise Undecided("exponent at its limit")
        left_zero = left.is_zero()
        if left_zero is None:
            raise Undecided("base near 0")
        if left_zero:
            negative = right.nonnegative()
            if negative is None:
                raise Undecided("exponent sign")
            if not negative:
                raise self.fail("division by zero")
            if right.exact and right.lo == 0:
                return Value.exact_value(1)
            if right.exact and right.lo > 0:
                return Value.exact_value(0)
            raise Undecided("0 to an inexact power")
        # digits = |exponent| * |log10 |base|| > MAX_NUMERIC_EXPONENT: "number too large"
        b1, b2 = _operands(left)[0]
        if b1 <= 0 <= b2:
            raise Undecided("base near 0")
        m1, m2 = (b1, b2) if b1 > 0 else (-b2, -b1)
        l1, l2 = _log(m1)[0] / math.log(10), _log(m2)[1] / math.log(10)
        log_lo = 0.0 if l1 <= 0 <= l2 else min(abs(l1), abs(l2))
        log_hi = max(abs(l1), abs(l2))
        e1, e2 = _operands(right)[0]
        abs_lo = 0 if e1 <= 0 <= e2 else min(abs(e1), abs(e2))
        abs_hi = max(abs(e1), abs(e2))
        if float(abs_lo) * log_lo * (1 - 1e-9) > MAX_NUMERIC_EXPONENT:
            raise self.fail("number too large")
        if not float(abs_hi) * log_hi * (1 + 1e-9) <= MAX_NUMERIC_EXPONENT:
            raise Undecided("digits at their limit")
        if right.exact and right.lo.denominator == 1:
            n = int(right.lo)
            if left.exact:
                return Value.exact_value(left.lo ** n)
            ends = [b1**n, b2**n]
            return _inexact(min(ends), max(ends), left, right)
        if b1 <= 0:
            raise Undecided("negative base, fractional exponent")  # complex in sympy
        # positive base, any real exponent: exp(e ln b), bounded by 10**MAX_NUMERIC_EXPONENT (checked above)
        lb1, lb2 = _log(b1)[0], _log(b2)[1]
        ends = [float(e) * lb for e in (e1, e2) for lb in (lb1, lb2)]
        lo, hi = min(ends), max(ends)
        if hi > 700 or lo < -700:
            raise Undecided("outside double range")
        return _inexact(_frac(math.exp(lo) * (1 - 1e-12)), _frac(math.exp(hi) * (1 + 1e-12)), left, right)

    def call(self, node: ast.Call, depth: int) -> Value:
        if not isinstance(node.func, ast.Name):
            raise self.fail(f"{describe(node.func)} cannot be called (only sqrt, log, exp)")
        name = node.func.id
        if name not in ARITY:
            raise self.fail(f"function '{name}' is not allowed (only sqrt, log, exp)")
        if node.keywords:
            raise self.fail(f"keyword arguments are not allowed in {name}()")
        lo, hi = ARITY[name]
        if not lo <= len(node.args) <= hi or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(f"{name}() takes {lo if lo == hi else f'{lo} or {hi}'} argument(s)")
        args = [self.build(a, depth + 1) for a in node.args]
        x = args[0]
        if name == "exp":
            f1, f2 = x.floats()
            if f1 > MAX_EXP_ARGUMENT:
                raise self.fail(f"exp argument above {MAX_EXP_ARGUMENT:g} (the result would overflow)")
            if not f2 <= MAX_EXP_ARGUMENT:
                raise Undecided("exp argument at its limit")
            if x.exact and x.lo == 0:
                return Value.exact_value(1)
            a1, a2 = _operands(x)[0]
            if a1 < -700:
                raise Undecided("outside double range")
            out = _inexact(_frac(math.exp(float(a1)) * (1 - 1e-12)), _frac(math.exp(float(a2)) * (1 + 1e-12)), x)
            out.has_exp = True
            return out
        if name == "sqrt":
            if x.exact and x.lo >= 0:
                n, d = x.lo.numerator, x.lo.denominator
                rn, rd = math.isqrt(n), math.isqrt(d)
                if rn * rn == n and rd * rd == d:
                    return Value.exact_value(Fraction(rn, rd))
            a1, a2 = _operands(x)[0]
            if a1 <= 0:
                raise Undecided("square root near or below 0")  # complex in sympy below 0
            return _inexact(_sqrt_bounds(a1)[0], _sqrt_bounds(a2)[1], x)
        # log(x) or log(x, base)
        if x.exact and x.lo == 1 and len(args) == 1:
            return Value.exact_value(0)
        a1, a2 = _operands(x)[0]
        if a1 <= 0:
            raise Undecided("logarithm near or below 0")
        l1, l2 = _log(a1)[0], _log(a2)[1]
        if len(args) == 1:
            return _inexact(_frac(l1), _frac(l2), x)
        c1, c2 = _operands(args[1])[0]
        if c1 <= 0:
            raise Undecided("logarithm base near or below 0")
        m1, m2 = _log(c1)[0], _log(c2)[1]
        if m1 <= 0 <= m2:
            raise Undecided("logarithm base near 1")
        quotients = [p / q for p in (l1, l2) for q in (m1, m2)]
        return _inexact(_frac(min(quotients)), _frac(max(quotients)), x, args[1])


def _rational_text(q: Fraction) -> str:
    """sympy's ``str`` of an ``Integer``/``Rational``."""
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def quick_number(text: str, names: Iterable[str] = ()) -> Value:
    """The value of the arithmetic expression ``text`` as :func:`fedrates.bounds.parse.parse_number` would compute it
    with ``names`` as its symbols (their values are never needed: a name of ``names`` in the text is
    :class:`Undecided`); raises the :class:`~fedrates.solvers.errors.InputError` that ``parse_number`` raises, or
    :class:`Undecided` when that cannot be known without sympy."""
    if not isinstance(text, str):
        raise Undecided("not text")
    if len(text) > MAX_INPUT_LENGTH:
        raise InputError(f"expression too long ({len(text)} characters; at most {MAX_INPUT_LENGTH})")
    stripped = text.strip()
    if not stripped:
        raise InputError("empty expression")
    walker = _Walker(text, names)
    try:
        tree = ast.parse(stripped, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise walker.fail("not a valid arithmetic expression") from None
    try:
        value = walker.build(tree)
    except (OverflowError, ZeroDivisionError, RecursionError, MemoryError):
        raise Undecided("arithmetic beyond the quick path") from None
    if value.has_exp:
        raise Undecided("sympy may merge exponentials")  # and then check the merged argument
    if value.hi < -_INFINITE or value.lo > _INFINITE:
        raise InputError(f"expression '{shown(text)}' is not a finite real number")
    if not (-_FINITE <= value.lo and value.hi <= _FINITE):
        raise Undecided("at the edge of double range")
    return value
