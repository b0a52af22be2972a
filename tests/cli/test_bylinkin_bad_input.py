"""Bad input for the complexity-separation methods of Bylinkin et al. through the CLI: a step beyond its admissible
bound, p or q outside (0, 1), a non-positive target ε, an instance whose δ's are not those requested.  Each case:
exit status 2, one line on stderr naming the bad value and what was expected, nothing on stdout, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from fedrates.solvers.problems import separation
from fedrates.verify.cli import main

RUN = ["--problem", "separation", "--rounds", "2"]
THM6 = ["explore", "bylinkin.thm6.mf", "--set", "delta_f=0.05", "delta_g=0.5", "mu=0.01", "V_0=1"]

CASES: list[tuple[str, list[str], str]] = [
    # step sizes beyond the theorems' bounds
    ("c-aeg-theta-f", ["run", "c_acc_extragradient", *RUN, "--hyper", "theta_scale=1.0"], "theta_scale <= 0.5"),
    ("c-aeg-theta-f-2", ["run", "c_acc_extragradient", *RUN, "--hyper", "theta_scale=4"], "Kovalev"),
    ("sc-aeg-theta", ["run", "sc_acc_extragradient", *RUN, "--hyper", "theta_scale=0.5"], "theta_scale <= 1/3"),
    ("aeg-theta", ["run", "aeg", *RUN, "--hyper", "theta_scale=0.34"], "tuning (9)"),
    ("vrcs-theta", ["run", "vrcs", *RUN, "--hyper", "theta_scale=100"], "Lemma 4's bound"),
    ("acc-vrcs-theta", ["run", "acc_vrcs", *RUN, "--hyper", "theta_scale=100"], "Lemma 4's bound"),
    ("theta-zero", ["run", "vrcs", *RUN, "--hyper", "theta_scale=0"], "theta_scale"),
    # probabilities outside (0, 1) (0 selects the paper's tuning)
    ("sc-aeg-p-one", ["run", "sc_acc_extragradient", *RUN, "--hyper", "p=1"], "p in (0, 1)"),
    ("sc-aeg-p-negative", ["run", "sc_acc_extragradient", *RUN, "--hyper", "p=-0.5"], "p=-0.5"),
    ("vrcs-p-large", ["run", "vrcs", *RUN, "--hyper", "p=1.5"], "p in (0, 1)"),
    ("vrcs-q-one", ["run", "vrcs", *RUN, "--hyper", "q=1"], "q in (0, 1)"),
    ("acc-vrcs-q-large", ["run", "acc_vrcs", *RUN, "--hyper", "q=2"], "q in (0, 1)"),
    ("acc-vrcs-q-negative", ["run", "acc_vrcs", *RUN, "--hyper", "q=-0.1"], "q=-0.1"),
    # targets
    ("eps-zero", [*THM6, "eps=0"], "'eps' must be positive"),
    ("eps-negative", [*THM6, "eps=-1e-3"], "'eps'"),
    # instance parameters
    ("delta-f-negative", ["run", "vrcs", *RUN, "--set", "delta_f=-1"], "delta_f=-1.0 is out of range"),
    ("delta-g-zero", ["run", "vrcs", *RUN, "--set", "delta_g=0"], "delta_g"),
    ("not-a-separation-problem", ["run", "vrcs", "--problem", "quadratic", "--rounds", "2"], "family 'separation'"),
]


def _tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*")}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "ref-cache"))
    return tmp_path


def _one_line_exit_2(workdir: Path, capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    before = _tree(workdir)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedrates: error: "), err
    assert "Traceback" not in err
    assert _tree(workdir) == before  # nothing written
    return lines[0]


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_one_line_exit_2_nothing_written(workdir, capsys, argv, needle):
    assert needle in _one_line_exit_2(workdir, capsys, argv)


def test_builder_refuses_an_instance_whose_deltas_are_not_those_requested(workdir, capsys, monkeypatch):
    # a perturbation 1% off its requested spectral norm: the builder recomputes delta_f, delta_g from what it built
    original = separation._perturbation
    monkeypatch.setattr(separation, "_perturbation",
                        lambda rng, d, delta, kind, b: 1.01 * original(rng, d, delta, kind, b))
    line = _one_line_exit_2(workdir, capsys, ["run", "vrcs", *RUN, "--set", "seed=11"])
    assert "not the requested" in line


def test_valid_run_exits_0(workdir, capsys):
    # the same command line with admissible values runs (the table above is not refusing everything)
    assert main(["run", "vrcs", *RUN, "--hyper", "p=0.3", "q=0.4"]) == 0
    capsys.readouterr()
