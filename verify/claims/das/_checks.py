"""Records, tables and verdicts shared by the claims of Das et al.: tidy records of per-seed values, the one-sided
t test of the bound claims, margins read off check results, the claim base classes (:class:`_DasClaim` reports the
privacy that a noise configuration buys, :class:`_ConfigClaim` runs one point per algorithm configuration)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates._tables import pivot_last
from fedrates.verify import checks
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.base import Claim, records_from_trace
from fedrates.verify.claims.das.instances import TIGHT, Instance, config_sigma, instance

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["comparison_margin", "config_points", "fold", "inner_seeds", "one_sided_nonpositive"]


def _records(
    claim: Claim,
    point_index: int,
    point: dict,
    seeds: list[int],
    values: dict[str, np.ndarray],
    index: np.ndarray | None = None,
    bound: np.ndarray | None = None,
) -> pd.DataFrame:
    """Tidy records of per-seed values (S, P) per metric; the ``round`` column holds ``index`` (P,)."""
    frames = []
    for metric, arr in values.items():
        arr = np.atleast_2d(np.asarray(arr, dtype=float))
        S, P = arr.shape
        idx = np.arange(1, P + 1) if index is None else np.asarray(index)  # 1-based: figures use log axes
        df = pd.DataFrame(
            {
                "seed": np.repeat(seeds, P),
                "round": np.tile(idx, S).astype(np.int64),
                "iterations": np.tile(idx, S).astype(np.int64),
                metric: arr.reshape(-1),
                "diverged": False,
            }
        )
        b = None if bound is None or metric != claim.metric else np.tile(np.asarray(bound, dtype=float), S)
        frames.append(
            records_from_trace(
                df,
                claim=claim,
                point_index=point_index,
                point=point,
                metrics=[metric],
                bound=(lambda _d, b=b: b) if b is not None else None,
                problem_dim=inst_dim(point),
            )
        )
    return pd.concat(frames, ignore_index=True)


def inner_seeds(seeds: list[int], m: int) -> list[int]:
    """The m runs simulated for each claim seed s: seeds 1000·s + j, j < m (distinct over claim seeds).  Claims
    that need many Monte-Carlo runs record one value per claim seed — the mean (or max/min) over its m runs — so
    that a profile's seed count stays small while the runs are simulated as one vectorized batch."""
    if m > 1000:
        raise ValueError("at most 1000 runs per claim seed")
    return [1000 * int(s) + j for s in seeds for j in range(m)]


