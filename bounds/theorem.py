"""The :class:`Theorem` record: a paper's result as data.

A theorem is a sympy right-hand side plus the metadata needed to test it: what is measured (``lhs``), how the
inequality must be read (``kind`` and ``probability``), the conditions under which it is proved, the map from the
paper's letters to fedrates' vocabulary, and notes recording every error found in the paper with its resolution.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

import sympy as sp

__all__ = ["Note", "Theorem", "KINDS", "PROBABILITIES"]

Kind = Literal["explicit", "order", "contraction", "complexity"]
Probability = Literal["deterministic", "expectation", "high_probability"]
KINDS: tuple[str, ...] = ("explicit", "order", "contraction", "complexity")
PROBABILITIES: tuple[str, ...] = ("deterministic", "expectation", "high_probability")


@dataclass(frozen=True)
class Note:
    """A remark on the paper's statement.

    ``kind`` is ``"erratum"`` (the paper is wrong; ``resolution`` says what fedrates uses instead and why),
    ``"typo"`` (an obvious misprint), or ``"clarification"`` (an ambiguity and how it is read).
    """

    text: str
    resolution: str = ""
    kind: Literal["erratum", "typo", "clarification"] = "clarification"


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
        rhs: the right-hand side (sympy expression in positive symbols from :mod:`bounds.symbols`).
        kind: ``explicit`` (constants given: measured <= rhs), ``order`` (<~ / O with a hidden constant),
            ``contraction`` (per-round factor), ``complexity`` (iterations or rounds to reach an accuracy).
        probability: ``deterministic``, ``expectation`` or ``high_probability`` (failure probability symbol in
            ``failure_probability``).
        conditions: sympy relations that must hold (e.g. ``a >= 4*L/mu``).
        assumptions: the paper's assumptions used, as short labels (e.g. ``"A1: L-smooth, mu-strongly convex"``).
        symbols: map from each free symbol's name to its meaning; a meaning that is a vocabulary name
            (``clients``, ``rounds``, ``local_steps``, ``iterations``, ...) ties the symbol to a sweep variable.
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

    def vocabulary(self) -> dict[str, str]:
        """Map paper letter -> canonical vocabulary name, for the letters that are sweep variables."""
        from bounds.symbols import VOCABULARY

        return {k: v for k, v in self.symbols.items() if v in VOCABULARY}

    @property
    def errata(self) -> tuple[Note, ...]:
        return tuple(n for n in self.notes if n.kind == "erratum")
