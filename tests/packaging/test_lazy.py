"""Deferred and background imports (:mod:`fedrates._lazy`), each checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return proc.stdout.strip()


def test_lazy_import_defers_until_first_attribute():
    out = _run("import sys\nfrom fedrates._lazy import lazy_import\nm = lazy_import('fractions')\n"
               "before = 'fractions' in sys.modules\nm.Fraction(1, 3)\nprint(before, 'fractions' in sys.modules)")
    assert out == "False True"


def test_preload_imports_in_the_background_and_first_use_waits_for_it():
    out = _run("import sys, threading\nfrom fedrates._lazy import lazy_import, preload\n"
               "preload('fractions', 'decimal')\nm = lazy_import('fractions')\nx = m.Fraction(2, 4)\n"
               "for t in threading.enumerate():\n    t.join() if t.name == 'fedrates-preload' else None\n"
               "print(x, 'fractions' in sys.modules, 'decimal' in sys.modules)")
    assert out == "1/2 True True"


@pytest.mark.parametrize("name", ["fedrates_no_such_module_xyz"])
def test_preload_of_a_missing_module_is_silent_and_first_use_raises(name):
    out = _run("import threading\nfrom fedrates._lazy import lazy_import, preload\n"
               f"preload({name!r})\n"
               "for t in threading.enumerate():\n    t.join() if t.name == 'fedrates-preload' else None\n"
               f"m = lazy_import({name!r})\n"
               "try:\n    m.anything\nexcept ModuleNotFoundError as e:\n    print('raised', e.name)")
    assert out == f"raised {name}"


def test_public_api_is_importable_from_fedrates_and_import_stays_light():
    """Every name of ``fedrates.__all__`` resolves, to the object of its defining module; importing ``fedrates``
    alone loads no numpy, sympy or pandas."""
    out = _run("import sys, fedrates\n"
               "print(','.join(m for m in ('numpy', 'sympy', 'pandas', 'scipy') if m in sys.modules))")
    assert out == ""
    # a paper's __init__ declares its Paper from fedrates itself: listing claims stays free of numpy and sympy
    out = _run("import sys\nfrom fedrates import Paper\nPaper(id='p', authors='A', title='T')\n"
               "print(','.join(m for m in ('numpy', 'sympy', 'pandas', 'scipy') if m in sys.modules))")
    assert out == ""
    import importlib

    import fedrates

    assert set(fedrates._API) <= set(fedrates.__all__)
    for name in fedrates._API:
        value = getattr(fedrates, name)
        assert value is getattr(importlib.import_module(fedrates._API[name]), name), name
    assert fedrates.Claim is fedrates.verify.claims.base.Claim
    assert issubclass(fedrates.BoundClaim, fedrates.Claim)
    with pytest.raises(AttributeError):
        fedrates.no_such_name  # noqa: B018
