"""Bao et al.'s catalogue builds one theorem (or its small group) at a time for ``fedrates explore``; ``THEOREMS``
is the same objects, in the catalogue order, built on first use."""

from __future__ import annotations

import subprocess
import sys

from fedrates.bounds.catalog import all_theorems, bao


def test_each_theorem_alone_is_the_catalogued_object():
    catalogued = all_theorems("bao")
    assert [t.id for t in catalogued] == [t.id for t in bao.THEOREMS] == list(bao._BUILDERS)
    for t in catalogued:
        assert bao.theorem(t.id) is t
    assert bao.theorem("bao.thm9.9") is None and bao.theorem("dinh.thm1") is None


def test_looking_up_one_theorem_builds_only_it():
    code = ("from fedrates.bounds.catalog import bao\n"
            "t = bao.theorem('bao.corB.1')\n"
            "print(t.id, 'THEOREMS' in vars(bao), bao._thm31_explicit.cache_info().currsize, "
            "bao._fast_fedda.cache_info().currsize)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["bao.corB.1", "False", "0", "0"]
