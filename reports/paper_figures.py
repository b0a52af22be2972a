"""Figures laid out as in the papers, drawn from stored records (no pyplot state; used by the HTML and PDF reports).

* ``das.fig1/reproduction`` — Figure 1 of Das, Hashemi, Sanghavi, Dhillon: one panel per (C, initialisation),
  f(w_k) − f★ against the round k for clipping and normalisation (seed means, faint lines: seeds), with the note on
  the clip threshold 4E√(L·maxΔ★) that Theorems 2/4 need.
* ``das.fig2/snr`` — Figure 2 of Das et al.: SNR_k = ‖(1/r)Σ g_k‖/‖(1/r)Σ ζ_k‖ against the round for clipping and
  normalisation, one panel per C (seed means, faint lines: seeds).
* ``bylinkin.thm4/separation-dg`` — the complexity-separation picture of Bylinkin et al., which the paper argues for
  and never draws: rounds to reach ε with M_f against δ_g (C-AccExtragradient, VRCS, AccVRCS flat; the AEG baseline
  exponent ½ in (δ_f + δ_g)/μ) and against δ_f/μ (exponents ½, 1, ½), rounds with M_g against δ_g (C-AccExtragradient's
  inner phase δ_g^½ up to a log; VRCS and AccVRCS the theorems' explicit counts), and the savings AEG/C-AccExtragradient
  and VRCS/AccVRCS (exponent ½); dashed lines are the predicted laws anchored at the first point. Drawn from the
  records of the ``bylinkin.thm4/*``, ``bylinkin.thm4.mg/*``, ``bylinkin.thm2*/*`` and ``bylinkin.thm3*/*`` grid
  claims that are present.

:data:`PAPER_FIGURES` maps a claim id to its drawing function ``(all records, verdict) -> Figure``; the papers
declare which claim has which figure (``Paper.figures``, modules defining ``FIGURES``), so an installed paper adds its
own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from fedrates._tables import pivot_last

__all__ = ["PAPER_FIGURES", "das_figure1", "das_figure2", "bylinkin_separation"]


def das_figure1(records: pd.DataFrame, verdict: Mapping[str, Any]) -> Figure:
    """Figure 1 of Das et al. from the records of ``das.fig1/reproduction`` (module docstring)."""
    claim = str(verdict.get("claim", "das.fig1/reproduction"))
    if "claim" in records.columns and claim in set(records["claim"]):
        records = records[records["claim"] == claim]

    sub = records[records["metric"] == "objective_gap"]
    panels = sorted({int(p) // 2 for p in sub["point"].unique()})
    cols = max(1, (len(panels) + 1) // 2)
    fig = Figure(figsize=(3.2 * cols, 5.6), layout="constrained")
    axes = fig.subplots(2 if len(panels) > 1 else 1, cols, squeeze=False).reshape(-1)
    for ax, j in zip(axes, panels, strict=False):
        for a, (name, color) in enumerate((("clip", "tab:red"), ("norm", "tab:blue"))):
            part = sub[sub["point"] == 2 * j + a]
            table = pivot_last(part, "round", "seed")
            k = table.index.to_numpy(dtype=float)
            for col in table.columns:
                ax.plot(k, table[col].to_numpy(dtype=float), color=color, alpha=0.15, linewidth=0.6)
            ax.plot(k, table.mean(axis=1).to_numpy(dtype=float), color=color, linewidth=1.8, label=name)
        params = json.loads(sub[sub["point"] == 2 * j]["params"].iloc[0])
        ax.set_title(f"C = {params['C_paper']:g} (run {params['C']:.3g}), {params['init']}", fontsize=9)
        ax.set_yscale("log")
        ax.set_xlabel("round k")
        ax.set_ylabel("f(w_k) - f*")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    note = str(verdict.get("clip_threshold_note", ""))
    if note:
        fig.suptitle(note.replace("$", r"\$"), fontsize=7, wrap=True)
    _plain_ticks(fig)
    return fig


def das_figure2(records: pd.DataFrame, verdict: Mapping[str, Any]) -> Figure:
    """Figure 2 of Das et al. from the records of ``das.fig2/snr`` (module docstring)."""
    if "claim" in records.columns and "das.fig2/snr" in set(records["claim"]):
        records = records[records["claim"] == "das.fig2/snr"]
    sub = records[records["metric"] == "snr"]
    panels = sorted({int(p) // 2 for p in sub["point"].unique()})
    fig = Figure(figsize=(3.2 * max(1, len(panels)), 3.0), layout="constrained")
    axes = fig.subplots(1, max(1, len(panels)), squeeze=False).reshape(-1)
    for ax, j in zip(axes, panels, strict=False):
        for a, (name, color) in enumerate((("clip", "tab:red"), ("norm", "tab:blue"))):
            part = sub[sub["point"] == 2 * j + a]
            table = pivot_last(part, "round", "seed")
            k = table.index.to_numpy(dtype=float)
            for col in table.columns:
                ax.plot(k, table[col].to_numpy(dtype=float), color=color, alpha=0.15, linewidth=0.6)
            ax.plot(k, table.mean(axis=1).to_numpy(dtype=float), color=color, linewidth=1.5, label=name)
        params = json.loads(sub[sub["point"] == 2 * j]["params"].iloc[0])
        ax.set_title(f"C = {params['C_paper']:g}, {params['init']}", fontsize=9)
        ax.set_xlabel("round k")
        ax.set_ylabel("SNR")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Figure 2 (Das et al.): SNR of the aggregated update, identical noise", fontsize=8)
    _plain_ticks(fig)
    return fig


def _plain_ticks(fig: Figure) -> None:
    """Plain-text log tick labels on every axes (:func:`fedrates.reports.figures.plain_log_ticks`)."""
    from fedrates.reports.figures import plain_log_ticks

    for ax in fig.axes:
        plain_log_ticks(ax)


def _series(records: pd.DataFrame, claim: str, metric: str, key: str) -> tuple[np.ndarray, np.ndarray]:
    """(x, seed-mean value) per sweep point of one claim's metric; x = the point parameter ``key`` (or δ_f/μ)."""
    sub = records[(records["claim"] == claim) & (records["metric"] == metric)]
    if sub.empty:
        return np.array([]), np.array([])
    table = sub.groupby("point").agg(value=("value", "mean"), params=("params", "first")).sort_index()
    params = [json.loads(p) for p in table["params"]]
    if key == "delta_f/mu":
        x = np.array([float(p["delta_f"]) / float(p["mu"]) for p in params])
    else:
        x = np.array([float(p[key]) for p in params], dtype=float)
    return x, table["value"].to_numpy(dtype=float)


