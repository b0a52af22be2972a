"""The experiments of Das et al. (§5.3), gathered from:

* :mod:`.figures` — Figure 1 (at eq. (5)'s noise with q = 1 and at accountant-calibrated noise over several
  learning rates), Figure 2's SNR argument and the ε sweep where the Figure 1 ordering turns;
* :mod:`.trajectories` — Figure 3, the smoothed trajectories, checked in the full space and in a fixed 2-D plane.
"""

from __future__ import annotations

from fedrates.verify.claims.das.experiments import figures, trajectories
from fedrates.verify.claims.das.experiments.figures import (
    CalibratedFigure,
    FigureOne,
    FigureTwo,
    figure1,
)

__all__ = ["CLAIMS", "FIGURES", "CalibratedFigure", "FigureOne", "FigureTwo", "figure1"]

CLAIMS = figures.CLAIMS + trajectories.CLAIMS
FIGURES: dict[str, str] = {**figures.FIGURES, **trajectories.FIGURES}
