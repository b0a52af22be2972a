"""fedrates verify: claims, sweeps, statistical checks, the command line.

:func:`check` verifies one catalogued claim from Python and returns its verdict. Importing this package is cheap (the
pytest plugin loads it in every pytest run): everything heavy is imported inside the functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fedrates.verify.claims.base import Claim

__all__ = ["check"]


def check(claim_id: str | Claim, profile: str = "quick", seed: int = 0, jobs: int = 1,
          with_records: bool = False) -> Any:
    """Run one claim (no cache, nothing written) and return its verdict dict.

    ``claim_id`` is the id of a registered claim (built-in or of an installed paper) or a
    :class:`~fedrates.verify.claims.base.Claim` object itself (a claim being written, not yet registered).

    The verdict holds ``verdict`` (pass, fail, erratum, conditions-not-met, inconclusive, error), ``measured``,
    ``predicted``, ``tolerance``, ``message``, the theorem's ``conditions`` on the instance's exact ``constants``,
    the ``seeds`` and the figure description ``plot``. ``with_records=True`` returns ``(verdict, records)``.

        >>> from fedrates.verify import check
        >>> check("bao.thm2.1/rate-T", profile="quick")["verdict"]   # doctest: +SKIP
        'pass'
    """
    from datetime import UTC, datetime

    from fedrates.solvers.errors import InputError
    from fedrates.verify import claims
    from fedrates.verify.claims.base import PROFILES
    from fedrates.verify.pipeline import annotate, judge_all
    from fedrates.verify.sweep import run_claims

    if profile not in PROFILES:
        raise InputError(f"unknown profile '{profile}'; expected one of: {', '.join(PROFILES)}")
    claim = claims.get(claim_id) if isinstance(claim_id, str) else claim_id
    if not isinstance(claim, claims.Claim):
        raise TypeError(f"check: expected a claim id or a Claim, got {type(claim_id).__name__}")
    sweep = run_claims([claim], profile, None, jobs=jobs, base_seed=int(seed))
    (verdict,) = judge_all([claim], sweep.records, sweep.errors, profile)
    annotate([verdict], sweep.records, profile=profile, base_seed=int(seed),
             timestamp=datetime.now(UTC).isoformat(timespec="seconds"))
    if with_records:
        from fedrates.verify import records as rec

        return verdict, sweep.records.get(claim.id, rec.empty_records())
    return verdict
