"""Bylinkin et al.'s experiments: the paper's figures plot rounds against δ_g and δ_f/μ; the claims that measure
them are scaling laws of Theorems 2-4 (:mod:`fedrates.verify.claims.bylinkin.theorems`), so this module defines no
claims of its own, only the figure drawn from their records: the complexity-separation picture.

Left: rounds with M_f to reach Ψ_K ≤ εΨ_0 against δ_g (δ_f, μ fixed) for C-AccExtragradient (flat: the separation)
and for the AEG baseline (exponent ½ in (δ_f + δ_g)/μ).  Right: C-AccExtragradient's rounds with M_f against δ_f/μ
with the predicted exponent ½.  Dashed lines are the predicted slopes anchored at the first measured point.

Input: the records of ``bylinkin.thm4/separation-dg``, ``bylinkin.thm4/aeg-baseline`` and ``bylinkin.thm4/rate-df``
(as written to ``DIR/records.parquet`` by ``fedrates verify``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fedrates.verify.claims.base import Claim

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CLAIMS", "FIGURES", "separation_figure"]

CLAIMS: tuple[Claim, ...] = ()


def separation_figure(records: pd.DataFrame, path: str | Path) -> Path:
    """Draw the two panels of :func:`fedrates.reports.paper_figures.bylinkin_separation` into ``path`` (format from
    the suffix: .svg, .png, .pdf)."""
    from fedrates.reports.paper_figures import bylinkin_separation

    out = Path(path)
    bylinkin_separation(records).savefig(out)
    return out


#: figures laid out as in the paper, drawn in the reports beside the claim's own figure
FIGURES: dict[str, str] = {
    "bylinkin.thm4/separation-dg": "fedrates.reports.paper_figures:bylinkin_separation",
}
