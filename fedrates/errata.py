"""Errata: what a verdict may say about a paper, and how strongly.

An erratum accuses published authors, so each one carries exactly one *kind*, says where the paper says it, what is
true instead, and the evidence, and claims nothing stronger than that evidence:

``statement-false``
    a counterexample that satisfies every assumption of the statement (the statement as printed is false);
``proof-gap``
    a step of the proof fails; ``true_statement`` says whether the statement is known to hold, and with what;
``constant``
    the statement holds with another constant, which ``true_statement`` gives;
``typo``
    a misprint with no consequence (what is meant follows from the context);
``experiment-outside-theory``
    the paper's own experiment violates the conditions of the theorem it illustrates;
``over-claim``
    the text infers more than the theorems prove (e.g. a comparison of two upper bounds read as a comparison of
    rates).

Only ``statement-false`` and ``constant`` are headline "paper errors"; the other kinds are counted separately.

An erratum claim predicts *how* the statement fails (``prediction``) and tests that prediction: when the failure
does not reproduce, the verdict is ``fail``, never ``pass`` (:meth:`fedrates.verify.claims.base.Claim.verdict`).

This module has no heavy imports: catalogue modules import it at load time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["ERRATUM_KINDS", "HEADLINE_KINDS", "KIND_TITLES", "Erratum", "count_kinds", "kind_summary"]

ERRATUM_KINDS: tuple[str, ...] = (
    "statement-false", "proof-gap", "constant", "typo", "experiment-outside-theory", "over-claim")
#: the kinds reported as errors of the paper's results; the others are reported, counted apart
HEADLINE_KINDS: tuple[str, ...] = ("statement-false", "constant")
KIND_TITLES: Mapping[str, str] = {
    "statement-false": "statement false (counterexample within the assumptions)",
    "proof-gap": "proof gap (a step fails)",
    "constant": "wrong constant (holds with another constant)",
    "typo": "typo (no consequence)",
    "experiment-outside-theory": "experiment outside the theory",
    "over-claim": "over-claim (the text infers more than the theorems prove)",
}


@dataclass(frozen=True)
class Erratum:
    """One documented error of a paper, with its kind (one of :data:`ERRATUM_KINDS`).

    Attributes:
        kind: the kind of error (see the module docstring).
        where: the location in the paper, e.g. ``"Appendix B, the display after (11)"``.
        quote: what the paper says there (verbatim or nearly).
        true_statement: what is true instead; for ``proof-gap`` whether the statement is known to hold and with
            what, for ``constant`` the correct constant.
        evidence: what fedrates measures or certifies that shows it.
        prediction: how the statement fails, i.e. what the claim tests. A claim whose check passes (the failure
            did not reproduce) is a ``fail``.
    """

    kind: str
    where: str
    quote: str
    true_statement: str
    evidence: str
    prediction: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ERRATUM_KINDS:
            raise ValueError(f"erratum kind {self.kind!r} is not one of {', '.join(ERRATUM_KINDS)}")
        for name in ("where", "quote", "true_statement", "evidence"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"erratum field {name!r} must be a non-empty string, got {value!r}")

    @property
    def headline(self) -> bool:
        """Whether this erratum is a headline paper error (:data:`HEADLINE_KINDS`)."""
        return self.kind in HEADLINE_KINDS

    @property
    def text(self) -> str:
        """A one-paragraph summary: kind, location, what the paper says and what is true."""
        return f"[{self.kind}] {self.where}: {self.quote} — {self.true_statement}"

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["text"] = self.text
        out["headline"] = self.headline
        return out


def count_kinds(kinds: Iterable[str | None]) -> dict[str, int]:
    """Counts per erratum kind, in the order of :data:`ERRATUM_KINDS` (kinds with no entry omitted)."""
    kinds = [k for k in kinds if k]
    return {k: kinds.count(k) for k in ERRATUM_KINDS if k in kinds}


def kind_summary(kinds: Iterable[str | None]) -> str:
    """``"2 paper errors (statement-false 1, constant 1); also proof-gap 3, typo 1"`` or ``""``."""
    counts = count_kinds(kinds)
    if not counts:
        return ""
    head = {k: n for k, n in counts.items() if k in HEADLINE_KINDS}
    rest = {k: n for k, n in counts.items() if k not in HEADLINE_KINDS}
    n_head = sum(head.values())
    parts = [f"{n_head} paper error{'s' if n_head != 1 else ''}"
             + (" (" + ", ".join(f"{k} {n}" for k, n in head.items()) + ")" if head else "")]
    if rest:
        parts.append("also " + ", ".join(f"{k} {n}" for k, n in rest.items()))
    return "; ".join(parts)
