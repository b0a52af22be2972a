"""The complexity-separation picture of Bylinkin et al., drawn from verification records.

Left: rounds with M_f to reach Ψ_K ≤ εΨ_0 against δ_g (δ_f, μ fixed) for C-AccExtragradient (flat: the separation)
and for the AEG baseline (exponent ½ in (δ_f + δ_g)/μ).  Right: C-AccExtragradient's rounds with M_f against δ_f/μ
with the predicted exponent ½.  Dashed lines are the predicted slopes anchored at the first measured point.

Input: the records of ``bylinkin.thm4/separation-dg``, ``bylinkin.thm4/aeg-baseline`` and ``bylinkin.thm4/rate-df``
(as written to ``DIR/records.parquet`` by ``fedrates verify``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fedrates.reports.paper_figures import bylinkin_separation

__all__ = ["separation_figure"]


def separation_figure(records: pd.DataFrame, path: str | Path) -> Path:
    """Draw the two panels of :func:`fedrates.reports.paper_figures.bylinkin_separation` into ``path`` (format from
    the suffix: .svg, .png, .pdf)."""
    out = Path(path)
    bylinkin_separation(records).savefig(out)
    return out
