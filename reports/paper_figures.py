"""Figures laid out as in the papers, drawn from stored records (no pyplot state; used by the HTML and PDF reports).

* ``das.fig1/reproduction`` — Figure 1 of Das, Hashemi, Sanghavi, Dhillon: one panel per (C, initialisation),
  f(w_k) − f★ against the round k for clipping and normalisation (seed means, faint lines: seeds), with the note on
  the clip threshold 4E√(L·maxΔ★) that Theorems 2/4 need.
* ``das.fig2/snr`` — Figure 2 of Das et al.: SNR_k = ‖(1/r)Σ g_k‖/‖(1/r)Σ ζ_k‖ against the round for clipping and
  normalisation, one panel per C (seed means, faint lines: seeds).
* ``bylinkin.thm4/separation-dg`` — the complexity-separation picture of Bylinkin et al.: rounds with M_f to reach
  Ψ_K ≤ εΨ_0 against δ_g for C-AccExtragradient (flat) and the AEG baseline (exponent ½ in (δ_f + δ_g)/μ), and
  against δ_f/μ (predicted exponent ½); dashed lines are the predicted slopes anchored at the first point. Drawn
  from the records of ``bylinkin.thm4/separation-dg``, ``bylinkin.thm4/aeg-baseline`` and ``bylinkin.thm4/rate-df``.

:data:`PAPER_FIGURES` maps a claim id to its drawing function ``(all records, verdict) -> Figure``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

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
            table = part.pivot_table(index="round", columns="seed", values="value", aggfunc="last").sort_index()
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
            table = part.pivot_table(index="round", columns="seed", values="value", aggfunc="last").sort_index()
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
    return fig


def _series(records: pd.DataFrame, claim: str, metric: str, key: str) -> tuple[np.ndarray, np.ndarray]:
    sub = records[(records["claim"] == claim) & (records["metric"] == metric)].sort_values("point")
    x = np.array([json.loads(p)[key] for p in sub["params"]], dtype=float)
    return x, sub["value"].to_numpy(dtype=float)


def bylinkin_separation(records: pd.DataFrame, verdict: Mapping[str, Any] | None = None) -> Figure:
    """The two panels of the separation picture (module docstring) from the records of the three claims."""
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    dg, a4 = _series(records, "bylinkin.thm4/separation-dg", "rounds_f", "delta_g")
    dg_b, aeg = _series(records, "bylinkin.thm4/aeg-baseline", "aeg_rounds_f", "delta_g")
    left.loglog(dg, a4, "o-", label="C-AccExtragradient (predicted: flat)")
    if dg_b.size:
        params = json.loads(records.loc[records["claim"] == "bylinkin.thm4/aeg-baseline", "params"].iloc[0])
        df = float(params["delta_f"])
        left.loglog(dg_b, aeg, "s-", label="AEG baseline")
        left.loglog(dg_b, aeg[0] * np.sqrt((df + dg_b) / (df + dg_b[0])), "k--", lw=0.8,
                    label="predicted ((δ_f+δ_g)/μ)^½")
    if dg.size:
        left.loglog(dg, np.full_like(dg, a4[0]), "k:", lw=0.8)
    left.set_xlabel("δ_g")
    left.set_ylabel("rounds with M_f to reach Ψ ≤ εΨ₀")
    left.legend(fontsize=7)
    df_grid, a4_f = _series(records, "bylinkin.thm4/rate-df", "rounds_f", "delta_f")
    if df_grid.size:
        mu = float(json.loads(records.loc[records["claim"] == "bylinkin.thm4/rate-df", "params"].iloc[0])["mu"])
        x = df_grid / mu
        right.loglog(x, a4_f, "o-", label="C-AccExtragradient")
        right.loglog(x, a4_f[0] * np.sqrt(x / x[0]), "k--", lw=0.8, label="predicted (δ_f/μ)^½")
    right.set_xlabel("δ_f/μ")
    right.set_ylabel("rounds with M_f")
    right.legend(fontsize=7)
    fig.suptitle("Complexity separation (Bylinkin et al.): M_f rounds depend on δ_f only", fontsize=9)
    return fig


#: claim id → figure drawn in addition to the generic claim figure
PAPER_FIGURES: dict[str, Callable[[pd.DataFrame, Mapping[str, Any]], Figure]] = {
    "das.fig1/reproduction": das_figure1,
    "das.fig2/snr": das_figure2,
    "bylinkin.thm4/separation-dg": bylinkin_separation,
}
