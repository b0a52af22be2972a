"""End-to-end tests of ``fedrates report DIR``: re-rendering a stored run, and one-line errors on bad input."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from fedrates.verify import cli
from fedrates.verify.records import empty_records, provenance, write_json_atomic, write_records

CLAIMS = ("bao.thm2.1/rate-T", "das.thm5/speedup-K")


def _run_dir(root: Path, fmt: str = "parquet") -> Path:
    rows = []
    for claim in CLAIMS:
        for seed in (0, 1):
            for point, t in enumerate((10, 20, 40)):
                row = {name: 0 for name in empty_records().columns}
                row.update(
                    claim=claim, theorem=claim.split("/")[0], algorithm="fedavg", problem="quadratic", preset="",
                    point=point, seed=seed, round=t, iterations=t, clients=4, local_steps=1, batch=0,
                    participating=4, dim=5, metric="objective_gap", value=(1.0 + seed) / t, bound=math.nan,
                    params="{}", diverged=False,
                )  # fmt: skip
                rows.append(row)
    directory = root / "run"
    write_records(pd.DataFrame(rows), directory / f"records.{fmt}", provenance(seeds=[0, 1]))
    verdicts = [
        {"claim": CLAIMS[0], "title": "rate", "verdict": "pass", "x": "iterations", "metric": "objective_gap"},
        {"claim": CLAIMS[1], "title": "speedup", "verdict": "erratum", "x": "iterations", "measured": math.inf},
    ]
    write_json_atomic(verdicts, directory / "verdicts.json")
    write_json_atomic([{"theorem": "das.thm5", "text": "factor 2 missing", "resolution": "2x"}],
                      directory / "errata.json")  # fmt: skip
    return directory


def _fedrates(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verify", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_report_rerenders_in_subprocess(tmp_path: Path) -> None:
    directory = _run_dir(tmp_path)
    proc = _fedrates("report", str(directory))
    assert proc.returncode == 0, proc.stderr
    text = (directory / "report.html").read_text(encoding="utf-8")
    for claim in CLAIMS:
        assert claim in text
    assert "factor 2 missing" in text and "<svg" in text
    assert str(directory / "report.html") in proc.stdout


def test_bad_directory_exits_2_with_one_line(tmp_path: Path) -> None:
    proc = _fedrates("report", str(tmp_path / "nowhere"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedrates: error:") and "nowhere" in lines[0]


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda d: (d / "verdicts.json").unlink(), "verdicts file"),
        (lambda d: (d / "verdicts.json").write_text("{not json"), "cannot read verdicts"),
        (lambda d: (d / "verdicts.json").write_text('{"a": 1}'), "list of objects"),
        (lambda d: (d / "provenance.json").unlink(), "provenance file"),
        (lambda d: (d / "records.parquet").write_bytes(b"garbage"), "cannot read records"),
        (lambda d: (d / "records.parquet").unlink(), "no records.parquet or records.csv"),
        (lambda d: (d / "errata.json").write_text("[1, 2]"), "list of objects"),
    ],
)
def test_damaged_run_directory_is_input_error(tmp_path: Path, capsys: pytest.CaptureFixture, damage, expected) -> None:
    directory = _run_dir(tmp_path)
    damage(directory)
    assert cli.main(["report", str(directory)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and expected in err
    assert not (directory / "report.html").exists()


def test_pdf_format_writes_one_page_per_claim(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    directory = _run_dir(tmp_path)
    assert cli.main(["report", str(directory), "--format", "pdf"]) == 0
    data = (directory / "report.pdf").read_bytes()
    assert data.startswith(b"%PDF")
    # scorecards, errata, summary, then one page per claim
    from pypdf import PdfReader

    assert len(PdfReader(directory / "report.pdf").pages) == 3 + len(CLAIMS)
    assert not (directory / "report.html").exists()


def test_unknown_format_exits_2(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["report", str(tmp_path), "--format", "docx"])
    assert exc.value.code == 2


def test_csv_records_out_file_and_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    directory = _run_dir(tmp_path, fmt="csv")
    out = tmp_path / "elsewhere" / "r.html"
    assert cli.main(["report", str(directory), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"report": str(out), "claims": 2, "verdicts": {"pass": 1, "erratum": 1}, "records": 12}
    assert CLAIMS[1] in out.read_text(encoding="utf-8")
    assert not (directory / "report.html").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_both_formats_draw_each_figure_once(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch,
                                            jobs: str, frozen_clock) -> None:
    """``--format both`` writes the two reports from one drawing of each claim's pages (with two jobs, drawn in the
    workers into the run's figure cache); a later ``--format pdf`` or ``html`` draws nothing again."""
    from pypdf import PdfReader

    from fedrates.reports import figures
    from fedrates.reports import pdf as pdf_module
    from fedrates.verify import outputs

    directory = _run_dir(tmp_path)
    assert cli.main(["report", str(directory), "--format", "both", "--jobs", jobs]) == 0
    assert "report.html and" in capsys.readouterr().out
    assert len(PdfReader(directory / "report.pdf").pages) == 3 + len(CLAIMS)
    text = (directory / "report.html").read_text(encoding="utf-8")
    assert all(claim in text for claim in CLAIMS) and text.count("<svg") >= len(CLAIMS)
    pages = sorted(p.name for p in (directory / ".figures").glob("*.page.json"))
    assert len(pages) == len(CLAIMS)  # one entry of pages per claim, for both reports
    calls = []
    monkeypatch.setattr(pdf_module, "draw_pages", lambda *a, **k: calls.append(a) or {})
    monkeypatch.setattr(figures, "claim_figure", lambda *a, **k: calls.append(a) or {})
    assert cli.main(["report", str(directory), "--format", "pdf"]) == 0
    (directory / "report.html").unlink()
    assert cli.main(["report", str(directory)]) == 0
    assert calls == [] and (directory / "report.html").read_text(encoding="utf-8") == text
    assert outputs.damaged(directory, ["report.html", "report.pdf"]) == []  # the manifest follows the rewrites


def test_both_formats_with_one_out_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    directory = _run_dir(tmp_path)
    assert cli.main(["report", str(directory), "--format", "both", "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "names one file" in err
    assert not (directory / "report.html").exists() and not (tmp_path / "r.html").exists()
