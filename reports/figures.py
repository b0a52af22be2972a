"""Figures of stored records: what a claim measured, next to what it predicted, on the same axes.

The same figures serve the HTML report (inline SVG via :func:`to_svg`), the PDF report and ``fedrates plot``.
Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state, no GUI backend), so rendering is
safe in worker processes and leaves nothing open.

A claim figure draws the verdict's ``plot`` description (computed by :mod:`fedrates.verify.plotdata` with the
statistics of the claim's check):

* faint lines/dots: every seed's value of the metric against the swept parameter (last recorded round of each run
  unless the parameter is the round itself); a categorical figure draws at most :data:`SEED_MARKERS` dots per value,
  evenly spaced in seed order, and its legend says so;
* markers with error bars: the statistic the check tests (arithmetic mean, or the (1 − δ)-quantile of a
  high-probability claim) with its interval;
* the prediction: the predicted slope with its tolerance band (a fan through the fitted line at the middle of the
  sweep) next to the fitted power law; the bound curve (theorem right-hand side); the calibrated ``C·rhs`` with the
  held-out band ``C(1 + margin)·rhs``; the exact expectation; or the predicted ordering of a comparison;
* a red "loose" stamp when the largest measured/bound ratio is below 10⁻³ (the bound cannot discriminate).

Verdicts without a ``plot`` description (files written by older versions) get one computed from the records.
Non-positive values cannot be drawn on log axes; the axes are then linear.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping
from typing import Any

import matplotlib
import matplotlib.ticker
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["SEED_MARKERS", "claim_figure", "draw_claim", "format_fit_label", "plain_log_ticks", "prefix_ids",
           "thin_per_group", "to_svg", "VERDICT_COLOURS"]

_MINUS = "\u2212"

#: colour of each verdict (figures, PDF headers)
VERDICT_COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "erratum": "#e08a00", "conditions-not-met": "#5e4fa2",
                   "inconclusive": "#9a7d00", "error": "#3b0a0a"}


def _plain(text: object) -> str:
    """Text safe for matplotlib: no mathtext interpretation of ``$``."""
    return str(text).replace("$", r"\$")


def _num(value: float) -> str:
    return f"{value:.2f}".replace("-", _MINUS)


def _f(value: Any) -> float:
    """A JSON number back to float (null → NaN, "inf"/"-inf" → ±inf)."""
    if value is None:
        return math.nan
    if isinstance(value, str):
        return {"inf": math.inf, "-inf": -math.inf}.get(value, math.nan)
    return float(value)


def _label(value: Any) -> str:
    """A category or single x value as text (integral floats without ``.0``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def format_fit_label(fit: Mapping[str, Any]) -> str:
    """``"fitted slope −1.02 [−1.08, −0.97]"`` from a ``{slope, lo, hi}`` mapping."""
    label = f"fitted slope {_num(float(fit['slope']))}"
    lo, hi = fit.get("lo"), fit.get("hi")
    if lo is not None and hi is not None:
        label += f" [{_num(float(lo))}, {_num(float(hi))}]"
    return label


def claim_figure(records_for_claim: pd.DataFrame, verdict: Mapping[str, Any],
                 spec: Mapping[str, Any] | None = None) -> Figure:
    """One claim's figure (see the module docstring) on a figure of its own.

    Raises ValueError when the verdict names no x column / metric present in the records, or when there is no
    finite value to draw.
    """
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    draw_claim(fig.add_subplot(), records_for_claim, verdict, spec)
    return fig


#: at most this many per-seed markers are drawn at one x value of a categorical figure: beyond it they only blacken
#: the column and swell the report (the statistic and its interval are computed from every seed)
SEED_MARKERS = 60


def thin_per_group(groups: np.ndarray, order: np.ndarray, limit: int) -> np.ndarray:
    """A boolean mask keeping at most ``limit`` entries of each value of ``groups``: all of a group with at most
    ``limit`` entries, else the entries of ranks ⌈j·n/limit⌉, j = 0..limit−1, in ``order`` within the group (n its
    size) — evenly spaced, the same entries in every run."""
    n = len(groups)
    keep = np.ones(n, dtype=bool)
    if n <= limit:
        return keep
    _, gid = np.unique(np.asarray(groups), return_inverse=True)
    by = np.lexsort((np.asarray(order), gid))  # by group, then by order
    g_sorted = gid[by]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    sizes = np.diff(np.r_[starts, n])
    size = np.repeat(sizes, sizes)
    rank = np.arange(n) - np.repeat(starts, sizes)
    # rank r is some ⌈j·n/limit⌉ iff (r·limit)//n > ((r − 1)·limit)//n (r = 0 always)
    chosen = (size <= limit) | ((rank * limit) // size > ((rank - 1) * limit) // size)
    keep[by] = chosen
    return keep


def _rows(records: pd.DataFrame, verdict: Mapping[str, Any], spec: Mapping[str, Any] | None) -> pd.DataFrame:
    """The rows the figure draws, with its x variable as a column (see :func:`fedrates.verify.plotdata.resolve`)."""
    from fedrates.verify.plotdata import resolve

    spec = spec or {}
    x = spec.get("declared_x") or spec.get("x") or verdict.get("x")
    metric = spec.get("declared_metric") or spec.get("metric") or verdict.get("metric")
    df, _, _, _ = resolve(records, x, metric, claim=str(verdict.get("claim", "")))
    return df


def draw_claim(ax: Axes, records: pd.DataFrame, verdict: Mapping[str, Any],
               spec: Mapping[str, Any] | None = None) -> Axes:
    """Draw one claim's figure into ``ax``; ``spec`` defaults to ``verdict["plot"]`` (else a fallback)."""
    spec = spec if spec is not None else verdict.get("plot")
    if not isinstance(spec, Mapping) or (spec.get("x") not in records.columns and "declared_x" not in spec):
        from fedrates.verify.plotdata import plot_spec

        spec = plot_spec(records, verdict)
    df = _rows(records, verdict, spec)
    x = spec["x"]
    points = spec["points"]
    centers = np.array([_f(v) for v in points["center"]])
    lows = np.array([_f(v) for v in points["lo"]])
    highs = np.array([_f(v) for v in points["hi"]])
    prediction = spec.get("prediction") or {}
    pred_y = np.array([_f(v) for v in prediction.get("y", [])]) if "y" in prediction else np.array([])
    single = len(points["x"]) == 1
    categorical = bool(spec.get("categorical")) or single
    values = df["value"].to_numpy(dtype=float)
    shown = np.concatenate([values, centers, pred_y])
    shown = shown[np.isfinite(shown)]
    positive = bool(np.all(shown > 0))
    # log axes when positive and spanning more than a decade (inside one decade they only hide the tick labels)
    if positive and shown.max() > 10 * shown.min():
        ax.set_yscale("log")
    if categorical:
        labels = [_label(v) for v in points["x"]]
        pos = {lab: i for i, lab in enumerate(labels)}
        xcol = df[x].astype(str) if not single else pd.Series([labels[0]] * len(df), index=df.index)
        px = np.array([pos.get(v, np.nan) for v in xcol], dtype=float)
        order = df["seed"].to_numpy() if "seed" in df.columns and x != "seed" else np.arange(len(df))
        keep = thin_per_group(px, order, SEED_MARKERS)
        shown_px, shown_values, shown_order = px[keep], values[keep], order[keep]
        jitter = (np.argsort(np.argsort(shown_order, kind="stable")) / max(len(shown_order), 1) - 0.5) * 0.3 \
            if "seed" in df.columns and x != "seed" else 0.0
        label = "seeds"
        if not keep.all():
            most = int(np.max(np.unique(px[np.isfinite(px)], return_counts=True)[1], initial=0))
            label = f"seeds ({SEED_MARKERS} of up to {most} per value shown, evenly spaced)"
        ax.scatter(shown_px + jitter, shown_values, s=9, color="tab:blue", alpha=0.35, label=label, zorder=2)
        xpos = np.arange(len(labels), dtype=float)
        ax.set_xticks(xpos, [_plain(lab) for lab in labels], rotation=20 if len(labels) > 3 else 0)
        ax.set_xlim(-0.6, len(labels) - 0.4)
    else:
        xpos = np.array([_f(v) for v in points["x"]])
        if np.all(xpos > 0):
            ax.set_xscale("log")
        group = ["point", "seed"] if x == "round" and "point" in df.columns else ["seed"]
        group = [g for g in group if g in df.columns]
        runs = df.groupby(group, sort=True) if group else [((), df)]
        for i, (_, run) in enumerate(runs):
            run = run.sort_values(x)
            ax.plot(run[x].to_numpy(dtype=float), run["value"].to_numpy(dtype=float), color="tab:blue", alpha=0.2,
                    linewidth=0.7, marker="." if len(run) < 3 else None, markersize=2,
                    label="seeds" if i == 0 else None, zorder=1)
    err = np.vstack([np.clip(centers - lows, 0, None), np.clip(highs - centers, 0, None)])
    err = np.where(np.isfinite(err), err, 0.0)
    ax.errorbar(xpos, centers, yerr=err, fmt="o", color="tab:blue", markersize=4.5, capsize=3, linewidth=1.6,
                label=f"{spec.get('statistic', 'mean')} ({spec.get('interval', '')})", zorder=4)
    _draw_prediction(ax, spec, prediction, xpos, categorical, single)
    verdict_key = str(verdict.get("verdict", ""))
    ax.set_title(_plain(f"{verdict.get('claim', '')} — {verdict_key}"), fontsize=9,
                 color=VERDICT_COLOURS.get(verdict_key, "black"), loc="left",
                 y=1.0)  # placed, not searched for: ticks are never on top (a tenth of a page's drawing time)
    from fedrates.verify.plotdata import axis_label

    xlabel = spec.get("label") or axis_label(x)
    ax.set_xlabel(_plain(xlabel if not single else f"{xlabel} = {_label(points['x'][0])}"), fontsize=10)
    ax.set_ylabel(_plain(spec.get("metric_label") or axis_label(spec.get("metric"))), fontsize=10)
    if spec.get("note"):
        ax.text(0.01, 0.99, _plain(spec["note"]), transform=ax.transAxes, ha="left", va="top", fontsize=7.5,
                color="#555555", wrap=True, zorder=6)
    if spec.get("loose"):
        ratio = spec.get("bound_ratio")
        text = "LOOSE bound" + (f": measured/bound = {_f(ratio):.2g} < 1e-3" if ratio is not None else "")
        ax.text(0.98, 0.03, text, transform=ax.transAxes, ha="right", va="bottom", fontsize=8, color="#b00020",
                weight="bold", bbox={"facecolor": "white", "edgecolor": "#b00020", "boxstyle": "round"}, zorder=6)
    # inside the axes, where it hides the least data, at body text size
    ax.legend(fontsize=8, loc="best", framealpha=0.85)
    ax.grid(True, which="major", alpha=0.3)
    plain_log_ticks(ax)
    return ax


_SUPERSCRIPT = str.maketrans("0123456789-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻")
#: what matplotlib's log formatter writes as mathtext: an optional "m\times" and 10^{e}
_SCI = re.compile(r"^\$\\mathdefault\{(?:(-?\d+)\\times)?(-?)10\^\{(-?\d+)\}\}\$$")


class _PlainLogFormatter(matplotlib.ticker.LogFormatterSciNotation):
    """Log-axis tick labels as plain text with Unicode superscripts (10⁻³, 2×10⁰): the same labels as matplotlib's
    mathtext ones, set without mathtext parsing (a tenth of a page's drawing time). A label of any other form is
    left as matplotlib writes it."""

    def __call__(self, x: float, pos: int | None = None) -> str:
        text = super().__call__(x, pos)
        match = _SCI.match(text)
        if match is None:
            return text
        mantissa, sign, exponent = match.groups()
        head = f"{mantissa}×" if mantissa else ""
        return f"{sign}{head}10{exponent.translate(_SUPERSCRIPT)}".replace("-", _MINUS)


def plain_log_ticks(ax: Axes) -> None:
    """Give the log-scaled axes of ``ax`` plain-text tick labels (:class:`_PlainLogFormatter`), major and minor,
    keeping the base and the minor-label thresholds matplotlib chose."""
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale != "log":
            continue
        for current, setter in ((axis.get_major_formatter(), axis.set_major_formatter),
                                (axis.get_minor_formatter(), axis.set_minor_formatter)):
            if isinstance(current, matplotlib.ticker.LogFormatterSciNotation) and not isinstance(
                    current, _PlainLogFormatter):
                plain = _PlainLogFormatter(base=current._base, labelOnlyBase=current.labelOnlyBase,
                                           minor_thresholds=current.minor_thresholds)
                setter(plain)


def _draw_prediction(ax: Axes, spec: Mapping[str, Any], pred: Mapping[str, Any], xpos: np.ndarray,
                     categorical: bool, single: bool) -> None:
    kind = pred.get("kind")
    if kind == "slope":
        fit = pred.get("fit") or {}
        xs = np.geomspace(float(np.min(xpos)), float(np.max(xpos)), 50) if not categorical else None
        if xs is None:
            return
        if fit.get("slope") is not None and fit.get("intercept") is not None:
            ax.plot(xs, np.exp(float(fit["intercept"])) * xs ** float(fit["slope"]), color="black", linestyle=":",
                    linewidth=1.4, label=format_fit_label(fit), zorder=3)
        slope, t = pred.get("slope"), pred.get("tolerance")
        x0, y0 = _f(pred.get("anchor_x")), _f(pred.get("anchor_y"))
        if slope is not None and math.isfinite(x0) and math.isfinite(y0):
            ax.plot(xs, y0 * (xs / x0) ** slope, color="tab:green", linewidth=1.6,
                    label=f"predicted slope {_num(slope)}" + (f" ± {t:g}" if t is not None else ""), zorder=3)
            if t is not None:
                lo, hi = y0 * (xs / x0) ** (slope - t), y0 * (xs / x0) ** (slope + t)
                ax.fill_between(xs, np.minimum(lo, hi), np.maximum(lo, hi), color="tab:green", alpha=0.12,
                                label="tolerance band (through the fit at mid-sweep)", zorder=0)
    elif kind in ("bound", "exact", "calibrated"):
        y = np.array([_f(v) for v in pred["y"]])
        colour = {"bound": "tab:red", "exact": "tab:green", "calibrated": "tab:orange"}[kind]
        label = {"bound": "bound (theorem right-hand side)", "exact": "predicted (exact expectation)",
                 "calibrated": f"C·rhs, C = {_f(pred.get('constant')):.3g} calibrated on the first points"}[kind]
        if categorical:
            for i, (xi, yi) in enumerate(zip(xpos, y, strict=True)):
                ax.hlines(yi, xi - 0.4, xi + 0.4, colors=colour, linestyles="--", linewidth=1.8,
                          label=label if i == 0 else None, zorder=3)
        else:
            ax.plot(xpos, y, color=colour, linestyle="--", linewidth=1.6, label=label, zorder=3)
        if kind == "calibrated":
            upper = np.array([_f(v) for v in pred["upper"]])
            if not categorical:
                ax.fill_between(xpos, y, upper, color=colour, alpha=0.15,
                                label=f"held-out tolerance C(1 + {_f(pred.get('margin')):g})·rhs", zorder=0)
    elif kind == "comparison":
        better, worse = str(pred.get("better")), str(pred.get("worse"))
        for tick in ax.get_xticklabels():
            if tick.get_text() in (better, worse):
                tick.set_fontweight("bold")
        ax.plot([], [], linestyle="none", label=_plain(f"predicted: {better} < {worse} (paired over seeds)"))


_XML_PROLOGUE = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*", re.IGNORECASE)
_NAMESPACE_ATTR = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def to_svg(fig: Figure, id_prefix: str = "", bbox_inches: Any = None) -> str:
    """Render ``fig`` (or the part of it inside ``bbox_inches``, a Bbox in inches) as inline SVG text for an HTML
    page; the figure is closed (cleared) afterwards.

    ``id_prefix`` is prepended to every element id (and reference to it) so that several figures can share one
    page without id collisions (see :func:`prefix_ids`).

    The XML prologue, DOCTYPE, RDF metadata and namespace declarations are removed: inside HTML the parser
    supplies the SVG and XLink namespaces, and the page then contains no external URL at all. Text is drawn
    as paths (no font files needed). Element ids are salted with a constant, so the same figure gives the same
    bytes in any process.
    """
    buf = io.StringIO()
    try:  # a fixed salt: element ids are hashes of their content, the same for the same figure in any process
        with matplotlib.rc_context({"svg.hashsalt": "fedrates"}):
            fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches=bbox_inches)
    finally:
        _close(fig)
    svg = buf.getvalue()
    svg = _XML_PROLOGUE.sub("", svg)
    svg = _METADATA.sub("", svg)
    svg = _NAMESPACE_ATTR.sub("", svg)
    return prefix_ids(svg.strip(), id_prefix)


def prefix_ids(svg: str, id_prefix: str) -> str:
    """``svg`` with ``id_prefix`` prepended to every element id and every reference to one."""
    if not id_prefix:
        return svg
    if not re.fullmatch(r"[A-Za-z][\w-]*", id_prefix):
        raise ValueError(f"id_prefix must be letters, digits, '_' or '-', got '{id_prefix}'")
    # as re.sub(r'\bid="', ...) but five times faster on a figure's few hundred ids: the text split at each
    # 'id="' (occurrences cannot overlap), prefixed where the character before is not a word character
    parts = svg.split('id="')
    out = [parts[0]]
    for before, part in zip(parts, parts[1:], strict=False):
        last = before[-1:]
        out.append(('id="' if last.isalnum() or last == "_" else f'id="{id_prefix}') + part)
    return "".join(out).replace('href="#', f'href="#{id_prefix}').replace("url(#", f"url(#{id_prefix}")


def _close(fig: Figure) -> None:
    manager = getattr(fig.canvas, "manager", None)
    if manager is not None:  # a pyplot-managed figure: release it from pyplot's registry
        import matplotlib.pyplot as plt

        plt.close(fig)
    else:
        fig.clear()
