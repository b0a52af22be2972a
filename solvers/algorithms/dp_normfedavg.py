"""DP-NormFedAvg: normalised client updates (Das, Hashemi, Sanghavi, Dhillon, "On the Convergence of Differentially
Private Federated Learning on Non-Lipschitz Objectives, and with Normalized Client Updates", Algorithm 2).

Identical to Algorithm 1 (:mod:`fedrates.solvers.algorithms.dp_fedavg_clip`: same local GD steps, same noise
ζ_k^(i) ~ N(0, rσ²I), same aggregation (1/r)Σ_{i∈S_k}, same server step w_{k+1} = w_k − β a_k, same random output
iterate) except line 9, where the client sends the normalised update (eq. 12–13)

    g_k^(i) = norm(u_k^(i), C) = C u_k^(i)/‖u_k^(i)‖,   so ‖g_k^(i)‖ = C exactly.

norm(0, C) is undefined in the paper.  fedrates defines it (``zero_update``): ``"zero"`` (default) sends
g = 0, which keeps the L2 sensitivity ≤ C and so the privacy guarantee; ``"error"`` stops the run with an
:class:`~fedrates.solvers.errors.InputError` naming the client and the round.  An update is treated as zero when
‖u‖ = 0 exactly (a client already at a minimiser of f_i after E exact steps from w_k).

Clipping and normalisation coincide for every client with ‖u_k^(i)‖ ≥ C (end of §5.1), so with C ≤ min_{k,i}‖u‖
both algorithms produce identical iterates from identical noise (same seed and ``noise_seed``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedrates.solvers.algorithms.base import RoundContext, hyper, register
from fedrates.solvers.algorithms.dp_fedavg_clip import DPFedAvgClip
from fedrates.solvers.errors import InputError

__all__ = ["DPNormFedAvg", "normalize_rows"]


def normalize_rows(U: np.ndarray, C: float, norms: np.ndarray | None = None) -> np.ndarray:
    """norm(u, C) = C u/‖u‖ over the last axis (eq. 12); a zero row is sent as zero."""
    norms = np.linalg.norm(U, axis=-1) if norms is None else norms
    factor = np.where(norms > 0, C / np.where(norms > 0, norms, 1.0), 0.0)
    return U * factor[..., None]


@register
@dataclass(frozen=True, kw_only=True)
class DPNormFedAvg(DPFedAvgClip):
    """DP-NormFedAvg (Algorithm 2): client updates normalised to norm C (see the module docstring)."""

    name = "dp_normfedavg"
    summary = "DP-NormFedAvg: E local GD steps, client update normalised to norm C, Gaussian noise, server step"

    clip: float = hyper(1.0, "normalisation scale C > 0: every sent update has norm C", low=0.0, strict=True)
    zero_update: str = hyper("zero", "a client update of norm 0 is sent as zero, or stops the run (error)",
                             choices=("zero", "error"))

    def transform(self, U: np.ndarray, norms: np.ndarray, ctx: RoundContext) -> np.ndarray:
        if self.zero_update == "error" and np.any(norms == 0):
            r, i = (int(v[0]) for v in np.nonzero(norms == 0))
            raise InputError(f"client {i} has a client update of norm 0 at round {ctx.round} (replica {r}); "
                             "normalisation C u/||u|| needs ||u|| > 0 (use zero_update=zero to send 0)")
        return normalize_rows(U, self.clip, norms)
