"""The :class:`Theorem` record: a paper's result as data.

A theorem is a sympy right-hand side plus the metadata needed to test it: what is measured (``lhs``), how
the inequality must be read (``kind`` and ``probability``), the conditions under which it is proved, the map
from the paper's letters to fedrates' vocabulary, and notes recording every error found in the paper with its
resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Literal

import sympy as sp

from fedrates.errata import Erratum
from fedrates.solvers.errors import InputError

__all__ = ["ConditionResult", "Note", "Theorem", "KINDS", "PROBABILITIES", "check_values"]

Kind = Literal["explicit", "order", "contraction", "complexity"]
Probability = Literal["deterministic", "expectation", "high_probability"]
KINDS: tuple[str, ...] = ("explicit", "order", "contraction", "complexity")
PROBABILITIES: tuple[str, ...] = ("deterministic", "expectation", "high_probability")


@dataclass(frozen=True)
class Note:
    """A remark on the paper's statement.

    ``kind`` is ``"erratum"`` (the paper is wrong; ``resolution`` says what fedrates uses instead and why, and
    ``erratum`` — required — gives the erratum's kind, location, what is true and the evidence, see
    :mod:`fedrates.errata`), ``"typo"`` (an obvious misprint), or ``"clarification"`` (an ambiguity and how
    it is read).
    """

    text: str
    resolution: str = ""
    kind: Literal["erratum", "typo", "clarification"] = "clarification"
    erratum: Erratum | None = None

    def __post_init__(self) -> None:
        if self.kind == "erratum" and not isinstance(self.erratum, Erratum):
            raise ValueError(f"an erratum note needs an Erratum with its kind: {self.text[:60]!r}")
        if self.kind != "erratum" and self.erratum is not None:
            raise ValueError(f"a {self.kind} note carries no Erratum: {self.text[:60]!r}")


@dataclass(frozen=True)
class ConditionResult:
    """The status of one condition of a theorem at given values.

    ``holds`` is ``True``/``False``, or ``None`` when a symbol of the condition has no value (``missing``
    names them).  ``lhs_value``/``rhs_value`` are the two sides evaluated (``None`` when missing).
    """

    text: str
    holds: bool | None
    missing: tuple[str, ...] = ()
    lhs_value: float | None = None
    rhs_value: float | None = None

    def as_dict(self) -> dict[str, object]:
        return {"condition": self.text, "holds": self.holds, "missing": list(self.missing),
                "lhs": self.lhs_value, "rhs": self.rhs_value}


def check_values(values: Mapping[str, float], names: set[str] | None = None,
                 zero_ok: Collection[str] = ()) -> dict[str, float]:
    """Validate numeric values for positive symbols: each must be a finite number > 0 (>= 0 for the names in
    ``zero_ok``, the symbols that may be zero, see :attr:`Theorem.zero_allowed`).

    Only the keys in ``names`` are checked (all keys when ``None``); returns them as floats.
    """
    out: dict[str, float] = {}
    for key, raw in values.items():
        if names is not None and key not in names:
            continue
        if isinstance(raw, bool):
            raise InputError(f"value of '{key}' must be a number, got {raw!r}")
        try:
            value = float(raw)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"value of '{key}' must be a number, got {raw!r}") from None
        if key in zero_ok:
            if not math.isfinite(value) or value < 0:
                raise InputError(f"value of '{key}' must be a finite number >= 0, got {raw!r}")
        elif not math.isfinite(value) or value <= 0:
            raise InputError(f"value of '{key}' must be a finite positive number (all symbols but "
                             f"indicators and indices are positive), got {raw!r}")
        out[key] = value
    return out


#: words of a symbol's meaning that mark a quantity which may be 0 (an indicator 1(t >= 1), a round index t)
_ZERO_MEANINGS = ("indicator",)
#: lower-case letters that are round or iteration indices (t = 0 is the first round) when they mean one
_INDEX_LETTERS = {"t": ("iterations", "rounds")}


def zero_allowed_symbols(symbols: Mapping[str, str]) -> frozenset[str]:
    """The letters of a theorem that may take the value 0: indicators (meaning starting with "indicator") and the
    round/iteration index ``t``.  Whether 0 is admissible for a given theorem is then decided by its own
    conditions (e.g. ``T >= 1`` fails at T = 0 and is reported as failing)."""
    out = set()
    for name, meaning in symbols.items():
        low = meaning.lower()
        if any(low.startswith(w) for w in _ZERO_MEANINGS) or low in _INDEX_LETTERS.get(name, ()):
            out.add(name)
    return frozenset(out)


@dataclass(frozen=True)
class Theorem:
    """A bound from a paper.

    Attributes:
        id: ``<paper>.<label>``, e.g. ``"bao.thm2.1"``.
        paper: paper id (``bao``, ``bylinkin``, ``dinh``, ``das``, ``buttaci``).
        label: the paper's own name, e.g. ``"Theorem 2.1"``.
        title: one-line description.
        statement: the statement in LaTeX.
        algorithms: fedrates algorithm ids the theorem speaks about.
        lhs: the measured quantity, e.g. ``"objective_gap"``, ``"distance_sq"``, ``"grad_norm_sq_min"``,
            ``"contraction_factor"``, ``"rounds_to_eps"``.
        rhs: the right-hand side (sympy expression in positive symbols from :mod:`fedrates.bounds.symbols`).
        kind: ``explicit`` (constants given: measured <= rhs), ``order`` (<~ / O with a hidden constant),
            ``contraction`` (per-round factor), ``complexity`` (iterations or rounds to reach an accuracy).
        probability: ``deterministic``, ``expectation`` or ``high_probability`` (failure probability symbol in
            ``failure_probability``).
        conditions: sympy relations that must hold (e.g. ``a >= 4*L/mu``).
        assumptions: the paper's assumptions used, as short labels
            (e.g. ``"A1: L-smooth, mu-strongly convex"``).
        symbols: map from each free symbol's name to its meaning; a meaning that is a vocabulary name
            (``clients``, ``rounds``, ``local_steps``, ``iterations``, ...) ties the symbol to a sweep
            variable.
        notes: errata, typos and clarifications.
        failure_probability: name of the failure-probability symbol for high-probability statements.
        equation: the paper's equation/reference, e.g. ``"(4), App. B.2"``.
    """

    id: str
    paper: str
    label: str
    title: str
    statement: str
    algorithms: tuple[str, ...]
    lhs: str
    rhs: sp.Expr
    kind: Kind
    probability: Probability = "deterministic"
    conditions: tuple[sp.Basic, ...] = ()
    assumptions: tuple[str, ...] = ()
    symbols: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[Note, ...] = ()
    failure_probability: str | None = None
    equation: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"theorem {self.id}: kind '{self.kind}' not in {KINDS}")
        if self.probability not in PROBABILITIES:
            raise ValueError(f"theorem {self.id}: probability '{self.probability}' not in {PROBABILITIES}")
        object.__setattr__(self, "symbols", MappingProxyType(dict(self.symbols)))
        missing = sorted(s.name for s in self.free_symbols if s.name not in self.symbols)
        if missing:
            raise ValueError(f"theorem {self.id}: symbols without a meaning: {missing}")

    @property
    def free_symbols(self) -> set[sp.Symbol]:
        """Symbols of the rhs and of the conditions."""
        out = set(self.rhs.free_symbols)
        for cond in self.conditions:
            out |= cond.free_symbols
        return out

    def __repr__(self) -> str:
        """Short and readable: id, label, kind, probability and the rhs (the full record is in the fields)."""
        rhs = sp.sstr(self.rhs)
        rhs = rhs if len(rhs) <= 80 else rhs[:77] + "..."
        errata = f", {len(self.errata)} erratum" if self.errata else ""
        relation = {"explicit": "<=", "order": "<~"}.get(self.kind, f"({self.kind})")
        return (f"<Theorem {self.id} ({self.label}): {self.lhs} {relation} {rhs} [{self.kind}, {self.probability}"
                f"{errata}]>")

    def _repr_latex_(self) -> str:
        """The statement as display LaTeX (Jupyter renders it with MathJax)."""
        return f"$$ {self.statement} $$"

    def _repr_html_(self) -> str:
        """A small HTML card for Jupyter: title, statement (LaTeX), conditions and errata."""
        import html

        from fedrates.papers import cite

        conditions = "".join(f"<li><code>{html.escape(condition_text(c))}</code></li>" for c in self.conditions)
        errata = "".join(f"<li>{html.escape(n.text)}</li>" for n in self.errata)
        return (f"<div><b>{html.escape(self.id)}</b> — {html.escape(self.label)}: {html.escape(self.title)}<br>"
                f"<small>{html.escape(cite(self.paper))}; {self.kind}, {self.probability}"
                f"{', ' + html.escape(self.equation) if self.equation else ''}</small>"
                f"<p>$$ {html.escape(self.statement)} $$</p>"
                + (f"<p>Conditions:</p><ul>{conditions}</ul>" if conditions else "")
                + (f"<p>Errata:</p><ul>{errata}</ul>" if errata else "") + "</div>")

    def vocabulary(self) -> dict[str, str]:
        """Map paper letter -> canonical vocabulary name, for the letters that are sweep variables."""
        from fedrates.bounds.symbols import VOCABULARY

        return {k: v for k, v in self.symbols.items() if v in VOCABULARY}

    @cached_property
    def zero_allowed(self) -> frozenset[str]:
        """Names of the symbols that may be 0 (see :func:`zero_allowed_symbols`); all others must be > 0."""
        return zero_allowed_symbols(self.symbols)

    @property
    def errata(self) -> tuple[Note, ...]:
        return tuple(n for n in self.notes if n.kind == "erratum")

    @property
    def rhs_symbols(self) -> tuple[str, ...]:
        """Names of the free symbols of the rhs, sorted."""
        return tuple(sorted(s.name for s in self.rhs.free_symbols))

    @cached_property
    def _compiled(self) -> tuple[tuple[str, ...], Callable[..., float]]:
        """``lambdify`` of the rhs, compiled once per theorem (mpmath backend: exact special functions and no
        numpy import on the command-line path)."""
        symbols = sorted(self.rhs.free_symbols, key=lambda s: s.name)
        fn = sp.lambdify(symbols, self.rhs, modules="mpmath")
        return tuple(s.name for s in symbols), fn

    def evaluate(self, values: Mapping[str, float]) -> float:
        """The rhs at ``values`` (symbol name -> positive number; extra keys are ignored).

        Raises :class:`InputError` listing the missing symbols, naming a non-positive value, or when the rhs
        is undefined or not real at these values.
        """
        names, fn = self._compiled
        missing = [n for n in names if n not in values]
        if missing:
            raise InputError(f"theorem {self.id} needs values for: {', '.join(missing)}")
        vals = check_values(values, set(names), zero_ok=self.zero_allowed)
        try:
            out = fn(*(vals[n] for n in names))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
            raise InputError(f"theorem {self.id}: rhs undefined at these values ({exc})") from None
        if hasattr(out, "imag") and abs(complex(out).imag) > 1e-12 * max(1.0, abs(complex(out).real)):
            raise InputError(f"theorem {self.id}: rhs is not real at these values (a logarithm of a number "
                             f"below 1, e.g. delta >= 1?)")
        try:
            return float(out.real) if hasattr(out, "real") else float(out)
        except (OverflowError, TypeError, ValueError):  # beyond double precision (e.g. 1e400)
            return math.inf if complex(out).real > 0 else -math.inf

    def check_conditions(self, values: Mapping[str, float]) -> list[ConditionResult]:
        """Evaluate every condition at ``values``; a condition lacking a symbol's value gives ``None``."""
        results: list[ConditionResult] = []
        for cond in self.conditions:
            text = condition_text(cond)
            names = sorted(s.name for s in cond.free_symbols)
            missing = tuple(n for n in names if n not in values)
            if missing:
                results.append(ConditionResult(text, None, missing))
                continue
            vals = check_values(values, set(names), zero_ok=self.zero_allowed)
            subs = {s: sp.Float(vals[s.name], 30) for s in cond.free_symbols}
            if isinstance(cond, sp.core.relational.Relational):
                try:
                    left = float(cond.lhs.evalf(30, subs=subs))
                    right = float(cond.rhs.evalf(30, subs=subs))
                except (TypeError, ValueError):  # a side undefined at these values (e.g. 1/0)
                    results.append(ConditionResult(text, None, ()))
                    continue
                tol = 1e-12 * max(abs(left), abs(right))  # boundary values (a = 4L/mu exactly) hold
                ops = {">=": left >= right - tol, "<=": left <= right + tol, ">": left > right,
                       "<": left < right, "==": abs(left - right) <= tol, "!=": abs(left - right) > tol}
                holds = ops[cond.rel_op]
                results.append(ConditionResult(text, bool(holds), (), left, right))
            else:
                results.append(ConditionResult(text, bool(cond.subs(subs)), ()))
        return results

    def failed_conditions(self, values: Mapping[str, float]) -> list[str]:
        """Texts of the conditions that are False at ``values`` (missing ones are not counted)."""
        return [c.text for c in self.check_conditions(values) if c.holds is False]


def condition_text(cond: sp.Basic) -> str:
    """A condition as readable text, e.g. ``a >= 4*L/mu``."""
    if isinstance(cond, sp.core.relational.Relational):
        return f"{sp.sstr(cond.lhs)} {cond.rel_op} {sp.sstr(cond.rhs)}"
    return sp.sstr(cond)
