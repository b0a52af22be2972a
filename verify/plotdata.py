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

import functools
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fedrates.verify import tolerances as tol

__all__ = ["plot_spec", "final_rows", "discriminating", "fill_missing", "params_keys", "resolve"]

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


@functools.lru_cache(maxsize=256)
def _t_quantile(p: float, dof: int) -> float:
    """Student's t quantile (computed once per size: a figure's points mostly share one)."""
    from scipy.stats import t

    return float(t.ppf(p, dof))


def _t_interval(values: np.ndarray, confidence: float = tol.CONFIDENCE) -> tuple[float, float, float]:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if values.size < 2:
        return mean, mean, mean
    half = float(_t_quantile(0.5 + confidence / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size))
    return mean, mean - half, mean + half


def _bootstrap_bounds(values: np.ndarray) -> tuple[float, float, float]:
    """Mean with the one-sided 95% studentized-bootstrap bounds that ``bound_holds`` compares with the bound."""
    from fedrates.verify import stats

    values = values[np.isfinite(values)]
    mean = float(values.mean()) if values.size else math.nan
    if values.size < 2:
        return mean, mean, mean
    # the fixed stream of verify.checks, for each bound
    lo, hi = stats.mean_bootstrap_bounds(values, tol.CONFIDENCE, rng=np.random.default_rng(20220717))
    return mean, lo, hi


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


#: words for the swept variables and metrics the claims use (axis labels: words with the paper's symbol)
LABELS: dict[str, str] = {
    "round": "communication round t", "rounds": "communication rounds T", "iterations": "iterations T",
    "iteration": "iteration k", "local_steps": "local steps τ", "tau": "local steps τ", "clients": "clients n",
    "participating": "participating clients S", "batch": "batch size b", "dim": "dimension d", "seed": "seed",
    "mu": "regularisation μ", "beta": "step parameter β", "delta_g": "similarity δ_g", "delta_f": "similarity δ_f",
    "delta_f/mu": "δ_f / μ", "epoch": "epoch s", "direction": "direction", "device": "device k", "step": "step k",
    "algorithm": "algorithm", "metric": "recorded quantity", "sigma": "noise σ", "L": "smoothness L",
    "objective_gap": "objective gap f(x) − f*", "gap": "objective gap f(x) − f*", "grad_sq": "squared gradient ‖∇f‖²",
    "grad_norm_sq": "squared gradient ‖∇f‖²", "dist_sq": "squared distance ‖x − x*‖²", "rounds_f": "rounds to ε",
    "rounds_g": "rounds to ε", "ratio": "ratio", "tau_max_svrg": "largest τ (SVRG)", "error": "error",
    "projection": "projection", "lyapunov": "Lyapunov function Ψ", "value": "value",
}


def axis_label(name: str | None) -> str:
    """An axis label in words with the paper's symbol (``"objective gap f(x) − f*"``); unknown names are returned
    with underscores as spaces."""
    if not name:
        return "value"
    return LABELS.get(str(name), str(name).replace("_", " "))


def _params_column(df: pd.DataFrame, key: str) -> pd.Series | None:
    """The value of ``key`` in each row's ``params`` JSON (None when no row has a scalar value for it); ``a/b``
    gives the ratio of two parameters."""
    if "params" not in df.columns or df.empty:
        return None
    import json

    cache: dict[str, dict[str, Any]] = {}

    def parse(text: Any) -> dict[str, Any]:
        if not isinstance(text, str):
            return {}
        if text not in cache:
            try:
                obj = json.loads(text)
            except ValueError:
                obj = {}
            cache[text] = obj if isinstance(obj, dict) else {}
        return cache[text]

    def get(obj: dict[str, Any], name: str) -> Any:
        if "/" in name:
            a, b = name.split("/", 1)
            va, vb = obj.get(a), obj.get(b)
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and vb:
                return float(va) / float(vb)
            return None
        v = obj.get(name)
        return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else None

    values = [get(parse(t), key) for t in df["params"]]
    if all(v is None for v in values):
        return None
    out = pd.Series(values, index=df.index)
    numeric = pd.to_numeric(out, errors="coerce")
    return numeric if numeric.notna().all() else out.astype(str)


