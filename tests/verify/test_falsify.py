"""Adversarial instance search: a deliberately false bound is refuted within the default budget, the true bound is
not, conditions are honoured, records resume, bad input is one line with exit 2."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from fedrates.solvers.errors import InputError
from fedrates.verify import falsify
from fedrates.verify.cli import main

THM = "bao.thm2.1.explicit"


@pytest.mark.slow
def test_rhs_divided_by_100_is_refuted_within_the_default_budget() -> None:
    """Soundness: Theorem 2.1's explicit rhs / 100 is false on some instance (the true bound's worst ratio found is
    a few 1e-2); the default budget finds it and the confirmation on fresh seeds refutes it."""
    result = falsify.falsify(THM, bound_scale=1e-2, seed=0)
    assert result.verdict == "refuted", result.explanation
    assert result.confirmation["ratio_lo"] > 1.0
    assert result.confirmation["conditions_ok"] and all(c["holds"] for c in result.worst["conditions"])
    assert result.worst["run_command"].startswith("fedrates run fast_fedda --problem quadratic")


@pytest.mark.parametrize("seed", [1])
def test_much_smaller_bound_is_refuted_on_other_seeds_with_a_small_budget(seed: int) -> None:
    result = falsify.falsify(THM, bound_scale=1e-4, seed=seed, budget=16)
    assert result.verdict == "refuted", result.explanation


def test_true_bound_survives_and_a_huge_one_is_vacuous() -> None:
    result = falsify.falsify(THM, seed=0, budget=12)
    assert result.verdict in ("survived", "vacuous"), result.explanation
    valid = result.records[result.records["conditions_ok"]]
    assert (valid["ratio_lo"] < 1.0).all()
    if result.verdict == "survived":
        assert result.worst["ratio"] == pytest.approx(valid[valid["phase"] != "confirm"]["ratio"].max())
    # the same search with the bound multiplied by 1e5: every upper ratio bound < 1e-3 (worst true ratio < 1e-1)
    huge = falsify.falsify(THM, seed=0, budget=12, bound_scale=1e5)
    assert huge.verdict == "vacuous", huge.explanation


def test_conditions_are_evaluated_and_violating_instances_never_count() -> None:
    """a = a_factor * 4L/mu with a_factor < 1 violates a >= 4L/mu: such rows are recorded, never the worst, and a
    bound scaled down so far that every instance would refute it is still only refuted on a valid instance."""
    result = falsify.falsify(THM, bound_scale=1e-6, seed=3, budget=12)
    rec = result.records[result.records["phase"] != "confirm"]
    below = rec["x_a_factor"] < 1.0 - 1e-9
    assert below.any() and (~below).any()
    assert not rec.loc[below, "conditions_ok"].any()
    assert rec.loc[below, "failed_conditions"].str.contains("a >= 4*L/mu", regex=False).all()
    assert result.worst["parameters"]["a_factor"] >= 1.0
    assert result.verdict == "refuted"


def test_records_are_written_and_a_rerun_resumes_without_recomputing(tmp_path, monkeypatch) -> None:
    first = falsify.falsify(THM, seed=5, budget=10, out=tmp_path)
    stored = pd.read_parquet(tmp_path / "records.parquet")
    assert len(stored) >= 10 and {"ratio", "ratio_lo", "ratio_hi", "conditions_ok", "bound", "key"} <= set(stored)

    def fail(*args, **kwargs):
        raise AssertionError("a finished instance was recomputed")

    monkeypatch.setattr(falsify, "evaluate", fail)
    second = falsify.falsify(THM, seed=5, budget=10, out=tmp_path)
    assert second.verdict == first.verdict
    assert second.worst["ratio"] == first.worst["ratio"]


def test_printed_run_command_reproduces_the_measured_value(capsys) -> None:
    """The worst instance's command line reruns the exact instance: same mean objective gap, bit for bit."""
    import shlex

    result = falsify.falsify(THM, seed=1, budget=4)
    argv = shlex.split(result.worst["run_command"])
    assert argv[:2] == ["fedrates", "run"]
    assert main([*argv[1:], "--json"]) == 0
    finals = json.loads(capsys.readouterr().out)["final"]
    assert sum(r["objective_gap"] for r in finals) / len(finals) == pytest.approx(result.worst["measured_mean"],
                                                                                  rel=1e-12)


def test_bad_input() -> None:
    with pytest.raises(InputError, match="kind 'order'.*bao.thm2.1.explicit"):
        falsify.falsify("bao.thm2.1")
    with pytest.raises(InputError, match="budget"):
        falsify.falsify(THM, budget=0)
    with pytest.raises(InputError, match="unknown theorem"):
        falsify.falsify("bao.thm99")
    with pytest.raises(InputError, match="no search target"):
        falsify.falsify("bao.prop3.1")
    with pytest.raises(InputError, match="high-probability"):
        falsify.falsify("bao.thm3.1.explicit")


