"""`fedrates run` says what it ran: resolved hyperparameters, warnings only for conditions that fail, zero noise."""

from __future__ import annotations

import json

from fedrates.verify.cli import main

BALL = ["--problem", "quadratic", "--set", "dim=4", "clients=4", "lam=0.05", "radius=2", "mu=0.5", "L=2"]


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shows_resolved_hyperparameters(capsys) -> None:
    code, out, _ = _run(capsys, ["run", "fast_fedda", *BALL, "--set", "sigma=1", "--rounds", "20", "--json"])
    assert code == 0
    params = json.loads(out)["params"]
    hyper = params["hyperparameters"]
    # mu = 0, a = 0, gamma = 0 mean "the problem's exact mu", "4L/mu", "2 mu a^3": the values used are shown
    assert hyper["mu"] > 0 and hyper["a"] > 0
    assert abs(hyper["gamma"] - 2 * hyper["mu"] * hyper["a"] ** 3) <= 1e-9 * hyper["gamma"]
    assert params["hyperparameters_given"]["mu"] == 0.0


def test_t_ge_a_warning_only_when_it_fails(capsys) -> None:
    _, out, err = _run(capsys, ["run", "fast_fedda", *BALL, "--set", "sigma=1", "--rounds", "400", "--json"])
    a = json.loads(out)["params"]["hyperparameters"]["a"]
    assert 400 >= a and "T >= a" not in err
    _, _, err = _run(capsys, ["run", "fast_fedda", *BALL, "--set", "sigma=1", "--rounds", "3", "--json"])
    assert "T >= a" in err and "T = rounds x local_steps = 3" in err


def test_zero_noise_default_is_said(capsys) -> None:
    _, _, err = _run(capsys, ["run", "fast_fedda", *BALL, "--rounds", "3"])
    assert "sigma = 0" in err and "every seed gives the same run" in err
    _, _, err = _run(capsys, ["run", "fast_fedda", *BALL, "--set", "sigma=1", "--rounds", "50"])
    assert "sigma = 0" not in err
