"""``benchmarks/verify_wall.py``: the floor is the claims' compute divided by the cores, the best of the repeats is
kept, and a target is called met only at or under its wall time.  ``fedrates verify`` is replaced by a stub (the
script's logic, not the claims, is under test)."""

from __future__ import annotations

import pytest
from _scripts import BENCHMARKS, load_script


@pytest.fixture()
def wall():
    return load_script(BENCHMARKS / "verify_wall.py", "verify_wall_script")


def _stub(times: dict[tuple[str, bool], list[float]]):
    calls = []

    def fake(profile, jobs, report):
        calls.append((profile, jobs, report))
        wall = times[(profile, report)].pop(0)
        return {"wall": wall, "cpu": 2 * wall, "compute": 30.0 if report else 31.0, "main": 4.0}

    return fake, calls


def test_the_floor_the_best_repeat_and_a_missed_target(wall, monkeypatch, capsys):
    fake, calls = _stub({("quick", True): [50.0, 45.0], ("quick", False): [33.0, 34.0]})
    monkeypatch.setattr(wall, "verify_once", fake)
    assert wall.main(["--profile", "quick", "--jobs", "3", "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert calls == [("quick", 3, True)] * 2 + [("quick", 3, False)] * 2
    assert "with the report: 45.0 s wall" in out  # the best of the two, not the first
    assert "--no-report:     33.0 s wall" in out
    assert "floor (claims' compute / 3 cores): 10.0 s" in out  # 30 s of compute over 3 cores
    assert "the report adds 12.0 s of wall" in out
    assert "target <= 20 s wall: NOT met (45.0 s, 2.25x the target; the floor alone is 0.50x it)" in out


def test_a_run_at_the_target_meets_it(wall, monkeypatch, capsys):
    fake, _ = _stub({("standard", True): [60.0], ("standard", False): [40.0]})
    monkeypatch.setattr(wall, "verify_once", fake)
    wall.main(["--profile", "standard"])
    assert "target <= 60 s wall: met (60.0 s, 1.00x the target" in capsys.readouterr().out


def test_bad_counts_are_refused(wall, capsys):
    with pytest.raises(SystemExit) as stop:
        wall.main(["--jobs", "0"])
    assert stop.value.code == 2
    assert "--jobs 0" in capsys.readouterr().err