def params_keys(df: pd.DataFrame) -> set[str]:
    """Names of the scalar parameters in the records' ``params`` JSON column (variables a figure can use as x)."""
    import json

    keys: set[str] = set()
    if "params" not in df.columns:
        return keys
    for text in df["params"].dropna().unique()[:50]:
        try:
            obj = json.loads(text)
        except (TypeError, ValueError):
            continue
        if isinstance(obj, dict):
            keys |= {k for k, v in obj.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
    return keys


def _suffix_value(suffix: str) -> Any:
    try:
        return float(suffix) if "." in suffix or "e" in suffix.lower() else int(suffix)
    except ValueError:
        return suffix


def resolve(records: pd.DataFrame, x: str | None, metric: str | None, *,
            claim: str = "") -> tuple[pd.DataFrame, str, str | None, str]:
    """The rows of ``metric`` with the variable ``x`` as a column: ``(rows, x column, metric, note)``.

    The records keep some swept variables inside the ``params`` JSON column (or as a suffix of the metric name,
    ``gap_0, gap_1, …``), and some claims record their quantities under names other than the declared metric. In
    order: ``x`` as a column; ``x`` from ``params`` (``a/b`` as a ratio of two parameters); metrics named
    ``<metric>_<value>`` (x from the suffix, or from the list ``params[x + "s"]`` indexed by it); metrics named after
    the categories of ``x`` (``x == "algorithm"``); else every recorded quantity of the claim side by side
    (x = the metric name), which ``note`` says. A variable found nowhere is pooled (one group). Rows keep the last
    recorded round of each run (:func:`final_rows`) and finite values only. Raises ValueError when the records hold
    no finite value at all.
    """
    if "value" not in records.columns:
        raise ValueError(f"claim '{claim}': records have no 'value' column")
    df = records[np.isfinite(pd.to_numeric(records["value"], errors="coerce").to_numpy(dtype=float))]
    if df.empty:
        raise ValueError(f"claim '{claim}': no finite values in the records")
    note = ""
    names = [str(m) for m in df["metric"].unique()] if "metric" in df.columns else []
    if metric is not None and "metric" in df.columns and metric not in names:
        family = [m for m in names if m.startswith(f"{metric}_") and m != metric]
        if family:
            df = df[df["metric"].isin(family)].copy()
            suffix = df["metric"].astype(str).str.slice(len(metric) + 1)
            # one conversion per distinct suffix (a claim may record hundreds of thousands of rows)
            distinct = {u: _suffix_value(u) for u in suffix.unique()}
            listed = _params_list(df, f"{x}s") if x else None
            if listed is not None and all(isinstance(v, int) and 0 <= v < len(listed) for v in distinct.values()):
                distinct = {u: listed[v] for u, v in distinct.items()}
            numeric = all(isinstance(v, (int, float)) for v in distinct.values())
            df[x or "index"] = suffix.map(distinct if numeric else {u: str(v) for u, v in distinct.items()}).to_numpy()
            return final_rows(df, x or "index"), x or "index", metric, ""
        categorical = x is not None and (x not in df.columns or not pd.api.types.is_numeric_dtype(df[x]))
        if categorical and len(names) > 1 and (x not in df.columns or df[x].nunique() < 2):
            df = df.copy()
            df[x] = df["metric"].astype(str)
            return final_rows(df, x), x, None, ""
        df = df.copy()
        note = (f"the records hold no '{metric}'" + (f" against '{x}'" if x else "")
                + "; every recorded quantity of the claim is shown")
        df["metric_name"] = df["metric"].astype(str)
        return final_rows(df, "metric_name"), "metric_name", None, note
    if metric is not None and "metric" in df.columns:
        df = df[df["metric"] == metric]
    if x and x not in df.columns:
        column = _params_column(df, x)
        df = df.copy()
        if column is not None:
            df[x] = column
        elif x in ("iteration", "step", "epoch") and "round" in df.columns and df["round"].nunique() > 1:
            df[x] = df["round"]
        elif "point" in df.columns and df["point"].nunique() > 1:
            df[x] = df["point"].map(lambda p: f"point {p}")
            note = f"'{x}' is not recorded: one group per sweep point"
        else:
            df[x] = "all runs"
            note = f"'{x}' is not recorded: the runs are pooled"
    if not x:
        df = df.copy()
        x = "point"
        if x not in df.columns:
            df[x] = 0
    return final_rows(df, x), x, metric, note


def _params_list(df: pd.DataFrame, key: str) -> list[Any] | None:
    """``params[key]`` when it is a list (the same in every row), else None."""
    if "params" not in df.columns or df.empty:
        return None
    import json

    try:
        obj = json.loads(df["params"].iloc[0])
    except (TypeError, ValueError):
        return None
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else None


def plot_spec(records: pd.DataFrame, verdict: Mapping[str, Any], *, metric: str | None = None,
              x: str | None = None) -> dict[str, Any]:
    """The figure description of one claim (see the module docstring); ``metric``/``x`` override the verdict's.

    Raises ValueError when the records hold no finite value of the metric against x.
    """
    declared_x = x or verdict.get("x")
    declared_metric = metric or verdict.get("metric")
    claim = str(verdict.get("claim", ""))
    df, x, metric, note = resolve(records, declared_x, declared_metric, claim=claim)
    own = (metric == verdict.get("metric") and x == verdict.get("x")) and not note
    kind = _kind(verdict) if own else "mean"
    categorical = not pd.api.types.is_numeric_dtype(df[x]) or x == "seed"
    groups = df.groupby(df[x].astype(str) if categorical else x, sort=not categorical)
    # each group's values, in the order of the groups and of the rows (as iterating the groups gives them), taken
    # from one array: slicing a frame per group costs more than the statistics for figures of hundreds of rounds
    sizes = groups.size()
    xs = list(sizes.index)
    values = df["value"].to_numpy(dtype=float)
    where = groups.indices
    per_x = [values[where[k]] for k in xs]
    q = None
    if kind == "quantile":
        q = _num(_QUANTILE.search(str(verdict["predicted"])).group(1))
        stat = [_quantile(v, q) for v in per_x]
        statistic = f"empirical {q:g}-quantile over seeds"
        interval = f"{tol.CONFIDENCE:.0%} order-statistic interval of the quantile"
    elif kind == "bound":
        stat = [_bootstrap_bounds(v) for v in per_x]
        statistic = "arithmetic mean over seeds"
        interval = f"{tol.CONFIDENCE:.0%} one-sided studentized-bootstrap bounds of the mean"
    else:
        stat = [_t_interval(v) for v in per_x]
        statistic = "arithmetic mean over seeds"
        interval = f"{tol.CONFIDENCE:.0%} t-interval of the mean"
    if all(len(v) == 1 for v in per_x):
        statistic, interval = "value (one run per point)", "none (deterministic given the seed)"
    spec: dict[str, Any] = {
        "claim": claim, "x": x, "metric": metric, "categorical": bool(categorical), "kind": kind,
        "statistic": statistic, "interval": interval,
        "points": {"x": [str(v) if categorical else float(v) for v in xs],
                   "center": [s[0] for s in stat], "lo": [s[1] for s in stat], "hi": [s[2] for s in stat]},
        "seeds": int(df["seed"].nunique()) if "seed" in df.columns else 1,
        "prediction": None, "bound_ratio": verdict.get("bound_ratio") if own else None,
        "loose": verdict.get("loose") if own else None,
        "declared_x": declared_x, "declared_metric": declared_metric, "note": note,
        "label": axis_label(x), "metric_label": axis_label(metric if metric else "value"),
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