def test_unreadable_records_file_is_bad_input(tmp_path) -> None:
    (tmp_path / "records.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(InputError, match="cannot resume"):
        falsify.falsify(THM, budget=2, out=tmp_path)


@pytest.mark.parametrize(("argv", "needle"), [
    (["falsify", "bao.thm2.1"], "bao.thm2.1.explicit"),
    (["falsify", "bao.nope"], "unknown theorem"),
    (["falsify", THM, "--budget", "0"], "--budget 0"),
    (["falsify", THM, "--budget", "-3"], "--budget -3"),
    (["falsify", THM, "--algorithm", "fedavg"], "fedavg"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, needle, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_cli_end_to_end_json_and_report(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["falsify", THM, "--budget", "6", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["search"]["verdict"] in ("survived", "vacuous", "refuted")
    assert doc["search"]["worst"]["conditions"]
    for name in ("records.parquet", "result.json", "report.html", "report.pdf"):
        assert (out / name).stat().st_size > 0
    assert (out / "report.pdf").read_bytes()[:4] == b"%PDF"
    text = (out / "report.html").read_text(encoding="utf-8")
    assert "<svg" in text and "http://" not in text.replace("http://www.w3.org", "")


def test_cli_pep_only_theorem_exits_1_when_false_on_class(tmp_path, capsys) -> None:
    """das.lem3 has PEP cases only; its nonconvex case is false on the class (catalogued erratum) -> exit 1."""
    assert main(["falsify", "das.lem3", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "das.lem3/nonconvex: false-on-class" in out and "das.lem3/convex: tight" in out


def test_report_escapes_everything() -> None:
    from fedrates.reports import falsify as report

    evil = "<script>alert(1)</script>"
    summary = {"theorem": evil, "label": evil, "title": evil, "statement": evil,
               "search": {"verdict": evil, "explanation": evil, "algorithm": evil, "family": evil,
                          "worst": {"ratio": 1.0, "parameters": {evil: evil}, "constants": {}, "conditions": [
                              {"condition": evil, "holds": True, "lhs": 1.0, "rhs": 0.5}], "run_command": evil}},
               "pep": [{"case": evil, "verdict": evil, "bound": 1.0, "worst_case": 0.5, "explanation": evil,
                        "ratio_bound_over_worst": 2.0, "params": {evil: 1}, "sdp": {"gap": 1e-9, "solver": evil}}]}
    text = report.render_html_string(summary, None)
    assert "<script>" not in text and "&lt;script&gt;" in text


def test_dim_maps_log_box_to_parameters() -> None:
    d = falsify.Dim("x", 1e-2, 1e2)
    assert d.from_unit(0.0) == pytest.approx(1e-2) and d.from_unit(1.0) == pytest.approx(1e2)
    assert d.from_unit(0.5) == pytest.approx(1.0)
    n = falsify.Dim("n", 1, 16, integer=True)
    assert n.from_unit(0.5) == 4.0 and n.from_unit(2.0) == 16.0
    assert math.isclose(falsify.Dim("y", 0.0, 1.0, log=False).from_unit(0.25), 0.25)


def test_cli_refuted_bound_exits_1_and_prints_the_instance(tmp_path, monkeypatch, capsys) -> None:
    """A bound scaled down by 1e6 (false everywhere) through the command: exit 1, the worst instance and its
    `fedrates run` line are printed."""
    import functools

    monkeypatch.setattr(falsify, "falsify", functools.partial(falsify.falsify, bound_scale=1e-6))
    assert main(["falsify", THM, "--budget", "6", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "verdict: refuted" in out and "rerun: fedrates run fast_fedda" in out and "conditions: a >= 4*L/mu" in out


def _blas_threads() -> int:
    from threadpoolctl import threadpool_info

    return max([i["num_threads"] for i in threadpool_info()] or [1])


def test_the_command_searches_and_reruns_with_one_blas_thread(tmp_path, monkeypatch, capsys) -> None:
    """`fedrates falsify` computes with one BLAS thread, as `run`, `reference`, `constants` and the sweep do: a second
    thread on a shared machine spins against the busy cores, and a --point rerun gives the search's numbers."""
    if _blas_threads() < 2:
        pytest.skip("this machine's BLAS runs one thread by default: a cap of one cannot be told from no cap")
    seen: list[int] = []
    search, evaluate = falsify.falsify, falsify.evaluate

    def spy_search(*args, **kwargs):
        seen.append(_blas_threads())
        return search(*args, **kwargs)

    def spy_evaluate(*args, **kwargs):
        seen.append(_blas_threads())
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(falsify, "falsify", spy_search)
    monkeypatch.setattr(falsify, "evaluate", spy_evaluate)
    assert main(["falsify", THM, "--budget", "6", "--out", str(tmp_path), "--json"]) in (0, 1)
    point = json.loads(capsys.readouterr().out)["search"]["worst"]["parameters"]
    assert main(["falsify", THM, "--point", json.dumps(point), "--json"]) in (0, 1)
    assert seen and set(seen) == {1}
    assert _blas_threads() >= 2  # the cap ends with the command
