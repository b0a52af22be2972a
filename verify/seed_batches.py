"""The sweep's contract on a claim's runs: a seed's records do not depend on the other seeds of its batch.

``fedrates verify`` cuts a claim's seeds into batches (their size set by the profile's seed count, see
:mod:`fedrates.verify.sweep`) and calls :meth:`~fedrates.Claim.simulate` once per batch, in any process. A record
computed from the whole batch (a maximum over the replicas, a diagnostic of the first seed copied to every seed,
random numbers drawn in lockstep for replicas that do not use them) would change with the batching, and so with
the profile. :func:`assert_seeds_independent` checks a claim against the contract: on a few of its points, the
records of the middle seed of a three-seed batch equal those it gets alone.

A record of the whole batch (a deterministic point, or a deterministic quantity such as a matrix's spectral radius)
may be written once, for the first seed of the batch; it must then be the same whichever seed comes first.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["assert_seeds_independent", "SeedBatchError"]

#: relative agreement asked of a seed's records in and out of a batch (batched linear algebra may differ in the
#: last bits; a dependence on the batch moves them by far more)
RELATIVE = 1e-10


class SeedBatchError(AssertionError):
    """A seed's records changed with the seeds simulated beside it."""


def _differences(a: Any, b: Any) -> str | None:
    """The first difference between two record tables (rows in the same order), or None."""
    import pandas as pd

    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    if list(a.columns) != list(b.columns):
        return f"columns {list(a.columns)} against {list(b.columns)}"
    for column in a.columns:
        x, y = a[column].to_numpy(), b[column].to_numpy()
        if pd.api.types.is_float_dtype(x):
            x, y = x.astype(float), y.astype(float)
            same_nan = np.isnan(x) == np.isnan(y)
            with np.errstate(invalid="ignore"):
                close = np.isclose(x, y, rtol=RELATIVE, atol=0) | (np.isnan(x) & np.isnan(y))
            bad = np.flatnonzero(~(same_nan & close))
            if bad.size:
                i = int(bad[0])
                return f"column {column!r}: {x[i]!r} against {y[i]!r}"
        elif not (x.astype(str) == y.astype(str)).all():
            return f"column {column!r} differs"
    return None


def _by_metric(together: Any, alone: Any) -> list[tuple[Any, Any, Any]]:
    """(metric, rows of the batch, rows alone) per metric of either table (one group when there is no metric
    column)."""
    if "metric" not in together.columns or "metric" not in alone.columns:
        return [(None, together, alone)]
    metrics = list(dict.fromkeys([*together["metric"].tolist(), *alone["metric"].tolist()]))
    return [(m, together[together["metric"] == m], alone[alone["metric"] == m]) for m in metrics]


def assert_seeds_independent(claim: Any, profile: str = "quick", max_points: int = 5) -> int:
    """Raise :class:`SeedBatchError` when a seed of ``claim`` gets other records beside two other seeds than
    alone, on up to ``max_points`` of the profile's points (spread over the list); return the number of points
    checked (0 for a claim with a single seed: nothing can depend on a batch)."""
    seeds = [int(s) for s in claim.seeds(profile)]
    if len(seeds) < 2:
        return 0
    batch, seed = seeds[:3], seeds[1]
    points = claim.points(profile)
    points = points[:: max(1, len(points) // max(1, max_points - 1))][:max_points]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for point in points:
            together = claim.simulate(point, batch)
            alone = claim.simulate(point, [seed])
            for metric, mine, solo in _by_metric(together, alone):
                own = mine[mine["seed"] == seed]
                if len(own):
                    problem = _differences(own, solo)
                    where = f"seed {seed} beside {[s for s in batch if s != seed]} and alone"
                else:  # a record of the batch, written for its first seed (a deterministic point or quantity)
                    problem = _differences(mine[mine["seed"] == batch[0]].assign(seed=seed), solo)
                    where = f"the batch's record for its first seed {batch[0]} and the one for {seed} alone"
                if problem is not None:
                    what = f" ({metric})" if metric is not None else ""
                    raise SeedBatchError(f"{claim.id}: {where} differ{what} at point {point}: {problem}; expected "
                                         "a seed's records not to depend on the seeds of its batch")
    return len(points)
