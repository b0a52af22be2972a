"""``fedrates selfcheck`` on the command line: bad input is one line with exit 2; a caught variant exits 0 and names
the claim that caught it."""

from __future__ import annotations

import json

import pytest

from fedrates.verify.cli import main


def test_unknown_variant_pattern_is_one_line_and_exit_2(capsys) -> None:
    assert main(["selfcheck", "--only", "no-such-variant"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-variant" in err and "fedavg/" in err


def test_bad_profile_and_jobs_exit_2(capsys) -> None:
    assert main(["selfcheck", "--profile", "huge"]) == 2
    assert main(["selfcheck", "--jobs", "zero"]) == 2
    assert main(["selfcheck", "--jobs", "0"]) == 2


@pytest.mark.slow
def test_caught_variant_exits_0_with_its_catching_claim(capsys) -> None:
    assert main(["selfcheck", "--only", "fedprox/prox-sign", "--jobs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kill_ratio"] == 1.0 and doc["total"] == 1
    (row,) = doc["variants"]
    assert row["caught_by"] == "bao.exact/fedprox-moments" and row["verdict"] == "fail"
    # every claim the variant names (the FedProx moments and returned-point claims) passes on the correct code
    assert doc["correct"] and all(c["verdict"] == "pass" for c in doc["correct"])
