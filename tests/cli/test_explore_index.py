"""``fedrates explore`` refuses misspelt theorems and symbols from the cached symbol table, without sympy.

The table is written by the first successful ``explore`` (a refusal writes nothing); afterwards the refusals that
need only a theorem's letters are decided before sympy is imported, with the same one-line messages as the full
checks (compared here against a run without the table).
"""

from __future__ import annotations

import pytest
from _cli_processes import run_commands

from fedrates.verify.commands import _theorem_index

T21 = ["mu=0.5", "L=1", "a=8", "T=1e4", "K=4", "E=2", "Lam=1", "H=1", "rho=1", "sigma=1", "B=1"]

#: (argv, substring of the one-line message)
CASES = [
    (["explore", "bao.thm2.7", "--set", "mu=1"], "unknown theorem 'bao.thm2.7'"),
    (["explore", "bao.thm2.1", "--set", "zeta=1"], "unknown symbol 'zeta'"),
    (["explore", "bao.thm2.1", "--set", "mu=1", "mu=2"], "gives 'mu' twice"),
    (["explore", "bao.thm2.1", "--set", "mu=0"], "must be positive"),
    (["explore", "bao.thm2.1", "--set", *T21, "--solve", "Z", "--target", "1"], "unknown symbol of bao.thm2.1 'Z'"),
    (["explore", "bao.thm2.1", "--exponent", "Tz"], "unknown symbol of bao.thm2.1 'Tz'"),
    (["explore", "bao.thm2.1", "--dominant", "T"], "needs values for"),
    (["explore", "bao.thm2.1", "--solve", "T", "--target", "1e-3"], "needs values for"),
]


def _run(argvs, cache):
    return run_commands(argvs, cache, heavy=("sympy",))


def test_refusals_from_the_symbol_table_skip_sympy_and_keep_their_messages(tmp_path):
    cold, cold_err = _run([argv for argv, _ in CASES], tmp_path / "cold")  # no table: full checks
    assert not list((tmp_path / "cold").rglob("*.json")), "a refusal must write nothing"
    warm_cache = tmp_path / "warm"
    (ok,), _ = _run([["explore", "bao.thm2.1", "--exponent", "T"]], warm_cache)
    assert ok == [0, ["sympy"]]
    warm, warm_err = _run([argv for argv, _ in CASES], warm_cache)
    assert [c for c, _ in cold] == [2] * len(CASES) and [c for c, _ in warm] == [2] * len(CASES)
    assert not any(loaded for _, loaded in warm), warm
    assert warm_err == cold_err
    for (_, needle), line in zip(CASES, warm_err, strict=True):
        assert needle in line


def test_table_matches_the_catalogue(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path))
    assert _theorem_index.theorem_index(build=False) is None
    table = _theorem_index.theorem_index(build=True)
    from fedrates.bounds.catalog import all_theorems

    theorems = all_theorems()
    assert set(table) == {t.id for t in theorems}
    for t in theorems:
        assert set(table[t.id]["rhs"]) == {s.name for s in t.rhs.free_symbols}
        assert set(table[t.id]["free"]) == {s.name for s in t.free_symbols}
    assert _theorem_index.theorem_index(build=False) == table  # read back from the cache


# mu=2*0 is decided without sympy (tests/cli/test_quick_refusals.py); pi - pi is 0 only to sympy's exact arithmetic
@pytest.mark.parametrize("argv", [["explore", "bao.thm2.1", "--set", "mu=pi-pi"]])
def test_arithmetic_values_still_go_through_the_parser(tmp_path, argv):
    _run([["explore", "bao.thm2.1", "--exponent", "T"]], tmp_path)
    (result,), err = _run([argv], tmp_path)
    assert result == [2, ["sympy"]] and "must be positive" in err[0]
