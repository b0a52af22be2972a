"""Dinh et al.: exact claims (being split into topic modules)."""
