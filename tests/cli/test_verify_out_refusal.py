"""``fedrates verify --out`` with a name no file system holds is refused before the claims are selected (and
imported), with the line the creation of the folder gives (compared here), and nothing is created."""

from __future__ import annotations

import json
import os
import subprocess
import sys

_RUNNER = r"""
import json, sys
from fedrates.verify import claims
from fedrates.verify.cli import main
from fedrates.verify.commands import verify
argv, skip = json.load(sys.stdin)
if skip:
    verify._check_out_names = lambda path: None
selected = []
select = claims.select
claims.select = lambda *args, **kwargs: selected.append(1) or select(*args, **kwargs)
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
sys.stdout.write("RESULT" + json.dumps([code, bool(selected)]) + "\n")
"""


def _run(argv, skip, root):
    """``main(argv)`` in a fresh process working in ``root/work``, with a cache of its own in ``root/cache`` (no claim
    ids stored by other tests: the full path selects the claims)."""
    cwd = root / "work"
    cwd.mkdir(exist_ok=True)
    env = {**os.environ, "FEDRATES_CACHE": str(root / "cache")}
    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps([argv, skip]), capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    assert line, proc.stderr[-2000:]
    return json.loads(line[0][len("RESULT"):]), [x for x in proc.stderr.splitlines() if x.startswith("fedrates:")]


def test_a_too_long_out_name_is_refused_before_the_claims_load(tmp_path):
    argv = ["verify", "--only", "bao.thm2.1/rate-T", "--out", str(tmp_path / "work" / ("a" * 300) / "run")]
    (code, selected), err = _run(argv, False, tmp_path)
    (full_code, full_selected), full_err = _run(argv, True, tmp_path)  # the check skipped: the creation fails
    assert (code, full_code) == (2, 2)
    assert not selected and full_selected, (err, full_err)
    assert err == full_err and len(err) == 1 and "File name too long" in err[0]
    assert list((tmp_path / "work").iterdir()) == []


def test_names_within_the_limit_are_left_to_the_creation(tmp_path):
    from fedrates.verify.commands.verify import _check_out_names

    _check_out_names(str(tmp_path / ("b" * 200) / "not-yet" / "run"))  # no error: nothing is too long
    assert list(tmp_path.iterdir()) == []  # and the check creates nothing
