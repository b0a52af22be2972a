"""fedrates bounds: the theorems of five federated-optimization papers as symbolic objects, and their analysis."""
