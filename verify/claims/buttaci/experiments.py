"""Experiment claims of Buttaci & Calafiore ("Aiding Global Convergence in Federated Learning via Local Perturbation
and Mutual Similarity Information"): none.  The paper's experiments (Sec. 6, App. C) are trained networks on image
data sets whose figures carry no statement sharper than the theorems'; what they are read to show — PFL contracting
faster than FedAvg by eq. (9) — is checked by ``buttaci.eq9/speedup`` (:mod:`fedrates.verify.claims.buttaci.errata`),
and the large-step instability of App. C.7 by ``buttaci.lemB3.kappa/stability`` (:mod:`.exact`).
"""

from __future__ import annotations

from fedrates.verify.claims.base import Claim

__all__ = ["CLAIMS"]

CLAIMS: tuple[Claim, ...] = ()


#: figures laid out as in the paper (none beyond each claim's own figure)
FIGURES: dict[str, str] = {}
