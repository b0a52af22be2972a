"""Figures of stored records: measured metric against the swept parameter, on log-log axes.

The same figures serve the HTML report (inline SVG via :func:`to_svg`) and the PDF report. Figures are built
with :class:`matplotlib.figure.Figure` directly (no pyplot state, no GUI backend), so rendering is safe in worker
processes and leaves nothing open.

What a claim figure shows (``records_for_claim`` = the records of one claim, ``verdict`` = its verdict dict):

* one faint line per seed: the metric ``verdict["metric"]`` against the column ``verdict["x"]``; when ``x`` is
  not ``round``, each run contributes its last recorded round (the value the theorem speaks about at that point);
* a bold line: the **arithmetic** mean over seeds at each x (the expectation that rate theorems bound, and the
  quantity whose log-log slope ``fedrates.verify.stats.loglog_slope`` fits);
* the ``bound`` column (theorem right-hand side) as a dashed line, when it has finite values;
* the fitted power law ``exp(intercept) · x^slope`` when the verdict has a ``fit``, labelled with its interval.

Non-positive values cannot be drawn on log axes and are left out (the legend says how many).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

__all__ = ["claim_figure", "format_fit_label", "to_svg"]

_MINUS = "\u2212"


def _plain(text: object) -> str:
    """Text safe for matplotlib: no mathtext interpretation of ``$``."""
    return str(text).replace("$", r"\$")


def _num(value: float) -> str:
    return f"{value:.2f}".replace("-", _MINUS)


def format_fit_label(fit: Mapping[str, Any]) -> str:
    """``"fitted slope −1.02 [−1.08, −0.97]"`` from a ``{slope, lo, hi}`` mapping."""
    label = f"fitted slope {_num(float(fit['slope']))}"
    lo, hi = fit.get("lo"), fit.get("hi")
    if lo is not None and hi is not None:
        label += f" [{_num(float(lo))}, {_num(float(hi))}]"
    return label


def _final_rows(df: pd.DataFrame, x: str) -> pd.DataFrame:
    """Keep, for each run (point, seed) and value of x, its last recorded round, unless x is the round itself.

    A sweep over iterations recorded within one run keeps one row per recorded iteration count; a sweep over
    points (clients, local steps, ...) keeps the final round of each run.
    """
    if x == "round" or "round" not in df.columns:
        return df
    keys = [c for c in ("point", "seed", x) if c in df.columns]
    if not keys:
        return df
    last = df.groupby(keys, sort=False)["round"].transform("max")
    return df[df["round"] == last]


def claim_figure(records_for_claim: pd.DataFrame, verdict: Mapping[str, Any]) -> Figure:
    """Measured metric vs the swept parameter on log-log axes for one claim (see the module docstring).

    Raises ValueError when the verdict names no x column / metric present in the records, or when no positive
    value is left to draw.
    """
    x = verdict.get("x")
    metric = verdict.get("metric")
    claim = str(verdict.get("claim", ""))
    df = records_for_claim
    if not x or x not in df.columns:
        raise ValueError(f"claim '{claim}': x column '{x}' is not in the records")
    if "value" not in df.columns:
        raise ValueError(f"claim '{claim}': records have no 'value' column")
    if metric is not None and "metric" in df.columns:
        df = df[df["metric"] == metric]
    df = _final_rows(df, x)
    if not pd.api.types.is_numeric_dtype(df[x]):
        return _categorical_figure(df, x, metric, claim)
    finite = np.isfinite(df["value"].to_numpy(dtype=float)) & np.isfinite(df[x].to_numpy(dtype=float))
    drawable = finite & (df["value"].to_numpy(dtype=float) > 0) & (df[x].to_numpy(dtype=float) > 0)
    dropped = int(np.count_nonzero(~drawable))
    df = df[drawable]
    if df.empty:
        raise ValueError(f"claim '{claim}': no positive finite '{metric}' values to plot against '{x}'")

    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")

    group_keys = ["point", "seed"] if x == "round" and "point" in df.columns else ["seed"]
    group_keys = [k for k in group_keys if k in df.columns]
    groups = df.groupby(group_keys, sort=True) if group_keys else [((), df)]
    seed_label = "seeds"
    for i, (_, run) in enumerate(groups):
        run = run.sort_values(x)
        ax.plot(
            run[x].to_numpy(dtype=float),
            run["value"].to_numpy(dtype=float),
            color="tab:blue",
            alpha=0.25,
            linewidth=0.8,
            label=seed_label if i == 0 else None,
        )

    n_seeds = int(df["seed"].nunique()) if "seed" in df.columns else 1
    mean = df.groupby(x, sort=True)["value"].mean()
    ax.plot(
        mean.index.to_numpy(dtype=float),
        mean.to_numpy(dtype=float),
        color="tab:blue",
        linewidth=2.2,
        marker="o",
        markersize=3.5,
        label=f"arithmetic mean over {n_seeds} seed{'s' if n_seeds != 1 else ''}",
    )

    if "bound" in df.columns:
        bound = df.groupby(x, sort=True)["bound"].mean()
        bound = bound[np.isfinite(bound.to_numpy(dtype=float)) & (bound.to_numpy(dtype=float) > 0)]
        if len(bound):
            ax.plot(
                bound.index.to_numpy(dtype=float),
                bound.to_numpy(dtype=float),
                color="tab:red",
                linestyle="--",
                linewidth=1.6,
                label="bound (theorem right-hand side)",
            )

    fit = verdict.get("fit")
    if isinstance(fit, Mapping) and fit.get("slope") is not None and fit.get("intercept") is not None:
        xs = np.geomspace(float(mean.index.min()), float(mean.index.max()), 50)
        slope, intercept = float(fit["slope"]), float(fit["intercept"])
        if math.isfinite(slope) and math.isfinite(intercept):
            ax.plot(
                xs,
                np.exp(intercept) * xs**slope,
                color="black",
                linestyle=":",
                linewidth=1.4,
                label=format_fit_label(fit),
            )

    ax.set_xlabel(_plain(x))
    ax.set_ylabel(_plain(metric if metric is not None else "value"))
    ax.set_title(_plain(claim), fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if dropped:  # a legend entry only, not a line of the axes
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(f"{dropped} non-positive/non-finite value(s) not shown")
    ax.legend(handles, labels, fontsize=7, loc="best")
    ax.grid(True, which="major", alpha=0.3)
    return fig


def _categorical_figure(df: pd.DataFrame, x: str, metric: Any, claim: str) -> Figure:
    """Comparison claims (x is a category such as the algorithm): each seed's value per category as a dot, the
    seeds paired across categories by faint lines, the arithmetic mean as a bar outline; log y axis."""
    values = df["value"].to_numpy(dtype=float)
    df = df[np.isfinite(values) & (values > 0)]
    if df.empty:
        raise ValueError(f"claim '{claim}': no positive finite '{metric}' values to plot against '{x}'")
    categories = list(dict.fromkeys(df[x].astype(str)))
    position = {c: i for i, c in enumerate(categories)}
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ax.set_yscale("log")
    if "seed" in df.columns:
        for i, (_, run) in enumerate(df.groupby("seed", sort=True)):
            xs = [position[str(c)] for c in run[x]]
            order = np.argsort(xs)
            ax.plot(np.asarray(xs)[order], run["value"].to_numpy(dtype=float)[order], color="tab:blue",
                    alpha=0.2, linewidth=0.8, marker="o", markersize=2.5, label="seeds (paired)" if i == 0 else None)
    mean = df.groupby(df[x].astype(str), sort=False)["value"].mean().reindex(categories)
    ax.bar(range(len(categories)), mean.to_numpy(dtype=float), fill=False, edgecolor="black", linewidth=1.4,
           label="arithmetic mean over seeds")
    ax.set_xticks(range(len(categories)), [_plain(c) for c in categories], rotation=20)
    ax.set_xlabel(_plain(x))
    ax.set_ylabel(_plain(metric if metric is not None else "value"))
    ax.set_title(_plain(claim), fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, axis="y", which="major", alpha=0.3)
    return fig


_XML_PROLOGUE = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*", re.IGNORECASE)
_NAMESPACE_ATTR = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def to_svg(fig: Figure, id_prefix: str = "") -> str:
    """Render ``fig`` as inline SVG text for an HTML page; the figure is closed (cleared) afterwards.

    ``id_prefix`` is prepended to every element id (and reference to it) so that several figures can share one
    page without id collisions.

    The XML prologue, DOCTYPE, RDF metadata and namespace declarations are removed: inside HTML the parser
    supplies the SVG and XLink namespaces, and the page then contains no external URL at all. Text is drawn
    as paths (no font files needed).
    """
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", metadata={"Date": None})
    finally:
        _close(fig)
    svg = buf.getvalue()
    svg = _XML_PROLOGUE.sub("", svg)
    svg = _METADATA.sub("", svg)
    svg = _NAMESPACE_ATTR.sub("", svg)
    if id_prefix:
        if not re.fullmatch(r"[A-Za-z][\w-]*", id_prefix):
            raise ValueError(f"id_prefix must be letters, digits, '_' or '-', got '{id_prefix}'")
        svg = re.sub(r'\bid="', f'id="{id_prefix}', svg)
        svg = re.sub(r'href="#', f'href="#{id_prefix}', svg)
        svg = re.sub(r"url\(#", f"url(#{id_prefix}", svg)
    return svg.strip()


def _close(fig: Figure) -> None:
    manager = getattr(fig.canvas, "manager", None)
    if manager is not None:  # a pyplot-managed figure: release it from pyplot's registry
        import matplotlib.pyplot as plt

        plt.close(fig)
    else:
        fig.clear()
