"""CI runs exactly the README's test command, and that command runs the suite on parallel workers."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r'^pip install -e "\.\[test\]" && (pytest.*)$', re.MULTILINE)


def test_readme_test_command_runs_parallel_workers():
    match = LINE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert match, "README.md has no test command"
    command = match.group(1).split()
    assert "-n" in command and command[command.index("-n") + 1] == "2", command


def test_ci_runs_the_readme_command_and_no_other_pytest():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert """grep -m1 -E '^pip install -e "\\.\\[test\\]" && pytest' README.md""" in script
    assert 'bash -c "$command"' in script
    assert not [line for line in script.splitlines() if re.search(r"(?<![-\w])pytest(?![-.\w])", line)
                and "README" not in line and not line.lstrip().startswith("#") and "CI:" not in line]


def test_xdist_is_a_test_dependency():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    test_extra = re.search(r"^test = \[(.*)\]$", text, re.MULTILINE).group(1)
    assert "pytest-xdist" in test_extra


def test_ci_runs_the_readme_long_test_line_after_the_suite():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r'^(pytest -m "slow or integration".*)$', readme, re.MULTILINE)
    assert line, "README.md has no long-test command"
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert """grep -m1 -E '^pytest -m "slow or integration"' README.md""" in script
    assert script.index('bash -c "$command"') < script.index('bash -c "$integration"')
    # the default run leaves the integration tests out, and some exist for the integration line to run
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "-m 'not slow and not integration'" in text
    for mark in ("integration", "slow"):
        marked = [p for p in (ROOT / "tests").rglob("test_*.py") if f"@pytest.mark.{mark}" in p.read_text("utf-8")]
        assert len(marked) >= 2, (mark, marked)
