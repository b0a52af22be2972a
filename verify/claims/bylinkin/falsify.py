"""Falsifier targets of Bylinkin et al. (``fedrates falsify THEOREM``): none yet. The paper's statements are round
counts over δ grids and exact maps, which the claims check on their own instances."""

from __future__ import annotations

from fedrates.verify.falsify import Target

__all__ = ["TARGETS"]

TARGETS: tuple[Target, ...] = ()