def fold(values: np.ndarray, m: int, how: str = "mean") -> np.ndarray:
    """Per-run values (S·m, ...) -> per-claim-seed values (S, ...) by ``how`` (mean, max or min) over the m runs."""
    v = np.asarray(values, dtype=float)
    v = v.reshape((v.shape[0] // m, m) + v.shape[1:])
    return {"mean": v.mean, "max": v.max, "min": v.min}[how](axis=1)


def inst_dim(point: dict) -> int:
    return int(point.get("dim", 0))


def _table(records: pd.DataFrame, metric: str, point: int | None = None) -> pd.DataFrame:
    sub = records[records["metric"] == metric]
    if point is not None:
        sub = sub[sub["point"] == point]
    return pivot_last(sub, "seed", "round")


def _seeds_of(records: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in records["seed"].unique()) if len(records) else []


def config_points(claim: Any, **extra: Any) -> list[dict]:
    """One point per configuration j of ``claim.configs`` on the quadratic instance ``claim.problem_params``:
    {"problem": "quadratic", **problem_params, **cfg, **extra, "index": j} (keys in this order)."""
    return [{"problem": "quadratic", **claim.problem_params, **cfg, **extra, "index": j}
            for j, cfg in enumerate(claim.configs)]


def _theorem(theorem_id: str) -> Any:
    from fedrates.bounds import catalog

    return catalog.get(theorem_id)


def _cond(text: str, holds: bool, value: str) -> dict:
    return {"condition": text, "holds": bool(holds), "value": value}


def one_sided_nonpositive(diff: np.ndarray, confidence: float = 0.99) -> tuple[str, float, float]:
    """One-sided t test on paired differences D = LHS − RHS over seeds: ``pass`` when the upper confidence bound
    of E[D] is < 0, ``fail`` when the lower confidence bound is > 0, else ``inconclusive``; also returns the mean and
    the half-width t·sd/√S.  (A generic helper: verify.checks has no paired one-sided bound check.)"""
    from scipy.stats import t as student

    diff = np.asarray(diff, dtype=float).reshape(-1)
    S = diff.size
    mean = float(diff.mean())
    if S < 2:
        return ("pass" if mean <= 0 else "fail"), mean, 0.0
    half = float(student.ppf(confidence, S - 1) * diff.std(ddof=1) / math.sqrt(S))
    if not np.all(np.isfinite(diff)):
        return "fail", mean, half
    if mean + half < 0:
        return "pass", mean, half
    if mean - half > 0:
        return "fail", mean, half
    return "inconclusive", mean, half


class _DasClaim(Claim):
    """A claim of this paper: when a check returns no margin, the margin is read off its result — the relative
    resolution max(half-width/|exact|) of an exact-expectation check (:func:`checks.exact_expectation`), or the
    floating-point resolution of a deterministic identity or inequality."""

    def verdict(self, result: Any, **kwargs: Any) -> dict:
        if kwargs.get("margin") is None and kwargs.get("bound_ratio") is None:
            kwargs["margin"] = _margin_of(result)
        out = super().verdict(result, **kwargs)
        stated = self.privacy_statement()
        if stated:
            out["message"] = f"{out['message']}; privacy of the noise run: {'; '.join(t for t, _ in stated)}"
            out["constants"] = {**out["constants"], **{f"eps_pld_point{j}": e for j, (_, e) in enumerate(stated)}}
        return out

    def privacy_statement(self) -> list[tuple[str, float]]:
        """(text, ε) per configuration with noise σ > 0 and a finite clip C: the ε at δ = 1e-5 that K rounds of
        Algorithm 1/2 at Poisson rate p = r/n (1: full participation) buy at client level (add/remove, sum
        sensitivity C, noise multiplier z = rσ/C), by dp-accounting's PLD accountant (:mod:`fedrates.solvers.privacy`)
        on the calibrations' loss grid (pessimistic: an upper bound on the exact ε); a configuration that states a
        target ``eps`` has σ calibrated to it (:func:`config_sigma`), and the text says so."""
        configs = getattr(self, "configs", ())
        params = getattr(self, "problem_params", None)
        if not configs or params is None:
            return []
        from fedrates.solvers import privacy as P

        n = instance(params).n
        out = []
        for cfg in configs:
            plan = self._plan(cfg) if hasattr(self, "_plan") else cfg
            C = float(plan.get("C", math.inf))
            K = int(plan.get("K") or cfg.get("rounds") or getattr(self, "rounds", 0) or 0)
            if not math.isfinite(C) or C >= 1e6 or K < 1:
                continue
            if "sigma" in plan:
                sigma = float(plan["sigma"] or 0.0)
            elif "eps" in cfg:
                sigma = config_sigma(cfg, n, K)
            else:
                continue
            if sigma <= 0:
                continue
            p = float(cfg.get("rate", 1.0))
            eps = P.epsilon(p * n * sigma / C, p, K, 1e-5, accountant="pld", interval=P.PLD_CALIBRATION_INTERVAL)
            target = f"calibrated to eps = {cfg['eps']:g}: " if "eps" in cfg else ""
            out.append((f"{target}sigma = {sigma:.4g}, C = {C:g}, K = {K}, n = {n}, r = {p * n:g}: ({eps:.4g}, "
                        f"1e-5)-DP (PLD on a {P.PLD_CALIBRATION_INTERVAL:g} loss grid, an upper bound; add/remove, "
                        "client level)", float(eps)))
        return out


def comparison_margin(pairs: list[tuple[np.ndarray, np.ndarray]]) -> dict | None:
    """The margin of paired comparisons: the worst ratio of the 95% half-width of the mean paired difference to
    its size, over the compared pairs (below 1: the ordering is resolved; :func:`fedrates.verify.margins.ci`)."""
    from scipy.stats import t as student

    from fedrates.verify import margins

    worst = None
    for a, b in pairs:
        diff = np.asarray(a, float) - np.asarray(b, float)
        S = diff.size
        if S < 2:
            continue
        half = float(student.ppf(0.95, S - 1) * diff.std(ddof=1) / math.sqrt(S))
        size = abs(float(diff.mean()))
        if worst is None or half / max(size, 1e-300) > worst[0] / max(worst[1], 1e-300):
            worst = (half, size)
    return None if worst is None else margins.ci(*worst)


def _margin_of(result: Any) -> dict | None:
    from fedrates.verify import margins

    details = getattr(result, "details", None) or {}
    if "half_width" in details and "expected" in details:
        half, exp = np.asarray(details["half_width"], float), np.asarray(details["expected"], float)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(exp != 0, half / np.abs(exp), np.inf)
        return margins.resolution(float(np.max(rel)))
    if "floating point" in str(getattr(result, "tolerance", "")) or "deterministic" in str(
            getattr(result, "tolerance", "")):
        return margins.resolution(tol.FLOAT_SLACK)
    return None


def _tight_condition(inst: Instance, C: float, E: int) -> dict:
    need = 4.0 * math.sqrt(inst.L * float(inst.Delta.max()))
    return _cond("C-hat = C/E >= 4 sqrt(L max_i Delta_i*)", C / E >= need, f"{C / E:.4g} >= {need:.4g}")


def _deterministic(name: str, ok: bool, measured: str, message: str) -> Any:
    return checks.CheckResult(
        "pass" if ok else "fail", measured, name, f"floating point (relative {tol.FLOAT_SLACK:g})", message
    )


def _verdict(claim: Claim, res: Any, conds: list, seeds: list, consts: dict, margin: tuple | None = None) -> dict:
    """``claim.verdict`` with a margin when the verdict model offers one (relative resolution of an exact claim)."""
    kwargs: dict[str, Any] = {}
    if margin is not None:
        try:
            from fedrates.verify import margins

            kind, value, scale = margin
            if kind == "resolution":
                kwargs["margin"] = margins.resolution(value)
            elif kind == "slack":  # value = bound/measured
                kwargs["margin"] = margins.slack(value, 1.0)
        except ImportError:
            pass
    try:
        return claim.verdict(res, conditions=conds, seeds=seeds, constants=consts, statement=claim.title, **kwargs)
    except TypeError:
        return claim.verdict(res, conditions=conds, seeds=seeds, constants=consts, statement=claim.title)


@dataclass(frozen=True)
class _ConfigClaim(_DasClaim):
    """A claim over a list of algorithm configurations on one tight-spread quadratic instance (one point each)."""

    problem_params: dict = field(default_factory=lambda: dict(TIGHT))
    configs: tuple = ()
    rounds: int = 30
    offset: float = 6.0
    kind: str = "clip"
    #: runs per claim seed (see :func:`inner_seeds`; Monte-Carlo claims only)
    inner: int = 1

    def points(self, profile: str) -> list[dict]:
        return config_points(self, rounds=self.rounds)

    def _sigma(self, cfg: dict) -> float:
        """σ of the configuration: given, or calibrated by PLD to its ``eps`` over the claim's rounds
        (:func:`config_sigma`)."""
        return config_sigma(cfg, instance(self.problem_params).n, self.rounds)

