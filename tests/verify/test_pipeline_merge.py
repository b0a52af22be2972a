"""A partial verification run merges into the report of its directory by claim id; it never silently replaces it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fedrates.verify import records as rec
from fedrates.verify.checks import CheckResult, bound_holds
from fedrates.verify.claims.base import Claim, records_from_trace
from fedrates.verify.pipeline import verify_claims


@dataclass(frozen=True)
class _Toy(Claim):
    """value = scale / T over a T grid with a bound 1/T: a tiny claim that needs no solver."""

    scale: float = 0.5

    def points(self, profile: str) -> list[dict]:
        return [{"T": t} for t in (10, 20, 40)]

    def simulate(self, point: dict, seeds) -> pd.DataFrame:
        rng = np.random.default_rng([int(point["T"]), *seeds])
        df = pd.DataFrame({"seed": list(seeds), "round": point["T"], "iterations": point["T"],
                           "objective_gap": self.scale / point["T"] * rng.uniform(0.9, 1.1, len(seeds)),
                           "diverged": False})
        return records_from_trace(df, claim=self, point_index=[10, 20, 40].index(point["T"]), point=point,
                                  metrics=["objective_gap"], bound=lambda d: 1.0 / d["iterations"].to_numpy())

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        table = records.pivot_table(index="seed", columns="iterations", values="value")
        bound = records.groupby("iterations")["bound"].first().reindex(table.columns).to_numpy()
        result: CheckResult = bound_holds(table.to_numpy(), bound)
        return self.verdict(result, conditions=[], seeds=sorted(table.index), constants={})


def _toy(cid: str, scale: float = 0.5) -> _Toy:
    return _Toy(id=cid, theorem="toy", title=cid, algorithm="toy", problem="toy", regime="", why="",
                metric="objective_gap", x="iterations", n_seeds={"quick": 4, "standard": 6, "full": 8}, scale=scale)


def _run(out: Path, claims, profile: str = "quick", **kw) -> dict:
    return verify_claims(claims, profile=profile, out=out, jobs=1, progress=False, write_pdf=False, **kw)


@pytest.mark.slow  # several seconds of CPU: the long step
def test_partial_run_merges_by_claim_id_with_profile_and_date(tmp_path: Path) -> None:
    _run(tmp_path, [_toy("t/a"), _toy("t/b"), _toy("t/c")], profile="standard")
    summary = _run(tmp_path, [_toy("t/b", scale=2e-6)])  # a quick re-run of one claim
    assert summary["kept"] == ["t/a", "t/c"]
    verdicts = json.loads((tmp_path / "verdicts.json").read_text())
    assert [v["claim"] for v in verdicts] == ["t/a", "t/b", "t/c"]  # order kept, nothing dropped
    by_id = {v["claim"]: v for v in verdicts}
    assert by_id["t/a"]["profile"] == "standard" and by_id["t/b"]["profile"] == "quick"
    assert all(v["run_at"] for v in verdicts)
    # t/b's verdict and records are this run's (its values are 2e-6/T: a loose bound), the others' are kept
    assert by_id["t/b"]["loose"] is True and by_id["t/a"]["loose"] is False
    records, prov = rec.read_records(tmp_path / "records.parquet")
    assert set(records["claim"]) == {"t/a", "t/b", "t/c"}
    assert records[records["claim"] == "t/b"]["value"].max() < 1e-6
    assert prov["claims_this_run"] == ["t/b"] and prov["claims_kept_from_earlier_runs"] == ["t/a", "t/c"]
    report = (tmp_path / "report.html").read_text()
    assert all(cid in report for cid in ("t/a", "t/b", "t/c")) and "standard profile" in report


def test_replace_writes_only_this_run(tmp_path: Path) -> None:
    _run(tmp_path, [_toy("t/a"), _toy("t/b")])
    summary = _run(tmp_path, [_toy("t/b")], merge=False)
    assert summary["kept"] == []
    assert [v["claim"] for v in json.loads((tmp_path / "verdicts.json").read_text())] == ["t/b"]


def test_unreadable_earlier_run_is_replaced_with_a_warning(tmp_path: Path, capsys) -> None:
    (tmp_path / "verdicts.json").write_text("{not json")
    _run(tmp_path, [_toy("t/a")])
    assert "unreadable" in capsys.readouterr().err
    assert [v["claim"] for v in json.loads((tmp_path / "verdicts.json").read_text())] == ["t/a"]


def test_each_verdict_names_the_broken_variants_run_against_it(tmp_path: Path, monkeypatch) -> None:
    from fedrates.verify import plotdata
    from fedrates.verify.variants import BrokenVariant

    variant = BrokenVariant(id="toy/scale-2", target="algorithm", bug="gradient doubled", claims=("t/a*",),
                            apply=lambda c: c)
    monkeypatch.setattr("fedrates.verify.variants.all_variants", lambda: (variant,))
    assert plotdata.discriminating(["t/a", "t/b"]) == {"t/a": ["toy/scale-2"], "t/b": []}
    _run(tmp_path, [_toy("t/a"), _toy("t/b")])
    by_id = {v["claim"]: v for v in json.loads((tmp_path / "verdicts.json").read_text())}
    assert by_id["t/a"]["variants"] == ["toy/scale-2"] and by_id["t/b"]["variants"] == []
    report = (tmp_path / "report.html").read_text()
    section = report[report.index("Discriminating claims per algorithm"):]
    assert "<td>toy</td><td>1</td><td>2</td><td>1</td>" in section