def _param(records: pd.DataFrame, claim: str, name: str) -> float:
    return float(json.loads(records.loc[records["claim"] == claim, "params"].iloc[0])[name])


def _measured(ax: Any, x: np.ndarray, y: np.ndarray, marker: str, label: str, color: str) -> None:
    ok = np.isfinite(y) & (y > 0)
    if ok.any():
        ax.loglog(x[ok], y[ok], marker + "-", color=color, label=label)


def _predicted(ax: Any, x: np.ndarray, y: np.ndarray, shape: np.ndarray, color: str, label: str | None = None) -> None:
    """A predicted law ``shape`` (values over x), anchored at the first finite measured point."""
    ok = np.isfinite(y) & (y > 0)
    if ok.any():
        i = int(np.argmax(ok))
        ax.loglog(x, y[i] * shape / shape[i], "--", color=color, lw=0.8, label=label)


B4, B2, B3 = "bylinkin.thm4", "bylinkin.thm2", "bylinkin.thm3"


def bylinkin_separation(records: pd.DataFrame, verdict: Mapping[str, Any] | None = None) -> Figure:
    """The complexity-separation picture for every method of Bylinkin et al. (module docstring): rounds to reach ε
    with M_f against δ_g and against δ_f/μ, rounds with M_g against δ_g, and the two savings (AEG over
    C-AccExtragradient, VRCS over AccVRCS).  Measured: markers (seed means); predicted laws: dashed, anchored at the
    first point.  Series whose claims are not in ``records`` are left out."""
    fig = Figure(figsize=(10, 7.2), layout="constrained")
    (a, b), (c, d) = fig.subplots(2, 2)
    colors = {"a4": "tab:blue", "aeg": "tab:red", "vrcs": "tab:green", "acc": "tab:purple"}

    # (a) M_f rounds against delta_g: flat for the separated methods, ((delta_f + delta_g)/mu)^1/2 for AEG
    x, y = _series(records, f"{B4}/separation-dg", "rounds_f", "delta_g")
    _measured(a, x, y, "o", "C-AccExtragradient", colors["a4"])
    _predicted(a, x, y, np.ones_like(x), colors["a4"])
    aeg_claim = f"{B4}/aeg-baseline" if f"{B4}/aeg-baseline" in set(records["claim"]) else f"{B4}/aeg-ratio"
    xb, yb = _series(records, aeg_claim, "aeg_rounds_f", "delta_g")
    if xb.size:
        _measured(a, xb, yb, "s", "AEG baseline", colors["aeg"])
        _predicted(a, xb, yb, np.sqrt(_param(records, aeg_claim, "delta_f") + xb), colors["aeg"], "((δ_f+δ_g)/μ)^½")
    for name, cid, marker in (("vrcs", f"{B2}/separation-dg", "^"), ("acc", f"{B3}/separation-dg", "v")):
        x, y = _series(records, cid, "rounds_f", "delta_g")
        _measured(a, x, y, marker, {"vrcs": "VRCS", "acc": "AccVRCS"}[name], colors[name])
        _predicted(a, x, y, np.ones_like(x), colors[name])
    a.set_xlabel("δ_g")
    a.set_ylabel("rounds with M_f to reach ε")
    a.set_title("M_f rounds against δ_g (predicted: flat, AEG ½)", fontsize=8)

    # (b) M_f rounds against delta_f/mu: exponents 1/2 (C-AccExtragradient, AccVRCS) and 1 (VRCS)
    for name, cid, marker, slope in (("a4", f"{B4}/rate-df", "o", 0.5), ("vrcs", f"{B2}/rate-df", "^", 1.0),
                                     ("acc", f"{B3}/rate-df", "v", 0.5)):
        x, y = _series(records, cid, "rounds_f", "delta_f/mu")
        label = {"a4": "C-AccExtragradient", "vrcs": "VRCS", "acc": "AccVRCS"}[name]
        _measured(b, x, y, marker, label, colors[name])
        _predicted(b, x, y, x**slope, colors[name], f"(δ_f/μ)^{slope:g}")
    b.set_xlabel("δ_f/μ")
    b.set_ylabel("rounds with M_f to reach ε")
    b.set_title("M_f rounds against δ_f/μ", fontsize=8)

    # (c) M_g rounds against delta_g: sqrt(delta_g) up to the log of the O~ (C-AccExtragradient's inner phase);
    # the explicit counts K(1 + (1-p)/q) (VRCS) and (4/tau)(2 + (1-p)/q) (AccVRCS), recorded as "predicted"
    x, y = _series(records, f"{B4}.mg/inner-rounds", "rounds_g", "delta_g")
    _measured(c, x, y, "o", "C-AccExtragradient (inner)", colors["a4"])
    _predicted(c, x, y, np.sqrt(x), colors["a4"], "δ_g^½")
    if xb.size:
        xg, yg = _series(records, aeg_claim, "aeg_rounds_g", "delta_g")
        _measured(c, xg, yg, "s", "AEG baseline", colors["aeg"])
    for name, cid, marker in (("vrcs", f"{B2}.mg/rate-dg", "^"), ("acc", f"{B3}.mg/rate-dg", "v")):
        x, y = _series(records, cid, "rounds_g", "delta_g")
        _, shape = _series(records, cid, "predicted", "delta_g")
        _measured(c, x, y, marker, {"vrcs": "VRCS", "acc": "AccVRCS"}[name], colors[name])
        if shape.size == x.size and x.size:
            _predicted(c, x, y, shape, colors[name], "theorem's count")
    c.set_xlabel("δ_g")
    c.set_ylabel("rounds with M_g to reach ε")
    c.set_title("M_g rounds against δ_g", fontsize=8)

    # (d) savings: AEG/C-AccExtragradient M_f rounds against (delta_f + delta_g)/delta_f, VRCS epochs/AccVRCS
    # iterations against delta_f/mu; both predicted with exponent 1/2
    x, y = _series(records, f"{B4}/separation-dg", "rounds_f", "delta_g")
    if xb.size and x.size == xb.size:
        df = _param(records, aeg_claim, "delta_f")
        u = (df + xb) / df
        _measured(d, u, yb / y, "s", "AEG / C-AccExtragradient (x = (δ_f+δ_g)/δ_f)", colors["aeg"])
        _predicted(d, u, yb / y, np.sqrt(u), colors["aeg"], "slope ½")
    xs, slow = _series(records, f"{B3}/acceleration", "vrcs_iterations", "delta_f/mu")
    _, fast = _series(records, f"{B3}/acceleration", "acc_vrcs_iterations", "delta_f/mu")
    if xs.size:
        _measured(d, xs, slow / fast, "v", "VRCS / AccVRCS iterations (x = δ_f/μ)", colors["acc"])
        _predicted(d, xs, slow / fast, np.sqrt(xs), colors["acc"], "slope ½")
    d.set_xlabel("(δ_f+δ_g)/δ_f  or  δ_f/μ")
    d.set_ylabel("ratio of counts")
    d.set_title("savings of the separated / accelerated method", fontsize=8)
    for ax in (a, b, c, d):
        if ax.get_lines():
            ax.legend(fontsize=6)
        ax.grid(True, which="both", alpha=0.2)
    fig.suptitle("Complexity separation (Bylinkin et al.): rounds to reach ε per node group; dashed: predicted laws",
                 fontsize=9)
    fig.supxlabel("C-AccExtragradient and AEG: one run per point, ε: Ψ_K ≤ 1e-8 Ψ_0;  VRCS and AccVRCS: means over "
                  "seeds,\nε: relative gap ≤ 1e-3;  the two families run on different instances (compare slopes, not "
                  "levels)",
                  fontsize=7)  # two lines: one would run past the edge of an A4 page
    _plain_ticks(fig)
    return fig


