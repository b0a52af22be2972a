"""Small conventions: --version, plain help texts, papers cited by authors and title, Theorem reprs, check()."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fedrates import __version__
from fedrates.verify.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"fedrates {__version__}"


def test_help_texts_have_no_markup_or_seed_numbers() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    texts = [parser.format_help()] + [p.format_help() for p in sub.choices.values()]
    assert len(texts) >= 8
    for text in texts:
        assert not re.search(r":(mod|func|class|data|meth):`|``", text), text[:200]
        assert not re.search(r"seed[ -]00\d", text), text[:200]


def test_readme_cites_papers_by_authors_and_title() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"seed[ -]00\d", readme)
    assert "Fast Composite Optimization and Statistical Recovery in Federated Learning" in readme


def test_theorem_short_repr_and_rich_displays() -> None:
    from fedrates.bounds import catalog

    thm = catalog.get("bao.thm2.1")
    text = repr(thm)
    assert text.startswith("<Theorem bao.thm2.1 (Theorem 2.1)") and len(text) < 250 and "notes=" not in text
    assert "<~" in text  # an order bound, not an explicit one
    assert thm._repr_latex_() == f"$$ {thm.statement} $$"
    html = thm._repr_html_()
    assert "Bao, Crawshaw, Luo, Liu" in html and "a &gt;= 4*L/mu" in html and "<script" not in html


def test_check_returns_the_verdict_of_one_claim(monkeypatch) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "verify"))
    try:
        from test_pipeline_merge import _toy
    finally:
        sys.path.pop(0)
    from fedrates.verify import check, claims

    toy = _toy("t/a")
    monkeypatch.setattr(claims, "get", lambda cid: toy if cid == "t/a" else pytest.fail(cid))
    verdict = check("t/a", profile="quick")
    assert verdict["claim"] == "t/a" and verdict["verdict"] == "pass" and verdict["profile"] == "quick"
    assert verdict["plot"]["kind"] == "bound" and len(verdict["seeds"]) == 4
    verdict, records = check("t/a", profile="quick", with_records=True)
    assert set(records["claim"]) == {"t/a"}
    from fedrates.solvers.errors import InputError

    with pytest.raises(InputError, match="profile"):
        check("t/a", profile="fast")


def test_list_theorems_heads_each_paper_with_its_citation(capsys) -> None:
    assert main(["list", "theorems", "--paper", "das"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Das, Hashemi, Sanghavi, Dhillon, “On the Convergence of Differentially Private")
