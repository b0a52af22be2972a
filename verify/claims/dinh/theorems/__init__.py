"""Dinh et al.: claims of the theorems' statements (being split into topic modules)."""

from fedrates.verify.claims.dinh.theorems import rates as _module

globals().update({k: getattr(_module, k) for k in dir(_module) if not k.startswith("__")})
