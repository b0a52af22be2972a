"""Every instance kind the problem catalogue offers is built by at least one claim of the standard profile.

An *instance kind* is a preset of a family (``fedrates list problems``) or one value of one of its ``choice``
parameters (e.g. ``quadratic`` with ``structure=factors``, ``lasso`` with ``sampling=population``).  A kind that
no claim builds is code that ``fedrates verify`` never exercises: a bug in it cannot change any verdict.  The
claims' sweep points are read from the claim registry (:func:`fedrates.verify.claims.all_claims`) for the standard
profile; a point names its family (``problem``) or a preset, and the effective value of every choice parameter is
the point's, else its preset's, else the family default (what :func:`fedrates.solvers.problems.make` resolves).

Kinds known to be unused are listed in :data:`EXPECTED_UNUSED` with the owning paper and the reason; each is an
expected failure (``xfail(strict=True)``), so it turns into an error as soon as a claim builds it and the entry
must then be removed.
"""

from __future__ import annotations

from functools import cache

import pytest

from fedrates.solvers import problems
from fedrates.verify import claims

PROFILE = "standard"

#: kind → (owning paper, reason it is unused by the claims); an entry that becomes used fails (strict xfail).
#: Empty: every kind is built (the ``quadratic`` Hessian-similarity preset by bylinkin.thm5.corrected/similar-quadratic)
EXPECTED_UNUSED: dict[tuple[str, str, str], tuple[str, str]] = {}


def catalogue_kinds() -> list[tuple[str, str, str]]:
    """(family, "preset" | choice parameter, preset name | value) for every family of the catalogue."""
    out = []
    for name in problems.names():
        fam = problems.family(name)
        out += [(name, "preset", preset) for preset in fam.presets]
        for param, spec in fam.parameters.items():
            if spec.kind == "choice":
                out += [(name, param, value) for value in spec.choices]
    return out


def _family_of(point: dict) -> str | None:
    name = point.get("problem") or point.get("family")
    if name in problems.names():
        return name
    preset = point.get("preset")
    return problems.preset_family(preset) if isinstance(preset, str) else None


@cache
def used_kinds() -> dict[tuple[str, str, str], list[str]]:
    """Kind → ids of the claims whose standard-profile points build it."""
    used: dict[tuple[str, str, str], list[str]] = {}
    for claim in claims.all_claims():
        for point in claim.points(PROFILE):
            name = _family_of(point)
            if name is None:
                continue
            fam = problems.family(name)
            preset = point.get("preset") if point.get("preset") in fam.presets else None
            base = fam.presets[preset] if preset else {}
            kinds = [(name, "preset", preset)] if preset else []
            for param, spec in fam.parameters.items():
                if spec.kind == "choice":
                    value = point.get(param, base.get(param, spec.default))
                    kinds.append((name, param, value))
            for kind in kinds:
                ids = used.setdefault(kind, [])
                if claim.id not in ids:
                    ids.append(claim.id)
    return used


def _cases() -> list:
    out = []
    for kind in catalogue_kinds():
        marks = ()
        if kind in EXPECTED_UNUSED:
            paper, reason = EXPECTED_UNUSED[kind]
            marks = pytest.mark.xfail(strict=True, reason=f"{paper}: {reason}")
        out.append(pytest.param(kind, id="/".join(kind), marks=marks))
    return out


def test_the_catalogue_offers_kinds():
    kinds = catalogue_kinds()
    assert ("quadratic", "structure", "random") in kinds
    assert ("lasso", "preset", "bao-lasso") in kinds
    assert set(EXPECTED_UNUSED) <= set(kinds), "an expected-unused entry names a kind the catalogue does not offer"


@pytest.mark.parametrize("kind", _cases())
def test_kind_is_built_by_a_claim(kind):
    assert used_kinds().get(kind), (f"no claim of the {PROFILE} profile builds {'/'.join(kind)}: its code is never "
                                    f"exercised by fedrates verify")
