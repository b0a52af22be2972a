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
