"""fedrates bounds: the theorems of the seed papers as symbolic objects, and their analysis."""
