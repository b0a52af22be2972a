"""Errata vocabulary for the verification layer: re-exports :mod:`fedrates.errata` (kept at the package root so
that the catalogue and the reports, which do not import ``fedrates.verify``, share it)."""

from fedrates.errata import ERRATUM_KINDS, HEADLINE_KINDS, KIND_TITLES, Erratum, count_kinds, kind_summary

__all__ = ["ERRATUM_KINDS", "HEADLINE_KINDS", "KIND_TITLES", "Erratum", "count_kinds", "kind_summary"]
