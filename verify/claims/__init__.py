"""The catalogue of claims: modules ``fedrates.verify.claims.<name>`` (one or more per paper) define ``CLAIMS``.

Bao et al. has two: :mod:`verify.claims.bao` (Theorem 2.1 and 3.2 claims) and :mod:`verify.claims.bao_experiments`
(the §4 comparisons and C-FedDA's Theorem 3.1), whose tuple is called ``EXPERIMENT_CLAIMS``.
"""

from __future__ import annotations

import importlib
from functools import cache

from fedrates.solvers.errors import unknown_name
from fedrates.verify.claims.base import Claim

__all__ = ["Claim", "all_claims", "get", "ids", "select"]

MODULES = ("bao", "bao_experiments", "bao_exact", "buttaci", "dinh", "bylinkin", "bylinkin_exact", "das",
           "das_privacy", "das_sampling", "das_errata", "das_figures", "das_bounds",
           "dinh_synthetic", "dinh_output")


@cache
def _load() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for name in MODULES:
        module = importlib.import_module(f"fedrates.verify.claims.{name}")
        claims = getattr(module, "CLAIMS", None)
        if claims is None:
            claims = module.EXPERIMENT_CLAIMS
        for claim in claims:
            if claim.id in out:
                raise RuntimeError(f"duplicate claim id {claim.id}")
            out[claim.id] = claim
    return out


def all_claims() -> list[Claim]:
    return list(_load().values())


def ids() -> list[str]:
    return list(_load())


def get(claim_id: str) -> Claim:
    table = _load()
    if claim_id not in table:
        raise unknown_name("claim", claim_id, table)
    return table[claim_id]


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob ``pattern`` (or contains it as a substring); none matching is an error."""
    claims = all_claims()
    if not pattern:
        return claims
    from fedrates.verify.claim_index import matches, no_match  # shared with the refusal from the stored ids

    chosen = [c for c in claims if matches(c.id, pattern)]
    if not chosen:
        raise no_match(pattern, [c.id for c in claims])
    return chosen
