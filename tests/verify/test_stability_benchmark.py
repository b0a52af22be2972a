"""``benchmarks/stability.py``: a verdict that differs between base seeds is printed and makes the exit status 1;
with ``--json`` the per-seed verdicts are written after every seed and ``--resume`` runs only the missing seeds.
``fedrates verify`` is replaced by a stub (the script's logic, not the claims, is under test)."""

from __future__ import annotations

import json

import pytest
from _scripts import BENCHMARKS, load_script


@pytest.fixture()
def stability():
    return load_script(BENCHMARKS / "stability.py", "stability_script")


def test_a_flip_is_reported_and_fails(stability, monkeypatch, tmp_path, capsys):
    calls = []

    def fake(profile, seed, only, jobs, out):
        calls.append((profile, seed))
        return {"a.x/1": "pass", "a.x/2": "inconclusive" if seed == 1 else "pass"}

    monkeypatch.setattr(stability, "run_profile", fake)
    status = stability.main(["--profiles", "quick", "--seeds", "3", "--json", str(tmp_path / "s.json")])
    out = capsys.readouterr().out
    assert status == 1
    assert "a.x/2: 0=pass, 1=inconclusive, 2=pass" in out and "a.x/1:" not in out
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["quick"]["changes"] == {"a.x/2": {"0": "pass", "1": "inconclusive", "2": "pass"}}
    assert calls == [("quick", 0), ("quick", 1), ("quick", 2)]


def test_resume_runs_only_the_missing_seeds(stability, monkeypatch, tmp_path, capsys):
    path = tmp_path / "s.json"
    seen = []

    def first(profile, seed, only, jobs, out):
        if seed == 2:
            raise KeyboardInterrupt  # the run stops during seed 2: seeds 0 and 1 are on disk
        seen.append(seed)
        return {"a.x/1": "pass"}

    monkeypatch.setattr(stability, "run_profile", first)
    with pytest.raises(KeyboardInterrupt):
        stability.main(["--profiles", "quick", "--seeds", "4", "--json", str(path)])
    assert sorted(json.loads(path.read_text())["quick"]["per_seed"]) == ["0", "1"]

    def second(profile, seed, only, jobs, out):
        seen.append(seed)
        return {"a.x/1": "pass"}

    monkeypatch.setattr(stability, "run_profile", second)
    assert stability.main(["--profiles", "quick", "--seeds", "4", "--json", str(path), "--resume"]) == 0
    assert seen == [0, 1, 2, 3]
    assert "quick: 0 claim(s) of 1 change verdict over seeds 0..3" in capsys.readouterr().out
    # another --only is another claim set: nothing is reused
    seen.clear()
    assert stability.main(["--profiles", "quick", "--seeds", "2", "--only", "a.*", "--json", str(path),
                           "--resume"]) == 0
    assert seen == [0, 1]


def test_verdicts_only_judges_in_process_without_verify(stability, monkeypatch, tmp_path):
    used = []
    monkeypatch.setattr(stability, "run_profile", lambda *a: used.append("verify") or {"a.x/1": "pass"})
    monkeypatch.setattr(stability, "run_verdicts_only", lambda *a: used.append("in-process") or {"a.x/1": "pass"})
    assert stability.main(["--profiles", "quick", "--seeds", "2", "--verdicts-only"]) == 0
    assert used == ["in-process", "in-process"]
