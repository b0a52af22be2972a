"""Bad input of Dinh et al.'s FedProxVR through the CLI: β ≤ 3, τ < 1, μ ≤ λ, θ ∉ (0, 1) are one line naming the
value and the condition, exit status 2, nothing written; an instance violating assumption (5) makes the toolkit
refuse Θ with the reason; a configuration with Θ ≤ 0 runs, and its theorem claims say conditions-not-met."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fedrates.verify.cli import main


def cli(capsys, *args):
    try:
        rc = main(list(args))
    except SystemExit as exc:
        rc = int(exc.code)
    out = capsys.readouterr()
    return rc, out.out, out.err.strip().splitlines()


@pytest.mark.parametrize("problem, hyper, words", [
    ("dinh_ls", "beta=3", ("beta", "3")),
    ("dinh_ls", "beta=2.5", ("beta", "3")),
    ("dinh_ls", "tau=0", ("tau", "1")),
    ("dinh_nc", "mu=0.05", ("mu", "lambda")),
])
@pytest.mark.parametrize("algorithm", ["fedproxvr_sarah", "fedproxvr_svrg"])
def test_run_refuses_out_of_range_hyperparameters(tmp_path, capsys, algorithm, problem, hyper, words):
    out = tmp_path / "run.csv"
    rc, stdout, err = cli(capsys, "run", algorithm, "--problem", problem, "--hyper", hyper, "--rounds", "2",
                          "--out", str(out))
    assert rc == 2 and len(err) == 1 and stdout == ""
    assert all(w in err[0] for w in words), err[0]
    assert not out.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("theta", ["1.5", "1"])
def test_theta_outside_the_unit_interval_is_refused_by_the_design_problem(capsys, theta):
    rc, stdout, err = cli(capsys, "explore", "dinh.eq20", "--set", "L=1", "lam=0.5", "sigma_bar_sq=0.5", "gamma=1",
                          f"theta={theta}", "--minimize", "mu", "beta", "tau")
    assert rc == 2 and stdout == "" and len(err) == 1
    assert "theta < 1" in err[0] and f"theta={float(theta):g}" in err[0]


def test_theta_validation_of_the_formulas_is_one_line():
    from fedrates.bounds import fedproxvr as fb
    from fedrates.solvers.errors import InputError

    for bad in (0.0, 1.0, 1.2):
        with pytest.raises(InputError, match="theta") as exc:
            fb.beta_min(1.0, 10.0, 0.5, bad)
        assert "\n" not in str(exc.value)


def test_instance_violating_assumption_5_has_theta_refused_with_the_reason(capsys):
    rc, stdout, _ = cli(capsys, "constants", "dinh_ls", "--preset", "dinh-noisy", "--json")
    doc = json.loads(stdout)
    assert rc == 0 and float(doc["fedproxvr"]["sigma_bar_sq"]["value"]) == float("inf")
    assert "assumption (5) fails" in doc["fedproxvr_refused"] and "Theta" in doc["fedproxvr_refused"]
    rc, stdout, _ = cli(capsys, "constants", "dinh_ls")
    assert rc == 0 and "assumption (5) fails" not in stdout


def test_theta_nonpositive_runs_and_its_claims_are_conditions_not_met(capsys):
    """μ = 2 on dinh_ls: Θ < 0 (μ̃ < 4L), yet the run goes through; the Theorem 1 claim reports conditions-not-met."""
    from fedrates.bounds import fedproxvr as fb
    from fedrates.verify.claims.dinh import theorems as dinh
    from fedrates.verify.sweep import run_claims

    rc, _, _ = cli(capsys, "run", "fedproxvr_sarah", "--problem", "dinh_ls", "--hyper", "beta=4", "mu=2", "tau=5",
                   "--rounds", "2")
    assert rc == 0
    claim = {c.id: c for c in dinh.CLAIMS}["dinh.thm1.corrected/sarah"]
    _, consts, _ = claim._setup()
    assert fb.Theta(consts.L, consts.lam, 2.0, claim.theta, consts.sigma_bar_sq) < 0
    broken = dataclasses.replace(claim, theta=0.6)  # θ > 1/√(2(1 + σ̄²)): Θ ≤ 0 for every μ
    result = run_claims([broken], "quick", None)
    v = broken.judge(result.records[broken.id], "quick")
    assert v["verdict"] == "conditions-not-met"
