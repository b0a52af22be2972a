"""The API documentation builds from the docstrings with Sphinx (autodoc + napoleon), warnings as errors: a
docstring whose markup Sphinx cannot read, or a documented module that fails to import, fails this test."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None,
                    reason="sphinx is not installed (it is in the test extra: pip install -e '.[test]')")
@pytest.mark.integration
def test_api_documentation_builds_without_warnings(tmp_path):
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           str(ROOT / "docs"), str(out), "-d", str(tmp_path / "doctrees")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    # the pages hold the documented objects (autodoc found and imported them)
    expected = {
        "api/plugins.html": ["fedrates.plugins.Paper", "fedrates.plugins.ENTRY_POINT_GROUP"],
        "api/theorem.html": ["fedrates.bounds.theorem.Theorem", "fedrates.bounds.theorem.Theorem.check_conditions"],
        "api/algorithms.html": ["fedrates.solvers.algorithms.base.Algorithm",
                                "fedrates.solvers.algorithms.base.register"],
        "api/claims.html": ["fedrates.verify.claims.base.Claim", "fedrates.verify.claims.base.Claim.verdict"],
        "api/variants.html": ["fedrates.verify.variants.BrokenVariant"],
        "api/pytest_plugin.html": ["fedrates.verify.pytest_plugin.fedrates_records",
                                   "fedrates.verify.conformance.assert_rate",
                                   "fedrates.verify.conformance.assert_bound",
                                   "fedrates.verify.seed_batches.assert_seeds_independent"],
        "api/problems.html": ["fedrates.solvers.problems.Problem", "fedrates.solvers.problems.make",
                              "fedrates.solvers.closed_form.ClosedForm", "fedrates.solvers.closed_form.assemble"],
        "api/builders.html": ["fedrates.verify.builders.BoundClaim", "fedrates.verify.builders.RateClaim",
                              "fedrates.verify.builders.BuiltClaim.instance"],
        "api/fedrates.html": ["fedrates.check"],
    }
    for page, names in expected.items():
        html = (out / page).read_text(encoding="utf-8")
        for name in names:
            assert f'id="{name}"' in html, f"{name} is not documented in {page}"
