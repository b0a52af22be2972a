"""Bylinkin et al.: exact-map claims (being split into topic modules)."""

from fedrates.verify.claims.bylinkin.exact import maps as _module

globals().update({k: getattr(_module, k) for k in dir(_module) if not k.startswith("__")})
