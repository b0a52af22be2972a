"""The complexity-separation picture of seed 001 (Bylinkin et al.), drawn from verification records.

Left: rounds with M_f to reach Ψ_K ≤ εΨ_0 against δ_g (δ_f, μ fixed) for C-AccExtragradient (flat: the separation)
and for the AEG baseline (exponent ½ in (δ_f + δ_g)/μ).  Right: C-AccExtragradient's rounds with M_f against δ_f/μ
with the predicted exponent ½.  Dashed lines are the predicted slopes anchored at the first measured point.

Input: the records of ``bylinkin.thm4/separation-dg``, ``bylinkin.thm4/aeg-baseline`` and ``bylinkin.thm4/rate-df``
(as written to ``DIR/records.parquet`` by ``fedrates verify``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["separation_figure"]


def _series(records: pd.DataFrame, claim: str, metric: str, key: str) -> tuple[np.ndarray, np.ndarray]:
    sub = records[(records["claim"] == claim) & (records["metric"] == metric)].sort_values("point")
    x = np.array([json.loads(p)[key] for p in sub["params"]], dtype=float)
    return x, sub["value"].to_numpy(dtype=float)


def separation_figure(records: pd.DataFrame, path: str | Path) -> Path:
    """Draw the two panels (see module docstring) into ``path`` (format from the suffix: .svg, .png, .pdf)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
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
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out
