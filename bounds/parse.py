"""Safe parsing of user expressions and ``symbol=value`` assignments.

Accepted grammar (checked on the Python ``ast`` in ``"eval"`` mode by a whitelist walker that builds the sympy
expression itself; the text is never evaluated nor given to ``sympify``):

* numbers (``2``, ``0.1``, ``1e4``), the operators ``+ - * / **`` and parentheses, unary ``+``/``-``;
* the names of the allowed symbols (a theorem's own letters) and the constant ``pi``;
* the functions ``sqrt``, ``log`` (natural, or ``log(x, base)``), ``exp``, called with plain arguments.

Everything else (attribute access, other calls, subscripts, strings, lambdas, comparisons, dunder names,
keyword arguments, ...) raises :class:`fedrates.solvers.errors.InputError` with a one-line message.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Mapping, Sequence

import sympy as sp

from fedrates.bounds.quickparse import ARITY, MAX_DEPTH, MAX_EXP_ARGUMENT, MAX_NUMERIC_EXPONENT
from fedrates.bounds.quickparse import describe as _describe
from fedrates.solvers.errors import MAX_INPUT_LENGTH, InputError, shown, suggest

__all__ = ["MAX_LENGTH", "parse_expression", "parse_number", "parse_assignments", "FUNCTIONS", "shown"]

#: longest accepted input, in characters
MAX_LENGTH = MAX_INPUT_LENGTH
# the limits, the functions' arities and the names of disallowed syntax are shared with the sympy-free quick path
# (fedrates.bounds.quickparse), which must give the same messages
_SYMPY = {"sqrt": sp.sqrt, "log": sp.log, "exp": sp.exp}
FUNCTIONS = {name: (_SYMPY[name], lo, hi) for name, (lo, hi) in ARITY.items()}
_CONSTANTS = {"pi": sp.pi}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


def _is_zero(expr: sp.Expr) -> bool:
    """0 as an Integer or as a Float (``Float(0.0) == 0`` is False in sympy, and dividing by it raises)."""
    return expr == 0 or expr.is_zero is True


def _fail(text: str, why: str) -> InputError:
    return InputError(f"cannot use expression '{shown(text)}': {why}")


class _Builder:
    def __init__(self, text: str, symbols: Mapping[str, sp.Symbol]):
        self.text = text
        self.symbols = symbols

    def build(self, node: ast.AST, depth: int = 0) -> sp.Expr:
        if depth > MAX_DEPTH:
            raise _fail(self.text, "expression nested too deeply")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth + 1)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _fail(self.text, f"only numbers are allowed, not {type(value).__name__} literals")
            if isinstance(value, float) and not math.isfinite(value):
                raise _fail(self.text, "numbers must be finite")
            return sp.Integer(value) if isinstance(value, int) else sp.Float(value)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = self.build(node.operand, depth + 1)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left = self.build(node.left, depth + 1)
            right = self.build(node.right, depth + 1)
            return self._binop(_BINOPS[type(node.op)], left, right)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise _fail(self.text, f"{_describe(node)} is not allowed (numbers, + - * / **, parentheses, "
                               f"symbols and sqrt/log/exp only)")

    def _name(self, name: str) -> sp.Expr:
        if name.startswith("_"):
            raise _fail(self.text, f"name '{name}' is not allowed")
        if name in self.symbols:
            return self.symbols[name]
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in FUNCTIONS:
            raise _fail(self.text, f"function '{name}' must be called, e.g. {name}(x)")
        allowed = sorted(self.symbols)
        hint = suggest(name, allowed)
        known = f"; known symbols: {', '.join(allowed)}" if allowed else "; no symbols are allowed here"
        raise _fail(self.text, f"unknown symbol '{name}'{hint}{known}")

    def _binop(self, op: str, left: sp.Expr, right: sp.Expr) -> sp.Expr:
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            if _is_zero(right):
                raise _fail(self.text, "division by zero")
            return left / right
        if right.is_number and abs(float(right)) > MAX_NUMERIC_EXPONENT:
            raise _fail(self.text, f"exponent {right} is too large (|exponent| <= {MAX_NUMERIC_EXPONENT})")
        if _is_zero(left) and right.is_number and float(right) < 0:
            raise _fail(self.text, "division by zero")
        if left.is_number and right.is_number and not _is_zero(left):
            digits = abs(float(right)) * abs(float(sp.log(sp.Abs(left), 10).evalf(15)))
            if digits > MAX_NUMERIC_EXPONENT:
                raise _fail(self.text, "number too large")
        return left**right

    def _call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name):
            raise _fail(self.text, f"{_describe(node.func)} cannot be called (only sqrt, log, exp)")
        name = node.func.id
        if name not in FUNCTIONS:
            raise _fail(self.text, f"function '{name}' is not allowed (only sqrt, log, exp)")
        if node.keywords:
            raise _fail(self.text, f"keyword arguments are not allowed in {name}()")
        func, lo, hi = FUNCTIONS[name]
        if not lo <= len(node.args) <= hi or any(isinstance(a, ast.Starred) for a in node.args):
            raise _fail(self.text, f"{name}() takes {lo if lo == hi else f'{lo} or {hi}'} argument(s)")
        args = [self.build(a, depth + 1) for a in node.args]
        if name == "exp" and args[0].is_number and not args[0].free_symbols:
            if float(sp.re(args[0]).evalf(15)) > MAX_EXP_ARGUMENT:
                raise _fail(self.text, f"exp argument above {MAX_EXP_ARGUMENT:g} (the result would overflow)")
        return func(*args)


def _symbol_table(allowed: Iterable[str] | Mapping[str, sp.Symbol]) -> dict[str, sp.Symbol]:
    if isinstance(allowed, Mapping):
        return dict(allowed)
    return {name: sp.Symbol(name, positive=True) for name in allowed}


def parse_expression(text: str, allowed: Iterable[str] | Mapping[str, sp.Symbol] = ()) -> sp.Expr:
    """Parse ``text`` into a sympy expression over the ``allowed`` symbol names (positive symbols, or the
    given symbol objects when ``allowed`` is a name -> symbol mapping)."""
    if not isinstance(text, str):
        raise InputError(f"expected an expression as text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InputError(f"expression too long ({len(text)} characters; at most {MAX_LENGTH})")
    stripped = text.strip()
    if not stripped:
        raise InputError("empty expression")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError:
        raise _fail(text, "not a valid arithmetic expression") from None
    except (ValueError, RecursionError, MemoryError):
        raise _fail(text, "not a valid arithmetic expression") from None
    try:
        return _Builder(text, _symbol_table(allowed)).build(tree)
    except (TypeError, ZeroDivisionError, OverflowError):  # a complex exponent or base met a float comparison
        raise _fail(text, "not a finite real number") from None


def parse_number(text: str, values: Mapping[str, float] | None = None, allowed: Iterable[str] = ()) -> float:
    """Parse an arithmetic expression and evaluate it to a finite float.

    Names must be keys of ``values`` (already-known numbers) or of ``allowed`` (known names whose value is
    still missing, reported as such); e.g. ``"1e-3"``, ``"2*mu"`` with ``mu`` known.
    """
    values = dict(values or {})
    symbols = {name: sp.Symbol(name) for name in [*allowed, *values]}
    expr = parse_expression(text, symbols)
    if values:
        expr = expr.subs({symbols[k]: sp.Float(v, 30) for k, v in values.items()})
    if expr.free_symbols:
        missing = ", ".join(sorted(s.name for s in expr.free_symbols))
        raise InputError(f"expression '{shown(text)}' needs values for: {missing}")
    # exp of a huge argument would need astronomically many digits: check every exp, innermost first
    for atom in sorted(expr.atoms(sp.exp), key=sp.count_ops):
        try:
            big = float(sp.re(atom.args[0]).evalf(15)) > MAX_EXP_ARGUMENT
        except (TypeError, ValueError, OverflowError):
            big = True
        if big:
            raise InputError(f"expression '{shown(text)}' is too large (an exp argument exceeds "
                             f"{MAX_EXP_ARGUMENT:g})")
    try:
        value = complex(expr.evalf(30))
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"expression '{shown(text)}' is not a finite real number") from None
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)) or not math.isfinite(value.real):
        raise InputError(f"expression '{shown(text)}' is not a finite real number")
    return float(value.real)


def parse_assignments(items: Sequence[str] | None, allowed: Iterable[str],
                      zero_ok: Iterable[str] = ()) -> dict[str, float]:
    """Parse ``symbol=value`` items (``--set mu=0.1 L=2 T=1e4``) into numbers.

    Symbols must be in ``allowed`` and appear once; a value is an arithmetic expression of numbers and of symbols
    assigned earlier in the list (``a=4*L/mu`` after ``L`` and ``mu``).  Values must be finite and positive, or
    >= 0 for the symbols in ``zero_ok`` (indicators, round indices).
    """
    allowed = list(allowed)
    zero_ok = set(zero_ok)
    out: dict[str, float] = {}
    for item in items or ():
        if len(item) > MAX_LENGTH:
            raise InputError(f"--set item too long ({len(item)} characters; at most {MAX_LENGTH})")
        if "=" not in item:
            raise InputError(f"--set expects symbol=value, got '{shown(item)}'")
        key, _, text = item.partition("=")
        key = key.strip()
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise InputError(f"unknown symbol '{shown(key)}'{suggest(key, allowed)}; expected one of: {known}")
        if key in out:
            raise InputError(f"--set gives '{key}' twice; give each symbol once")
        value = parse_number(text, out, allowed)
        if key in zero_ok:
            if not value >= 0:
                raise InputError(f"value of '{key}' must be >= 0, got {value:g}")
        elif not value > 0:
            raise InputError(f"value of '{key}' must be positive (all symbols but indicators and round indices are "
                             f"positive), got {value:g}")
        out[key] = value
    return out
