"""Record and verdict helpers shared by the Buttaci & Calafiore claims (exact, theorem and erratum claims): the
registered theorem and algorithm (or a variant's override), tidy records from (metric, seed, round, value, bound)
tuples, and the pieces of a verdict.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

_TINY = float(np.finfo(float).tiny)

#: a negative control must exceed this for the identity check to be able to discriminate on the instance
CONTROL_MIN = 1e-6


def _theorem(theorem_id: str) -> Any:
    from fedrates.bounds import catalog

    return catalog.get(theorem_id)


def _algorithm(claim: Claim, name: str, **hyper: Any) -> Any:
    """The registered algorithm ``name``, or the claim's override when it is a variant of that algorithm."""
    from fedrates.solvers import algorithms

    override = claim.algorithm_override
    if override is not None and override.name == name:
        return dataclasses.replace(override, **hyper)
    return algorithms.make(name, **hyper)


def _rows(claim: Claim, point_index: int, point: dict, items: Sequence[tuple], dim: int) -> pd.DataFrame:
    """Tidy records from (metric, seed, round, value, bound) tuples."""
    metric, seed, rnd, value, bound = (list(c) for c in zip(*items, strict=True)) if items else ([],) * 5
    E = int(point.get("local_steps", 1))
    return pd.DataFrame({
        "claim": claim.id, "theorem": claim.theorem, "algorithm": claim.algorithm, "problem": claim.problem,
        "preset": str(point.get("preset") or ""), "point": int(point_index),
        "seed": np.asarray(seed, dtype="int64"), "round": np.asarray(rnd, dtype="int64"),
        "iterations": np.asarray(rnd, dtype="int64") * E, "clients": int(point.get("clients", 6)),
        "local_steps": E, "batch": 0 if not point.get("sigma") else 1,
        "participating": int(point.get("clients", 6)), "dim": int(dim), "metric": metric,
        "value": np.asarray(value, dtype=float), "bound": np.asarray(bound, dtype=float),
        "params": json.dumps(dict(point), sort_keys=True, default=str), "diverged": False,
    })


def _seeds(records: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in records["seed"].unique()) if len(records) else []


def _metric(records: pd.DataFrame, name: str) -> pd.DataFrame:
    return records[records["metric"] == name]


def _fail_if_empty(records: pd.DataFrame) -> CheckResult | None:
    if not len(records):
        return CheckResult("fail", "no records", "—", "—", "the claim produced no records")
    return None


def _no_records(claim: Claim, records: pd.DataFrame, seeds: list[int]) -> dict | None:
    """The ``fail`` verdict of a claim whose run produced no records (no conditions, no constants); None otherwise."""
    empty = _fail_if_empty(records)
    return None if empty is None else claim.verdict(empty, conditions=[], seeds=seeds, constants={})


def _params(point: dict) -> dict:
    keys = ("preset", "message", "sigma", "mu", "curvature_shift", "clients")
    return {k: point[k] for k in keys if k in point}


def _verdict_from(checks_: list[tuple[str, bool, str]]) -> tuple[str, str]:
    bad = [f"{name}: {detail}" for name, ok, detail in checks_ if not ok]
    return ("pass", "all hold") if not bad else ("fail", "; ".join(bad))
