"""Dinh et al.: what the paper's claims share beyond their instances — building the algorithm a claim runs (or its
override), replicas and record rows, per-seed values, runs of a batch of seeds, and the claims' base class."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify.claims.base import Claim, records_from_trace
from fedrates.verify.claims.dinh.instances import EXACT_LS, _reference, instance

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__: list[str] = []


def _make_alg(claim: Claim, name: str, **hyper: Any) -> Any:
    """The registered algorithm ``name`` with ``hyper``, or the claim's override (a class or a factory taking the
    same hyperparameters) when ``name`` is the claim's algorithm."""
    from fedrates.solvers import algorithms

    if claim.algorithm_override is not None and name == claim.algorithm:
        override = claim.algorithm_override
        return override(**hyper) if callable(override) else dataclasses.replace(override, **hyper)
    return algorithms.make(name, **hyper)


def _replicas(seeds: list[int], point: dict) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Monte-Carlo replicas: every claim seed s runs ``point["replicas"]`` replicas with run seeds 1000·s + j (j <
    1000), so that thousands of samples are cached as a few per-seed files.  Returns (run seeds, seed label,
    replica label), each of length len(seeds)·replicas."""
    k = int(point.get("replicas", 1))
    if k > 1000:
        raise ValueError(f"replicas={k} exceeds 1000 per seed")
    seed = np.repeat(np.asarray(seeds, dtype=np.int64), k)
    rep = np.tile(np.arange(k, dtype=np.int64), len(seeds))
    return [int(s) * 1000 + int(j) for s, j in zip(seed, rep, strict=True)], seed, rep


def _rows(claim: Claim, point: dict, seeds: Any, values: dict[str, np.ndarray], dim: int,
          rnd: int = 0, replica: np.ndarray | None = None) -> pd.DataFrame:
    """Records with one row per sample × metric (values[metric] has one entry per sample; ``seeds`` labels them,
    ``replica`` numbers the replicas of one seed)."""
    seeds = np.asarray(seeds, dtype=np.int64)
    df = pd.DataFrame({"seed": seeds, "round": rnd, "iterations": 0, "diverged": False,
                       **{k: np.asarray(v, dtype=float) for k, v in values.items()}})
    out = records_from_trace(df, claim=claim, point_index=int(point.get("index", 0)), point=point,
                             metrics=list(values), problem_dim=dim)
    out["replica"] = np.tile(np.zeros(len(seeds), dtype=np.int64) if replica is None else replica, len(values))
    return out


def _per_seed(records: pd.DataFrame, metric: str, point: int | None = None) -> np.ndarray:
    """The samples of one metric, ordered by (seed, replica)."""
    sub = records[records["metric"] == metric]
    if point is not None:
        sub = sub[sub["point"] == point]
    keys = ["seed", "replica"] if "replica" in sub else ["seed"]
    return sub.sort_values(keys, kind="stable")["value"].to_numpy(dtype=float)


def _per_seed_many(records: pd.DataFrame, metrics: list[str]) -> list[np.ndarray]:
    """:func:`_per_seed` of each of ``metrics``, from one sort of the records (hundreds of per-round metrics)."""
    keys = ["seed", "replica"] if "replica" in records else ["seed"]
    sub = records[records["metric"].isin(metrics)].sort_values(keys, kind="stable")
    groups = {str(m): g["value"].to_numpy(dtype=float) for m, g in sub.groupby("metric", sort=False)}
    return [groups.get(m, np.empty(0)) for m in metrics]


def _seeds(records: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in records["seed"].unique()) if len(records) else []


def _run_states(alg: Any, problem: Any, rounds: int, seeds: list[int], w0: np.ndarray, ref: Any,
                gradients: str = "stochastic") -> tuple[Any, np.ndarray]:
    """Run and collect the server iterate after every round: (trace, X (rounds + 1, R, d))."""
    from fedrates.solvers.algorithms import run_batch

    xs = [np.broadcast_to(w0, (len(seeds),) + w0.shape).copy()]
    trace = run_batch(alg, problem, rounds, seeds=seeds, w0=w0, reference=ref, gradients=gradients,
                      record_every=rounds, callback=lambda r, state: xs.append(np.array(state["x"])))
    return trace, np.stack(xs)


# ---- claim base ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _DinhClaim(Claim):
    family: str = "dinh_ls"
    problem_params: dict = field(default_factory=lambda: dict(EXACT_LS))
    hyper: dict = field(default_factory=dict)

    def _setup(self) -> tuple[Any, Any, Any]:
        problem, consts = instance(self.family, self.problem_params)
        return problem, consts, _reference(consts)

    def _alg(self, **extra: Any) -> Any:
        return _make_alg(self, self.algorithm, **{**self.hyper, **extra})

    def verdict(self, result: Any, **kw: Any) -> dict:
        """Claim.verdict with the margin of an exact check: the relative resolution max half-width/|exact| (the
        smallest relative deviation that would have been detected), unless a bound ratio or margin is given."""
        if kw.get("margin") is None and kw.get("bound_ratio") is None:
            det = getattr(result, "details", None) or {}
            if "half_width" in det and "expected" in det:
                half, exp = np.asarray(det["half_width"], float), np.abs(np.asarray(det["expected"], float))
                ok = exp > 0
                if np.any(ok):
                    from fedrates.verify import margins

                    kw["margin"] = margins.resolution(float(np.max(half[ok] / exp[ok])))
        return super().verdict(result, **kw)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "index": 0}]

    def _w0(self, problem: Any) -> np.ndarray:
        # a fixed start away from w*: w* + (1, -1, 1, ...) scaled to ‖w0 − w*‖ = ‖w*‖ + 1
        d = problem.dim
        u = np.where(np.arange(d) % 2 == 0, 1.0, -1.0) / math.sqrt(d)
        return problem.truth + (np.linalg.norm(problem.truth) + 1.0) * u
