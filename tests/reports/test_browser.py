"""The HTML report as a reviewer sees it, in headless Chromium (skipped, with the reason, when it is not installed;
``.ci/run`` installs Debian's ``chromium``).

A copy of the report gets a probe script (the report itself has none) that writes what the page laid out into the
DOM, read back with ``--dump-dom``: the scorecard within the first screen, no horizontal scrolling at 1280 px, every
figure drawn with a size, MathML laid out, the claim figures beside their text at 1920 px. The browser's own log
(``--enable-logging=stderr``) must show no console message (the report has no script; errors such as a resource
that fails to load would be logged there).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from fedrates.reports import html

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

PROBE = """<script>window.addEventListener('load', () => {
const box = e => e.getBoundingClientRect();
const svgs = [...document.querySelectorAll('.figure svg')];
const maths = [...document.querySelectorAll('math')];
const card = document.querySelector('table.scorecard');
const fig = document.querySelector('.claim .figure'); const text = document.querySelector('.claim .claim-text');
document.body.setAttribute('data-probe', JSON.stringify({
  scroll: document.documentElement.scrollWidth, inner: window.innerWidth, screen: window.innerHeight,
  cardTop: card ? box(card).top : -1, figures: svgs.length, sized: svgs.filter(s => box(s).width > 100 &&
  box(s).height > 100).length, maths: maths.length, mathSized: maths.filter(m => box(m).width > 5 &&
  box(m).height > 5).length, figLeft: fig ? box(fig).left : -1, textRight: text ? box(text).right : -1,
  errata: document.querySelectorAll('.erratum').length}));});</script>"""


def _chromium() -> str:
    if not CHROMIUM.exists():
        pytest.skip("headless Chromium is not installed at /usr/bin/chromium (apt-get install chromium; .ci/run "
                    "installs it): the report is not checked in a browser")
    return str(CHROMIUM)


def _records(claims: list[str]) -> pd.DataFrame:
    rows = []
    for claim in claims:
        for point, t in enumerate((10, 20, 40, 80)):
            for seed in range(3):
                rows.append({"claim": claim, "point": point, "seed": seed, "round": t, "iterations": t,
                             "metric": "objective_gap", "value": (1 + 0.1 * seed) / t, "bound": 5.0 / t})
    return pd.DataFrame(rows)


def _report(directory: Path) -> Path:
    claims = ["bao.thm2.1/rate-T", "bao.thm2.1.explicit/bound", "dinh.rem1/smallest-tau"]
    verdicts = [
        {"claim": claims[0], "verdict": "pass", "theorem": "bao.thm2.1", "x": "iterations",
         "metric": "objective_gap", "title": "rate in T", "statement": r"\mathbb{E} f(\hat w_T) - f^\star \le "
         r"\frac{C}{T}", "measured": "slope -1.0", "predicted": "slope -1", "tolerance": "± 0.25",
         "fit": {"slope": -1.0, "intercept": 0.0, "lo": -1.1, "hi": -0.9}, "algorithm": "fast_fedda",
         "conditions": [{"condition": f"T={t}: a >= 4*L/mu", "holds": True, "value": ""} for t in (10, 20, 40, 80)],
         "profile": "quick", "run_at": "2026-01-01T00:00:00+00:00"},
        {"claim": claims[1], "verdict": "informational", "theorem": "bao.thm2.1.explicit", "x": "iterations",
         "metric": "objective_gap", "predicted": "measured ≤ bound", "informational": "bound 40× above",
         "statement": r"\phi(w) \le \frac{\mu a^3 B}{T^3}", "profile": "quick",
         "run_at": "2026-01-01T00:00:00+00:00"},
        {"claim": claims[2], "verdict": "erratum", "erratum_kind": "statement-false", "theorem": "dinh.rem1.3",
         "x": "beta", "metric": "tau", "predicted": "some beta beats beta_min", "profile": "quick",
         "run_at": "2026-01-01T00:00:00+00:00"},
    ]
    errata = [{"kind": "statement-false", "where": "Remark 1(3)", "quote": "beta_min gives the smallest tau",
               "true_statement": "tau is smallest at beta = 3 + sqrt(9 + mu^2/L^2)", "evidence": "tau 137 vs 17",
               "theorem": "dinh.rem1.3", "claims": [claims[2]]}]
    provenance = {"executable": str(Path(tempfile.gettempdir()) / "venv" / "bin" / "python"), "numpy": "2"}
    return html.render_html(_records(claims), verdicts, provenance, errata, directory / "report.html")


def _probe(path: Path, width: int, height: int = 800) -> tuple[dict, str]:
    probe = path.with_name("probe.html")
    probe.write_text(path.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([_chromium(), *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                              f"--window-size={width},{height}", "--virtual-time-budget=5000", "--dump-dom",
                              probe.as_uri()], capture_output=True, text=True, timeout=180)
    found = re.search(r'data-probe="([^"]+)"', run.stdout)
    assert found, f"the probe did not run: {run.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"')), run.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _chromium()
    return _report(tmp_path_factory.mktemp("browser"))


def test_report_at_1280_px(report: Path) -> None:
    layout, log = _probe(report, 1280)
    # Chromium logs every console message as "INFO:CONSOLE(…)" whatever its level; the report writes none
    assert not [line for line in log.splitlines() if ":CONSOLE" in line], log
    assert layout["scroll"] <= 1280, layout  # no horizontal scrolling
    assert 0 <= layout["cardTop"] < layout["screen"], layout  # the scorecard starts within the first screen
    assert layout["figures"] == 3 and layout["sized"] == 3, layout  # every claim's figure, drawn with a size
    assert layout["maths"] >= 2 and layout["mathSized"] == layout["maths"], layout  # MathML laid out
    assert layout["errata"] == 1, layout


def test_report_uses_1920_px(report: Path) -> None:
    layout, _ = _probe(report, 1920)
    assert layout["scroll"] <= 1920, layout
    assert layout["figLeft"] >= layout["textRight"] > 700, layout  # figures beside the text, not below it


def test_report_shows_no_local_path(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    assert tempfile.gettempdir() + "/venv" not in text
    assert "…/python" in text
