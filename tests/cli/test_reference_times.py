"""A cached reference reports the time of its original solve and this command's time, each named as such."""

from __future__ import annotations

import json

from fedrates.verify.cli import main

ARGS = ["reference", "quadratic", "--set", "dim=5", "clients=3", "lam=0.1", "seed=123"]


def test_cached_reference_reports_both_times(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path))
    assert main([*ARGS, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*ARGS, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["cached"] is False and second["cached"] is True
    assert second["solve_seconds"] == first["solve_seconds"]  # the original solve, not this run
    assert second["command_seconds"] > 0
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert "(original solve, read from the cache)" in out and "this command" in out
