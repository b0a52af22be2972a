"""Exact-expectation claims of Das et al. (moved here; gathered in the next step)."""
