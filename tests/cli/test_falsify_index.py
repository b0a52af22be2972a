"""``fedrates falsify THEOREM --point JSON`` refuses a malformed point from the cached table of search boxes, before
the targets (sympy, pandas, the catalogue) are imported.

The table is written by the first ``falsify`` that does not refuse (a refusal writes nothing); afterwards every
``--point`` refusal of the bad-input table gives the same exit status and the same one line as without the table
(compared here), without importing pandas or sympy. A point the table accepts is checked again on the target: a
forged table cannot make the command accept a point outside the real box.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_processes import run_commands
from _scripts import load_script

from fedrates.solvers import _cache
from fedrates.verify.commands import _falsify_index


def _table():
    return load_script(Path(__file__).with_name("test_bad_input.py"), "_bad_input_table")


def _point_cases() -> list[list[str]]:
    table = _table()
    return [argv for _, argv, _ in table.CASES if argv[:1] == ["falsify"] and "--point" in argv]


def _run(argvs, cache, cwd):
    return run_commands(argvs, cache, cwd=cwd, heavy=("sympy", "pandas"))


def _store(cache: Path, table: dict, monkeypatch) -> None:
    """``table`` stored as the index under ``cache`` (what a run that did not refuse writes)."""
    with monkeypatch.context() as m:
        m.setenv("FEDRATES_CACHE", str(cache))
        assert _cache.store_document(_falsify_index._key(), {"targets": table}, _cache.cache_dir() / "listings") is None


def test_point_refusals_from_the_table_skip_the_imports_and_keep_their_messages(tmp_path, monkeypatch):
    cases = _point_cases()
    assert len(cases) >= 12  # the table's --point cases: not JSON, nested, missing names, values, ranges, integers
    cold, cold_err = _run(cases, tmp_path / "cold", tmp_path)  # no table: the full checks
    assert [c for c, _ in cold] == [2] * len(cases)
    assert not list((tmp_path / "cold").rglob("*.json")), "a refusal must write nothing"
    warm_cache = tmp_path / "warm"
    _store(warm_cache, _falsify_index._build()["targets"], monkeypatch)
    warm, warm_err = _run(cases, warm_cache, tmp_path)
    assert [c for c, _ in warm] == [2] * len(cases)
    assert warm_err == cold_err
    assert not any(loaded for _, loaded in warm), warm  # a malformed point, or a valid one with bad --seeds


def test_a_forged_wider_box_does_not_accept_a_point_outside_the_real_one(tmp_path, monkeypatch):
    table = _falsify_index._build()["targets"]
    forged = {theorem: [[alg, [[n, lo / 1e6, hi * 1e6, integer] for n, lo, hi, integer in dims]]
                        for alg, dims in entries] for theorem, entries in table.items()}
    _store(tmp_path / "cache", forged, monkeypatch)
    point = json.dumps({"mu": 50.0, "spread": 1.0, "sigma": 1.0, "radius": 2.0, "lam": 0.01, "dim": 4, "clients": 4,
                        "E": 2, "a_factor": 1.0, "t_factor": 2.0})
    (result,), err = _run([["falsify", "bao.thm2.1.explicit", "--point", point]], tmp_path / "cache", tmp_path)
    assert result[0] == 2
    assert len(err) == 1 and "--point mu=50 is outside the search box" in err[0], err


def test_table_matches_the_targets(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path))
    assert _falsify_index.falsify_index(build=False) is None
    table = _falsify_index.falsify_index(build=True)
    assert _falsify_index.falsify_index(build=False) == table  # stored
    from fedrates.bounds import catalog
    from fedrates.verify import falsify

    targets = falsify.load_targets()
    explicit = [(th, alg) for th, alg in targets if catalog.get(th).kind == "explicit"]
    assert sorted(table) == sorted({th for th, _ in explicit}) and table
    for theorem, entries in table.items():
        assert [alg for alg, _ in entries] == [alg for th, alg in targets if th == theorem]  # registration order
        for alg, dims in entries:
            real = targets[(theorem, alg)].space
            assert dims == [[d.name, float(d.low), float(d.high), bool(d.integer)] for d in real]
        first = _falsify_index.indexed_target(table, theorem, None)
        assert first.algorithm == falsify.target_for(theorem).algorithm
    assert _falsify_index.indexed_target(table, "bao.no-such", None) is None
    some = next(iter(table))
    assert _falsify_index.indexed_target(table, some, "no-such-algorithm") is None


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_a_damaged_table_is_a_miss(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path))
    _falsify_index.falsify_index(build=True)
    (path,) = list((tmp_path / "listings").rglob("*.json"))
    text = path.read_text()
    path.write_text(text[: len(text) // 2] if damage == "truncate" else text.replace("mu", "nu", 1))
    assert _falsify_index.falsify_index(build=False) is None


def test_a_run_that_does_not_refuse_stores_the_table(tmp_path, monkeypatch):
    point = json.dumps({"mu": 0.5, "spread": 1.0, "sigma": 1.0, "radius": 2.0, "lam": 0.01, "dim": 4, "clients": 4,
                        "E": 2, "a_factor": 1.0, "t_factor": 2.0})
    (result,), err = _run([["falsify", "bao.thm2.1.explicit", "--point", point, "--seeds", "1,2"]],
                          tmp_path / "cache", tmp_path)
    assert result[0] in (0, 1) and not err, err  # evaluated (1 would mean the point breaks the bound)
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    assert _falsify_index.falsify_index(build=False) == _falsify_index._build()["targets"]
