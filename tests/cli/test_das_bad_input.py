"""Bad input of Das et al.'s DP algorithms and noise calibration at the command line: eps <= 0, delta outside (0, 1),
C <= 0, participation rate outside (0, 1], sigma < 0 give one line naming the value, exit status 2, no traceback and
nothing written.  The zero-norm client update under normalisation is defined (sent as 0, or an error naming the
client and round with ``zero_update=error``) and tested in tests/solvers/test_dp_algorithms.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from fedrates.verify.cli import main

RUN = ["run", "dp_fedavg_clip", "--problem", "quadratic", "--set", "dim=4", "clients=4", "--rounds", "3", "--hyper"]
NRUN = ["run", "dp_normfedavg", "--problem", "quadratic", "--set", "dim=4", "clients=4", "--rounds", "3", "--hyper"]
THM1 = ["explore", "das.thm1", "--solve", "sigma", "--target", "1", "--set", "q=1", "K=500", "C=40", "n=100"]

CASES = [
    ("clip-zero", [*RUN, "clip=0"], "clip=0"),
    ("clip-negative", [*NRUN, "clip=-2"], "clip=-2"),
    ("sigma-negative", [*RUN, "sigma=-0.1"], "sigma=-0.1"),
    ("norm-sigma-negative", [*NRUN, "sigma=-1"], "sigma=-1"),
    ("rate-zero", [*RUN, "rate=0"], "rate=0"),
    ("rate-above-one", [*NRUN, "rate=1.5"], "rate=1.5"),
    ("zero-update-choice", [*NRUN, "zero_update=skip"], "zero_update"),
    ("eps-zero", [*THM1, "eps=0", "delta=1e-5"], "'eps'"),
    ("eps-negative", [*THM1, "eps=-1", "delta=1e-5"], "'eps'"),
    ("delta-zero", [*THM1, "eps=1", "delta=0"], "'delta'"),
    ("delta-one", [*THM1, "eps=1", "delta=1"], "delta < 1"),
    ("delta-above-one", [*THM1, "eps=1", "delta=1.5"], "delta < 1"),
    ("thm1-C-zero", ["explore", "das.thm1", "--solve", "sigma", "--target", "1", "--set", "q=1", "K=500", "C=0",
                     "n=100", "eps=1", "delta=1e-5"], "'C'"),
]


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_dp_bad_input_one_line_exit_2_nothing_written(tmp_path: Path, monkeypatch, capsys, argv, needle) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "ref-cache"))
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedrates: error: "), err
    assert "Traceback" not in err
    assert needle in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []


def test_valid_calibration_answers(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*THM1, "eps=5", "delta=1e-6"]) == 0
    out = capsys.readouterr().out
    assert "6.649" in out  # sigma = 0.166226 * 40 at q = 1 (eq. 5)
