"""fedrates: check the convergence theory of federated optimization against certified numerical reality.

The toolkit lives in four subpackages, importable as ``fedrates.solvers`` (synthetic federations, certified optima,
exact constants, algorithms), ``fedrates.bounds`` (theorems as sympy data and their analysis), ``fedrates.verify``
(claims, statistics, the command line) and ``fedrates.reports`` (HTML/PDF renderings).

**The public API** — what a paper of one's own needs — is importable from ``fedrates`` itself::

    from fedrates import Paper, Theorem, register, Algorithm, hyper, BoundClaim, RateClaim, BrokenVariant

* papers: :class:`Paper` (the declaration of a plugin, :mod:`fedrates.plugins`);
* theorems: :class:`Theorem`, :class:`Note`, :class:`Erratum`, :data:`ERRATUM_KINDS`, :func:`sym`/:func:`syms`
  (the positive sympy symbols a theorem is written in);
* algorithms: :class:`Algorithm`, :func:`hyper`, :func:`register`, :class:`RoundContext`;
* problem families: :class:`Family` (declared parameters, presets, a builder ``(params, preset) -> Problem``),
  :class:`Param`, :class:`Problem`, :class:`DenseQuadratic` (the datafit ½wᵀQ_kw − b_kᵀw + c_k; penalties in
  :mod:`fedrates.solvers.penalties`);
* claims: :class:`Claim` (subclass it), the builders :class:`RateClaim`, :class:`BoundClaim`, :class:`ExactClaim`,
  :class:`LimitClaim`, :class:`ContractionClaim`, :class:`ComparisonClaim`, :func:`erratum_claim` (with
  :class:`BuiltClaim` and :class:`Instance`, :mod:`fedrates.verify.builders`), :class:`BrokenVariant`;
* checking: :func:`check` (one claim → its verdict), :func:`assert_rate`, :func:`assert_bound`,
  :func:`assert_seeds_independent` (a claim's records of a seed do not depend on its batch; in tests).

Importing ``fedrates`` itself is cheap (no numpy, sympy or pandas): every name above and the subpackages load on
first attribute access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first access)
_API: dict[str, str] = {
    "Paper": "fedrates.plugins",
    "Theorem": "fedrates.bounds.theorem",
    "Note": "fedrates.bounds.theorem",
    "ConditionResult": "fedrates.bounds.theorem",
    "sym": "fedrates.bounds.symbols",
    "syms": "fedrates.bounds.symbols",
    "Erratum": "fedrates.errata",
    "ERRATUM_KINDS": "fedrates.errata",
    "Algorithm": "fedrates.solvers.algorithms.base",
    "RoundContext": "fedrates.solvers.algorithms.base",
    "hyper": "fedrates.solvers.algorithms.base",
    "register": "fedrates.solvers.algorithms.base",
    "Family": "fedrates.solvers.problems._params",
    "Param": "fedrates.solvers.problems._params",
    "Problem": "fedrates.solvers.problems.base",
    "DenseQuadratic": "fedrates.solvers.problems.datafits",
    "Claim": "fedrates.verify.claims.base",
    "BrokenVariant": "fedrates.verify.variants",
    "BuiltClaim": "fedrates.verify.builders",
    "Instance": "fedrates.verify.builders",
    "RateClaim": "fedrates.verify.builders",
    "BoundClaim": "fedrates.verify.builders",
    "ExactClaim": "fedrates.verify.builders",
    "LimitClaim": "fedrates.verify.builders",
    "ContractionClaim": "fedrates.verify.builders",
    "ComparisonClaim": "fedrates.verify.builders",
    "erratum_claim": "fedrates.verify.builders",
    "check": "fedrates.verify",
    "assert_rate": "fedrates.verify.conformance",
    "assert_bound": "fedrates.verify.conformance",
    "assert_seeds_independent": "fedrates.verify.seed_batches",
}

_SUBPACKAGES = frozenset({"solvers", "bounds", "verify", "reports"})

__all__ = [
    "__version__", "solvers", "bounds", "verify", "reports",
    "Paper", "Theorem", "Note", "ConditionResult", "sym", "syms", "Erratum", "ERRATUM_KINDS",
    "Algorithm", "RoundContext", "hyper", "register", "Family", "Param", "Problem", "DenseQuadratic",
    "Claim", "BrokenVariant", "BuiltClaim", "Instance", "RateClaim", "BoundClaim", "ExactClaim", "LimitClaim",
    "ContractionClaim", "ComparisonClaim", "erratum_claim", "check", "assert_rate", "assert_bound",
    "assert_seeds_independent",
]

if TYPE_CHECKING:  # the names as static type checkers and IDEs see them
    from fedrates.bounds.symbols import sym, syms
    from fedrates.bounds.theorem import ConditionResult, Note, Theorem
    from fedrates.errata import ERRATUM_KINDS, Erratum
    from fedrates.plugins import Paper
    from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register
    from fedrates.solvers.problems._params import Family, Param
    from fedrates.solvers.problems.base import Problem
    from fedrates.solvers.problems.datafits import DenseQuadratic
    from fedrates.verify import check
    from fedrates.verify.builders import (
        BoundClaim,
        BuiltClaim,
        ComparisonClaim,
        ContractionClaim,
        ExactClaim,
        Instance,
        LimitClaim,
        RateClaim,
        erratum_claim,
    )
    from fedrates.verify.claims.base import Claim
    from fedrates.verify.conformance import assert_bound, assert_rate
    from fedrates.verify.seed_batches import assert_seeds_independent
    from fedrates.verify.variants import BrokenVariant


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    module = _API.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
