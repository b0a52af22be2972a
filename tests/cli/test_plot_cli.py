"""`fedrates plot RECORDS --claim ID [--metric M] [--x VAR] [--out FILE]`: one figure from stored records."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fedrates.verify.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "verify"))
    try:
        from test_pipeline_merge import _run, _toy
    finally:
        sys.path.pop(0)
    out = tmp_path_factory.mktemp("run")
    _run(out, [_toy("t/a"), _toy("t/loose", scale=1e-7)])
    return out


@pytest.mark.parametrize("suffix,magic", [(".svg", b"<?xml"), (".png", b"\x89PNG"), (".pdf", b"%PDF")])
def test_plot_writes_one_figure(run_dir: Path, tmp_path: Path, capsys, suffix: str, magic: bytes) -> None:
    out = tmp_path / f"fig{suffix}"
    assert main(["plot", str(run_dir), "--claim", "t/a", "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(magic)
    assert "wrote" in capsys.readouterr().out
    if suffix == ".svg":  # provenance inside the file
        assert b"t/a: verdict pass" in data and b"fedrates 0." in data


def test_plot_json_describes_what_is_drawn(run_dir: Path, tmp_path: Path, capsys) -> None:
    code = main(["plot", str(run_dir / "records.parquet"), "--claim", "t/loose", "--out", str(tmp_path / "f.svg"),
                 "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["plot"]["prediction"]["kind"] == "bound" and doc["plot"]["loose"] is True
    code = main(["plot", str(run_dir), "--claim", "t/a", "--x", "round", "--out", str(tmp_path / "g.svg"), "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["plot"]["x"] == "round"


@pytest.mark.parametrize("argv,needle", [
    (["--claim", "t/b"], "unknown claim"),
    (["--claim", "t/a", "--out", "x.txt"], ".svg, .png or .pdf"),
    (["--claim", "t/a", "--metric", "nope"], "stored: objective_gap"),
    (["--claim", "t/a", "--x", "nope"], "not a records column"),
])
def test_plot_bad_input_is_one_line_exit_2(run_dir: Path, capsys, argv: list[str], needle: str) -> None:
    assert main(["plot", str(run_dir), *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_plot_missing_directory(capsys, tmp_path: Path) -> None:
    assert main(["plot", str(tmp_path / "none"), "--claim", "t/a"]) == 2
    assert "does not exist" in capsys.readouterr().err
