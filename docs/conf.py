"""Sphinx configuration of fedrates' API documentation (built from the docstrings: autodoc + napoleon).

Build: ``sphinx-build -W -b html docs docs/_build/html`` (the test suite builds it with warnings as errors).
"""

from __future__ import annotations

import fedrates

project = "fedrates"
author = "the fedrates authors"
release = fedrates.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
exclude_patterns = ["_build"]
root_doc = "index"

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# annotations name types from numpy, pandas and sympy, which are not documented here
nitpicky = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True

html_theme = "alabaster"
html_title = f"fedrates {release}"
