"""Claims of Das et al. on the statements of its theorems (moved here; gathered in the next step)."""
