"""Command lines run in a fresh interpreter, one after the other, as a user's shell runs them.

:func:`run_commands` reports for each command its exit status and which of the ``heavy`` modules were imported by
then, and returns the one-line errors (``fedrates: ...``) the commands wrote: what the tests of the quick refusal
paths compare between a cold and a warm cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: the imports a quick path must not pay for
HEAVY = ("sympy", "numpy", "scipy", "pandas")

_RUNNER = r"""
import json, sys
from fedrates.verify.cli import main
heavy = json.loads(sys.argv[1])
out = []
for argv in json.load(sys.stdin):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out.append([code, [m for m in heavy if m in sys.modules]])
sys.stdout.write("RESULT" + json.dumps(out) + "\n")
"""


def run_commands(argvs: Sequence[Sequence[str]], cache: Path, cwd: Path | None = None,
                 heavy: Sequence[str] = HEAVY) -> tuple[list[list], list[str]]:
    """``([[exit status, heavy modules imported so far], ...], error lines)`` of ``argvs`` run in turn by one fresh
    interpreter with ``FEDRATES_CACHE=cache``."""
    env = {**os.environ, "FEDRATES_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(list(heavy))], input=json.dumps(list(argvs)),
                          capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    assert line, proc.stderr[-2000:]
    errors = [x for x in proc.stderr.splitlines() if x.startswith("fedrates:")]
    return json.loads(line[0][len("RESULT"):]), errors