class _PaperFigures(Mapping[str, Callable[[pd.DataFrame, Mapping[str, Any]], Figure]]):
    """claim id → its paper figure, gathered on first use from every installed paper's ``FIGURES``
    (:mod:`fedrates.plugins`); a drawing given as ``"module:function"`` is imported when first drawn. A figure whose
    claim id is not one of its paper's, or whose drawing cannot be imported, is reported in one line and left out."""

    def __init__(self) -> None:
        self._table: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._table is None:
            from fedrates import plugins

            table: dict[str, Any] = {}
            for paper, (claim, drawing) in plugins.exported("figures"):
                if not str(claim).startswith(paper.id + "."):
                    plugins.report_problem(f"'{paper.id}'", f"figure of '{claim}' is not a claim of paper '{paper.id}'")
                elif not (callable(drawing) or (isinstance(drawing, str) and ":" in drawing)):
                    plugins.report_problem(f"'{paper.id}'", f"figure of '{claim}' is a {type(drawing).__name__}, "
                                                            "expected a function or 'module:function'")
                else:
                    table[str(claim)] = drawing
            self._table = table
        return self._table

    def __getitem__(self, claim: str) -> Callable[[pd.DataFrame, Mapping[str, Any]], Figure]:
        table = self._load()
        drawing = table[claim]
        if isinstance(drawing, str):
            import importlib

            module, _, name = drawing.partition(":")
            drawing = table[claim] = getattr(importlib.import_module(module), name)
        return drawing

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


#: claim id → figure drawn in addition to the generic claim figure, from the papers' declarations
#: (the built-in papers declare theirs in ``verify/claims/<paper>/experiments.py``)
PAPER_FIGURES: Mapping[str, Callable[[pd.DataFrame, Mapping[str, Any]], Figure]] = _PaperFigures()
