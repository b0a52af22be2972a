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


def test_paper_selects_the_variants_of_that_paper_only() -> None:
    from fedrates.verify.commands.selfcheck import of_paper
    from fedrates.verify.variants import all_variants

    everything = all_variants()
    for paper in ("bao", "dinh"):
        chosen = of_paper(everything, paper)
        assert chosen, paper
        assert all(any(c.startswith(paper + ".") for c in v.claims) for v in chosen)
        others = [v for v in everything if v not in chosen]
        assert not any(c.startswith(paper + ".") for v in others for c in v.claims)


@pytest.mark.parametrize("argv,needle", [
    (["selfcheck", "--paper", "nope"], "--paper 'nope' is not an installed paper; expected one of: bao"),
    (["selfcheck", "--paper", "dinh", "--only", "zzz"], "--only 'zzz' matches no broken variant of paper 'dinh'"),
])
def test_bad_paper_or_pattern_of_a_paper_is_one_line(capsys, argv, needle) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


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
