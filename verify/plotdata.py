"""What a claim's figure shows, computed from its records and verdict with the statistics its check uses.

:func:`plot_spec` returns a JSON-able dict stored in the verdict under ``"plot"`` (and rebuilt by ``fedrates plot``);
:mod:`fedrates.reports.figures` draws it without importing any numerics of ours. The spec holds

* ``statistic`` — the statistic the claim's check tests, with its interval, at every x (``points``):
  the arithmetic mean with a 95% confidence interval (rate, speedup, calibrated-constant, comparison and
  exact-expectation checks; bound checks use the studentized-bootstrap bounds of ``bound_holds``), or the empirical
  (1 − δ)-quantile with its distribution-free order-statistic interval (high-probability checks);
* ``prediction`` — what the claim predicts, on the same axes: the predicted slope with its tolerance band (anchored
  where the fitted line crosses the middle of the sweep), the bound curve (the records' ``bound`` column, or the
  catalogued theorem's explicit right-hand side at the verdict's constants), the calibrated ``C·rhs`` with the held-out
  band ``C(1 + margin)·rhs``, the exact expectation, or the ordering of a comparison;
* ``bound_ratio`` / ``loose`` — max statistic/bound of a bound claim, flagged loose below ``1/LOOSE_RATIO``.

The kind of check is read from the verdict (``fit`` → rate; ``calibrated_constant`` → order bound; ``predicted``
``"P(X ≤ bound) ≥ q"`` → quantile; ``"measured ≤ bound"`` → bound; ``"exact …"`` → exact expectation; ``"A < B"`` →
comparison), so claims added later get the right figure without code here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fedrates.verify import tolerances as tol

__all__ = ["plot_spec", "final_rows", "discriminating", "fill_missing"]

_QUANTILE = re.compile(r"P\(X\s*≤\s*bound\)\s*≥\s*([0-9.eE+-]+)")
_SLOPE = re.compile(r"slope\s+([-−+]?[0-9.eE+-]+)")
_PLUSMINUS = re.compile(r"±\s*([0-9.eE+-]+)")
_MARGIN = re.compile(r"margin\s+([0-9.eE+-]+)")
_COMPARE = re.compile(r"^\s*([\w.-]+)\s*<\s*([\w.-]+)\s*$")


def final_rows(df: pd.DataFrame, x: str) -> pd.DataFrame:
    """For each run (point, seed) and value of x keep its last recorded round, unless x is the round itself."""
    if x == "round" or "round" not in df.columns:
        return df
    keys = [c for c in ("point", "seed", x) if c in df.columns]
    if not keys:
        return df
    last = df.groupby(keys, sort=False)["round"].transform("max")
    return df[df["round"] == last]


def _num(text: str) -> float:
    return float(text.replace("−", "-"))


def _kind(verdict: Mapping[str, Any]) -> str:
    predicted = str(verdict.get("predicted", ""))
    fit = verdict.get("fit")
    if isinstance(fit, Mapping) and fit.get("slope") is not None:
        return "slope"
    if verdict.get("calibrated_constant") is not None:
        return "calibrated"
    if _QUANTILE.search(predicted):
        return "quantile"
    if "≤ bound" in predicted:
        return "bound"
    if predicted.startswith("exact"):
        return "exact"
    if _COMPARE.match(predicted):
        return "comparison"
    return "mean"


def _t_interval(values: np.ndarray, confidence: float = tol.CONFIDENCE) -> tuple[float, float, float]:
    from scipy.stats import t

    values = values[np.isfinite(values)]
    if values.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if values.size < 2:
        return mean, mean, mean
    half = float(t.ppf(0.5 + confidence / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size))
    return mean, mean - half, mean + half


def _bootstrap_bounds(values: np.ndarray) -> tuple[float, float, float]:
    """Mean with the one-sided 95% studentized-bootstrap bounds that ``bound_holds`` compares with the bound."""
    from fedrates.verify import stats

    values = values[np.isfinite(values)]
    mean = float(values.mean()) if values.size else math.nan
    if values.size < 2:
        return mean, mean, mean
    rng = np.random.default_rng(20220717)  # the fixed stream of verify.checks
    lo = stats.mean_lower_bound(values, tol.CONFIDENCE, method="bootstrap-t", rng=rng)
    rng = np.random.default_rng(20220717)
    hi = stats.mean_upper_bound(values, tol.CONFIDENCE, method="bootstrap-t", rng=rng)
    return mean, float(lo), float(hi)


def _quantile(values: np.ndarray, q: float) -> tuple[float, float, float]:
    from fedrates.verify import stats

    values = values[np.isfinite(values)]
    center = float(np.quantile(values, q))
    try:
        lo = float(stats.quantile_lower_bound(values, q, tol.CONFIDENCE))
    except ValueError:
        lo = -math.inf
    try:
        hi = float(stats.quantile_upper_bound(values, q, tol.CONFIDENCE))
    except ValueError:
        hi = math.inf
    return center, lo, hi


def _theorem_curve(verdict: Mapping[str, Any], x: str, xs: list[Any]) -> list[float] | None:
    """The catalogued theorem's rhs at the verdict's constants with the swept symbol set to each x (None when
    the theorem is not catalogued or its rhs cannot be evaluated there)."""
    constants = verdict.get("constants") or {}
    if not constants:
        return None
    try:
        from fedrates.bounds import catalog

        theorem = catalog.get(str(verdict.get("theorem", "")))
    except Exception:  # noqa: BLE001 - experimental claims have no catalogued theorem
        return None
    symbol = next((s for s, v in theorem.vocabulary().items() if v == x), None)
    symbol = symbol or (x if x in theorem.symbols else None)
    out = []
    for value in xs:
        values = dict(constants)
        if symbol is not None:
            values[symbol] = float(value)
        try:
            out.append(float(theorem.evaluate(values)))
        except Exception:  # noqa: BLE001 - missing or invalid constants: no curve
            return None
    return out


def _finite(values: list[float]) -> bool:
    return bool(values) and all(v is not None and math.isfinite(v) and v > 0 for v in values)


def plot_spec(records: pd.DataFrame, verdict: Mapping[str, Any], *, metric: str | None = None,
              x: str | None = None) -> dict[str, Any]:
    """The figure description of one claim (see the module docstring); ``metric``/``x`` override the verdict's.

    Raises ValueError when the records hold no finite value of the metric against x.
    """
    x = x or verdict.get("x")
    metric = metric or verdict.get("metric")
    claim = str(verdict.get("claim", ""))
    if not x or x not in records.columns:
        raise ValueError(f"claim '{claim}': x column '{x}' is not in the records")
    df = records
    if metric is not None and "metric" in df.columns:
        df = df[df["metric"] == metric]
    df = final_rows(df, x)
    df = df[np.isfinite(df["value"].to_numpy(dtype=float))]
    if df.empty:
        raise ValueError(f"claim '{claim}': no finite '{metric}' values against '{x}'")
    own = metric == verdict.get("metric") and x == verdict.get("x")
    kind = _kind(verdict) if own else "mean"
    categorical = not pd.api.types.is_numeric_dtype(df[x]) or x == "seed"
    groups = df.groupby(df[x].astype(str) if categorical else x, sort=not categorical)
    xs = [k for k, _ in groups]
    q = None
    if kind == "quantile":
        q = _num(_QUANTILE.search(str(verdict["predicted"])).group(1))
        stat = [_quantile(g["value"].to_numpy(dtype=float), q) for _, g in groups]
        statistic = f"empirical {q:g}-quantile over seeds"
        interval = f"{tol.CONFIDENCE:.0%} order-statistic interval of the quantile"
    elif kind == "bound":
        stat = [_bootstrap_bounds(g["value"].to_numpy(dtype=float)) for _, g in groups]
        statistic = "arithmetic mean over seeds"
        interval = f"{tol.CONFIDENCE:.0%} one-sided studentized-bootstrap bounds of the mean"
    else:
        stat = [_t_interval(g["value"].to_numpy(dtype=float)) for _, g in groups]
        statistic = "arithmetic mean over seeds"
        interval = f"{tol.CONFIDENCE:.0%} t-interval of the mean"
    if all(len(g) == 1 for _, g in groups):
        statistic, interval = "value (one run per point)", "none (deterministic given the seed)"
    spec: dict[str, Any] = {
        "claim": claim, "x": x, "metric": metric, "categorical": bool(categorical), "kind": kind,
        "statistic": statistic, "interval": interval,
        "points": {"x": [str(v) if categorical else float(v) for v in xs],
                   "center": [s[0] for s in stat], "lo": [s[1] for s in stat], "hi": [s[2] for s in stat]},
        "seeds": int(df["seed"].nunique()) if "seed" in df.columns else 1,
        "prediction": None, "bound_ratio": verdict.get("bound_ratio") if own else None,
        "loose": verdict.get("loose") if own else None,
    }
    bound_curve = None
    if "bound" in df.columns:
        b = df.groupby(df[x].astype(str) if categorical else x, sort=not categorical)["bound"].mean()
        vals = [float(b[k]) for k in xs]
        if _finite(vals):
            bound_curve = vals
    predicted_text = str(verdict.get("predicted", ""))
    if kind == "slope":
        fit = verdict["fit"]
        m = _SLOPE.search(predicted_text)
        t = _PLUSMINUS.search(str(verdict.get("tolerance", "")))
        slope = _num(m.group(1)) if m else None
        xf = np.asarray(xs, dtype=float)
        xc = float(np.exp(np.mean(np.log(xf[xf > 0])))) if np.any(xf > 0) else float("nan")
        yc = float(np.exp(float(fit["intercept"])) * xc ** float(fit["slope"])) if fit.get("intercept") is not None \
            else float("nan")
        spec["prediction"] = {"kind": "slope", "slope": slope, "tolerance": _num(t.group(1)) if t else None,
                              "anchor_x": xc, "anchor_y": yc, "fit": dict(fit)}
    elif kind == "calibrated":
        rhs = _theorem_curve(verdict, x, xs)
        C = float(verdict["calibrated_constant"])
        m = _MARGIN.search(str(verdict.get("tolerance", "")))
        margin = _num(m.group(1)) if m else tol.CONSTANT_MARGIN
        if rhs is not None and _finite(rhs):
            spec["prediction"] = {"kind": "calibrated", "x": spec["points"]["x"], "y": [C * r for r in rhs],
                                  "upper": [C * (1 + margin) * r for r in rhs], "constant": C, "margin": margin}
    elif kind in ("bound", "quantile", "mean"):
        curve = bound_curve
        source = "records"
        if curve is None and kind != "mean":
            curve, source = _theorem_curve(verdict, x, xs), "theorem"
        if curve is not None and _finite(curve):
            spec["prediction"] = {"kind": "bound", "x": spec["points"]["x"], "y": curve, "source": source}
    elif kind == "exact":
        col = "expected" if "expected" in df.columns else "bound"
        e = df.groupby(df[x].astype(str) if categorical else x, sort=not categorical)[col].mean()
        vals = [float(e[k]) for k in xs]
        if all(math.isfinite(v) for v in vals):
            spec["prediction"] = {"kind": "exact", "x": spec["points"]["x"], "y": vals,
                                  "tolerance": str(verdict.get("tolerance", ""))}
    elif kind == "comparison":
        m = _COMPARE.match(predicted_text)
        spec["prediction"] = {"kind": "comparison", "better": m.group(1), "worse": m.group(2)}
    pred = spec["prediction"]
    if pred is not None and pred["kind"] in ("bound",) and spec["bound_ratio"] is None:
        ratios = [c / b for c, b in zip(spec["points"]["center"], pred["y"], strict=True) if math.isfinite(c)]
        if ratios:
            spec["bound_ratio"] = float(max(ratios))
            spec["loose"] = bool(spec["bound_ratio"] < 1.0 / tol.LOOSE_RATIO)
            spec["bound_ratio_source"] = f"max {statistic}/bound (computed for the report)"
    return spec


def fill_missing(records: pd.DataFrame, verdicts: list[dict[str, Any]]) -> None:
    """Give verdicts stored without a figure description (written by older versions) one computed from the stored
    records, and its bound ratio when the verdict has none (in place)."""
    for v in verdicts:
        if "plot" in v or v.get("verdict") in ("error", "conditions-not-met") or not v.get("x"):
            continue
        rows = records[records["claim"] == v.get("claim")] if "claim" in records.columns else records.iloc[0:0]
        if rows.empty:
            continue
        try:
            v["plot"] = plot_spec(rows, v)
        except (ValueError, KeyError, TypeError):
            continue
        if v.get("bound_ratio") is None and v["plot"].get("bound_ratio") is not None:
            v["bound_ratio"], v["loose"] = v["plot"]["bound_ratio"], v["plot"]["loose"]


def discriminating(claim_ids: list[str]) -> dict[str, list[str]]:
    """claim id → ids of the broken variants (of ``fedrates.verify.variants.all_variants()``) that name it."""
    from fedrates.verify.variants import all_variants

    out: dict[str, list[str]] = {cid: [] for cid in claim_ids}
    for variant in all_variants():
        for cid in variant.claim_ids(list(claim_ids)):
            out[cid].append(variant.id)
    return out
